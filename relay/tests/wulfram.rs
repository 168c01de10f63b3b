//! The Wulfram II session proxy against a loopback echo peer that listens on TCP and UDP on
//! one port, as a Wulfram II server does: packets go both ways through the relay's WebSocket,
//! the size policy holds in both directions, only configured servers can be reached, and the
//! directory reports the server's reachability and round trip.

use crate::common;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use protocol::relay_api::Reachability;
use protocol::wulfram::frame::{self, FrameReader};
use protocol::wulfram::record::{emit, Mode2Header, StreamMode};
use relay::wulfram::{parse_target, CHANNEL_TCP, CHANNEL_UDP};
use relay::{PollerConfig, Relay, ServeConfig};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};
use tokio_tungstenite::tungstenite::Message;

/// A datagram body that makes the echo peer answer with an oversized datagram.
const TOO_BIG_PLEASE: &[u8] = b"\x40send me something too big";

/// Binds TCP and UDP on one free loopback port and echoes: every TCP frame back as a frame,
/// every datagram back as a datagram.
async fn echo_peer() -> std::net::SocketAddr {
    let (listener, udp) = loop {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        if let Ok(udp) = UdpSocket::bind(listener.local_addr().unwrap()).await {
            break (listener, udp);
        }
    };
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 65536];
        loop {
            let Ok((n, from)) = udp.recv_from(&mut buf).await else {
                return;
            };
            let reply = if &buf[..n] == TOO_BIG_PLEASE {
                vec![0x40; 4000]
            } else {
                buf[..n].to_vec()
            };
            let _ = udp.send_to(&reply, from).await;
        }
    });
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut reader = FrameReader::new();
                let mut buf = vec![0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    reader.push(&buf[..n]);
                    while let Some(Ok(f)) = reader.next_frame() {
                        let bytes = frame::emit(f.opcode, &f.body).unwrap();
                        if stream.write_all(&bytes).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    addr
}

async fn relay_for(peer: std::net::SocketAddr) -> Relay {
    let target = parse_target(&format!("echo={peer}")).await.unwrap();
    Relay::start(ServeConfig {
        poller: PollerConfig {
            masters: vec![],
            lan: vec![],
            ..PollerConfig::default()
        },
        wulfram: relay::wulfram::WulframConfig {
            targets: vec![target],
            check_every: Duration::from_millis(200),
        },
        dist: common::dist(),
        ..ServeConfig::default()
    })
    .await
    .unwrap()
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next(ws: &mut Ws) -> Message {
    tokio::time::timeout(Duration::from_secs(5), ws.next())
        .await
        .expect("the relay answers")
        .expect("the socket stays open")
        .expect("a message")
}

fn text(message: Message) -> Value {
    match message {
        Message::Text(t) => serde_json::from_str(&t).unwrap(),
        other => panic!("expected a report, got {other:?}"),
    }
}

fn binary(channel: u8, payload: &[u8]) -> Message {
    let mut data = vec![channel];
    data.extend_from_slice(payload);
    Message::Binary(data.into())
}

#[tokio::test]
async fn packets_cross_the_proxy_both_ways_within_the_size_policy() {
    let peer = echo_peer().await;
    let relay = relay_for(peer).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/wulfram/echo", relay.addr))
        .await
        .unwrap();
    let hello = text(next(&mut ws).await);
    assert_eq!(
        (hello["type"].as_str(), hello["name"].as_str()),
        (Some("connected"), Some("echo"))
    );

    // TCP: a payload goes out framed and comes back unframed.
    ws.send(binary(CHANNEL_TCP, &[0x35, 0, 0, 0, 42]))
        .await
        .unwrap();
    assert_eq!(
        next(&mut ws).await,
        binary(CHANNEL_TCP, &[0x35, 0, 0, 0, 42])
    );
    // The largest payload passes; one byte more is dropped and reported, never cut.
    let largest = vec![0x20; 10_240];
    ws.send(binary(CHANNEL_TCP, &largest)).await.unwrap();
    assert_eq!(next(&mut ws).await, binary(CHANNEL_TCP, &largest));
    ws.send(binary(CHANNEL_TCP, &vec![0x20; 10_241]))
        .await
        .unwrap();
    let dropped = text(next(&mut ws).await);
    assert_eq!(dropped["type"], "dropped");
    assert_eq!(
        (dropped["direction"].as_str(), dropped["transport"].as_str()),
        (Some("to_server"), Some("tcp"))
    );
    // Transport controls are refused on TCP.
    ws.send(binary(CHANNEL_TCP, &[0x02, 1, 0x19, 0, 1]))
        .await
        .unwrap();
    assert!(text(next(&mut ws).await)["error"]
        .as_str()
        .unwrap()
        .contains("refused on TCP"));

    // UDP: a datagram of several records, and the 3,072-byte limit both ways.
    let mut datagram = emit(0x19, StreamMode::Ordered, 1, &[], Mode2Header::default()).unwrap();
    datagram.extend(
        emit(
            0x35,
            StreamMode::Latest,
            2,
            &[0, 0, 0, 9],
            Mode2Header::default(),
        )
        .unwrap(),
    );
    ws.send(binary(CHANNEL_UDP, &datagram)).await.unwrap();
    assert_eq!(next(&mut ws).await, binary(CHANNEL_UDP, &datagram));
    ws.send(binary(CHANNEL_UDP, &vec![0x40; 3072]))
        .await
        .unwrap();
    assert_eq!(next(&mut ws).await, binary(CHANNEL_UDP, &vec![0x40; 3072]));
    ws.send(binary(CHANNEL_UDP, &vec![0x40; 3073]))
        .await
        .unwrap();
    let dropped = text(next(&mut ws).await);
    assert_eq!(
        (dropped["direction"].as_str(), dropped["transport"].as_str()),
        (Some("to_server"), Some("udp"))
    );
    ws.send(binary(CHANNEL_UDP, TOO_BIG_PLEASE)).await.unwrap();
    let dropped = text(next(&mut ws).await);
    assert_eq!(dropped["direction"], "to_page", "{dropped}");
    assert!(dropped["error"].as_str().unwrap().contains("4000"));

    // The session still works after the drops.
    ws.send(binary(CHANNEL_TCP, &[0x1f, b'h', b'i']))
        .await
        .unwrap();
    assert_eq!(
        next(&mut ws).await,
        binary(CHANNEL_TCP, &[0x1f, b'h', b'i'])
    );
}

#[tokio::test]
async fn only_configured_servers_are_reachable_and_they_are_checked() {
    let peer = echo_peer().await;
    let relay = relay_for(peer).await;
    let unknown =
        tokio_tungstenite::connect_async(format!("ws://{}/wulfram/elsewhere", relay.addr)).await;
    match unknown {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 404)
        }
        other => panic!("an unknown name must not open a session: {other:?}"),
    }
    // The check reports it online with a round trip, over the API and the page feed.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let servers = relay.directory.wulfram();
        if servers
            .first()
            .is_some_and(|s| s.reachability == Reachability::Online)
        {
            assert_eq!(servers[0].name, "echo");
            assert_eq!(servers[0].addr, peer.to_string());
            assert!(servers[0].rtt_ms.is_some());
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{servers:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let api: Vec<protocol::relay_api::WulframServer> =
        reqwest::get(format!("http://{}/api/wulfram", relay.addr))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(api[0].reachability, Reachability::Online);
}

#[tokio::test]
async fn an_unreachable_server_is_reported_and_a_session_to_it_closes_cleanly() {
    // A port nothing listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let relay = relay_for(port).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/wulfram/echo", relay.addr))
        .await
        .unwrap();
    let closed = text(next(&mut ws).await);
    assert_eq!(closed["type"], "closed");
    assert!(closed["reason"].as_str().unwrap().contains("cannot reach"));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while relay.directory.wulfram().first().map(|s| s.reachability)
        != Some(Reachability::Unreachable)
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A transport session on the page's side talks to the lab's Wulfram II endpoint through the
/// proxy: handshakes both ways, ordered chat echoed back complete and in order, and a TCP frame.
#[tokio::test]
async fn a_session_through_the_proxy_to_the_lab_endpoint() {
    use protocol::wulfram::session::{Outbound, Session, SessionConfig, SessionEvent, Via, CHAT};
    let mut config = common::lab_config(1, 10);
    config.wulfram_port = Some(0);
    let lab = lab::Lab::start(config).await.unwrap();
    let relay = relay_for(lab.wulfram.expect("the lab runs a Wulfram II endpoint")).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/wulfram/echo", relay.addr))
        .await
        .unwrap();
    assert_eq!(text(next(&mut ws).await)["type"], "connected");

    let started = tokio::time::Instant::now();
    let now = || started.elapsed().as_millis() as u64;
    let mut session = Session::new(SessionConfig::default(), now());
    for i in 0..40u32 {
        session
            .send_chat(now(), CHAT, format!("line {i}").as_bytes())
            .unwrap();
    }
    session.send_tcp(0x35, &[0, 0, 0, 7]).unwrap();
    let mut chat = Vec::new();
    let mut tcp = Vec::new();
    let mut handshake = false;
    while chat.len() < 40 || tcp.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{} lines echoed",
            chat.len()
        );
        session.handle_timeout(now());
        while let Some(t) = session.poll_transmit() {
            let message = match t {
                Outbound::Udp(d) => binary(CHANNEL_UDP, &d),
                Outbound::Tcp(frame) => binary(CHANNEL_TCP, &frame[2..]),
            };
            ws.send(message).await.unwrap();
        }
        if let Ok(Some(Ok(message))) =
            tokio::time::timeout(Duration::from_millis(20), ws.next()).await
        {
            match message {
                Message::Binary(data) if data[0] == CHANNEL_UDP => {
                    session.handle_datagram(now(), &data[1..])
                }
                Message::Binary(data) => {
                    let framed = frame::emit(data[1], &data[2..]).unwrap();
                    session.handle_tcp(now(), &framed);
                }
                other => panic!("nothing is dropped on this path: {other:?}"),
            }
        }
        for e in std::iter::from_fn(|| session.poll_event()) {
            match e {
                SessionEvent::Packet {
                    via: Via::Udp,
                    opcode: CHAT,
                    body,
                    ..
                } => chat.push(String::from_utf8(body).unwrap()),
                SessionEvent::Packet {
                    via: Via::Tcp,
                    opcode,
                    body,
                    ..
                } => tcp.push((opcode, body)),
                SessionEvent::Handshake(_) => handshake = true,
                // The answer to our handshake.
                SessionEvent::Time(_) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    assert!(handshake && session.is_established());
    assert_eq!(
        chat,
        (0..40).map(|i| format!("line {i}")).collect::<Vec<_>>()
    );
    assert_eq!(tcp, [(0x35, vec![0, 0, 0, 7])]);
}
