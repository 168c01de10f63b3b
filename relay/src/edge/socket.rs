//! How a WebSocket learns the relay is going: its incoming half ends when shutdown begins
//! (every handler already treats that as the client leaving), and its outgoing half, dropped
//! by the handler, then says goodbye with a close frame (1001, "going away") and a reason.
//! Every socket is tracked until its goodbye is written, so shutdown can wait for them.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use futures_util::stream::{SplitSink, SplitStream, TakeUntil};
use futures_util::{Sink, SinkExt, StreamExt};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

/// WebSocket close code 1001: the endpoint is going away (RFC 6455 §7.4.1).
pub const GOING_AWAY: u16 = 1001;
/// What a page, a viewer or a bridge session is told when the relay shuts down.
pub const SHUTDOWN_REASON: &str = "the relay is shutting down";

/// The relay's shutdown signal as a WebSocket handler takes it (an extractor: the accept loop
/// puts it on every request; in-process tests, which have no accept loop, get one that never
/// fires).
#[derive(Clone, Default)]
pub struct Closing {
    stop: CancellationToken,
    goodbyes: TaskTracker,
}

impl<S: Send + Sync> FromRequestParts<S> for Closing {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<Closing>()
            .cloned()
            .unwrap_or_default())
    }
}

/// The incoming half: it ends when the client leaves or the relay shuts down.
pub type Incoming = TakeUntil<SplitStream<WebSocket>, Pin<Box<WaitForCancellationFutureOwned>>>;

impl Closing {
    pub fn new(stop: CancellationToken, goodbyes: TaskTracker) -> Self {
        Self { stop, goodbyes }
    }

    /// Splits an upgraded socket into halves that end, and say goodbye, on shutdown.
    pub fn split(&self, socket: WebSocket) -> (ClosingSink, Incoming) {
        let (sink, stream) = socket.split();
        let incoming = stream.take_until(Box::pin(self.stop.clone().cancelled_owned()));
        let sink = ClosingSink {
            inner: Some(sink),
            closing: self.clone(),
            open: self.goodbyes.token(),
        };
        (sink, incoming)
    }
}

/// The outgoing half. Dropped after shutdown began, it sends the close frame on its own task.
pub struct ClosingSink {
    inner: Option<SplitSink<WebSocket, Message>>,
    closing: Closing,
    /// Held while the socket is open and until its goodbye is written.
    open: TaskTrackerToken,
}

impl ClosingSink {
    fn inner(&mut self) -> Pin<&mut SplitSink<WebSocket, Message>> {
        Pin::new(self.inner.as_mut().expect("present until dropped"))
    }
}

impl Sink<Message> for ClosingSink {
    type Error = axum::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner().poll_ready(cx)
    }

    /// A handler's own close, sent because shutdown ended its incoming half, carries the
    /// shutdown's code and reason.
    fn start_send(mut self: Pin<&mut Self>, item: Message) -> Result<(), Self::Error> {
        let item = match item {
            Message::Close(_) if self.closing.stop.is_cancelled() => goodbye(),
            other => other,
        };
        self.inner().start_send(item)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner().poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner().poll_close(cx)
    }
}

fn goodbye() -> Message {
    Message::Close(Some(CloseFrame {
        code: GOING_AWAY,
        reason: SHUTDOWN_REASON.into(),
    }))
}

impl Drop for ClosingSink {
    fn drop(&mut self) {
        let Some(mut sink) = self.inner.take() else {
            return;
        };
        if !self.closing.stop.is_cancelled() {
            return;
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let open = self.open.clone();
        let goodbye = async move {
            let _open = open;
            // Fails harmlessly if the handler already closed (with the same frame).
            let _ = sink.send(goodbye()).await;
            let _ = sink.close().await;
        };
        self.closing.goodbyes.spawn(goodbye);
    }
}
