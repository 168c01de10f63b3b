//! `cargo xtask bench alerts`: what alerts cost and how fast they arrive.
//!
//! 1. Judging: RULES rules (humans reaching N, slots freeing, servers up and down, names seen on
//!    a server and anywhere) over SERVERS servers whose players churn every refresh (a tenth
//!    change their count, one in a hundred go down or come back, names come and go), judged by
//!    the relay's own `alerts::rules::judge`, 30 refreshes. Measured: CPU per refresh (the
//!    judge runs on one thread, so its wall time is its CPU), p50/p99/max, and how many rules
//!    changed state and fired. Goal: under 50 ms per refresh at 100,000 rules.
//! 2. Delivering: the relay in this process (SQLite store) with a lab fleet of FLEET servers on
//!    127.0.0.1, FIRING rules (`server_down`, each to its own webhook path on a local receiver,
//!    so no per-destination limit holds them back); the fleet stops, every rule fires at once.
//!    Measured: from the firing (`at_ms`) and from the fleet going silent to each delivery,
//!    p50/p99 (goal: p99 under 5 s from the firing), and deliveries per second.
//!
//! The comparison is with the goals the issue set; there is no third-party alerting peer on
//! this machine to run beside it. Usage: alerts_bench [RULES] [SERVERS] [FIRING] [FLEET].
//! The last line printed is one JSON object.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use protocol::relay_api::alerts::{AlertEvent, AlertServer, Rule};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use relay::alerts::rules::{judge, Held};
use relay::seams::ServerState;
use serde_json::json;

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    (v[i] * 100.0).round() / 100.0
}

fn name(rng: &mut SmallRng) -> String {
    format!("Player{}", rng.random_range(0..40_000))
}

fn servers(count: usize, rng: &mut SmallRng) -> Vec<ServerState> {
    (0..count)
        .map(|i| {
            let max = [12, 16, 20, 24, 32][i % 5];
            let humans = rng.random_range(0..=max);
            ServerState {
                info: AlertServer {
                    addr: format!("10.{}.{}.1:28960", i / 250, i % 250),
                    hostname: format!("^1Server ^7{i}"),
                    map: "mp_foy".into(),
                    gametype: "tdm".into(),
                    humans,
                    bots: 0,
                    max_clients: max,
                    password: false,
                    up: true,
                },
                up: Some(true),
                names: (0..humans).map(|_| name(rng)).collect(),
            }
        })
        .collect()
}

/// One refresh's churn.
fn churn(states: &mut [ServerState], rng: &mut SmallRng) {
    for s in states.iter_mut() {
        if rng.random_bool(0.01) {
            let up = !s.up.unwrap_or(true);
            s.up = Some(up);
            s.info.up = up;
        }
        if rng.random_bool(0.1) {
            let humans = (s.info.humans as i64 + rng.random_range(-3..=3))
                .clamp(0, s.info.max_clients as i64) as u32;
            s.names.truncate(humans as usize);
            while s.names.len() < humans as usize {
                s.names.push(name(rng));
            }
            s.info.humans = humans;
        }
    }
}

fn rules(count: usize, states: &[ServerState], rng: &mut SmallRng) -> Vec<Held> {
    (0..count)
        .map(|i| {
            let server = states[rng.random_range(0..states.len())].info.addr.clone();
            let rule = match i % 10 {
                0..=3 => Rule::HumansAtLeast {
                    server,
                    n: rng.random_range(1..=24),
                },
                4 | 5 => Rule::SlotFree { server },
                6 => Rule::ServerUp { server },
                7 => Rule::ServerDown { server },
                8 => Rule::NameSeen {
                    name: name(rng),
                    server: Some(server),
                    leaves: false,
                },
                _ => Rule::NameSeen {
                    name: name(rng),
                    server: None,
                    leaves: true,
                },
            };
            Held::new(format!("r{i}"), rule, relay::store::alerts::UNKNOWN)
        })
        .collect()
}

fn judging(rules_n: usize, servers_n: usize) -> serde_json::Value {
    let mut rng = SmallRng::seed_from_u64(41);
    let mut states = servers(servers_n, &mut rng);
    let mut held = rules(rules_n, &states, &mut rng);
    // The first look learns every rule's state.
    let first = Instant::now();
    judge(&mut held, &states, 0);
    let first_ms = first.elapsed().as_secs_f64() * 1000.0;
    let (mut times, mut changed, mut fired) = (Vec::new(), 0, 0);
    for refresh in 1..=30 {
        churn(&mut states, &mut rng);
        let at = Instant::now();
        let changes = judge(&mut held, &states, refresh);
        times.push(at.elapsed().as_secs_f64() * 1000.0);
        changed += changes.len();
        fired += changes.iter().filter(|c| c.fire.is_some()).count();
    }
    json!({
        "rules": rules_n, "servers": servers_n, "refreshes": 30,
        "first_look_ms": (first_ms * 100.0).round() / 100.0,
        "refresh_ms_p50": percentile(times.clone(), 0.5),
        "refresh_ms_p99": percentile(times.clone(), 0.99),
        "refresh_ms_max": percentile(times, 1.0),
        "changed_per_refresh": changed / 30, "fired_per_refresh": fired / 30,
    })
}

type Took = Arc<Mutex<Vec<(u64, u64)>>>;

async fn delivering(firing: usize, fleet: usize) -> anyhow::Result<serde_json::Value> {
    let dir = tempfile::tempdir()?;
    let lab = lab::Lab::start(lab::LabConfig {
        servers: fleet,
        base_port: 0,
        master_port: 0,
        churn: None,
        map_time: None,
        ..lab::LabConfig::default()
    })
    .await?;
    lab.wait_registered(Duration::from_secs(30)).await?;
    // The receiver: when each delivery arrived, and when its rule fired.
    let took: Took = Arc::default();
    let app = axum::Router::new().fallback({
        let took = took.clone();
        move |body: axum::body::Bytes| async move {
            let now = unix_ms();
            if let Ok(event) = serde_json::from_slice::<AlertEvent>(&body) {
                took.lock().unwrap().push((event.at_ms, now));
            }
            "ok"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let at = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = relay::ServeConfig {
        dist: dir.path().to_owned(),
        poller: relay::PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: Vec::new(),
            refresh_interval: Duration::from_secs(1),
            ..relay::PollerConfig::default()
        },
        history: Some(relay::history::HistoryConfig {
            store: relay::store::StoreArgs {
                data_dir: dir.path().to_owned(),
                database: None,
            },
            retention: Default::default(),
            hidden_names: Vec::new(),
        }),
        alerts: relay::alerts::AlertsArgs {
            alert_allow_host: vec!["127.0.0.1".into()],
            alert_rules_per_client: u32::MAX,
            ..relay::alerts::AlertsArgs::default()
        },
        ..relay::ServeConfig::default()
    };
    let relay = relay::Relay::start(config).await?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while relay.directory.servers().len() < fleet {
        anyhow::ensure!(Instant::now() < deadline, "the fleet was never listed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let client = reqwest::Client::new();
    let made = Instant::now();
    for i in 0..firing {
        let server = lab.servers[i % fleet].addr.to_string();
        let response = client
            .post(format!("http://{}/api/alerts", relay.addr))
            .json(&json!({"rule": {"kind": "server_down", "server": server},
                          "to": {"kind": "webhook", "url": format!("{at}/hook/{i}")}}))
            .send()
            .await?;
        anyhow::ensure!(response.status() == 201, "{}", response.text().await?);
    }
    let make_ms = made.elapsed().as_secs_f64() * 1000.0 / firing as f64;
    // Every rule learns its server is up.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let silent_ms = unix_ms();
    lab.shutdown().await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while took.lock().unwrap().len() < firing {
        anyhow::ensure!(
            Instant::now() < deadline,
            "{} of {firing} delivered",
            took.lock().unwrap().len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took = took.lock().unwrap().clone();
    let from_firing: Vec<f64> = took
        .iter()
        .map(|(at, got)| got.saturating_sub(*at) as f64)
        .collect();
    let from_silence: Vec<f64> = took
        .iter()
        .map(|(_, got)| got.saturating_sub(silent_ms) as f64)
        .collect();
    let first = took.iter().map(|t| t.1).min().unwrap_or(0);
    let last = took.iter().map(|t| t.1).max().unwrap_or(0);
    Ok(json!({
        "firing": firing, "fleet": fleet,
        "rule_made_ms": (make_ms * 100.0).round() / 100.0,
        "delivery_ms_p50": percentile(from_firing.clone(), 0.5),
        "delivery_ms_p99": percentile(from_firing, 0.99),
        "from_silence_ms_p50": percentile(from_silence.clone(), 0.5),
        "from_silence_ms_p99": percentile(from_silence, 0.99),
        "deliveries_per_s": (firing as f64 / ((last - first).max(1) as f64 / 1000.0)).round(),
        "rss_mib": rss_mib(),
    }))
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    (kib / 1024.0 * 10.0).round() / 10.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn"))
        .with_writer(std::io::stderr)
        .init();
    let (rules_n, servers_n) = (arg(1, 100_000), arg(2, 2_000));
    let (firing, fleet) = (arg(3, 2_000), arg(4, 20));
    let judged = judging(rules_n, servers_n);
    println!("judging: {judged}");
    let delivered = delivering(firing, fleet).await?;
    println!("delivering: {delivered}");
    let p99 = judged["refresh_ms_p99"].as_f64().unwrap_or(f64::NAN);
    let delivery = delivered["delivery_ms_p99"].as_f64().unwrap_or(f64::NAN);
    println!(
        "{}",
        json!({
            "bench": "alerts",
            "judging": judged,
            "delivering": delivered,
            "refresh_goal_ms": 50, "refresh_vs_goal": (p99 / 50.0 * 100.0).round() / 100.0,
            "delivery_goal_ms": 5000, "delivery_vs_goal": (delivery / 5000.0 * 100.0).round() / 100.0,
        })
    );
    Ok(())
}
