//! Wulfram II: the servers the operator configured, checked by connecting to their TCP port,
//! and a session proxy. A page (or tool) opens `/wulfram/NAME` and exchanges packets with that
//! server over TCP and UDP through the relay, which enforces the size policy both ways and
//! never connects anywhere the operator did not name.
//!
//! WebSocket binary messages carry one transport unit each, after a channel byte: `0` and a TCP
//! payload (opcode and body; the relay adds and strips the frame's size prefix), or `1` and one
//! whole UDP datagram. Text messages from the relay report `connected`, `dropped` (a packet
//! over the policy, which is never forwarded) and `closed`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::extract::ws::{Message, WebSocket};
use protocol::relay_api::{Reachability, WulframServer};
use protocol::wulfram::control::{Control, D_HANDSHAKE};
use protocol::wulfram::frame::{self, FrameReader};
use protocol::wulfram::policy::{check_datagram, MAX_TCP_PAYLOAD};
use protocol::wulfram::record::{ModeTable, Walker};
use protocol::wulfram::PORT;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use crate::directory::Directory;

/// Channel bytes of the WebSocket binary messages.
pub const CHANNEL_TCP: u8 = 0;
pub const CHANNEL_UDP: u8 = 1;
/// The largest WebSocket message a page may send: a channel byte and a TCP payload.
pub const MAX_PAGE_MESSAGE: usize = 1 + MAX_TCP_PAYLOAD + 64;
/// How long a check or a proxy's connect may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WulframTarget {
    pub name: String,
    pub addr: SocketAddr,
}

/// Parses `NAME=HOST[:PORT]` (port 2627 by default), resolving the host once.
pub async fn parse_target(text: &str) -> anyhow::Result<WulframTarget> {
    let (name, host) = text
        .split_once('=')
        .with_context(|| format!("{text:?}: expected NAME=HOST[:PORT]"))?;
    let name = name.trim();
    anyhow::ensure!(
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "{name:?}: a Wulfram server's name is letters, digits, '-', '_' and '.'"
    );
    // The relay's one way of reading HOST[:PORT]; Wulfram II targets are IPv4 as the rest.
    let addr = crate::cli::resolve(host, PORT).await?[0];
    Ok(WulframTarget {
        name: name.to_owned(),
        addr: SocketAddr::V4(addr),
    })
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Checks every target now and then: reachable when its TCP port accepts a connection, with
/// the connect time as the round trip.
pub async fn check(directory: Arc<Directory>, targets: Vec<WulframTarget>, every: Duration) {
    for t in &targets {
        directory.set_wulfram(WulframServer {
            name: t.name.clone(),
            addr: t.addr.to_string(),
            reachability: Reachability::Pending,
            rtt_ms: None,
            checked_ms: None,
        });
    }
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        for t in &targets {
            let started = tokio::time::Instant::now();
            let connected = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(t.addr)).await;
            let (reachability, rtt_ms) = match connected {
                Ok(Ok(_)) => (
                    Reachability::Online,
                    Some(started.elapsed().as_millis().max(1) as u32),
                ),
                _ => (Reachability::Unreachable, None),
            };
            directory.set_wulfram(WulframServer {
                name: t.name.clone(),
                addr: t.addr.to_string(),
                reachability,
                rtt_ms,
                checked_ms: Some(now_ms()),
            });
        }
    }
}

/// The modes one side announced in its handshakes, to walk (and check) its datagrams.
#[derive(Default)]
struct Announced(ModeTable);

impl Announced {
    fn learn(&mut self, datagram: &[u8]) {
        let handshakes: Vec<Control> = Walker::new(datagram, &self.0)
            .filter_map(Result::ok)
            .filter(|r| r.opcode == D_HANDSHAKE)
            .filter_map(|r| Control::parse(r.opcode, &r.body).ok())
            .collect();
        for control in handshakes {
            if let Control::Handshake(h) = control {
                self.0 = self.0.announced(&h);
            }
        }
    }
}

fn report(direction: &str, transport: &str, error: String) -> Message {
    let text =
        json!({"type": "dropped", "direction": direction, "transport": transport, "error": error});
    tracing::info!("wulfram proxy dropped a packet {direction} ({transport}): {error}");
    Message::Text(text.to_string().into())
}

/// Runs one proxied session until either side goes away.
pub async fn proxy(mut ws: WebSocket, target: WulframTarget) {
    let opened = async {
        let tcp = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(target.addr))
            .await
            .context("connect timed out")??;
        let bind: SocketAddr = if target.addr.ip().is_loopback() {
            "127.0.0.1:0".parse()?
        } else if target.addr.is_ipv4() {
            "0.0.0.0:0".parse()?
        } else {
            "[::]:0".parse()?
        };
        let udp = UdpSocket::bind(bind).await?;
        udp.connect(target.addr).await?;
        anyhow::Ok((tcp, udp))
    }
    .await;
    let (mut tcp, udp) = match opened {
        Ok(sockets) => sockets,
        Err(e) => {
            let text =
                json!({"type": "closed", "reason": format!("cannot reach {}: {e:#}", target.addr)});
            let _ = ws.send(Message::Text(text.to_string().into())).await;
            return;
        }
    };
    let hello = json!({"type": "connected", "name": target.name, "addr": target.addr.to_string()});
    if ws
        .send(Message::Text(hello.to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    let reason = relay(&mut ws, &mut tcp, &udp).await;
    let text = json!({"type": "closed", "reason": reason});
    let _ = ws.send(Message::Text(text.to_string().into())).await;
    let _ = ws.send(Message::Close(None)).await;
}

/// Moves packets both ways; returns why it stopped.
async fn relay(ws: &mut WebSocket, tcp: &mut TcpStream, udp: &UdpSocket) -> String {
    let mut frames = FrameReader::new();
    let mut from_page = Announced::default();
    let mut from_server = Announced::default();
    let mut tcp_buf = vec![0u8; 16 * 1024];
    // Larger than the limit, so an oversized datagram is seen whole and refused.
    let mut udp_buf = vec![0u8; 64 * 1024];
    loop {
        tokio::select! {
            message = ws.recv() => {
                let data = match message {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return "the page closed".into(),
                    Some(Ok(Message::Binary(data))) => data,
                    Some(Ok(_)) => continue,
                };
                let Some((&channel, payload)) = data.split_first() else { continue };
                let refusal = match channel {
                    CHANNEL_TCP => match payload.split_first() {
                        None => Some(report("to_server", "tcp", "an empty TCP payload".into())),
                        Some((&opcode, body)) => match frame::encode(opcode, body) {
                            Ok(bytes) => {
                                if let Err(e) = tcp.write_all(&bytes).await {
                                    return format!("TCP write: {e}");
                                }
                                None
                            }
                            Err(e) => Some(report("to_server", "tcp", e.to_string())),
                        },
                    },
                    CHANNEL_UDP => match check_datagram(payload, &from_page.0) {
                        Ok(()) => {
                            from_page.learn(payload);
                            let _ = udp.send(payload).await;
                            None
                        }
                        Err(e) => Some(report("to_server", "udp", e.to_string())),
                    },
                    other => Some(report("to_server", "?", format!("unknown channel {other}"))),
                };
                if let Some(text) = refusal {
                    if ws.send(text).await.is_err() {
                        return "the page went away".into();
                    }
                }
            }
            read = tcp.read(&mut tcp_buf) => {
                let n = match read {
                    Ok(0) => return "the server closed TCP".into(),
                    Ok(n) => n,
                    Err(e) => return format!("TCP read: {e}"),
                };
                frames.push(&tcp_buf[..n]);
                while let Some(frame) = frames.next_frame() {
                    let message = match frame {
                        Ok(f) => {
                            let mut data = Vec::with_capacity(2 + f.body.len());
                            data.push(CHANNEL_TCP);
                            data.push(f.opcode);
                            data.extend_from_slice(&f.body);
                            Message::Binary(data.into())
                        }
                        Err(e @ frame::FrameError::ControlOnTcp { .. }) => {
                            report("to_page", "tcp", e.to_string())
                        }
                        Err(e) => return format!("the server's TCP stream broke: {e}"),
                    };
                    if ws.send(message).await.is_err() {
                        return "the page went away".into();
                    }
                }
            }
            received = udp.recv(&mut udp_buf) => {
                let Ok(n) = received else { continue };
                let datagram = &udp_buf[..n];
                let message = match check_datagram(datagram, &from_server.0) {
                    Ok(()) => {
                        from_server.learn(datagram);
                        let mut data = Vec::with_capacity(1 + n);
                        data.push(CHANNEL_UDP);
                        data.extend_from_slice(datagram);
                        Message::Binary(data.into())
                    }
                    Err(e) => report("to_page", "udp", e.to_string()),
                };
                if ws.send(message).await.is_err() {
                    return "the page went away".into();
                }
            }
        }
    }
}
