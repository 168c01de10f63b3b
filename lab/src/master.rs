//! The lab master: verifies each heartbeat with `getinfo <challenge>` (as dpmaster does) and
//! answers `getservers` with multi-packet lists.

use crate::sync::Locked;
use std::collections::HashMap;
use std::net::{SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use protocol::cod::master::{ListEnd, ServerList};
use protocol::cod::oob::Packet;
use protocol::cod::PROTOCOL_VERSION;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::net::UdpSocket;

/// How long a verified server stays listed without another heartbeat (dpmaster's default).
pub const REGISTRATION_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// What the master knows of one verified server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    pub clients: u32,
    pub max_clients: u32,
    pub verified: Instant,
}

/// The master's registry, shared so tests can see what is listed.
pub type Registry = Arc<Mutex<HashMap<SocketAddrV4, Registration>>>;

/// Serves the master on `socket` until the task is dropped.
pub async fn run(
    socket: UdpSocket,
    registry: Registry,
    per_packet: usize,
    last: ListEnd,
    seed: u64,
) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pending: HashMap<SocketAddrV4, String> = HashMap::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let Ok((len, SocketAddr::V4(from))) = socket.recv_from(&mut buf).await else {
            continue;
        };
        let Ok(packet) = Packet::parse(&buf[..len]) else {
            continue;
        };
        match packet {
            Packet::Heartbeat { tag } if tag.eq_ignore_ascii_case("flatline") => {
                registry.locked().remove(&from);
            }
            Packet::Heartbeat { .. } => {
                let challenge = format!("{}", rng.random::<u32>());
                let probe = Packet::GetInfo {
                    challenge: Some(challenge.clone()),
                };
                if pending.len() < 100_000 {
                    pending.insert(from, challenge);
                }
                let _ = socket.send_to(&probe.emit(), from).await;
            }
            Packet::InfoResponse(info) => {
                let expected = pending.remove(&from);
                let protocol_ok = info.get("protocol") == Some(&PROTOCOL_VERSION.to_string()[..]);
                if expected.is_some() && expected.as_deref() == info.get("challenge") && protocol_ok
                {
                    let number = |k| info.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
                    let registration = Registration {
                        clients: number("clients"),
                        max_clients: number("sv_maxclients"),
                        verified: Instant::now(),
                    };
                    registry.locked().insert(from, registration);
                }
            }
            Packet::GetServers(query) if query.protocol == PROTOCOL_VERSION => {
                let list = listed(&registry, query.wants_empty(), query.wants_full());
                for packet in ServerList::emit_packets(&list, per_packet, last) {
                    let _ = socket.send_to(&packet, from).await;
                }
            }
            _ => {}
        }
    }
}

/// The live servers a query asks for, in address order.
fn listed(registry: &Registry, empty: bool, full: bool) -> Vec<SocketAddrV4> {
    let mut registry = registry.locked();
    registry.retain(|_, r| r.verified.elapsed() < REGISTRATION_TIMEOUT);
    let mut list: Vec<SocketAddrV4> = registry
        .iter()
        .filter(|(_, r)| empty || r.clients > 0)
        .filter(|(_, r)| full || r.clients < r.max_clients)
        .map(|(addr, _)| *addr)
        .collect();
    list.sort();
    list
}
