//! `cargo xtask run|test`: the README's two commands, and the longer runs beside them. Each
//! command is a module: `run` (the relay and a lab fleet, and `cluster`), `testing` (every
//! test), `page` (the page's build), `bench`, `fuzz`, `chaos`; this file dispatches and holds
//! what they share (running a command, a free port, waiting for a child's line).

mod audit;
mod bench;
mod chaos;
mod deb;
mod first_paint;
mod fuzz;
mod loopback;
mod nats;
mod page;
mod ports;
mod postgres;
mod run;
mod supervise;
mod testing;
mod tools;
mod worker_names;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use anyhow::{bail, Context, Result};

use tools::Needs;

pub(crate) use page::build_page;
pub(crate) use run::build_release_binaries;

const USAGE: &str = "usage: cargo xtask <command>
commands:
  run [--servers N] [--check] [--no-page]
                      build the relay and a lab fleet, start them on 127.0.0.1 and print
                      the URL; install what is missing and build the page behind them (the
                      relay serves the list without the page's code until it is built);
                      Ctrl-C stops everything it started. --check: read the page and the
                      lab's servers back, wait for the page, stop all and prove nothing is
                      left (CI); --no-page: build no page behind the relay
  test [-E FILTERSET]  install what is missing and run every test (unit, interop with QStat,
                      gamedig and q3huff2, fuzz smoke runs, the page in headless Chromium,
                      axe on every page); -E: only the tests a nextest filterset picks
  audit               Lighthouse's mobile run on the list, watch, a match, a player and a
                      moment, served by a relay following a lab match; last line JSON
  page                build the page as run and test do (Trunk, the session worker renamed
                      by its content, brotli and gzip); it replaces dist/ whole once built,
                      so a relay already running serves it at once
  deb [--debug]       the Debian package, target/debian/muster_VERSION_ARCH.deb: the
                      release binary, the page, /etc/muster/muster.toml and a hardened
                      systemd unit (dpkg-deb; `cargo xtask test` installs and checks it)
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
                      master down; with --cluster, two relays and one killed; JSON
  chaos --kills [--minutes M] [--lease-ttl SECS]
                      three relays of one site, one stopped every 3-6 s for M minutes
                      (default 10; SIGKILL, one time in four SIGTERM): takeovers, double
                      holders, each viewer's longest pause; JSON";
fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root()?;
    std::env::set_current_dir(&root)?;
    match args.first().map(String::as_str) {
        Some("run") => run::run(&root, &args[1..]),
        Some("cluster") => run::cluster(&root, &args[1..]),
        Some("test") => testing::test(&root, &args[1..]),
        Some("bench") => bench::run(&root, &args[1..]),
        Some("fuzz") => fuzz::run(&root, &args[1..]),
        Some("soak") => bench::soak(&root, &args[1..]),
        Some("page") => page::page(&root, Needs::Run),
        Some("deb") => deb::run(&root, &args[1..]),
        Some("chaos") => chaos::run(&root, &args[1..]),
        Some("audit") => audit::run(&root, &args[1..]),
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
/// Every file under `dir`, in name order, depth first.
pub fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if entry.file_type()?.is_dir() {
            files.extend(files_under(&entry.path())?);
        } else {
            files.push(entry.path());
        }
    }
    Ok(files)
}
/// Copies every file under `from` to the same place under `to`.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    for file in files_under(from)? {
        copy(&file, &to.join(file.strip_prefix(from)?))?;
    }
    Ok(())
}
/// Copies a file, making its directory; the copy keeps the file's mode.
pub fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to.parent().context("a file's directory")?)?;
    std::fs::copy(from, to).with_context(|| format!("copying {}", from.display()))?;
    Ok(())
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
/// An empty folder of this test process's own under the system's temporary directory.
#[cfg(test)]
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("muster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// How long each phase of `run` took, printed when the URL is.
#[derive(Default)]
pub struct Phases(Vec<(&'static str, std::time::Duration)>);
impl Phases {
    pub fn time<T>(&mut self, name: &'static str, phase: impl FnOnce() -> Result<T>) -> Result<T> {
        let began = std::time::Instant::now();
        let result = phase();
        self.0.push((name, began.elapsed()));
        result
    }

    pub fn show(&self) -> String {
        self.0
            .iter()
            .map(|(name, took)| format!("{name} {:.0} s", took.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
