//! The relay's schedule on top of the query engine: masters every few minutes, every known
//! server every refresh interval, the servers pages look at more often, and the LAN scan.
//!
//! It queries only masters from the configuration, servers a master or the LAN scan listed,
//! and servers the operator added; nothing a page does names a new address.

use std::collections::{BTreeSet, HashMap};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::Duration;

use crate::net::unix_ms;

use protocol::cod::info::InfoString;
use protocol::cod::oob::Status;
use protocol::relay_api::{MasterState, Progress, Reachability, ServerInfo};
use tokio::sync::mpsc;

use super::directory::Directory;
use super::query::{driver, EngineConfig, Event, MasterReply, Outcome, ServerReply};
use crate::seams::PollLog;

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
    /// How often servers that a page shows in detail are refreshed.
    pub watch_interval: Duration,
    pub lan_interval: Duration,
    /// How long a server may go unanswered before the directory calls it gone.
    pub hide_down_after: Option<Duration>,
    pub engine: EngineConfig,
    /// Where the poller counts its queries, refreshes and traffic (`GET /metrics`).
    pub metrics: crate::metrics::PollMetrics,
}

impl Default for PollerConfig {
    fn default() -> Self {
        Self {
            masters: Vec::new(),
            lan: vec![Ipv4Addr::BROADCAST],
            servers: Vec::new(),
            master_interval: Duration::from_secs(300),
            refresh_interval: Duration::from_secs(20),
            watch_interval: Duration::from_secs(5),
            lan_interval: Duration::from_secs(60),
            hide_down_after: Some(Duration::from_secs(24 * 3600)),
            engine: EngineConfig::default(),
            metrics: Default::default(),
        }
    }
}

struct Poller {
    directory: Arc<Directory>,
    log: Option<Arc<dyn PollLog>>,
    config: PollerConfig,
    engine: driver::QueryHandle,
    /// Every server we may query, with what listed it.
    known: HashMap<SocketAddrV4, BTreeSet<String>>,
    /// Resolved master addresses and the configured name each stands for.
    master_names: HashMap<SocketAddrV4, String>,
    /// The servers of the current refresh that have not finished yet.
    cycle: BTreeSet<SocketAddrV4>,
    /// When the current refresh began (its duration is a metric).
    cycle_started: std::time::Instant,
    progress: Progress,
    /// Servers asked again in this refresh because their answer came without any status.
    asked_again: BTreeSet<SocketAddrV4>,
}

type Resolved = (String, Result<Vec<SocketAddrV4>, String>);

/// Runs the schedule until the task is dropped; every outcome also goes to `log`.
pub async fn run(directory: Arc<Directory>, config: PollerConfig, log: Option<Arc<dyn PollLog>>) {
    let (engine, mut events) = match driver::start(config.engine.clone(), config.metrics.clone()) {
        Ok(started) => started,
        Err(e) => {
            tracing::error!("query engine cannot start: {e}");
            return;
        }
    };
    let (resolved_tx, mut resolved_rx) = mpsc::channel::<Resolved>(64);
    let mut poller = Poller::new(directory, config, log, engine);
    // Servers a previous run persisted are asked again with what listed them.
    for server in poller.directory.servers() {
        if let Ok(addr) = server.addr.parse::<SocketAddrV4>() {
            poller
                .known
                .insert(addr, server.sources.into_iter().collect());
        }
    }
    for addr in poller.config.servers.clone() {
        poller.learn(addr, "operator");
    }
    let mut master_timer = tokio::time::interval(poller.config.master_interval);
    let mut refresh_timer = tokio::time::interval(poller.config.refresh_interval);
    let mut watch_timer = tokio::time::interval(poller.config.watch_interval);
    let mut lan_timer = tokio::time::interval(poller.config.lan_interval);
    loop {
        tokio::select! {
            Some(event) = events.recv() => poller.on_event(event),
            Some((name, result)) = resolved_rx.recv() => poller.on_resolved(name, result),
            _ = master_timer.tick() => poller.poll_masters(&resolved_tx),
            _ = refresh_timer.tick() => poller.refresh_all(),
            _ = watch_timer.tick() => poller.refresh_watched(),
            _ = lan_timer.tick(), if !poller.config.lan.is_empty() => {
                poller.engine.scan_lan(poller.config.lan.clone());
            }
        }
    }
}

impl Poller {
    fn new(
        directory: Arc<Directory>,
        config: PollerConfig,
        log: Option<Arc<dyn PollLog>>,
        engine: driver::QueryHandle,
    ) -> Self {
        Self {
            directory,
            log,
            engine,
            known: HashMap::new(),
            master_names: HashMap::new(),
            cycle: BTreeSet::new(),
            cycle_started: std::time::Instant::now(),
            progress: Progress::default(),
            asked_again: BTreeSet::new(),
            config,
        }
    }

    /// Adds a server to the set we may query; a new one is queried at once.
    fn learn(&mut self, addr: SocketAddrV4, source: &str) {
        let sources = self.known.entry(addr).or_default();
        let new = sources.is_empty();
        if !sources.insert(source.to_owned()) {
            return;
        }
        let sources: Vec<String> = sources.iter().cloned().collect();
        let server = if new {
            self.query(addr);
            pending_server(addr, sources)
        } else if let Some(mut server) = self.directory.server(addr.into()) {
            server.sources = sources;
            server
        } else {
            return;
        };
        if let Some(log) = &self.log {
            log.listed(&server);
        }
        self.directory.upsert(server);
    }

    fn query(&mut self, addr: SocketAddrV4) {
        if self.cycle.insert(addr) {
            self.progress.total += 1;
            self.directory.set_progress(self.progress);
        }
        self.engine.server(addr);
    }

    fn refresh_all(&mut self) {
        self.directory.retire_gone(unix_ms());
        self.cycle.clear();
        self.asked_again.clear();
        self.cycle_started = std::time::Instant::now();
        self.progress = Progress::default();
        let all: Vec<SocketAddrV4> = self.known.keys().copied().collect();
        for addr in all {
            self.query(addr);
        }
    }

    fn refresh_watched(&mut self) {
        for addr in self.directory.watched() {
            if let Ok(addr) = addr.parse::<SocketAddrV4>() {
                if self.known.contains_key(&addr) {
                    self.engine.server(addr);
                }
            }
        }
    }

    fn poll_masters(&self, resolved: &mpsc::Sender<Resolved>) {
        for name in self.config.masters.clone() {
            let tx = resolved.clone();
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
                            Err("no IPv4 address".to_owned())
                        } else {
                            Ok(v4)
                        }
                    }
                    Err(e) => Err(format!("cannot resolve: {e}")),
                };
                let _ = tx.send((name, result)).await;
            });
        }
    }

    fn on_resolved(&mut self, name: String, result: Result<Vec<SocketAddrV4>, String>) {
        match result {
            Err(error) => {
                tracing::warn!("master {name}: {error}");
                self.config.metrics.master_poll("failed");
                self.directory
                    .set_master(&name, MasterState::Failed { error }, unix_ms());
            }
            Ok(addrs) => {
                for addr in addrs {
                    self.master_names.insert(addr, name.clone());
                    self.engine.master(addr);
                }
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Server(reply) => self.on_server(reply),
            Event::Master(reply) => self.on_master(reply),
            Event::MasterPacket { addr, servers } => {
                let name = self.master_name(addr);
                for server in servers {
                    self.learn(server, &name);
                }
            }
            Event::Lan { addr, .. } => self.learn(addr, "lan"),
            Event::LanDone => {}
        }
    }

    fn on_server(&mut self, reply: ServerReply) {
        let addr = reply.addr.to_string();
        match (&reply.outcome, &reply.info) {
            (Outcome::Answered, Some(info)) => {
                let empty = Status {
                    info: InfoString::new(0),
                    players: Vec::new(),
                };
                let status = reply.status.as_ref().unwrap_or(&empty);
                let sources = self.known.get(&reply.addr).cloned().unwrap_or_default();
                let rtt = reply.rtt.unwrap_or_default();
                self.config.metrics.query("answered");
                self.config.metrics.rtt.observe(rtt.as_secs_f64());
                let mut server = server_info(reply.addr, info, status, rtt, &sources);
                if reply.status.is_none() {
                    // Every getstatus was lost while a getinfo got through (a lossy link): what
                    // the server last said of its players and settings stands, not an empty list.
                    match self.directory.server(reply.addr.into()) {
                        Some(previous) if !previous.cvars.is_empty() => {
                            server.players = previous.players;
                            server.bots = previous.bots;
                            server.dedicated = previous.dedicated;
                            server.cvars = previous.cvars;
                        }
                        // Nothing known of its players yet: asked again at once, not at the
                        // next refresh (once a refresh, for a server that never gives status).
                        _ => {
                            if self.asked_again.insert(reply.addr) {
                                self.engine.server(reply.addr);
                            }
                        }
                    }
                }
                if let Some(log) = &self.log {
                    log.answered(&server);
                }
                self.directory.upsert(server);
            }
            (outcome, _) => {
                let reachability = match outcome {
                    Outcome::Malformed(error) => {
                        tracing::debug!("{addr}: malformed reply: {error}");
                        self.config.metrics.query("malformed");
                        Reachability::Malformed
                    }
                    _ => {
                        self.config.metrics.query("timeout");
                        // One refresh lost on a lossy link is not a server gone: what it last
                        // said stays listed, marked stale, until a second refresh in a row
                        // goes unanswered.
                        let was_online = self
                            .directory
                            .server(reply.addr.into())
                            .is_some_and(|s| s.reachability == Reachability::Online);
                        if was_online {
                            Reachability::Stale
                        } else {
                            Reachability::Unreachable
                        }
                    }
                };
                if let Some(log) = &self.log {
                    log.unanswered(&addr, unix_ms());
                }
                self.directory.mark(reply.addr.into(), reachability);
            }
        }
        if self.cycle.remove(&reply.addr) {
            self.progress.finished += 1;
            if reply.outcome == Outcome::Answered {
                self.progress.answered += 1;
            }
            self.directory.set_progress(self.progress);
            if self.cycle.is_empty() {
                let took = self.cycle_started.elapsed();
                self.config.metrics.cycle.observe(took.as_secs_f64());
            }
        }
    }

    fn master_name(&self, addr: SocketAddrV4) -> String {
        self.master_names
            .get(&addr)
            .cloned()
            .unwrap_or_else(|| addr.to_string())
    }

    fn on_master(&mut self, reply: MasterReply) {
        let name = self.master_name(reply.addr);
        let outcome = if reply.error.is_some() {
            "failed"
        } else {
            "ok"
        };
        self.config.metrics.master_poll(outcome);
        let state = match reply.error {
            Some(error) => MasterState::Failed { error },
            None => MasterState::Ok {
                servers: reply.servers.len() as u32,
            },
        };
        tracing::info!("master {name} ({}): {state:?}", reply.addr);
        self.directory.set_master(&name, state, unix_ms());
        if let (Some(log), Some(status)) = (&self.log, self.directory.master(&name)) {
            log.master(&status);
        }
        for server in reply.servers {
            self.learn(server, &name);
        }
    }
}

/// A listed server that has not answered yet.
pub fn pending_server(addr: SocketAddrV4, sources: Vec<String>) -> ServerInfo {
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
        friendly_fire: 0,
        killcam: false,
        jeeps: false,
        tanks: false,
        dedicated: None,
        ping_ms: None,
        reachability: Reachability::Pending,
        updated_ms: None,
        matches_today: 0,
        country: None,
        sources,
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
    let rtt_ms = rtt.as_millis().min(u128::from(u32::MAX)) as u32;
    let sources = sources.iter().cloned().collect();
    ServerInfo::from_answers(addr.to_string(), info, status, rtt_ms, unix_ms(), sources)
}

#[cfg(test)]
mod tests {
    use protocol::cod::oob::PlayerLine;

    use super::*;

    fn reply(outcome: Outcome, info: Option<InfoString>, status: Option<Status>) -> ServerReply {
        ServerReply {
            addr: "127.0.0.1:28960".parse().unwrap(),
            outcome,
            info,
            status,
            rtt: Some(Duration::from_millis(40)),
            attempts: 3,
        }
    }

    /// A lossy link loses whole refreshes now and then, or only the `statusResponse`: neither
    /// may empty a server's player list or show it down at once.
    #[tokio::test]
    async fn a_lost_status_is_asked_again_or_keeps_the_players_and_one_missed_refresh_is_only_stale(
    ) {
        let directory = Arc::new(Directory::new(&[]));
        let config = PollerConfig::default();
        let (engine, _events) =
            driver::start(config.engine.clone(), config.metrics.clone()).unwrap();
        let mut poller = Poller::new(directory.clone(), config, None, engine);
        let info = InfoString::parse(
            "\\hostname\\Lossy\\mapname\\mp_foy\\gametype\\tdm\\clients\\2\\sv_maxclients\\20",
            1024,
        )
        .unwrap();
        let status = Status {
            info: InfoString::parse("\\dedicated\\2\\g_gametype\\tdm", 1024).unwrap(),
            players: ["Ivan", "Otto"]
                .map(|name| PlayerLine {
                    score: 3,
                    ping: 60,
                    name: name.into(),
                })
                .to_vec(),
        };
        let shown = || {
            directory
                .server("127.0.0.1:28960".parse().unwrap())
                .unwrap()
        };
        // A first answer without its status: asked again at once (once a refresh).
        poller.on_server(reply(Outcome::Answered, Some(info.clone()), None));
        assert!(poller
            .asked_again
            .contains(&"127.0.0.1:28960".parse().unwrap()));
        assert!(shown().players.is_empty());
        poller.on_server(reply(Outcome::Answered, Some(info.clone()), Some(status)));
        let answered = shown();
        assert_eq!(answered.players.len(), 2);

        poller.on_server(reply(Outcome::Answered, Some(info), None));
        let info_only = shown();
        assert_eq!(info_only.reachability, Reachability::Online);
        assert_eq!(info_only.players, answered.players);
        assert_eq!(info_only.cvars, answered.cvars);
        assert_eq!(info_only.dedicated, Some(true));

        poller.on_server(reply(Outcome::TimedOut, None, None));
        let missed = shown();
        assert_eq!(missed.reachability, Reachability::Stale);
        assert_eq!(missed.players, answered.players);

        poller.on_server(reply(Outcome::TimedOut, None, None));
        assert_eq!(shown().reachability, Reachability::Unreachable);
    }
}
