//! Many datagrams per system call (`sendmmsg`, `recvmmsg`): a refresh sends and receives
//! thousands of small datagrams, and one call per datagram costs more CPU than the work itself.

use std::io::{IoSlice, IoSliceMut};
use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;

use nix::sys::socket::{recvmmsg, sendmmsg, MsgFlags, MultiHeaders, SockaddrIn};
use tokio::io::Interest;
use tokio::net::UdpSocket;

/// Datagrams moved per call.
pub const BATCH: usize = 32;
/// Room per received datagram: a full server's statusResponse fits.
const DATAGRAM_ROOM: usize = 16 * 1024;

/// Buffers for [`receive`], allocated once.
pub struct ReceiveBuffers {
    buffers: Vec<Vec<u8>>,
}

impl Default for ReceiveBuffers {
    fn default() -> Self {
        Self {
            buffers: vec![vec![0u8; DATAGRAM_ROOM]; BATCH],
        }
    }
}

fn to_v4(addr: &SockaddrIn) -> SocketAddrV4 {
    SocketAddrV4::new(addr.ip(), addr.port())
}

/// Takes every datagram waiting on `socket` without blocking, in batches, handing each to
/// `each`. Returns how many there were.
pub fn receive(
    socket: &UdpSocket,
    buffers: &mut ReceiveBuffers,
    mut each: impl FnMut(SocketAddrV4, &[u8]),
) -> usize {
    let mut total = 0;
    loop {
        let mut received: Vec<(SocketAddrV4, usize)> = Vec::with_capacity(BATCH);
        let result = socket.try_io(Interest::READABLE, || {
            let mut headers = MultiHeaders::<SockaddrIn>::preallocate(BATCH, None);
            let mut slices: Vec<[IoSliceMut<'_>; 1]> = buffers
                .buffers
                .iter_mut()
                .map(|b| [IoSliceMut::new(b)])
                .collect();
            let results = recvmmsg(
                socket.as_raw_fd(),
                &mut headers,
                slices.iter_mut(),
                MsgFlags::MSG_DONTWAIT,
                None,
            )
            .map_err(std::io::Error::from)?;
            for message in results {
                if let Some(from) = message.address {
                    received.push((to_v4(&from), message.bytes));
                }
            }
            Ok(())
        });
        if result.is_err() {
            return total;
        }
        let count = received.len();
        for (i, (from, len)) in received.into_iter().enumerate() {
            each(from, &buffers.buffers[i][..len]);
        }
        total += count;
        if count < BATCH {
            return total;
        }
    }
}

/// Sends every datagram, in batches, waiting for the socket when its buffer is full.
pub async fn send(socket: &UdpSocket, datagrams: &[(SocketAddrV4, Vec<u8>)]) {
    let mut rest = datagrams;
    while !rest.is_empty() {
        let chunk = &rest[..rest.len().min(BATCH)];
        let result = socket.try_io(Interest::WRITABLE, || {
            let mut headers = MultiHeaders::<SockaddrIn>::preallocate(chunk.len(), None);
            let slices: Vec<[IoSlice<'_>; 1]> =
                chunk.iter().map(|(_, d)| [IoSlice::new(d)]).collect();
            let addrs: Vec<Option<SockaddrIn>> = chunk
                .iter()
                .map(|(a, _)| Some(SockaddrIn::from(*a)))
                .collect();
            let sent = sendmmsg(
                socket.as_raw_fd(),
                &mut headers,
                &slices,
                &addrs,
                [],
                MsgFlags::empty(),
            )
            .map_err(std::io::Error::from)?;
            Ok(sent.count())
        });
        match result {
            Ok(sent) => rest = &rest[sent.max(1).min(rest.len())..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if socket.writable().await.is_err() {
                    return;
                }
            }
            Err(e) => {
                // An unroutable destination fails the batch at that datagram: skip it.
                tracing::debug!("send to {}: {e}", chunk[0].0);
                rest = &rest[1..];
            }
        }
    }
}
