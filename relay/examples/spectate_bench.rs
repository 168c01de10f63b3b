//! `cargo xtask bench spectate`: a lab match with 32 players (writing its true match), the
//! relay with no broadcast delay as its own process, and WebSocket viewers in this one, in
//! steps of 1,000, 2,000 and 5,000 viewers. Measures the relay, not the machine: the relay runs
//! alone on the first CPU this process may use (`taskset -c`) and the load (this process, its
//! viewers and the lab) on the others, and each step reports how busy the load's CPUs were, so a
//! figure taken while the load side was saturated shows it.
//!
//! Per step: the relay's CPU per 1,000 viewers (its process's, and its CPU's busy and stolen
//! share: the kernel's loopback work for its sends is often not charged to it, and a virtual
//! machine's hypervisor may take the CPU away), its writes (one system call each) and frames per
//! viewer per second (from its `/metrics`), bytes per viewer per second, the latency from a
//! snapshot's arrival at the relay to its receipt by a viewer (p50, p99), the time from opening
//! a socket to the first keyframe, resyncs, memory per viewer, and the coverage and position
//! error of one viewer's model against the lab's truth. The last line printed is one JSON
//! object with the curve.
//!
//! Usage: spectate_bench [VIEWERS[,VIEWERS…]] [SECONDS]; MUSTER_BIN_DIR names the release
//! binaries.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_util::{
    allowed_cpus, coverage, cpu_seconds, cpu_ticks, free_port, free_tcp_port, match_args, metrics,
    pin_self, read_truth, rss_kib, start, start_relay_on, unix_us, wait_online,
};
use futures_util::StreamExt;
use protocol::relay_api::watch::{apply, MatchView, WatchMessage};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

const PLAYERS: usize = 32;
const WARM_UP: Duration = Duration::from_secs(3);
const STEPS: [usize; 3] = [1000, 2000, 5000];
/// `WatchMessage`'s variants as postcard numbers them: the first fields of a keyframe and an
/// update are their sequence and `relay_us`.
const KEYFRAME: u32 = 1;
const UPDATE: u32 = 2;

/// What one viewer measured inside the window.
#[derive(Default)]
struct Measured {
    /// From opening the socket to the first keyframe.
    join_us: Option<u64>,
    latencies_us: Vec<u64>,
    bytes: u64,
    resyncs: u64,
}

#[derive(Default)]
struct Window {
    open: bool,
    closed: bool,
}

/// A message's variant, and for a keyframe or update its `relay_us`, read from its first bytes
/// only: decoding every update whole in 5,000 viewers would make the bench, not the relay, the
/// slowest part. The viewer that keeps a model decodes whole and checks this agrees.
fn peek(bytes: &[u8]) -> Option<(u32, Option<u64>)> {
    let (variant, rest) = postcard::take_from_bytes::<u32>(bytes).ok()?;
    if variant != KEYFRAME && variant != UPDATE {
        return Some((variant, None));
    }
    let ((_seq, relay_us), _) = postcard::take_from_bytes::<(u64, u64)>(rest).ok()?;
    Some((variant, Some(relay_us)))
}

async fn viewer(
    url: String,
    window: Arc<Mutex<Window>>,
    model: Option<Arc<Mutex<Vec<MatchView>>>>,
) -> Measured {
    let mut measured = Measured::default();
    let opened = Instant::now();
    // A small read buffer, as a page's: tungstenite's default clears 128 KiB a read.
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let Ok((mut socket, _)) =
        tokio_tungstenite::connect_async_with_config(&url, Some(config), true).await
    else {
        return measured;
    };
    let mut keyframes = 0u64;
    let mut view: Option<MatchView> = None;
    let mut sampled = Instant::now();
    while let Some(Ok(message)) = socket.next().await {
        let (open, closed) = {
            let w = window.lock().unwrap();
            (w.open, w.closed)
        };
        if closed {
            break;
        }
        let Message::Binary(bytes) = message else {
            continue;
        };
        let received = unix_us();
        let Some((variant, relay_us)) = peek(&bytes) else {
            continue;
        };
        if open {
            measured.bytes += bytes.len() as u64;
        }
        match (variant, relay_us) {
            (UPDATE, Some(relay_us)) if open => {
                measured
                    .latencies_us
                    .push(received.saturating_sub(relay_us));
            }
            (KEYFRAME, _) => {
                measured
                    .join_us
                    .get_or_insert(opened.elapsed().as_micros() as u64);
                if keyframes > 0 && open {
                    measured.resyncs += 1;
                }
                keyframes += 1;
            }
            _ => {}
        }
        let Some(model) = &model else { continue };
        match WatchMessage::decode(&bytes) {
            Ok(WatchMessage::Update {
                relay_us: whole,
                update,
                ..
            }) => {
                assert_eq!(Some(whole), relay_us, "peek reads what decode reads");
                if let Some(v) = view.as_mut() {
                    apply(v, &update);
                }
            }
            Ok(WatchMessage::Keyframe { view: v, .. }) => view = Some(v),
            _ => {}
        }
        if let (Some(v), true) = (&view, open) {
            if sampled.elapsed() >= Duration::from_millis(100) {
                sampled = Instant::now();
                model.lock().unwrap().push(v.clone());
            }
        }
    }
    measured
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    (sorted[i] as f64 / 10.0).round() / 100.0
}

fn round(v: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (v * scale).round() / scale
}

/// Where the relay and its load run: the relay alone on one CPU, the load on the rest.
struct Pinning {
    relay: Option<usize>,
    load: Vec<usize>,
}

impl Pinning {
    /// Splits the CPUs this process may use; on one CPU (or without taskset) nothing is pinned.
    fn split() -> Self {
        let cpus = allowed_cpus();
        match cpus.split_first() {
            Some((&relay, load)) if !load.is_empty() && pin_self(load).is_ok() => Self {
                relay: Some(relay),
                load: load.to_vec(),
            },
            _ => Self {
                relay: None,
                load: cpus,
            },
        }
    }
}

/// The relay's figures at one moment: CPU seconds, frames and writes sent to viewers.
struct Reading {
    relay_cpu: f64,
    /// The relay's CPU (when pinned): busy, idle and stolen ticks.
    core: (u64, u64, u64),
    load_cpu: f64,
    frames: f64,
    writes: f64,
}

async fn reading(http: &str, pid: u32, core: Option<usize>) -> anyhow::Result<Reading> {
    let m = metrics(
        http,
        &[
            "muster_spectator_frames_total",
            "muster_spectator_writes_total",
        ],
    )
    .await?;
    Ok(Reading {
        relay_cpu: cpu_seconds(pid),
        core: core.map_or((0, 0, 0), cpu_ticks),
        load_cpu: cpu_seconds(std::process::id()),
        frames: m
            .get("muster_spectator_frames_total")
            .copied()
            .unwrap_or(0.0),
        writes: m
            .get("muster_spectator_writes_total")
            .copied()
            .unwrap_or(0.0),
    })
}

/// The relay under `viewers` viewers for `seconds`: one step of the curve.
async fn step(
    http: &str,
    url: &str,
    pid: u32,
    viewers: usize,
    seconds: u64,
    pinning: &Pinning,
    truth: &std::path::Path,
) -> anyhow::Result<Value> {
    let idle_rss = rss_kib(pid);
    let window = Arc::new(Mutex::new(Window::default()));
    let samples = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for i in 0..viewers {
        let model = (i == 0).then(|| samples.clone());
        tasks.push(tokio::spawn(viewer(url.to_owned(), window.clone(), model)));
        // Pages arrive over a second or two, not in one instant.
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tokio::time::sleep(WARM_UP).await;
    let before = reading(http, pid, pinning.relay).await?;
    let started = Instant::now();
    window.lock().unwrap().open = true;
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    window.lock().unwrap().open = false;
    let elapsed = started.elapsed().as_secs_f64();
    let after = reading(http, pid, pinning.relay).await?;
    let busy_rss = rss_kib(pid);
    let hubs: Value = reqwest::get(format!("http://{http}/api/spectate"))
        .await?
        .json()
        .await?;
    window.lock().unwrap().closed = true;
    let mut latencies = Vec::new();
    let mut joins = Vec::new();
    let (mut bytes, mut resyncs, mut measured_viewers) = (0u64, 0u64, 0u64);
    for task in tasks {
        // A viewer ends at its next message after the window closes.
        let Ok(Ok(m)) = tokio::time::timeout(Duration::from_secs(5), task).await else {
            continue;
        };
        if m.bytes > 0 {
            measured_viewers += 1;
        }
        bytes += m.bytes;
        resyncs += m.resyncs;
        latencies.extend(m.latencies_us);
        joins.extend(m.join_us);
    }
    latencies.sort_unstable();
    joins.sort_unstable();
    // The relay lets the viewers go before the next step.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (covered, position_error) = coverage(&samples.lock().unwrap(), &read_truth(truth));
    let relay_cores = (after.relay_cpu - before.relay_cpu) / elapsed;
    let per_viewer_s = viewers.max(1) as f64 * elapsed;
    let core = |pick: fn((u64, u64, u64)) -> u64| {
        let (b, a) = (before.core, after.core);
        let total = (a.0 + a.1 + a.2).saturating_sub(b.0 + b.1 + b.2).max(1) as f64;
        pinning
            .relay
            .map(|_| round(pick(a).saturating_sub(pick(b)) as f64 / total, 3))
    };
    Ok(json!({
        "viewers": viewers,
        "viewers_measured": measured_viewers,
        "hub_viewers_seen_by_relay": hubs[0]["viewers"],
        "seconds": round(elapsed, 1),
        "relay_cpu_cores": round(relay_cores, 3),
        "relay_cpu_per_1000_viewers": round(relay_cores * 1000.0 / viewers.max(1) as f64, 3),
        "relay_cpu_us_per_viewer_per_s": round(relay_cores * 1e6 / viewers.max(1) as f64, 1),
        "relay_core_busy": core(|t| t.0),
        "relay_core_stolen": core(|t| t.2),
        "load_cpu_busy": round((after.load_cpu - before.load_cpu) / elapsed / pinning.load.len().max(1) as f64, 3),
        "writes_per_viewer_per_s": round((after.writes - before.writes) / per_viewer_s, 2),
        "frames_per_viewer_per_s": round((after.frames - before.frames) / per_viewer_s, 2),
        "updates_per_viewer_per_s": round(latencies.len() as f64 / measured_viewers.max(1) as f64 / elapsed, 2),
        "bytes_per_viewer_per_s": (bytes as f64 / measured_viewers.max(1) as f64 / elapsed).round(),
        "latency_p50_ms": percentile(&latencies, 0.50),
        "latency_p99_ms": percentile(&latencies, 0.99),
        "join_to_keyframe_p50_ms": percentile(&joins, 0.50),
        "join_to_keyframe_p99_ms": percentile(&joins, 0.99),
        "resyncs": resyncs,
        "relay_kib_per_viewer": round((busy_rss - idle_rss) / viewers.max(1) as f64, 1),
        "coverage": round(covered, 3),
        "mean_position_error_units": round(position_error, 1),
    }))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: Vec<usize> = match args.first() {
        Some(list) => list
            .split(',')
            .map(|v| v.parse())
            .collect::<Result<_, _>>()
            .map_err(|_| anyhow::anyhow!("VIEWERS is a number or a list: 1000,2000,5000"))?,
        None => STEPS.to_vec(),
    };
    let seconds: u64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(20);
    // Pinned before the runtime's threads exist, so they and the lab start on the load's CPUs.
    let pinning = Pinning::split();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(pinning.load.len().max(1))
        .enable_all()
        .build()?;
    runtime.block_on(run(steps, seconds, pinning))
}

async fn run(steps: Vec<usize>, seconds: u64, pinning: Pinning) -> anyhow::Result<()> {
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-spectate-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let truth_path = dir.join("truth.jsonl");
    let (lab_port, master_port, http_port) = (free_port(), free_port(), free_tcp_port());
    let _lab = start(
        bin.join("muster-lab"),
        &match_args(PLAYERS, lab_port, master_port, &truth_path),
        "muster-lab:",
    )?;
    let relay = start_relay_on(
        pinning.relay,
        &bin,
        http_port,
        master_port,
        &dir,
        &["--spectate-delay", "0"],
    )?;
    let pid = relay.0.id();
    let server = format!("127.0.0.1:{lab_port}");
    let http = format!("127.0.0.1:{http_port}");
    wait_online(&http, 1, Duration::from_secs(60)).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let url = format!("ws://{http}/spectate/{server}");
    let mut curve = Vec::new();
    for &viewers in &steps {
        let figures = step(&http, &url, pid, viewers, seconds, &pinning, &truth_path).await?;
        eprintln!("spectate_bench: {figures}");
        curve.push(figures);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let at = |n: usize| curve.iter().find(|s| s["viewers"] == n);
    let p99 = |n: usize| at(n).and_then(|s| s["latency_p99_ms"].as_f64());
    let result = json!({
        "bench": "spectate",
        "players": PLAYERS,
        "pinned": pinning.relay.map(|cpu| json!({"relay_cpu": cpu, "load_cpus": pinning.load})),
        "steps": curve,
        "goals": {
            "latency_p99_ms_at_5000": 50, "latency_p99_ms_at_1000": 20,
            "bytes_per_viewer_per_s": 4096, "relay_kib_per_viewer": 50, "coverage": 0.9,
        },
        "met": {
            "latency_p99_at_5000": p99(5000).map(|ms| ms < 50.0),
            "latency_p99_at_1000": p99(1000).map(|ms| ms < 20.0),
            "one_core_at_5000": at(5000).and_then(|s| s["relay_cpu_cores"].as_f64()).map(|c| c < 1.0),
            "coverage": curve.iter().all(|s| s["coverage"].as_f64().is_some_and(|c| c >= 0.9)),
        },
    });
    println!("{result}");
    Ok(())
}
