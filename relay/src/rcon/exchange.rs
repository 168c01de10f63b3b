//! One rcon command on the wire: the request datagram, then the `print` replies joined until
//! the output is finished (`protocol::cod::rcon::Reply`), from a socket of its own so that no
//! other command's reply can be mixed in.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use protocol::cod::oob::Packet;
use protocol::cod::rcon::{Outcome, Reply};

use crate::net::udp_to;

/// How long to wait for the first reply. An accepted command always answers (at least an
/// empty `print`), at once; silence means the server dropped it (its 500 ms throttle: someone
/// else's attempt came first) or the datagram was lost.
pub const FIRST_REPLY: Duration = Duration::from_secs(2);

/// A command's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub outcome: Outcome,
    /// `print` packets joined.
    pub chunks: usize,
    /// More output than the joiner keeps.
    pub truncated: bool,
    /// From the request to the last chunk.
    pub round_trip: Duration,
}

/// Why a command has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    #[error(
        "no reply within {0:?}: the server drops an rcon sent within 500 ms of any other \
         (its throttle counts every sender), or a datagram was lost; the command may or may \
         not have run"
    )]
    NoReply(Duration),
    #[error("{0}")]
    Socket(#[from] std::io::Error),
}

/// Sends `datagram` (an rcon request, `protocol::cod::rcon::request`) to `target` and joins
/// its reply. `turn` (the target's queue place) is given back as soon as the request has left.
pub async fn exchange<T>(
    target: SocketAddr,
    datagram: &[u8],
    first_reply: Duration,
    turn: T,
) -> Result<Answer, ExchangeError> {
    let socket = udp_to(target).await?;
    let started = Instant::now();
    socket.send(datagram).await?;
    drop(turn);
    let mut reply = Reply::new();
    let mut last = started;
    let mut buf = vec![0u8; protocol::cod::MAX_MSGLEN];
    loop {
        let now_ms = started.elapsed().as_millis() as u64;
        let deadline_ms = reply.done_at_ms().unwrap_or(first_reply.as_millis() as u64);
        let Some(wait) = deadline_ms.checked_sub(now_ms).filter(|w| *w > 0) else {
            break;
        };
        match tokio::time::timeout(Duration::from_millis(wait), socket.recv(&mut buf)).await {
            Err(_) => break,
            Ok(received) => {
                let len = received?;
                // Anything but `print` from the server (a stray `disconnect`) is not output.
                if let Ok(Packet::Print(text)) = Packet::parse(&buf[..len]) {
                    last = Instant::now();
                    reply.push(started.elapsed().as_millis() as u64, &text);
                }
            }
        }
    }
    if reply.chunks() == 0 {
        return Err(ExchangeError::NoReply(first_reply));
    }
    Ok(Answer {
        chunks: reply.chunks(),
        truncated: reply.truncated(),
        round_trip: last - started,
        outcome: reply.finish(),
    })
}
