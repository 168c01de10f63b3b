//! `cargo xtask bench highlights`: what finding and cutting plays costs.
//!
//! First in process: the rule (`cod::watch::highlights::PlayFinder`) told a long generated
//! match (24 names, a kill a second, runs as a lab soldier makes them, 20 snapshots a second
//! each an `elapse`): nanoseconds per kill and per snapshot, and plays found per 1,000 kills.
//!
//! Then live, side by side: two relays (each its own process and SQLite history), one with
//! highlights and one with `--no-highlights`, following the same MATCHES lab matches at the same
//! time (the lab its own process, 12 players a server, 2-minute maps, the default 30 s broadcast
//! delay): each relay's CPU in three windows and resident memory, per followed match, and with
//! highlights the plays found and the clips cut per second. Twice: with the lab's matches at its busy pace (a kill a second
//! between any two foes: some twenty times a real match's plays, the rule's worst case), then
//! at a public server's pace (`--pace public`: each soldier kills about once a minute, the
//! nearest foe). Goal, at the public pace: highlights cost at most 10% more CPU than
//! following alone.
//!
//! Usage: highlights_bench [MATCHES] [KILLS]  (50, 1,000,000; MUSTER_BIN_DIR names the release
//! binaries). Last line: JSON.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use protocol::cod::watch::highlights::PlayFinder;
use protocol::relay_api::matches::{KillKind, MatchEvent, MatchKey, MatchKill, MatchStart};
use protocol::relay_api::watch::Team;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use bench_util::{cpu_seconds, free_tcp_port, relay_args, rss_kib, start, Process};

mod bench_util;

/// The rule over `kills` generated kills: (ns per kill, ns per snapshot, plays per 1,000 kills).
fn detection(kills: usize) -> (f64, f64, f64) {
    let mut rng = SmallRng::seed_from_u64(7);
    let names: Vec<String> = (0..24).map(|i| format!("^{}Player{i}", i % 8)).collect();
    let team = |i: usize| {
        if i.is_multiple_of(2) {
            Team::Axis
        } else {
            Team::Allies
        }
    };
    // The events first, so only the rule is timed.
    let mut events: Vec<(i32, Option<MatchEvent>)> = Vec::with_capacity(kills * 21);
    let (mut t, mut run): (i32, Option<usize>) = (10_000, None);
    for _ in 0..kills {
        // A kill a second: twenty snapshots, the kill in the last.
        for _ in 0..19 {
            t += 50;
            events.push((t, None));
        }
        t += 50;
        let killer = match run {
            Some(k) => k,
            None => rng.random_range(0..names.len()),
        };
        let victim = loop {
            let v = rng.random_range(0..names.len());
            if team(v) != team(killer) {
                break v;
            }
        };
        run = rng.random_bool(0.4).then_some(killer);
        let apart = rng.random_range(0..4000);
        events.push((
            t,
            Some(MatchEvent::Kill(MatchKill {
                server_time: t,
                attacker: Some(names[killer].clone()),
                attacker_team: team(killer),
                victim: names[victim].clone(),
                victim_team: team(victim),
                weapon: "kar98k_mp".into(),
                kind: KillKind::Kill,
                attacker_origin: Some([0, 0, 0]),
                victim_origin: Some([apart, 0, 0]),
            })),
        ));
    }
    let mut finder = PlayFinder::new([]);
    finder.told(&MatchEvent::Began(MatchStart {
        key: MatchKey {
            map: "mp_bench".into(),
            level_start: 10_000,
        },
        gametype: "tdm".into(),
        hostname: "bench".into(),
        joined_at: 10_000,
    }));
    let began = Instant::now();
    let mut plays = 0usize;
    for (t, event) in &events {
        finder.elapse(*t);
        if let Some(event) = event {
            finder.told(event);
        }
        while finder.poll().is_some() {
            plays += 1;
        }
    }
    let total_ns = began.elapsed().as_nanos() as f64;
    // Snapshots alone, to tell the two costs apart.
    let mut idle = PlayFinder::new([]);
    let snapshots = events.iter().filter(|(_, e)| e.is_none()).count();
    let began = Instant::now();
    for (t, _) in events.iter().filter(|(_, e)| e.is_none()) {
        idle.elapse(*t);
    }
    let snapshot_ns = began.elapsed().as_nanos() as f64 / snapshots as f64;
    let kill_ns = (total_ns - snapshot_ns * snapshots as f64) / kills as f64;
    (kill_ns, snapshot_ns, plays as f64 * 1000.0 / kills as f64)
}

/// The relays' warm-up: joined, the broadcast delay filled, before the first window opens.
const WARM_UP: Duration = Duration::from_secs(40);

/// Each window both relays are measured over, and how many: the on/off ratio of each window
/// says how far one measurement can be trusted.
const WINDOW: Duration = Duration::from_secs(40);
const WINDOWS: usize = 3;

async fn json_of(url: String) -> anyhow::Result<Value> {
    Ok(reqwest::get(url).await?.json().await?)
}

/// The relay's highlights figures from its `/metrics`: plays kept, clips by outcome
/// (`clipped`, `failed`, `reel_gone`) and plays waiting for the reel. The API's list is no
/// count: it is a page of the newest.
async fn highlight_counts(http: &str) -> anyhow::Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for s in relay::metrics::parse_exposition(&bench_util::metrics_text(http).await?) {
        let key = match (s.name.as_str(), s.label("outcome")) {
            ("muster_highlights_plays_total", Some(outcome)) => format!("plays_{outcome}"),
            ("muster_highlights_clips_total", Some(outcome)) => format!("clips_{outcome}"),
            ("muster_highlights_waiting", _) => "waiting".to_owned(),
            _ => continue,
        };
        *out.entry(key).or_default() += s.value;
    }
    Ok(out)
}

/// The relay's hubs that have their match's picture.
async fn hubs(http: &str) -> anyhow::Result<usize> {
    let v = json_of(format!("http://{http}/api/spectate")).await?;
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .filter(|h| !h["server_time"].is_null())
        .count())
}

/// One relay following the lab, with its own SQLite history.
struct Relay {
    process: Process,
    http: String,
    _data: tempfile::TempDir,
}

impl Relay {
    fn start(bin: &std::path::Path, master_port: u16, extra: &[String]) -> anyhow::Result<Self> {
        let data = tempfile::tempdir()?;
        let http_port = free_tcp_port();
        let mut args = relay_args(http_port, master_port, data.path());
        args.extend(["--data-dir".to_owned(), data.path().display().to_string()]);
        args.extend(extra.iter().cloned());
        let process = start(bin.join("muster"), &args, "muster: serving")?;
        Ok(Self {
            process,
            http: format!("127.0.0.1:{http_port}"),
            _data: data,
        })
    }

    fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.process.0.id())
    }
}

/// Both relays' CPU (cores) in each window, in the same seconds on the same lab.
struct Windows {
    off: Vec<f64>,
    on: Vec<f64>,
    seconds: f64,
}

impl Windows {
    /// On over off over the whole measurement.
    fn ratio(&self) -> f64 {
        let (on, off): (f64, f64) = (self.on.iter().sum(), self.off.iter().sum());
        if off > 0.0 {
            on / off
        } else {
            f64::NAN
        }
    }

    fn each_ratio(&self) -> Vec<f64> {
        self.on
            .iter()
            .zip(&self.off)
            .map(|(on, off)| round(on / off, 2))
            .collect()
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }
}

/// Measures the two relays over [`WINDOWS`] windows at once.
async fn measure(off: &Relay, on: &Relay) -> Windows {
    let began = Instant::now();
    let mut last = (off.cpu_seconds(), on.cpu_seconds(), Instant::now());
    let mut windows = Windows {
        off: Vec::new(),
        on: Vec::new(),
        seconds: 0.0,
    };
    for _ in 0..WINDOWS {
        tokio::time::sleep(WINDOW).await;
        let now = (off.cpu_seconds(), on.cpu_seconds(), Instant::now());
        let elapsed = now.2.duration_since(last.2).as_secs_f64();
        windows.off.push((now.0 - last.0) / elapsed);
        windows.on.push((now.1 - last.1) / elapsed);
        last = now;
    }
    windows.seconds = began.elapsed().as_secs_f64();
    windows
}

fn round(v: f64, places: i32) -> f64 {
    (v * 10f64.powi(places)).round() / 10f64.powi(places)
}

/// The relay with highlights and the relay without them follow the same lab matches at the
/// same time, so both see the same kills in the same seconds and share the machine alike:
/// one after the other, the matches (and what else ran) differed by more than the effect.
async fn live(matches: usize, pace: &str) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir()?;
    let (_lab, bin, master_port, follow) =
        bench_util::followed_fleet(matches, 48_960, dir.path(), pace)?;
    let mut no_highlights = follow.clone();
    no_highlights.push("--no-highlights".to_owned());
    let off = Relay::start(&bin, master_port, &no_highlights)?;
    let on = Relay::start(&bin, master_port, &follow)?;
    tokio::time::sleep(WARM_UP).await;
    let counts_before = highlight_counts(&on.http).await?;
    let windows = measure(&off, &on).await;
    let mut counts = highlight_counts(&on.http).await?;
    for (key, value) in counts.iter_mut() {
        if key != "waiting" {
            *value -= counts_before.get(key).copied().unwrap_or(0.0);
        }
    }
    let (off_hubs, on_hubs) = (hubs(&off.http).await?, hubs(&on.http).await?);
    let (off_cpu, on_cpu) = (Windows::mean(&windows.off), Windows::mean(&windows.on));
    let per = |v: f64, n: usize| v / n.max(1) as f64;
    let seconds = windows.seconds;
    let count = |key: &str| counts.get(key).copied().unwrap_or(0.0);
    let clipped = count("clips_clipped");
    Ok(json!({
        "pace": pace,
        "matches_asked": matches,
        "matches_followed": on_hubs.min(off_hubs),
        "seconds_measured": round(seconds, 1),
        "relay_cpu_cores_highlights_off": round(off_cpu, 3),
        "relay_cpu_cores_highlights_on": round(on_cpu, 3),
        "cpu_share_of_a_core_per_match_on": round(per(on_cpu, on_hubs), 4),
        "relay_rss_mib_highlights_off": round(rss_kib(off.process.0.id()) / 1024.0, 1),
        "relay_rss_mib_highlights_on": round(rss_kib(on.process.0.id()) / 1024.0, 1),
        "plays_kept_per_s": round(count("plays_kept") / seconds, 2),
        "plays_dropped": count("plays_dropped"),
        "clips_cut_per_s": round(clipped / seconds, 2),
        "clips_failed": count("clips_failed"),
        "clips_reel_gone": count("clips_reel_gone"),
        "waiting_at_the_end": count("waiting"),
        // What highlights add, spread over the clips cut (detection included).
        "cpu_ms_per_clip": if clipped > 0.0 { round((on_cpu - off_cpu) * seconds * 1000.0 / clipped, 2) } else { f64::NAN },
        "cpu_ratio_on_to_off": round(windows.ratio(), 3),
        "cpu_ratio_each_window": windows.each_ratio(),
    }))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let matches = args.first().copied().unwrap_or(50);
    let kills = args.get(1).copied().unwrap_or(1_000_000);
    let (kill_ns, snapshot_ns, plays) = detection(kills);
    let detection = json!({
        "kills": kills,
        "ns_per_kill": kill_ns.round(),
        "ns_per_snapshot": (snapshot_ns * 10.0).round() / 10.0,
        "plays_per_1000_kills": (plays * 10.0).round() / 10.0,
    });
    eprintln!("highlights_bench: detection {detection}");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let [busy, public] = ["busy", "public"].map(|pace| {
        let live = match runtime.block_on(live(matches, pace)) {
            Ok(live) => live,
            Err(e) => json!({"error": e.to_string()}),
        };
        eprintln!("highlights_bench: live {live}");
        live
    });
    let met = public["cpu_ratio_on_to_off"]
        .as_f64()
        .is_some_and(|r| r <= 1.10);
    println!(
        "{}",
        json!({
            "bench": "highlights",
            "detection": detection,
            "live_busy_pace": busy,
            "live_public_pace": public,
            "goal": "at a public server's pace, highlights cost at most 10% more relay CPU than following alone",
            "met": met,
        })
    );
}
