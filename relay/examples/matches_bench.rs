//! `cargo xtask bench matches`: generated followed matches written through the relay's own
//! write path (parts merged into records, figures added up, ratings), on SQLite and on
//! PostgreSQL side by side. Measured: kills written per second, database bytes per stored kill,
//! and the p50/p95 of what a match page, a player page and a leaderboard read. Goals: every
//! page p95 under 50 ms on both backends; SQLite at most 40 bytes per kill. Last line: JSON.
//!
//! The month is shaped like a busy UO server's: full for the evening's 8 hours (24 matches of
//! 20 minutes), 16 to 24 names each from a pool the server's regulars come from, about 4 kills a
//! minute per 10 names. 200 servers for 30 days make some 23 million kills.
//!
//! Then live: the relay (its own process, SQLite history) following LIVE lab matches at once
//! (the lab its own process, 12 players a server, 2-minute maps), beside the same relay
//! following none: the difference in the relay's CPU and resident memory, per followed match
//! (goal: at most 1% of a core), and the kill records it wrote per second.
//!
//! Usage: matches_bench [SERVERS] [DAYS] [NAMES] [LIVE]  (PostgreSQL: MUSTER_BENCH_POSTGRES=URL;
//! LIVE 0 skips the live half; MUSTER_BIN_DIR names the release binaries).
//! The full month takes long on PostgreSQL (half an hour); smaller runs report the per-page
//! figures of a smaller store.

use std::time::{Duration, Instant};

use protocol::relay_api::matches::{KillKind, MatchEnd};
use protocol::relay_api::watch::Team;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use relay::store::matches::record::{Board, Kill, Record, Stay};
use relay::store::matches::{self, MatchFilter, MatchPart};
use relay::store::{Store, StoreArgs, DAY_MS};
use serde_json::{json, Value};

use bench_util::{cpu_seconds, free_tcp_port, percentile, relay_args, rss_kib, start};

mod bench_util;

const MATCH_MS: u64 = 20 * 60_000;
/// Matches a server plays a day: the evening's 8 busy hours.
const MATCHES_A_DAY: u64 = 24;
/// When the evening's first match starts, from midnight.
const EVENING_MS: u64 = 16 * 3_600_000;
const WEAPONS: [&str; 8] = [
    "kar98k_mp",
    "m1garand_mp",
    "thompson_mp",
    "mp40_mp",
    "springfield_mp",
    "bar_mp",
    "MOD_HEAD_SHOT",
    "MOD_GRENADE_SPLASH",
];

struct Month {
    servers: usize,
    days: u64,
    names: usize,
    start: u64,
}

fn name(i: usize) -> String {
    format!("^{}Player{i}", i % 8)
}

/// One generated match as its tap would send it whole: kills, stays, the final board.
fn generate(rng: &mut SmallRng, month: &Month, server: usize, n: u64) -> MatchPart {
    let mut record = Record::default();
    let crowd = rng.random_range(16..=24);
    // A server's regulars: a window of the name pool, most matches drawing from it.
    let base = (server * 500) % month.names;
    let names: Vec<u32> = (0..crowd)
        .map(|_| {
            let i = if rng.random_bool(0.8) {
                (base + rng.random_range(0..500)) % month.names
            } else {
                rng.random_range(0..month.names)
            };
            record.name(&name(i))
        })
        .collect();
    let team = |k: usize| {
        if k.is_multiple_of(2) {
            Team::Axis
        } else {
            Team::Allies
        }
    };
    let kills = crowd * 8;
    let mut score = [0i32; 2];
    let mut by = vec![0i32; crowd];
    for k in 0..kills {
        let t = 1000 + (k as u64 * MATCH_MS / kills as u64) as i32;
        let a = rng.random_range(0..crowd);
        let mut v = rng.random_range(0..crowd);
        if team(v) == team(a) {
            v = (v + 1) % crowd;
        }
        let weapon = record.weapon(WEAPONS[rng.random_range(0..WEAPONS.len())]);
        let at = |rng: &mut SmallRng| {
            Some([
                rng.random_range(-3000..3000),
                rng.random_range(-3000..3000),
                rng.random_range(0..300),
            ])
        };
        record.kills.push(Kill {
            t,
            attacker: Some(names[a]),
            victim: names[v],
            weapon,
            kind: KillKind::Kill,
            attacker_team: team(a),
            victim_team: team(v),
            attacker_at: at(rng),
            victim_at: at(rng),
        });
        score[a % 2] += 1;
        by[a] += 1;
    }
    for &id in &names {
        record.stays.push(Stay {
            name: id,
            from: 0,
            to: MATCH_MS as i32,
        });
    }
    record
        .team_scores
        .push((MATCH_MS as i32, score[0], score[1]));
    record.board = Some(Board {
        t: MATCH_MS as i32,
        axis: score[0],
        allies: score[1],
        rows: names
            .iter()
            .enumerate()
            .map(|(k, &id)| (id, team(k), by[k], 0))
            .collect(),
    });
    let start_ms =
        month.start + n / MATCHES_A_DAY * DAY_MS + EVENING_MS + n % MATCHES_A_DAY * MATCH_MS;
    MatchPart {
        server: format!("10.{}.{}.1:28960", server / 250, server % 250),
        map: "mp_foy".into(),
        level_start: ((start_ms - month.start) % 1_000_000_000) as i32,
        gametype: "tdm".into(),
        hostname: format!("Server {server}"),
        start_ms,
        end_ms: start_ms + MATCH_MS,
        ended: Some(MatchEnd::Intermission),
        record,
        demo: None,
        fence: None,
    }
}

fn timed(samples: usize, mut f: impl FnMut(usize)) -> Value {
    let mut ms = Vec::with_capacity(samples);
    for i in 0..samples {
        let t = Instant::now();
        f(i);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    json!({ "p50_ms": percentile(ms.clone(), 0.5), "p95_ms": percentile(ms, 0.95) })
}

fn measure(label: &str, month: &Month, store: &mut dyn Store) -> Value {
    let mut rng = SmallRng::seed_from_u64(22);
    let per_server = month.days * MATCHES_A_DAY;
    let (mut kills, mut written) = (0u64, 0u64);
    let began = Instant::now();
    for n in 0..per_server {
        let parts: Vec<MatchPart> = (0..month.servers)
            .map(|s| generate(&mut rng, month, s, n))
            .collect();
        kills += parts
            .iter()
            .map(|p| p.record.kills.len() as u64)
            .sum::<u64>();
        written += parts.len() as u64;
        store
            .transact(&mut |db| matches::write_parts(db, &parts, &|_| false).map(drop))
            .unwrap();
        if n.is_multiple_of(50) {
            eprintln!("matches_bench {label}: {written} matches, {kills} kills");
        }
    }
    let write_s = began.elapsed().as_secs_f64();
    if label == "postgres" {
        // What autovacuum does to a table after a month of updates, done now rather than
        // waited for: dead rows gone, the planner's statistics taken.
        store.exec().unwrap().exec("VACUUM ANALYZE", &[]).unwrap();
    }
    let size = store.size_bytes().unwrap();
    let ids: Vec<u64> = matches::list(
        store.exec().unwrap(),
        &MatchFilter {
            limit: 500,
            ..Default::default()
        },
    )
    .unwrap()
    .iter()
    .map(|m| m.id)
    .collect();
    let match_page = timed(100, |i| {
        let m = matches::detail(store.exec().unwrap(), ids[i % ids.len()])
            .unwrap()
            .unwrap();
        assert!(relay::matches::score(&m).len() > 100);
        assert!(relay::matches::heatmap(&m, None).len() > 100);
    });
    let player_page = timed(100, |_| {
        let key = relay::store::name_key(&name(rng.random_range(0..month.names)));
        let _ = matches::player(store.exec().unwrap(), &key, 20).unwrap();
    });
    let now = month.start + month.days * DAY_MS;
    let mut boards = serde_json::Map::new();
    for (label, period) in [
        ("week", matches::Period::Week),
        ("month", matches::Period::Month),
        ("all", matches::Period::All),
    ] {
        boards.insert(
            label.into(),
            timed(20, |i| {
                let board = matches::Board {
                    // Site-wide by rating, and one server's.
                    server: (i % 2 == 1).then(|| "10.0.3.1:28960".to_owned()),
                    gametype: Some("tdm".into()),
                    period,
                    // The month's last full day: its week and month hold matches.
                    at_ms: now - DAY_MS,
                    min_matches: 3,
                    limit: 100,
                };
                let rows = matches::leaderboard(store.exec().unwrap(), &board).unwrap();
                assert!(!rows.is_empty());
            }),
        );
    }
    json!({
        "matches": written,
        "kills": kills,
        "write_s": (write_s * 10.0).round() / 10.0,
        "kills_written_per_s": (kills as f64 / write_s).round(),
        "size_mb": (size as f64 / 1e5).round() / 10.0,
        "bytes_per_kill": (size as f64 / kills.max(1) as f64 * 10.0).round() / 10.0,
        "match_page": match_page,
        "player_page": player_page,
        "leaderboard": boards,
    })
}

/// Seconds each relay is measured for.
const LIVE_WINDOW: Duration = Duration::from_secs(60);

/// Kills in the matches the relay at `http` lists.
async fn kills_listed(http: &str) -> anyhow::Result<u64> {
    let list: Value = reqwest::get(format!("http://{http}/api/matches?limit=500"))
        .await?
        .json()
        .await?;
    Ok(list
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["kills"].as_u64().unwrap_or(0))
        .sum())
}

/// The relay's hubs that have their match's picture (joined and in game).
async fn hubs(http: &str) -> anyhow::Result<usize> {
    let v: Value = reqwest::get(format!("http://{http}/api/spectate"))
        .await?
        .json()
        .await?;
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .filter(|h| !h["server_time"].is_null())
        .count())
}

/// One relay on the lab for [`LIVE_WINDOW`]: its CPU (cores), resident KiB, hubs, kills/s.
async fn measure_relay(
    bin: &std::path::Path,
    master_port: u16,
    extra: &[String],
) -> anyhow::Result<(f64, f64, usize, f64)> {
    let data = tempfile::tempdir()?;
    let http_port = free_tcp_port();
    let http = format!("127.0.0.1:{http_port}");
    let mut args = relay_args(http_port, master_port, data.path());
    args.extend(["--data-dir".to_owned(), data.path().display().to_string()]);
    args.extend(extra.iter().cloned());
    let relay = start(bin.join("muster"), &args, "muster: serving")?;
    let pid = relay.0.id();
    // Joined, and a map begun, before the window opens.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let (cpu_before, kills_before) = (cpu_seconds(pid), kills_listed(&http).await?);
    let began = Instant::now();
    tokio::time::sleep(LIVE_WINDOW).await;
    let elapsed = began.elapsed().as_secs_f64();
    let cpu = (cpu_seconds(pid) - cpu_before) / elapsed;
    let kills = kills_listed(&http).await?.saturating_sub(kills_before) as f64 / elapsed;
    Ok((cpu, rss_kib(pid), hubs(&http).await?, kills))
}

/// The live half: LIVE lab matches followed at once, against the same relay following none.
async fn live(matches: usize) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir()?;
    let (_lab, bin, master_port, follow) =
        bench_util::followed_fleet(matches, 47_960, dir.path(), "busy")?;
    let (idle_cpu, idle_rss, _, _) = measure_relay(&bin, master_port, &[]).await?;
    let (cpu, rss, followed, kills_per_s) = measure_relay(&bin, master_port, &follow).await?;
    let per = |v: f64| v / followed.max(1) as f64;
    Ok(json!({
        "matches_asked": matches,
        "matches_followed": followed,
        "relay_cpu_cores_idle": (idle_cpu * 1000.0).round() / 1000.0,
        "relay_cpu_cores_following": (cpu * 1000.0).round() / 1000.0,
        "cpu_share_of_a_core_per_match": (per(cpu - idle_cpu) * 10000.0).round() / 10000.0,
        "relay_rss_idle_mib": (idle_rss / 1024.0 * 10.0).round() / 10.0,
        "relay_rss_following_mib": (rss / 1024.0 * 10.0).round() / 10.0,
        "rss_kib_per_match": per(rss - idle_rss).round(),
        "kills_written_per_s": (kills_per_s * 10.0).round() / 10.0,
    }))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let now = relay::net::unix_ms();
    let month = Month {
        servers: args.first().copied().unwrap_or(200),
        days: args.get(1).copied().unwrap_or(30) as u64,
        names: args.get(2).copied().unwrap_or(100_000),
        start: now - now % DAY_MS - 30 * DAY_MS,
    };
    let dir = tempfile::tempdir().unwrap();
    // MUSTER_BENCH_KEEP=DIR writes the SQLite database there, kept for a look at its bytes.
    let data_dir = std::env::var_os("MUSTER_BENCH_KEEP")
        .map_or_else(|| dir.path().to_owned(), std::path::PathBuf::from);
    let sqlite = StoreArgs {
        data_dir,
        database: None,
    };
    let sqlite_figures = measure("sqlite", &month, sqlite.open().unwrap().as_mut());
    let postgres_figures = std::env::var("MUSTER_BENCH_POSTGRES").ok().map(|url| {
        let pg = StoreArgs {
            data_dir: dir.path().to_owned(),
            database: Some(url),
        };
        measure("postgres", &month, pg.open().unwrap().as_mut())
    });
    let live_matches = args.get(3).copied().unwrap_or(50);
    let live_figures = (live_matches > 0).then(|| {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(live(live_matches))
            .unwrap_or_else(|e| json!({ "error": e.to_string() }))
    });
    let worst = |v: &Value| {
        let p95 = |x: &Value| x["p95_ms"].as_f64().unwrap_or(f64::MAX);
        ["week", "month", "all"]
            .iter()
            .map(|p| p95(&v["leaderboard"][p]))
            .chain([p95(&v["match_page"]), p95(&v["player_page"])])
            .fold(0.0, f64::max)
    };
    let goals = json!({
        "sqlite_at_most_40_bytes_per_kill": sqlite_figures["bytes_per_kill"].as_f64().unwrap_or(f64::MAX) <= 40.0,
        "sqlite_pages_p95_under_50_ms": worst(&sqlite_figures) < 50.0,
        "postgres_pages_p95_under_50_ms": postgres_figures.as_ref().map(|p| worst(p) < 50.0),
        "following_at_most_1_percent_of_a_core_per_match": live_figures
            .as_ref()
            .and_then(|l| l["cpu_share_of_a_core_per_match"].as_f64())
            .map(|share| share <= 0.01),
    });
    let ratio = postgres_figures.as_ref().map(|p| {
        let r = |a: f64, b: f64| if b > 0.0 { (a / b * 100.0).round() / 100.0 } else { f64::NAN };
        json!({
            "bytes_per_kill": r(p["bytes_per_kill"].as_f64().unwrap_or(0.0), sqlite_figures["bytes_per_kill"].as_f64().unwrap_or(0.0)),
            "kills_written_per_s": r(p["kills_written_per_s"].as_f64().unwrap_or(0.0), sqlite_figures["kills_written_per_s"].as_f64().unwrap_or(0.0)),
            "worst_page_p95": r(worst(p), worst(&sqlite_figures)),
        })
    });
    println!(
        "{}",
        json!({
            "bench": "matches",
            "servers": month.servers,
            "days": month.days,
            "names": month.names,
            "sqlite": sqlite_figures,
            "postgres": postgres_figures,
            "postgres_over_sqlite": ratio,
            "live": live_figures,
            "goals": goals,
        })
    );
}
