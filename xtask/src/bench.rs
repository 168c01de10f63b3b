//! `cargo xtask bench NAME`: ours and the peer side by side in one run; the last line printed
//! is one JSON object with both figures and the ratios.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::tools;

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("wire") => wire(root),
        Some("query") => query(root),
        Some("page") => page(root),
        Some("spectate") => example(root, "spectate_bench", &args[1..]),
        Some("feed") => example(root, "feed_bench", &args[1..]),
        Some("rewind") => example(root, "rewind_bench", &args[1..]),
        Some("alerts") => example(root, "alerts_bench", &args[1..]),
        Some("highlights") => example(root, "highlights_bench", &args[1..]),
        Some("demo") => demo(root, &args[1..]),
        Some("history") => {
            tools::ensure(root, tools::Needs::Test)?;
            let postgres = crate::postgres::Cluster::start()?;
            std::env::set_var("MUSTER_BENCH_POSTGRES", &postgres.url);
            example(root, "history_bench", &args[1..])
        }
        Some("matches") => {
            tools::ensure(root, tools::Needs::Test)?;
            let postgres = crate::postgres::Cluster::start()?;
            std::env::set_var("MUSTER_BENCH_POSTGRES", &postgres.url);
            example(root, "matches_bench", &args[1..])
        }
        Some("cluster") => {
            tools::ensure(root, tools::Needs::Cluster)?;
            let postgres = crate::postgres::Cluster::start()?;
            let nats = crate::nats::Nats::start()?;
            std::env::set_var("MUSTER_BENCH_POSTGRES", &postgres.url);
            std::env::set_var("MUSTER_BENCH_NATS", &nats.url);
            std::env::set_var("MUSTER_BENCH_NATS_MONITOR", nats.monitor.to_string());
            example(root, "cluster_bench", &args[1..])
        }
        Some("master") => {
            tools::ensure(root, tools::Needs::Test)?;
            example(root, "master_bench", &args[1..])
        }
        other => {
            bail!("usage: cargo xtask bench wire|query|page|spectate|feed|rewind|alerts|highlights|demo|master|history|matches|cluster (got {other:?})")
        }
    }
}

/// Buffers shaped like message bodies: runs of zeros, small field values, and some text.
fn wire_buffers(count: usize) -> Vec<Vec<u8>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = 100 + (next() % 1300) as usize;
            (0..len)
                .map(|_| match next() % 20 {
                    0..=4 => 0,
                    5..=14 => (next() % 16) as u8,
                    15..=17 => b' ' + (next() % 95) as u8,
                    _ => next() as u8,
                })
                .collect()
        })
        .collect()
}

fn json_line(command: &mut Command) -> Result<Value> {
    eprintln!("xtask: {command:?}");
    let out = command.output().context("running a bench side")?;
    if !out.status.success() {
        bail!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().context("no output")?;
    let value: Value = serde_json::from_str(line).context("bench output is JSON")?;
    println!("{line}");
    Ok(value)
}

fn ratio(ours: &Value, theirs: &Value, key: &str) -> f64 {
    let (a, b) = (ours[key].as_f64(), theirs[key].as_f64());
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => (a / b * 100.0).round() / 100.0,
        _ => f64::NAN,
    }
}

fn wire(root: &Path) -> Result<()> {
    tools::ensure_python_peers()?;
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("wire.bin");
    let mut data = Vec::new();
    for buffer in wire_buffers(4000) {
        data.extend_from_slice(&(buffer.len() as u32).to_le_bytes());
        data.extend_from_slice(&buffer);
    }
    std::fs::write(&file, &data)?;
    let rounds = "20";
    crate::status(Command::new("cargo").args([
        "build",
        "--release",
        "-p",
        "muster-protocol",
        "--example",
        "huffman_throughput",
    ]))?;
    let ours = json_line(
        Command::new(root.join("target/release/examples/huffman_throughput"))
            .arg(&file)
            .arg(rounds),
    )?;
    let theirs = json_line(
        Command::new("python3")
            .arg(root.join("protocol/tests/peers/q3huff2_throughput.py"))
            .arg(&file)
            .arg(rounds),
    )?;
    let summary = json!({
        "bench": "wire",
        "bytes": data.len(),
        "muster": ours,
        "q3huff2": theirs,
        "encode_ratio": ratio(&ours, &theirs, "encode_mb_s"),
        "decode_ratio": ratio(&ours, &theirs, "decode_mb_s"),
    });
    println!("{summary}");
    Ok(())
}

/// Wall and CPU seconds of one shell command, as bash's `time` measures them (getrusage).
fn timed(command: &str) -> Result<(f64, f64)> {
    let script = format!("TIMEFORMAT='%R %U %S'; time ( {command} 2>/dev/null )");
    eprintln!("xtask: {command}");
    let out = Command::new("bash").arg("-c").arg(&script).output()?;
    if !out.status.success() {
        bail!("{command} failed");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().last().context("no timing")?;
    let figures: Vec<f64> = line
        .split_whitespace()
        .map(|f| f.parse().context("timing figure"))
        .collect::<Result<_>>()?;
    match figures[..] {
        [wall, user, system] => Ok((wall, user + system)),
        _ => bail!("unexpected timing {line:?}"),
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs `command` `runs` times; the median wall and CPU seconds, and `answered` on its output.
fn measure(
    command: &str,
    output: &Path,
    runs: usize,
    answered: impl Fn(&Value) -> usize,
) -> Result<Value> {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut counts = Vec::new();
    for _ in 0..runs {
        let (wall, cpu) = timed(&format!("{command} > {}", output.display()))?;
        let json: Value = serde_json::from_slice(&std::fs::read(output)?).context("JSON output")?;
        walls.push(wall);
        cpus.push(cpu);
        counts.push(answered(&json) as f64);
    }
    Ok(json!({
        "wall_s": median(walls),
        "cpu_s": (median(cpus) * 1000.0).round() / 1000.0,
        "answered": median(counts) as usize,
    }))
}

/// A 2,000-server lab fleet refreshed through its master by QStat (at its best -maxsim) and by
/// `muster query`, each several times; medians compared.
fn query(root: &Path) -> Result<()> {
    tools::ensure(root, tools::Needs::Test)?;
    crate::build_release_binaries()?;
    let servers = 2000;
    let master = "127.0.0.1:39999";
    let bin = root.join("target/release");
    let mut lab = Command::new(bin.join("muster-lab"))
        .args([
            "--servers",
            &servers.to_string(),
            "--port",
            "40000",
            "--master-port",
            "39999",
            "--churn",
            "0",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("starting muster-lab")?;
    let result = (|| {
        crate::wait_for_line(&mut lab, "muster-lab:")?;
        let dir = root.join("target/bench");
        std::fs::create_dir_all(&dir)?;
        let cfg = root.join("relay/tests/peers/qstat-coduo.cfg");
        let runs = 3;
        let qstat_answered = |v: &Value| {
            v.as_array().map_or(0, |all| {
                all.iter()
                    .filter(|e| e["protocol"] == "coduos" && e["status"] == "online")
                    .count()
            })
        };
        let mut best: Option<(u32, Value)> = None;
        for maxsim in [20, 100, 500, 1000] {
            let command = format!(
                "quakestat -cfg {} -coduom {master} -R -P -maxsim {maxsim} -json",
                cfg.display()
            );
            let figures = measure(&command, &dir.join("qstat.json"), runs, qstat_answered)?;
            println!(
                "{}",
                json!({"impl": "qstat", "maxsim": maxsim, "figures": figures})
            );
            let better = best
                .as_ref()
                .is_none_or(|(_, b)| figures["wall_s"].as_f64() < b["wall_s"].as_f64());
            if better {
                best = Some((maxsim, figures));
            }
        }
        let (maxsim, qstat) = best.context("no QStat run")?;
        let command = format!(
            "{} query --master {master} --json",
            bin.join("muster").display()
        );
        let muster = measure(&command, &dir.join("muster.json"), runs, |v| {
            v.as_array().map_or(0, |all| {
                all.iter().filter(|e| e["outcome"] == "answered").count()
            })
        })?;
        println!("{}", json!({"impl": "muster", "figures": muster}));
        let ratio = |a: &Value, b: &Value, key: &str| match (a[key].as_f64(), b[key].as_f64()) {
            (Some(a), Some(b)) if b > 0.0 => (a / b * 100.0).round() / 100.0,
            _ => f64::NAN,
        };
        println!(
            "{}",
            json!({
                "bench": "query",
                "servers": servers,
                "qstat": {"maxsim": maxsim, "figures": qstat},
                "muster": muster,
                "wall_speedup": ratio(&qstat, &muster, "wall_s"),
                "cpu_ratio": ratio(&muster, &qstat, "cpu_s"),
            })
        );
        Ok(())
    })();
    let _ = lab.kill();
    let _ = lab.wait();
    result
}

/// The page against a 5,000-server fleet in headless Chromium (relay/examples/page_bench.rs).
fn page(root: &Path) -> Result<()> {
    tools::ensure(root, tools::Needs::Test)?;
    crate::build_page(root)?;
    crate::status(Command::new("cargo").args([
        "build",
        "--release",
        "-p",
        "muster-relay",
        "--example",
        "page_bench",
    ]))?;
    crate::status(
        Command::new(root.join("target/release/examples/page_bench"))
            .env("MUSTER_DIST", root.join("dist")),
    )
}

/// Demo decoding natively and in the page's wasm in Chromium (relay/examples/demo_bench.rs),
/// then the Huffman stage of the same records, ours beside q3huff2's C decoder (no public
/// tool reads a whole `.dm_3`, so that stage is the like-for-like part).
fn demo(root: &Path, args: &[String]) -> Result<()> {
    tools::ensure(root, tools::Needs::Test)?;
    tools::ensure_python_peers()?;
    crate::build_page(root)?;
    for example in [
        ("muster-relay", "demo_bench"),
        ("muster-protocol", "huffman_throughput"),
    ] {
        crate::status(Command::new("cargo").args([
            "build",
            "--release",
            "-p",
            example.0,
            "--example",
            example.1,
        ]))?;
    }
    let decode = json_line(
        Command::new(root.join("target/release/examples/demo_bench"))
            .args(args)
            .current_dir(root)
            .env("MUSTER_DIST", root.join("dist")),
    )?;
    let bodies = root.join("target/bench/demo-bodies.bin");
    let ours = json_line(
        Command::new(root.join("target/release/examples/huffman_throughput"))
            .arg(&bodies)
            .arg("5"),
    )?;
    let theirs = json_line(
        Command::new("python3")
            .arg(root.join("protocol/tests/peers/q3huff2_throughput.py"))
            .arg(&bodies)
            .arg("5"),
    )?;
    let summary = json!({
        "bench": "demo",
        "decode": decode,
        "huffman_muster": ours,
        "huffman_q3huff2": theirs,
        "huffman_decode_ratio": ratio(&ours, &theirs, "decode_mb_s"),
        "met": {"seek": decode["seek_max_ms"].as_f64().is_some_and(|ms| ms < 500.0)},
    });
    println!("{summary}");
    Ok(())
}

/// A benchmark that runs the relay and the lab as processes beside a load client of its own
/// (relay/examples/NAME.rs): `spectate_bench` (a 32-player match, 1,000 viewers) and
/// `feed_bench` (a 2,000-server fleet, 1,000 pages).
pub fn example(root: &Path, name: &str, args: &[String]) -> Result<()> {
    build_example(root, name)?;
    crate::status(example_command(root, name).args(args))
}

/// Builds the release binaries and the relay's example `name`.
pub fn build_example(_root: &Path, name: &str) -> Result<()> {
    crate::build_release_binaries()?;
    crate::status(Command::new("cargo").args([
        "build",
        "--release",
        "-p",
        "muster-relay",
        "--example",
        name,
    ]))
}

/// The built example `name`, told where the release binaries are.
pub fn example_command(root: &Path, name: &str) -> Command {
    let mut command = Command::new(root.join("target/release/examples").join(name));
    command.env("MUSTER_BIN_DIR", root.join("target/release"));
    command
}

/// `cargo xtask soak [--minutes M] [PAGES VIEWERS SERVERS]`: the relay held by pages and
/// viewers for M minutes (10 for the record), its memory, descriptors and tasks sampled.
pub(crate) fn soak(root: &Path, args: &[String]) -> Result<()> {
    let mut minutes = "10".to_owned();
    let mut rest = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--minutes" {
            minutes = args.next().context("--minutes M")?.clone();
            minutes
                .parse::<u32>()
                .context("--minutes takes whole minutes")?;
        } else {
            rest.push(arg.clone());
        }
    }
    tools::ensure(root, tools::Needs::Run)?;
    let mut example_args = vec![minutes];
    example_args.extend(rest);
    example(root, "soak", &example_args)
}
