//! `cargo xtask run|test`: the README's two commands. Each installs what is missing (and skips
//! what is already at the right version), builds the page, then runs the demo or every test.

mod bench;
mod chaos;
mod fuzz;
mod nats;
mod postgres;
mod tools;
mod worker_names;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context, Result};

use tools::Needs;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  run [--servers N]   build the relay and a lab fleet, start them on 127.0.0.1 and print
                      the URL; install what is missing and build the page behind them (the
                      relay serves the list without the page's code until it is built)
  test                install what is missing and run every test (unit, interop with QStat,
                      gamedig and q3huff2, fuzz smoke runs, the page in headless Chromium)
  page                build the page as run and test do (Trunk, the session worker renamed
                      by its content, brotli and gzip); it replaces dist/ whole once built,
                      so a relay already running serves it at once
  bench wire          fixed-Huffman throughput, ours beside q3huff2's; last line is JSON
  bench query         a 2,000-server lab refreshed by QStat and by muster query; last line JSON
  bench page          the page with 5,000 servers in Chromium: render, keystroke, size; JSON
  bench spectate [VIEWERS] [SECONDS]
                      a 32-player lab match watched by 1,000 WebSocket viewers through the
                      relay: latency, bytes and memory per viewer, CPU, coverage; JSON
  bench feed [PAGES] [SECONDS] [SERVERS]
                      1,000 pages on the feed of a 2,000-server fleet: first message, memory,
                      CPU, update latency; JSON
  bench history [SERVERS] [NAMES] [DAYS]
                      a year of history for 2,000 servers and 50,000 names on SQLite and
                      on PostgreSQL: size, write headroom, chart and search latency; JSON
  cluster [N]         like run, with N relays (default 3) as one site on NATS and
                      PostgreSQL (both started here): kill one and watch the others carry on
  bench cluster [VIEWERS] [PAGES] [SECONDS]
                      three relays, a 32-player match, 3,000 viewers and 3,000 pages: bus
                      latency and bytes, CPU, memory, failover times; JSON
  fuzz [--seconds N | --execs N] [TARGET...]
                      long cargo-fuzz runs (default 300 s per target, every target), each
                      corpus minimised after; executions a second per target; JSON
  soak [--minutes M] [PAGES VIEWERS SERVERS]
                      the relay held by 1,000 pages and 200 viewers on a 2,000-server fleet
                      for M minutes (default 10): memory, descriptors, tasks; JSON
  chaos [--cluster]   the relay and the lab in two network namespaces joined by a link with
                      10% loss, 5% duplication and 100 ms +- 50 ms delay (as root): answers,
                      a hub's model against the truth, a restarted server rejoined, the
                      master down; with --cluster, two relays and one killed; JSON";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root()?;
    std::env::set_current_dir(&root)?;
    match args.first().map(String::as_str) {
        Some("run") => run(&root, &args[1..]),
        Some("cluster") => cluster(&root, &args[1..]),
        Some("test") => test(&root),
        Some("bench") => bench::run(&root, &args[1..]),
        Some("fuzz") => fuzz::run(&root, &args[1..]),
        Some("soak") => soak(&root, &args[1..]),
        Some("page") => page(&root, Needs::Run),
        Some("chaos") => chaos::run(&root, &args[1..]),
        Some("chaos-inside") => chaos::inside(&root, &args[1..]),
        _ => {
            eprintln!("{USAGE}");
            bail!("unknown command {:?}", args.first())
        }
    }
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    Ok(manifest
        .parent()
        .context("xtask lives inside the workspace")?
        .to_path_buf())
}

/// A TCP port on 127.0.0.1 nobody listens on now (for the engines xtask starts).
pub fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Runs a command to completion, failing with its name if it fails.
pub fn status(command: &mut Command) -> Result<()> {
    let shown = format!("{command:?}");
    eprintln!("xtask: {shown}");
    let status = command
        .status()
        .with_context(|| format!("starting {shown}"))?;
    if !status.success() {
        bail!("{shown} failed: {status}");
    }
    Ok(())
}

/// Where `xtask run`'s relay is a master too (the stock master port, on loopback).
const OWN_MASTER: &str = "127.0.0.1:20610";
/// The broadcast delay `xtask run` gives the lab's matches, in seconds.
const LAB_SPECTATE_DELAY: &str = "3";

/// The lab's Wulfram II endpoint in `xtask run`: the game's own port, on loopback.
const WULFRAM_PORT: &str = "2627";

/// The page's own target directory: its build (whose last step, the wasm's LTO, runs on one
/// core) can then run while the native binaries build in `target/`, which cargo would
/// otherwise lock.
const PAGE_TARGET: &str = "target/page";

/// Where the page is built before it replaces `dist/` whole, so a relay serving `dist/` never
/// sees a page whose side panels or subpages are not there yet.
const DIST_NEXT: &str = "target/dist-next";
/// Where the previous page goes while the new one takes its place.
const DIST_OLD: &str = "target/dist-old";

pub fn build_page(root: &Path) -> Result<()> {
    let next = root.join(DIST_NEXT);
    status(
        Command::new("trunk")
            .args(["build", "--release", "--skip-version-check", "--dist"])
            .arg(&next)
            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
            .current_dir(root),
    )?;
    worker_names::rename(&next)?;
    // The watch view, tuning, the demo player, the admin console and the browser's side panels
    // are pages of their own, built after the browser (whose build replaces its folder whole),
    // so its first download carries none. They are built at once: each is mostly one thread
    // (wasm-bindgen, then the compressors on its wasm), and their cargo runs, which find the
    // wasm built, take turns.
    std::thread::scope(|scope| {
        let building: Vec<_> = SUBPAGES
            .iter()
            .map(|&(html, url)| {
                let dist = next.join(url.trim_matches('/'));
                scope.spawn(move || {
                    status(
                        Command::new("trunk")
                            .args(["build", "--release", "--skip-version-check", html])
                            .arg("--dist")
                            .arg(&dist)
                            .args(["--public-url", url])
                            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
                            .current_dir(root),
                    )?;
                    worker_names::rename(&dist)?;
                    compress(&dist)
                })
            })
            .collect();
        building
            .into_iter()
            .try_for_each(|built| built.join().expect("a page's build thread panicked"))
    })?;
    worker_names::name_panels(&next)?;
    compress(&next)?;
    publish(&next, &root.join("dist"), &root.join(DIST_OLD))
}

/// Puts the built page in `dist`'s place in two renames (a relay serving `dist` misses it for
/// no longer than between them), and drops the previous one.
fn publish(next: &Path, dist: &Path, old: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(old);
    if dist.exists() {
        std::fs::rename(dist, old).context("moving the previous page aside")?;
    }
    std::fs::rename(next, dist).context("putting the built page in dist/")?;
    let _ = std::fs::remove_dir_all(old);
    Ok(())
}

/// `cargo xtask page`: what the page needs, then the page: the wasm target, the tools (Trunk,
/// wasm-bindgen, wasm-opt, and whatever else `needs` names) and the pages' wasm side by side,
/// then Trunk assembles them. Prints each phase's time; `run` starts it as a process of its
/// own, behind the relay's build.
fn page(root: &Path, needs: Needs) -> Result<()> {
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    phases.time("wasm target", tools::ensure_wasm_target)?;
    let wasm = {
        let root = root.to_owned();
        std::thread::spawn(move || build_page_wasm(&root))
    };
    let tools = phases.time("tools", || tools::ensure(root, needs));
    let wasm = wasm
        .join()
        .unwrap_or_else(|_| bail!("the page's wasm build panicked"));
    phases.0.push(("page wasm (alongside)", began.elapsed()));
    tools?;
    wasm?;
    phases.time("trunk", || build_page(root))?;
    eprintln!(
        "xtask: page built in {:.0} s ({})",
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    Ok(())
}

/// The pages besides the browser: their HTML, and the path each is served under.
const SUBPAGES: [(&str, &str); 5] = [
    ("frontend/panels.html", "/panels/"),
    ("frontend/watch.html", "/watch/"),
    ("frontend/tuning.html", "/tuning/"),
    ("frontend/playback.html", "/playback/"),
    ("frontend/admin.html", "/admin/"),
];

/// Writes each page file's .br and .gz beside it: the relay serves the smaller one the browser
/// takes, so a slow link gets a third of the bytes or less. Brotli at its best (quality 11, a
/// 16 MB window, which every browser decodes) is about a sixth smaller than gzip on the wasm
/// (38 KB, a third of a second at 1 Mbit/s); browsers ask for it over HTTPS and from localhost.
/// For the others, zopfli's gzip, about 4% smaller than `gzip -9`. Both are slow, and run once
/// per build, each file on its own thread.
fn compress(dir: &Path) -> Result<()> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wasm" | "js" | "css" | "html")
        ) {
            files.push(path);
        }
    }
    std::thread::scope(|scope| {
        let packing: Vec<_> = files
            .iter()
            .map(|path| scope.spawn(move || compress_file(path)))
            .collect();
        packing
            .into_iter()
            .try_for_each(|packed| packed.join().expect("a compressor thread panicked"))
    })
}

fn compress_file(path: &Path) -> Result<()> {
    let body = std::fs::read(path)?;
    let beside = |extension: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(extension);
        name
    };
    let mut gzip = Vec::new();
    zopfli::compress(
        zopfli::Options::default(),
        zopfli::Format::Gzip,
        &body[..],
        &mut gzip,
    )?;
    std::fs::write(beside(".gz"), gzip)?;
    let mut brotli = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 24,
        size_hint: body.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &body[..], &mut brotli, &params)?;
    std::fs::write(beside(".br"), brotli)?;
    Ok(())
}

/// The relay and the lab for `run`: the dev profile (the tests' own, so a `cargo xtask test`
/// after it reuses every dependency), a few minutes sooner on a fresh machine than an
/// optimized build; a 24-server lab on loopback asks nothing of the relay's speed.
fn run_binaries() -> Command {
    let mut command = Command::new("cargo");
    command
        .args(["build", "-p", "muster-relay", "-p", "muster-lab"])
        .env("CARGO_INCREMENTAL", "0");
    command
}

/// The wasm of every page, each crate's binaries in one cargo run so their single-threaded
/// link-time optimizations share the cores; built alongside the tools, so Trunk (whose cargo
/// runs ask for exactly these) finds them built. Trunk builds whatever is missing all the same.
const PAGE_WASM: [(&str, &[&str]); 2] = [
    (
        "frontend/Cargo.toml",
        &[
            "muster-frontend",
            "muster-watch",
            "muster-tuning",
            "muster-playback",
            "muster-admin",
            "muster-panels",
        ],
    ),
    ("session/Cargo.toml", &["muster-session"]),
];

fn build_page_wasm(root: &Path) -> Result<()> {
    for (manifest, bins) in PAGE_WASM {
        let mut cargo = Command::new("cargo");
        cargo
            .args([
                "build",
                "--target=wasm32-unknown-unknown",
                "--manifest-path",
            ])
            .arg(root.join(manifest))
            .args(["--profile", "wasm-release"])
            .env("CARGO_TARGET_DIR", root.join(PAGE_TARGET))
            .current_dir(root);
        for bin in bins {
            cargo.args(["--bin", bin]);
        }
        status(&mut cargo)?;
    }
    Ok(())
}

/// The relay and the lab, optimized.
pub fn build_release_binaries() -> Result<()> {
    status(&mut release_binaries())
}

fn release_binaries() -> Command {
    let mut command = Command::new("cargo");
    command.args([
        "build",
        "--release",
        "-p",
        "muster-relay",
        "-p",
        "muster-lab",
    ]);
    command
}

/// How long each phase of `run` took, printed when the URL is.
#[derive(Default)]
struct Phases(Vec<(&'static str, std::time::Duration)>);

impl Phases {
    fn time<T>(&mut self, name: &'static str, phase: impl FnOnce() -> Result<T>) -> Result<T> {
        let began = std::time::Instant::now();
        let result = phase();
        self.0.push((name, began.elapsed()));
        result
    }

    fn show(&self) -> String {
        self.0
            .iter()
            .map(|(name, took)| format!("{name} {:.0} s", took.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Everything `cluster` needs, at once where it can be: the native binaries beside the page
/// (each leaves a core idle at times: proc macros, links, the wasm's link-time optimization).
fn build_page_and_binaries(root: &Path, needs: Needs, mut native: Command) -> Result<()> {
    eprintln!("xtask: {native:?} (alongside the page)");
    let mut native = native.spawn().context("starting cargo build")?;
    let built = page(root, needs);
    let native = native.wait();
    built?;
    if !native?.success() {
        bail!("cargo build of the relay and the lab failed");
    }
    Ok(())
}

/// `cargo xtask page` as a process of its own, at the lowest priority: `run` starts the relay
/// as soon as its own build is done, and the page, whose tools take most of a fresh machine's
/// first start, comes when it comes.
fn page_behind(root: &Path) -> Result<Child> {
    let mut page = Command::new("nice");
    page.args(["-n", "19"])
        .arg(std::env::current_exe().context("finding xtask itself")?)
        .arg("page")
        .current_dir(root);
    eprintln!("xtask: {page:?} (behind the relay's build)");
    page.spawn().context("starting the page's build")
}

/// `cargo xtask soak [--minutes M] [PAGES VIEWERS SERVERS]`: the relay held by pages and
/// viewers for M minutes (10 for the record), its memory, descriptors and tasks sampled.
fn soak(root: &Path, args: &[String]) -> Result<()> {
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
    tools::ensure(root, Needs::Run)?;
    let mut example_args = vec![minutes];
    example_args.extend(rest);
    bench::example(root, "soak", &example_args)
}

fn run(root: &Path, args: &[String]) -> Result<()> {
    let servers = match args {
        [] => "24".to_owned(),
        [flag, n] if flag == "--servers" => n.clone(),
        _ => bail!("usage: cargo xtask run [--servers N]"),
    };
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    let mut page = page_behind(root)?;
    let native = phases.time("binaries", || status(&mut run_binaries()));
    if let Err(error) = native {
        let _ = page.kill();
        return Err(error);
    }
    let started = std::time::Instant::now();
    let bin = root.join("target/debug");
    // The lab's servers take this rcon password, so the Admin tab can be tried on them.
    let rcon_password = operator_token()?;
    let mut lab = start_lab(
        &bin,
        &servers,
        // The lab's servers also heartbeat the relay's own master, as stock servers would
        // heartbeat a replacement one; every 15 s rather than stock's 180 s, so it fills soon
        // after the relay starts.
        &[
            "--heartbeat-to",
            OWN_MASTER,
            "--heartbeat",
            "15",
            "--rcon-password",
            &rcon_password,
        ],
    )?;
    wait_for_line(&mut lab, "muster-lab:")?;
    let token = operator_token()?;
    let mut relay = relay_command(root, &bin, "127.0.0.1:8080", &token)
        .args(["--master-listen", OWN_MASTER, "--record-dir"])
        .arg(root.join("target/demos"))
        // History and the persisted list, kept across runs (SQLite).
        .arg("--data-dir")
        .arg(root.join("target/muster-data"))
        .spawn()
        .context("starting muster serve")?;
    wait_for_line(&mut relay, "muster: serving")?;
    phases.0.push(("start", started.elapsed()));
    println!();
    println!(
        "xtask: URL after {:.0} s ({})",
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    println!("Muster is running: open http://127.0.0.1:8080/");
    println!(
        "(relay + {servers} lab servers and a Wulfram II endpoint on 127.0.0.1; Ctrl-C stops both)"
    );
    println!(
        "Operator token (the watch view's Record button asks for it): {token}; demos are \
         written to target/demos and listed under Demos; history is kept in \
         target/muster-data"
    );
    println!("The lab servers' rcon password (a server's Admin tab asks for it): {rcon_password}");
    let building = page.try_wait()?.is_none();
    if building && root.join("dist/index.html").is_file() {
        println!(
            "The page is being rebuilt behind the relay, which serves the last build meanwhile."
        );
    } else if building {
        println!(
            "The page's code is still building (on a fresh machine Trunk and wasm-bindgen \
             compile first, some minutes more): until then the list is served without it and \
             reloads itself, then the page takes over."
        );
    }
    let built = page.wait()?;
    if !built.success() {
        println!("xtask: the page's build failed ({built}); the relay serves the list without it");
    } else if building {
        println!(
            "xtask: the page is ready, {:.0} s after xtask started: reload it.",
            began.elapsed().as_secs_f64()
        );
    }
    let result = relay.wait();
    let _ = lab.kill();
    result?;
    Ok(())
}

/// The lab fleet `run` and `cluster` start: its servers from 28960, its master on 20611.
const LAB_PORT: &str = "28960";
const LAB_MASTER_PORT: &str = "20611";

fn start_lab(bin: &Path, servers: &str, extra: &[&str]) -> Result<Child> {
    Command::new(bin.join("muster-lab"))
        .args(["--servers", servers, "--port", LAB_PORT])
        .args(["--master-port", LAB_MASTER_PORT])
        .args(["--wulfram-port", WULFRAM_PORT])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting muster-lab")
}

/// The operator's secret for this run: the watch view's Record button asks for it.
fn operator_token() -> Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `muster serve` on `listen` for the lab, as `run` and `cluster` start it.
fn relay_command(root: &Path, bin: &Path, listen: &str, token: &str) -> Command {
    let mut relay = Command::new(bin.join("muster"));
    relay
        .args(["serve", "--listen", listen])
        .args(["--master", &format!("127.0.0.1:{LAB_MASTER_PORT}")])
        .args(["--lan", "127.0.0.1"])
        .args(["--wulfram", &format!("lab=127.0.0.1:{WULFRAM_PORT}")])
        // The lab is ours: a short delay, so a newcomer sees the match almost at once.
        .args(["--spectate-delay", LAB_SPECTATE_DELAY])
        // The lab's servers are on loopback; the bridge refuses such targets otherwise.
        .arg("--allow-private")
        .args(["--operator-token", token])
        .arg("--dist")
        .arg(root.join("dist"))
        .stdout(Stdio::piped());
    relay
}

/// `cargo xtask cluster [N]`: N relays as one site, on NATS and PostgreSQL started here, beside
/// a lab fleet; runs until Ctrl-C, and stops everything it started (a relay killed meanwhile
/// stays dead, so the others can be seen carrying on).
fn cluster(root: &Path, args: &[String]) -> Result<()> {
    let count: usize = match args {
        [] => 3,
        [n] => n.parse().context("usage: cargo xtask cluster [N]")?,
        _ => bail!("usage: cargo xtask cluster [N]"),
    };
    build_page_and_binaries(root, Needs::Cluster, release_binaries())?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let on_signal = stop.clone();
    ctrlc::set_handler(move || on_signal.store(true, std::sync::atomic::Ordering::SeqCst))
        .context("catching Ctrl-C")?;
    let nats = nats::Nats::start()?;
    let postgres = postgres::Cluster::start()?;
    let bin = root.join("target/release");
    let mut lab = start_lab(&bin, "24", &[])?;
    wait_for_line(&mut lab, "muster-lab:")?;
    let token = operator_token()?;
    let mut relays = Vec::new();
    for i in 0..count {
        let listen = format!("127.0.0.1:{}", 8081 + i);
        let mut relay = relay_command(root, &bin, &listen, &token);
        relay
            .args([
                "--cluster",
                &nats.url,
                "--database",
                &postgres.url,
                "--record-dir",
            ])
            .arg(root.join(format!("target/demos/relay-{}", i + 1)));
        let mut child = relay.spawn().context("starting muster serve")?;
        wait_for_line(&mut child, "muster: serving")?;
        relays.push((listen, child));
    }
    println!();
    println!("{count} relays are running as one site:");
    for (listen, child) in &relays {
        println!("  http://{listen}/   (pid {})", child.id());
    }
    println!(
        "NATS at {}, PostgreSQL at {}, 24 lab servers on 127.0.0.1.",
        nats.url, postgres.url
    );
    println!(
        "Kill one (kill -9 PID) and watch the others carry on: another relay takes over the \
         polling and the watched matches within 10 s. GET /api/cluster on each shows the \
         leases it holds. Operator token: {token}. Ctrl-C stops everything."
    );
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let alive = relays
            .iter_mut()
            .map(|(_, child)| child)
            .filter_map(|child| child.try_wait().ok())
            .filter(Option::is_none)
            .count();
        if alive == 0 {
            break;
        }
    }
    for (_, child) in &mut relays {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = lab.kill();
    let _ = lab.wait();
    drop(postgres);
    drop(nats);
    Ok(())
}

/// Echoes a child's stdout until a line starting with `prefix` shows it is ready.
pub fn wait_for_line(child: &mut Child, prefix: &str) -> Result<()> {
    use std::io::{BufRead, BufReader};
    let stdout = child.stdout.take().context("child stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        let line = line?;
        println!("{line}");
        if line.starts_with(prefix) {
            // Keep draining so the child never blocks on a full pipe.
            std::thread::spawn(move || lines.for_each(|l| drop(l.map(|l| println!("{l}")))));
            return Ok(());
        }
    }
    bail!("child exited before printing {prefix:?}")
}

fn test(root: &Path) -> Result<()> {
    tools::ensure(root, Needs::Test)?;
    status(Command::new("cargo").args(["fmt", "--all", "--check"]))?;
    status(Command::new("cargo").args([
        "clippy",
        "--workspace",
        "--exclude",
        "muster-frontend",
        "--exclude",
        "muster-session",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    status(Command::new("cargo").args([
        "clippy",
        "-p",
        "muster-frontend",
        "-p",
        "muster-session",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The protocol crate must stay no_std and build for the browser.
    status(Command::new("cargo").args([
        "build",
        "-p",
        "muster-protocol",
        "--target",
        "wasm32-unknown-unknown",
        "--features",
        "serde",
    ]))?;
    build_page(root)?;
    // Every parser under the fuzzer for a few seconds: a smoke run, not a search.
    fuzz::run_targets(
        root,
        fuzz::Budget::Seconds(10),
        &[],
        fuzz::Exploration::Smoke,
    )?;
    // The PostgreSQL backend's tests get a cluster of their own, stopped when the run ends.
    let postgres = postgres::Cluster::start()?;
    let mut tests = Command::new("cargo");
    tests
        .args(["test", "--", "--include-ignored"])
        // A full run gains nothing from incremental caches (a gigabyte of disk on a fresh clone).
        .env("CARGO_INCREMENTAL", "0")
        .env("MUSTER_TEST_POSTGRES", &postgres.url)
        // The cluster tests start (and restart) NATS servers of their own.
        .env(
            "MUSTER_NATS_SERVER",
            nats::binary().context("nats-server is not installed")?,
        )
        .env("MUSTER_DIST", root.join("dist"))
        .env("MUSTER_NODE_BIN", tools::node_bin(root))
        .env("MUSTER_SCREENSHOTS", root.join("target/screenshots"));
    run_tests(&mut tests)
}

/// Runs cargo test, echoing its output, and closes with one line totalling every test binary.
fn run_tests(command: &mut Command) -> Result<()> {
    use std::io::{BufRead, BufReader};
    eprintln!("xtask: {command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .context("starting cargo test")?;
    let stdout = child.stdout.take().context("cargo test stdout")?;
    let (mut passed, mut failed, mut ignored) = (0u64, 0u64, 0u64);
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        println!("{line}");
        if let Some(counts) = line.strip_prefix("test result: ") {
            for part in counts.split(['.', ';']) {
                let mut words = part.split_whitespace();
                let (Some(n), Some(what)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(n) = n.parse::<u64>() else { continue };
                match what {
                    "passed" => passed += n,
                    "failed" => failed += n,
                    "ignored" => ignored += n,
                    _ => {}
                }
            }
        }
    }
    let status = child.wait()?;
    println!("tests: {passed} passed, {failed} failed, {ignored} skipped");
    if !status.success() {
        bail!("cargo test failed: {status}");
    }
    Ok(())
}

/// An empty folder of this test process's own under the system's temporary directory.
#[cfg(test)]
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("muster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(test)]
mod tests {
    use super::{publish, scratch};

    #[test]
    fn a_built_page_replaces_the_served_one_whole() {
        let root = scratch("publish");
        let (next, dist, old) = (root.join("next"), root.join("dist"), root.join("old"));
        let put = |path: std::path::PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        put(dist.join("index.html"), "previous");
        put(dist.join("gone-1234.wasm"), "previous");
        put(old.join("left-over"), "an earlier run's");
        put(next.join("index.html"), "built");
        put(next.join("panels/index.html"), "built");
        publish(&next, &dist, &old).unwrap();
        let read = |path: std::path::PathBuf| std::fs::read_to_string(path).unwrap();
        assert_eq!(read(dist.join("index.html")), "built");
        assert_eq!(read(dist.join("panels/index.html")), "built");
        assert!(!dist.join("gone-1234.wasm").exists());
        assert!(!next.exists() && !old.exists());
        // The first build: nothing to move aside.
        put(next.join("index.html"), "again");
        std::fs::remove_dir_all(&dist).unwrap();
        publish(&next, &dist, &old).unwrap();
        assert_eq!(read(dist.join("index.html")), "again");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
