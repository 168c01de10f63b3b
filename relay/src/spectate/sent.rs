//! What the viewers were sent: frames, and the writes that carried them. At thousands of
//! viewers the writes are the relay's cost (each a system call), so the scrape and the
//! spectate bench report them beside the frames.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::Sink;

/// Every viewer's frames and writes, counted since the relay started.
#[derive(Default)]
pub struct Sent {
    frames: AtomicU64,
    writes: AtomicU64,
}

impl Sent {
    /// Frames and writes so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.frames.load(Ordering::Relaxed),
            self.writes.load(Ordering::Relaxed),
        )
    }
}

/// A viewer's socket, counting: a flush that carried frames is one write.
pub struct Counted<S> {
    inner: S,
    sent: Arc<Sent>,
    /// Frames queued since the last flush.
    queued: u64,
}

impl<S> Counted<S> {
    pub fn new(inner: S, sent: Arc<Sent>) -> Self {
        Self {
            inner,
            sent,
            queued: 0,
        }
    }

    /// What it wraps (a test reads what was written).
    #[cfg(test)]
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Sink<M> + Unpin, M> Sink<M> for Counted<S> {
    type Error = S::Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Pin::new(&mut self.inner).poll_ready(cx)
    }

    fn start_send(mut self: Pin<&mut Self>, item: M) -> Result<(), S::Error> {
        self.queued += 1;
        Pin::new(&mut self.inner).start_send(item)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) && self.queued > 0 {
            self.sent.frames.fetch_add(self.queued, Ordering::Relaxed);
            self.sent.writes.fetch_add(1, Ordering::Relaxed);
            self.queued = 0;
        }
        flushed
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Pin::new(&mut self.inner).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::SinkExt;

    #[tokio::test]
    async fn a_flush_that_carried_frames_is_one_write() {
        let sent = Arc::new(Sent::default());
        let mut sink = Counted::new(futures_util::sink::drain::<u8>(), sent.clone());
        sink.feed(1).await.unwrap();
        sink.feed(2).await.unwrap();
        sink.flush().await.unwrap();
        // Nothing queued: no write.
        sink.flush().await.unwrap();
        sink.send(3).await.unwrap();
        assert_eq!(sent.counts(), (3, 2));
    }
}
