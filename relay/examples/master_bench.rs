//! `cargo xtask bench master`: the replacement master with 10,000 registered servers.
//!
//! 10,000 fake servers on loopback (313 addresses in 127.2.0.0/16, 32 ports each, as many as
//! the per-address cap allows), started at 10,000 a second, each heartbeat the master and answer its challenge as a stock
//! server does, retrying when a challenge does not come (the per-address challenge cap holds
//! some back). Measured: the time until all are registered, the memory the master holds per
//! server (jemalloc's count), lists per second served to 16 clients asking `getservers 22 full
//! empty` back to back (each list about 52 packets), and QStat, a third-party master client,
//! reading the whole list. The last line printed is one JSON object.
//!
//! Usage: master_bench [SERVERS]

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::cod::master::ServerList;
use protocol::cod::master_server::MasterConfig;
use serde_json::json;
use tokio::net::UdpSocket;

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const PER_ADDRESS: usize = 32;
const CLIENTS: usize = 16;
const LIST_SECONDS: u64 = 5;

fn allocated() -> f64 {
    let _ = tikv_jemalloc_ctl::epoch::advance();
    tikv_jemalloc_ctl::stats::allocated::read().unwrap_or(0) as f64
}

fn oob(text: &str) -> Vec<u8> {
    let mut d = vec![0xff; 4];
    d.extend_from_slice(text.as_bytes());
    d
}

/// One fake server: heartbeat, answer the challenge; again soon if no challenge came, and
/// every few seconds after that.
async fn server(ip: Ipv4Addr, master: SocketAddr, index: usize) -> anyhow::Result<()> {
    let socket = UdpSocket::bind(SocketAddrV4::new(ip, 0)).await?;
    socket.connect(master).await?;
    let mut buf = [0u8; 256];
    loop {
        socket.send(&oob("heartbeat COD-1\n")).await?;
        let Ok(Ok(len)) =
            tokio::time::timeout(Duration::from_millis(300), socket.recv(&mut buf)).await
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&buf[4..len]).into_owned();
        let Some(challenge) = text.strip_prefix("getinfo ") else {
            continue;
        };
        let info = format!(
            "infoResponse\n\\challenge\\{}\\protocol\\22\\hostname\\bench {index}\\mapname\\mp_foy\\g_gametype\\tdm\\clients\\{}\\sv_maxclients\\32",
            challenge.trim(),
            index % 20
        );
        socket.send(&oob(&info)).await?;
        // An answer lost on the way is made good by the next heartbeat, as a stock server's
        // next one would (every 180 s; sooner here).
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
}

/// Lists a client receives back to back until `until`.
async fn client(ip: Ipv4Addr, master: SocketAddr, servers: usize, until: Instant) -> (u64, u64) {
    let Ok(socket) = UdpSocket::bind(SocketAddrV4::new(ip, 0)).await else {
        return (0, 0);
    };
    let _ = socket.connect(master).await;
    let mut buf = vec![0u8; 2048];
    let (mut lists, mut packets) = (0, 0);
    while Instant::now() < until {
        let _ = socket.send(&oob("getservers 22 full empty")).await;
        let mut got = 0;
        while got < servers {
            match tokio::time::timeout(Duration::from_millis(500), socket.recv(&mut buf)).await {
                Ok(Ok(len)) => {
                    got += ServerList::parse(&buf[..len]).map_or(0, |l| l.servers.len());
                    packets += 1;
                }
                _ => break,
            }
        }
        if got >= servers {
            lists += 1;
        }
    }
    (lists, packets)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let servers: usize = std::env::args().nth(1).map_or(Ok(10_000), |s| s.parse())?;
    let before = allocated();
    let config = MasterConfig {
        allow_private: true,
        max_servers: servers + 1000,
        // The clients below ask back to back: the flood limit would stop them, as it should.
        flood: None,
        ..MasterConfig::default()
    };
    let (master, _task) = relay::master::start("127.0.0.1:0".parse()?, config, vec![]).await?;
    let addr = master.addr;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..servers {
        let n = i / PER_ADDRESS;
        let ip = Ipv4Addr::new(127, 2, (n / 250) as u8, (n % 250) as u8 + 1);
        tasks.push(tokio::spawn(server(ip, addr, i)));
        // Heartbeats arrive spread out, as a fleet's do, at 10,000 a second.
        if i % 100 == 99 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let registered = master.summary().registered as usize;
        if registered >= servers {
            break;
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "only {registered} of {servers} registered: {}",
            serde_json::to_string(&master.counters()).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let register_s = started.elapsed().as_secs_f64();
    let held = allocated() - before;

    let until = Instant::now() + Duration::from_secs(LIST_SECONDS);
    let done = Arc::new(AtomicU64::new(0));
    let mut clients = Vec::new();
    for c in 0..CLIENTS {
        let ip = Ipv4Addr::new(127, 3, 0, c as u8 + 1);
        let done = done.clone();
        clients.push(tokio::spawn(async move {
            let result = client(ip, addr, servers, until).await;
            done.fetch_add(result.0, Ordering::Relaxed);
            result
        }));
    }
    let mut packets = 0;
    for c in clients {
        packets += c.await?.1;
    }
    let lists = done.load(Ordering::Relaxed);

    // QStat reads the whole list, as a third-party client.
    let cfg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/qstat-coduo.cfg");
    let master_s = addr.to_string();
    let qstat = tokio::task::spawn_blocking(move || {
        std::process::Command::new("quakestat")
            // It goes on to query every server listed; the count of the list is what matters.
            // (the fake servers do not answer it: one quick try each).
            .args([
                "-cfg",
                cfg.to_str().unwrap_or_default(),
                "-json",
                "-maxsim",
                "1000",
            ])
            .args([
                "-retry",
                "1",
                "-interval",
                "0.2",
                "-timeout",
                "60",
                "-coduom",
                &master_s,
            ])
            .output()
    })
    .await?;
    let qstat_servers = qstat
        .map_err(|e| eprintln!("quakestat: {e}"))
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| eprintln!("quakestat: {e}: {}", &text[..text.len().min(300)]))
                .ok()
        })
        .and_then(|v| {
            let servers = v
                .as_array()
                .and_then(|a| a.first())
                .and_then(|m| m["servers"].as_u64());
            if servers.is_none() {
                eprintln!(
                    "quakestat: {}",
                    v.to_string().chars().take(300).collect::<String>()
                );
            }
            servers
        });
    let counters = master.counters();
    for t in tasks {
        t.abort();
    }
    println!(
        "{}",
        json!({
            "bench": "master",
            "servers": servers,
            "register_all_s": (register_s * 100.0).round() / 100.0,
            "registrations_per_s": (servers as f64 / register_s).round(),
            "held_bytes_per_server": (held / servers as f64).round(),
            "list_clients": CLIENTS,
            "lists_per_s": (lists as f64 / LIST_SECONDS as f64 * 10.0).round() / 10.0,
            "list_packets_per_s": (packets as f64 / LIST_SECONDS as f64).round(),
            "qstat_servers_listed": qstat_servers,
            "challenges_sent": counters.challenges_sent,
            "dropped": counters.dropped,
        })
    );
    Ok(())
}
