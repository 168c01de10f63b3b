//! One viewer's WebSocket: the hub's status, a keyframe, then the shared updates. A viewer that
//! falls behind by more than the hub's backlog gets a fresh keyframe instead of the backlog;
//! anything it sends but a well-formed [`ViewerMessage`] closes its socket, and only its own.
//!
//! A viewer may go back into the hub's rewind window (`ViewerMessage::Seek`): it is then sent
//! the window's keyframe and updates from there, paced at its own speed, and the hub's status
//! still; the bytes are the window's, never copied for it. It comes back live when it asks, or
//! when its playing reaches the live edge, with a fresh keyframe.
//!
//! Writes are the cost at thousands of viewers (each is a system call, and on loopback the
//! receiver's TCP work too), so a viewer's socket is read on a task of its own (the writer is
//! not woken to look at an idle socket on every update), and whatever is waiting for it when it
//! wakes (updates it fell behind by, the status) goes out in one write.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::watch::{ViewerMessage, WatchMessage, MAX_SPEED_PCT};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::hub::{Frame, FrameKind, Hub, ViewerGuard};
use super::sent::{Counted, Sent};
use crate::seams::{Moment, Rewinding};
use crate::AbortOnDrop;

/// How often a rewound viewer is sent what its clock has reached (the hub's own updates come
/// about this often).
const PLAY_EVERY: Duration = Duration::from_millis(50);
/// The most updates sent to a rewound viewer at once (2 s at 20 a second, at 2x speed 1 s).
const PLAY_AT_ONCE: usize = 40;

async fn send<S: Sink<Message> + Unpin>(sink: &mut S, bytes: &Bytes) -> bool {
    sink.send(Message::Binary(bytes.clone())).await.is_ok()
}

/// What the viewer asked, as its reading task passes it on; the channel's end means it left
/// (or sent what no viewer sends, or the relay is shutting down).
async fn read<R>(mut stream: R, asks: mpsc::Sender<ViewerMessage>)
where
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    while let Some(incoming) = stream.next().await {
        match incoming {
            Ok(Message::Binary(bytes)) => match ViewerMessage::decode(&bytes) {
                Ok(ask) => {
                    if asks.send(ask).await.is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
            Ok(Message::Ping(_) | Message::Pong(_)) => {}
            // Text, a close or an error: this viewer is done.
            _ => return,
        }
    }
}

/// Where a rewound viewer is: the last sequence sent, and its clock (the match time it had
/// reached at `since`, running at `speed_pct`).
struct Rewound {
    seq: u64,
    at_us: u64,
    since: Instant,
    speed_pct: u16,
}

impl Rewound {
    /// The match time this viewer's clock shows now.
    fn now_us(&self) -> u64 {
        let played = self.since.elapsed().as_micros() as u64;
        (self.at_us).saturating_add(played * u64::from(self.speed_pct) / 100)
    }
}

/// What a live viewer has: the sequence its model includes (updates before a keyframe mean
/// nothing to it).
struct Live {
    have: Option<u64>,
}

impl Live {
    /// Whether `frame` goes to this viewer: a rewound one still hears how the hub stands,
    /// never the live match.
    fn wants(&mut self, frame: &Frame, rewound: bool) -> bool {
        let wanted = match frame.kind {
            FrameKind::Status => true,
            _ if rewound => false,
            FrameKind::Keyframe => self.have.is_none_or(|seq| frame.seq > seq),
            FrameKind::Update => self.have.is_some_and(|seq| frame.seq > seq),
        };
        if wanted && frame.kind != FrameKind::Status {
            self.have = Some(frame.seq);
        }
        wanted
    }
}

/// Too slow: what it missed is skipped and it starts again from the present, with a fresh
/// keyframe (a rewound viewer, or one of a hub with nothing released yet, gets none).
fn skip_ahead(frames: &mut broadcast::Receiver<Frame>, hub: &Hub, rewound: bool) -> Option<Frame> {
    *frames = frames.resubscribe();
    hub.keyframe().filter(|_| !rewound)
}

/// Queues `frame` and whatever else the hub has sent since for this viewer, then writes them
/// at once. A viewer that fell more than the backlog behind starts again from the present with
/// a fresh keyframe (a rewound one waits for its next frame). False when the viewer is gone.
async fn deliver<S: Sink<Message> + Unpin>(
    sink: &mut S,
    hub: &Hub,
    frames: &mut broadcast::Receiver<Frame>,
    first: Frame,
    live: &mut Live,
    rewound: bool,
) -> bool {
    let mut next = Some(first);
    let mut queued = false;
    while let Some(frame) = next.take() {
        if live.wants(&frame, rewound) {
            if sink.feed(Message::Binary(frame.bytes)).await.is_err() {
                return false;
            }
            queued = true;
        }
        next = match frames.try_recv() {
            Ok(frame) => Some(frame),
            Err(TryRecvError::Lagged(_)) => skip_ahead(frames, hub, rewound),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Closed) => return false,
        };
    }
    !queued || sink.flush().await.is_ok()
}

/// Serves one viewer until it leaves, misbehaves, or the hub closes.
pub async fn serve<S, R>(
    guard: ViewerGuard,
    rewinding: Option<Arc<dyn Rewinding>>,
    sent: Arc<Sent>,
    sink: S,
    stream: R,
) where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin + Send + 'static,
{
    let mut sink = Counted::new(sink, sent);
    let hub = guard.hub().clone();
    let mut frames = hub.subscribe();
    if !send(&mut sink, &hub.status_frame().bytes).await {
        return;
    }
    let mut live = Live { have: None };
    if let Some(keyframe) = hub.keyframe() {
        if !send(&mut sink, &keyframe.bytes).await {
            return;
        }
        live.have = Some(keyframe.seq);
    }
    let (asks_to, mut asks) = mpsc::channel(4);
    // Ends with the socket's reading half; aborted when this viewer ends first.
    let _reading = AbortOnDrop(tokio::spawn(read(stream, asks_to)));
    let mut rewound: Option<Rewound> = None;
    let mut tick = tokio::time::interval(PLAY_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let playing = rewound.as_ref().is_some_and(|r| r.speed_pct > 0);
        // In this order, and no other: a viewer woken by an update is served without looking
        // at its asks' channel (at thousands of viewers that look was 5% of the core), and its
        // asks are read as soon as no update waits, which is nearly always.
        tokio::select! {
            biased;
            frame = frames.recv() => {
                let frame = match frame {
                    Ok(frame) => frame,
                    Err(RecvError::Lagged(_)) => match skip_ahead(&mut frames, &hub, rewound.is_some()) {
                        Some(keyframe) => keyframe,
                        None => continue,
                    },
                    Err(RecvError::Closed) => return,
                };
                if !deliver(&mut sink, &hub, &mut frames, frame, &mut live, rewound.is_some()).await {
                    return;
                }
            }
            _ = tick.tick(), if playing => {
                let Some(r) = rewound.as_mut() else { continue };
                let now = r.now_us();
                let moment = rewinding.as_ref().and_then(|w| w.play(hub.addr, r.seq, now, PLAY_AT_ONCE));
                let Some(moment) = moment else {
                    // Its place left the window: on from the window's start.
                    let speed_pct = r.speed_pct;
                    if !seek(&mut sink, &hub, rewinding.as_deref(), 0, speed_pct, &mut rewound).await {
                        return;
                    }
                    continue;
                };
                for bytes in &moment.frames {
                    if !send(&mut sink, bytes).await {
                        return;
                    }
                }
                r.seq = moment.seq;
                if moment.live && moment.frames.is_empty() {
                    // Caught up with the live edge: live from here.
                    rewound = None;
                    match go_live(&mut sink, &hub, &mut frames).await {
                        Some(seq) => live.have = seq,
                        None => return,
                    }
                }
            }
            ask = asks.recv() => match ask {
                Some(ViewerMessage::Keyframe) if rewound.is_none() => {
                    if let Some(keyframe) = hub.keyframe() {
                        live.have = Some(keyframe.seq);
                        if !send(&mut sink, &keyframe.bytes).await {
                            return;
                        }
                    }
                }
                // A rewound viewer's fresh picture is where it is.
                Some(ViewerMessage::Keyframe) => {
                    let at = rewound.as_ref().map_or(0, Rewound::now_us);
                    let speed_pct = rewound.as_ref().map_or(100, |r| r.speed_pct);
                    if !seek(&mut sink, &hub, rewinding.as_deref(), at, speed_pct, &mut rewound).await {
                        return;
                    }
                }
                Some(ViewerMessage::Seek { relay_us, speed_pct }) if speed_pct <= MAX_SPEED_PCT => {
                    if !seek(&mut sink, &hub, rewinding.as_deref(), relay_us, speed_pct, &mut rewound).await {
                        return;
                    }
                }
                Some(ViewerMessage::Live) => {
                    if rewound.take().is_some() {
                        match go_live(&mut sink, &hub, &mut frames).await {
                            Some(seq) => live.have = seq,
                            None => return,
                        }
                    }
                }
                // Too fast, garbage, a close or an error: this viewer is done.
                _ => {
                    let _ = sink.send(Message::Close(None)).await;
                    return;
                }
            },
        }
    }
}

async fn playing<S: Sink<Message> + Unpin>(sink: &mut S, live: bool, speed_pct: u16) -> bool {
    let message = WatchMessage::Playing { live, speed_pct }.encode();
    send(sink, &message.into()).await
}

/// Sends the window's moment `relay_us`; with no window (rewinding off, or nothing released
/// yet) the viewer stays where it was. False when the viewer is gone.
async fn seek<S: Sink<Message> + Unpin>(
    sink: &mut S,
    hub: &Hub,
    rewinding: Option<&dyn Rewinding>,
    relay_us: u64,
    speed_pct: u16,
    rewound: &mut Option<Rewound>,
) -> bool {
    let Some(Moment {
        frames,
        seq,
        relay_us: at_us,
        live,
    }) = rewinding.and_then(|w| w.seek(hub.addr, relay_us))
    else {
        return true;
    };
    if !playing(sink, false, speed_pct).await {
        return false;
    }
    for bytes in &frames {
        if !send(sink, bytes).await {
            return false;
        }
    }
    *rewound = Some(Rewound {
        seq,
        // The clock starts where the viewer asked (not at the last update before it), or at
        // the live edge when it asked past it.
        at_us: if live { at_us } else { relay_us.max(at_us) },
        since: Instant::now(),
        speed_pct,
    });
    true
}

/// Back to the live match: a fresh keyframe, then the broadcast from there. Returns the
/// keyframe's sequence (`None` inside when nothing is released yet), or `None` when the viewer
/// is gone.
async fn go_live<S: Sink<Message> + Unpin>(
    sink: &mut S,
    hub: &Hub,
    frames: &mut broadcast::Receiver<Frame>,
) -> Option<Option<u64>> {
    *frames = frames.resubscribe();
    if !playing(sink, true, 100).await {
        return None;
    }
    let Some(keyframe) = hub.keyframe() else {
        return Some(None);
    };
    send(sink, &keyframe.bytes)
        .await
        .then_some(Some(keyframe.seq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectate::{SpectateConfig, VIEWER_BACKLOG};
    use protocol::relay_api::watch::Update;

    fn hub() -> Hub {
        Hub::new(
            "127.0.0.1:28960".parse().unwrap(),
            &SpectateConfig::default(),
        )
    }

    /// Each written message's kind and sequence.
    fn written(sink: &Counted<Vec<Message>>) -> Vec<(&'static str, u64)> {
        (sink.inner().iter())
            .map(|m| match m {
                Message::Binary(bytes) => match WatchMessage::decode(bytes) {
                    Ok(WatchMessage::Keyframe { seq, .. }) => ("keyframe", seq),
                    Ok(WatchMessage::Update { seq, .. }) => ("update", seq),
                    _ => ("other", 0),
                },
                _ => ("other", 0),
            })
            .collect()
    }

    #[tokio::test]
    async fn what_waits_for_a_viewer_goes_out_in_one_write() {
        let hub = hub();
        let mut frames = hub.subscribe();
        for n in 0..3 {
            hub.release(n, Update::default());
        }
        let sent = Arc::new(Sent::default());
        let mut sink = Counted::new(Vec::new(), sent.clone());
        let first = frames.recv().await.unwrap();
        let mut live = Live { have: None };
        assert!(deliver(&mut sink, &hub, &mut frames, first, &mut live, false).await);
        assert_eq!(
            written(&sink),
            [("keyframe", 1), ("update", 2), ("update", 3)]
        );
        assert_eq!(sent.counts(), (3, 1), "three frames, one write");
        assert_eq!(live.have, Some(3));
    }

    #[tokio::test]
    async fn a_viewer_more_than_the_backlog_behind_gets_a_fresh_keyframe_not_the_backlog() {
        let hub = hub();
        let mut frames = hub.subscribe();
        hub.release(0, Update::default());
        let first = frames.recv().await.unwrap();
        // While it was busy with the first, the hub went on past its backlog.
        let behind = VIEWER_BACKLOG as u64 + 10;
        for n in 1..=behind {
            hub.release(n, Update::default());
        }
        let sent = Arc::new(Sent::default());
        let mut sink = Counted::new(Vec::new(), sent.clone());
        let mut live = Live { have: None };
        assert!(deliver(&mut sink, &hub, &mut frames, first, &mut live, false).await);
        assert_eq!(written(&sink), [("keyframe", 1), ("keyframe", behind + 1)]);
        assert_eq!(sent.counts(), (2, 1));
        // From the present on: the next update follows the fresh keyframe.
        hub.release(behind + 1, Update::default());
        let next = frames.recv().await.unwrap();
        assert!(deliver(&mut sink, &hub, &mut frames, next, &mut live, false).await);
        assert_eq!(written(&sink).last(), Some(&("update", behind + 2)));
    }
}
