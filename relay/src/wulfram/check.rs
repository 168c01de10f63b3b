//! The configured Wulfram II servers, checked now and then by connecting to their TCP port.

use std::sync::Arc;
use std::time::Duration;

use protocol::relay_api::{Reachability, WulframServer};
use tokio::net::TcpStream;

use super::{WulframTarget, CONNECT_TIMEOUT};
use crate::net::unix_ms;
use crate::seams::WulframBoard;

/// Checks every target now and then: reachable when its TCP port accepts a connection, with
/// the connect time as the round trip.
pub async fn check(board: Arc<dyn WulframBoard>, targets: Vec<WulframTarget>, every: Duration) {
    for t in &targets {
        board.post(WulframServer {
            name: t.name.clone(),
            addr: t.addr.to_string(),
            reachability: Reachability::Pending,
            rtt_ms: None,
            checked_ms: None,
        });
    }
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        for t in &targets {
            let started = tokio::time::Instant::now();
            let connected = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(t.addr)).await;
            let (reachability, rtt_ms) = match connected {
                Ok(Ok(_)) => (
                    Reachability::Online,
                    Some(started.elapsed().as_millis().max(1) as u32),
                ),
                _ => (Reachability::Unreachable, None),
            };
            board.post(WulframServer {
                name: t.name.clone(),
                addr: t.addr.to_string(),
                reachability,
                rtt_ms,
                checked_ms: Some(unix_ms()),
            });
        }
    }
}
