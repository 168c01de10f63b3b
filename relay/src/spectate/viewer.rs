//! One viewer's WebSocket: the hub's status, a keyframe, then the shared updates. A viewer that
//! falls behind by more than the hub's backlog gets a fresh keyframe instead of the backlog;
//! anything it sends but a well-formed [`ViewerMessage`] closes its socket, and only its own.

use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::watch::ViewerMessage;
use tokio::sync::broadcast::error::RecvError;

use super::hub::{Frame, FrameKind, ViewerGuard};

async fn send<S: Sink<Message> + Unpin>(sink: &mut S, frame: &Frame) -> bool {
    sink.send(Message::Binary(frame.bytes.clone()))
        .await
        .is_ok()
}

/// Serves one viewer until it leaves, misbehaves, or the hub closes.
pub async fn serve<S, R>(guard: ViewerGuard, mut sink: S, mut stream: R)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let hub = guard.hub().clone();
    let mut frames = hub.subscribe();
    if !send(&mut sink, &hub.status_frame()).await {
        return;
    }
    // The sequence this viewer's model includes; updates before a keyframe mean nothing to it.
    let mut have: Option<u64> = None;
    if let Some(keyframe) = hub.keyframe() {
        if !send(&mut sink, &keyframe).await {
            return;
        }
        have = Some(keyframe.seq);
    }
    loop {
        tokio::select! {
            frame = frames.recv() => {
                let frame = match frame {
                    Ok(frame) => frame,
                    Err(RecvError::Lagged(_)) => {
                        // Too slow: skip what it missed and start again from the present.
                        frames = frames.resubscribe();
                        match hub.keyframe() {
                            Some(keyframe) => keyframe,
                            None => continue,
                        }
                    }
                    Err(RecvError::Closed) => return,
                };
                let wanted = match frame.kind {
                    FrameKind::Status => true,
                    FrameKind::Keyframe => have.is_none_or(|seq| frame.seq > seq),
                    FrameKind::Update => have.is_some_and(|seq| frame.seq > seq),
                };
                if !wanted {
                    continue;
                }
                if frame.kind != FrameKind::Status {
                    have = Some(frame.seq);
                }
                if !send(&mut sink, &frame).await {
                    return;
                }
            }
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Binary(bytes))) => match ViewerMessage::decode(&bytes) {
                    Ok(ViewerMessage::Keyframe) => {
                        if let Some(keyframe) = hub.keyframe() {
                            have = Some(keyframe.seq);
                            if !send(&mut sink, &keyframe).await {
                                return;
                            }
                        }
                    }
                    Err(_) => {
                        let _ = sink.send(Message::Close(None)).await;
                        return;
                    }
                },
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                // Text, garbage, a close or an error: this viewer is done.
                _ => {
                    let _ = sink.send(Message::Close(None)).await;
                    return;
                }
            },
        }
    }
}
