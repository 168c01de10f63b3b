//! `muster doctor`: checks what an operator gets wrong, with the settings `muster serve` would
//! run with (flags, `MUSTER_*` variables, `--config`), each failure with its fix. Exit code 0
//! only when nothing fails.

use std::net::{SocketAddr, SocketAddrV4};
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::{out, out_json};
use crate::browse::query::results;
use crate::browse::query::EngineConfig;
use crate::store::StoreArgs;

/// Check the relay's settings against this machine: ports, masters, outbound UDP, the data
/// dir, the database, NATS, the page, the clock and the open-file limit.
#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub serve: super::serve::Args,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// Not configured, or nothing to check it with.
    Skip,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub check: String,
    pub status: Status,
    pub detail: String,
    /// What to do about a failure.
    pub fix: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    /// Whether no check failed.
    pub ok: bool,
    pub checks: Vec<Check>,
}

/// Free space below which the data dir fails: a day of a large fleet's samples, with room.
const MIN_FREE_BYTES: u64 = 256 << 20;
/// Descriptors the relay needs besides its connections: store, sockets to servers, logs.
const SPARE_FILES: u64 = 256;
const WAIT: Duration = Duration::from_secs(5);

fn pass(check: impl Into<String>, detail: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        status: Status::Pass,
        detail: detail.into(),
        fix: None,
    }
}

fn fail(check: impl Into<String>, detail: impl Into<String>, fix: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        status: Status::Fail,
        detail: detail.into(),
        fix: Some(fix.into()),
    }
}

fn skip(check: impl Into<String>, detail: impl Into<String>) -> Check {
    Check {
        check: check.into(),
        status: Status::Skip,
        detail: detail.into(),
        fix: None,
    }
}

pub async fn run(args: DoctorArgs) -> anyhow::Result<()> {
    let json = args.json;
    let config = args.serve.config().await?;
    let mut checks: Vec<Check> = config.listen.iter().map(|a| listen(*a)).collect();
    if let Some(master) = &config.master {
        checks.push(master_listen(master.listen));
    }
    let listed = masters(&config.poller.masters, &mut checks).await;
    let known = config.poller.servers.iter().chain(&listed).next().copied();
    checks.push(outbound(known).await);
    match &config.history {
        Some(history) => {
            if history.store.database.is_none() {
                checks.push(data_dir(&history.store.data_dir));
            }
            let store = history.store.clone();
            checks.push(tokio::task::spawn_blocking(move || database(&store)).await?);
        }
        None => checks.push(skip("store", "--no-history: nothing is kept")),
    }
    match &config.cluster {
        Some(cluster) => checks.push(nats(&cluster.urls).await),
        None => checks.push(skip("nats", "no --cluster")),
    }
    checks.push(page(&config.dist));
    checks.push(clock());
    checks.push(open_files(config.edge.limits.connections as u64));

    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let report = Report {
        ok: failed == 0,
        checks,
    };
    if json {
        out_json(&report)?;
    } else {
        for c in &report.checks {
            let status = match c.status {
                Status::Pass => "ok  ",
                Status::Fail => "FAIL",
                Status::Skip => "skip",
            };
            out(format!("{status} {:<22} {}", c.check, c.detail))?;
            if let Some(fix) = &c.fix {
                out(format!("     {:<22} fix: {fix}", ""))?;
            }
        }
    }
    if failed > 0 {
        eprintln!(
            "muster doctor: {failed} of {} checks failed",
            report.checks.len()
        );
        std::process::exit(1);
    }
    Ok(())
}

fn listen(addr: SocketAddr) -> Check {
    let name = format!("listen {addr}");
    match std::net::TcpListener::bind(addr) {
        Ok(_) => pass(name, "free"),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => fail(
            name,
            "taken by another process (a relay already running there?)",
            "stop what holds it (`ss -ltnp`), or choose another --listen",
        ),
        Err(e) => fail(
            name,
            e.to_string(),
            "a port below 1024 needs CAP_NET_BIND_SERVICE; an address must be this machine's",
        ),
    }
}

fn master_listen(addr: SocketAddr) -> Check {
    let name = format!("master-listen {addr}");
    match std::net::UdpSocket::bind(addr) {
        Ok(_) => pass(name, "free"),
        Err(e) => fail(
            name,
            e.to_string(),
            "stop what holds it (`ss -lunp`), or choose another --master-listen",
        ),
    }
}

/// Each master resolved and asked once; the servers they listed.
async fn masters(names: &[String], checks: &mut Vec<Check>) -> Vec<SocketAddrV4> {
    if names.is_empty() {
        checks.push(skip("masters", "none configured"));
        return Vec::new();
    }
    let mut resolved = Vec::new();
    for name in names {
        match crate::net::resolve(name, protocol::cod::MASTER_PORT).await {
            Ok(addrs) => resolved.push((name.clone(), addrs)),
            Err(e) => checks.push(fail(
                format!("master {name}"),
                format!("does not resolve: {e}"),
                "check the name and this machine's DNS, or drop it (--no-default-masters)",
            )),
        }
    }
    let Ok(listing) = results::masters(&resolved, EngineConfig::default()).await else {
        checks.push(fail(
            "masters",
            "cannot open a UDP socket",
            "the relay needs UDP sockets",
        ));
        return Vec::new();
    };
    for m in &listing.masters {
        let name = format!("master {} ({})", m.master, m.addr);
        checks.push(match &m.error {
            None => pass(name, format!("answered: {} servers", m.servers)),
            Some(e) => fail(
                name,
                format!("no list: {e}"),
                "the master may be down; if every master fails, allow outbound UDP to port 20610",
            ),
        });
    }
    listing
        .servers
        .iter()
        .filter_map(|s| s.addr.parse().ok())
        .collect()
}

/// One getstatus to a server the settings or a master named.
async fn outbound(server: Option<SocketAddrV4>) -> Check {
    let Some(addr) = server else {
        return skip(
            "outbound udp",
            "no server to ask: no master listed one and no --server is set",
        );
    };
    let answered = results::query(&[addr], EngineConfig::default())
        .await
        .ok()
        .and_then(|r| r.into_iter().next())
        .filter(|r| r.outcome == "answered");
    match answered {
        Some(r) => pass(
            "outbound udp",
            format!("{addr} answered in {} ms", r.ping_ms.unwrap_or(0)),
        ),
        None => fail(
            "outbound udp",
            format!("{addr} did not answer getstatus"),
            "allow outbound UDP to game servers (28960 and up) and their replies; or that server is down",
        ),
    }
}

fn data_dir(dir: &Path) -> Check {
    let name = format!("data dir {}", dir.display());
    let fix = "make it a directory the relay's user may write (`--data-dir`, or chown)";
    if let Err(e) = std::fs::create_dir_all(dir) {
        return fail(name, format!("cannot create it: {e}"), fix);
    }
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    if let Err(e) = std::fs::write(&probe, b"probe") {
        return fail(name, format!("not writable: {e}"), fix);
    }
    let _ = std::fs::remove_file(&probe);
    let free = match rustix::fs::statvfs(dir) {
        Ok(s) => s.f_bavail * s.f_frsize,
        Err(e) => return fail(name, format!("cannot read its free space: {e}"), fix),
    };
    let mb = free >> 20;
    if free < MIN_FREE_BYTES {
        return fail(
            name,
            format!("writable, but only {mb} MiB free"),
            format!(
                "free space or move --data-dir: under {} MiB the store may fill the disk",
                MIN_FREE_BYTES >> 20
            ),
        );
    }
    let running = match crate::store::backup::lock_data_dir(dir) {
        Err(crate::store::StoreError::InUse { pid, .. }) => format!("; relay {pid} uses it"),
        _ => String::new(),
    };
    pass(name, format!("writable, {mb} MiB free{running}"))
}

fn database(store: &StoreArgs) -> Check {
    let name = format!("store {}", store.describe());
    match store.schema_version(WAIT) {
        Ok((None, known)) => pass(
            name,
            format!("reachable, empty: the relay creates schema version {known}"),
        ),
        Ok((Some(found), known)) if found > known => fail(
            name,
            format!("schema version {found}, but this relay knows up to {known}"),
            "run the relay that wrote it (or newer), or restore a backup this one can open",
        ),
        Ok((Some(found), known)) if found < known => pass(
            name,
            format!("schema version {found}; the relay migrates it to {known} at start"),
        ),
        Ok((Some(found), _)) => pass(name, format!("schema version {found}, current")),
        Err(e) => fail(
            name,
            e.to_string(),
            match store.database {
                Some(_) => "check --database: host, port, user, database, and pg_hba.conf",
                None => "restore a backup (`muster restore`), or move the file aside",
            },
        ),
    }
}

async fn nats(urls: &[String]) -> Check {
    let name = format!("nats {}", urls.join(","));
    let addrs: Result<Vec<async_nats::ServerAddr>, _> = urls.iter().map(|u| u.parse()).collect();
    let addrs = match addrs {
        Ok(addrs) => addrs,
        Err(e) => return fail(name, e.to_string(), "--cluster takes nats://HOST:PORT"),
    };
    let connected = async_nats::ConnectOptions::new()
        .connection_timeout(WAIT)
        .connect(addrs)
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => {
            return fail(
                name,
                format!("unreachable: {e}"),
                "start nats-server (with -js), or fix --cluster",
            )
        }
    };
    let js = async_nats::jetstream::new(client);
    match tokio::time::timeout(WAIT, js.query_account()).await {
        Ok(Ok(_)) => pass(name, "reachable, JetStream on"),
        Ok(Err(e)) => fail(
            name,
            format!("reachable, but JetStream answers no account: {e}"),
            "start nats-server with -js (JetStream holds the leases)",
        ),
        Err(_) => fail(
            name,
            "reachable, but JetStream did not answer",
            "start nats-server with -js (JetStream holds the leases)",
        ),
    }
}

fn page(dist: &Path) -> Check {
    let name = format!("page {}", dist.display());
    let fix = "build it (`cargo xtask page`), or point --dist at the built page";
    if !dist.join("index.html").is_file() {
        return fail(name, "no index.html", fix);
    }
    let files: Vec<String> = std::fs::read_dir(dist)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if !files.iter().any(|f| f.ends_with(".wasm")) {
        return fail(name, "index.html but no .wasm: a partial build", fix);
    }
    pass(name, format!("built ({} files)", files.len()))
}

fn clock() -> Check {
    let now = SystemTime::now();
    let built = std::env::current_exe()
        .and_then(std::fs::metadata)
        .and_then(|m| m.modified())
        .ok();
    let behind = built.and_then(|b| b.duration_since(now).ok());
    match behind {
        Some(by) if by > Duration::from_secs(3600) => fail(
            "clock",
            format!("{} h behind this binary's file time", by.as_secs() / 3600),
            "set the clock (systemd-timesyncd or chrony): history and leases use it",
        ),
        _ => pass("clock", crate::net::utc_minute(crate::net::unix_ms())),
    }
}

fn open_files(connections: u64) -> Check {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    let needed = connections + SPARE_FILES;
    match limit.current {
        Some(soft) if soft < needed => fail(
            "open files",
            format!("limit {soft}, but --connections {connections} needs about {needed}"),
            format!("raise it (LimitNOFILE={needed} in the unit, or ulimit -n {needed}), or lower --connections"),
        ),
        Some(soft) => pass("open files", format!("limit {soft}, {needed} needed")),
        None => pass("open files", "no limit"),
    }
}
