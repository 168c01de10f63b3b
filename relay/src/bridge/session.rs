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
                    let verdict = egress.check(&datagram).map_err(|r| (r.kind(), r.to_string()));
                    let verdict = verdict.and_then(|verdict| {
                        self.bridge
                            .budget(self.client, self.target, verdict.passed)
                            .map(|()| verdict)
                            .map_err(|b| (b.kind(), b.reason(&self.bridge.config)))
                    });
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
