//! Gives the sans-IO [`Engine`] sockets and a clock.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::Instant;

use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::batch;
use super::engine::{Engine, EngineConfig, Event};
use crate::metrics::PollMetrics;

/// Sockets the engine spreads its queries over.
pub const SOCKETS: usize = 2;
/// Receive buffer per socket: room for a burst of replies while the engine is busy.
const RECEIVE_BUFFER: usize = 4 << 20;

enum Request {
    Server(SocketAddrV4),
    Master(SocketAddrV4),
    Lan(Vec<Ipv4Addr>),
}

/// Submits queries to a running engine; dropping every handle lets the engine stop once its
/// queries are done.
#[derive(Clone)]
pub struct QueryHandle {
    requests: mpsc::UnboundedSender<Request>,
}

impl QueryHandle {
    pub fn server(&self, addr: SocketAddrV4) {
        let _ = self.requests.send(Request::Server(addr));
    }

    pub fn master(&self, addr: SocketAddrV4) {
        let _ = self.requests.send(Request::Master(addr));
    }

    pub fn scan_lan(&self, targets: Vec<Ipv4Addr>) {
        let _ = self.requests.send(Request::Lan(targets));
    }
}

fn bind() -> std::io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    // The kernel may cap these; a smaller buffer only costs retries.
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    socket.set_broadcast(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)).into())?;
    UdpSocket::from_std(socket.into())
}

/// Starts an engine on its own sockets; its results arrive on the returned receiver, and its
/// traffic is counted in `metrics`.
pub fn start(
    config: EngineConfig,
    metrics: PollMetrics,
) -> std::io::Result<(QueryHandle, mpsc::UnboundedReceiver<Event>)> {
    let sockets: Vec<Arc<UdpSocket>> = (0..SOCKETS)
        .map(|_| bind().map(Arc::new))
        .collect::<Result<_, _>>()?;
    let (requests, request_rx) = mpsc::unbounded_channel();
    let (event_tx, events) = mpsc::unbounded_channel();
    tokio::spawn(run(sockets, config, request_rx, event_tx, metrics));
    Ok((QueryHandle { requests }, events))
}

/// Waits until any socket has a datagram and returns it.
fn poll_any(
    sockets: &[Arc<UdpSocket>],
    cx: &mut std::task::Context<'_>,
    buf: &mut [u8],
) -> std::task::Poll<(SocketAddr, usize)> {
    for socket in sockets {
        let mut read = tokio::io::ReadBuf::new(buf);
        // Errors (ICMP port unreachable and the like) are not replies; poll again.
        if let std::task::Poll::Ready(Ok(from)) = socket.poll_recv_from(cx, &mut read) {
            let len = read.filled().len();
            return std::task::Poll::Ready((from, len));
        }
    }
    std::task::Poll::Pending
}

async fn run(
    sockets: Vec<Arc<UdpSocket>>,
    config: EngineConfig,
    mut requests: mpsc::UnboundedReceiver<Request>,
    events: mpsc::UnboundedSender<Event>,
    metrics: PollMetrics,
) {
    // The engine's clock: milliseconds since this driver started.
    let epoch = Instant::now();
    let now = || epoch.elapsed().as_millis() as u64;
    let mut engine = Engine::new(config, now());
    let mut buf = vec![0u8; 64 * 1024];
    let mut buffers = batch::ReceiveBuffers::default();
    let mut outgoing: Vec<Vec<(SocketAddrV4, Vec<u8>)>> = vec![Vec::new(); sockets.len()];
    let mut open = true;
    let far = || tokio::time::Instant::now() + std::time::Duration::from_secs(3600);
    let sleep = tokio::time::sleep_until(far());
    tokio::pin!(sleep);
    loop {
        let wake = engine.poll_timeout(now()).map_or_else(far, |at| {
            tokio::time::Instant::from_std(epoch + std::time::Duration::from_millis(at))
        });
        if sleep.deadline() != wake {
            sleep.as_mut().reset(wake);
        }
        tokio::select! {
            (from, len) = std::future::poll_fn(|cx| poll_any(&sockets, cx, &mut buf)) => {
                let at = now();
                let (mut datagrams, mut bytes) = (1u64, len as u64);
                if let SocketAddr::V4(from) = from {
                    engine.handle_datagram(at, from, &buf[..len]);
                }
                // Drain whatever else is waiting before the housekeeping below.
                for socket in &sockets {
                    batch::receive(socket, &mut buffers, |from, datagram| {
                        datagrams += 1;
                        bytes += datagram.len() as u64;
                        engine.handle_datagram(at, from, datagram);
                    });
                }
                metrics.datagrams_received.inc_by(datagrams);
                metrics.bytes_received.inc_by(bytes);
            }
            request = requests.recv(), if open => match request {
                Some(Request::Server(addr)) => engine.query_server(now(), addr),
                Some(Request::Master(addr)) => engine.query_master(now(), addr),
                Some(Request::Lan(targets)) => engine.scan_lan(now(), &targets),
                None => open = false,
            },
            _ = &mut sleep => engine.handle_timeout(now()),
        }
        let at = now();
        while let Some(transmit) = engine.poll_transmit(at) {
            // UO addresses are IPv4: masters list nothing else, and the LAN probe is IPv4.
            let SocketAddr::V4(to) = transmit.to else {
                continue;
            };
            let index = usize::from(to.port()) % sockets.len();
            outgoing[index].push((to, transmit.payload));
        }
        for (socket, datagrams) in sockets.iter().zip(&mut outgoing) {
            if !datagrams.is_empty() {
                metrics.datagrams_sent.inc_by(datagrams.len() as u64);
                metrics
                    .bytes_sent
                    .inc_by(datagrams.iter().map(|(_, d)| d.len() as u64).sum());
                batch::send(socket, datagrams).await;
                datagrams.clear();
            }
        }
        while let Some(event) = engine.poll_event() {
            let _ = events.send(event);
        }
        if !open && engine.in_flight() == 0 {
            return;
        }
    }
}

/// Runs one batch to completion: submits with `submit`, then gathers every event until the
/// engine has nothing left in flight.
pub async fn collect(
    config: EngineConfig,
    submit: impl FnOnce(&QueryHandle),
) -> std::io::Result<Vec<Event>> {
    let (handle, mut events) = start(config, PollMetrics::default())?;
    submit(&handle);
    drop(handle);
    let mut all = Vec::new();
    while let Some(event) = events.recv().await {
        all.push(event);
    }
    Ok(all)
}
