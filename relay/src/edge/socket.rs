//! How a WebSocket learns the relay is going: its incoming half ends when shutdown begins
//! (every handler already treats that as the client leaving), and its outgoing half, dropped
//! by the handler, then says goodbye with a close frame (1001, "going away") and a reason.
//! Every socket is tracked until its goodbye is written, so shutdown can wait for them.
//!
//! The same halves keep a socket honest while it lives (slowloris on WebSocket reads): before
//! a message, the relay pings a socket it has not pinged for `--ws-ping-interval`; a client that
//! then sends no whole frame (its browser's automatic pong counts) within `--ws-answer-timeout` is
//! dead, or is dribbling a frame that never ends, and its incoming half ends as if it had left.
//! A socket the relay sends nothing to is never pinged and never timed out: it costs nothing.
//!
//! A message over the socket's limit ends its incoming half too, and the goodbye then says
//! 1009 with a reason (RFC 6455), so the client can tell why; the refusal is counted.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use futures_util::stream::{SplitSink, SplitStream, TakeUntil};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

use crate::metrics::HttpMetrics;

/// WebSocket close code 1001: the endpoint is going away (RFC 6455 §7.4.1).
pub const GOING_AWAY: u16 = 1001;
/// What a page, a viewer or a bridge session is told when the relay shuts down.
pub const SHUTDOWN_REASON: &str = "the relay is shutting down";
/// WebSocket close code 1009: a message too big to process (RFC 6455 §7.4.1).
pub const MESSAGE_TOO_BIG: u16 = 1009;
/// What a client is told when it sends a message over its socket's limit.
pub const TOO_BIG_REASON: &str = "message too big for this socket";

/// The relay's shutdown signal as a WebSocket handler takes it (an extractor: the accept loop
/// puts it on every request; in-process tests, which have no accept loop, get one that never
/// fires).
#[derive(Clone)]
pub struct Closing {
    stop: CancellationToken,
    goodbyes: TaskTracker,
    ping_every: Duration,
    answer_within: Duration,
    /// Counts the messages refused for their size.
    metrics: HttpMetrics,
}

impl Default for Closing {
    fn default() -> Self {
        Self::new(
            CancellationToken::new(),
            TaskTracker::new(),
            PING_EVERY,
            ANSWER_WITHIN,
            HttpMetrics::default(),
        )
    }
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

/// How long a socket the relay writes to goes without a ping (`muster serve`'s default).
pub const PING_EVERY: Duration = Duration::from_secs(30);
/// How long a client has to send a whole frame after a ping (`muster serve`'s default).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// When a socket was last pinged and last heard from, shared by its halves.
struct Liveness {
    epoch: Instant,
    ping_every: Duration,
    answer_within: Duration,
    /// When the ping still unanswered went (ms since `epoch`, plus one); 0: none.
    unanswered_since: AtomicU64,
    last_ping: AtomicU64,
    /// The client sent a message over the socket's limit: the goodbye says 1009.
    too_big: AtomicBool,
}

impl Liveness {
    fn new(ping_every: Duration, answer_within: Duration) -> Self {
        Self {
            epoch: Instant::now(),
            ping_every,
            answer_within,
            unanswered_since: AtomicU64::new(0),
            last_ping: AtomicU64::new(0),
            too_big: AtomicBool::new(false),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    fn ping_due(&self) -> bool {
        self.unanswered_since.load(Ordering::Relaxed) == 0
            && self.now() - self.last_ping.load(Ordering::Relaxed)
                >= self.ping_every.as_millis() as u64
    }

    fn pinged(&self) {
        let now = self.now();
        self.last_ping.store(now, Ordering::Relaxed);
        self.unanswered_since.store(now, Ordering::Relaxed);
    }

    fn heard(&self) {
        self.unanswered_since.store(0, Ordering::Relaxed);
    }

    /// When the client's time to answer runs out, if a ping is waiting for one.
    fn answer_due(&self) -> Option<Instant> {
        match self.unanswered_since.load(Ordering::Relaxed) {
            0 => None,
            since => Some(self.epoch + Duration::from_millis(since - 1) + self.answer_within),
        }
    }
}

/// The incoming half: it ends when the client leaves, stops answering pings, or the relay
/// shuts down.
pub struct Incoming {
    inner: TakeUntil<SplitStream<WebSocket>, Pin<Box<WaitForCancellationFutureOwned>>>,
    live: Arc<Liveness>,
    /// Wakes the handler to check the answer's deadline even if nothing arrives.
    check: Pin<Box<Sleep>>,
    metrics: HttpMetrics,
}

/// Whether a read failed because the message was over the socket's limit.
fn too_big(error: &axum::Error) -> bool {
    use std::error::Error;
    error
        .source()
        .and_then(|e| e.downcast_ref::<tungstenite::Error>())
        .is_some_and(|e| matches!(e, tungstenite::Error::Capacity(_)))
}

impl Stream for Incoming {
    type Item = Result<Message, axum::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Poll::Ready(item) = self.inner.poll_next_unpin(cx) {
            match &item {
                Some(Err(e)) if too_big(e) => {
                    self.live.too_big.store(true, Ordering::Relaxed);
                    self.metrics.limit("ws_message");
                }
                Some(_) => self.live.heard(),
                None => {}
            }
            return Poll::Ready(item);
        }
        let now = Instant::now();
        if self.live.answer_due().is_some_and(|due| now >= due) {
            tracing::debug!("a WebSocket did not answer a ping in time; closed");
            return Poll::Ready(None);
        }
        // Looked at again when the answer falls due, or a ping interval from now.
        let next = self.live.answer_due().unwrap_or(now + self.live.ping_every);
        if self.check.deadline() != next {
            self.check.as_mut().reset(next);
        }
        if self.check.as_mut().poll(cx).is_ready() {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

impl Closing {
    pub fn new(
        stop: CancellationToken,
        goodbyes: TaskTracker,
        ping_every: Duration,
        answer_within: Duration,
        metrics: HttpMetrics,
    ) -> Self {
        Self {
            stop,
            goodbyes,
            ping_every,
            answer_within,
            metrics,
        }
    }

    /// Splits an upgraded socket into halves that end, and say goodbye, on shutdown.
    pub fn split(&self, socket: WebSocket) -> (ClosingSink, Incoming) {
        let (sink, stream) = socket.split();
        let live = Arc::new(Liveness::new(self.ping_every, self.answer_within));
        let incoming = Incoming {
            inner: stream.take_until(Box::pin(self.stop.clone().cancelled_owned())),
            live: live.clone(),
            check: Box::pin(tokio::time::sleep(self.ping_every)),
            metrics: self.metrics.clone(),
        };
        let sink = ClosingSink {
            inner: Some(sink),
            closing: self.clone(),
            open: self.goodbyes.token(),
            live,
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
    live: Arc<Liveness>,
}

impl ClosingSink {
    fn inner(&mut self) -> Pin<&mut SplitSink<WebSocket, Message>> {
        Pin::new(self.inner.as_mut().expect("present until dropped"))
    }
}

impl Sink<Message> for ClosingSink {
    type Error = axum::Error;

    /// A ping goes ahead of the message when one is due.
    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.live.ping_due() {
            ready!(self.inner().poll_ready(cx))?;
            self.inner().start_send(Message::Ping(Default::default()))?;
            self.live.pinged();
        }
        self.inner().poll_ready(cx)
    }

    /// A handler's own close, sent because shutdown ended its incoming half, carries the
    /// shutdown's code and reason; one after a message over the limit says so.
    fn start_send(mut self: Pin<&mut Self>, item: Message) -> Result<(), Self::Error> {
        let item = match item {
            Message::Close(_) if self.closing.stop.is_cancelled() => goodbye(),
            Message::Close(_) if self.live.too_big.load(Ordering::Relaxed) => refusal(),
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

fn refusal() -> Message {
    Message::Close(Some(CloseFrame {
        code: MESSAGE_TOO_BIG,
        reason: TOO_BIG_REASON.into(),
    }))
}

impl Drop for ClosingSink {
    fn drop(&mut self) {
        let Some(mut sink) = self.inner.take() else {
            return;
        };
        let last = if self.closing.stop.is_cancelled() {
            goodbye()
        } else if self.live.too_big.load(Ordering::Relaxed) {
            refusal()
        } else {
            return;
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let open = self.open.clone();
        let goodbye = async move {
            let _open = open;
            // Fails harmlessly if the handler already closed (with the same frame).
            let _ = sink.send(last).await;
            let _ = sink.close().await;
        };
        self.closing.goodbyes.spawn(goodbye);
    }
}
