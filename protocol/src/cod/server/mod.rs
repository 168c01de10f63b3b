//! The server side of protocol-22 sessions, sans-IO: challenges and `connect`, client slots
//! keyed by address and qport, the gamestate, per-client delta snapshots paced by `snaps` and
//! `rate`, reliable commands both ways, in-band downloads, map changes and drops.
//!
//! The game owns the world. Each server frame it calls [`Server::frame`] with what every client
//! sees; the server decides who gets a message. Inputs: [`Server::handle_datagram`]; outputs:
//! [`Server::poll_transmit`] (address and datagram) and [`Server::poll_event`].

mod slot;
pub mod upload;
pub mod visibility;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::net::SocketAddr;

use crate::Transmit;

use super::entity::EntityState;
use super::info::{InfoString, MAX_INFO_STRING};
use super::oob::{Packet, MARKER};
use super::playerstate::PlayerState;
use super::snapshot::{ClientState, Snapshot};
use super::usercmd::UserCmd;
use super::PROTOCOL_VERSION;
pub use slot::SlotState;
use slot::{Outcome, Slot};

/// Configstring values this long or longer go out in 999-byte `x`/`y`/`z` chunks.
const CONFIGSTRING_CHUNK: usize = 999;
const CONFIGSTRING_SPLIT: usize = 1000;
/// `sv_reconnectlimit`: seconds before the same address and qport may connect again.
pub const RECONNECT_LIMIT_MS: u64 = 3000;
/// Client numbers have six bits.
const MAX_CLIENT_NUMBERS: u8 = 64;
/// Challenges remembered at once; the oldest is forgotten first.
const CHALLENGES: usize = 1024;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// `sv_maxclients`: sessions plus the clients the game holds itself (see
    /// [`Server::reserve`]).
    pub max_clients: u8,
    /// Silence after which a client is dropped (`sv_timeout`; stock 240 s, so a client that
    /// died holds its slot that long unless it connects again from its address and qport).
    pub timeout_ms: u64,
    /// Seeds the challenge generator.
    pub seed: u64,
    /// `g_password`: a `connect` whose userinfo `password` differs is refused.
    pub password: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            max_clients: 20,
            timeout_ms: 240_000,
            seed: 22,
            password: None,
        }
    }
}

/// The current map's gamestate content.
#[derive(Clone, Debug, Default)]
pub struct Map {
    pub configstrings: BTreeMap<u16, String>,
    pub baselines: BTreeMap<u16, EntityState>,
    pub checksum_feed: i32,
    /// `sv_serverid`, published in configstring 1.
    pub server_id: u8,
    /// Snapshot flag bit 2: toggles across a restart.
    pub restart_toggle: bool,
}

/// What every client sees this server frame.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub server_time: i32,
    pub entities: BTreeMap<u16, EntityState>,
    pub clients: BTreeMap<u8, ClientState>,
    /// Each session's own player state, by client number.
    pub players: BTreeMap<u8, PlayerState>,
    /// Entity svFlags the game set (absent is 0): broadcast and objective entities skip the
    /// visibility test, `SVF_NOCLIENT` ones are never sent.
    pub sv_flags: BTreeMap<u16, u32>,
}

/// What the server reports to the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    Connected {
        client: u8,
        userinfo: InfoString,
    },
    /// The first valid user-command bundle arrived.
    Active {
        client: u8,
    },
    /// A command the engine does not handle itself (`say`, `team`, ...).
    Command {
        client: u8,
        text: String,
    },
    Moves {
        client: u8,
        commands: Vec<UserCmd>,
    },
    Disconnected {
        client: u8,
        reason: String,
    },
    /// A client's datagram came from another port of its address (stock prints
    /// `SV_PacketEvent: fixing up a translated port`): a NAT moved it, or another process
    /// on that address sent as the same client (same qport). Snapshots follow it there.
    PortTranslated {
        client: u8,
    },
    /// A snapshot went out (for tests and tools that check what clients decode).
    SnapshotSent {
        client: u8,
        sequence: u32,
        snapshot: alloc::boxed::Box<Snapshot>,
    },
}

/// The next `sv_serverid` after a map spawn: +16 with 8-bit wrap, skipping a zero high nibble.
pub fn next_server_id(id: u8) -> u8 {
    let next = id.wrapping_add(16);
    if next >> 4 == 0 {
        next.wrapping_add(16)
    } else {
        next
    }
}

/// The server commands that carry a configstring change: `d` whole, or 999-byte `x`, `y`, `z`
/// chunks for values of 1,000 bytes or more.
pub fn configstring_commands(index: u16, value: &str) -> Vec<String> {
    if value.len() < CONFIGSTRING_SPLIT {
        return alloc::vec![alloc::format!("d {index} {value}")];
    }
    let bytes = value.as_bytes();
    let chunks: Vec<&[u8]> = bytes.chunks(CONFIGSTRING_CHUNK).collect();
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let verb = match i {
                0 => 'x',
                _ if i + 1 == chunks.len() => 'z',
                _ => 'y',
            };
            alloc::format!("{verb} {index} {}", String::from_utf8_lossy(chunk))
        })
        .collect()
}

/// A small deterministic generator for challenges (xorshift64*).
#[derive(Clone, Debug)]
struct Challenges {
    state: u64,
    issued: VecDeque<(SocketAddr, i32)>,
}

impl Challenges {
    fn issue(&mut self, addr: SocketAddr) -> i32 {
        if let Some(&(_, c)) = self.issued.iter().find(|(a, _)| *a == addr) {
            return c;
        }
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let challenge = (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as i32;
        if self.issued.len() == CHALLENGES {
            self.issued.pop_front();
        }
        self.issued.push_back((addr, challenge));
        challenge
    }

    fn matches(&self, addr: SocketAddr, challenge: i32) -> bool {
        self.issued
            .iter()
            .any(|&(a, c)| a == addr && c == challenge)
    }
}

#[derive(Clone)]
pub struct Server {
    config: ServerConfig,
    map: Map,
    challenges: Challenges,
    slots: BTreeMap<u8, Slot>,
    /// Client numbers the game holds without a session (bots).
    reserved: Vec<u8>,
    files: Vec<(String, Arc<Vec<u8>>)>,
    transmits: VecDeque<(SocketAddr, Vec<u8>)>,
    events: VecDeque<ServerEvent>,
}

impl Server {
    pub fn new(config: ServerConfig, mut map: Map) -> Self {
        let seed = config.seed | 1;
        // A spawned map never has a zero high nibble, so a client without a gamestate (which
        // sends 0) is always of a stale generation.
        if map.server_id >> 4 == 0 {
            map.server_id = next_server_id(map.server_id);
        }
        publish_server_id(&mut map);
        Self {
            config,
            map,
            challenges: Challenges {
                state: seed,
                issued: VecDeque::new(),
            },
            slots: BTreeMap::new(),
            reserved: Vec::new(),
            files: Vec::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Client numbers with a session, and their states.
    pub fn sessions(&self) -> impl Iterator<Item = (u8, SlotState)> + '_ {
        self.slots.iter().map(|(&n, s)| (n, s.state))
    }

    /// A session's userinfo.
    pub fn userinfo(&self, client: u8) -> Option<&InfoString> {
        self.slots.get(&client).map(|s| &s.userinfo)
    }

    /// The client numbers the game holds without a session, such as bots: sessions take other
    /// numbers, and they count toward `max_clients`.
    pub fn reserve(&mut self, numbers: Vec<u8>) {
        self.reserved = numbers;
    }

    /// Makes a file available for in-band download under a server-relative name.
    pub fn offer_file(&mut self, name: &str, data: Vec<u8>) {
        self.files.retain(|(n, _)| n != name);
        self.files.push((name.into(), Arc::new(data)));
    }

    pub fn handle_datagram(&mut self, now: u64, from: SocketAddr, datagram: &[u8]) {
        if datagram.starts_with(&MARKER) {
            self.connectionless(now, from, datagram);
            return;
        }
        let Some(qport) = datagram.get(4..6).map(|q| u16::from_le_bytes([q[0], q[1]])) else {
            return;
        };
        // A channel is its base address and qport; a NAT may have moved the UDP port.
        let Some(number) = self
            .slots
            .values()
            .find(|s| s.addr.ip() == from.ip() && s.qport == qport)
            .map(|s| s.number)
        else {
            // Stock answers a sequenced packet from an unknown channel (a client of a server
            // that restarted) with a connectionless `disconnect`.
            let mut reply = MARKER.to_vec();
            reply.extend_from_slice(b"disconnect");
            self.transmits.push_back((from, reply));
            return;
        };
        let Some(slot) = self.slots.get_mut(&number) else {
            return;
        };
        if slot.addr != from {
            self.events
                .push_back(ServerEvent::PortTranslated { client: number });
        }
        slot.addr = from;
        let outcome = slot.handle_datagram(
            now,
            datagram,
            &self.map,
            &self.files,
            &mut self.transmits,
            &mut self.events,
        );
        if let Outcome::Drop(reason) = outcome {
            self.drop_client(number, &reason);
        }
    }

    fn reply(&mut self, to: SocketAddr, packet: Packet) {
        self.transmits.push_back((to, packet.emit()));
    }

    fn connectionless(&mut self, now: u64, from: SocketAddr, datagram: &[u8]) {
        match Packet::parse(datagram) {
            Ok(Packet::GetChallenge) => {
                let challenge = self.challenges.issue(from);
                self.reply(
                    from,
                    Packet::ChallengeResponse {
                        challenge,
                        extra: Vec::new(),
                    },
                );
            }
            Ok(Packet::Connect { userinfo }) => self.connect(now, from, userinfo),
            _ => {}
        }
    }

    fn connect(&mut self, now: u64, from: SocketAddr, userinfo: InfoString) {
        let protocol = userinfo.get("protocol").and_then(|p| p.parse::<u32>().ok());
        if protocol != Some(PROTOCOL_VERSION) {
            let text = alloc::format!("EXE_SERVERUSESPROTOCOL {PROTOCOL_VERSION}");
            return self.reply(from, Packet::Error(text));
        }
        let challenge = userinfo
            .get("challenge")
            .and_then(|c| c.parse::<i32>().ok());
        let Some(challenge) = challenge.filter(|&c| self.challenges.matches(from, c)) else {
            return self.reply(from, Packet::Error("EXE_BAD_CHALLENGE".into()));
        };
        let qport = userinfo.get("qport").and_then(|q| q.parse::<u16>().ok());
        // A reconnect from the same address and qport takes over its old slot.
        let existing = self
            .slots
            .values()
            .find(|s| s.addr.ip() == from.ip() && Some(s.qport) == qport)
            .map(|s| s.number);
        let full = self.slots.len() + self.reserved.len() >= usize::from(self.config.max_clients);
        // Stock's reconnect interval: a repeated or duplicated `connect` soon after the first
        // must not reset the session the client has already started.
        if let Some(slot) = existing.and_then(|n| self.slots.get(&n)) {
            if now.saturating_sub(slot.connected_at) < RECONNECT_LIMIT_MS {
                return;
            }
        }
        let number = existing.or_else(|| {
            (0..MAX_CLIENT_NUMBERS)
                .find(|n| !self.slots.contains_key(n) && !self.reserved.contains(n))
                .filter(|_| !full)
        });
        let Some(number) = number else {
            return self.reply(from, Packet::Error("EXE_SERVERISFULL".into()));
        };
        // As in the Q3 family, the game checks the password only once a slot is free. The text
        // is a guess at the UO game module's string; the notes do not give it.
        if let Some(password) = &self.config.password {
            if userinfo.get("password") != Some(password.as_str()) {
                return self.reply(from, Packet::Error("GAME_INVALIDPASSWORD".into()));
            }
        }
        let slot = Slot::new(number, from, challenge, userinfo.clone(), now);
        self.slots.insert(number, slot);
        let mut reply = MARKER.to_vec();
        reply.extend_from_slice(b"connectResponse");
        self.transmits.push_back((from, reply));
        self.events.push_back(ServerEvent::Connected {
            client: number,
            userinfo,
        });
    }

    /// Queues a reliable command for one client.
    pub fn command(&mut self, client: u8, text: &str) {
        let overflow = match self.slots.get_mut(&client) {
            Some(slot) => slot.command(text).err(),
            None => None,
        };
        if let Some(reason) = overflow {
            self.drop_client(client, &reason);
        }
    }

    /// Queues a reliable command for every client with a gamestate.
    pub fn broadcast(&mut self, text: &str) {
        let numbers: Vec<u8> = self
            .slots
            .values()
            .filter(|s| s.state >= SlotState::Primed)
            .map(|s| s.number)
            .collect();
        for number in numbers {
            self.command(number, text);
        }
    }

    /// Changes one configstring and tells every client.
    pub fn set_configstring(&mut self, index: u16, value: &str) {
        if self.map.configstrings.get(&index).map(String::as_str) == Some(value) {
            return;
        }
        if value.is_empty() {
            self.map.configstrings.remove(&index);
        } else {
            self.map.configstrings.insert(index, value.into());
        }
        for command in configstring_commands(index, value) {
            self.broadcast(&command);
        }
    }

    /// Spawns a new map: a new `sv_serverid`, `loadingnewmap` to every client, then a new
    /// gamestate.
    pub fn change_map(&mut self, now: u64, mut map: Map, mapname: &str, gametype: &str) {
        map.server_id = next_server_id(self.map.server_id);
        map.restart_toggle = !self.map.restart_toggle;
        publish_server_id(&mut map);
        self.map = map;
        let notice = alloc::format!("loadingnewmap\n{mapname}\n{gametype}");
        for slot in self.slots.values_mut() {
            let mut datagram = MARKER.to_vec();
            datagram.extend_from_slice(notice.as_bytes());
            self.transmits.push_back((slot.addr, datagram));
            slot.send_gamestate(now, &self.map, &mut self.transmits);
        }
    }

    /// Drops a client, telling it why.
    pub fn drop_client(&mut self, client: u8, reason: &str) {
        if let Some(mut slot) = self.slots.remove(&client) {
            if reason != "disconnected" {
                slot.farewell(reason, &mut self.transmits);
            }
            self.events.push_back(ServerEvent::Disconnected {
                client,
                reason: reason.into(),
            });
        }
    }

    /// One server frame: drops silent clients and sends every message that is due.
    pub fn frame(&mut self, now: u64, frame: &Frame) {
        let silent: Vec<u8> = self
            .slots
            .values()
            .filter(|s| now.saturating_sub(s.last_heard) >= self.config.timeout_ms)
            .map(|s| s.number)
            .collect();
        for number in silent {
            self.drop_client(number, "timed out");
        }
        for slot in self.slots.values_mut() {
            if let Some((sequence, snapshot)) =
                slot.send_due(now, frame, &self.map, &mut self.transmits)
            {
                self.events.push_back(ServerEvent::SnapshotSent {
                    client: slot.number,
                    sequence,
                    snapshot: alloc::boxed::Box::new(snapshot),
                });
            }
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits
            .pop_front()
            .map(|(to, payload)| Transmit { to, payload })
    }

    pub fn poll_event(&mut self) -> Option<ServerEvent> {
        self.events.pop_front()
    }
}

/// Writes `sv_serverid` into configstring 1 (systeminfo), where clients read it.
fn publish_server_id(map: &mut Map) {
    let text = map.configstrings.get(&1).cloned().unwrap_or_default();
    let mut info = InfoString::parse(&text, MAX_INFO_STRING * 8)
        .unwrap_or_else(|_| InfoString::new(MAX_INFO_STRING * 8));
    if info.set("sv_serverid", &map.server_id.to_string()).is_ok() {
        map.configstrings.insert(1, info.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_ids_skip_a_zero_high_nibble() {
        assert_eq!(next_server_id(0x13), 0x23);
        assert_eq!(next_server_id(0xf3), 0x13);
        assert_eq!(next_server_id(0xe0), 0xf0);
    }

    #[test]
    fn long_configstrings_go_out_in_chunks() {
        assert_eq!(configstring_commands(5, "abc"), ["d 5 abc"]);
        let long = "a".repeat(2500);
        let commands = configstring_commands(7, &long);
        assert_eq!(commands.len(), 3);
        assert!(commands[0].starts_with("x 7 aaa"));
        assert_eq!(commands[0].len(), "x 7 ".len() + 999);
        assert!(commands[1].starts_with("y 7 "));
        assert_eq!(commands[2], alloc::format!("z 7 {}", "a".repeat(502)));
    }
}
