//! `cargo xtask chaos [--cluster]`: the relay and the lab on the two sides of an impaired link,
//! checked as a user would see them.
//!
//! xtask runs this program in a network namespace of its own (the relay's side); it makes a
//! second one for the lab and joins them with a link that loses 10% of the packets, sends 5%
//! twice and delays each copy by 100 ms ± 50 ms, so copies overtake one another (reordering).
//! The issue asked for `tc netem` on a veth pair; this kernel has no `sch_netem`, so the link is
//! two TUN devices, one in each namespace, with this program between them applying
//! `protocol::sim`'s seeded link to every IP packet: the kernel's own UDP and TCP still run on
//! both ends, only the wire is simulated.
//!
//! The lab side runs three `muster-lab` processes: a master alone (what the relay polls), a
//! frozen fleet of 30 servers and one live match with a `--truth` file, so each can be killed
//! on its own. The checks:
//!
//! 1. every server answers the relay's query engine with the data a lossless query from inside
//!    the lab's namespace gets;
//! 2. a viewer's model of the match converges to the lab's truth (coverage, position error);
//! 3. the match server killed and started again mid-session is rejoined, and the model
//!    converges to the new instance's truth;
//! 4. with `--cluster` (two relays on NATS and PostgreSQL), the relay holding the poller lease is
//!    killed with SIGKILL: the other takes the poller over, still lists every server and carries
//!    the viewers on; the killed one is started again and rejoins the site;
//! 5. the master killed: its last list stays served, the master is shown failed, the servers stay
//!    listed and answering.
//!
//! The last line printed is one JSON object; the exit status is 1 if a check failed.
//!
//! Usage: chaos [--cluster]; MUSTER_BIN_DIR names the release binaries, and with `--cluster`
//! MUSTER_CHAOS_NATS and MUSTER_CHAOS_POSTGRES name the engines xtask started.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use bench_util::{
    coverage, match_args, read_truth, relay_args_for, start, wait_online, Process, Relays, Truth,
};
use futures_util::StreamExt;
use protocol::relay_api::watch::{apply, MatchView, Team, WatchMessage};
use protocol::sim::{LinkProfile, LossyLink};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

const LAB_NS: &str = "muster-chaos-lab";
/// The relay's end of the link and the lab's.
const RELAY_SIDE: &str = "10.22.1.1";
const LAB_SIDE: &str = "10.22.2.1";
const PROFILE: LinkProfile = LinkProfile {
    loss: 0.10,
    duplication: 0.05,
    min_delay_ms: 50,
    max_delay_ms: 150,
};
const MASTER_PORT: u16 = 20610;
const FLEET: usize = 30;
const FLEET_PORT: u16 = 28960;
const MATCH_PORT: u16 = 29960;
const PLAYERS: usize = 12;
/// How long each check watches.
const WINDOW: Duration = Duration::from_secs(20);
/// Coverage the spectate bench asks of a lossless link; the impaired one must hold it too.
const COVERAGE_GOAL: f64 = 0.9;

fn ip(args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new("ip")
        .args(args)
        .status()
        .context("running ip (iproute2)")?;
    if !status.success() {
        bail!("ip {} failed", args.join(" "));
    }
    Ok(())
}

/// Datagrams one direction of the link was given, lost and sent twice.
#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    lost: AtomicU64,
    duplicated: AtomicU64,
}

impl Counts {
    fn json(&self) -> Value {
        json!({
            "packets": self.sent.load(Ordering::Relaxed),
            "lost": self.lost.load(Ordering::Relaxed),
            "duplicated": self.duplicated.load(Ordering::Relaxed),
        })
    }
}

/// One direction: every packet read from `from` goes through the simulated link and is written
/// to `to` when it arrives.
async fn impair(
    from: Arc<tun::AsyncDevice>,
    to: Arc<tun::AsyncDevice>,
    seed: u64,
    counts: Arc<Counts>,
) {
    let mut link = LossyLink::new(PROFILE, seed);
    let began = tokio::time::Instant::now();
    let now = || began.elapsed().as_millis() as u64;
    let mut buffer = vec![0u8; 65_536];
    loop {
        let wake = link
            .next_arrival()
            .map(|at| began + Duration::from_millis(at));
        tokio::select! {
            read = from.recv(&mut buffer) => match read {
                Ok(n) => link.send(now(), buffer[..n].to_vec()),
                Err(_) => return,
            },
            () = tokio::time::sleep_until(wake.unwrap_or(began)), if wake.is_some() => {
                for packet in link.due(now()) {
                    let _ = to.send(&packet).await;
                }
            }
        }
        counts.sent.store(link.sent as u64, Ordering::Relaxed);
        counts.lost.store(link.lost as u64, Ordering::Relaxed);
        counts
            .duplicated
            .store(link.duplicated as u64, Ordering::Relaxed);
    }
}

/// The lab's namespace and the impaired link to it; the namespace is deleted when dropped (the
/// TUN devices go with this process).
struct Link {
    outbound: Arc<Counts>,
    inbound: Arc<Counts>,
}

impl Drop for Link {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", LAB_NS]);
    }
}

fn tun_device(name: &str) -> anyhow::Result<Arc<tun::AsyncDevice>> {
    let mut config = tun::Configuration::default();
    config.tun_name(name);
    // Addresses and routes are set with `ip` once the device is in its namespace.
    config.platform_config(|c| {
        c.ensure_root_privileges(false);
    });
    Ok(Arc::new(
        tun::create_as_async(&config).with_context(|| format!("creating TUN device {name}"))?,
    ))
}

fn build_link() -> anyhow::Result<Link> {
    let _ = ip(&["netns", "del", LAB_NS]);
    ip(&["link", "set", "lo", "up"])?;
    ip(&["netns", "add", LAB_NS])?;
    ip(&["-n", LAB_NS, "link", "set", "lo", "up"])?;
    let relay_end = tun_device("mchaos0")?;
    let lab_end = tun_device("mchaos1")?;
    ip(&["link", "set", "mchaos1", "netns", LAB_NS])?;
    ip(&["addr", "add", &format!("{RELAY_SIDE}/24"), "dev", "mchaos0"])?;
    ip(&["link", "set", "mchaos0", "up"])?;
    ip(&["route", "add", "10.22.2.0/24", "dev", "mchaos0"])?;
    ip(&[
        "-n",
        LAB_NS,
        "addr",
        "add",
        &format!("{LAB_SIDE}/24"),
        "dev",
        "mchaos1",
    ])?;
    ip(&["-n", LAB_NS, "link", "set", "mchaos1", "up"])?;
    ip(&[
        "-n",
        LAB_NS,
        "route",
        "add",
        "10.22.1.0/24",
        "dev",
        "mchaos1",
    ])?;
    let link = Link {
        outbound: Arc::default(),
        inbound: Arc::default(),
    };
    tokio::spawn(impair(
        relay_end.clone(),
        lab_end.clone(),
        1,
        link.outbound.clone(),
    ));
    tokio::spawn(impair(lab_end, relay_end, 2, link.inbound.clone()));
    Ok(link)
}

/// A `muster-lab` in the lab's namespace, bound to its end of the link.
fn lab(bin: &Path, args: &[&str]) -> anyhow::Result<Process> {
    let mut argv: Vec<String> = ["netns", "exec", LAB_NS].map(String::from).to_vec();
    argv.push(bin.join("muster-lab").display().to_string());
    argv.extend(["--host", LAB_SIDE].map(String::from));
    argv.extend(args.iter().map(|a| a.to_string()));
    // `ip netns exec` replaces itself with the program: the process is the lab's.
    start(PathBuf::from("ip"), &argv, "muster-lab:")
}

fn master_addr() -> String {
    format!("{LAB_SIDE}:{MASTER_PORT}")
}

fn fleet(bin: &Path) -> anyhow::Result<Process> {
    lab(
        bin,
        &[
            "--servers",
            &FLEET.to_string(),
            "--port",
            &FLEET_PORT.to_string(),
            "--master-port",
            &(MASTER_PORT + 1).to_string(),
            "--churn",
            "0",
            "--heartbeat-to",
            &master_addr(),
        ],
    )
}

fn match_server(bin: &Path, truth: &Path) -> anyhow::Result<Process> {
    let mut args = match_args(PLAYERS, MATCH_PORT, MASTER_PORT + 2, truth);
    args.extend(["--heartbeat-to".into(), master_addr()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    lab(bin, &args)
}

/// The relays, restartable, and the cluster's engines they join.
struct Site {
    relays: Relays,
    cluster: Option<(String, String)>,
}

impl Site {
    fn start_relay(&mut self, i: usize) -> anyhow::Result<()> {
        let mut args = relay_args_for(self.relays.ports[i], &master_addr(), &self.relays.dir);
        args.extend(
            [
                "--spectate-delay",
                "0",
                "--allow-private",
                "--master-interval",
                "10",
                "--refresh-interval",
                "5",
            ]
            .map(String::from),
        );
        match &self.cluster {
            Some((nats, database)) => args.extend([
                "--cluster".into(),
                nats.clone(),
                "--database".into(),
                database.clone(),
            ]),
            None => args.push("--no-history".into()),
        }
        self.relays.start(i, &args)
    }
}

/// What a viewer's socket showed: its match model sampled every 100 ms, and its keyframes.
#[derive(Default)]
struct Watched {
    views: Vec<(Instant, MatchView)>,
    keyframes: Vec<Instant>,
}

/// A viewer on `url` that reconnects when its socket ends, until `stop`.
async fn watch(url: String, watched: Arc<Mutex<Watched>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        if let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await {
            let mut view: Option<MatchView> = None;
            let mut sampled = Instant::now();
            while let Ok(Some(Ok(message))) =
                tokio::time::timeout(Duration::from_secs(1), socket.next()).await
            {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let Message::Binary(bytes) = message else {
                    continue;
                };
                match WatchMessage::decode(&bytes) {
                    Ok(WatchMessage::Keyframe { view: v, .. }) => {
                        watched.lock().unwrap().keyframes.push(Instant::now());
                        view = Some(v);
                    }
                    Ok(WatchMessage::Update { update, .. }) => {
                        if let Some(v) = view.as_mut() {
                            apply(v, &update);
                        }
                    }
                    _ => {}
                }
                if let Some(v) = &view {
                    if sampled.elapsed() >= Duration::from_millis(100) {
                        sampled = Instant::now();
                        watched.lock().unwrap().views.push((sampled, v.clone()));
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A viewer's record over a window: its coverage of the truth, the error of what it shows, and
/// whether its last view has the truth's players.
fn judge(watched: &Watched, since: Instant, truth: &Truth) -> Value {
    let views: Vec<MatchView> = watched
        .views
        .iter()
        .filter(|(at, _)| *at >= since)
        .map(|(_, v)| v.clone())
        .collect();
    let matched: Vec<&MatchView> = views
        .iter()
        .filter(|v| truth.contains_key(&v.server_time))
        .collect();
    let (covered, error) = coverage(&views, truth);
    let same_roster = matched.last().is_some_and(|v| {
        let shown: BTreeSet<u8> = v
            .players
            .iter()
            .filter(|p| p.team != Team::Spectator)
            .map(|p| p.client)
            .collect();
        let real: BTreeSet<u8> = truth[&v.server_time].iter().map(|s| s.0).collect();
        shown == real
    });
    json!({
        "views": views.len(),
        "views_in_truth": matched.len(),
        "coverage": round(covered, 3),
        "mean_position_error_units": round(error, 1),
        "roster_matches": same_roster,
        "met": covered >= COVERAGE_GOAL && same_roster,
    })
}

fn round(v: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (v * scale).round() / scale
}

/// A server's record without what legitimately differs between two queries: the ping, when
/// it was asked, who listed it, its players' pings and the `challenge` it echoes.
fn comparable(server: &Value) -> Value {
    let mut server = server.clone();
    if let Some(object) = server.as_object_mut() {
        for key in ["ping_ms", "reachability", "updated_ms", "sources"] {
            object.remove(key);
        }
        if let Some(cvars) = object.get_mut("cvars").and_then(Value::as_array_mut) {
            cvars.retain(|pair| pair[0] != "challenge");
        }
        if let Some(players) = object.get_mut("players").and_then(Value::as_array_mut) {
            for player in players {
                if let Some(p) = player.as_object_mut() {
                    p.remove("ping");
                }
            }
        }
    }
    server
}

/// What every fleet server says when asked from inside the lab's namespace, without the link.
fn lab_truth(bin: &Path) -> anyhow::Result<BTreeMap<String, Value>> {
    let out = Command::new("ip")
        .args(["netns", "exec", LAB_NS])
        .arg(bin.join("muster"))
        .args(["query", "--json"])
        .args((0..FLEET).map(|i| format!("{LAB_SIDE}:{}", usize::from(FLEET_PORT) + i)))
        .output()
        .context("muster query in the lab's namespace")?;
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).context("muster query --json")?;
    let mut truth = BTreeMap::new();
    for result in results {
        if result["outcome"] != "answered" {
            bail!("{} did not answer a lossless query", result["addr"]);
        }
        truth.insert(
            result["addr"].as_str().unwrap_or_default().to_owned(),
            comparable(&result["server"]),
        );
    }
    Ok(truth)
}

/// The fields in which `listed` differs from `expected`.
fn differences(listed: &Value, expected: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (listed.as_object(), expected.as_object()) else {
        return vec!["record".into()];
    };
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| k.to_string())
        .collect()
}

/// What the relay lists of the fleet.
#[derive(Default)]
struct Listed {
    /// Answered the latest refresh.
    online: usize,
    /// Listed with what it last said: online, or stale after one missed refresh.
    shown: usize,
    /// Shown exactly as the lab says.
    correct: usize,
    /// The fields that differed.
    differing: BTreeSet<String>,
    /// The first few differences, server, field, listed and true values, for the report.
    examples: Vec<Value>,
}

async fn listed(http: &str, truth: &BTreeMap<String, Value>) -> anyhow::Result<Listed> {
    let servers: Vec<Value> = reqwest::get(format!("http://{http}/api/servers"))
        .await?
        .json()
        .await?;
    let mut listed = Listed::default();
    for server in &servers {
        let Some(expected) = server["addr"].as_str().and_then(|a| truth.get(a)) else {
            continue;
        };
        let reachability = &server["reachability"];
        if reachability == "online" {
            listed.online += 1;
        }
        if reachability != "online" && reachability != "stale" && listed.examples.len() < 3 {
            listed
                .examples
                .push(json!({ "server": server["addr"], "reachability": reachability }));
        }
        if reachability == "online" || reachability == "stale" {
            listed.shown += 1;
            let shown = comparable(server);
            let differs = differences(&shown, expected);
            if differs.is_empty() {
                listed.correct += 1;
            }
            for field in &differs {
                if listed.examples.len() < 3 {
                    listed.examples.push(json!({
                        "server": server["addr"], "reachability": reachability, "field": field,
                        "listed": shown[field.as_str()], "lab": expected[field.as_str()],
                    }));
                }
            }
            listed.differing.extend(differs);
        }
    }
    Ok(listed)
}

/// Check 1: every 2 s over the window, the fleet as the page lists it. A refresh lost whole
/// (every attempt, both ways at 10%: about 0.7% of refreshes) shows a server stale, not down.
async fn check_servers(http: &str, bin: &Path) -> anyhow::Result<Value> {
    let truth = lab_truth(bin)?;
    let began = Instant::now();
    let (mut samples, mut least_online, mut least_shown, mut least_correct) =
        (0, usize::MAX, usize::MAX, usize::MAX);
    let (mut differing, mut examples) = (BTreeSet::new(), Vec::new());
    while began.elapsed() < WINDOW {
        let sample = listed(http, &truth).await?;
        least_online = least_online.min(sample.online);
        least_shown = least_shown.min(sample.shown);
        least_correct = least_correct.min(sample.correct);
        differing.extend(sample.differing);
        if examples.len() < 3 {
            examples.extend(sample.examples.into_iter().map(|mut e| {
                e["sample"] = json!(samples);
                e
            }));
        }
        samples += 1;
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Ok(json!({
        "servers": truth.len(),
        "samples": samples,
        "least_online": least_online,
        "least_shown": least_shown,
        "least_correct": least_correct,
        "fields_differing": differing,
        "differences": examples,
        "met": least_shown == FLEET && least_correct == FLEET,
    }))
}

async fn master_status(http: &str) -> anyhow::Result<Value> {
    let masters: Vec<Value> = reqwest::get(format!("http://{http}/api/masters"))
        .await?
        .json()
        .await?;
    masters
        .into_iter()
        .find(|m| m["addr"] == master_addr())
        .context("the relay does not show the lab's master")
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cluster = std::env::args().any(|a| a == "--cluster");
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-chaos-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let link = build_link()?;
    let outcome = run(&bin, &dir, cluster).await;
    let link_json = json!({
        "profile": {
            "loss": PROFILE.loss, "duplication": PROFILE.duplication,
            "delay_ms": [PROFILE.min_delay_ms, PROFILE.max_delay_ms],
            "by": "TUN devices and protocol::sim (no sch_netem in this kernel)",
        },
        "relay_to_lab": link.outbound.json(),
        "lab_to_relay": link.inbound.json(),
    });
    drop(link);
    let _ = std::fs::remove_dir_all(&dir);
    let mut result = match outcome {
        Ok(checks) => checks,
        Err(e) => json!({ "error": format!("{e:#}"), "passed": false }),
    };
    result["bench"] = json!("chaos");
    result["link"] = link_json;
    println!("{result}");
    if result["passed"] != true {
        std::process::exit(1);
    }
    Ok(())
}

async fn run(bin: &Path, dir: &Path, cluster: bool) -> anyhow::Result<Value> {
    let engines = if cluster {
        let env = |k: &str| std::env::var(k).map_err(|_| anyhow::anyhow!("{k} is not set"));
        Some((env("MUSTER_CHAOS_NATS")?, env("MUSTER_CHAOS_POSTGRES")?))
    } else {
        None
    };
    let relays = if cluster { 2 } else { 1 };
    let master = lab(
        bin,
        &["--servers", "0", "--master-port", &MASTER_PORT.to_string()],
    )?;
    let _fleet = fleet(bin)?;
    let truth_before = dir.join("truth-1.jsonl");
    let match_lab = match_server(bin, &truth_before)?;
    let mut site = Site {
        relays: Relays::new(bin.to_owned(), dir.to_owned(), relays),
        cluster: engines,
    };
    for i in 0..relays {
        site.start_relay(i)?;
    }
    let began = Instant::now();
    for i in 0..relays {
        wait_online(&site.relays.http(i), FLEET + 1, Duration::from_secs(120)).await?;
    }
    let listed_after_s = round(began.elapsed().as_secs_f64(), 1);
    let http = site.relays.http(0);
    eprintln!("chaos: the relay lists every server after {listed_after_s} s; checking answers");
    // One refresh first: a first answer that came without its status is being asked again.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let servers = check_servers(&http, bin).await?;

    eprintln!("chaos: watching the match");
    let match_addr = format!("{LAB_SIDE}:{MATCH_PORT}");
    let watched = Arc::new(Mutex::new(Watched::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let viewer = tokio::spawn(watch(
        format!("ws://{http}/spectate/{match_addr}"),
        watched.clone(),
        stop.clone(),
    ));
    // The first seconds are the join; the model is judged after it.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let window = Instant::now();
    tokio::time::sleep(WINDOW).await;
    let hub = judge(&watched.lock().unwrap(), window, &read_truth(&truth_before));

    eprintln!("chaos: killing the match server and starting it again");
    drop(match_lab);
    let truth_after = dir.join("truth-2.jsonl");
    let _match_lab = match_server(bin, &truth_after)?;
    let restarted = Instant::now();
    let rejoined = loop {
        let truth = read_truth(&truth_after);
        let seen = watched
            .lock()
            .unwrap()
            .views
            .iter()
            .find(|(at, v)| *at >= restarted && truth.contains_key(&v.server_time))
            .map(|(at, _)| *at);
        if let Some(at) = seen {
            break Some(at.duration_since(restarted));
        }
        if restarted.elapsed() > Duration::from_secs(90) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let restart = match rejoined {
        Some(after) => {
            let window = Instant::now();
            tokio::time::sleep(WINDOW).await;
            let mut judged = judge(&watched.lock().unwrap(), window, &read_truth(&truth_after));
            judged["rejoined_after_s"] = json!(round(after.as_secs_f64(), 2));
            judged
        }
        None => json!({ "rejoined_after_s": null, "met": false }),
    };

    let failover = if cluster {
        eprintln!("chaos: killing the relay that polls");
        Some(fail_over(&mut site, &match_addr).await?)
    } else {
        None
    };
    stop.store(true, Ordering::Relaxed);
    let _ = viewer.await;

    eprintln!("chaos: taking the master down");
    let http = site.relays.http(0);
    let fleet_truth = lab_truth(bin)?;
    drop(master);
    let killed = Instant::now();
    let failed = loop {
        let status = master_status(&http).await?;
        if status["state"] == "failed" {
            break Some((killed.elapsed(), status));
        }
        if killed.elapsed() > Duration::from_secs(40) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let master_down = match failed {
        Some((after, status)) => {
            // Two more refreshes of every server with no master to list them.
            tokio::time::sleep(Duration::from_secs(10)).await;
            let after_down = listed(&http, &fleet_truth).await?;
            let last_list = status["last_list"].as_u64().unwrap_or(0) as usize;
            json!({
                "shown_failed_after_s": round(after.as_secs_f64(), 1),
                "error": status["error"],
                "last_list": last_list,
                "online_after": after_down.online,
                "shown_after": after_down.shown,
                "correct_after": after_down.correct,
                "fields_differing": after_down.differing,
                "met": last_list == FLEET + 1
                    && after_down.shown == FLEET
                    && after_down.correct == FLEET,
            })
        }
        None => json!({ "shown_failed_after_s": null, "met": false }),
    };

    let passed = servers["met"] == true
        && hub["met"] == true
        && restart["met"] == true
        && failover.as_ref().is_none_or(|f| f["met"] == true)
        && master_down["met"] == true;
    Ok(json!({
        "relays": relays,
        "listed_every_server_after_s": listed_after_s,
        "servers": servers,
        "hub": hub,
        "restart": restart,
        "failover": failover,
        "master_down": master_down,
        "passed": passed,
    }))
}

/// Check 4: the poller's relay killed with SIGKILL; the other takes over, keeps every server
/// listed and its viewers watching; the killed one comes back and serves again.
async fn fail_over(site: &mut Site, match_addr: &str) -> anyhow::Result<Value> {
    let holder = site
        .relays
        .holder("poller")
        .await
        .context("nobody holds the poller")?;
    let survivor = (holder + 1) % site.relays.ports.len();
    let watched = Arc::new(Mutex::new(Watched::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let viewer = tokio::spawn(watch(
        format!("ws://{}/spectate/{match_addr}", site.relays.http(survivor)),
        watched.clone(),
        stop.clone(),
    ));
    tokio::time::sleep(Duration::from_secs(5)).await;
    let hub_holder = site
        .relays
        .holder(&format!("hub.{}", match_addr.replace(['.', ':'], "-")))
        .await;
    site.relays.kill(holder);
    let killed = Instant::now();
    let took_over = loop {
        if site.relays.holder("poller").await == Some(survivor) {
            break Some(killed.elapsed());
        }
        if killed.elapsed() > Duration::from_secs(30) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let window = Instant::now();
    tokio::time::sleep(WINDOW).await;
    let servers: Vec<Value> =
        reqwest::get(format!("http://{}/api/servers", site.relays.http(survivor)))
            .await?
            .json()
            .await?;
    let still_online = servers
        .iter()
        .filter(|s| s["reachability"] == "online" || s["reachability"] == "stale")
        .count();
    stop.store(true, Ordering::Relaxed);
    let _ = viewer.await;
    let truth = read_truth(&site.relays.dir.join("truth-2.jsonl"));
    let viewers = judge(&watched.lock().unwrap(), window, &truth);
    site.start_relay(holder)?;
    let back = Instant::now();
    wait_online(
        &site.relays.http(holder),
        FLEET + 1,
        Duration::from_secs(60),
    )
    .await?;
    let took = took_over.map(|d| round(d.as_secs_f64(), 2));
    Ok(json!({
        "killed": holder,
        "hub_was_on_killed_relay": hub_holder == Some(holder),
        "poller_taken_over_after_s": took,
        "shown_on_survivor": still_online,
        "viewer_on_survivor": viewers,
        "restarted_relay_lists_every_server_after_s": round(back.elapsed().as_secs_f64(), 1),
        "met": took_over.is_some_and(|d| d < Duration::from_secs(10))
            && still_online == FLEET + 1
            && viewers["met"] == true,
    }))
}
