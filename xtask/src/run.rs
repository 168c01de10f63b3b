//! `cargo xtask run` and `cargo xtask cluster`: the relay (one, or several on NATS and
//! PostgreSQL) and a lab fleet on 127.0.0.1, started as soon as they are built, with the page
//! built behind them. Whatever they start is stopped when they stop, however they stop.

mod check;

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::ports::{self, Port};
use crate::supervise::{finish, Ended, Fleet, Stop};
use crate::tools::{self, Needs};
use crate::{status, Phases};

use crate::page::page;
use crate::{nats, postgres};

/// Where `xtask run`'s relay is a master too (the stock master port, on loopback).
pub(crate) const OWN_MASTER: &str = "127.0.0.1:20610";
/// The broadcast delay `xtask run` gives the lab's matches, in seconds.
pub(crate) const LAB_SPECTATE_DELAY: &str = "3";
/// The lab's Wulfram II endpoint in `xtask run`: the game's own port, on loopback.
pub(crate) const WULFRAM_PORT: &str = "2627";
/// The relay and the lab for `run`: the dev profile (the tests' own, so a `cargo xtask test`
/// after it reuses every dependency), a few minutes sooner on a fresh machine than an
/// optimized build; a 24-server lab on loopback asks nothing of the relay's speed.
pub(crate) fn run_binaries() -> Command {
    let mut command = Command::new("cargo");
    command
        .args(["build", "-p", "muster-relay", "-p", "muster-lab"])
        .env("CARGO_INCREMENTAL", "0");
    command
}
/// The relay and the lab, optimized.
pub(crate) fn build_release_binaries() -> Result<()> {
    status(&mut release_binaries())
}
pub(crate) fn release_binaries() -> Command {
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
/// Everything `cluster` needs, at once where it can be: the native binaries beside the page
/// (each leaves a core idle at times: proc macros, links, the wasm's link-time optimization).
pub(crate) fn build_page_and_binaries(
    root: &Path,
    needs: Needs,
    mut native: Command,
) -> Result<()> {
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
/// first start, comes when it comes. It leads a process group of its own, so stopping it stops
/// its cargo, rustc, Trunk and wasm-opt too.
pub(crate) fn page_behind(root: &Path) -> Result<Command> {
    let mut page = Command::new("nice");
    page.args(["-n", "19"])
        .arg(std::env::current_exe().context("finding xtask itself")?)
        .arg("page")
        .current_dir(root);
    Ok(page)
}
/// What `cargo xtask run` was asked for.
struct RunOptions {
    servers: usize,
    /// Up to the URL, read the page and the lab's servers back, then stop everything (CI's
    /// proof of the README's first command).
    check: bool,
    /// Serve the page already built (or the relay's first screen) and build none behind.
    page: bool,
}
impl RunOptions {
    const USAGE: &'static str = "usage: cargo xtask run [--servers N] [--check] [--no-page]";

    fn parse(args: &[String]) -> Result<Self> {
        let mut options = Self {
            servers: 24,
            check: false,
            page: true,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--servers" => {
                    options.servers = args
                        .next()
                        .and_then(|n| n.parse().ok())
                        .filter(|n| (1..=1000).contains(n))
                        .context("--servers takes a number of servers from 1 to 1000")?
                }
                "--check" => options.check = true,
                "--no-page" => options.page = false,
                _ => bail!("{} (not {arg:?})", Self::USAGE),
            }
        }
        Ok(options)
    }
}
/// Where `run`'s relay serves the page.
pub(crate) const RUN_LISTEN: &str = "127.0.0.1:8080";
/// The fixed ports of the lab `run` and `cluster` start.
pub(crate) fn lab_ports(servers: usize) -> Vec<Port> {
    let base: u16 = LAB_PORT.parse().expect("a port");
    let mut ports = vec![
        Port::udp(LAB_MASTER_PORT.parse().expect("a port"), "the lab's master"),
        Port::tcp(
            WULFRAM_PORT.parse().expect("a port"),
            "the lab's Wulfram II endpoint",
        ),
        Port::udp(
            WULFRAM_PORT.parse().expect("a port"),
            "the lab's Wulfram II endpoint",
        ),
    ];
    ports.extend((0..servers as u16).map(|i| Port::udp(base + i, "a lab server")));
    ports
}
/// Every port `run` takes.
fn run_ports(servers: usize) -> Vec<Port> {
    let mut ports = vec![
        Port::tcp(8080, "the relay's web server"),
        Port::udp(
            OWN_MASTER
                .rsplit(':')
                .next()
                .and_then(|p| p.parse().ok())
                .expect("a port"),
            "the relay's own master",
        ),
    ];
    ports.extend(lab_ports(servers));
    ports
}
/// A step of a start that failed: everything started is stopped first, then the error names
/// the step, the cause, and any of `ports` someone else holds.
fn failed(fleet: &mut Fleet, ports: &[Port], step: &str, error: anyhow::Error) -> anyhow::Error {
    let _ = fleet.stop();
    if matches!(error.downcast_ref(), Some(Ended::Interrupted)) {
        return anyhow::anyhow!("interrupted while {step}; everything this run started is stopped");
    }
    let taken = ports::taken_now(ports);
    let next = if taken.is_empty() {
        "what it printed above says why: fix that, then run this again".to_owned()
    } else {
        taken
    };
    anyhow::anyhow!("{step} failed: {error:#}\neverything this run started is stopped\n{next}")
}
pub(crate) fn run(root: &Path, args: &[String]) -> Result<()> {
    let options = RunOptions::parse(args)?;
    let servers = options.servers.to_string();
    let ports = run_ports(options.servers);
    let stop = Stop::on_signals()?;
    ports::ensure_free(&ports).context("cargo xtask run needs these ports on 127.0.0.1")?;
    let began = std::time::Instant::now();
    let mut phases = Phases::default();
    // The relay reads the country database as it starts: installed before anything starts.
    phases.time("npm", || tools::ensure_run_files(root))?;
    let mut fleet = Fleet::new()?;
    let page = if options.page {
        let mut command = page_behind(root)?;
        eprintln!("xtask: {command:?} (behind the relay's build)");
        Some(fleet.spawn(PAGE_BUILD, &mut command)?)
    } else {
        None
    };
    phases
        .time("binaries", || finish(&mut run_binaries(), &stop))
        .map_err(|e| {
            failed(
                &mut fleet,
                &ports,
                "building the relay and the lab (cargo build)",
                e,
            )
        })?;
    let started = std::time::Instant::now();
    let bin = root.join("target/debug");
    // The lab's servers take this rcon password, so the Admin tab can be tried on them.
    let rcon_password = operator_token()?;
    let lab = fleet.spawn(
        "the lab fleet (muster-lab)",
        &mut lab_command(
            &bin,
            &servers,
            // The lab's servers also heartbeat the relay's own master, as stock servers would
            // heartbeat a replacement one; every 15 s rather than stock's 180 s, so it fills
            // soon after the relay starts.
            &[
                "--heartbeat-to",
                OWN_MASTER,
                "--heartbeat",
                "15",
                "--rcon-password",
                &rcon_password,
            ],
        ),
    )?;
    fleet
        .wait_for_line(lab, "muster-lab:", &stop)
        .map_err(|e| failed(&mut fleet, &ports, "starting the lab fleet", e))?;
    let token = operator_token()?;
    // The relay follows the first lab server's matches, nobody watching, so the Matches page
    // fills; the lab's passworded servers take the lab's password, given as an operator would.
    let password = root.join("target/lab-password");
    std::fs::write(&password, "lab").context("writing target/lab-password")?;
    let relay = fleet.spawn(
        "the relay (muster serve)",
        relay_command(root, &bin, RUN_LISTEN, &token)
            .args(["--follow", "127.0.0.1:28960", "--server-password"])
            .arg(format!("127.0.0.1:28960={}", password.display()))
            .args(["--master-listen", OWN_MASTER, "--record-dir"])
            .arg(root.join("target/demos"))
            // History and the persisted list, kept across runs (SQLite).
            .arg("--data-dir")
            .arg(root.join("target/muster-data")),
    )?;
    fleet
        .wait_for_line(relay, "muster: serving", &stop)
        .map_err(|e| failed(&mut fleet, &ports, "starting the relay", e))?;
    phases.0.push(("start", started.elapsed()));
    println!();
    println!(
        "xtask: URL after {:.0} s ({})",
        began.elapsed().as_secs_f64(),
        phases.show()
    );
    println!("Muster is running: open http://{RUN_LISTEN}/");
    println!(
        "(relay + {servers} lab servers and a Wulfram II endpoint on 127.0.0.1; Ctrl-C stops \
         them all)"
    );
    println!(
        "Operator token (the watch view's Record button asks for it): {token}; demos are \
         written to target/demos and listed under Demos; history is kept in \
         target/muster-data"
    );
    println!("The lab servers' rcon password (a server's Admin tab asks for it): {rcon_password}");
    let building = page.is_some_and(|page| fleet.exit_status(page).is_none());
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
    if options.check {
        return check::run(&mut fleet, &stop, [lab, relay], page, options.servers)
            .map_err(|e| failed(&mut fleet, &ports, "checking the running relay", e));
    }
    loop {
        match fleet.watch(&stop) {
            Ended::Interrupted => {
                println!("xtask: stopping the relay, the lab and anything building…");
                let _ = fleet.stop();
                println!("xtask: stopped; nothing of this run is left running");
                return Ok(());
            }
            Ended::Exited(what, built) if what == PAGE_BUILD => {
                if !built.success() {
                    println!(
                        "xtask: the page's build failed ({built}; its error is above); the \
                         relay serves the list without it. Fix it and run `cargo xtask page`: \
                         the running relay serves what it builds."
                    );
                } else if building {
                    println!(
                        "xtask: the page is ready, {:.0} s after xtask started: reload it.",
                        began.elapsed().as_secs_f64()
                    );
                }
            }
            ended @ Ended::Exited(..) => {
                return Err(failed(&mut fleet, &ports, "running", ended.into()));
            }
        }
    }
}
/// The name `run` gives the page's build.
pub(crate) const PAGE_BUILD: &str = "the page's build (cargo xtask page)";
/// The lab fleet `run` and `cluster` start: its servers from 28960, its master on 20611.
pub(crate) const LAB_PORT: &str = "28960";
pub(crate) const LAB_MASTER_PORT: &str = "20611";
pub(crate) fn lab_command(bin: &Path, servers: &str, extra: &[&str]) -> Command {
    let mut lab = Command::new(bin.join("muster-lab"));
    lab.args(["--servers", servers, "--port", LAB_PORT])
        .args(["--master-port", LAB_MASTER_PORT])
        .args(["--wulfram-port", WULFRAM_PORT])
        .args(extra)
        .stdout(Stdio::piped());
    lab
}
/// The operator's secret for this run: the watch view's Record button asks for it.
pub(crate) fn operator_token() -> Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
/// `muster serve` on `listen` for the lab, as `run` and `cluster` start it.
pub(crate) fn relay_command(root: &Path, bin: &Path, listen: &str, token: &str) -> Command {
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
        .arg("--geoip-db")
        .arg(crate::tools::geoip_db(root))
        .stdout(Stdio::piped());
    relay
}
/// `cargo xtask cluster [N]`: N relays as one site, on NATS and PostgreSQL started here, beside
/// a lab fleet; runs until Ctrl-C, and stops everything it started (a relay killed meanwhile
/// stays dead, so the others can be seen carrying on).
pub(crate) fn cluster(root: &Path, args: &[String]) -> Result<()> {
    let count: usize = match args {
        [] => 3,
        [n] => n
            .parse()
            .ok()
            .filter(|n| (1..=20).contains(n))
            .context("usage: cargo xtask cluster [N], N from 1 to 20")?,
        _ => bail!("usage: cargo xtask cluster [N]"),
    };
    let mut ports: Vec<Port> = (0..count as u16)
        .map(|i| Port::tcp(8081 + i, "a relay's web server"))
        .collect();
    ports.extend(lab_ports(24));
    let stop = Stop::on_signals()?;
    ports::ensure_free(&ports).context("cargo xtask cluster needs these ports on 127.0.0.1")?;
    build_page_and_binaries(root, Needs::Cluster, release_binaries())?;
    if stop.requested() {
        bail!("interrupted while building; nothing was started");
    }
    let nats = nats::Nats::start()?;
    let postgres = postgres::Cluster::start()?;
    let bin = root.join("target/release");
    let mut fleet = Fleet::new()?;
    let lab = fleet.spawn(
        "the lab fleet (muster-lab)",
        &mut lab_command(&bin, "24", &[]),
    )?;
    fleet
        .wait_for_line(lab, "muster-lab:", &stop)
        .map_err(|e| failed(&mut fleet, &ports, "starting the lab fleet", e))?;
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
        let what = format!("relay {} (muster serve on {listen})", i + 1);
        let pid = fleet.spawn(&what, &mut relay)?;
        fleet
            .wait_for_line(pid, "muster: serving", &stop)
            .map_err(|e| failed(&mut fleet, &ports, &format!("starting {what}"), e))?;
        relays.push((listen, pid));
    }
    println!();
    println!("{count} relays are running as one site:");
    for (listen, pid) in &relays {
        println!("  http://{listen}/   (pid {pid})");
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
    // A relay killed meanwhile stays dead, so the others can be seen carrying on; the run ends
    // when the user stops it, when the lab exits, or when no relay is left.
    let ended = loop {
        if let Err(ended) = fleet.all_running(&[lab], &stop) {
            break Some(ended);
        }
        if relays
            .iter()
            .all(|(_, pid)| fleet.exit_status(*pid).is_some())
        {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let _ = fleet.stop();
    drop(postgres);
    drop(nats);
    match ended {
        Some(error) if matches!(error.downcast_ref(), Some(Ended::Interrupted)) => {
            println!("xtask: stopped; nothing of this run is left running");
            Ok(())
        }
        Some(error) => Err(error.context("the cluster stopped; everything it started is stopped")),
        None => {
            println!("xtask: every relay has exited; the lab, NATS and PostgreSQL are stopped");
            Ok(())
        }
    }
}
