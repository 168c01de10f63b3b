//! cargo-fuzz runs: a short smoke run of every target in `cargo xtask test`, and long runs in
//! `cargo xtask fuzz`. The stable toolchain is told to accept cargo-fuzz's nightly flags.
//!
//! Each target's minimised corpus is kept in the repository (`fuzz/corpus/TARGET`): a long run
//! grows it and minimises it again (`cargo fuzz cmin`); the smoke run replays a copy of it first,
//! so every input that once reached new code is tried again on every test run.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::tools;

/// No sanitizer: every fuzzed line is safe Rust (the workspace forbids `unsafe`), which is what
/// AddressSanitizer guards, and without it the targets run about three times faster (the
/// session target: 6,500 executions a second instead of 1,800), which is what makes ten
/// million executions per target a run of hours rather than days. Panics, overflow checks
/// (cargo-fuzz builds with debug assertions unless told `-O`) and the targets' own asserts still fail a run.
const SANITIZER: &str = "none";

fn targets(root: &Path) -> Result<Vec<String>> {
    let out = Command::new("cargo")
        .args(["fuzz", "list"])
        .current_dir(root.join("fuzz"))
        .output()
        .context("cargo fuzz list")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

/// How a fuzz run explores.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Exploration {
    /// `cargo xtask test`: a fixed seed from a copy of the kept corpus, so every machine walks
    /// the same inputs (a slower one walks a prefix of them) and a test run is reproducible.
    Smoke,
    /// `cargo xtask fuzz`: a fresh seed each run, growing the kept corpus, minimised after.
    Search,
}

/// When a run stops: after a time, or after a number of executions.
#[derive(Clone, Copy)]
pub enum Budget {
    Seconds(u64),
    Execs(u64),
}

/// One target's run, as libFuzzer's final statistics give it.
struct Ran {
    target: String,
    execs: u64,
    seconds: f64,
    corpus: usize,
}

/// `cargo` for cargo-fuzz. The test run's smoke pass runs at the lowest priority, beside the
/// test build and the tests, in the cores they leave idle.
fn cargo_fuzz(root: &Path, exploration: Exploration) -> Command {
    let mut command = if exploration == Exploration::Smoke {
        let mut nice = Command::new("nice");
        nice.args(["-n", "19", "cargo"]);
        nice
    } else {
        Command::new("cargo")
    };
    command
        .current_dir(root.join("fuzz"))
        .env("RUSTC_BOOTSTRAP", "1");
    command
}

/// Runs `command` (a `cargo fuzz run`) and reads libFuzzer's final statistics. A search's
/// output is echoed whole when it ends, so runs side by side never interleave; a smoke run's
/// only when it fails (it runs beside the tests, whose report it would bury).
fn run_one(target: &str, command: &mut Command, exploration: Exploration) -> Result<Ran> {
    let shown = format!("xtask: {command:?}");
    let began = Instant::now();
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .context("starting cargo fuzz")?;
    let stderr = child.stderr.take().context("cargo fuzz stderr")?;
    let mut execs = 0;
    let mut output = vec![shown];
    for line in BufReader::new(stderr).lines() {
        let line = line?;
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            execs = n.trim().parse().unwrap_or(0);
        }
        output.push(line);
    }
    let status = child.wait()?;
    if exploration == Exploration::Search || !status.success() {
        eprintln!("{}", output.join("\n"));
    }
    if !status.success() {
        bail!("fuzz target {target} failed ({status}): the crashing input is in fuzz/artifacts/{target}/; make it a named regression test");
    }
    Ok(Ran {
        target: target.to_owned(),
        execs,
        seconds: began.elapsed().as_secs_f64(),
        corpus: 0,
    })
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

/// One target's run within `budget` (and, for a search, its corpus minimised after).
fn run_target(root: &Path, target: &str, budget: Budget, exploration: Exploration) -> Result<Ran> {
    let kept = root.join("fuzz/corpus").join(target);
    let mut command = cargo_fuzz(root, exploration);
    command.args(["fuzz", "run", "--sanitizer", SANITIZER, target]);
    match exploration {
        Exploration::Smoke => {
            let corpus = root.join("target/fuzz-smoke").join(target);
            let _ = std::fs::remove_dir_all(&corpus);
            std::fs::create_dir_all(&corpus)?;
            if kept.is_dir() {
                crate::copy_tree(&kept, &corpus)?;
            }
            command.arg(&corpus).args(["--", "-seed=1"]);
        }
        Exploration::Search => {
            std::fs::create_dir_all(&kept)?;
            command.arg(&kept).arg("--");
        }
    }
    // A hang is a finding too: libFuzzer's default waits 20 minutes on one input (a demo
    // whose seek never ended cost that); no input of ours takes a second.
    command.args(["-print_final_stats=1", "-timeout=30"]);
    match budget {
        Budget::Seconds(s) => command.arg(format!("-max_total_time={s}")),
        Budget::Execs(n) => command.arg(format!("-runs={n}")),
    };
    let mut one = run_one(target, &mut command, exploration)?;
    if exploration == Exploration::Search {
        // Keeps only the inputs that each reach something the others do not.
        crate::status(cargo_fuzz(root, exploration).args([
            "fuzz",
            "cmin",
            "--sanitizer",
            SANITIZER,
            target,
        ]))?;
        one.corpus = files_in(&kept);
    }
    Ok(one)
}

/// Runs each of `targets` (all when empty) within `budget`; prints executions a second for
/// each, and the totals as one JSON line.
pub fn run_targets(
    root: &Path,
    budget: Budget,
    wanted: &[String],
    exploration: Exploration,
) -> Result<()> {
    tools::ensure_cargo_fuzz()?;
    let all = targets(root)?;
    let chosen: Vec<&String> = if wanted.is_empty() {
        all.iter().collect()
    } else {
        wanted.iter().collect()
    };
    if let Some(unknown) = chosen.iter().find(|t| !all.contains(t)) {
        bail!("no fuzz target {unknown}; targets: {}", all.join(", "));
    }
    // Every target built in one cargo run, which keeps both cores busy; then the runs, one a
    // core, since each libFuzzer process is one thread.
    let mut build = cargo_fuzz(root, exploration);
    build.args(["fuzz", "build", "--sanitizer", SANITIZER]);
    if exploration == Exploration::Smoke {
        // Beside the tests: its compiler output only if it fails.
        let built = build.output().context("starting cargo fuzz build")?;
        if !built.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&built.stderr));
            bail!("cargo fuzz build failed: {}", built.status);
        }
    } else {
        crate::status(&mut build)?;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let queue = std::sync::Mutex::new(chosen.into_iter());
    let ran = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..cores)
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let Some(target) = queue.lock().expect("the queue").next() else {
                            return Ok(());
                        };
                        let one = run_target(root, target, budget, exploration)?;
                        ran.lock().expect("the results").push(one);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|worker| worker.join().expect("a fuzz worker panicked"))
    })?;
    let mut ran = ran.into_inner().expect("the results");
    ran.sort_by(|a, b| a.target.cmp(&b.target));
    eprintln!("target                 executions   seconds    exec/s   corpus");
    for r in &ran {
        eprintln!(
            "{:<20} {:>12} {:>9.0} {:>9.0} {:>8}",
            r.target,
            r.execs,
            r.seconds,
            r.execs as f64 / r.seconds.max(0.001),
            r.corpus
        );
    }
    let targets: Vec<serde_json::Value> = ran
        .iter()
        .map(|r| {
            serde_json::json!({
                "target": r.target,
                "execs": r.execs,
                "seconds": (r.seconds * 10.0).round() / 10.0,
                "execs_per_second": (r.execs as f64 / r.seconds.max(0.001)).round(),
                "corpus": r.corpus,
            })
        })
        .collect();
    println!(
        "{}",
        serde_json::json!({"fuzz": targets, "crashes": 0, "execs": ran.iter().map(|r| r.execs).sum::<u64>()})
    );
    Ok(())
}

/// `cargo xtask fuzz [--seconds N | --execs N] [TARGET...]`.
pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let mut budget = Budget::Seconds(300);
    let mut wanted = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                budget = Budget::Seconds(
                    args.next()
                        .context("--seconds N")?
                        .parse()
                        .context("--seconds takes whole seconds")?,
                )
            }
            "--execs" => {
                budget = Budget::Execs(
                    args.next()
                        .context("--execs N")?
                        .parse()
                        .context("--execs takes a whole number")?,
                )
            }
            _ => wanted.push(arg.clone()),
        }
    }
    run_targets(root, budget, &wanted, Exploration::Search)
}
