//! `cargo xtask run` and `cargo xtask cluster`: the relay (one, or several on NATS and
//! PostgreSQL) and a lab fleet on 127.0.0.1, started as soon as they are built, with the page
//! built behind them.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::tools::Needs;
use crate::{status, wait_for_line, Phases};

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
/// first start, comes when it comes.
pub(crate) fn page_behind(root: &Path) -> Result<Child> {
    let mut page = Command::new("nice");
    page.args(["-n", "19"])
        .arg(std::env::current_exe().context("finding xtask itself")?)
        .arg("page")
        .current_dir(root);
    eprintln!("xtask: {page:?} (behind the relay's build)");
    page.spawn().context("starting the page's build")
}
pub(crate) fn run(root: &Path, args: &[String]) -> Result<()> {
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
    // The relay follows the first lab server's matches, nobody watching, so the Matches page
    // fills; the lab's passworded servers take the lab's password, given as an operator would.
    let password = root.join("target/lab-password");
    std::fs::write(&password, "lab").context("writing target/lab-password")?;
    let mut relay = relay_command(root, &bin, "127.0.0.1:8080", &token)
        .args(["--follow", "127.0.0.1:28960", "--server-password"])
        .arg(format!("127.0.0.1:28960={}", password.display()))
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
pub(crate) const LAB_PORT: &str = "28960";
pub(crate) const LAB_MASTER_PORT: &str = "20611";
pub(crate) fn start_lab(bin: &Path, servers: &str, extra: &[&str]) -> Result<Child> {
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
