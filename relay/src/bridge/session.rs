//! One open bridge session: the page's side is any sink and stream of WebSocket messages, so
//! tests drive it with channels.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::bridge::{Egress, MAX_DATAGRAM};
use protocol::relay_api::bridge::BridgeReport;

use super::{OpenError, Session};

fn text(report: BridgeReport) -> Message {
    Message::Text(report.encode().into())
}

/// A refusal as the page reads it.
fn refused(kind: &str, reason: &str) -> Message {
    text(BridgeReport::Refused {
        kind: kind.into(),
        reason: reason.into(),
    })
}

/// Tells a page why it got no session, and closes.
pub async fn refuse<S: Sink<Message> + Unpin>(mut sink: S, refusal: OpenError) {
    let _ = sink
        .send(closed(refusal.kind(), &refusal.to_string()))
        .await;
    let _ = sink.send(Message::Close(None)).await;
}

/// The end of a session, as the page reads it.
fn closed(kind: &str, reason: &str) -> Message {
    text(BridgeReport::Closed {
        kind: kind.into(),
        reason: reason.into(),
    })
}

impl Session {
    /// Carries datagrams until the page leaves, the target goes quiet for the idle time, or
    /// the socket fails.
    pub async fn run<S, R>(self, mut sink: S, mut stream: R)
    where
        S: Sink<Message> + Unpin,
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        let (kind, reason) = match self.carry(&mut sink, &mut stream).await {
            Ok(ended) => ended,
            Err(e) => ("socket", format!("socket error: {e}")),
        };
        let _ = sink.send(closed(kind, &reason)).await;
        let _ = sink.send(Message::Close(None)).await;
    }

    /// Why the session ended: a kind and a sentence.
    async fn carry<S, R>(
        &self,
        sink: &mut S,
        stream: &mut R,
    ) -> std::io::Result<(&'static str, String)>
    where
        S: Sink<Message> + Unpin,
        R: Stream<Item = Result<Message, axum::Error>> + Unpin,
    {
        // Connected: the kernel drops datagrams from any other address.
        let udp = crate::net::udp_to(SocketAddr::V4(self.target)).await?;
        let hello = BridgeReport::Session {
            target: self.target.to_string(),
            kind: self.kind,
            qport: self.qport,
            max_datagram: MAX_DATAGRAM,
        };
        if sink.send(text(hello)).await.is_err() {
            return Ok(("page_left", "page left".into()));
        }
        let counters = &self.bridge.counters;
        let mut egress = Egress::new(self.kind, self.qport);
        let (mut from_pages, mut to_target) = (0u64, 0u64);
        let mut buf = vec![0u8; MAX_DATAGRAM + 1];
        let idle = self.bridge.config.idle;
        loop {
            tokio::select! {
                message = stream.next() => {
                    let message = match message {
                        Some(Ok(message)) => message,
                        Some(Err(e)) => {
                            return Ok(("unreadable", format!("unreadable message from the page: {e}")))
                        }
                        None => return Ok(("page_left", "page left".into())),
                    };
                    let datagram = match message {
                        Message::Binary(d) => d,
                        Message::Close(_) => return Ok(("page_left", "page left".into())),
                        _ => continue,
                    };
                    counters.datagrams_from_pages.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_from_pages.fetch_add(datagram.len() as u64, Ordering::Relaxed);
                    from_pages += datagram.len() as u64;
                    let verdict = match egress.check(&datagram) {
                        Ok(verdict) => self
                            .bridge
                            .budget(self.client, self.target, verdict.passed)
                            .await
                            .map(|()| verdict)
                            .map_err(|b| (b.kind(), b.reason(&self.bridge.config))),
                        Err(r) => Err((r.kind(), r.to_string())),
                    };
                    let verdict = match verdict {
                        Ok(verdict) => verdict,
                        Err((kind, reason)) => {
                        counters.refuse(kind);
                        tracing::debug!(client = %self.client, target = %self.target, kind, "bridge refused a datagram");
                            if sink.send(refused(kind, &reason)).await.is_err() {
                                return Ok(("page_left", "page left".into()));
                            }
                            continue;
                        }
                    };
                    // Never more to the target than the page sent: the bridge adds nothing.
                    debug_assert!(to_target + datagram.len() as u64 <= from_pages);
                    udp.send(&datagram).await?;
                    egress.sent(&datagram, verdict);
                    to_target += datagram.len() as u64;
                    counters.datagrams_to_targets.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_to_targets.fetch_add(datagram.len() as u64, Ordering::Relaxed);
                }
                received = udp.recv(&mut buf) => {
                    let len = match received {
                        Ok(len) => len,
                        // An ICMP port unreachable from the target: nothing listens there.
                        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                        Err(e) => return Err(e),
                    };
                    if len > MAX_DATAGRAM {
                        counters.refuse("reply_too_large");
                        continue;
                    }
                    let datagram = &buf[..len];
                    counters.datagrams_from_targets.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_from_targets.fetch_add(len as u64, Ordering::Relaxed);
                    egress.inbound(datagram);
                    if sink.send(Message::Binary(datagram.to_vec().into())).await.is_err() {
                        return Ok(("page_left", "page left".into()));
                    }
                }
                _ = tokio::time::sleep(idle) => {
                    counters.refuse("idle");
                    return Ok(("idle", format!("no datagram either way for {} s", idle.as_secs())));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::net::UdpSocket;

    use super::*;
    use crate::bridge::{Bridge, BridgeConfig};
    use crate::http::channel;

    fn oob(text: &str) -> Vec<u8> {
        let mut datagram = vec![0xff; 4];
        datagram.extend_from_slice(text.as_bytes());
        datagram
    }

    /// A session between channels (the page's side) and a UDP socket on loopback (the game
    /// server's side).
    #[tokio::test]
    async fn datagrams_pass_both_ways_refusals_are_reported_and_the_end_is_said() {
        let server = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let target = match server.local_addr().unwrap() {
            SocketAddr::V4(v4) => v4,
            SocketAddr::V6(_) => unreachable!("bound to 127.0.0.1"),
        };
        let config = BridgeConfig {
            allow_private: true,
            ..BridgeConfig::default()
        };
        let bridge = Bridge::new(config, Arc::new(vec![target]));
        let client = Ipv4Addr::new(192, 0, 2, 1).into();
        let session = bridge.open_session(client, target).await.unwrap();
        let (sink, stream, mut page) = channel::socket();
        let running = tokio::spawn(session.run(sink, stream));

        let BridgeReport::Session {
            target: said,
            kind,
            qport,
            max_datagram,
        } = page.report::<BridgeReport>().await
        else {
            panic!("the session report comes first");
        };
        assert_eq!(said, target.to_string());
        assert_eq!(kind, protocol::bridge::TargetKind::Server);
        assert_ne!(qport, 0);
        assert_eq!(max_datagram, MAX_DATAGRAM);

        // The page's query reaches the server byte for byte; its answer reaches the page.
        page.send(Message::Binary(oob("getinfo xxx").into()));
        let mut buf = [0u8; 2048];
        let (len, from) = tokio::time::timeout(Duration::from_secs(5), server.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&buf[..len], oob("getinfo xxx").as_slice());
        let answer = oob("infoResponse\n\\protocol\\22\\challenge\\xxx");
        server.send_to(&answer, from).await.unwrap();
        assert_eq!(page.next().await, Message::Binary(answer.into()));

        // rcon never leaves the relay; the page is told why and the session stays.
        page.send(Message::Binary(oob("rcon secret status").into()));
        let BridgeReport::Refused { kind, .. } = page.report::<BridgeReport>().await else {
            panic!("a refusal");
        };
        assert_eq!(kind, "rcon");
        assert_eq!(
            bridge.counters.datagrams_to_targets.load(Ordering::Relaxed),
            1
        );

        // The page leaves: the session says so and ends.
        page.leave();
        let BridgeReport::Closed { kind, .. } = page.report::<BridgeReport>().await else {
            panic!("the end is said");
        };
        assert_eq!(kind, "page_left");
        assert!(matches!(page.next().await, Message::Close(None)));
        running.await.unwrap();
        assert_eq!(bridge.counters.sessions.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn a_refused_session_is_told_why() {
        let config = BridgeConfig {
            allow_private: true,
            ..BridgeConfig::default()
        };
        let bridge = Bridge::new(config, Arc::new(Vec::new()));
        let unknown = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 28960);
        let refusal = match bridge
            .open_session(Ipv4Addr::LOCALHOST.into(), unknown)
            .await
        {
            Err(refusal) => refusal,
            Ok(_) => panic!("an unknown target opened"),
        };
        let (sink, _, mut page) = channel::socket();
        refuse(sink, refusal).await;
        let BridgeReport::Closed { kind, reason } = page.report::<BridgeReport>().await else {
            panic!("the refusal is said");
        };
        assert_eq!(kind, "unknown_target", "{reason}");
        assert!(matches!(page.next().await, Message::Close(None)));
    }
}
