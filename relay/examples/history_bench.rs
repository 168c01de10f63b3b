//! `cargo xtask bench history`: a year of generated history for 2,000 servers and 50,000
//! player names, on SQLite and on PostgreSQL side by side. Measured: the database size, the
//! time to write one second of the poller's work (and so the headroom at its rate), chart
//! latency (query and SVG, no cache) at 24 h, 30 d and 1 y, and name search latency. The
//! goals: at most 300 MB on SQLite, chart and search p95 under 50 ms. Last line: JSON.
//!
//! The fleet is shaped like UO's today: a tenth of the servers busy every evening (their own
//! peak hour, fuller at weekends, an outage now and then), three tenths with players some
//! evenings, the rest empty. Names: a fifth are regulars (three stays a week), the rest play
//! about once a month; stays are kept 90 days (the default), names for ever. Busy servers
//! change map every 20 minutes; map changes are kept a month (the default).
//!
//! Usage: history_bench [SERVERS] [NAMES] [DAYS]  (PostgreSQL: MUSTER_BENCH_POSTGRES=URL)

use std::time::Instant;

use protocol::relay_api::{Player, Reachability, ServerInfo};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use relay::history::{query_server_history, seen, server_chart};
use relay::store::{
    fold, pack_buckets, pack_samples, Batch, Bucket, Chunk, MapChange, Resolution, Sample, Session,
    Store, StoreArgs, DAY_MS, HOUR_MS, PERIOD_MS,
};
use serde_json::{json, Value};

use bench_util::percentile;

mod bench_util;

const FIVE_MIN: u64 = 300_000;
const POLL: u64 = 20_000;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Busy,
    Sometimes,
    Empty,
}

struct Fleet {
    servers: usize,
    names: usize,
    days: u64,
    /// The end of the generated year: now, on an hour.
    now: u64,
}

impl Fleet {
    fn kind(&self, i: usize) -> Kind {
        match i % 10 {
            0 => Kind::Busy,
            1..=3 => Kind::Sometimes,
            _ => Kind::Empty,
        }
    }

    fn addr(i: usize) -> String {
        format!("10.{}.{}.1:28960", i / 250, i % 250)
    }

    fn slots(&self, i: usize) -> u16 {
        match self.kind(i) {
            Kind::Busy => 32,
            Kind::Sometimes => 24,
            Kind::Empty => 20,
        }
    }

    /// Humans at a moment (before noise), and whether the server is up.
    fn humans(&self, i: usize, t: u64, rng: &mut SmallRng) -> (f64, bool) {
        let day = t / DAY_MS;
        // Outages: a day in a hundred, a few hours from a server-specific hour.
        let h = (day as usize * 7919 + i * 104_729) % 100;
        let hour = ((t % DAY_MS) / HOUR_MS) as usize;
        if h == 0 && (hour + i) % 24 < 3 {
            return (0.0, false);
        }
        let weekend = matches!((day + 3) % 7, 5 | 6);
        match self.kind(i) {
            Kind::Busy => {
                let peak = 10.0 + (i % 17) as f64;
                let peak_hour = (19 + i % 7) as f64;
                let hours = (t % DAY_MS) as f64 / HOUR_MS as f64;
                let phase = (hours - peak_hour) / 24.0 * std::f64::consts::TAU;
                let curve = (0.5 + 0.5 * phase.cos()).powi(2);
                let base = peak * (0.1 + 0.9 * curve) * if weekend { 1.2 } else { 1.0 };
                (base + rng.random_range(-1.5..1.5), true)
            }
            Kind::Sometimes => {
                let active = (day as usize * 31 + i * 17) % 10 < 4;
                let evening = (19..23).contains(&((hour + i) % 24));
                let base = if active && evening {
                    2.0 + ((day as usize + i) % 8) as f64
                } else {
                    0.0
                };
                (base, true)
            }
            Kind::Empty => (0.0, true),
        }
    }

    fn clamp(&self, i: usize, v: f64) -> u16 {
        v.round().clamp(0.0, f64::from(self.slots(i))) as u16
    }

    /// One day of 5-minute buckets for server `i`.
    fn day_buckets(&self, i: usize, day_start: u64, rng: &mut SmallRng) -> Vec<Bucket> {
        (0..288)
            .map(|b| {
                let start = day_start + b * FIVE_MIN;
                let (base, up) = self.humans(i, start, rng);
                if !up {
                    return Bucket {
                        start_ms: start,
                        polls: 15,
                        max_clients: self.slots(i),
                        ..Bucket::default()
                    };
                }
                let spread = if base > 0.0 {
                    rng.random_range(0..3)
                } else {
                    0
                };
                let min = self.clamp(i, base - f64::from(spread));
                let max = self.clamp(i, base + f64::from(spread)).max(min);
                let avg = self.clamp(i, base).clamp(min, max);
                Bucket {
                    start_ms: start,
                    polls: 15,
                    up: 15,
                    min,
                    max,
                    sum: u64::from(avg) * 15,
                    bots_max: 0,
                    max_clients: self.slots(i),
                }
            })
            .collect()
    }

    /// One hour of polls for server `i`.
    fn hour_samples(&self, i: usize, hour: u64, rng: &mut SmallRng) -> Vec<Sample> {
        (0..HOUR_MS / POLL)
            .map(|k| {
                let at = hour + k * POLL + rng.random_range(0..400);
                let (base, up) = self.humans(i, at, rng);
                Sample {
                    at_ms: at,
                    clients: if up { self.clamp(i, base) } else { 0 },
                    bots: 0,
                    max_clients: self.slots(i),
                    up,
                }
            })
            .collect()
    }

    fn name(n: usize) -> String {
        const PARTS: [&str; 16] = [
            "Sniper", "Falcon", "Ghost", "Rifle", "Medic", "Panzer", "Eagle", "Wolf", "Storm",
            "Hawk", "Tommy", "Kraut", "Yank", "Brit", "Ivan", "Major",
        ];
        let clan = ["^1[EU]^7", "^4{UK}^7", "^2=DE=^7", "", "", ""][n % 6];
        format!("{clan}{}{}{}", PARTS[n % 16], PARTS[(n / 16) % 16], n)
    }
}

/// Writes the year through `stores` (one connection per thread, servers split among them).
fn load(fleet: &Fleet, stores: Vec<Box<dyn Store>>) -> f64 {
    let started = Instant::now();
    let writers = stores.len();
    std::thread::scope(|scope| {
        for (w, mut store) in stores.into_iter().enumerate() {
            scope.spawn(move || {
                let mut rng = SmallRng::seed_from_u64(w as u64 + 1);
                let first_day = Resolution::Raw.chunk_start(fleet.now - fleet.days * DAY_MS);
                let raw_from = Resolution::Raw.chunk_start(fleet.now - 7 * DAY_MS);
                let mine: Vec<usize> = (0..fleet.servers).filter(|i| i % writers == w).collect();
                // Bucket chunks period by period, as the compactor leaves them.
                let mut period = Resolution::FiveMinutes.chunk_start(first_day);
                while period < fleet.now {
                    let mut chunks = Vec::new();
                    for &i in &mine {
                        let series = Fleet::addr(i);
                        let mut five = Vec::new();
                        let mut day = period.max(first_day);
                        while day < (period + PERIOD_MS).min(fleet.now) {
                            five.extend(fleet.day_buckets(i, day, &mut rng));
                            day += DAY_MS;
                        }
                        let hours = fold(five.clone(), HOUR_MS);
                        chunks.push(Chunk {
                            series: series.clone(),
                            resolution: Resolution::FiveMinutes,
                            start_ms: period,
                            data: pack_buckets(period, FIVE_MIN, &five),
                        });
                        chunks.push(Chunk {
                            series,
                            resolution: Resolution::Hour,
                            start_ms: period,
                            data: pack_buckets(period, HOUR_MS, &hours),
                        });
                    }
                    store.pack(&chunks, 0).expect("chunks written");
                    period += PERIOD_MS;
                }
                // The last week's samples, a chunk per server per day.
                let mut day = raw_from;
                while day < fleet.now {
                    let mut chunks = Vec::new();
                    for &i in &mine {
                        let samples: Vec<Sample> = (0..24)
                            .flat_map(|h| fleet.hour_samples(i, day + h * HOUR_MS, &mut rng))
                            .collect();
                        chunks.push(Chunk {
                            series: Fleet::addr(i),
                            resolution: Resolution::Raw,
                            start_ms: day,
                            data: pack_samples(day, &samples),
                        });
                    }
                    store.pack(&chunks, 0).expect("chunks written");
                    day += DAY_MS;
                }
                // The last month's map changes: busy servers every 20 minutes.
                let mut batch = Batch::default();
                let maps = [
                    "mp_foy",
                    "mp_carentan",
                    "mp_brecourt",
                    "mp_kursk",
                    "mp_ponyri",
                ];
                for &i in mine.iter().filter(|&&i| fleet.kind(i) == Kind::Busy) {
                    let mut t = fleet.now - 30 * DAY_MS;
                    let mut k = i;
                    while t < fleet.now {
                        batch.map_changes.push(MapChange {
                            series: Fleet::addr(i),
                            at_ms: t,
                            map: maps[k % maps.len()].into(),
                            gametype: "tdm".into(),
                        });
                        k += 1;
                        t += 20 * 60_000;
                    }
                }
                store.write(&batch).expect("map changes written");
                // Stays within their retention (90 days): regulars three a week, the rest
                // about one a month.
                let window = fleet.days.min(90);
                let playing: Vec<usize> = (0..fleet.servers)
                    .filter(|&i| fleet.kind(i) != Kind::Empty)
                    .collect();
                let mut batch = Batch::default();
                for n in (0..fleet.names).filter(|n| n % writers == w) {
                    let name = Fleet::name(n);
                    let key = relay::store::name_key(&name);
                    let stays = if n % 5 == 0 {
                        3 * fleet.days / 7
                    } else {
                        fleet.days / 30
                    };
                    for _ in 0..stays.max(1) {
                        let first = fleet.now - rng.random_range(HOUR_MS..window * DAY_MS);
                        let server = playing[rng.random_range(0..playing.len())];
                        batch.sessions.push(Session {
                            key: key.clone(),
                            name: name.clone(),
                            server: Fleet::addr(server),
                            first_ms: first,
                            last_ms: first + rng.random_range(10..180) * 60_000,
                        });
                    }
                    if batch.sessions.len() >= 20_000 {
                        store
                            .write(&std::mem::take(&mut batch))
                            .expect("sessions written");
                    }
                }
                store.write(&batch).expect("sessions written");
            });
        }
    });
    started.elapsed().as_secs_f64()
}

/// One second of the poller at 2,000 servers every 20 s: 100 answers with their players.
fn poller_second(fleet: &Fleet, second: u64, rng: &mut SmallRng) -> Batch {
    let per_second = (fleet.servers as u64).div_ceil(20) as usize;
    let mut batch = Batch::default();
    let at = fleet.now + second * 1000;
    for k in 0..per_second {
        let i = (second as usize * per_second + k) % fleet.servers;
        let (base, up) = fleet.humans(i, at, rng);
        let humans = fleet.clamp(i, base);
        let players: Vec<Player> = (0..humans as usize)
            .map(|p| Player {
                name: Fleet::name((i * 37 + p) % fleet.names),
                score: p as i32,
                ping: 50,
                bot: false,
            })
            .collect();
        let record = ServerInfo {
            addr: Fleet::addr(i),
            hostname: format!("^1[EU]^7 Server #{i}"),
            map: "mp_foy".into(),
            gametype: "tdm".into(),
            game: String::new(),
            protocol: 22,
            clients: u32::from(humans),
            bots: 0,
            max_clients: u32::from(fleet.slots(i)),
            password: false,
            punkbuster: false,
            pure: true,
            friendly_fire: 0,
            killcam: true,
            jeeps: true,
            tanks: true,
            dedicated: Some(true),
            ping_ms: Some(40),
            reachability: Reachability::Online,
            updated_ms: Some(at),
            matches_today: 0,
            country: None,
            sources: vec!["master.cod.pm:20610".into()],
            cvars: (0..40)
                .map(|c| (format!("cvar_{c}"), "1".to_owned()))
                .collect(),
            players: players.clone(),
        };
        batch.samples.push((
            record.addr.clone(),
            Sample {
                at_ms: at,
                clients: humans,
                bots: 0,
                max_clients: fleet.slots(i),
                up,
            },
        ));
        for p in &players {
            batch.sessions.push(Session {
                key: relay::store::name_key(&p.name),
                name: p.name.clone(),
                server: record.addr.clone(),
                first_ms: fleet.now,
                last_ms: at,
            });
        }
        batch
            .servers
            .push((record.addr.clone(), serde_json::to_string(&record).unwrap()));
    }
    batch
}

fn measure(name: &str, fleet: &Fleet, open: &dyn Fn() -> Box<dyn Store>, writers: usize) -> Value {
    eprintln!("history_bench: loading {name} with {writers} writer(s)…");
    let load_s = load(fleet, (0..writers).map(|_| open()).collect());
    let mut store = open();
    let size = store.size_bytes().unwrap();
    eprintln!(
        "history_bench: {name}: {:.0} MB in {load_s:.0} s",
        size as f64 / 1e6
    );
    let mut rng = SmallRng::seed_from_u64(7);

    // The poller's rate: a second of answers, written as the writer does, sixty times.
    let mut batch_ms = Vec::new();
    let mut samples = 0;
    for second in 0..60 {
        let batch = poller_second(fleet, second, &mut rng);
        samples += batch.samples.len();
        let t = Instant::now();
        store.write(&batch).unwrap();
        batch_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let write_p50 = percentile(batch_ms.clone(), 0.5);
    let write_p95 = percentile(batch_ms.clone(), 0.95);
    let busy_s: f64 = batch_ms.iter().sum::<f64>() / 1000.0;

    // Charts as a page asks for them (no cache): the answer and its SVG.
    let mut charts = serde_json::Map::new();
    for range in ["24h", "30d", "1y"] {
        let mut ms = Vec::new();
        for _ in 0..60 {
            let i = rng.random_range(0..fleet.servers / 10) * 10 + rng.random_range(0..4);
            let t = Instant::now();
            let h = query_server_history(store.as_mut(), &Fleet::addr(i), range, fleet.now)
                .unwrap()
                .unwrap();
            let svg = server_chart(&h, 60);
            assert!(svg.len() > 100);
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        charts.insert(
            range.into(),
            json!({ "p50_ms": percentile(ms.clone(), 0.5), "p95_ms": percentile(ms, 0.95) }),
        );
    }
    // Name search: part of a name, as typed into Find player.
    let mut ms = Vec::new();
    let mut found = 0;
    for _ in 0..200 {
        let name = relay::store::name_key(&Fleet::name(rng.random_range(0..fleet.names)));
        let start = rng.random_range(0..name.len().saturating_sub(5).max(1));
        let part = &name[start..(start + 5).min(name.len())];
        let t = Instant::now();
        found += seen(store.as_mut(), part).unwrap().len();
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    assert!(found > 0, "searches find names");
    json!({
        "size_mb": (size as f64 / 1e5).round() / 10.0,
        "load_s": load_s.round(),
        "write_batch_p50_ms": write_p50,
        "write_batch_p95_ms": write_p95,
        "samples_per_batch": samples / 60,
        "write_capacity_samples_per_s": (samples as f64 / busy_s).round(),
        "poller_samples_per_s": fleet.servers as f64 / 20.0,
        "charts": charts,
        "search_p50_ms": percentile(ms.clone(), 0.5),
        "search_p95_ms": percentile(ms, 0.95),
    })
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let now = relay::net::unix_ms();
    let fleet = Fleet {
        servers: args.first().copied().unwrap_or(2000),
        names: args.get(1).copied().unwrap_or(50_000),
        days: args.get(2).copied().unwrap_or(365) as u64,
        now: now - now % HOUR_MS,
    };
    let dir = tempfile::tempdir().unwrap();
    // MUSTER_BENCH_KEEP=1 leaves the SQLite file behind, to look inside.
    let dir = if std::env::var_os("MUSTER_BENCH_KEEP").is_some() {
        let kept = dir.keep();
        eprintln!("history_bench: keeping {}", kept.display());
        kept
    } else {
        dir.path().to_owned()
    };
    let sqlite = StoreArgs {
        data_dir: dir.clone(),
        database: None,
    };
    let sqlite_figures = measure("sqlite", &fleet, &|| sqlite.open().unwrap(), 1);
    let postgres_figures = std::env::var("MUSTER_BENCH_POSTGRES").ok().map(|url| {
        let pg = StoreArgs {
            data_dir: dir.clone(),
            database: Some(url),
        };
        measure("postgres", &fleet, &|| pg.open().unwrap(), 4)
    });
    let p95 = |v: &Value| {
        ["24h", "30d", "1y"]
            .iter()
            .map(|r| v["charts"][r]["p95_ms"].as_f64().unwrap_or(f64::MAX))
            .fold(0.0, f64::max)
    };
    let goals = json!({
        "sqlite_size_under_300_mb": sqlite_figures["size_mb"].as_f64().unwrap_or(f64::MAX) <= 300.0,
        "sqlite_chart_p95_under_50_ms": p95(&sqlite_figures) < 50.0,
        "sqlite_search_p95_under_50_ms": sqlite_figures["search_p95_ms"].as_f64().unwrap_or(f64::MAX) < 50.0,
        "postgres_chart_p95_under_50_ms": postgres_figures.as_ref().map(|p| p95(p) < 50.0),
        "postgres_search_p95_under_50_ms": postgres_figures.as_ref().map(|p| p["search_p95_ms"].as_f64().unwrap_or(f64::MAX) < 50.0),
    });
    let ratio = postgres_figures.as_ref().map(|p| {
        let r = |key: &str| {
            let (a, b) = (
                p[key].as_f64().unwrap_or(0.0),
                sqlite_figures[key].as_f64().unwrap_or(0.0),
            );
            if b > 0.0 {
                (a / b * 100.0).round() / 100.0
            } else {
                f64::NAN
            }
        };
        json!({
            "size": r("size_mb"),
            "write_batch_p50": r("write_batch_p50_ms"),
            "search_p95": r("search_p95_ms"),
            "chart_p95_max": (p95(p) / p95(&sqlite_figures) * 100.0).round() / 100.0,
        })
    });
    println!(
        "{}",
        json!({
            "bench": "history",
            "servers": fleet.servers,
            "names": fleet.names,
            "days": fleet.days,
            "sqlite": sqlite_figures,
            "postgres": postgres_figures,
            "postgres_over_sqlite": ratio,
            "goals": goals,
        })
    );
}
