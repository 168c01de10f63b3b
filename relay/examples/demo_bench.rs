//! `cargo xtask bench demo`: demo decode speed, natively and in the page's wasm in Chromium.
//!
//! A long demo is recorded first, in virtual time: `cod::client` recording a lab server's
//! 32-player match (the lab's own sans-IO sessions), so ten minutes of match take seconds.
//! Natively it is decoded whole (`cod::watch::timeline`: records, Huffman, service records,
//! snapshots and the match model, keeping seek positions) and, apart, read record by record
//! with only the Huffman stage; seeks are timed. In Chromium the page opens the same file from
//! a relay (`/playback/#/demo/NAME`) and its session worker reports how long the whole decode took.
//! The record bodies are also written out (u32 length, bytes) for the Huffman peer
//! comparison xtask runs beside this. The last line printed is one JSON object.
//!
//! Usage: demo_bench [SECONDS]; MUSTER_DIST names the built page.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use lab::sessions::{SessionConfig, Sessions};
use lab::ServerProfile;
use protocol::cod::client::{Client, ClientConfig, DemoOutput, State};
use protocol::cod::demo::Records;
use protocol::cod::watch::spectator::SpectatorInput;
use protocol::cod::watch::timeline::Timeline;
use rand::SeedableRng;
use relay::{PollerConfig, Relay, ServeConfig};
use serde_json::json;

/// jemalloc, as the relay runs, so its statistics can say what a decoded demo holds.
#[path = "../tests/common/browser.rs"]
#[allow(
    dead_code,
    reason = "the page tests' browser; this bench needs only a plain one"
)]
mod browser;

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Bytes allocated and not yet freed.
fn allocated() -> f64 {
    let _ = tikv_jemalloc_ctl::epoch::advance();
    tikv_jemalloc_ctl::stats::allocated::read().unwrap_or(0) as f64
}

const PLAYERS: usize = 32;
const CLIENT: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 40000);

/// Records `seconds` of a lab match, on a virtual clock in 10 ms steps.
fn record(seconds: u64) -> Vec<u8> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(22);
    let mut profile = ServerProfile::generate(0, &mut rng);
    profile.fill(PLAYERS, &mut rng);
    let mut sessions = Sessions::new(&profile, SessionConfig::default(), 0);
    let mut client = Client::new(ClientConfig::default(), 0);
    let mut input = SpectatorInput::new(true);
    let mut file = Vec::new();
    let mut started = None;
    let mut now = 0u64;
    while started.is_none_or(|at| now < at + seconds * 1000) {
        now += 10;
        input.drive(now, &mut client);
        client.handle_timeout(now);
        while let Some(datagram) = client.poll_transmit() {
            sessions.handle_datagram(now, CLIENT, &datagram, &mut profile);
        }
        sessions.tick(now, &mut profile);
        while let Some(transmit) = sessions.poll_transmit() {
            client.handle_datagram(now, &transmit.payload);
        }
        while client.poll_event().is_some() {}
        if started.is_none() && client.state() == State::Active {
            client.record().expect("recording starts");
            started = Some(now);
        }
        while let Some(out) = client.poll_demo() {
            if let DemoOutput::Data(bytes) = out {
                file.extend(bytes);
            }
        }
        assert!(
            now < (seconds + 60) * 1000,
            "the session never became active"
        );
    }
    client.stop_recording();
    while let Some(out) = client.poll_demo() {
        if let DemoOutput::Data(bytes) = out {
            file.extend(bytes);
        }
    }
    file
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The page's decode of `name`, in ms, as its status line reports it.
async fn wasm_decode_ms(relay: &Relay, name: &str, runs: usize) -> anyhow::Result<Vec<f64>> {
    let driver = browser::Driver::start().await?;
    let client = driver.browser(1400, 900).await?;
    let mut times = Vec::new();
    for _ in 0..runs {
        client.goto(&format!("http://{}/#/", relay.addr)).await?;
        client
            .goto(&format!("http://{}/playback/#/demo/{name}", relay.addr))
            .await?;
        client.refresh().await?;
        let deadline = Instant::now() + Duration::from_secs(120);
        let ms = loop {
            let status = match client
                .find(Locator::Css("[data-testid=watch-status]"))
                .await
            {
                Ok(e) => e.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if let Some(ms) = status
                .split("decoded in ")
                .nth(1)
                .and_then(|rest| rest.trim_end_matches(" ms)").parse::<f64>().ok())
            {
                break ms;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the page never decoded: {status}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        times.push(ms);
    }
    let _ = client.close().await;
    Ok(times)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let seconds: u64 = std::env::args().nth(1).map_or(Ok(600), |s| s.parse())?;
    let dist = PathBuf::from(std::env::var("MUSTER_DIST").unwrap_or_else(|_| "dist".into()));
    let dir = PathBuf::from("target/bench/demos");
    std::fs::create_dir_all(&dir)?;

    let generated = Instant::now();
    let file = record(seconds);
    let generate_s = generated.elapsed().as_secs_f64();
    let name = "bench.dm_3";
    std::fs::write(dir.join(name), &file)?;
    let mb = file.len() as f64 / 1e6;

    // The record bodies, for the Huffman peer comparison.
    let mut bodies = Vec::new();
    let read = Instant::now();
    let mut records = 0;
    for record in Records::new(&file) {
        let body = record?.body()?;
        bodies.extend((body.len() as u32).to_le_bytes());
        bodies.extend(&body);
        records += 1;
    }
    let read_ms = read.elapsed().as_secs_f64() * 1000.0;
    std::fs::write("target/bench/demo-bodies.bin", &bodies)?;

    // One timeline kept, for its memory (the file's copy included); then the decode timed.
    let before = allocated();
    let mut timeline = Timeline::open(file.clone())?;
    let held = allocated() - before;
    let mut opens = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let t = Timeline::open(file.clone())?;
        opens.push(start.elapsed().as_secs_f64() * 1000.0);
        drop(t);
    }
    let native_ms = median(opens);
    let duration = timeline.duration();
    let mut seeks = Vec::new();
    let mut state = 0x9e37_79b9u32;
    for _ in 0..200 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let at = state % duration.max(1);
        let start = Instant::now();
        timeline.seek(at);
        seeks.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    seeks.sort_by(f64::total_cmp);

    let relay = Relay::start(ServeConfig {
        dist,
        poller: PollerConfig {
            masters: vec![],
            lan: vec![],
            ..PollerConfig::default()
        },
        recording: Some(relay::demos::RecordConfig {
            dir: dir.clone(),
            max_bytes: u64::MAX,
        }),
        ..ServeConfig::default()
    })
    .await?;
    let wasm = wasm_decode_ms(&relay, name, 3).await?;
    let wasm_ms = median(wasm.clone());

    let summary = timeline.summary();
    let result = json!({
        "bench": "demo",
        "demo_seconds": f64::from(duration) / 1000.0,
        "demo_bytes": file.len(),
        "records": records,
        "snapshots": summary.snapshots,
        "kills": summary.kills.len(),
        "players": PLAYERS,
        "generate_s": (generate_s * 100.0).round() / 100.0,
        "native_decode_ms": (native_ms * 10.0).round() / 10.0,
        "native_decode_mb_s": (mb / (native_ms / 1000.0) * 10.0).round() / 10.0,
        "native_records_huffman_mb_s": (mb / (read_ms / 1000.0) * 10.0).round() / 10.0,
        "wasm_decode_ms": wasm_ms,
        "wasm_decode_runs_ms": wasm,
        "wasm_decode_mb_s": (mb / (wasm_ms / 1000.0) * 10.0).round() / 10.0,
        "wasm_over_native": (wasm_ms / native_ms * 100.0).round() / 100.0,
        "seek_p50_ms": (seeks[seeks.len() / 2] * 100.0).round() / 100.0,
        "seek_max_ms": (seeks[seeks.len() - 1] * 100.0).round() / 100.0,
        "checkpoints": timeline.checkpoints(),
        "timeline_held_mib": (held / 1048576.0 * 10.0).round() / 10.0,
        "timeline_held_per_demo_mb": (held / file.len() as f64 * 10.0).round() / 10.0,
        "goals": {"seek_ms": 500},
    });
    println!("{result}");
    Ok(())
}
