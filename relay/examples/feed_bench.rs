//! `cargo xtask bench feed`: a 2,000-server lab fleet and the relay, each its own process, and
//! N pages on `/ws` in this one (50 every 0.2 s, as a community's page loads arrive). Measures the
//! first message on the wire, the relay's memory idle, with the pages and after they leave, its
//! CPU at steady state, bytes per page, and the latency from a server's answer (its `updated_ms`)
//! to the pages. The last line printed is one JSON object.
//!
//! Usage: feed_bench [PAGES] [SECONDS] [SERVERS]; MUSTER_BIN_DIR names the release binaries.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_util::{
    cpu_seconds, free_port, free_tcp_port, rss_kib, start_fleet, start_relay, unix_us, wait_online,
};
use futures_util::StreamExt;
use protocol::relay_api::feed::{FeedMessage, Field, Parts};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

/// One page in this many decodes every message for the latency figures.
const SAMPLE_EVERY: usize = 10;

#[derive(Default)]
struct Measured {
    decoded: bool,
    first_bytes: usize,
    first_ms: Option<f64>,
    bytes: u64,
    latencies_ms: Vec<u64>,
    keyframes: u64,
}

#[derive(Default)]
struct Window {
    open: bool,
    closed: bool,
}

/// A page; `decode` says whether it reads every message (a sample does, so the load client's
/// own CPU does not become what is measured) or only counts the bytes.
async fn page(url: String, window: Arc<Mutex<Window>>, decode: bool) -> Measured {
    let mut m = Measured {
        decoded: decode,
        ..Measured::default()
    };
    let opened = Instant::now();
    let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
        return m;
    };
    let mut parts = Parts::default();
    while let Some(Ok(message)) = socket.next().await {
        let (open, closed) = {
            let w = window.lock().unwrap();
            (w.open, w.closed)
        };
        if closed {
            break;
        }
        let Message::Binary(part) = message else {
            continue;
        };
        // The WebSocket frame: 2 bytes, plus 2 or 8 for the length.
        let header = match part.len() {
            0..=125 => 2,
            126..=65535 => 4,
            _ => 10,
        };
        if m.first_ms.is_none() {
            m.first_bytes += part.len() + header;
        }
        if open {
            m.bytes += part.len() as u64;
        }
        // Every page joins the parts (what it costs is the page's): only a sample decodes.
        let Some(Ok(bytes)) = parts.push(&part) else {
            continue;
        };
        let now_ms = unix_us() / 1000;
        if m.first_ms.is_none() {
            m.first_ms = Some(opened.elapsed().as_secs_f64() * 1000.0);
        }
        if !decode {
            continue;
        }
        match FeedMessage::decode(&bytes) {
            Ok(FeedMessage::Changes { added, changed, .. }) if open => {
                let times = added.iter().filter_map(|s| s.updated_ms).chain(
                    changed
                        .iter()
                        .flat_map(|c| &c.fields)
                        .filter_map(|f| match f {
                            Field::Seen(t) => *t,
                            _ => None,
                        }),
                );
                m.latencies_ms
                    .extend(times.map(|t| now_ms.saturating_sub(t)));
            }
            Ok(FeedMessage::Keyframe { .. }) => m.keyframes += 1,
            _ => {}
        }
    }
    m
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize] as f64
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pages: usize = args.first().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let seconds: u64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(20);
    let servers: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(2000);
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-feed-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    // Consecutive ports from a free one: the fleet binds BASE..BASE+N.
    let base = 31000 + (std::process::id() % 20) as u16 * 1000;
    let (master_port, http_port) = (free_port(), free_tcp_port());
    let _lab = start_fleet(
        &bin,
        servers,
        base,
        master_port,
        &["--churn", "5", "--seed", "13", "--list-eof"],
    )?;
    let relay = start_relay(
        &bin,
        http_port,
        master_port,
        &dir,
        &["--refresh-interval", "20"],
    )?;
    let pid = relay.0.id();
    let http = format!("127.0.0.1:{http_port}");
    wait_online(&http, servers, Duration::from_secs(60)).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_rss = rss_kib(pid);
    let window = Arc::new(Mutex::new(Window::default()));
    let url = format!("ws://{http}/ws");
    let mut tasks = Vec::new();
    let mut peak_rss: f64 = idle_rss;
    for i in 0..pages {
        let decode = i % SAMPLE_EVERY == 0;
        tasks.push(tokio::spawn(page(url.clone(), window.clone(), decode)));
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            peak_rss = peak_rss.max(rss_kib(pid));
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let cpu_before = cpu_seconds(pid);
    let started = Instant::now();
    window.lock().unwrap().open = true;
    for _ in 0..seconds {
        tokio::time::sleep(Duration::from_secs(1)).await;
        peak_rss = peak_rss.max(rss_kib(pid));
    }
    window.lock().unwrap().open = false;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(pid) - cpu_before) / elapsed;
    let with_pages_rss = rss_kib(pid);
    window.lock().unwrap().closed = true;
    let (mut first_bytes, mut first_ms, mut latencies) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bytes, mut measured, mut keyframes, mut sampled) = (0u64, 0u64, 0u64, 0u64);
    for task in tasks {
        let Ok(Ok(m)) = tokio::time::timeout(Duration::from_secs(10), task).await else {
            continue;
        };
        if m.first_ms.is_none() {
            continue;
        }
        measured += 1;
        first_bytes.push(m.first_bytes as u64);
        first_ms.push(m.first_ms.unwrap_or(0.0) as u64);
        bytes += m.bytes;
        keyframes += m.keyframes;
        sampled += u64::from(m.decoded);
        latencies.extend(m.latencies_ms);
    }
    for v in [&mut first_bytes, &mut first_ms, &mut latencies] {
        v.sort_unstable();
    }
    // Pages are gone; give the relay a moment to drop their state.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after_rss = rss_kib(pid);
    // A second wave of pages: the memory the first left behind is reused, not added to.
    let wave = Arc::new(Mutex::new(Window::default()));
    let mut second = Vec::new();
    for i in 0..pages {
        second.push(tokio::spawn(page(url.clone(), wave.clone(), false)));
        if i % 50 == 49 {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let second_rss = rss_kib(pid);
    wave.lock().unwrap().closed = true;
    for task in second {
        let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
    }
    let feed: Value = reqwest::get(format!("http://{http}/api/feed"))
        .await?
        .json()
        .await?;
    let _ = std::fs::remove_dir_all(&dir);
    let mib = |kib: f64| (kib / 1024.0 * 10.0).round() / 10.0;
    let first_kb = percentile(&first_bytes, 0.5) / 1000.0;
    let result = json!({
        "bench": "feed",
        "servers": servers,
        "pages": pages,
        "pages_measured": measured,
        "seconds": elapsed,
        "first_message_kb": first_kb,
        "first_message_p99_ms": percentile(&first_ms, 0.99),
        "relay_rss_idle_mib": mib(idle_rss),
        "relay_rss_peak_mib": mib(peak_rss),
        "relay_rss_with_pages_mib": mib(with_pages_rss),
        "relay_rss_after_mib": mib(after_rss),
        "relay_rss_second_wave_mib": mib(second_rss),
        "relay_cpu_cores": (cpu * 1000.0).round() / 1000.0,
        "bytes_per_page_per_s": (bytes as f64 / measured.max(1) as f64 / elapsed).round(),
        "update_latency_p50_ms": percentile(&latencies, 0.5),
        "update_latency_p99_ms": percentile(&latencies, 0.99),
        "updates_measured": latencies.len(),
        "keyframes_per_sampled_page": keyframes as f64 / sampled.max(1) as f64,
        "relay_feed": feed,
        "goals": {
            "first_message_kb": 150, "relay_rss_peak_mib": 150, "relay_cpu_cores": 0.15,
            "update_latency_p99_ms": 100, "relay_rss_after_over_idle_mib": 10,
        },
        "met": {
            "first_message": first_kb <= 150.0,
            "memory": mib(peak_rss) <= 150.0,
            // "Back near its idle size after they leave": within 10 MiB of idle.
            "memory_after": mib(after_rss - idle_rss) <= 10.0,
            "cpu": cpu < 0.15,
            "latency": percentile(&latencies, 0.99) < 100.0,
        },
    });
    println!("{result}");
    Ok(())
}
