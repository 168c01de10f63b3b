//! The query engine's state machine, sans-IO: queries in, datagrams and results out, time as a
//! parameter. One engine carries thousands of server queries, master queries and LAN scans at
//! once; [`super::driver`] gives it sockets and a clock.
//!
//! Politeness: sends are paced by a global token bucket, and one server gets one `getinfo` and
//! one `getstatus` per attempt, attempts at least `first_timeout` apart (doubling), so no server
//! sees more than four replies asked of it per second from us, well under the ten per second
//! that ioquake3-family servers allow one address.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use protocol::cod::info::InfoString;
use protocol::cod::master::{GetServers, ListEnd};
use protocol::cod::oob::{OobError, Packet, Status};
use protocol::cod::{DEFAULT_SERVER_PORT, PROTOCOL_VERSION};

/// Ports the stock LAN scan probes: the default port and the next three.
pub const LAN_PORTS: std::ops::RangeInclusive<u16> = DEFAULT_SERVER_PORT..=DEFAULT_SERVER_PORT + 3;
/// Datagrams the pacing lets out together (at the default rate, every 12.8 ms).
const PACING_BATCH: f64 = 64.0;
/// The challenge the stock client puts in its LAN `getinfo`.
pub const LAN_CHALLENGE: &str = "xxx";

/// Tuning; the defaults suit thousands of servers on a home link.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Packets per second across all queries.
    pub send_rate: f64,
    /// Packets that may leave at once after a quiet spell.
    pub burst: f64,
    /// Wait for the first attempt's replies; each retry waits twice as long.
    pub first_timeout: Duration,
    /// Attempts per server query.
    pub attempts: u32,
    /// A master's list is complete at `\EOF`, or this long after its last packet.
    pub master_idle: Duration,
    /// Attempts per master query (each waits `master_idle` for a first packet).
    pub master_attempts: u32,
    /// How long a LAN scan listens.
    pub lan_window: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            send_rate: 5000.0,
            burst: 200.0,
            first_timeout: Duration::from_millis(500),
            attempts: 3,
            master_idle: Duration::from_millis(1000),
            master_attempts: 2,
            lan_window: Duration::from_millis(1500),
        }
    }
}

pub use protocol::Transmit;

/// How one server query ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `infoResponse` arrived (and `statusResponse`, unless every attempt lost it).
    Answered,
    /// No reply after every attempt.
    TimedOut,
    /// Only replies that do not parse.
    Malformed(String),
}

/// The result of one server query.
#[derive(Clone, Debug)]
pub struct ServerReply {
    pub addr: SocketAddrV4,
    pub outcome: Outcome,
    pub info: Option<InfoString>,
    pub status: Option<Status>,
    /// The best round trip over all attempts.
    pub rtt: Option<Duration>,
    pub attempts: u32,
}

/// The result of one master query.
#[derive(Clone, Debug)]
pub struct MasterReply {
    pub addr: SocketAddrV4,
    pub servers: Vec<SocketAddrV4>,
    pub packets: usize,
    /// `\EOF` arrived: the master said the list is whole.
    pub complete: bool,
    /// Why the master gave nothing usable, if it did not.
    pub error: Option<String>,
}

/// What the engine reports.
#[derive(Clone, Debug)]
pub enum Event {
    Server(ServerReply),
    Master(MasterReply),
    /// One list packet arrived: its addresses, so they can be queried before the list ends.
    MasterPacket {
        addr: SocketAddrV4,
        servers: Vec<SocketAddrV4>,
    },
    /// A server answered the LAN scan.
    Lan {
        addr: SocketAddrV4,
        info: InfoString,
    },
    /// The LAN scan stopped listening.
    LanDone,
}

struct Attempt {
    challenge: String,
    /// The engine's clock (ms) when it went.
    sent: u64,
}

struct ServerQuery {
    attempts: Vec<Attempt>,
    deadline: u64,
    info: Option<InfoString>,
    status: Option<Status>,
    rtt: Option<Duration>,
    malformed: Option<String>,
}

struct MasterQuery {
    attempts: u32,
    deadline: u64,
    packets: usize,
    servers: BTreeSet<SocketAddrV4>,
}

fn millis(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// The engine: sans-IO, its clock `now` in milliseconds from any epoch the caller keeps,
/// always the first argument.
pub struct Engine {
    config: EngineConfig,
    servers: HashMap<SocketAddrV4, ServerQuery>,
    masters: HashMap<SocketAddrV4, MasterQuery>,
    lan_until: Option<u64>,
    lan_seen: BTreeSet<SocketAddrV4>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    tokens: f64,
    refilled: u64,
    /// A batch is being handed out (see [`Self::poll_transmit`]).
    draining: bool,
    /// Server query deadlines in order, so timers cost O(log n) however many are in flight.
    timers: BTreeSet<(u64, SocketAddrV4)>,
}

impl Engine {
    pub fn new(config: EngineConfig, now: u64) -> Self {
        Self {
            tokens: config.burst,
            config,
            servers: HashMap::new(),
            masters: HashMap::new(),
            lan_until: None,
            lan_seen: BTreeSet::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            refilled: now,
            draining: false,
            timers: BTreeSet::new(),
        }
    }

    /// Queries not yet finished, a listening LAN scan counted as one.
    pub fn in_flight(&self) -> usize {
        self.servers.len() + self.masters.len() + usize::from(self.lan_until.is_some())
    }

    /// Starts a query of `addr` (getinfo and getstatus); a query already running is kept.
    pub fn query_server(&mut self, now: u64, addr: SocketAddrV4) {
        if self.servers.contains_key(&addr) {
            return;
        }
        self.servers.insert(
            addr,
            ServerQuery {
                attempts: Vec::new(),
                deadline: now,
                info: None,
                status: None,
                rtt: None,
                malformed: None,
            },
        );
        self.attempt_server(now, addr);
    }

    fn attempt_server(&mut self, now: u64, addr: SocketAddrV4) {
        // Unpredictable per attempt, so an off-path forger cannot answer for a server.
        let challenge = rand::random::<u32>().to_string();
        let Some(query) = self.servers.get_mut(&addr) else {
            return;
        };
        let wait = self.config.first_timeout * (1 << query.attempts.len().min(8));
        query.attempts.push(Attempt {
            challenge: challenge.clone(),
            sent: now,
        });
        self.timers.remove(&(query.deadline, addr));
        query.deadline = now + millis(wait);
        self.timers.insert((query.deadline, addr));
        if query.info.is_none() {
            let payload = Packet::GetInfo {
                challenge: Some(challenge.clone()),
            }
            .emit();
            self.transmits.push_back(Transmit {
                to: SocketAddr::V4(addr),
                payload,
            });
        }
        if query.status.is_none() {
            let payload = Packet::GetStatus {
                challenge: Some(challenge),
            }
            .emit();
            self.transmits.push_back(Transmit {
                to: SocketAddr::V4(addr),
                payload,
            });
        }
    }

    /// Asks a master for every protocol-22 server, full and empty ones included.
    pub fn query_master(&mut self, now: u64, addr: SocketAddrV4) {
        if self.masters.contains_key(&addr) {
            return;
        }
        self.masters.insert(
            addr,
            MasterQuery {
                attempts: 0,
                deadline: now,
                packets: 0,
                servers: BTreeSet::new(),
            },
        );
        self.attempt_master(now, addr);
    }

    fn attempt_master(&mut self, now: u64, addr: SocketAddrV4) {
        if let Some(query) = self.masters.get_mut(&addr) {
            query.attempts += 1;
            query.deadline = now + millis(self.config.master_idle);
            let payload = Packet::GetServers(GetServers::full_and_empty()).emit();
            self.transmits.push_back(Transmit {
                to: SocketAddr::V4(addr),
                payload,
            });
        }
    }

    /// Sends `getinfo xxx` twice to ports 28960-28963 of each target, as the stock client does,
    /// and listens for answers for a while.
    pub fn scan_lan(&mut self, now: u64, targets: &[Ipv4Addr]) {
        let payload = Packet::GetInfo {
            challenge: Some(LAN_CHALLENGE.into()),
        }
        .emit();
        for &ip in targets {
            for port in LAN_PORTS {
                for _ in 0..2 {
                    self.transmits.push_back(Transmit {
                        to: SocketAddr::V4(SocketAddrV4::new(ip, port)),
                        payload: payload.clone(),
                    });
                }
            }
        }
        self.lan_until = Some(now + millis(self.config.lan_window));
        self.lan_seen.clear();
    }

    /// Takes one datagram that arrived from `from`.
    pub fn handle_datagram(&mut self, now: u64, from: SocketAddrV4, datagram: &[u8]) {
        let parsed = Packet::parse(datagram);
        if self.servers.contains_key(&from) {
            self.on_server_reply(now, from, parsed);
        } else if self.masters.contains_key(&from) {
            self.on_master_reply(now, from, parsed);
        } else if let Ok(Packet::InfoResponse(info)) = parsed {
            self.on_lan_reply(now, from, info);
        }
    }

    fn on_server_reply(&mut self, now: u64, from: SocketAddrV4, parsed: Result<Packet, OobError>) {
        let Some(query) = self.servers.get_mut(&from) else {
            return;
        };
        let sent_for = |challenge: Option<&str>| {
            challenge.and_then(|c| {
                query
                    .attempts
                    .iter()
                    .find(|a| a.challenge == c)
                    .map(|a| a.sent)
            })
        };
        match parsed {
            Ok(Packet::InfoResponse(info)) => {
                // Only a reply to a challenge we sent counts.
                let Some(sent) = sent_for(info.get("challenge")) else {
                    return;
                };
                let rtt = Duration::from_millis(now.saturating_sub(sent));
                query.rtt = Some(query.rtt.map_or(rtt, |best| best.min(rtt)));
                query.info = Some(info);
            }
            Ok(Packet::StatusResponse(status)) => {
                let echoed = status.info.get("challenge");
                if echoed.is_some_and(|c| sent_for(Some(c)).is_none()) {
                    return;
                }
                query.status = Some(status);
            }
            Ok(_) => return,
            Err(e) => {
                query.malformed = Some(e.to_string());
                return;
            }
        }
        if query.info.is_some() && query.status.is_some() {
            self.finish_server(from);
        }
    }

    fn finish_server(&mut self, addr: SocketAddrV4) {
        let Some(query) = self.servers.remove(&addr) else {
            return;
        };
        self.timers.remove(&(query.deadline, addr));
        let outcome = match (&query.info, query.malformed) {
            (Some(_), _) => Outcome::Answered,
            (None, Some(error)) => Outcome::Malformed(error),
            (None, None) => Outcome::TimedOut,
        };
        self.events.push_back(Event::Server(ServerReply {
            addr,
            outcome,
            info: query.info,
            status: query.status,
            rtt: query.rtt,
            attempts: query.attempts.len() as u32,
        }));
    }

    fn on_master_reply(&mut self, now: u64, from: SocketAddrV4, parsed: Result<Packet, OobError>) {
        let Some(query) = self.masters.get_mut(&from) else {
            return;
        };
        if let Ok(Packet::ServerList(list)) = parsed {
            query.packets += 1;
            query.servers.extend(list.servers.iter().copied());
            query.deadline = now + millis(self.config.master_idle);
            self.events.push_back(Event::MasterPacket {
                addr: from,
                servers: list.servers,
            });
            if list.end == ListEnd::Eof {
                self.finish_master(from, true);
            }
        }
    }

    fn finish_master(&mut self, addr: SocketAddrV4, complete: bool) {
        let Some(query) = self.masters.remove(&addr) else {
            return;
        };
        let error = (query.packets == 0).then(|| format!("no reply from {addr}"));
        self.events.push_back(Event::Master(MasterReply {
            addr,
            servers: query.servers.into_iter().collect(),
            packets: query.packets,
            complete,
            error,
        }));
    }

    fn on_lan_reply(&mut self, now: u64, from: SocketAddrV4, info: InfoString) {
        let scanning = self.lan_until.is_some_and(|until| now < until);
        if scanning
            && LAN_PORTS.contains(&from.port())
            && info.get("challenge") == Some(LAN_CHALLENGE)
            && info.get("protocol") == Some(PROTOCOL_VERSION.to_string().as_str())
            && self.lan_seen.insert(from)
        {
            self.events.push_back(Event::Lan { addr: from, info });
        }
    }

    /// Advances timers: retries, give-ups, finished lists and scans.
    pub fn handle_timeout(&mut self, now: u64) {
        let due: Vec<SocketAddrV4> = self
            .timers
            .iter()
            .take_while(|(deadline, _)| *deadline <= now)
            .map(|(_, addr)| *addr)
            .collect();
        for addr in due {
            let tried = self
                .servers
                .get(&addr)
                .map_or(0, |q| q.attempts.len() as u32);
            if tried < self.config.attempts {
                self.attempt_server(now, addr);
            } else {
                self.finish_server(addr);
            }
        }
        let due: Vec<(SocketAddrV4, usize, u32)> = self
            .masters
            .iter()
            .filter(|(_, q)| q.deadline <= now)
            .map(|(addr, q)| (*addr, q.packets, q.attempts))
            .collect();
        for (addr, packets, attempts) in due {
            if packets == 0 && attempts < self.config.master_attempts {
                self.attempt_master(now, addr);
            } else {
                self.finish_master(addr, false);
            }
        }
        if self.lan_until.is_some_and(|until| until <= now) {
            self.lan_until = None;
            self.events.push_back(Event::LanDone);
        }
    }

    /// The next datagram to send, when the pacing allows one now.
    pub fn poll_transmit(&mut self, now: u64) -> Option<Transmit> {
        let elapsed = now.saturating_sub(self.refilled) as f64 / 1000.0;
        self.tokens = (self.tokens + elapsed * self.config.send_rate).min(self.config.burst);
        self.refilled = now;
        // A drain starts only when a whole batch may leave, then runs while tokens last.
        let batch = (self.transmits.len() as f64).min(PACING_BATCH);
        if self.transmits.is_empty() || self.tokens < 1.0 || (!self.draining && self.tokens < batch)
        {
            self.draining = false;
            return None;
        }
        self.draining = true;
        self.tokens -= 1.0;
        self.transmits.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Self::handle_timeout`] or [`Self::poll_transmit`] next has work.
    pub fn poll_timeout(&self, now: u64) -> Option<u64> {
        // Wake when a batch's worth may leave, so sends go out many per system call.
        let pacing = (!self.transmits.is_empty()).then(|| {
            let batch = (self.transmits.len() as f64).min(PACING_BATCH);
            let missing = (batch - self.tokens).max(0.0);
            now + (missing * 1000.0 / self.config.send_rate).ceil() as u64
        });
        self.timers
            .first()
            .map(|(deadline, _)| *deadline)
            .into_iter()
            .chain(self.masters.values().map(|q| q.deadline))
            .chain(self.lan_until)
            .chain(pacing)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::cod::info::MAX_INFO_STRING;

    fn addr(port: u16) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)
    }

    fn drain(engine: &mut Engine, now: u64) -> Vec<Transmit> {
        core::iter::from_fn(|| engine.poll_transmit(now)).collect()
    }

    fn challenge_of(transmit: &Transmit) -> String {
        match Packet::parse(&transmit.payload) {
            Ok(Packet::GetInfo { challenge: Some(c) }) => c,
            other => panic!("expected getinfo, got {other:?}"),
        }
    }

    fn info_reply(challenge: &str) -> Vec<u8> {
        let mut info = InfoString::new(MAX_INFO_STRING);
        info.set("challenge", challenge).unwrap();
        info.set("protocol", "22").unwrap();
        Packet::InfoResponse(info).emit()
    }

    fn status_reply() -> Vec<u8> {
        Packet::StatusResponse(Status {
            info: InfoString::new(MAX_INFO_STRING),
            players: vec![],
        })
        .emit()
    }

    #[test]
    fn retries_back_off_and_the_best_rtt_wins() {
        let t0 = 1_000u64;
        let mut engine = Engine::new(EngineConfig::default(), t0);
        engine.query_server(t0, addr(1));
        let first = drain(&mut engine, t0);
        assert_eq!(first.len(), 2, "one getinfo and one getstatus per attempt");
        let first_challenge = challenge_of(&first[0]);
        // No reply: the second attempt comes after 500 ms, the third 1,000 ms later.
        assert_eq!(engine.poll_timeout(t0), Some(t0 + 500));
        let t1 = t0 + 500;
        engine.handle_timeout(t1);
        let second = drain(&mut engine, t1);
        assert_eq!(second.len(), 2);
        assert_ne!(challenge_of(&second[0]), first_challenge);
        assert_eq!(engine.poll_timeout(t1), Some(t1 + 1000));
        // The first attempt's reply arrives late (700 ms); the second's at 520 ms is better.
        let t2 = t0 + 700;
        engine.handle_datagram(t2, addr(1), &info_reply(&first_challenge));
        engine.handle_datagram(t0 + 520, addr(1), &info_reply(&challenge_of(&second[0])));
        engine.handle_datagram(t2, addr(1), &status_reply());
        let Some(Event::Server(reply)) = engine.poll_event() else {
            panic!("a result")
        };
        assert_eq!(reply.outcome, Outcome::Answered);
        assert_eq!(reply.rtt, Some(Duration::from_millis(20)));
        assert_eq!(reply.attempts, 2);
        assert_eq!(engine.in_flight(), 0);
    }

    #[test]
    fn replies_must_come_from_the_address_and_echo_the_challenge() {
        let t0 = 1_000u64;
        let mut engine = Engine::new(EngineConfig::default(), t0);
        engine.query_server(t0, addr(1));
        let sent = drain(&mut engine, t0);
        let challenge = challenge_of(&sent[0]);
        engine.handle_datagram(t0, addr(1), &info_reply("forged"));
        engine.handle_datagram(t0, addr(2), &info_reply(&challenge));
        engine.handle_datagram(t0, addr(1), &status_reply());
        assert!(engine.poll_event().is_none(), "no info yet");
        engine.handle_datagram(t0, addr(1), &info_reply(&challenge));
        assert!(matches!(engine.poll_event(), Some(Event::Server(_))));
    }

    #[test]
    fn silence_and_garbage_are_told_apart() {
        let t0 = 1_000u64;
        let mut engine = Engine::new(EngineConfig::default(), t0);
        engine.query_server(t0, addr(1));
        engine.query_server(t0, addr(2));
        engine.handle_datagram(t0, addr(2), b"\xff\xff\xff\xffinfoResponse\n\\key");
        let mut now = t0;
        while engine.in_flight() > 0 {
            now = engine.poll_timeout(now).unwrap();
            engine.handle_timeout(now);
            drain(&mut engine, now);
        }
        assert_eq!(now - t0, 500 + 1000 + 2000);
        let mut outcomes: Vec<(u16, Outcome)> = core::iter::from_fn(|| engine.poll_event())
            .filter_map(|e| match e {
                Event::Server(r) => Some((r.addr.port(), r.outcome)),
                _ => None,
            })
            .collect();
        outcomes.sort_by_key(|(port, _)| *port);
        assert_eq!(outcomes[0], (1, Outcome::TimedOut));
        assert!(matches!(outcomes[1], (2, Outcome::Malformed(_))));
    }

    #[test]
    fn sends_are_paced_in_batches() {
        let t0 = 1_000u64;
        let config = EngineConfig {
            send_rate: 1000.0,
            burst: 64.0,
            ..EngineConfig::default()
        };
        let mut engine = Engine::new(config, t0);
        for port in 0..200 {
            engine.query_server(t0, addr(port));
        }
        assert_eq!(drain(&mut engine, t0).len(), 64, "the burst leaves at once");
        // Then a batch at a time: 64 tokens at 1,000 per second take 64 ms.
        let wake = engine.poll_timeout(t0).unwrap();
        assert_eq!(wake, t0 + 64);
        assert!(drain(&mut engine, t0 + 10).is_empty());
        assert_eq!(drain(&mut engine, wake).len(), 64);
    }
}
