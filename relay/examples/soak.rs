//! `cargo xtask soak --minutes M`: a 2,000-server lab fleet and the relay (with its history),
//! each its own process, held by 1,000 feed pages and 200 spectator viewers (on four matches)
//! from this one for M minutes, with a little churn (some pages and viewers leave and come back
//! every sample), as a public relay lives. Everything a relay keeps over time is on: the first
//! eight servers' matches are followed (written kill by kill, their plays found and cut as
//! clips), every hub keeps a rewind window, filled before the measured window opens, and 100
//! alert rules (match ends, highlights, player counts, names) deliver to a webhook receiver in
//! this process. Every 10 s it reads the relay's own `/metrics`: its resident memory, live
//! allocations, open descriptors, runtime tasks, and the rewind windows' bytes. The goal is
//! all flat after the warm-up: the last line printed is one JSON object with the samples'
//! trend, the first sample and the last, and what the relay did meanwhile (matches, plays,
//! clips, alerts delivered).
//!
//! Usage: soak [MINUTES] [PAGES] [VIEWERS] [SERVERS] [RELAY FLAGS...] (`--no-history`, say, to
//! tell the relay's own growth from its store's); MUSTER_BIN_DIR names the release binaries.

use std::path::PathBuf;
use std::sync::Arc;
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
/// Matches followed (the fleet's first servers, the watched ones among them).
const FOLLOWED: usize = 8;
/// The rewind window every hub keeps, in minutes: full before the measured window opens.
const REWIND_MINUTES: u64 = 10;
/// Alert rules, spread over the kinds that fire as the fleet lives.
const RULES: usize = 100;

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
    rewind_mib: f64,
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
        rewind_mib: value("muster_rewind_bytes") / (1024.0 * 1024.0),
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

/// Alerts the receiver took, by the rule's kind.
type Delivered = Arc<std::sync::Mutex<std::collections::BTreeMap<String, u64>>>;

/// A webhook receiver on 127.0.0.1: counts every alert delivered to it, by its rule's kind.
async fn receiver() -> anyhow::Result<(String, Delivered)> {
    let delivered = Delivered::default();
    let app = axum::Router::new().fallback({
        let delivered = delivered.clone();
        move |body: axum::body::Bytes| async move {
            let kind = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|event| event["rule"]["kind"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "unreadable".into());
            *delivered.lock().unwrap().entry(kind).or_default() += 1;
            "ok"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let at = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((at, delivered))
}

/// The soak's alert rules: each followed server's match ends and highlights, player counts on
/// servers that churn about them, and names seen (and leaving) across the fleet.
async fn make_rules(http: &str, base: u16, hook: &str) -> anyhow::Result<usize> {
    let servers: serde_json::Value = reqwest::get(format!("http://{http}/api/servers"))
        .await?
        .json()
        .await?;
    let names: Vec<String> = servers
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["players"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .take(RULES)
        .collect();
    let mut rules = Vec::new();
    for i in 0..FOLLOWED as u16 {
        let server = format!("127.0.0.1:{}", base + i);
        rules.push(json!({"kind": "match_end", "server": server}));
        rules.push(json!({"kind": "highlight", "server": server}));
    }
    let rest = RULES - rules.len();
    for i in 0..rest / 2 {
        let server = format!("127.0.0.1:{}", base + 100 + i as u16);
        rules.push(json!({"kind": "humans_at_least", "server": server, "n": 4}));
    }
    for name in names.iter().cycle().take(RULES - rules.len()) {
        rules.push(json!({"kind": "name_seen", "name": name, "leaves": true}));
    }
    let client = reqwest::Client::new();
    for rule in &rules {
        let response = client
            .post(format!("http://{http}/api/alerts"))
            .json(&json!({"rule": rule, "to": {"kind": "webhook", "url": hook}}))
            .send()
            .await?;
        anyhow::ensure!(
            response.status() == 201,
            "an alert rule refused: {}",
            response.text().await?
        );
    }
    Ok(rules.len())
}

/// What the relay did over the soak, read from its own API and metrics: the matches it wrote,
/// the plays it found and the clips it cut.
async fn work(http: &str) -> anyhow::Result<serde_json::Value> {
    let matches: serde_json::Value = reqwest::get(format!("http://{http}/api/matches?limit=500"))
        .await?
        .json()
        .await?;
    let text = reqwest::get(format!("http://{http}/metrics"))
        .await?
        .text()
        .await?;
    let samples = parse(&text);
    let count = |name: &str, outcome: Option<&str>| -> f64 {
        samples
            .iter()
            .filter(|s| s.name == name && (outcome.is_none() || s.label("outcome") == outcome))
            .map(|s| s.value)
            .sum()
    };
    Ok(json!({
        "matches_written": matches.as_array().map_or(0, Vec::len),
        "plays_kept": count("muster_highlights_plays_total", Some("kept")),
        "plays_dropped": count("muster_highlights_plays_total", Some("dropped")),
        "clips_cut": count("muster_highlights_clips_total", Some("clipped")),
        "clips_failed": count("muster_highlights_clips_total", Some("failed")),
        "alert_looks": count("muster_alert_looks_total", None),
        "rewind_windows": count("muster_rewind_windows", None),
    }))
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
    let (hook, delivered) = receiver().await?;
    let mut relay_args = bench_util::relay_args(http_port, master_port, &dir);
    relay_args.extend(
        [
            "--data-dir",
            &dir.join("data").display().to_string(),
            "--spectate-delay",
            "0",
            "--rewind-minutes",
            &REWIND_MINUTES.to_string(),
            "--alert-allow-host",
            "127.0.0.1",
            "--alert-rules-per-client",
            &RULES.to_string(),
        ]
        .map(String::from),
    );
    relay_args.extend(bench_util::follow_fleet(base, FOLLOWED, &dir)?);
    relay_args.extend(args.iter().skip(4).cloned());
    let _relay = start(bin.join("muster"), &relay_args, "muster: serving")?;
    let http = format!("127.0.0.1:{http_port}");
    wait_online(&http, servers * 9 / 10, Duration::from_secs(120)).await?;
    let rules = make_rules(&http, base, &hook).await?;
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
    // The warm-up fills every rewind window (a fifth of a long run), and leaves at least
    // half the run measured.
    let warmup = (total / 5)
        .max(Duration::from_secs(60 * REWIND_MINUTES + 60))
        .min(total / 2);
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
            "soak: {:>5.1} min  {:>7.1} MiB resident  {:>7.1} MiB allocated  {:>5} fds  {:>5} tasks  {:>6} players  {:>6.1} MiB rewind  {:>5} alerts",
            s.minute, s.resident_mib, s.allocated_mib, s.fds, s.tasks, s.players, s.rewind_mib,
            delivered.lock().unwrap().values().sum::<u64>()
        );
        samples.push(s);
    }
    let first = samples.first().map(|s| {
        json!({"minute": (s.minute * 10.0).round() / 10.0, "resident_mib": s.resident_mib.round(),
               "allocated_mib": s.allocated_mib.round(), "fds": s.fds, "tasks": s.tasks,
               "rewind_mib": s.rewind_mib.round()})
    });
    let last = samples.last().map(|s| {
        json!({"minute": (s.minute * 10.0).round() / 10.0, "resident_mib": s.resident_mib.round(),
               "allocated_mib": s.allocated_mib.round(), "fds": s.fds, "tasks": s.tasks,
               "rewind_mib": s.rewind_mib.round()})
    });
    let did = work(&http).await?;
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
    let rewind = trend(&after, |s| s.rewind_mib);
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
        "rewind_mib": rewind,
        "first_sample": first,
        "last_sample": last,
        "followed": FOLLOWED,
        "alert_rules": rules,
        "alerts_delivered": delivered.lock().unwrap().clone(),
        "relay_did": did,
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
