//! `cargo xtask bench rewind`: a lab fleet of matches, the relay watching every one with its
//! rewind window filled, and viewers of whom a third go back to random moments of their
//! match's window, again and again. Measures the relay's memory per hub (and what the windows
//! hold, from `/metrics`), its CPU, the time from a seek to the keyframe that draws it,
//! bytes per viewer a second live and rewound, and, while they watch, the time to share a
//! moment (`POST /api/moments`, 30 s of a match: cut, described, drawn and stored in SQLite)
//! and its clip's bytes per second of play. The last line printed is one JSON object.
//!
//! Usage: rewind_bench [MATCHES] [VIEWERS] [PLAYERS] [WINDOW_MINUTES] [SECONDS]; the window is
//! filled (WINDOW_MINUTES and 10 s) before measuring. MUSTER_BIN_DIR names the release binaries.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bench_util::{
    cpu_seconds, free_port, free_tcp_port, percentile, relay_args, rss_kib, start, start_fleet,
    wait_online,
};
use futures_util::{SinkExt, StreamExt};
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::watch::{ViewerMessage, WatchMessage};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

/// How often a rewound viewer goes somewhere else in the window.
const SEEK_EVERY: Duration = Duration::from_secs(3);

#[derive(Default)]
struct Measured {
    bytes: u64,
    /// From sending a seek to its keyframe's arrival.
    seeks_ms: Vec<f64>,
    rewound: bool,
}

/// One viewer; a rewound one seeks to a random moment of `window` every few seconds. Counts
/// while `open`.
async fn viewer(
    url: String,
    rewound: bool,
    window: RewindWindow,
    [open, done]: [Arc<AtomicBool>; 2],
    seed: u64,
) -> Measured {
    let mut measured = Measured {
        rewound,
        ..Measured::default()
    };
    let Ok((socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return measured;
    };
    let (mut sink, mut stream) = socket.split();
    let mut state = seed | 1;
    let mut asked: Option<Instant> = None;
    let mut next_seek = tokio::time::Instant::now() + Duration::from_millis(seed % 3000);
    let span = window.end_us.saturating_sub(window.start_us).max(1);
    loop {
        let seek_due = tokio::time::sleep_until(next_seek);
        tokio::select! {
            message = stream.next() => {
                let Some(Ok(Message::Binary(bytes))) = message else {
                    if matches!(message, Some(Ok(_))) { continue }
                    break;
                };
                let counting = open.load(Ordering::Relaxed);
                if counting {
                    measured.bytes += bytes.len() as u64;
                }
                if let Ok(WatchMessage::Keyframe { .. }) = WatchMessage::decode(&bytes) {
                    if let Some(at) = asked.take() {
                        if counting {
                            measured.seeks_ms.push(at.elapsed().as_secs_f64() * 1000.0);
                        }
                    }
                }
            }
            _ = seek_due, if rewound => {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let relay_us = window.start_us + state % span;
                let seek = ViewerMessage::Seek { relay_us, speed_pct: 100 };
                asked = Some(Instant::now());
                if sink.send(Message::Binary(seek.encode().into())).await.is_err() {
                    break;
                }
                next_seek = tokio::time::Instant::now() + SEEK_EVERY;
            }
        }
        if done.load(Ordering::Relaxed) {
            break;
        }
    }
    measured
}

/// The figure a `/metrics` line gives for `name`, summed over its labels.
/// Shares 30 s moments of the matches in turn, one every half second, for `seconds`: how long
/// each took, and the clips' bytes per second of play.
async fn share_moments(http: String, servers: Vec<String>, seconds: u64) -> (Vec<f64>, f64) {
    let client = reqwest::Client::new();
    let until = Instant::now() + Duration::from_secs(seconds);
    let (mut took, mut bytes, mut played) = (Vec::new(), 0u64, 0.0);
    for server in servers.iter().cycle() {
        if Instant::now() >= until {
            break;
        }
        let asked = Instant::now();
        let made = client
            .post(format!("http://{http}/api/moments"))
            .json(&json!({"server": server, "from": -30, "to": 0}))
            .send()
            .await;
        let Ok(made) = made else { continue };
        if made.status() != 201 {
            eprintln!(
                "rewind_bench: a moment refused: {}",
                made.text().await.unwrap_or_default()
            );
            continue;
        }
        took.push(asked.elapsed().as_secs_f64() * 1000.0);
        let Ok(created) = made.json::<serde_json::Value>().await else {
            continue;
        };
        let id = created["id"].as_str().unwrap_or_default();
        if let Ok(detail) = client
            .get(format!("http://{http}/api/moments/{id}"))
            .send()
            .await
        {
            if let Ok(d) = detail.json::<serde_json::Value>().await {
                bytes += d["bytes"].as_u64().unwrap_or(0);
                let span = d["last_server_time"].as_i64().unwrap_or(0)
                    - d["first_server_time"].as_i64().unwrap_or(0);
                played += span as f64 / 1000.0;
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    (took, bytes as f64 / played.max(1e-9))
}

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(default);
    let (matches, viewers, players) = (arg(0, 50) as usize, arg(1, 1000) as usize, arg(2, 16));
    let (minutes, seconds) = (arg(3, 1), arg(4, 20));
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-rewind-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (base, master_port, http_port) = (free_port(), free_port(), free_tcp_port());
    let _lab = start_fleet(
        &bin,
        matches,
        base,
        master_port,
        &[
            "--players",
            &players.to_string(),
            "--churn",
            "0",
            "--map-time",
            "0",
        ],
    )?;
    let max_hubs = matches.to_string();
    let rewind_minutes = minutes.to_string();
    // A store for the moments (in the run's own directory: nothing from a run before).
    let mut args = relay_args(http_port, master_port, &dir);
    let data = dir.join("data").display().to_string();
    args.extend(
        [
            "--data-dir",
            &data,
            "--moment-per-hour",
            "1000000",
            "--spectate-delay",
            "0",
            "--max-hubs",
            &max_hubs,
            "--rewind-minutes",
            &rewind_minutes,
        ]
        .map(String::from),
    );
    let relay = start(bin.join("muster"), &args, "muster: serving")?;
    let pid = relay.0.id();
    let http = format!("127.0.0.1:{http_port}");
    wait_online(&http, matches, Duration::from_secs(120)).await?;
    let idle_rss = rss_kib(pid);
    let servers: Vec<String> = (0..matches)
        .map(|i| format!("127.0.0.1:{}", base + i as u16))
        .collect();
    // One live viewer a match fills every window while the fleet plays.
    let open = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let flags = || [open.clone(), done.clone()];
    let mut tasks = Vec::new();
    for server in &servers {
        let url = format!("ws://{http}/spectate/{server}");
        let empty = RewindWindow::default();
        tasks.push(tokio::spawn(viewer(url, false, empty, flags(), 0)));
    }
    let fill = Duration::from_secs(minutes * 60 + 10);
    eprintln!(
        "rewind_bench: filling {matches} windows for {} s",
        fill.as_secs()
    );
    tokio::time::sleep(fill).await;
    let filled_rss = rss_kib(pid);
    let metrics = reqwest::get(format!("http://{http}/metrics"))
        .await?
        .text()
        .await?;
    let window_bytes = metric(&metrics, "muster_rewind_bytes");
    let windows = metric(&metrics, "muster_rewind_windows");
    // The rest of the viewers: a third rewound at random moments of their match's window.
    for i in matches..viewers {
        let server = &servers[i % matches];
        let url = format!("ws://{http}/spectate/{server}");
        let rewound = i % 3 == 0;
        let window: RewindWindow =
            reqwest::get(format!("http://{http}/api/spectate/{server}/rewind"))
                .await?
                .json()
                .await?;
        let seed = i as u64 * 7919;
        tasks.push(tokio::spawn(viewer(url, rewound, window, flags(), seed)));
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let cpu_before = cpu_seconds(pid);
    let started = Instant::now();
    open.store(true, Ordering::Relaxed);
    let clips = tokio::spawn(share_moments(http.clone(), servers.clone(), seconds));
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    open.store(false, Ordering::Relaxed);
    let (clip_ms, clip_bytes_per_s) = clips.await?;
    done.store(true, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(pid) - cpu_before) / elapsed;
    let busy_rss = rss_kib(pid);
    let (mut seeks, mut live_bytes, mut rewound_bytes, mut live_n, mut rewound_n) =
        (Vec::new(), 0u64, 0u64, 0u64, 0u64);
    for task in tasks {
        // A viewer ends at its next message after the run.
        let Ok(Ok(m)) = tokio::time::timeout(Duration::from_secs(5), task).await else {
            continue;
        };
        if m.rewound {
            rewound_bytes += m.bytes;
            rewound_n += 1;
        } else {
            live_bytes += m.bytes;
            live_n += 1;
        }
        seeks.extend(m.seeks_ms);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let per_hub_window = window_bytes / windows.max(1.0);
    let seek_p95 = percentile(seeks.clone(), 0.95);
    let clip_p95 = percentile(clip_ms.clone(), 0.95);
    let result = json!({
        "bench": "rewind",
        "matches": matches,
        "players": players,
        "viewers": viewers,
        "window_minutes": minutes,
        "seconds": elapsed,
        "relay_rss_idle_mib": (idle_rss / 102.4).round() / 10.0,
        "relay_rss_filled_mib": (filled_rss / 102.4).round() / 10.0,
        "relay_rss_with_viewers_mib": (busy_rss / 102.4).round() / 10.0,
        "relay_rss_per_hub_mib": ((filled_rss - idle_rss) / 102.4 / matches as f64).round() / 10.0,
        "window_bytes_per_hub": per_hub_window.round(),
        "window_mb_per_hub_15_minutes": (per_hub_window * 15.0 / minutes.max(1) as f64 / 1e6 * 10.0).round() / 10.0,
        "relay_cpu_cores": (cpu * 1000.0).round() / 1000.0,
        "seeks": seeks.len(),
        "seek_to_keyframe_p50_ms": percentile(seeks.clone(), 0.5),
        "seek_to_keyframe_p95_ms": seek_p95,
        "bytes_per_live_viewer_per_s": (live_bytes as f64 / live_n.max(1) as f64 / elapsed).round(),
        "bytes_per_rewound_viewer_per_s": (rewound_bytes as f64 / rewound_n.max(1) as f64 / elapsed).round(),
        "clips": clip_ms.len(),
        "clip_create_p50_ms": percentile(clip_ms.clone(), 0.5),
        "clip_create_p95_ms": clip_p95,
        "clip_bytes_per_s_of_play": clip_bytes_per_s.round(),
        "goals": {"seek_to_keyframe_p95_ms": 200, "clip_create_p95_ms": 1000},
        "met": {"seek": seek_p95 < 200.0, "clip": clip_p95 < 1000.0},
    });
    println!("{result}");
    Ok(())
}
