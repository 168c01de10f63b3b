//! The replacement master on real sockets on 127.0.0.1: lab servers heartbeat it as stock
//! servers do, QStat lists them from it, a relay polls it, a real OpenArena server heartbeats it
//! and is refused for its protocol, and dpmaster's own test list (flood, servers per address, a
//! full list, bad info strings, loopback refused, challenge mismatch, a spoofed heartbeat)
//! holds against it. `/api/master` is the observer.

use crate::common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use lab::{Lab, LabConfig};
use protocol::cod::master::ServerList;
use protocol::cod::master_server::{Flood, MasterConfig};
use relay::{MasterListen, PollerConfig, Relay, ServeConfig};
use serde_json::Value;
use tokio::net::UdpSocket;

const LIMIT: Duration = Duration::from_secs(30);

fn lab_beating(servers: usize, master: SocketAddr) -> LabConfig {
    LabConfig {
        heartbeat: Duration::from_millis(500),
        heartbeat_to: vec![master],
        ..common::lab_config(servers, 100)
    }
}

/// A relay that is also a master on a free port (loopback allowed, the lab being there).
async fn master_relay(config: MasterConfig, federate: Vec<String>) -> Relay {
    Relay::start(ServeConfig {
        dist: common::dist(),
        poller: PollerConfig {
            masters: vec![],
            lan: vec![],
            master_interval: Duration::from_secs(2),
            refresh_interval: Duration::from_secs(2),
            ..PollerConfig::default()
        },
        master: Some(MasterListen {
            listen: "127.0.0.1:0".parse().unwrap(),
            config: MasterConfig {
                allow_private: true,
                ..config
            },
            federate,
        }),
        ..ServeConfig::default()
    })
    .await
    .unwrap()
}

fn master_addr(relay: &Relay) -> SocketAddr {
    relay.master.as_ref().unwrap().0.addr
}

async fn api(relay: &Relay) -> Value {
    reqwest::get(format!("http://{}/api/master", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn until(what: &str, mut done: impl AsyncFnMut() -> Result<(), String>) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        match done().await {
            Ok(()) => return,
            Err(last) if tokio::time::Instant::now() > deadline => {
                panic!("{what} never happened; last: {last}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

fn listed(api: &Value) -> Vec<String> {
    let mut addrs: Vec<String> = api["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "verified")
        .map(|s| s["addr"].as_str().unwrap().to_owned())
        .collect();
    addrs.sort();
    addrs
}

fn dropped(api: &Value, kind: &str) -> u64 {
    api["counters"]["dropped"][kind].as_u64().unwrap_or(0)
}

fn addrs(lab: &Lab) -> Vec<String> {
    let mut addrs: Vec<String> = lab.servers.iter().map(|s| s.addr.to_string()).collect();
    addrs.sort();
    addrs
}

fn qstat_cfg() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/qstat-coduo.cfg")
}

#[tokio::test(flavor = "multi_thread")]
async fn lab_servers_register_and_qstat_and_the_relay_list_them() {
    let relay = master_relay(MasterConfig::default(), vec![]).await;
    let master = master_addr(&relay);
    let lab = Lab::start(lab_beating(6, master)).await.unwrap();
    until("every lab server is verified", async || {
        let got = listed(&api(&relay).await);
        (got == addrs(&lab)).then_some(()).ok_or(format!("{got:?}"))
    })
    .await;
    let state = api(&relay).await;
    for server in state["servers"].as_array().unwrap() {
        assert_eq!(server["origin"]["kind"], "heartbeat");
        assert!(server["heartbeat_unix_ms"].as_u64().is_some());
    }
    // QStat, a third-party master client, reads the whole list from it.
    let master_s = master.to_string();
    let out = tokio::task::spawn_blocking(move || {
        let output = Command::new("quakestat")
            .args([
                "-cfg",
                qstat_cfg().to_str().unwrap(),
                "-json",
                "-coduom",
                &master_s,
            ])
            .output()
            .expect("quakestat runs (cargo xtask test installs qstat)");
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    })
    .await
    .unwrap();
    let entries = out.as_array().unwrap();
    assert_eq!(entries[0]["status"], "online", "{out}");
    assert_eq!(entries[0]["servers"], 6);
    let mut from_qstat: Vec<String> = entries[1..]
        .iter()
        .map(|e| e["address"].as_str().unwrap().to_owned())
        .collect();
    from_qstat.sort();
    assert_eq!(from_qstat, addrs(&lab));
    // The relay polls its own master like any other and lists every server from it.
    let source = format!("127.0.0.1:{}", master.port());
    until("the relay lists every server from its master", async || {
        let found = lab
            .servers
            .iter()
            .filter(|s| {
                relay
                    .directory
                    .contains(s.addr.to_string().parse().unwrap())
            })
            .count();
        (found == 6).then_some(()).ok_or(format!("{found}"))
    })
    .await;
    let masters: Value = reqwest::get(format!("http://{}/api/masters", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(masters.to_string().contains(&source), "{masters}");
    // Shutting down, each server sends `heartbeat flatline`: gone from the list at once.
    lab.shutdown().await;
    until("flatlines hide every server", async || {
        let state = api(&relay).await;
        let flatlined = state["servers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["state"] == "flatlined")
            .count();
        (flatlined == 6 && state["counters"]["flatlines"] == 6)
            .then_some(())
            .ok_or(state["counters"].to_string())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_status_is_kept_and_the_lab_master_federates_only_what_answers() {
    // The lab's own master lists 6 servers, a third of them silent to anyone else.
    let lab = Lab::start(LabConfig {
        faults: lab::FaultPlan {
            silent: 0.34,
            ..lab::FaultPlan::default()
        },
        status_every: Duration::from_secs(1),
        ..common::lab_config(6, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let answering: Vec<String> = {
        let mut a: Vec<String> = lab
            .servers
            .iter()
            .filter(|s| s.fault == lab::Fault::None)
            .map(|s| s.addr.to_string())
            .collect();
        a.sort();
        a
    };
    assert!(
        !answering.is_empty() && answering.len() < 6,
        "{answering:?}"
    );
    let relay = master_relay(MasterConfig::default(), vec![lab.master.to_string()]).await;
    until("the answering servers are federated", async || {
        let got = listed(&api(&relay).await);
        (got == answering).then_some(()).ok_or(format!("{got:?}"))
    })
    .await;
    let state = api(&relay).await;
    for server in state["servers"].as_array().unwrap() {
        assert_eq!(server["origin"]["kind"], "federated");
        assert_eq!(server["origin"]["master"], lab.master.to_string());
    }
    // A lab server heartbeating us directly also sends its full status, which is kept.
    let beating = Lab::start(LabConfig {
        status_every: Duration::from_millis(700),
        ..lab_beating(1, master_addr(&relay))
    })
    .await
    .unwrap();
    let addr = beating.servers[0].addr.to_string();
    until("the server's full status is kept", async || {
        let state = api(&relay).await;
        let server = state["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["addr"] == addr)
            .cloned();
        let players = server.as_ref().and_then(|s| s["players"].as_u64());
        (players.is_some_and(|p| p > 0)
            && players.map(|p| p as usize) <= Some(beating.servers[0].snapshot().players.len()))
        .then_some(())
        .ok_or(format!("{server:?}"))
    })
    .await;
}

fn oob(text: &str) -> Vec<u8> {
    let mut d = vec![0xff; 4];
    d.extend_from_slice(text.as_bytes());
    d
}

async fn recv(socket: &UdpSocket) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 2048];
    match tokio::time::timeout(Duration::from_millis(500), socket.recv(&mut buf)).await {
        Ok(Ok(len)) => Some(buf[..len].to_vec()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn dpmaster_s_list_flood_per_address_full_bad_info_mismatch_spoofing_loopback() {
    let relay = master_relay(
        MasterConfig {
            max_per_address: 3,
            max_servers: 4,
            flood: Some(Flood {
                burst: 4,
                refill_ms: 60_000,
            }),
            ..MasterConfig::default()
        },
        vec![],
    )
    .await;
    let master = master_addr(&relay);
    // Servers per address: five servers on 127.0.0.1, three listed.
    let lab = Lab::start(lab_beating(5, master)).await.unwrap();
    until("three servers from one address", async || {
        let state = api(&relay).await;
        (listed(&state).len() == 3 && dropped(&state, "per_address_cap") >= 2)
            .then_some(())
            .ok_or(state["counters"].to_string())
    })
    .await;
    // A full list: a fourth address fits, a fifth does not.
    let fake = async |ip: &'static str| {
        let s = UdpSocket::bind(format!("{ip}:0")).await.unwrap();
        s.connect(master).await.unwrap();
        s
    };
    let register = async |s: &UdpSocket| {
        s.send(&oob("heartbeat COD-1\n")).await.unwrap();
        let probe = recv(s).await.expect("a challenge");
        let text = String::from_utf8_lossy(&probe[4..]).into_owned();
        let challenge = text.strip_prefix("getinfo ").unwrap().trim().to_owned();
        let info = format!("infoResponse\n\\challenge\\{challenge}\\protocol\\22\\sv_maxclients\\8\\clients\\1\\hostname\\fake");
        s.send(&oob(&info)).await.unwrap();
        challenge
    };
    let fourth = fake("127.0.0.2").await;
    register(&fourth).await;
    let fifth = fake("127.0.0.3").await;
    register(&fifth).await;
    until("a full list", async || {
        let state = api(&relay).await;
        (listed(&state).len() == 4 && dropped(&state, "list_full") >= 1)
            .then_some(())
            .ok_or(state["counters"].to_string())
    })
    .await;

    // A spoofed heartbeat: the challenge goes to the address it names, and an answer carrying
    // it from anywhere else registers nothing; nor does a wrong challenge, nor a bad info string.
    let before = api(&relay).await;
    let victim = fake("127.0.0.4").await;
    let spoofer = fake("127.0.0.5").await;
    victim.send(&oob("heartbeat COD-1\n")).await.unwrap();
    let probe = recv(&victim).await.unwrap();
    let challenge = String::from_utf8_lossy(&probe[4..])
        .strip_prefix("getinfo ")
        .unwrap()
        .trim()
        .to_owned();
    let answer = format!("infoResponse\n\\challenge\\{challenge}\\protocol\\22\\sv_maxclients\\8");
    spoofer.send(&oob(&answer)).await.unwrap();
    victim
        .send(&oob(
            "infoResponse\n\\challenge\\12345\\protocol\\22\\sv_maxclients\\8",
        ))
        .await
        .unwrap();
    victim
        .send(&oob("infoResponse\n\\challenge"))
        .await
        .unwrap();
    until("mismatches and a bad info string are counted", async || {
        let state = api(&relay).await;
        let mismatched =
            dropped(&state, "challenge_mismatch") - dropped(&before, "challenge_mismatch");
        let bad = dropped(&state, "unparsed") - dropped(&before, "unparsed");
        (mismatched == 2 && bad == 1)
            .then_some(())
            .ok_or(state["counters"].to_string())
    })
    .await;
    assert_eq!(listed(&api(&relay).await).len(), 4);

    // Flood: four lists, then silence for that address.
    let client = fake("127.0.0.6").await;
    let mut answered = 0;
    for _ in 0..8 {
        client.send(&oob("getservers 22 full empty")).await.unwrap();
        if let Some(packet) = recv(&client).await {
            let list = ServerList::parse(&packet).unwrap();
            assert_eq!(list.servers.len(), 4);
            answered += 1;
        }
    }
    assert_eq!(answered, 4);
    assert!(dropped(&api(&relay).await, "flood") >= 4);
    drop(lab);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_master_that_does_not_allow_private_refuses_loopback() {
    let relay = Relay::start(ServeConfig {
        dist: common::dist(),
        master: Some(MasterListen {
            listen: "127.0.0.1:0".parse().unwrap(),
            config: MasterConfig::default(),
            federate: vec![],
        }),
        ..ServeConfig::default()
    })
    .await
    .unwrap();
    let master = master_addr(&relay);
    let lab = Lab::start(lab_beating(2, master)).await.unwrap();
    until("loopback heartbeats are refused", async || {
        let state = api(&relay).await;
        (dropped(&state, "special_address") >= 4)
            .then_some(())
            .ok_or(state["counters"].to_string())
    })
    .await;
    let state = api(&relay).await;
    assert!(listed(&state).is_empty());
    assert_eq!(
        state["counters"]["challenges_sent"], 0,
        "no packet went to a refused source"
    );
    drop(lab);
}

#[tokio::test]
#[ignore = "needs openarena-server; run by cargo xtask test"]
async fn a_real_openarena_heartbeat_is_refused_for_its_protocol_with_a_clear_log_line() {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    // The master logs to stdout, as the relay does.
    let (_master, mut lines) =
        common::spawn_muster(&["master-server", "--listen", &listen, "--allow-private"]);
    let _server = common::openarena::start(Some(listen.parse().unwrap()), &[]);
    let line = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("master: refused") {
                return line;
            }
        }
        String::new()
    })
    .await
    .expect("OpenArena's heartbeat reached the master and was answered");
    assert!(line.contains("protocol 71"), "{line}");
    assert!(
        line.contains("this master lists protocol 22 only"),
        "{line}"
    );
}
