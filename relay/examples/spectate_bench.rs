//! `cargo xtask bench spectate`: a lab match with 32 players (writing its true match), the
//! relay with no broadcast delay as its own process, and N WebSocket viewers in this one, all
//! on this machine. Measures the latency from a snapshot's arrival at the relay to its receipt
//! by the viewers, bytes per second per viewer, the relay's CPU and memory per viewer, and
//! coverage and position error against the lab's truth. The last line printed is one JSON
//! object.
//!
//! Usage: spectate_bench [VIEWERS] [SECONDS]; MUSTER_BIN_DIR names the release binaries.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_util::{
    coverage, cpu_seconds, free_port, free_tcp_port, match_args, read_truth, rss_kib, start,
    start_relay, unix_us, wait_online,
};
use futures_util::StreamExt;
use protocol::relay_api::watch::{apply, MatchView, WatchMessage};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

const PLAYERS: usize = 32;
const WARM_UP: Duration = Duration::from_secs(3);

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

async fn viewer(
    url: String,
    window: Arc<Mutex<Window>>,
    model: Option<Arc<Mutex<Vec<MatchView>>>>,
) -> Measured {
    let mut measured = Measured::default();
    let opened = Instant::now();
    let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return measured;
    };
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
        let Ok(decoded) = WatchMessage::decode(&bytes) else {
            continue;
        };
        if open {
            measured.bytes += bytes.len() as u64;
        }
        match decoded {
            WatchMessage::Update {
                relay_us, update, ..
            } => {
                if open {
                    measured
                        .latencies_us
                        .push(received.saturating_sub(relay_us));
                }
                if let Some(v) = view.as_mut() {
                    apply(v, &update);
                }
            }
            WatchMessage::Keyframe { view: v, .. } => {
                measured
                    .join_us
                    .get_or_insert(opened.elapsed().as_micros() as u64);
                if view.is_some() && open {
                    measured.resyncs += 1;
                }
                view = Some(v);
            }
            WatchMessage::Status(_) | WatchMessage::Playing { .. } => {}
        }
        if let (Some(model), Some(v), true) = (&model, &view, open) {
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
    sorted[i] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let viewers: usize = args.first().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let seconds: u64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(20);
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
    let relay = start_relay(
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
    let idle_rss = rss_kib(pid);
    let window = Arc::new(Mutex::new(Window::default()));
    let samples = Arc::new(Mutex::new(Vec::new()));
    let url = format!("ws://{http}/spectate/{server}");
    let mut tasks = Vec::new();
    for i in 0..viewers {
        let model = (i == 0).then(|| samples.clone());
        tasks.push(tokio::spawn(viewer(url.clone(), window.clone(), model)));
        // Pages arrive over a second or two, not in one instant.
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tokio::time::sleep(WARM_UP).await;
    let cpu_before = cpu_seconds(pid);
    let started = Instant::now();
    window.lock().unwrap().open = true;
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    window.lock().unwrap().open = false;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(pid) - cpu_before) / elapsed;
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
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after_rss = rss_kib(pid);
    let truth = read_truth(&truth_path);
    let (covered, position_error) = coverage(&samples.lock().unwrap(), &truth);
    let _ = std::fs::remove_dir_all(&dir);
    let per_viewer_bps = bytes as f64 / measured_viewers.max(1) as f64 / elapsed;
    let per_viewer_kib = (busy_rss - idle_rss) / viewers.max(1) as f64;
    let result = json!({
        "bench": "spectate",
        "viewers": viewers,
        "viewers_measured": measured_viewers,
        "players": PLAYERS,
        "seconds": elapsed,
        "join_to_keyframe_p50_ms": percentile(&joins, 0.50),
        "join_to_keyframe_p99_ms": percentile(&joins, 0.99),
        "latency_p50_ms": percentile(&latencies, 0.50),
        "latency_p99_ms": percentile(&latencies, 0.99),
        "updates_per_viewer_per_s": latencies.len() as f64 / measured_viewers.max(1) as f64 / elapsed,
        "bytes_per_viewer_per_s": per_viewer_bps.round(),
        "resyncs": resyncs,
        "relay_cpu_cores": (cpu * 1000.0).round() / 1000.0,
        "relay_rss_idle_mib": (idle_rss / 1024.0 * 10.0).round() / 10.0,
        "relay_rss_with_viewers_mib": (busy_rss / 1024.0 * 10.0).round() / 10.0,
        "relay_rss_after_mib": (after_rss / 1024.0 * 10.0).round() / 10.0,
        "relay_kib_per_viewer": (per_viewer_kib * 10.0).round() / 10.0,
        "coverage": (covered * 1000.0).round() / 1000.0,
        "mean_position_error_units": (position_error * 10.0).round() / 10.0,
        "hub_viewers_seen_by_relay": hubs[0]["viewers"],
        "goals": {
            "latency_p99_ms": 50, "bytes_per_viewer_per_s": 4096,
            "relay_kib_per_viewer": 50, "coverage": 0.9,
        },
        "met": {
            "latency_p99": percentile(&latencies, 0.99) < 50.0,
            "bytes_per_viewer": per_viewer_bps <= 4096.0,
            "memory_per_viewer": per_viewer_kib < 50.0,
            "coverage": covered >= 0.9,
        },
    });
    println!("{result}");
    Ok(())
}
