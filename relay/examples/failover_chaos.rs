//! `cargo xtask chaos --kills [--minutes M]`: three relays as one site on NATS (JetStream) and
//! PostgreSQL, a lab fleet whose first server hosts a 32-player match, and viewers of that match
//! on every relay. Every few seconds (3 to 6, at random) a random relay is stopped, with SIGKILL
//! three times in four and a clean SIGTERM the fourth, then started again once its leases have
//! moved. Counts:
//!
//! - takeovers: for each lease the stopped relay held (the poller's, the hub's), the time until
//!   another relay says it holds it (`/api/cluster`), split by how the holder was stopped;
//! - double holders: every 50 ms each live relay is asked which leases it holds; a lease two
//!   relays claim in one round is a double holder (must be 0), and a lease's revision (its
//!   fencing token) that goes back is a regression (must be 0);
//! - each viewer's longest pause: the longest time between two frames of the match it receives
//!   (a viewer whose relay died opens the next relay at once, as the page does, and its pause
//!   runs until that relay's first frame).
//!
//! Usage: failover_chaos [MINUTES]; MUSTER_BIN_DIR names the release binaries, MUSTER_BENCH_NATS
//! and MUSTER_BENCH_POSTGRES the engines xtask started, MUSTER_BENCH_LEASE_TTL the relays'
//! `--lease-ttl`. The last line printed is one JSON object.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bench_util::{free_port, percentile, start_endless_lab, Relays, Site};
use futures_util::StreamExt;
use protocol::relay_api::watch::WatchMessage;
use rand::Rng as _;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

mod bench_util;

const RELAYS: usize = 3;
const PLAYERS: usize = 32;
const SERVERS: usize = 4;
const VIEWERS_PER_RELAY: usize = 5;
/// How often every relay is asked which leases it holds.
const WATCH_EVERY: Duration = Duration::from_millis(50);
/// The goal: a stopped holder's lease is taken over within this, at p99.
const TAKEOVER_GOAL_S: f64 = 3.0;

/// What the lease watcher saw.
#[derive(Default)]
struct Leases {
    rounds: u64,
    /// (lease, the relays that claimed it in one round).
    doubles: Vec<(String, Vec<usize>)>,
    /// The highest revision seen of each lease, and how often one went back.
    highest: BTreeMap<String, u64>,
    regressions: u64,
}

/// Asks every relay which leases it holds, round after round, until `stop`.
async fn watch_leases(relays: Arc<Relays>, seen: Arc<Mutex<Leases>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        let mut holders: BTreeMap<String, Vec<(usize, u64)>> = BTreeMap::new();
        for i in 0..RELAYS {
            for (lease, revision) in relays.leases(i).await.unwrap_or_default() {
                holders.entry(lease).or_default().push((i, revision));
            }
        }
        {
            let mut guard = seen.lock().unwrap();
            let seen = &mut *guard;
            seen.rounds += 1;
            for (lease, held) in holders {
                if held.len() > 1 {
                    seen.doubles
                        .push((lease.clone(), held.iter().map(|h| h.0).collect()));
                }
                for (_, revision) in held {
                    let highest = seen.highest.entry(lease.clone()).or_default();
                    if revision < *highest {
                        seen.regressions += 1;
                    }
                    *highest = (*highest).max(revision);
                }
            }
        }
        tokio::time::sleep(WATCH_EVERY).await;
    }
}

/// A viewer of the match on relay `first`, moving to the next relay whenever its relay goes
/// away; returns its longest pause between two frames, in seconds. Each pause over 3 s is told
/// on stderr with when it ended (Unix ms) and on which relay, to read beside the relays' logs.
async fn viewer(urls: Arc<Vec<String>>, first: usize, stop: Arc<AtomicBool>) -> f64 {
    let (mut relay, mut longest) = (first, Duration::ZERO);
    let mut last: Option<Instant> = None;
    let mut moves = 0u32;
    while !stop.load(Ordering::Relaxed) {
        let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&urls[relay]).await else {
            relay = (relay + 1) % urls.len();
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        while let Some(Ok(message)) = socket.next().await {
            if stop.load(Ordering::Relaxed) {
                return longest.as_secs_f64();
            }
            let Message::Binary(bytes) = message else {
                continue;
            };
            if matches!(
                WatchMessage::decode(&bytes),
                Ok(WatchMessage::Keyframe { .. } | WatchMessage::Update { .. })
            ) {
                let now = Instant::now();
                if let Some(last) = last {
                    let pause = now - last;
                    if pause > Duration::from_secs(3) {
                        eprintln!(
                            "failover_chaos: a viewer paused {:.2} s, until {} ms, on relay {relay} ({moves} moves)",
                            pause.as_secs_f64(),
                            bench_util::unix_us() / 1000
                        );
                    }
                    longest = longest.max(pause);
                }
                last = Some(now);
            }
        }
        // Its relay went away: the next one, at once.
        relay = (relay + 1) % urls.len();
        moves += 1;
    }
    longest.as_secs_f64()
}

/// SIGTERM, then waits for the relay to finish its clean shutdown.
fn stop_cleanly(relays: &mut Relays, i: usize) {
    let Some(mut process) = relays.processes[i].take() else {
        return;
    };
    let pid = process.0.id().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = process.0.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Dropped: killed.
    drop(process);
}

fn summary(seconds: &[f64]) -> Value {
    json!({
        "count": seconds.len(),
        "p50_s": percentile(seconds.to_vec(), 0.5),
        "p99_s": percentile(seconds.to_vec(), 0.99),
        "max_s": seconds.iter().copied().fold(0.0, f64::max),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let minutes: f64 = std::env::args()
        .nth(1)
        .map(|m| m.parse())
        .transpose()?
        .unwrap_or(10.0);
    let env = |k: &str| std::env::var(k).map_err(|_| anyhow::anyhow!("{k} is not set"));
    let bin = PathBuf::from(std::env::var("MUSTER_BIN_DIR").unwrap_or("target/release".into()));
    let dir = std::env::temp_dir().join(format!("muster-failover-chaos-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let (lab_port, master_port) = (free_port(), free_port());
    let _lab = start_endless_lab(&bin, SERVERS, PLAYERS, lab_port, master_port)?;
    let mut site = Site {
        relays: Relays::new(bin, dir.clone(), RELAYS),
        master_port,
        nats: env("MUSTER_BENCH_NATS")?,
        database: env("MUSTER_BENCH_POSTGRES")?,
    };
    for i in 0..RELAYS {
        site.start_relay(i)?;
    }
    for i in 0..RELAYS {
        bench_util::wait_online(&site.relays.http(i), SERVERS, Duration::from_secs(90)).await?;
    }
    let server = format!("127.0.0.1:{lab_port}");
    let hub = format!("hub.{}", server.replace(['.', ':'], "-"));
    let urls: Arc<Vec<String>> = Arc::new(
        (0..RELAYS)
            .map(|i| format!("ws://{}/spectate/{server}", site.relays.http(i)))
            .collect(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let viewers: Vec<_> = (0..RELAYS * VIEWERS_PER_RELAY)
        .map(|n| tokio::spawn(viewer(urls.clone(), n % RELAYS, stop.clone())))
        .collect();
    site.wait_holder(&hub, Duration::from_secs(30)).await?;
    site.wait_holder("poller", Duration::from_secs(30)).await?;

    // The watcher asks the relays' ports and nothing else: its own view of the site.
    let watched = Arc::new(Relays {
        bin: PathBuf::new(),
        dir: PathBuf::new(),
        ports: site.relays.ports.clone(),
        processes: Vec::new(),
    });
    let seen = Arc::new(Mutex::new(Leases::default()));
    let watcher = tokio::spawn(watch_leases(watched, seen.clone(), stop.clone()));

    let deadline = Instant::now() + Duration::from_secs_f64(minutes * 60.0);
    let mut takeovers: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
    let (mut kills, mut stops, mut lost) = (0u32, 0u32, Vec::new());
    while Instant::now() < deadline {
        let wait = rand::rng().random_range(3000..6000);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let victim = rand::rng().random_range(0..RELAYS);
        let clean = rand::rng().random_range(0..4) == 0;
        let held = site.relays.leases(victim).await.unwrap_or_default();
        let stopped = Instant::now();
        let how = if clean {
            stops += 1;
            stop_cleanly(&mut site.relays, victim);
            "clean_stop"
        } else {
            kills += 1;
            site.relays.kill(victim);
            "sigkill"
        };
        for lease in held.keys() {
            let kind = if lease == "poller" {
                "poller"
            } else if *lease == hub {
                "hub"
            } else {
                continue;
            };
            match site.wait_holder(lease, Duration::from_secs(30)).await {
                Ok(_) => {
                    let took = stopped.elapsed().as_secs_f64();
                    takeovers.entry((kind, how)).or_default().push(took);
                }
                Err(_) => lost.push(lease.clone()),
            }
        }
        site.start_relay(victim)?;
        bench_util::wait_online(&site.relays.http(victim), SERVERS, Duration::from_secs(90))
            .await?;
    }
    stop.store(true, Ordering::Relaxed);
    watcher.await?;
    let mut pauses = Vec::new();
    for viewer in viewers {
        // A viewer ends at its next frame.
        if let Ok(Ok(longest)) = tokio::time::timeout(Duration::from_secs(10), viewer).await {
            pauses.push(longest);
        }
    }
    if std::env::var_os("MUSTER_BENCH_KEEP").is_some() {
        eprintln!("relay logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }

    let seen = seen.lock().unwrap();
    let by = |kind: &str, how: &str| summary(takeovers.get(&(kind, how)).map_or(&[][..], |v| v));
    let killed: Vec<f64> = (takeovers.iter())
        .filter(|((_, how), _)| *how == "sigkill")
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    let killed_p99 = percentile(killed.clone(), 0.99);
    let result = json!({
        "chaos": "kills",
        "minutes": minutes,
        "relays": RELAYS,
        "viewers": pauses.len(),
        "lease_ttl_s": std::env::var("MUSTER_BENCH_LEASE_TTL").ok(),
        "sigkills": kills,
        "clean_stops": stops,
        "takeovers": {
            "hub_after_sigkill": by("hub", "sigkill"),
            "poller_after_sigkill": by("poller", "sigkill"),
            "hub_after_clean_stop": by("hub", "clean_stop"),
            "poller_after_clean_stop": by("poller", "clean_stop"),
        },
        "leases_never_taken_over": lost,
        "lease_rounds": seen.rounds,
        "double_holders": seen.doubles.len(),
        "double_holder_rounds": seen.doubles.iter().take(10).map(|(l, r)| json!([l, r])).collect::<Vec<_>>(),
        "fencing_regressions": seen.regressions,
        "viewer_longest_pause_s": summary(&pauses),
        "goals": {"takeover_after_sigkill_p99_s": TAKEOVER_GOAL_S, "double_holders": 0},
        "met": {
            "takeover_after_sigkill_p99": !killed.is_empty() && killed_p99 < TAKEOVER_GOAL_S,
            "no_double_holder": seen.doubles.is_empty() && seen.regressions == 0,
        },
    });
    println!("{result}");
    Ok(())
}
