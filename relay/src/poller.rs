//! The relay's only UDP client: polls masters, scans the LAN, and refreshes every known server.
//!
//! It sends only to masters from the configuration, servers a master or the LAN scan listed,
//! and servers the operator added; nothing a page does reaches this socket.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use protocol::cod::info::InfoString;
use protocol::cod::master::{GetServers, ListEnd};
use protocol::cod::oob::{Packet, Status};
use protocol::cod::{DEFAULT_SERVER_PORT, PROTOCOL_VERSION};
use protocol::relay_api::{MasterState, Player, Reachability, ServerInfo};
use rand::Rng;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use crate::directory::Directory;

/// Ports the stock LAN scan probes: the default port and the next three.
pub const LAN_PORTS: std::ops::RangeInclusive<u16> = DEFAULT_SERVER_PORT..=DEFAULT_SERVER_PORT + 3;
/// The challenge the stock client puts in its LAN `getinfo`.
const LAN_CHALLENGE: &str = "xxx";
/// Queries sent per scheduler tick: a gentle global pace.
const SENDS_PER_TICK: usize = 100;
const TICK: Duration = Duration::from_millis(20);

/// What to poll and how often.
#[derive(Clone, Debug)]
pub struct PollerConfig {
    /// Masters as `host:port`, resolved at every poll.
    pub masters: Vec<String>,
    /// Where the LAN scan sends `getinfo xxx` (a broadcast address, or a host), ports 28960-28963.
    pub lan: Vec<Ipv4Addr>,
    /// Servers the operator added.
    pub servers: Vec<SocketAddrV4>,
    pub master_interval: Duration,
    pub refresh_interval: Duration,
    pub lan_interval: Duration,
    /// How long to wait for one reply before asking again.
    pub query_timeout: Duration,
    /// Attempts per server per refresh.
    pub attempts: u32,
}

impl Default for PollerConfig {
    fn default() -> Self {
        Self {
            masters: Vec::new(),
            lan: vec![Ipv4Addr::BROADCAST],
            servers: Vec::new(),
            master_interval: Duration::from_secs(300),
            refresh_interval: Duration::from_secs(20),
            lan_interval: Duration::from_secs(60),
            query_timeout: Duration::from_millis(1000),
            attempts: 3,
        }
    }
}

/// Unix time in milliseconds, for the page's freshness display.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One server query in flight: `getinfo <challenge>` and `getstatus <challenge>` together.
struct Query {
    challenge: String,
    sent: Instant,
    attempt: u32,
    info: Option<(InfoString, Duration)>,
    status: Option<Status>,
}

/// One master poll in flight.
struct MasterPoll {
    name: String,
    started: Instant,
    packets: usize,
    servers: BTreeSet<SocketAddrV4>,
}

enum Resolved {
    Master(String, Result<Vec<SocketAddrV4>, String>),
}

struct Poller {
    socket: Arc<UdpSocket>,
    directory: Arc<Directory>,
    config: PollerConfig,
    /// Every server we may query, with what listed it.
    known: HashMap<SocketAddrV4, BTreeSet<String>>,
    queue: VecDeque<SocketAddrV4>,
    queries: HashMap<SocketAddrV4, Query>,
    masters: HashMap<SocketAddrV4, MasterPoll>,
    lan_until: Option<Instant>,
    resolved_tx: mpsc::Sender<Resolved>,
}

/// Runs the poller on `socket` until the task is dropped.
pub async fn run(socket: UdpSocket, directory: Arc<Directory>, config: PollerConfig) {
    if let Err(e) = socket.set_broadcast(true) {
        tracing::warn!("LAN broadcast unavailable: {e}");
    }
    let (resolved_tx, mut resolved_rx) = mpsc::channel(64);
    let mut poller = Poller {
        socket: Arc::new(socket),
        directory,
        known: HashMap::new(),
        queue: VecDeque::new(),
        queries: HashMap::new(),
        masters: HashMap::new(),
        lan_until: None,
        resolved_tx,
        config,
    };
    for addr in poller.config.servers.clone() {
        poller.learn(addr, "operator");
    }
    let mut master_timer = tokio::time::interval(poller.config.master_interval);
    let mut refresh_timer = tokio::time::interval(poller.config.refresh_interval);
    let mut lan_timer = tokio::time::interval(poller.config.lan_interval);
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut buf = vec![0u8; 64 * 1024];
    let socket = poller.socket.clone();
    loop {
        tokio::select! {
            received = socket.recv_from(&mut buf) => match received {
                Ok((len, SocketAddr::V4(from))) => poller.on_datagram(from, &buf[..len]),
                Ok(_) => {}
                Err(e) => tracing::debug!("recv: {e}"),
            },
            Some(resolved) = resolved_rx.recv() => poller.on_resolved(resolved).await,
            _ = master_timer.tick() => poller.poll_masters(),
            _ = refresh_timer.tick() => poller.refresh_all(),
            _ = lan_timer.tick(), if !poller.config.lan.is_empty() => poller.scan_lan().await,
            _ = tick.tick() => poller.on_tick().await,
        }
    }
}

impl Poller {
    /// Adds a server to the set we may query; a new one is queried at once.
    fn learn(&mut self, addr: SocketAddrV4, source: &str) {
        let sources = self.known.entry(addr).or_default();
        let new = sources.is_empty();
        if sources.insert(source.to_owned()) && !new {
            if let Some(mut server) = self.directory.server(&addr.to_string()) {
                server.sources = sources.iter().cloned().collect();
                self.directory.upsert(server);
            }
        }
        if new {
            self.directory.upsert(pending_server(addr, sources));
            self.queue.push_back(addr);
        }
    }

    fn refresh_all(&mut self) {
        let waiting: BTreeSet<_> = self.queue.iter().copied().collect();
        for addr in self.known.keys() {
            if !waiting.contains(addr) && !self.queries.contains_key(addr) {
                self.queue.push_back(*addr);
            }
        }
    }

    fn poll_masters(&self) {
        for name in self.config.masters.clone() {
            let tx = self.resolved_tx.clone();
            tokio::spawn(async move {
                let result = match tokio::net::lookup_host(&name).await {
                    Ok(addrs) => {
                        let v4: Vec<SocketAddrV4> = addrs
                            .filter_map(|a| match a {
                                SocketAddr::V4(v4) => Some(v4),
                                SocketAddr::V6(_) => None,
                            })
                            .collect();
                        if v4.is_empty() {
                            Err(format!("{name} has no IPv4 address"))
                        } else {
                            Ok(v4)
                        }
                    }
                    Err(e) => Err(format!("cannot resolve: {e}")),
                };
                let _ = tx.send(Resolved::Master(name, result)).await;
            });
        }
    }

    async fn on_resolved(&mut self, resolved: Resolved) {
        let Resolved::Master(name, result) = resolved;
        match result {
            Err(error) => {
                tracing::warn!("master {name}: {error}");
                self.directory
                    .set_master(&name, MasterState::Failed { error }, unix_ms());
            }
            Ok(addrs) => {
                let query = Packet::GetServers(GetServers::full_and_empty()).emit();
                for addr in addrs {
                    self.masters.insert(
                        addr,
                        MasterPoll {
                            name: name.clone(),
                            started: Instant::now(),
                            packets: 0,
                            servers: BTreeSet::new(),
                        },
                    );
                    if let Err(e) = self.socket.send_to(&query, addr).await {
                        tracing::warn!("master {name} ({addr}): {e}");
                    }
                }
            }
        }
    }

    async fn scan_lan(&mut self) {
        let probe = Packet::GetInfo {
            challenge: Some(LAN_CHALLENGE.into()),
        }
        .emit();
        for ip in self.config.lan.clone() {
            for port in LAN_PORTS {
                // The stock client sends each probe twice.
                for _ in 0..2 {
                    if let Err(e) = self.socket.send_to(&probe, (ip, port)).await {
                        tracing::debug!("LAN probe to {ip}:{port}: {e}");
                    }
                }
            }
        }
        self.lan_until = Some(Instant::now() + self.config.query_timeout * 2);
    }

    fn on_datagram(&mut self, from: SocketAddrV4, datagram: &[u8]) {
        let packet = match Packet::parse(datagram) {
            Ok(packet) => packet,
            Err(e) => {
                tracing::debug!("{from}: {e}");
                return;
            }
        };
        match packet {
            Packet::ServerList(list) => self.on_master_list(from, list),
            Packet::InfoResponse(info) => self.on_info(from, info),
            Packet::StatusResponse(status) => self.on_status(from, status),
            _ => {}
        }
    }

    fn on_master_list(&mut self, from: SocketAddrV4, list: protocol::cod::master::ServerList) {
        let Some(poll) = self.masters.get_mut(&from) else {
            return;
        };
        poll.packets += 1;
        poll.servers.extend(list.servers);
        if list.end == ListEnd::Eof {
            self.finish_master(from);
        }
    }

    fn finish_master(&mut self, addr: SocketAddrV4) {
        let Some(poll) = self.masters.remove(&addr) else {
            return;
        };
        let state = if poll.packets == 0 {
            MasterState::Failed {
                error: format!("no reply from {addr}"),
            }
        } else {
            MasterState::Ok {
                servers: poll.servers.len() as u32,
            }
        };
        tracing::info!("master {} ({addr}): {state:?}", poll.name);
        self.directory.set_master(&poll.name, state, unix_ms());
        for server in poll.servers {
            self.learn(server, &poll.name);
        }
    }

    fn on_info(&mut self, from: SocketAddrV4, info: InfoString) {
        if let Some(query) = self.queries.get_mut(&from) {
            if info.get("challenge") == Some(query.challenge.as_str()) {
                query.info = Some((info, query.sent.elapsed()));
                self.complete_if_done(from);
            }
            return;
        }
        // A LAN reply: admitted only while a scan is active, from a scanned port, to our probe.
        let scanning = self.lan_until.is_some_and(|until| Instant::now() < until);
        if scanning
            && LAN_PORTS.contains(&from.port())
            && info.get("challenge") == Some(LAN_CHALLENGE)
            && info.get("protocol") == Some(&PROTOCOL_VERSION.to_string()[..])
        {
            self.learn(from, "lan");
        }
    }

    fn on_status(&mut self, from: SocketAddrV4, status: Status) {
        if let Some(query) = self.queries.get_mut(&from) {
            let echoed = status.info.get("challenge");
            if echoed.is_none() || echoed == Some(query.challenge.as_str()) {
                query.status = Some(status);
                self.complete_if_done(from);
            }
        }
    }

    fn complete_if_done(&mut self, addr: SocketAddrV4) {
        let done = self
            .queries
            .get(&addr)
            .is_some_and(|q| q.info.is_some() && q.status.is_some());
        if !done {
            return;
        }
        let Some(query) = self.queries.remove(&addr) else {
            return;
        };
        if let (Some((info, rtt)), Some(status)) = (query.info, query.status) {
            let sources = self.known.get(&addr).cloned().unwrap_or_default();
            self.directory
                .upsert(server_info(addr, &info, &status, rtt, &sources));
        }
    }

    async fn send_query(&mut self, addr: SocketAddrV4, attempt: u32) {
        let challenge = rand::rng().random::<u32>().to_string();
        let getinfo = Packet::GetInfo {
            challenge: Some(challenge.clone()),
        }
        .emit();
        let getstatus = Packet::GetStatus {
            challenge: Some(challenge.clone()),
        }
        .emit();
        let (info, status) = match self.queries.remove(&addr) {
            // A retry keeps a half answer: only the other half is still missing.
            Some(previous) => (previous.info, previous.status),
            None => (None, None),
        };
        if info.is_none() {
            let _ = self.socket.send_to(&getinfo, addr).await;
        }
        if status.is_none() {
            let _ = self.socket.send_to(&getstatus, addr).await;
        }
        self.queries.insert(
            addr,
            Query {
                challenge,
                sent: Instant::now(),
                attempt,
                info,
                status,
            },
        );
    }

    async fn on_tick(&mut self) {
        let now = Instant::now();
        let expired: Vec<(SocketAddrV4, u32)> = self
            .queries
            .iter()
            .filter(|(_, q)| now.duration_since(q.sent) >= self.config.query_timeout)
            .map(|(addr, q)| (*addr, q.attempt))
            .collect();
        for (addr, attempt) in expired {
            if attempt + 1 < self.config.attempts {
                self.send_query(addr, attempt + 1).await;
            } else {
                self.queries.remove(&addr);
                self.directory.mark_unreachable(&addr.to_string());
            }
        }
        let master_timeout = self.config.query_timeout * 3;
        let stale: Vec<SocketAddrV4> = self
            .masters
            .iter()
            .filter(|(_, p)| now.duration_since(p.started) >= master_timeout)
            .map(|(addr, _)| *addr)
            .collect();
        for addr in stale {
            self.finish_master(addr);
        }
        for _ in 0..SENDS_PER_TICK {
            let Some(addr) = self.queue.pop_front() else {
                break;
            };
            if !self.queries.contains_key(&addr) {
                self.send_query(addr, 0).await;
            }
        }
    }
}

fn pending_server(addr: SocketAddrV4, sources: &BTreeSet<String>) -> ServerInfo {
    ServerInfo {
        addr: addr.to_string(),
        hostname: addr.to_string(),
        map: String::new(),
        gametype: String::new(),
        game: String::new(),
        protocol: 0,
        clients: 0,
        bots: 0,
        max_clients: 0,
        password: false,
        punkbuster: false,
        pure: false,
        ping_ms: None,
        reachability: Reachability::Pending,
        updated_ms: None,
        sources: sources.iter().cloned().collect(),
        players: Vec::new(),
        cvars: Vec::new(),
    }
}

/// The directory entry built from one server's `infoResponse` and `statusResponse`.
pub fn server_info(
    addr: SocketAddrV4,
    info: &InfoString,
    status: &Status,
    rtt: Duration,
    sources: &BTreeSet<String>,
) -> ServerInfo {
    let either = |info_key: &str, status_key: &str| {
        info.get(info_key)
            .or_else(|| status.info.get(status_key))
            .unwrap_or_default()
            .to_owned()
    };
    let number = |key: &str| info.get(key).and_then(|v| v.parse().ok());
    let flag = |key: &str| info.get(key).is_some_and(|v| v != "0");
    let players: Vec<Player> = status
        .players
        .iter()
        .map(|p| Player {
            name: p.name.clone(),
            score: p.score,
            ping: p.ping,
            bot: p.ping == 0,
        })
        .collect();
    ServerInfo {
        addr: addr.to_string(),
        hostname: either("hostname", "sv_hostname"),
        map: either("mapname", "mapname"),
        gametype: either("gametype", "g_gametype"),
        game: either("game", "fs_game"),
        protocol: number("protocol").unwrap_or(0),
        clients: number("clients").unwrap_or(players.len() as u32),
        bots: players.iter().filter(|p| p.bot).count() as u32,
        max_clients: number("sv_maxclients").unwrap_or(0),
        password: flag("pswrd"),
        punkbuster: flag("pb"),
        pure: flag("pure"),
        ping_ms: Some(rtt.as_millis().min(u128::from(u32::MAX)) as u32),
        reachability: Reachability::Online,
        updated_ms: Some(unix_ms()),
        sources: sources.iter().cloned().collect(),
        players,
        cvars: status
            .info
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    }
}
