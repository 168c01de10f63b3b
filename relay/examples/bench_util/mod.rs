//! What the relay's benchmarks share: child processes on loopback ports, and the CPU and memory
//! a process used, read from /proc.

// Each bench uses a part of this.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use protocol::relay_api::watch::{MatchView, Team};

/// A child process killed when dropped.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `p` quantile of timings in ms, to a hundredth; 0 for none.
pub fn percentile(mut ms: Vec<f64>, p: f64) -> f64 {
    ms.sort_by(f64::total_cmp);
    let i = ((ms.len() as f64 - 1.0) * p).round() as usize;
    (ms.get(i).copied().unwrap_or(0.0) * 100.0).round() / 100.0
}

pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .unwrap_or(29000)
}

pub fn free_tcp_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .unwrap_or(18080)
}

/// Starts a program and waits for the stdout line starting with `ready`.
pub fn start(program: PathBuf, args: &[String], ready: &str) -> anyhow::Result<Process> {
    start_logged(program, args, ready, None)
}

/// [`start`], appending the program's stdout (its log) to `log` if given.
pub fn start_logged(
    program: PathBuf,
    args: &[String],
    ready: &str,
    log: Option<&std::path::Path>,
) -> anyhow::Result<Process> {
    use std::io::Write;
    let mut file = match log {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        ),
        None => None,
    };
    let mut child = Command::new(&program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", program.display()))?;
    let stdout = child.stdout.take().context("stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let Some(line) = lines.next() else {
            bail!("{} exited before {ready:?}", program.display());
        };
        let line = line?;
        if let Some(file) = file.as_mut() {
            let _ = writeln!(file, "{line}");
        }
        if line.starts_with(ready) {
            break;
        }
    }
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if let Some(file) = file.as_mut() {
                let _ = writeln!(file, "{line}");
            }
        }
    });
    Ok(Process(child))
}

/// utime + stime of a process, in seconds.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: f64 = fields
        .get(11..13)
        .map(|f| f.iter().filter_map(|v| v.parse::<f64>().ok()).sum())
        .unwrap_or(0.0);
    ticks / 100.0
}

/// Resident memory of a process, in KiB.
pub fn rss_kib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

pub fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// `muster serve` on `http_port`, polling only the lab master on `master_port`, serving the
/// page from `dist`.
pub fn relay_args(http_port: u16, master_port: u16, dist: &std::path::Path) -> Vec<String> {
    relay_args_for(http_port, &format!("127.0.0.1:{master_port}"), dist)
}

/// [`relay_args`] polling the master at `master` (`HOST:PORT`).
pub fn relay_args_for(http_port: u16, master: &str, dist: &std::path::Path) -> Vec<String> {
    [
        "serve",
        "--listen",
        &format!("127.0.0.1:{http_port}"),
        "--master",
        master,
        "--no-default-masters",
        "--no-lan",
        "--dist",
        &dist.display().to_string(),
        // Every client of a bench is 127.0.0.1: the per-client limits would be the bench.
        "--api-rate=1000000",
        "--api-burst=1000000",
        "--upgrade-rate=1000000",
        "--upgrade-burst=1000000",
        "--sockets-per-client=1000000",
    ]
    .map(String::from)
    .to_vec()
}

/// [`relay_args`] keeping no history, with `extra` flags: each run measures a fresh relay,
/// nothing restored from the run before (history has a bench of its own).
pub fn start_relay(
    bin: &std::path::Path,
    http_port: u16,
    master_port: u16,
    dist: &std::path::Path,
    extra: &[&str],
) -> anyhow::Result<Process> {
    start_relay_on(None, bin, http_port, master_port, dist, extra)
}

/// [`start_relay`], on CPU `cpu` alone when given (through `taskset`, which runs the relay
/// in its own process, so the pid is the relay's).
pub fn start_relay_on(
    cpu: Option<usize>,
    bin: &std::path::Path,
    http_port: u16,
    master_port: u16,
    dist: &std::path::Path,
    extra: &[&str],
) -> anyhow::Result<Process> {
    let mut args = relay_args(http_port, master_port, dist);
    args.push("--no-history".into());
    args.extend(extra.iter().map(|a| a.to_string()));
    match cpu {
        Some(cpu) => {
            let mut pinned = vec!["-c".to_owned(), cpu.to_string()];
            pinned.push(bin.join("muster").display().to_string());
            pinned.extend(args);
            start("taskset".into(), &pinned, "muster: serving")
        }
        None => start(bin.join("muster"), &args, "muster: serving"),
    }
}

/// CPU `cpu`'s time so far from /proc/stat, in ticks: busy (user, nice, system, irq and
/// softirq: the kernel's network work done for a process is often not charged to it), idle
/// (with iowait), and stolen by the hypervisor.
pub fn cpu_ticks(cpu: usize) -> (u64, u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let name = format!("cpu{cpu}");
    let Some(line) = stat
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name.as_str()))
    else {
        return (0, 0, 0);
    };
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    (at(0) + at(1) + at(2) + at(5) + at(6), at(3) + at(4), at(7))
}

/// The CPUs this process may run on (`Cpus_allowed_list` in /proc/self/status: "0-3,6").
pub fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let Some(list) = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
    else {
        return Vec::new();
    };
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    cpus.extend(a..=b);
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    cpus
}

/// Moves this process (every thread, and the children it starts later) onto `cpus`.
pub fn pin_self(cpus: &[usize]) -> anyhow::Result<()> {
    let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
    let status = Command::new("taskset")
        .args([
            "-a",
            "-cp",
            &list.join(","),
            &std::process::id().to_string(),
        ])
        .stdout(Stdio::null())
        .status()
        .context("running taskset (util-linux)")?;
    if !status.success() {
        bail!("taskset could not pin the bench to CPUs {list:?}");
    }
    Ok(())
}

/// The relay's `/metrics`, as text.
pub async fn metrics_text(http: &str) -> anyhow::Result<String> {
    Ok(reqwest::get(format!("http://{http}/metrics"))
        .await?
        .text()
        .await?)
}

/// The relay's counters and gauges named in `names`, summed over their labels, from its
/// `/metrics`.
pub async fn metrics(http: &str, names: &[&str]) -> anyhow::Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for s in relay::metrics::parse_exposition(&metrics_text(http).await?) {
        if names.contains(&s.name.as_str()) {
            *out.entry(s.name.clone()).or_default() += s.value;
        }
    }
    Ok(out)
}

/// A lab fleet of `servers` on consecutive ports from `base`, its master on `master_port`,
/// with `extra` flags.
pub fn start_fleet(
    bin: &std::path::Path,
    servers: usize,
    base: u16,
    master_port: u16,
    extra: &[&str],
) -> anyhow::Result<Process> {
    let mut args: Vec<String> = [
        "--servers",
        &servers.to_string(),
        "--port",
        &base.to_string(),
        "--master-port",
        &master_port.to_string(),
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    start(bin.join("muster-lab"), &args, "muster-lab:")
}

/// The relay's flags to follow the `count` lab servers from `base` at once: a hub for each
/// (beyond the default cap), and the lab's password (some of its servers ask for one) from a
/// file in `dir`.
pub fn follow_fleet(base: u16, count: usize, dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let password = dir.join("password");
    std::fs::write(&password, "lab")?;
    let mut follow = vec!["--max-hubs".to_owned(), (count + 4).to_string()];
    for port in base..base + count as u16 {
        follow.extend([
            "--follow".to_owned(),
            format!("127.0.0.1:{port}"),
            "--server-password".to_owned(),
            format!("127.0.0.1:{port}={}", password.display()),
        ]);
    }
    Ok(follow)
}

/// A lab fleet of `matches` servers from `base` as the live benches follow it (12 players a
/// server, no churn, 2-minute maps, matches played at the lab's `pace`: `busy` or `public`),
/// the release binaries' folder, its master's port, and the relay's flags to follow every one
/// (`dir` keeps the lab's password).
pub fn followed_fleet(
    matches: usize,
    base: u16,
    dir: &std::path::Path,
    pace: &str,
) -> anyhow::Result<(Process, PathBuf, u16, Vec<String>)> {
    let bin =
        PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or_else(|_| "target/release".into()));
    let master_port = free_port();
    let lab = start_fleet(
        &bin,
        matches,
        base,
        master_port,
        &[
            "--players",
            "12",
            "--churn",
            "0",
            "--map-time",
            "120",
            "--seed",
            "5",
            "--pace",
            pace,
        ],
    )?;
    let follow = follow_fleet(base, matches, dir)?;
    Ok((lab, bin, master_port, follow))
}

/// A lab fleet of `servers` whose first hosts an endless match of `players` (the cluster's
/// benches).
pub fn start_endless_lab(
    bin: &std::path::Path,
    servers: usize,
    players: usize,
    lab_port: u16,
    master_port: u16,
) -> anyhow::Result<Process> {
    let args = [
        "--servers",
        &servers.to_string(),
        "--players",
        &players.to_string(),
        "--port",
        &lab_port.to_string(),
        "--master-port",
        &master_port.to_string(),
        "--map-time",
        "0",
        "--seed",
        "5",
    ]
    .map(String::from);
    start(bin.join("muster-lab"), &args, "muster-lab:")
}

/// Waits until the relay at `http` lists `count` servers online.
pub async fn wait_online(
    http: &str,
    count: usize,
    limit: std::time::Duration,
) -> anyhow::Result<()> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let listed: serde_json::Value = reqwest::get(format!("http://{http}/api/servers"))
            .await?
            .json()
            .await?;
        let online = listed.as_array().map_or(0, |a| {
            a.iter().filter(|s| s["reachability"] == "online").count()
        });
        if online >= count {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            bail!("only {online} of {count} servers answered");
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// The lab's true match (`muster-lab --truth`): by server time, every soldier's client number,
/// origin and whether they are alive.
pub type Truth = BTreeMap<i32, Vec<(u8, [f64; 3], bool)>>;

pub fn read_truth(path: &std::path::Path) -> Truth {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut frames = Truth::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let soldiers = v["soldiers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let o = &s["origin"];
                (
                    s["client"].as_u64().unwrap_or(0) as u8,
                    [0, 1, 2].map(|i| o[i].as_f64().unwrap_or(0.0)),
                    s["alive"].as_bool().unwrap_or(false),
                )
            })
            .collect();
        frames.insert(v["server_time"].as_i64().unwrap_or(0) as i32, soldiers);
    }
    frames
}

/// Coverage (living players shown with a position at most 1 s old) and the mean distance from
/// what is shown to where they truly are, over the sampled views.
pub fn coverage(samples: &[MatchView], truth: &Truth) -> (f64, f64) {
    let (mut alive, mut covered, mut error, mut errors) = (0u64, 0u64, 0.0f64, 0u64);
    for view in samples {
        let Some(frame) = truth.get(&view.server_time) else {
            continue;
        };
        for (client, origin, living) in frame {
            if !living {
                continue;
            }
            alive += 1;
            let shown = view
                .players
                .iter()
                .find(|p| p.client == *client && p.team != Team::Spectator);
            let Some(p) = shown else { continue };
            let Some(seen) = p.seen else { continue };
            if view.server_time - seen <= 1000 {
                covered += 1;
                let dx = origin[0] - f64::from(p.origin[0]);
                let dy = origin[1] - f64::from(p.origin[1]);
                error += (dx * dx + dy * dy).sqrt();
                errors += 1;
            }
        }
    }
    (
        covered as f64 / alive.max(1) as f64,
        error / errors.max(1) as f64,
    )
}

/// `muster-lab` flags for one frozen match of `players` on `port` (its master on
/// `master_port`) that writes its true match to `truth`.
pub fn match_args(
    players: usize,
    port: u16,
    master_port: u16,
    truth: &std::path::Path,
) -> Vec<String> {
    [
        "--servers",
        "1",
        "--players",
        &players.to_string(),
        "--port",
        &port.to_string(),
        "--master-port",
        &master_port.to_string(),
        "--churn",
        "0",
        "--map-time",
        "0",
        "--seed",
        "5",
        "--truth",
        &truth.display().to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// The relays of a site on 127.0.0.1: their ports and processes, each restartable.
pub struct Relays {
    pub bin: PathBuf,
    pub dir: PathBuf,
    pub ports: Vec<u16>,
    pub processes: Vec<Option<Process>>,
}

impl Relays {
    pub fn new(bin: PathBuf, dir: PathBuf, count: usize) -> Self {
        Self {
            bin,
            dir,
            ports: (0..count).map(|_| free_tcp_port()).collect(),
            processes: (0..count).map(|_| None).collect(),
        }
    }

    /// Starts relay `i` with `args` (`muster` ARGS), its log in `dir/relay-I.log`.
    pub fn start(&mut self, i: usize, args: &[String]) -> anyhow::Result<()> {
        let log = self.dir.join(format!("relay-{i}.log"));
        self.processes[i] = Some(start_logged(
            self.bin.join("muster"),
            args,
            "muster: serving",
            Some(&log),
        )?);
        Ok(())
    }

    pub fn http(&self, i: usize) -> String {
        format!("127.0.0.1:{}", self.ports[i])
    }

    pub fn pid(&self, i: usize) -> u32 {
        self.processes[i].as_ref().map_or(0, |p| p.0.id())
    }

    /// SIGKILL, as dropping a bench process does.
    pub fn kill(&mut self, i: usize) {
        self.processes[i] = None;
    }

    /// Which live relay holds the cluster lease `lease`, by their own `/api/cluster`.
    pub async fn holder(&self, lease: &str) -> Option<usize> {
        for i in 0..self.ports.len() {
            if self.processes[i].is_none() {
                continue;
            }
            if self.leases(i).await.is_some_and(|l| l.contains_key(lease)) {
                return Some(i);
            }
        }
        None
    }

    /// The leases relay `i` says it holds, with their revisions; `None` when it does not
    /// answer within a second.
    pub async fn leases(&self, i: usize) -> Option<BTreeMap<String, u64>> {
        let asked = reqwest::Client::new()
            .get(format!("http://{}/api/cluster", self.http(i)))
            .timeout(std::time::Duration::from_secs(1))
            .send();
        let status: serde_json::Value = asked.await.ok()?.json().await.ok()?;
        serde_json::from_value(status["leases"].clone()).ok()
    }
}

/// A site of relays on NATS and PostgreSQL: its relays, restartable, and what they are started
/// with (`MUSTER_BENCH_LEASE_TTL` gives their `--lease-ttl`, theirs by default).
pub struct Site {
    pub relays: Relays,
    pub master_port: u16,
    pub nats: String,
    pub database: String,
}

impl Site {
    pub fn start_relay(&mut self, i: usize) -> anyhow::Result<()> {
        let mut args = relay_args(self.relays.ports[i], self.master_port, &self.relays.dir);
        if let Ok(ttl) = std::env::var("MUSTER_BENCH_LEASE_TTL") {
            args.extend(["--lease-ttl".to_owned(), ttl]);
        }
        args.extend(
            [
                "--spectate-delay",
                "0",
                "--allow-private",
                "--cluster",
                &self.nats,
                "--database",
                &self.database,
            ]
            .map(String::from),
        );
        self.relays.start(i, &args)
    }

    pub async fn wait_holder(
        &self,
        lease: &str,
        limit: std::time::Duration,
    ) -> anyhow::Result<usize> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Some(i) = self.relays.holder(lease).await {
                return Ok(i);
            }
            if std::time::Instant::now() > deadline {
                anyhow::bail!("nobody holds {lease}");
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
