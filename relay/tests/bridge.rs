//! The WebSocket↔UDP bridge against real sockets on 127.0.0.1: lab servers that answer, a
//! silent target that only counts what reaches it, and a third address that tries to inject.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{dist, lab_config, wait_listed};
use futures_util::{SinkExt, StreamExt};
use lab::Lab;
use protocol::cod::oob::Packet;
use relay::bridge::BridgeConfig;
use relay::{PollerConfig, Relay, ServeConfig};
use serde_json::Value;
use tokio::net::UdpSocket;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const LIMIT: Duration = Duration::from_secs(10);

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn relay_with(lab: &Lab, bridge: BridgeConfig) -> Relay {
    relay_in(lab, bridge, None).await
}

/// [`relay_with`], in a cluster if one is given.
async fn relay_in(
    lab: &Lab,
    bridge: BridgeConfig,
    cluster: Option<relay::cluster::ClusterConfig>,
) -> Relay {
    let relay = Relay::start(ServeConfig {
        dist: dist(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: vec![],
            ..PollerConfig::default()
        },
        bridge,
        cluster,
        ..ServeConfig::default()
    })
    .await
    .unwrap();
    wait_listed(&relay, lab).await;
    relay
}

/// A one-server lab and a relay with this bridge that lists it.
async fn lab_and_relay(bridge: BridgeConfig) -> (Lab, Relay) {
    let lab = Lab::start(lab_config(1, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay_with(&lab, bridge).await;
    (lab, relay)
}

fn lab_bridge() -> BridgeConfig {
    BridgeConfig {
        allow_private: true,
        ..BridgeConfig::default()
    }
}

/// Opens `/bridge/TARGET` with these extra headers; the socket, or the refusal's status and
/// body.
async fn open(
    relay: &Relay,
    target: &str,
    headers: &[(&'static str, &str)],
) -> Result<Socket, (u16, String)> {
    let mut request = format!("ws://{}/bridge/{target}", relay.addr)
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response.body().clone().unwrap_or_default();
            Err((
                response.status().as_u16(),
                String::from_utf8_lossy(&body).into_owned(),
            ))
        }
        Err(e) => panic!("{target}: {e}"),
    }
}

/// Opens `/bridge/TARGET` and reads the relay's first word: `session`, or `closed` with why.
async fn first(relay: &Relay, target: &str, headers: &[(&'static str, &str)]) -> (Socket, Value) {
    let mut socket = open(relay, target, headers).await.expect("the upgrade");
    let said = next_text(&mut socket).await.expect("a first word");
    (socket, said)
}

/// The refusal of a session to `target`: its kind and reason.
async fn refusal(
    relay: &Relay,
    target: &str,
    headers: &[(&'static str, &str)],
) -> (String, String) {
    let (mut socket, said) = first(relay, target, headers).await;
    assert_eq!(said["type"], "closed", "{said}");
    assert!(
        next(&mut socket, LIMIT).await.is_none(),
        "then the socket closes"
    );
    let text = |k: &str| said[k].as_str().unwrap().to_owned();
    (text("kind"), text("reason"))
}

/// A session: the socket and the qport the relay assigned.
async fn session(relay: &Relay, target: &str) -> (Socket, u16) {
    let mut socket = open(relay, target, &[]).await.expect("a session opens");
    let hello = next_text(&mut socket).await.expect("the session message");
    assert_eq!(hello["type"], "session");
    assert_eq!(hello["target"], target);
    (socket, hello["qport"].as_u64().unwrap() as u16)
}

/// The next message, as a datagram or as the relay's report.
async fn next(socket: &mut Socket, wait: Duration) -> Option<Result<Vec<u8>, Value>> {
    loop {
        match tokio::time::timeout(wait, socket.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => return Some(Ok(b.to_vec())),
            Ok(Some(Ok(Message::Text(t)))) => return Some(Err(serde_json::from_str(&t).unwrap())),
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

async fn next_text(socket: &mut Socket) -> Option<Value> {
    match next(socket, LIMIT).await? {
        Err(report) => Some(report),
        Ok(datagram) => panic!("a datagram where a report was due: {datagram:?}"),
    }
}

async fn send(socket: &mut Socket, datagram: Vec<u8>) {
    socket.send(Message::Binary(datagram.into())).await.unwrap();
}

fn getinfo() -> Vec<u8> {
    Packet::GetInfo {
        challenge: Some("xxx".into()),
    }
    .emit()
}

/// Waits until the relay counts `n` open sessions; `stuck` says what failed if it never does.
async fn sessions_become(relay: &Relay, n: u64, stuck: &str) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while counters(relay).await["sessions"] != n {
        assert!(tokio::time::Instant::now() < deadline, "{stuck}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn counters(relay: &Relay) -> Value {
    reqwest::get(format!("http://{}/api/bridge", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A target the relay knows (as if a master listed it) that never answers; it keeps what
/// reaches it.
async fn silent_target(relay: &Relay) -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = match socket.local_addr().unwrap() {
        SocketAddr::V4(a) => a,
        SocketAddr::V6(_) => unreachable!(),
    };
    relay
        .directory
        .upsert(relay::browse::pending_server(addr, vec!["test".into()]));
    socket
}

async fn drain(socket: &UdpSocket) -> Vec<(Vec<u8>, SocketAddr)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(Ok((n, from))) =
        tokio::time::timeout(Duration::from_millis(300), socket.recv_from(&mut buf)).await
    {
        got.push((buf[..n].to_vec(), from));
    }
    got
}

#[tokio::test(flavor = "multi_thread")]
async fn getinfo_and_getstatus_reach_a_lab_server_and_its_answers_come_back() {
    let lab = Lab::start(lab_config(2, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay_with(&lab, lab_bridge()).await;
    let server = lab.servers[0].addr.to_string();
    let (mut socket, qport) = session(&relay, &server).await;
    assert_ne!(qport, 0);
    send(&mut socket, getinfo()).await;
    let answer = next(&mut socket, LIMIT).await.unwrap().unwrap();
    let Ok(Packet::InfoResponse(info)) = Packet::parse(&answer) else {
        panic!("{answer:?}")
    };
    assert_eq!(info.get("challenge"), Some("xxx"));
    send(&mut socket, Packet::GetStatus { challenge: None }.emit()).await;
    let answer = next(&mut socket, LIMIT).await.unwrap().unwrap();
    assert!(matches!(
        Packet::parse(&answer),
        Ok(Packet::StatusResponse(_))
    ));
    let c = counters(&relay).await;
    assert_eq!(c["datagrams_to_targets"], 2);
    assert_eq!(c["datagrams_from_targets"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn targets_must_be_known_and_public_unless_allowed() {
    let lab = Lab::start(lab_config(1, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let strict = relay_with(&lab, BridgeConfig::default()).await;
    let server = lab.servers[0].addr.to_string();
    // Listed by the master, but on loopback: refused without --allow-private.
    let (kind, reason) = refusal(&strict, &server, &[]).await;
    assert_eq!(kind, "special_address");
    assert_eq!(reason, "127.0.0.1 is not a public address");
    let relay = relay_with(&lab, lab_bridge()).await;
    // Not listed anywhere.
    assert_eq!(
        refusal(&relay, "127.0.0.1:1", &[]).await,
        (
            "unknown_target".into(),
            "not a server or master this relay knows".into()
        )
    );
    assert_eq!(refusal(&relay, "8.8.8.8:53", &[]).await.0, "reflector_port");
    let (status, _) = open(&relay, "not-an-address", &[]).await.err().unwrap();
    assert_eq!(status, 400);
    // A foreign page may not open it at all.
    let (status, _) = open(&relay, &server, &[("Origin", "https://evil.example")])
        .await
        .err()
        .unwrap();
    assert_eq!(status, 403);
    let own = format!("http://{}", relay.addr);
    assert!(open(&relay, &server, &[("Origin", &own)]).await.is_ok());
    // The master, for getservers only.
    let master = lab.master.to_string();
    let (mut socket, _) = session(&relay, &master).await;
    send(&mut socket, getinfo()).await;
    let report = next_text(&mut socket).await.unwrap();
    assert_eq!(report["kind"], "command");
    assert_eq!(report["reason"], "`getinfo` is not sent to a master");
    send(
        &mut socket,
        b"\xff\xff\xff\xffgetservers 22 full empty".to_vec(),
    )
    .await;
    let list = next(&mut socket, LIMIT).await.unwrap().unwrap();
    assert!(matches!(Packet::parse(&list), Ok(Packet::ServerList(_))));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_target_gets_four_packets_and_a_third_address_cannot_inject() {
    let (_lab, relay) = lab_and_relay(lab_bridge()).await;
    let target = silent_target(&relay).await;
    let addr = target.local_addr().unwrap().to_string();
    let (mut socket, _) = session(&relay, &addr).await;
    for _ in 0..10 {
        send(&mut socket, getinfo()).await;
    }
    let mut reports = Vec::new();
    while let Some(Err(report)) = next(&mut socket, Duration::from_millis(500)).await {
        reports.push(report["kind"].as_str().unwrap().to_owned());
    }
    assert_eq!(reports, vec!["unvalidated_budget"; 6]);
    let got = drain(&target).await;
    assert_eq!(got.len(), 4, "a silent target receives at most 4 packets");
    let bridge_socket = got[0].1;
    // Someone else sends to the relay's socket for this session: the kernel drops it.
    let third = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    third
        .send_to(
            b"\xff\xff\xff\xffinfoResponse\n\\injected\\1",
            bridge_socket,
        )
        .await
        .unwrap();
    // The target's own answer comes through.
    target
        .send_to(b"\xff\xff\xff\xffinfoResponse\n\\real\\1", bridge_socket)
        .await
        .unwrap();
    let answer = next(&mut socket, LIMIT).await.unwrap().unwrap();
    assert_eq!(answer, b"\xff\xff\xff\xffinfoResponse\n\\real\\1");
    assert!(next(&mut socket, Duration::from_millis(300))
        .await
        .is_none());
    let c = counters(&relay).await;
    assert_eq!(c["refused"]["unvalidated_budget"], 6);
    assert!(c["bytes_to_targets"].as_u64() <= c["bytes_from_pages"].as_u64());
}

#[tokio::test(flavor = "multi_thread")]
async fn rcon_other_commands_foreign_qports_and_oversized_messages_are_refused_and_reported() {
    let (_lab, relay) = lab_and_relay(lab_bridge()).await;
    let target = silent_target(&relay).await;
    let addr = target.local_addr().unwrap().to_string();
    let (mut socket, qport) = session(&relay, &addr).await;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"\xff\xff\xff\xffrcon secret quit".to_vec(), "rcon"),
        (b"\xff\xff\xff\xffgetservers 22".to_vec(), "command"),
        (b"\xff\xff\xff\xffheartbeat COD-1".to_vec(), "command"),
        // Sequenced traffic before any challengeResponse.
        (
            [1, 0, 0, 0, (qport & 0xff) as u8, (qport >> 8) as u8, 0].to_vec(),
            "not_validated",
        ),
        (vec![b'x'; 3000], "too_large"),
    ];
    for (datagram, kind) in cases {
        send(&mut socket, datagram).await;
        let report = next_text(&mut socket).await.unwrap();
        assert_eq!(report["type"], "refused");
        assert_eq!(report["kind"], kind, "{report}");
        assert!(!report["reason"].as_str().unwrap().is_empty());
    }
    assert!(
        drain(&target).await.is_empty(),
        "nothing reached the target"
    );
    // A message beyond twice the limit closes the session, saying why; the relay carries on.
    let _ = socket.send(Message::Binary(vec![0; 5000].into())).await;
    let closed = next_text(&mut socket).await.unwrap();
    assert_eq!(closed["type"], "closed");
    assert!(closed["reason"]
        .as_str()
        .unwrap()
        .starts_with("unreadable message"));
    assert!(next(&mut socket, LIMIT).await.is_none());
    let (mut again, _) = session(&relay, &addr).await;
    send(&mut again, getinfo()).await;
    assert_eq!(drain(&target).await.len(), 1);
    let c = counters(&relay).await;
    assert_eq!(c["refused"]["rcon"], 1);
    assert_eq!(c["refused"]["command"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_are_capped_per_client_address_and_forwarded_only_from_a_trusted_proxy() {
    let (lab, relay) = lab_and_relay(BridgeConfig {
        sessions_per_ip: 2,
        max_sessions: 4,
        trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        ..lab_bridge()
    })
    .await;
    let server = lab.servers[0].addr.to_string();
    let a = session(&relay, &server).await;
    let _b = session(&relay, &server).await;
    let (kind, reason) = refusal(&relay, &server, &[]).await;
    assert_eq!(kind, "sessions_per_ip");
    assert_eq!(
        reason,
        "2 bridge sessions are open from this address, the limit"
    );
    // Each qport is the session's own.
    assert_ne!(a.1, _b.1);
    drop(a);
    sessions_become(&relay, 1, "the closed session stayed").await;
    let _c = session(&relay, &server).await;
    // Behind a trusted proxy the forwarded client is counted, not the proxy.
    let forwarded = [("X-Forwarded-For", "198.51.100.7, 203.0.113.9")];
    let (_d, said) = first(&relay, &server, &forwarded).await;
    assert_eq!(said["type"], "session", "{said}");
    let (_e, said) = first(&relay, &server, &forwarded).await;
    assert_eq!(said["type"], "session", "{said}");
    // Four open in all: the relay's limit.
    let (kind, _) = refusal(&relay, &server, &[("X-Forwarded-For", "192.0.2.1")]).await;
    assert_eq!(kind, "sessions_full");
    let c = counters(&relay).await;
    assert_eq!(c["sessions"], 4);
    assert_eq!(c["refused"]["sessions_per_ip"], 1);
    assert_eq!(c["refused"]["sessions_full"], 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_s_query_budget_is_shared_by_every_session_to_it() {
    let (_lab, relay) = lab_and_relay(lab_bridge()).await;
    let target = silent_target(&relay).await;
    let addr = target.local_addr().unwrap().to_string();
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(session(&relay, &addr).await.0);
    }
    let mut refused = 0;
    for socket in &mut sessions {
        for _ in 0..4 {
            send(socket, getinfo()).await;
        }
        while let Some(Err(report)) = next(socket, Duration::from_millis(300)).await {
            assert_eq!(report["kind"], "budget_target");
            refused += 1;
        }
    }
    // Twelve asked; a burst of ten passed, whichever session asked.
    assert_eq!(refused, 2);
    assert_eq!(drain(&target).await.len(), 10);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server: `cargo xtask test` installs it"]
async fn a_server_s_query_budget_is_one_for_a_whole_cluster() {
    let nats = common::engines::Nats::start();
    let lab = Lab::start(lab_config(1, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut relays = Vec::new();
    for _ in 0..2 {
        let cluster = relay::cluster::ClusterConfig {
            urls: vec![nats.url()],
            lease_ttl: Duration::from_secs(6),
        };
        relays.push(relay_in(&lab, lab_bridge(), Some(cluster)).await);
    }
    let target = silent_target(&relays[0]).await;
    let addr = target.local_addr().unwrap();
    let SocketAddr::V4(v4) = addr else {
        unreachable!()
    };
    relays[1]
        .directory
        .upsert(relay::browse::pending_server(v4, vec!["test".into()]));
    // Eight queries through each relay: one budget of a burst of ten for both, as a lone
    // relay would give (each relay alone would have let all sixteen through).
    let mut refused = 0;
    // Two sessions a relay: a session sends four before the target answers.
    let mut sockets = Vec::new();
    for relay in relays.iter().chain(&relays) {
        sockets.push(session(relay, &addr.to_string()).await.0);
    }
    for socket in &mut sockets {
        for _ in 0..4 {
            send(socket, getinfo()).await;
        }
    }
    for socket in &mut sockets {
        while let Some(Err(report)) = next(socket, Duration::from_millis(500)).await {
            assert_eq!(report["kind"], "budget_target");
            refused += 1;
        }
    }
    let reached = drain(&target).await.len();
    assert_eq!(reached + refused, 16);
    // A cell may refill while the test runs (one a second).
    assert!((10..=11).contains(&reached), "{reached} reached the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_session_is_closed_with_its_reason() {
    let (lab, relay) = lab_and_relay(BridgeConfig {
        idle: Duration::from_secs(1),
        ..lab_bridge()
    })
    .await;
    let server = lab.servers[0].addr.to_string();
    let (mut socket, _) = session(&relay, &server).await;
    let closed = next_text(&mut socket).await.unwrap();
    assert_eq!(closed["type"], "closed");
    assert_eq!(closed["reason"], "no datagram either way for 1 s");
    assert!(next(&mut socket, LIMIT).await.is_none());
    sessions_become(&relay, 0, "the idle session is still counted").await;
}

/// Sends a validated session's worth of sequenced datagrams at once through a relay with this
/// bridge: what reached the target, and the kinds of the refusals.
async fn burst(bridge: BridgeConfig, datagrams: usize) -> (usize, Vec<String>) {
    let (_lab, relay) = lab_and_relay(bridge).await;
    let target = silent_target(&relay).await;
    let addr = target.local_addr().unwrap().to_string();
    let (mut socket, qport) = session(&relay, &addr).await;
    send(&mut socket, b"\xff\xff\xff\xffgetchallenge".to_vec()).await;
    let (_, bridge_socket) = drain(&target).await.remove(0);
    target
        .send_to(b"\xff\xff\xff\xffchallengeResponse 77", bridge_socket)
        .await
        .unwrap();
    next(&mut socket, LIMIT).await.unwrap().unwrap();
    let header = [1, 0, 0, 0, (qport & 0xff) as u8, (qport >> 8) as u8];
    for _ in 0..datagrams {
        send(&mut socket, [&header[..], &[0; 8]].concat()).await;
    }
    let mut kinds = Vec::new();
    while let Some(Err(report)) = next(&mut socket, Duration::from_millis(300)).await {
        kinds.push(report["kind"].as_str().unwrap().to_owned());
    }
    (1 + drain(&target).await.len(), kinds)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_s_datagram_budget_and_the_bridge_s_hold_after_validation() {
    // One address: its budget, 20 a second, runs out first.
    let (reached, kinds) = burst(
        BridgeConfig {
            client_rate: 20,
            ..lab_bridge()
        },
        40,
    )
    .await;
    assert!((20..=22).contains(&reached), "{reached} reached the target");
    assert_eq!(kinds.len(), 41 - reached, "{kinds:?}");
    assert!(kinds.iter().all(|k| k == "budget_client"), "{kinds:?}");
    // The whole bridge: 20 a second, whoever sends.
    let (reached, kinds) = burst(
        BridgeConfig {
            global_rate: 20,
            ..lab_bridge()
        },
        40,
    )
    .await;
    assert!((20..=22).contains(&reached), "{reached} reached the target");
    assert!(kinds.iter().all(|k| k == "budget_global"), "{kinds:?}");
}
