//! A master server, sans-IO, safe by default: registration verified by challenge as dpmaster
//! does it, lists for stock clients, and limits on everything a stranger can make it do.
//!
//! - A `heartbeat` is answered with `getinfo <challenge>`, a fresh challenge per attempt; only a
//!   matching `infoResponse` from the same address and port, with `protocol 22` and
//!   `sv_maxclients` above 0, registers or refreshes a server. A heartbeat alone never extends
//!   anything. Servers expire [`MasterConfig::timeout_ms`] after their last verified answer.
//! - `heartbeat flatline` hides the server at once and asks it again; since a heartbeat can be
//!   spoofed, a server that still answers is listed again after one round trip.
//! - A server's unsolicited full `statusResponse` (stock sends one every 600 s) is kept, with
//!   its players and cvars, when it comes from a registered address.
//! - `getservers 22 [full] [empty] [demo]`: full and empty servers only when asked for, demo
//!   servers only to demo clients; packets of at most [`MasterConfig::list_packet_bytes`], each
//!   ending `\EOT`, the starting point rotating between requests. Other protocols get an empty
//!   list.
//! - Limits: servers per IP and in all, challenges outstanding per IP and in all, `getservers`
//!   per client IP (a token bucket, on by default, unlike dpmaster's), private and loopback
//!   sources unless allowed, reflector ports never, input sizes bounded. Every drop is counted
//!   by kind.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::net::{Ipv4Addr, SocketAddrV4};

use super::info::InfoString;
use super::master::{ListEnd, ServerList, RECORD_LEN, RESPONSE_COMMAND};
use super::oob::{Packet, Status, MARKER};
use super::PROTOCOL_VERSION;
use crate::bridge::check_address;
use crate::Transmit;

/// What a master allows.
#[derive(Clone, Debug, PartialEq)]
pub struct MasterConfig {
    /// Servers listed at once, in all.
    pub max_servers: usize,
    /// Servers listed at once from one IP.
    pub max_per_address: usize,
    /// A server is dropped this long after its last verified `infoResponse`.
    pub timeout_ms: u64,
    /// A challenge not answered within this is forgotten.
    pub challenge_timeout_ms: u64,
    /// Challenges outstanding for one IP (across its ports), and in all.
    pub max_challenges_per_address: usize,
    pub max_challenges: usize,
    /// `getservers` per client IP: a burst, then one per this many ms. `None` turns it off.
    pub flood: Option<Flood>,
    /// Accept private, loopback and link-local sources (a LAN master, the lab).
    pub allow_private: bool,
    /// The largest list packet sent.
    pub list_packet_bytes: usize,
    /// Sources that may always ask for lists, private or not (a relay polling its own master
    /// over loopback); they still cannot register anything the rules refuse.
    pub trusted: Vec<Ipv4Addr>,
}

/// A token bucket per client IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flood {
    pub burst: u32,
    pub refill_ms: u64,
}

impl Default for MasterConfig {
    fn default() -> Self {
        Self {
            max_servers: 4096,
            max_per_address: 32,
            timeout_ms: 15 * 60 * 1000,
            challenge_timeout_ms: 5000,
            max_challenges_per_address: 16,
            max_challenges: 16_384,
            flood: Some(Flood {
                burst: 4,
                refill_ms: 1000,
            }),
            allow_private: false,
            list_packet_bytes: 1400,
            trusted: Vec::new(),
        }
    }
}

/// The largest datagram read at all: a full `statusResponse` (cvars and players).
pub const MAX_INPUT: usize = 16_384;
/// The largest query (`heartbeat`, `getservers`) read.
pub const MAX_QUERY: usize = 256;
/// Client IPs whose flood buckets are kept; the stalest go first.
const MAX_BUCKETS: usize = 65_536;
/// Challenges kept per address and port (each heartbeat gets a fresh one).
const CHALLENGES_PER_PORT: usize = 4;

/// How a server came to be listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", content = "master", rename_all = "snake_case")
)]
pub enum Origin {
    /// It heartbeats this master.
    Heartbeat,
    /// Another master listed it (federation); it answered our own challenge.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    Federated(SocketAddrV4),
}

/// One listed server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    pub info: InfoString,
    pub origin: Origin,
    pub registered_at: u64,
    /// Its last verified `infoResponse`.
    pub verified_at: u64,
    pub heartbeat_at: Option<u64>,
    /// Its last full `statusResponse`, and when.
    pub status: Option<(Status, u64)>,
    /// Hidden by a `heartbeat flatline` until it answers again.
    pub flatlined: bool,
}

impl Registered {
    fn number(&self, key: &str) -> u32 {
        self.info
            .get(key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    pub fn clients(&self) -> u32 {
        self.number("clients")
    }

    pub fn max_clients(&self) -> u32 {
        self.number("sv_maxclients")
    }

    /// A demo (restricted) server, which only demo clients see.
    pub fn is_demo(&self) -> bool {
        self.info
            .get("demo")
            .is_some_and(|v| v != "0" && !v.is_empty())
    }
}

/// A challenge sent and not yet answered.
#[derive(Clone, Debug)]
struct Pending {
    challenge: String,
    sent_at: u64,
    origin: Origin,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: u32,
    at: u64,
}

/// What the master did, for logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MasterEvent {
    Registered {
        addr: SocketAddrV4,
        origin: Origin,
    },
    Expired {
        addr: SocketAddrV4,
    },
    Flatlined {
        addr: SocketAddrV4,
    },
    /// A challenge was answered but the server may not be listed, and why.
    Refused {
        addr: SocketAddrV4,
        reason: String,
    },
}

/// Counters, every drop by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MasterCounters {
    pub heartbeats: u64,
    pub challenges_sent: u64,
    pub registered: u64,
    pub refreshed: u64,
    pub expired: u64,
    pub flatlines: u64,
    pub statuses_kept: u64,
    pub lists_served: u64,
    pub list_packets: u64,
    pub dropped: BTreeMap<String, u64>,
}

/// The master's state.
#[derive(Clone, Debug)]
pub struct MasterServer {
    config: MasterConfig,
    servers: BTreeMap<SocketAddrV4, Registered>,
    pending: BTreeMap<SocketAddrV4, VecDeque<Pending>>,
    pending_count: usize,
    buckets: BTreeMap<Ipv4Addr, Bucket>,
    rotation: usize,
    counters: MasterCounters,
    transmits: VecDeque<(SocketAddrV4, Vec<u8>)>,
    events: VecDeque<MasterEvent>,
}

fn ip_range(ip: Ipv4Addr) -> core::ops::RangeInclusive<SocketAddrV4> {
    SocketAddrV4::new(ip, 0)..=SocketAddrV4::new(ip, u16::MAX)
}

impl MasterServer {
    pub fn new(config: MasterConfig) -> Self {
        Self {
            config,
            servers: BTreeMap::new(),
            pending: BTreeMap::new(),
            pending_count: 0,
            buckets: BTreeMap::new(),
            rotation: 0,
            counters: MasterCounters::default(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    pub fn config(&self) -> &MasterConfig {
        &self.config
    }

    pub fn counters(&self) -> &MasterCounters {
        &self.counters
    }

    /// Every listed server (flatlined ones included, marked), in address order.
    pub fn servers(&self) -> impl Iterator<Item = (&SocketAddrV4, &Registered)> {
        self.servers.iter()
    }

    /// One listed server.
    pub fn get(&self, addr: &SocketAddrV4) -> Option<&Registered> {
        self.servers.get(addr)
    }

    /// Challenges outstanding.
    pub fn pending(&self) -> usize {
        self.pending_count
    }

    fn drop_as(&mut self, kind: &str) {
        *self.counters.dropped.entry(kind.to_string()).or_default() += 1;
    }

    /// Takes one datagram from `from`; `challenge` draws a fresh random challenge.
    pub fn handle_datagram(
        &mut self,
        now: u64,
        from: SocketAddrV4,
        datagram: &[u8],
        challenge: &mut dyn FnMut() -> u32,
    ) {
        if datagram.len() > MAX_INPUT {
            return self.drop_as("oversized");
        }
        let packet = Packet::parse(datagram);
        let trusted =
            self.config.trusted.contains(from.ip()) && matches!(packet, Ok(Packet::GetServers(_)));
        if let Err(refusal) = check_address(*from.ip(), from.port(), self.config.allow_private) {
            if !trusted {
                return self.drop_as(refusal.kind());
            }
        }
        let Ok(packet) = packet else {
            return self.drop_as("unparsed");
        };
        let query = matches!(packet, Packet::Heartbeat { .. } | Packet::GetServers(_));
        if query && datagram.len() > MAX_QUERY {
            return self.drop_as("oversized");
        }
        match packet {
            Packet::Heartbeat { tag } => self.heartbeat(now, from, &tag, challenge),
            Packet::InfoResponse(info) => self.info_response(now, from, info),
            Packet::StatusResponse(status) => self.status_response(now, from, status),
            Packet::GetServers(query) => {
                if !self.allow_query(now, *from.ip()) {
                    return self.drop_as("flood");
                }
                self.list(from, query.protocol, &query.keywords);
            }
            _ => self.drop_as("other_command"),
        }
    }

    fn heartbeat(
        &mut self,
        now: u64,
        from: SocketAddrV4,
        tag: &str,
        challenge: &mut dyn FnMut() -> u32,
    ) {
        self.counters.heartbeats += 1;
        if let Some(server) = self.servers.get_mut(&from) {
            server.heartbeat_at = Some(now);
            if tag.trim().eq_ignore_ascii_case("flatline") {
                server.flatlined = true;
                self.counters.flatlines += 1;
                self.events.push_back(MasterEvent::Flatlined { addr: from });
            }
        }
        self.challenge(now, from, Origin::Heartbeat, challenge);
    }

    /// Sends `getinfo <challenge>` to `addr`, within the challenge limits.
    pub fn challenge(
        &mut self,
        now: u64,
        addr: SocketAddrV4,
        origin: Origin,
        challenge: &mut dyn FnMut() -> u32,
    ) {
        if check_address(*addr.ip(), addr.port(), self.config.allow_private).is_err() {
            return self.drop_as("special_address");
        }
        let for_ip: usize = self
            .pending
            .range(ip_range(*addr.ip()))
            .map(|(_, p)| p.len())
            .sum();
        let replacing = self
            .pending
            .get(&addr)
            .is_some_and(|p| p.len() >= CHALLENGES_PER_PORT);
        if !replacing
            && (for_ip >= self.config.max_challenges_per_address
                || self.pending_count >= self.config.max_challenges)
        {
            return self.drop_as("challenge_cap");
        }
        let text = challenge().to_string();
        let queue = self.pending.entry(addr).or_default();
        if replacing {
            queue.pop_front();
        } else {
            self.pending_count += 1;
        }
        queue.push_back(Pending {
            challenge: text.clone(),
            sent_at: now,
            origin,
        });
        self.counters.challenges_sent += 1;
        let probe = Packet::GetInfo {
            challenge: Some(text),
        };
        self.transmits.push_back((addr, probe.emit()));
    }

    fn take_challenge(&mut self, from: SocketAddrV4, answered: Option<&str>) -> Option<Origin> {
        let queue = self.pending.get_mut(&from)?;
        let at = queue
            .iter()
            .position(|p| Some(p.challenge.as_str()) == answered)?;
        let pending = queue.remove(at)?;
        if queue.is_empty() {
            self.pending.remove(&from);
        }
        self.pending_count -= 1;
        Some(pending.origin)
    }

    fn refuse(&mut self, from: SocketAddrV4, kind: &str, reason: String) {
        self.drop_as(kind);
        self.events
            .push_back(MasterEvent::Refused { addr: from, reason });
    }

    fn info_response(&mut self, now: u64, from: SocketAddrV4, info: InfoString) {
        let Some(origin) = self.take_challenge(from, info.get("challenge")) else {
            return self.drop_as("challenge_mismatch");
        };
        let protocol = info.get("protocol").unwrap_or_default().trim().to_string();
        if protocol != PROTOCOL_VERSION.to_string() {
            let reason = alloc::format!(
                "protocol {} (this master lists protocol {PROTOCOL_VERSION} only)",
                if protocol.is_empty() {
                    "missing"
                } else {
                    &protocol
                }
            );
            return self.refuse(from, "wrong_protocol", reason);
        }
        let max_clients = info
            .get("sv_maxclients")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0);
        if max_clients == 0 {
            return self.refuse(from, "no_slots", "sv_maxclients is not above 0".into());
        }
        if let Some(server) = self.servers.get_mut(&from) {
            server.info = info;
            server.verified_at = now;
            server.flatlined = false;
            // A server that heartbeats us itself is ours, whoever listed it first.
            if origin == Origin::Heartbeat {
                server.origin = origin;
            }
            self.counters.refreshed += 1;
            return;
        }
        if self.servers.range(ip_range(*from.ip())).count() >= self.config.max_per_address {
            let reason = alloc::format!(
                "{} servers already listed from {}",
                self.config.max_per_address,
                from.ip()
            );
            return self.refuse(from, "per_address_cap", reason);
        }
        if self.servers.len() >= self.config.max_servers {
            let reason = alloc::format!("the list is full ({} servers)", self.config.max_servers);
            return self.refuse(from, "list_full", reason);
        }
        self.servers.insert(
            from,
            Registered {
                info,
                origin,
                registered_at: now,
                verified_at: now,
                heartbeat_at: (origin == Origin::Heartbeat).then_some(now),
                status: None,
                flatlined: false,
            },
        );
        self.counters.registered += 1;
        self.events
            .push_back(MasterEvent::Registered { addr: from, origin });
    }

    fn status_response(&mut self, now: u64, from: SocketAddrV4, status: Status) {
        match self.servers.get_mut(&from) {
            Some(server) => {
                server.status = Some((status, now));
                self.counters.statuses_kept += 1;
            }
            None => self.drop_as("unregistered_status"),
        }
    }

    fn allow_query(&mut self, now: u64, ip: Ipv4Addr) -> bool {
        let Some(flood) = self.config.flood else {
            return true;
        };
        if self.buckets.len() >= MAX_BUCKETS && !self.buckets.contains_key(&ip) {
            // Forget the buckets that have refilled: they hold nothing.
            let full_after = u64::from(flood.burst) * flood.refill_ms;
            self.buckets
                .retain(|_, b| now.saturating_sub(b.at) < full_after);
            if self.buckets.len() >= MAX_BUCKETS {
                return false;
            }
        }
        let bucket = self.buckets.entry(ip).or_insert(Bucket {
            tokens: flood.burst,
            at: now,
        });
        let refilled = now.saturating_sub(bucket.at) / flood.refill_ms.max(1);
        if refilled > 0 {
            bucket.tokens = (bucket.tokens as u64 + refilled).min(u64::from(flood.burst)) as u32;
            bucket.at += refilled * flood.refill_ms.max(1);
        }
        if bucket.tokens == 0 {
            return false;
        }
        bucket.tokens -= 1;
        true
    }

    /// The addresses a query is answered with, in the rotating order.
    pub fn listed(&mut self, protocol: u32, keywords: &[String]) -> Vec<SocketAddrV4> {
        if protocol != PROTOCOL_VERSION {
            return Vec::new();
        }
        let has = |k: &str| keywords.iter().any(|w| w.eq_ignore_ascii_case(k));
        let (full, empty, demo) = (has("full"), has("empty"), has("demo"));
        let list: Vec<SocketAddrV4> = self
            .servers
            .iter()
            .filter(|(_, s)| !s.flatlined && s.is_demo() == demo)
            .filter(|(_, s)| empty || s.clients() > 0)
            .filter(|(_, s)| full || s.clients() < s.max_clients())
            .map(|(a, _)| *a)
            .collect();
        if list.is_empty() {
            return list;
        }
        self.rotation = self.rotation.wrapping_add(1);
        let start = self.rotation % list.len();
        list[start..]
            .iter()
            .chain(&list[..start])
            .copied()
            .collect()
    }

    fn list(&mut self, to: SocketAddrV4, protocol: u32, keywords: &[String]) {
        let list = self.listed(protocol, keywords);
        let header = MARKER.len() + RESPONSE_COMMAND.len();
        let end = b"\\EOT\0\0\0".len();
        let per_packet =
            (self.config.list_packet_bytes.saturating_sub(header + end) / RECORD_LEN).max(1);
        self.counters.lists_served += 1;
        for packet in ServerList::emit_packets(&list, per_packet, ListEnd::Eot) {
            self.counters.list_packets += 1;
            self.transmits.push_back((to, packet));
        }
    }

    /// Expires servers and challenges; call about once a second.
    pub fn handle_timeout(&mut self, now: u64) {
        self.expire_challenges(now);
        let timeout = self.config.timeout_ms;
        let expired: Vec<SocketAddrV4> = self
            .servers
            .iter()
            .filter(|(_, s)| now.saturating_sub(s.verified_at) >= timeout)
            .map(|(a, _)| *a)
            .collect();
        for addr in expired {
            self.servers.remove(&addr);
            self.counters.expired += 1;
            self.events.push_back(MasterEvent::Expired { addr });
        }
    }

    fn expire_challenges(&mut self, now: u64) {
        let limit = self.config.challenge_timeout_ms;
        let mut removed = 0;
        self.pending.retain(|_, queue| {
            let before = queue.len();
            queue.retain(|p| now.saturating_sub(p.sent_at) < limit);
            removed += before - queue.len();
            !queue.is_empty()
        });
        self.pending_count -= removed;
    }

    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front().map(|(to, payload)| Transmit {
            to: core::net::SocketAddr::V4(to),
            payload,
        })
    }

    pub fn poll_event(&mut self) -> Option<MasterEvent> {
        self.events.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const SERVER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(81, 2, 69, 10), 28960);
    const SPOOFER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(81, 2, 69, 99), 28960);
    const CLIENT: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(94, 1, 2, 3), 40000);

    fn oob(text: &str) -> Vec<u8> {
        let mut d = MARKER.to_vec();
        d.extend_from_slice(text.as_bytes());
        d
    }

    fn info(challenge: &str, protocol: &str, clients: u32, max: u32) -> Vec<u8> {
        oob(&alloc::format!(
            "infoResponse\n\\challenge\\{challenge}\\protocol\\{protocol}\\hostname\\x\\clients\\{clients}\\sv_maxclients\\{max}"
        ))
    }

    struct Master {
        m: MasterServer,
        next: u32,
        now: u64,
    }

    impl Master {
        fn new(config: MasterConfig) -> Self {
            Self {
                m: MasterServer::new(config),
                next: 1000,
                now: 0,
            }
        }

        fn send(&mut self, from: SocketAddrV4, datagram: &[u8]) -> Vec<(SocketAddrV4, Vec<u8>)> {
            let next = &mut self.next;
            let mut draw = || {
                *next += 7;
                *next
            };
            self.m.handle_datagram(self.now, from, datagram, &mut draw);
            core::iter::from_fn(|| self.m.poll_transmit())
                .map(|t| match t.to {
                    core::net::SocketAddr::V4(to) => (to, t.payload),
                    core::net::SocketAddr::V6(_) => unreachable!("the master speaks IPv4"),
                })
                .collect()
        }

        /// Heartbeats from `server` and answers the challenge as a server would.
        fn register(&mut self, server: SocketAddrV4, clients: u32, max: u32) {
            let sent = self.send(server, &oob("heartbeat \n"));
            let challenge = challenge_of(&sent);
            self.send(server, &info(&challenge, "22", clients, max));
        }

        fn list(&mut self, from: SocketAddrV4, query: &str) -> Vec<SocketAddrV4> {
            self.send(from, &oob(query))
                .iter()
                .flat_map(|(_, p)| ServerList::parse(p).unwrap().servers)
                .collect()
        }

        fn dropped(&self, kind: &str) -> u64 {
            self.m.counters().dropped.get(kind).copied().unwrap_or(0)
        }
    }

    fn challenge_of(sent: &[(SocketAddrV4, Vec<u8>)]) -> String {
        match Packet::parse(&sent[0].1) {
            Ok(Packet::GetInfo { challenge: Some(c) }) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn golden_challenge_and_registration() {
        let mut m = Master::new(MasterConfig::default());
        let sent = m.send(SERVER, &oob("heartbeat \n"));
        assert_eq!(sent, vec![(SERVER, oob("getinfo 1007"))]);
        assert!(
            m.m.servers().next().is_none(),
            "a heartbeat alone lists nothing"
        );
        m.send(SERVER, &info("1007", "22", 3, 20));
        let (addr, server) = m.m.servers().next().unwrap();
        assert_eq!(
            (*addr, server.clients(), server.max_clients()),
            (SERVER, 3, 20)
        );
        assert_eq!(
            m.m.poll_event(),
            Some(MasterEvent::Registered {
                addr: SERVER,
                origin: Origin::Heartbeat
            })
        );
        let packets = m.send(CLIENT, &oob("getservers 22"));
        let golden = b"\xff\xff\xff\xffgetserversResponse\\\x51\x02\x45\x0a\x71\x20\\EOT\0\0\0";
        assert_eq!(packets, vec![(CLIENT, golden.to_vec())]);
    }

    #[test]
    fn a_spoofed_heartbeat_cannot_register_another_address() {
        let mut m = Master::new(MasterConfig::default());
        // The spoofer heartbeats as SERVER: the challenge goes to SERVER, not to it.
        let sent = m.send(SERVER, &oob("heartbeat \n"));
        assert_eq!(sent[0].0, SERVER);
        let challenge = challenge_of(&sent);
        // Even knowing the challenge, an answer from another address registers nothing.
        m.send(SPOOFER, &info(&challenge, "22", 1, 20));
        // A wrong or missing challenge from the right address neither.
        m.send(SERVER, &info("1", "22", 1, 20));
        m.send(
            SERVER,
            &oob("infoResponse\n\\protocol\\22\\sv_maxclients\\20"),
        );
        assert!(m.m.servers().next().is_none());
        assert_eq!(m.dropped("challenge_mismatch"), 3);
        // An unsolicited statusResponse registers nothing either.
        m.send(SPOOFER, &oob("statusResponse\n\\sv_maxclients\\20\n"));
        assert_eq!(m.dropped("unregistered_status"), 1);
        assert!(m.m.servers().next().is_none());
        // Each challenge is good once.
        m.send(SERVER, &info(&challenge, "22", 1, 20));
        m.send(SERVER, &info(&challenge, "22", 1, 20));
        assert_eq!(m.m.servers().count(), 1);
        assert_eq!(m.m.counters().refreshed, 0);
    }

    #[test]
    fn wrong_protocols_no_slots_and_bad_info_strings_are_refused() {
        let mut m = Master::new(MasterConfig::default());
        let c = challenge_of(&m.send(SERVER, &oob("heartbeat QuakeArena-1\n")));
        m.send(SERVER, &info(&c, "71", 0, 16));
        assert_eq!(
            m.m.poll_event(),
            Some(MasterEvent::Refused {
                addr: SERVER,
                reason: "protocol 71 (this master lists protocol 22 only)".into()
            })
        );
        let c = challenge_of(&m.send(SERVER, &oob("heartbeat \n")));
        m.send(SERVER, &info(&c, "22", 0, 0));
        assert_eq!(m.dropped("no_slots"), 1);
        let before: u64 = m.m.counters().dropped.values().sum();
        m.send(SERVER, &oob("infoResponse\n\\odd"));
        m.send(SERVER, &[0xff, 0xff, 0xff, 0xff, 0x80, 0x81]);
        m.send(
            SERVER,
            &oob(&alloc::format!("heartbeat {}", "x".repeat(300))),
        );
        let after: u64 = m.m.counters().dropped.values().sum();
        assert_eq!(after - before, 3, "{:?}", m.m.counters().dropped);
        assert_eq!(m.dropped("oversized"), 1);
        assert!(m.m.servers().next().is_none());
    }

    #[test]
    fn loopback_private_and_reflector_sources_are_refused_unless_allowed() {
        let mut m = Master::new(MasterConfig::default());
        for from in [
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 28960),
            SocketAddrV4::new(Ipv4Addr::new(192, 168, 1, 2), 28960),
            SocketAddrV4::new(Ipv4Addr::new(81, 2, 69, 1), 53),
        ] {
            assert!(m.send(from, &oob("heartbeat \n")).is_empty());
            assert!(m.send(from, &oob("getservers 22")).is_empty());
        }
        assert_eq!(m.dropped("special_address"), 4);
        assert_eq!(m.dropped("reflector_port"), 2);
        let mut lan = Master::new(MasterConfig {
            allow_private: true,
            ..MasterConfig::default()
        });
        let local = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 28960);
        lan.register(local, 1, 8);
        assert_eq!(lan.m.servers().count(), 1);
    }

    #[test]
    fn caps_per_address_and_in_all_and_on_challenges() {
        let mut m = Master::new(MasterConfig {
            max_per_address: 3,
            max_servers: 5,
            max_challenges_per_address: 6,
            ..MasterConfig::default()
        });
        for port in 0..4 {
            m.register(SocketAddrV4::new(*SERVER.ip(), 28960 + port), 1, 8);
        }
        assert_eq!(m.m.servers().count(), 3);
        assert_eq!(m.dropped("per_address_cap"), 1);
        for last in 1..=3 {
            m.register(
                SocketAddrV4::new(Ipv4Addr::new(81, 2, 70, last), 28960),
                1,
                8,
            );
        }
        assert_eq!(m.m.servers().count(), 5);
        assert_eq!(m.dropped("list_full"), 1);
        // Challenges: a few per port (the oldest replaced), a bounded number per IP.
        let flood = SocketAddrV4::new(Ipv4Addr::new(82, 1, 1, 1), 28960);
        for _ in 0..10 {
            m.send(flood, &oob("heartbeat \n"));
        }
        assert_eq!(m.m.pending(), 4);
        for port in 1..10 {
            m.send(
                SocketAddrV4::new(*flood.ip(), 28960 + port),
                &oob("heartbeat \n"),
            );
        }
        assert_eq!(m.m.pending(), 6);
        assert!(m.dropped("challenge_cap") > 0);
        m.now = 6000;
        m.m.handle_timeout(m.now);
        assert_eq!(m.m.pending(), 0);
    }

    #[test]
    fn getservers_keywords_order_flood_and_packet_size() {
        let mut m = Master::new(MasterConfig::default());
        let empty = SocketAddrV4::new(Ipv4Addr::new(81, 2, 71, 1), 28960);
        let full = SocketAddrV4::new(Ipv4Addr::new(81, 2, 71, 2), 28960);
        let some = SocketAddrV4::new(Ipv4Addr::new(81, 2, 71, 3), 28960);
        m.register(empty, 0, 8);
        m.register(full, 8, 8);
        m.register(some, 3, 8);
        assert_eq!(m.list(CLIENT, "getservers 22"), [some]);
        let mut all = m.list(CLIENT, "getservers 22 full empty");
        all.sort();
        assert_eq!(all, [empty, full, some]);
        assert_eq!(m.list(CLIENT, "getservers 22 empty").len(), 2);
        assert!(m.list(CLIENT, "getservers 71 full empty").is_empty());
        // The fifth query inside a second is a flood; a second later one more passes.
        assert!(m.send(CLIENT, &oob("getservers 22 full empty")).is_empty());
        assert_eq!(m.dropped("flood"), 1);
        m.now = 1000;
        assert_eq!(m.list(CLIENT, "getservers 22 full empty").len(), 3);

        // Many servers: packets of at most 1,400 bytes, each ending \EOT, each server once,
        // and the first one changes from query to query.
        let mut big = Master::new(MasterConfig {
            flood: None,
            ..MasterConfig::default()
        });
        for i in 0..1000u32 {
            let ip = Ipv4Addr::new(81, 3, (i / 250) as u8, (i % 250) as u8 + 1);
            big.register(SocketAddrV4::new(ip, 28960), 1, 8);
        }
        let packets = big.send(CLIENT, &oob("getservers 22 full empty"));
        assert!(packets.len() >= 6);
        let mut seen = Vec::new();
        for (_, p) in &packets {
            assert!(p.len() <= 1400, "{}", p.len());
            let list = ServerList::parse(p).unwrap();
            assert_eq!(list.end, ListEnd::Eot);
            seen.extend(list.servers);
        }
        let firsts: Vec<SocketAddrV4> = (0..3)
            .map(|_| big.list(CLIENT, "getservers 22 full empty")[0])
            .collect();
        assert_ne!(firsts[0], firsts[1]);
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 1000);
    }

    #[test]
    fn flatline_hides_expiry_drops_and_statuses_are_kept() {
        let mut m = Master::new(MasterConfig::default());
        m.register(SERVER, 2, 8);
        m.send(
            SERVER,
            &oob("statusResponse\n\\sv_maxclients\\8\n5 40 \"Ghost\"\n"),
        );
        let (_, server) = m.m.servers().next().unwrap();
        let (status, _) = server.status.as_ref().unwrap();
        assert_eq!(status.players.len(), 1);
        // A flatline hides it at once and asks again; an answer lists it again.
        let sent = m.send(SERVER, &oob("heartbeat flatline\n"));
        assert!(m.list(CLIENT, "getservers 22 full empty").is_empty());
        m.send(SERVER, &info(&challenge_of(&sent), "22", 2, 8));
        assert_eq!(m.list(CLIENT, "getservers 22 full empty"), [SERVER]);
        // Heartbeats without answers do not extend it: it expires 15 minutes after its last
        // verified answer.
        m.now = 14 * 60 * 1000;
        m.send(SERVER, &oob("heartbeat \n"));
        m.now = 15 * 60 * 1000;
        m.m.handle_timeout(m.now);
        assert!(m.m.servers().next().is_none());
        assert_eq!(m.m.counters().expired, 1);
    }

    proptest::proptest! {
        #[test]
        fn nothing_registers_without_its_challenge(
            datagrams in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..200), 0..40)
        ) {
            let mut m = Master::new(MasterConfig::default());
            for d in &datagrams {
                let mut framed = MARKER.to_vec();
                framed.extend(d);
                m.send(SERVER, &framed);
                m.send(SERVER, d);
            }
            proptest::prop_assert_eq!(m.m.servers().count(), 0);
        }
    }
}
