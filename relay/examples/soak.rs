//! `cargo xtask soak --minutes M`: a 2,000-server lab fleet and the relay (with its history),
//! each its own process, held by 1,000 feed pages and 200 spectator viewers (on four matches)
//! from this one for M minutes, with a little churn (some pages and viewers leave and come back
//! every sample), as a public relay lives. Every 10 s it reads the relay's own `/metrics`: its
//! resident memory, open descriptors and runtime tasks. The goal is all three flat after the
//! warm-up: the last line printed is one JSON object with the samples' trend.
//!
//! Usage: soak [MINUTES] [PAGES] [VIEWERS] [SERVERS] [RELAY FLAGS...] (`--no-history`, say, to
//! tell the relay's own growth from its store's); MUSTER_BIN_DIR names the release binaries.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bench_util::{free_tcp_port, start, start_fleet, wait_online};
use futures_util::StreamExt;
use relay::metrics::parse_exposition as parse;
use serde_json::json;
use tokio::task::JoinHandle;

mod bench_util;

const SAMPLE_EVERY: Duration = Duration::from_secs(10);
/// Matches the viewers are spread over (each is one hub, one game slot).
const MATCHES: usize = 4;
/// Pages and viewers that leave and come back at each sample.
const CHURN_PAGES: usize = 20;
const CHURN_VIEWERS: usize = 4;

/// A client that reads its socket until dropped (it counts nothing: the relay is measured).
fn client(url: String) -> JoinHandle<()> {
    tokio::spawn(async move {
        let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
            return;
        };
        while let Some(Ok(_)) = socket.next().await {}
    })
}

struct Sample {
    minute: f64,
    resident_mib: f64,
    /// Live allocations (jemalloc's count): flat while resident memory creeps means pages kept,
    /// not a leak.
    allocated_mib: f64,
    fds: f64,
    tasks: f64,
    /// Players the relay lists: the lab's churn is a bounded random walk that starts below its
    /// average, so the directory (and every keyframe a page is sent) grows for the first hour.
    players: f64,
}

async fn sample(http: &str, began: Instant) -> anyhow::Result<Sample> {
    let text = reqwest::get(format!("http://{http}/metrics"))
        .await?
        .text()
        .await?;
    let samples = parse(&text);
    let value = |name: &str| {
        samples
            .iter()
            .find(|s| s.name == name)
            .map_or(f64::NAN, |s| s.value)
    };
    Ok(Sample {
        minute: began.elapsed().as_secs_f64() / 60.0,
        resident_mib: value("muster_process_resident_memory_bytes") / (1024.0 * 1024.0),
        allocated_mib: value("muster_allocator_allocated_bytes") / (1024.0 * 1024.0),
        fds: value("muster_process_open_fds"),
        tasks: value("muster_runtime_tasks"),
        players: value("muster_players"),
    })
}

/// Least-squares slope of `y` over the samples' minutes.
fn slope(samples: &[Sample], y: impl Fn(&Sample) -> f64) -> f64 {
    let n = samples.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mx = samples.iter().map(|s| s.minute).sum::<f64>() / n;
    let my = samples.iter().map(&y).sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for s in samples {
        num += (s.minute - mx) * (y(s) - my);
        den += (s.minute - mx).powi(2);
    }
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

fn trend(samples: &[Sample], y: impl Fn(&Sample) -> f64 + Copy) -> serde_json::Value {
    let first = samples.first().map_or(f64::NAN, y);
    let last = samples.last().map_or(f64::NAN, y);
    let max = samples.iter().map(y).fold(f64::MIN, f64::max);
    json!({
        "after_warmup": (first * 10.0).round() / 10.0,
        "end": (last * 10.0).round() / 10.0,
        "max": (max * 10.0).round() / 10.0,
        "slope_per_minute": (slope(samples, y) * 100.0).round() / 100.0,
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg =
        |i: usize, default: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(default);
    let minutes = arg(0, 10).max(1);
    let (pages, viewers, servers) = (arg(1, 1000), arg(2, 200), arg(3, 2000));
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let base = 31000 + (std::process::id() % 20) as u16 * 1000;
    // The master right after the fleet, so no port handed out elsewhere falls inside it.
    let (master_port, http_port) = (base + servers as u16, free_tcp_port());
    let _lab = start_fleet(
        &bin,
        servers,
        base,
        master_port,
        &["--churn", "5", "--map-time", "120", "--list-eof"],
    )?;
    let mut relay_args = bench_util::relay_args(http_port, master_port, &dir);
    relay_args.extend(
        [
            "--data-dir",
            &dir.join("data").display().to_string(),
            "--spectate-delay",
            "0",
        ]
        .map(String::from),
    );
    relay_args.extend(args.iter().skip(4).cloned());
    let _relay = start(bin.join("muster"), &relay_args, "muster: serving")?;
    let http = format!("127.0.0.1:{http_port}");
    wait_online(&http, servers * 9 / 10, Duration::from_secs(120)).await?;
    let feed = format!("ws://{http}/ws");
    let watch = |i: usize| {
        format!(
            "ws://{http}/spectate/127.0.0.1:{}",
            base + (i % MATCHES) as u16
        )
    };
    let mut page_tasks: Vec<JoinHandle<()>> = Vec::new();
    for i in 0..pages {
        page_tasks.push(client(feed.clone()));
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let mut viewer_tasks: Vec<JoinHandle<()>> = (0..viewers).map(|i| client(watch(i))).collect();
    let began = Instant::now();
    let total = Duration::from_secs(60 * minutes as u64);
    let warmup = (total / 5).max(Duration::from_secs(60));
    let mut samples = Vec::new();
    let mut round = 0usize;
    while began.elapsed() < total {
        tokio::time::sleep(SAMPLE_EVERY).await;
        // Churn: the oldest few leave (their sockets close) and as many new ones arrive.
        for _ in 0..CHURN_PAGES.min(page_tasks.len()) {
            page_tasks.remove(0).abort();
            page_tasks.push(client(feed.clone()));
        }
        for _ in 0..CHURN_VIEWERS.min(viewer_tasks.len()) {
            viewer_tasks.remove(0).abort();
            round += 1;
            viewer_tasks.push(client(watch(round)));
        }
        let s = sample(&http, began).await?;
        eprintln!(
            "soak: {:>5.1} min  {:>7.1} MiB resident  {:>7.1} MiB allocated  {:>5} fds  {:>5} tasks  {:>6} players",
            s.minute, s.resident_mib, s.allocated_mib, s.fds, s.tasks, s.players
        );
        samples.push(s);
    }
    let after: Vec<Sample> = samples
        .into_iter()
        .filter(|s| s.minute >= warmup.as_secs_f64() / 60.0)
        .collect();
    // The second half alone: whether growth after the warm-up is settling or steady.
    let second_half = &after[after.len() / 2..];
    let late_memory = trend(second_half, |s| s.resident_mib);
    let late_allocated = trend(second_half, |s| s.allocated_mib);
    let memory = trend(&after, |s| s.resident_mib);
    let allocated = trend(&after, |s| s.allocated_mib);
    let fds = trend(&after, |s| s.fds);
    let tasks = trend(&after, |s| s.tasks);
    let players = trend(&after, |s| s.players);
    // Flat: over the measured window, no steady growth beyond a few percent of the level.
    let span = after.last().map_or(0.0, |s| s.minute) - after.first().map_or(0.0, |s| s.minute);
    let flat = |t: &serde_json::Value| {
        let level = t["after_warmup"].as_f64().unwrap_or(1.0).max(1.0);
        t["slope_per_minute"].as_f64().unwrap_or(0.0) * span <= 0.05 * level
    };
    let summary = json!({
        "soak_minutes": minutes,
        "pages": pages,
        "viewers": viewers,
        "servers": servers,
        "warmup_minutes": warmup.as_secs() / 60,
        "samples": after.len(),
        "resident_mib": memory,
        "allocated_mib": allocated,
        "open_fds": fds,
        "tasks": tasks,
        "players": players,
        "second_half": { "resident_mib": late_memory, "allocated_mib": late_allocated },
        "flat": {
            "memory": flat(&memory),
            "allocated": flat(&allocated),
            "fds": flat(&fds),
            "tasks": flat(&tasks),
        },
    });
    drop(page_tasks);
    drop(viewer_tasks);
    let _ = std::fs::remove_dir_all(&dir);
    println!("{summary}");
    Ok(())
}
