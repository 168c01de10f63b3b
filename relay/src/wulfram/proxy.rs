//! One proxied Wulfram II session: TCP and UDP to the configured server, one WebSocket to the
//! page, the size policy enforced both ways.

use anyhow::Context;
use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::proxy::{ProxyReport, CHANNEL_TCP, CHANNEL_UDP};
use protocol::wulfram::control::{Control, D_HANDSHAKE};
use protocol::wulfram::frame::{self, FrameReader};
use protocol::wulfram::policy::check_datagram;
use protocol::wulfram::record::{ModeTable, Walker};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::{WulframTarget, CONNECT_TIMEOUT};

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

fn text(report: ProxyReport) -> Message {
    Message::Text(report.encode().into())
}

fn report(direction: &str, transport: &str, error: String) -> Message {
    tracing::info!("wulfram proxy dropped a packet {direction} ({transport}): {error}");
    text(ProxyReport::Dropped {
        direction: direction.into(),
        transport: transport.into(),
        error,
    })
}

/// Runs one proxied session until either side goes away. The page's side is any sink and
/// stream of WebSocket messages, so a test drives it with channels.
pub async fn proxy<S, R>(mut sink: S, mut stream: R, target: WulframTarget)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let opened = async {
        let tcp = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(target.addr))
            .await
            .context("connect timed out")??;
        let udp = crate::net::udp_to(target.addr).await?;
        anyhow::Ok((tcp, udp))
    }
    .await;
    let (mut tcp, udp) = match opened {
        Ok(sockets) => sockets,
        Err(e) => {
            let reason = format!("cannot reach {}: {e:#}", target.addr);
            let _ = sink.send(text(ProxyReport::Closed { reason })).await;
            return;
        }
    };
    let hello = ProxyReport::Connected {
        name: target.name.clone(),
        addr: target.addr.to_string(),
    };
    if sink.send(text(hello)).await.is_err() {
        return;
    }
    let reason = relay(&mut sink, &mut stream, &mut tcp, &udp).await;
    let _ = sink.send(text(ProxyReport::Closed { reason })).await;
    let _ = sink.send(Message::Close(None)).await;
}

/// Moves packets both ways; returns why it stopped.
async fn relay<S, R>(sink: &mut S, stream: &mut R, tcp: &mut TcpStream, udp: &UdpSocket) -> String
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let mut frames = FrameReader::new();
    let mut from_page = Announced::default();
    let mut from_server = Announced::default();
    let mut tcp_buf = vec![0u8; 16 * 1024];
    // Larger than the limit, so an oversized datagram is seen whole and refused.
    let mut udp_buf = vec![0u8; 64 * 1024];
    loop {
        tokio::select! {
            message = stream.next() => {
                let data = match message {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return "the page closed".into(),
                    Some(Ok(Message::Binary(data))) => data,
                    Some(Ok(_)) => continue,
                };
                let Some((&channel, payload)) = data.split_first() else { continue };
                let refusal = match channel {
                    CHANNEL_TCP => match payload.split_first() {
                        None => Some(report("to_server", "tcp", "an empty TCP payload".into())),
                        Some((&opcode, body)) => match frame::emit(opcode, body) {
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
                    if sink.send(text).await.is_err() {
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
                    if sink.send(message).await.is_err() {
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
                if sink.send(message).await.is_err() {
                    return "the page went away".into();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};
    use tokio::net::TcpListener;

    use super::*;
    use crate::http::channel;

    /// The page's side through channels, the server's a TCP listener on loopback.
    #[tokio::test]
    async fn a_tcp_payload_is_framed_a_bad_one_reported_and_the_end_said() {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let target = WulframTarget {
            name: "arena".into(),
            addr: listener.local_addr().unwrap(),
        };
        let (sink, stream, mut page) = channel::socket();
        let running = tokio::spawn(proxy(sink, stream, target.clone()));
        let (mut server, _) = listener.accept().await.unwrap();
        assert_eq!(
            page.report::<ProxyReport>().await,
            ProxyReport::Connected {
                name: "arena".into(),
                addr: target.addr.to_string(),
            }
        );
        let payload = [CHANNEL_TCP, 0x35, 0, 0, 0, 42];
        page.send(Message::Binary(payload.to_vec().into()));
        let mut framed = vec![0u8; 7];
        server.read_exact(&mut framed).await.unwrap();
        assert_eq!(framed, frame::emit(0x35, &[0, 0, 0, 42]).unwrap());

        page.send(Message::Binary(vec![CHANNEL_TCP].into()));
        let ProxyReport::Dropped {
            direction,
            transport,
            ..
        } = page.report::<ProxyReport>().await
        else {
            panic!("an empty payload is reported");
        };
        assert_eq!(
            (direction.as_str(), transport.as_str()),
            ("to_server", "tcp")
        );

        // The server's frame comes back to the page without its size prefix.
        server
            .write_all(&frame::emit(0x19, &[7, 7]).unwrap())
            .await
            .unwrap();
        assert_eq!(
            page.next().await,
            Message::Binary(vec![CHANNEL_TCP, 0x19, 7, 7].into())
        );

        page.leave();
        assert_eq!(
            page.report::<ProxyReport>().await,
            ProxyReport::Closed {
                reason: "the page closed".into()
            }
        );
        assert!(matches!(page.next().await, Message::Close(None)));
        running.await.unwrap();
    }

    #[tokio::test]
    async fn a_server_that_cannot_be_reached_is_said() {
        // Bound and closed: nothing listens on this port now.
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let target = WulframTarget {
            name: "gone".into(),
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        };
        let (sink, stream, mut page) = channel::socket();
        proxy(sink, stream, target).await;
        let ProxyReport::Closed { reason } = page.report::<ProxyReport>().await else {
            panic!("the failure is said");
        };
        assert!(reason.starts_with("cannot reach 127.0.0.1:"), "{reason}");
    }
}
