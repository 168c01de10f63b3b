//! `cargo xtask run --check`: the README's first command as CI runs it on every landing. After
//! the URL, it reads back what a newcomer would see (the list's first screen, every lab server
//! answering in `/api/servers`, then the page's code once its build behind the relay is done),
//! stops everything and proves nothing of the run is left running and every port is free.

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};

use super::{LAB_PORT, RUN_LISTEN};
use crate::supervise::{Ended, Fleet, Stop};

/// How long the relay may take to list every lab server: its first poll of the lab master and
/// the servers' answers take seconds; a loaded CI machine is given far more.
const LISTED_WITHIN: Duration = Duration::from_secs(120);

pub(super) fn run(
    fleet: &mut Fleet,
    stop: &Stop,
    running: [u32; 2],
    page: Option<u32>,
    servers: usize,
) -> Result<()> {
    let first = get("/")?;
    ensure!(
        first.status == 200,
        "GET http://{RUN_LISTEN}/ answered {}",
        first.status
    );
    println!(
        "xtask check: GET / answered 200 ({} bytes)",
        first.body.len()
    );
    let began = Instant::now();
    loop {
        fleet.all_running(&running, stop)?;
        let answering = lab_servers_answering(servers)?;
        if answering == servers {
            println!(
                "xtask check: /api/servers lists the lab's {servers} servers, each answering \
                 ({:.1} s after the URL)",
                began.elapsed().as_secs_f64()
            );
            break;
        }
        if began.elapsed() > LISTED_WITHIN {
            bail!(
                "after {} s /api/servers lists {answering} of the lab's {servers} servers \
                 answering",
                LISTED_WITHIN.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    if let Some(page) = page {
        println!("xtask check: waiting for the page's build behind the relay…");
        let built = loop {
            fleet.all_running(&running, stop)?;
            if let Some(status) = fleet.exit_status(page) {
                break status;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        if !built.success() {
            return Err(Ended::Exited(super::PAGE_BUILD.to_owned(), built).into());
        }
        page_served()?;
    }
    // Each process group stopped as one: nothing should have been left for the sweep by mark.
    let swept = fleet.stop();
    ensure!(
        swept.is_empty(),
        "stopping each process group left these running (killed by their mark): {swept:?}"
    );
    let left = fleet.left_running();
    ensure!(
        left.is_empty(),
        "processes of this run still running after it stopped: {left:?}"
    );
    crate::ports::ensure_free(&super::run_ports(servers))
        .context("a port of this run is still taken after it stopped")?;
    println!(
        "xtask check: passed; everything stopped, nothing left running, every port free again"
    );
    Ok(())
}

/// The lab's servers (127.0.0.1, from the lab's first port) that `/api/servers` shows answered.
fn lab_servers_answering(servers: usize) -> Result<usize> {
    let answer = get("/api/servers")?;
    ensure!(
        answer.status == 200,
        "GET /api/servers answered {}",
        answer.status
    );
    let listed: Vec<serde_json::Value> =
        serde_json::from_slice(&answer.body).context("/api/servers is not a JSON list")?;
    let base: usize = LAB_PORT.parse()?;
    let lab: Vec<String> = (base..base + servers)
        .map(|port| format!("127.0.0.1:{port}"))
        .collect();
    Ok(listed
        .iter()
        .filter(|s| {
            s["addr"]
                .as_str()
                .is_some_and(|a| lab.iter().any(|l| l == a))
        })
        .filter(|s| !s["updated_ms"].is_null())
        .count())
}

/// The page's code is what `/` now serves: its wasm is named in the page and served as wasm.
fn page_served() -> Result<()> {
    let index = get("/")?;
    let html = String::from_utf8_lossy(&index.body);
    let wasm = html
        .split(['"', '\''])
        .find(|part| part.starts_with('/') && part.ends_with(".wasm"))
        .with_context(|| format!("GET / names no .wasm once the page is built: {html:.300}"))?
        .to_owned();
    let code = get(&wasm)?;
    ensure!(
        code.status == 200 && code.body.starts_with(b"\0asm"),
        "GET {wasm} answered {} with {} bytes, not the page's wasm",
        code.status,
        code.body.len()
    );
    println!(
        "xtask check: the page's code is served ({wasm}, {} bytes)",
        code.body.len()
    );
    Ok(())
}

fn get(path: &str) -> Result<crate::loopback::Answer> {
    crate::loopback::get(RUN_LISTEN, path)
}
