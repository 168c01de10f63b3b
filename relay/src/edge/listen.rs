//! The relay's own accept loop (hyper-util under axum's router): every `--listen` address at
//! once, IPv4 and IPv6; a cap on open connections; the request head read within a deadline and
//! a bounded size (slowloris); bytes counted through every socket; and a graceful drain.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::limits::SocketPermit;
use super::{Closing, Limits};
use crate::metrics::HttpMetrics;
use crate::sync::Locked;

/// Where a request's connection keeps what must live as long as it does: the permit of the
/// WebSocket it was upgraded to (the upgraded socket is this same connection).
#[derive(Clone, Default)]
pub struct ConnectionSlot(Arc<Mutex<Option<SocketPermit>>>);

impl ConnectionSlot {
    pub fn hold(&self, permit: SocketPermit) {
        *self.0.locked() = Some(permit);
    }
}

/// A TCP stream that counts its bytes and its life in the metrics, and carries its slot.
struct Counted {
    stream: TcpStream,
    metrics: HttpMetrics,
    _slot: ConnectionSlot,
    /// Whether the client sent bytes since the relay last wrote: a request head begun. A head
    /// deadline that passes then is a slow head refused; one that passes on a connection idle
    /// since its last answer is only keep-alive ending.
    begun: Arc<AtomicBool>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.metrics.connections.dec();
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        let read = buf.filled().len() - before;
        if read > 0 {
            self.metrics.bytes_received.inc_by(read as u64);
            self.begun.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &polled {
            self.metrics.bytes_sent.inc_by(*n as u64);
            self.begun.store(false, Ordering::Relaxed);
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = &polled {
            self.metrics.bytes_sent.inc_by(*n as u64);
            self.begun.store(false, Ordering::Relaxed);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Waits until any listener has a connection.
fn poll_accept(
    listeners: &[TcpListener],
    cx: &mut Context<'_>,
) -> Poll<std::io::Result<(TcpStream, SocketAddr)>> {
    for listener in listeners {
        if let Poll::Ready(accepted) = listener.poll_accept(cx) {
            return Poll::Ready(accepted);
        }
    }
    Poll::Pending
}

/// The limit, if any, that ended a connection with this error: a request head over
/// `--max-header-bytes` (hyper answers 431) or not finished within `--header-timeout`.
fn refusal(error: &(dyn std::error::Error + 'static), head_begun: bool) -> Option<&'static str> {
    let hyper = error.downcast_ref::<hyper::Error>()?;
    if hyper.is_parse_too_large() {
        Some("header_size")
    } else if hyper.is_timeout() && head_begun {
        Some("header_timeout")
    } else {
        None
    }
}

/// How long the drain waits for plain HTTP requests in flight once the listeners close.
const DRAIN: Duration = Duration::from_secs(3);

/// Serves `app` on every listener until `stop` is cancelled, then closes the listeners and
/// lets requests in flight finish (WebSockets are closed by their handlers, which watch the
/// same token).
pub async fn serve(
    listeners: Vec<TcpListener>,
    app: Router,
    limits: Limits,
    metrics: HttpMetrics,
    closing: Closing,
    stop: CancellationToken,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes)
        .max_headers(100);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(limits.max_header_bytes as u32)
        .max_concurrent_streams(100)
        .keep_alive_interval(Some(Duration::from_secs(30)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            accepted = std::future::poll_fn(|cx| poll_accept(&listeners, cx)) => accepted,
            () = stop.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors and the like: wait rather than spin.
                tracing::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if metrics.connections.get().max(0) as usize >= limits.connections {
            metrics.limit("connections_total");
            drop(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        metrics.connections.inc();
        metrics.connections_accepted.inc();
        let slot = ConnectionSlot::default();
        let begun = Arc::new(AtomicBool::new(false));
        let io = TokioIo::new(Counted {
            stream,
            metrics: metrics.clone(),
            _slot: slot.clone(),
            begun: begun.clone(),
        });
        let (app, closing) = (app.clone(), closing.clone());
        let service = tower::service_fn(move |mut request: axum::extract::Request<_>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(slot.clone());
            request.extensions_mut().insert(closing.clone());
            let mut app = app.clone();
            async move { tower::Service::call(&mut app, request.map(axum::body::Body::new)).await }
        });
        let connection = builder
            .serve_connection_with_upgrades(io, TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        let metrics = metrics.clone();
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                if let Some(reason) = refusal(e.as_ref(), begun.load(Ordering::Relaxed)) {
                    metrics.limit(reason);
                }
            }
        });
    }
    drop(listeners);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::info!("HTTP requests still in flight after {DRAIN:?}; closed");
    }
}
