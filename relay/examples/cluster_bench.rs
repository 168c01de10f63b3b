//! `cargo xtask bench cluster`: three relays as one site on NATS (JetStream) and PostgreSQL,
//! a lab fleet whose first server hosts a 32-player match, VIEWERS WebSocket viewers of that
//! match spread over the three relays and PAGES feed pages, all on this machine. Measures:
//!
//! - the latency from the match's snapshot reaching the hub to a viewer receiving it, for
//!   viewers on the hub's own relay and on the two others (whose frames cross the bus), and
//!   the difference at p50 and p99: what the bus adds;
//! - the bytes and messages NATS carries a second (its own `/varz` counters) with a tenth of
//!   the viewers and with all of them, beside what the relays published (`/api/cluster`): the
//!   bus carries each frame once per relay, whatever the audience. The match's frames grow as
//!   it gets going, so bytes are compared per byte published;
//! - how long a viewer on a relay without the game slot waits for its first keyframe;
//! - each relay's CPU and memory;
//! - the time another relay takes over the poller, and a hub (until viewers elsewhere have a
//!   fresh keyframe), after SIGKILL, several runs each.
//!
//! Usage: cluster_bench [VIEWERS] [PAGES] [SECONDS]; MUSTER_BIN_DIR names the release
//! binaries, MUSTER_BENCH_LEASE_TTL the relays' `--lease-ttl`, MUSTER_BENCH_KEEP keeps the relays' logs, MUSTER_BENCH_NATS, MUSTER_BENCH_NATS_MONITOR and MUSTER_BENCH_POSTGRES the
//! engines `cargo xtask bench cluster` started. The last line printed is one JSON object.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_util::{cpu_seconds, free_port, rss_kib, start_endless_lab, unix_us, Relays, Site};
use futures_util::StreamExt;
use protocol::relay_api::watch::WatchMessage;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

const RELAYS: usize = 3;
const PLAYERS: usize = 32;
const SERVERS: usize = 50;
const WARM_UP: Duration = Duration::from_secs(3);
const FAILOVER_RUNS: usize = 3;

#[derive(Default)]
struct Window {
    open: AtomicBool,
    closed: AtomicBool,
}

/// What one sampled viewer measured inside the window.
#[derive(Default)]
struct Measured {
    relay: usize,
    /// From opening the socket to the first keyframe.
    join_us: Option<u64>,
    latencies_us: Vec<u64>,
    bytes: u64,
}

/// A viewer: every one counts its bytes; a sampled one decodes and times each update.
async fn viewer(url: String, relay: usize, sampled: bool, window: Arc<Window>) -> Measured {
    let mut measured = Measured {
        relay,
        ..Measured::default()
    };
    let opened = Instant::now();
    let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return measured;
    };
    while let Some(Ok(message)) = socket.next().await {
        if window.closed.load(Ordering::Relaxed) {
            break;
        }
        let Message::Binary(bytes) = message else {
            continue;
        };
        if measured.join_us.is_none()
            && matches!(
                WatchMessage::decode(&bytes),
                Ok(WatchMessage::Keyframe { .. })
            )
        {
            measured.join_us = Some(opened.elapsed().as_micros() as u64);
        }
        if !window.open.load(Ordering::Relaxed) {
            continue;
        }
        measured.bytes += bytes.len() as u64;
        if !sampled {
            continue;
        }
        let received = unix_us();
        if let Ok(WatchMessage::Update { relay_us, .. }) = WatchMessage::decode(&bytes) {
            measured
                .latencies_us
                .push(received.saturating_sub(relay_us));
        }
    }
    measured
}

/// A feed page: reads and counts.
async fn page(url: String, bytes: Arc<AtomicU64>, window: Arc<Window>) {
    let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return;
    };
    while let Some(Ok(message)) = socket.next().await {
        if window.closed.load(Ordering::Relaxed) {
            break;
        }
        if window.open.load(Ordering::Relaxed) {
            bytes.fetch_add(message.len() as u64, Ordering::Relaxed);
        }
    }
}

/// What a probe viewer saw of one hub failover.
#[derive(Default)]
struct Seen {
    /// When it first received a frame the new hub stamped after the kill.
    fresh: Option<Instant>,
    /// The last sequence it held before the kill, and the first fresh frame's (kind, sequence).
    last_seq: u64,
    first_fresh: Option<(&'static str, u64)>,
}

/// A probe viewer for hub failovers: notes when it first receives a frame its hub stamped
/// (`relay_us`, the hub's clock) after `killed_us`: only the relay that took the game slot
/// over stamps frames after the kill, whatever sequence it starts from.
async fn probe(url: String, killed_us: Arc<AtomicU64>, seen: Arc<Mutex<Seen>>) {
    let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return;
    };
    while let Some(Ok(message)) = socket.next().await {
        let Message::Binary(bytes) = message else {
            continue;
        };
        let (kind, seq, relay_us) = match WatchMessage::decode(&bytes) {
            Ok(WatchMessage::Keyframe { seq, relay_us, .. }) => ("keyframe", seq, relay_us),
            Ok(WatchMessage::Update { seq, relay_us, .. }) => ("update", seq, relay_us),
            _ => continue,
        };
        let killed = killed_us.load(Ordering::Relaxed);
        let mut seen = seen.lock().unwrap();
        if killed == 0 || relay_us <= killed {
            seen.last_seq = seq;
        } else if seen.fresh.is_none() {
            seen.fresh = Some(Instant::now());
            seen.first_fresh = Some((kind, seq));
            return;
        }
    }
}

/// Waits until a viewer at `url` receives updates.
async fn flowing(url: &str) -> anyhow::Result<()> {
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Ok(Some(Ok(Message::Binary(bytes)))) => {
                if matches!(
                    WatchMessage::decode(&bytes),
                    Ok(WatchMessage::Update { .. })
                ) {
                    return Ok(());
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => anyhow::bail!("no update reached a viewer on another relay"),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Bus {
    msgs: f64,
    bytes: f64,
}

async fn bus(monitor: &str) -> Bus {
    let varz: Value = match reqwest::get(format!("http://127.0.0.1:{monitor}/varz")).await {
        Ok(reply) => reply.json().await.unwrap_or_default(),
        Err(_) => Value::Null,
    };
    let n = |k: &str| varz[k].as_f64().unwrap_or(0.0);
    Bus {
        msgs: n("in_msgs") + n("out_msgs"),
        bytes: n("in_bytes") + n("out_bytes"),
    }
}

/// Every relay's `/api/cluster` counters added up.
async fn published(https: &[String]) -> BTreeMap<String, f64> {
    let mut sum = BTreeMap::new();
    for http in https {
        let Ok(reply) = reqwest::get(format!("http://{http}/api/cluster")).await else {
            continue;
        };
        let status: Value = reply.json().await.unwrap_or_default();
        for (k, v) in status["counters"].as_object().into_iter().flatten() {
            *sum.entry(k.clone()).or_default() += v.as_f64().unwrap_or(0.0);
        }
    }
    sum
}

/// NATS's traffic a second over `seconds`, and what the relays say they published a second.
async fn bus_rate(monitor: &str, https: &[String], seconds: f64) -> (Bus, Value) {
    let (before, said) = (bus(monitor).await, published(https).await);
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    let (after, now) = (bus(monitor).await, published(https).await);
    let rates: serde_json::Map<String, Value> = now
        .iter()
        .map(|(k, v)| {
            let rate = round((v - said.get(k).copied().unwrap_or(0.0)) / seconds, 2);
            (k.clone(), json!(rate))
        })
        .collect();
    let bus = Bus {
        msgs: ((after.msgs - before.msgs) / seconds).round(),
        bytes: ((after.bytes - before.bytes) / seconds).round(),
    };
    (bus, Value::Object(rates))
}

fn percentile_ms(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    (sorted[i] as f64 / 100.0).round() / 10.0
}

fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

async fn wait_online(http: &str, count: usize) -> anyhow::Result<()> {
    bench_util::wait_online(http, count, Duration::from_secs(90)).await
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let viewers: usize = args.first().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let pages: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(3000);
    let seconds: u64 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(20);
    let env = |k: &str| std::env::var(k).map_err(|_| anyhow::anyhow!("{k} is not set"));
    let nats = env("MUSTER_BENCH_NATS")?;
    let monitor = env("MUSTER_BENCH_NATS_MONITOR")?;
    let database = env("MUSTER_BENCH_POSTGRES")?;
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-cluster-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (lab_port, master_port) = (free_port(), free_port());
    let _lab = start_endless_lab(&bin, SERVERS, PLAYERS, lab_port, master_port)?;
    let mut site = Site {
        relays: Relays::new(bin, dir.clone(), RELAYS),
        master_port,
        nats,
        database,
    };
    for i in 0..RELAYS {
        site.start_relay(i)?;
    }
    for i in 0..RELAYS {
        wait_online(&site.relays.http(i), SERVERS).await?;
    }
    let server = format!("127.0.0.1:{lab_port}");
    let lease = format!("hub.{}", server.replace(['.', ':'], "-"));
    let window = Arc::new(Window::default());
    let https: Vec<String> = (0..RELAYS).map(|i| site.relays.http(i)).collect();
    let url = |relay: usize| format!("ws://{}/spectate/{server}", https[relay]);
    let idle_rss: Vec<f64> = (0..RELAYS).map(|i| rss_kib(site.relays.pid(i))).collect();

    // A tenth of the audience first, the hub on relay 0 (its first viewer's).
    let few = (viewers / 10).max(RELAYS);
    let mut tasks = Vec::new();
    let open_viewers = |range: std::ops::Range<usize>, tasks: &mut Vec<_>| {
        for i in range {
            let relay = i % RELAYS;
            let sampled = i % 10 == 0 || i < 30;
            tasks.push(tokio::spawn(viewer(
                url(relay),
                relay,
                sampled,
                window.clone(),
            )));
        }
    };
    open_viewers(0..1, &mut tasks);
    let owner = site.wait_holder(&lease, Duration::from_secs(10)).await?;
    open_viewers(1..few, &mut tasks);
    // Measured once the match flows to a viewer on another relay.
    flowing(&url((owner + 1) % RELAYS)).await?;
    tokio::time::sleep(WARM_UP).await;
    let (bus_few, said_few) = bus_rate(&monitor, &https, seconds as f64 / 2.0).await;

    // Then everyone, and the feed pages.
    for chunk in (few..viewers).collect::<Vec<_>>().chunks(100) {
        open_viewers(chunk[0]..chunk[chunk.len() - 1] + 1, &mut tasks);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let page_bytes = Arc::new(AtomicU64::new(0));
    let mut page_tasks = Vec::new();
    for i in 0..pages {
        let feed = format!("ws://{}/ws", site.relays.http(i % RELAYS));
        page_tasks.push(tokio::spawn(page(feed, page_bytes.clone(), window.clone())));
        if i % 100 == 99 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tokio::time::sleep(WARM_UP).await;
    let cpu_before: Vec<f64> = (0..RELAYS)
        .map(|i| cpu_seconds(site.relays.pid(i)))
        .collect();
    let started = Instant::now();
    window.open.store(true, Ordering::Relaxed);
    let (bus_all, said_all) = bus_rate(&monitor, &https, seconds as f64).await;
    window.open.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let cpu: Vec<f64> = (0..RELAYS)
        .map(|i| {
            round(
                (cpu_seconds(site.relays.pid(i)) - cpu_before[i]) / elapsed,
                3,
            )
        })
        .collect();
    let busy_rss: Vec<f64> = (0..RELAYS)
        .map(|i| round(rss_kib(site.relays.pid(i)) / 1024.0, 1))
        .collect();
    window.closed.store(true, Ordering::Relaxed);
    let (mut local, mut remote, mut joins) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bytes, mut measured) = (0u64, 0u64);
    for task in tasks {
        let Ok(Ok(m)) = tokio::time::timeout(Duration::from_secs(5), task).await else {
            continue;
        };
        if m.bytes > 0 {
            measured += 1;
        }
        bytes += m.bytes;
        if m.relay == owner {
            local.extend(m.latencies_us);
        } else {
            remote.extend(m.latencies_us);
            joins.extend(m.join_us);
        }
    }
    for task in page_tasks {
        task.abort();
    }
    local.sort_unstable();
    remote.sort_unstable();
    joins.sort_unstable();

    // Failovers: the poller's relay, then the hub's, killed with SIGKILL and restarted.
    let mut poller_failover = Vec::new();
    for _ in 0..FAILOVER_RUNS {
        let holder = site.wait_holder("poller", Duration::from_secs(20)).await?;
        let killed = Instant::now();
        site.relays.kill(holder);
        site.wait_holder("poller", Duration::from_secs(30)).await?;
        poller_failover.push(round(killed.elapsed().as_secs_f64(), 2));
        site.start_relay(holder)?;
        wait_online(&site.relays.http(holder), SERVERS).await?;
    }
    let mut hub_failover = Vec::new();
    for run in 0..FAILOVER_RUNS {
        let killed_us = Arc::new(AtomicU64::new(0));
        let mut probes = Vec::new();
        for i in 0..RELAYS * 5 {
            let seen = Arc::new(Mutex::new(Seen::default()));
            let task = tokio::spawn(probe(url(i % RELAYS), killed_us.clone(), seen.clone()));
            probes.push((i % RELAYS, seen, task));
        }
        let holder = site.wait_holder(&lease, Duration::from_secs(20)).await?;
        // Measured on the relays that survive: the viewers of the killed one reconnect.
        probes.retain(|(relay, _, task)| {
            if *relay == holder {
                task.abort();
            }
            *relay != holder
        });
        tokio::time::sleep(WARM_UP).await;
        let killed = Instant::now();
        killed_us.store(unix_us(), Ordering::Relaxed);
        site.relays.kill(holder);
        let deadline = killed + Duration::from_secs(30);
        let all_fresh = || {
            probes
                .iter()
                .all(|(_, seen, _)| seen.lock().unwrap().fresh.is_some())
        };
        while !all_fresh() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut latest = Some(0.0f64);
        let mut told = Vec::new();
        for (relay, seen, task) in probes {
            task.abort();
            let seen = seen.lock().unwrap();
            let took = seen
                .fresh
                .map(|at| round(at.duration_since(killed).as_secs_f64(), 2));
            told.push(format!(
                "relay {relay}: seq {} then {:?} at {took:?} s",
                seen.last_seq, seen.first_fresh
            ));
            latest = latest.zip(took).map(|(a, b)| a.max(b));
        }
        told.dedup();
        eprintln!(
            "cluster_bench: hub failover {run}, relay {holder} killed: {}",
            told.join("; ")
        );
        hub_failover.push(latest.map(|t| round(t, 2)));
        site.start_relay(holder)?;
        wait_online(&site.relays.http(holder), SERVERS).await?;
    }
    if std::env::var_os("MUSTER_BENCH_KEEP").is_some() {
        eprintln!("relay logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }

    let added_p50 = round(percentile_ms(&remote, 0.5) - percentile_ms(&local, 0.5), 1);
    let added_p99 = round(
        percentile_ms(&remote, 0.99) - percentile_ms(&local, 0.99),
        1,
    );
    let worst_poller = poller_failover.iter().cloned().fold(0.0, f64::max);
    let worst_hub = hub_failover
        .iter()
        .map(|t| t.unwrap_or(f64::INFINITY))
        .fold(0.0, f64::max);
    // The match's frames grow as it gets going, so the two windows are compared by what the
    // bus carried per byte the relays published, and by messages a second.
    let per_published = |bus: Bus, said: &Value| {
        round(
            bus.bytes / said["published_bytes"].as_f64().unwrap_or(0.0).max(1.0),
            2,
        )
    };
    let (amplified_few, amplified_all) = (
        per_published(bus_few, &said_few),
        per_published(bus_all, &said_all),
    );
    let bus_ratio = round(amplified_all / amplified_few.max(0.01), 2);
    let msgs_ratio = round(bus_all.msgs / bus_few.msgs.max(1.0), 2);
    let result = json!({
        "bench": "cluster",
        "relays": RELAYS,
        "viewers": viewers,
        "viewers_measured": measured,
        "pages": pages,
        "players": PLAYERS,
        "servers": SERVERS,
        "seconds": round(elapsed, 1),
        "hub_to_viewer_same_relay_p50_ms": percentile_ms(&local, 0.5),
        "hub_to_viewer_same_relay_p99_ms": percentile_ms(&local, 0.99),
        "hub_to_viewer_other_relay_p50_ms": percentile_ms(&remote, 0.5),
        "hub_to_viewer_other_relay_p99_ms": percentile_ms(&remote, 0.99),
        "join_to_keyframe_other_relay_p50_ms": percentile_ms(&joins, 0.5),
        "join_to_keyframe_other_relay_p99_ms": percentile_ms(&joins, 0.99),
        "bus_added_p50_ms": added_p50,
        "bus_added_p99_ms": added_p99,
        "bus_bytes_per_s_tenth_of_viewers": bus_few.bytes,
        "bus_bytes_per_s_all_viewers": bus_all.bytes,
        "bus_msgs_per_s_all_viewers": bus_all.msgs,
        "bus_msgs_per_s_tenth_of_viewers": bus_few.msgs,
        "bus_bytes_per_published_byte_tenth": amplified_few,
        "bus_bytes_per_published_byte_all": amplified_all,
        "bus_bytes_ratio_all_to_tenth": bus_ratio,
        "bus_msgs_ratio_all_to_tenth": msgs_ratio,
        "published_per_s_tenth_of_viewers": said_few,
        "published_per_s_all_viewers": said_all,
        "bytes_per_viewer_per_s": (bytes as f64 / measured.max(1) as f64 / elapsed).round(),
        "page_bytes_per_s": (page_bytes.load(Ordering::Relaxed) as f64 / elapsed).round(),
        "relay_cpu_cores": cpu,
        "relay_rss_idle_mib": idle_rss.iter().map(|k| round(k / 1024.0, 1)).collect::<Vec<_>>(),
        "relay_rss_busy_mib": busy_rss,
        "hub_relay": owner,
        "poller_failover_s": poller_failover,
        "hub_failover_s": hub_failover,
        "goals": {
            "bus_added_p99_ms": 50, "failover_s": 10,
            "bus_bytes_ratio_all_to_tenth": 1.1, "bus_msgs_ratio_all_to_tenth": 1.1,
        },
        "met": {
            "bus_added_p99": added_p99 < 50.0,
            "failover": worst_poller < 10.0 && worst_hub < 10.0,
            "bus_independent_of_viewers": bus_ratio <= 1.1 && msgs_ratio <= 1.1,
        },
    });
    println!("{result}");
    Ok(())
}
