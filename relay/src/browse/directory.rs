//! The one in-memory directory of servers and masters. Writers record what changed; the page
//! feed ([`super::feed`]) takes the changes once per tick and turns them into one message for
//! every page.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::RwLock;

use protocol::relay_api::feed::{
    feed_masters, Change, FeedMessage, IndexedPlayer, PlayersChange, ServerPlayers, Summary,
};
use protocol::relay_api::{
    MasterState, MasterStatus, OwnMaster, Progress, Reachability, ServerInfo, WulframServer,
};
use tokio::sync::Notify;

use crate::net::ServerAddr;
use crate::sync::Shared;

/// How long another relay's word on what its pages watch counts.
pub const REMOTE_WATCH_FOR: std::time::Duration = std::time::Duration::from_secs(10);

/// What changed since the feed's last tick.
#[derive(Default)]
struct Pending {
    /// Servers whose record changed: their list entry may have moved, and pages that show
    /// them in detail get them again.
    servers: BTreeSet<String>,
    masters: bool,
    progress: bool,
    wulfram: bool,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.servers.is_empty() && !self.masters && !self.progress && !self.wulfram
    }
}

/// A server's list entry as every page holds it (the feed's keyframes are built from these, so
/// a page that joins holds what the others hold).
struct Held {
    summary: Summary,
    players: Vec<IndexedPlayer>,
}

#[derive(Default)]
struct State {
    servers: BTreeMap<String, ServerInfo>,
    /// Each server's id in the feed, kept for the relay's life.
    ids: BTreeMap<String, u32>,
    held: BTreeMap<String, Held>,
    masters: Vec<MasterStatus>,
    progress: Progress,
    wulfram: Vec<WulframServer>,
    /// What each connected page shows in detail, by page.
    watched: BTreeMap<u64, String>,
    /// In a cluster: what pages on other relays show in detail, by relay, with when it was
    /// said (the poller refreshes those servers as often as its own pages' ones).
    remote_watched: BTreeMap<String, (std::time::Instant, BTreeSet<String>)>,
    next_page: u64,
    /// How long a server may go unanswered before it is [`Reachability::Gone`]; `None` keeps
    /// every server in the default list.
    hide_down_after_ms: Option<u64>,
    /// When each server that has never answered was first listed, in Unix ms: the start of
    /// its time down.
    listed_ms: BTreeMap<String, u64>,
    pending: Pending,
    /// The feed's latest tick.
    seq: u64,
}

impl State {
    /// Whether `server` is down and has been for longer than the operator allows: unanswered
    /// since its last answer or, if it never answered, since it was first listed.
    fn gone(&self, server: &ServerInfo, now_ms: u64) -> bool {
        let Some(after) = self.hide_down_after_ms else {
            return false;
        };
        let down = matches!(
            server.reachability,
            Reachability::Unreachable | Reachability::Malformed | Reachability::Stale
        );
        let since = server
            .updated_ms
            .or_else(|| self.listed_ms.get(&server.addr).copied());
        down && since.is_some_and(|since| now_ms.saturating_sub(since) > after)
    }
}

/// One tick of changes, for the feed to encode.
pub struct Changes {
    pub seq: u64,
    pub message: FeedMessage,
    /// Servers whose full record changed.
    pub details: BTreeSet<String>,
}

/// Shared by the poller (the only writer of servers) and every page and API request.
pub struct Directory {
    state: RwLock<State>,
    changed: Notify,
    /// Where a server's country comes from (`None`: no database, no countries).
    countries: Option<std::sync::Arc<dyn crate::seams::CountryOf>>,
}

impl Directory {
    /// A directory that will report on `masters` (as configured, `host:port`).
    pub fn new(masters: &[String]) -> Self {
        let state = State {
            masters: masters
                .iter()
                .map(|addr| MasterStatus {
                    addr: addr.clone(),
                    state: MasterState::Pending,
                    polled_ms: None,
                    own: None,
                    last_list: None,
                })
                .collect(),
            ..State::default()
        };
        Self {
            state: RwLock::new(state),
            changed: Notify::new(),
            countries: None,
        }
    }

    /// Servers get their country from `countries` as they are listed.
    pub fn placing_with(
        mut self,
        countries: Option<std::sync::Arc<dyn crate::seams::CountryOf>>,
    ) -> Self {
        self.countries = countries;
        self
    }

    /// `server`'s country: what it had (an address does not move), else the database's.
    fn place(&self, server: &mut ServerInfo, known: Option<&ServerInfo>) {
        server.country = match known {
            Some(known) => known.country.clone(),
            None => self.countries.as_ref().and_then(|c| {
                let ip = server.addr.split(':').next()?.parse().ok()?;
                c.country_of(ip)
            }),
        };
    }

    /// Servers unanswered for longer than `after` leave the default list (see
    /// [`Self::retire_gone`]); `None` keeps them all.
    pub fn hiding_down_after(self, after: Option<std::time::Duration>) -> Self {
        self.write().hide_down_after_ms = after.map(|a| a.as_millis() as u64);
        self
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.reading()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.writing()
    }

    /// Wakes when something changed since the last [`Self::take_changes`].
    pub async fn changed(&self) {
        self.changed.notified().await
    }

    /// The whole list (and the players index) as pages hold it after the latest tick; ticks
    /// after `seq` follow.
    pub fn keyframe(&self) -> (u64, FeedMessage, FeedMessage) {
        let state = self.read();
        let servers = state.held.values().map(|h| h.summary.clone()).collect();
        let players = state
            .held
            .values()
            .map(|h| ServerPlayers {
                id: h.summary.id,
                players: h.players.clone(),
            })
            .collect();
        (
            state.seq,
            FeedMessage::Keyframe {
                seq: state.seq,
                servers,
                masters: feed_masters(&state.masters),
                progress: state.progress,
                wulfram: state.wulfram.clone(),
            },
            FeedMessage::Players {
                seq: state.seq,
                servers: players,
            },
        )
    }

    /// The feed's latest tick.
    pub fn seq(&self) -> u64 {
        self.read().seq
    }

    /// Everything that changed since the last tick, as the next tick's message: new servers
    /// whole, the fields that moved in the others, player names added and removed.
    pub fn take_changes(&self) -> Option<Changes> {
        let mut state = self.write();
        if state.pending.is_empty() {
            return None;
        }
        let pending = std::mem::take(&mut state.pending);
        state.seq += 1;
        let seq = state.seq;
        let (mut added, mut changed, mut players) = (Vec::new(), Vec::new(), Vec::new());
        for addr in &pending.servers {
            let (Some(&id), Some(server)) = (state.ids.get(addr), state.servers.get(addr)) else {
                continue;
            };
            let summary = Summary::of(id, server);
            let names = ServerPlayers::of(id, server).players;
            let State { held, .. } = &mut *state;
            match held.get_mut(addr) {
                None => {
                    added.push(summary.clone());
                    players.push(PlayersChange::between(id, &[], &names));
                    held.insert(
                        addr.clone(),
                        Held {
                            summary,
                            players: names,
                        },
                    );
                }
                Some(h) => {
                    let fields = h.summary.diff(&summary);
                    if !fields.is_empty() {
                        h.summary.apply(&fields);
                        changed.push(Change { id, fields });
                    }
                    let change = PlayersChange::between(id, &h.players, &names);
                    if !change.removed.is_empty() || !change.added.is_empty() {
                        change.apply(&mut h.players);
                        players.push(change);
                    }
                }
            }
        }
        let message = FeedMessage::Changes {
            seq,
            added,
            changed,
            players,
            masters: pending.masters.then(|| feed_masters(&state.masters)),
            progress: pending.progress.then_some(state.progress),
            wulfram: pending.wulfram.then(|| state.wulfram.clone()),
        };
        Some(Changes {
            seq,
            message,
            details: pending.servers,
        })
    }

    pub fn wulfram(&self) -> Vec<WulframServer> {
        self.read().wulfram.clone()
    }

    /// Records a check of one configured Wulfram II server (added if new).
    pub fn set_wulfram(&self, server: WulframServer) {
        {
            let mut state = self.write();
            match state.wulfram.iter_mut().find(|w| w.name == server.name) {
                Some(known) if *known == server => return,
                Some(known) => *known = server,
                None => state.wulfram.push(server),
            }
            state.pending.wulfram = true;
        }
        self.changed.notify_one();
    }

    pub fn servers(&self) -> Vec<ServerInfo> {
        self.read().servers.values().cloned().collect()
    }

    /// Runs `f` over every server in place (the directory is locked meanwhile: keep it short).
    pub fn with_servers<R>(
        &self,
        f: impl FnOnce(std::collections::btree_map::Values<'_, String, ServerInfo>) -> R,
    ) -> R {
        f(self.read().servers.values())
    }

    /// Whether the directory lists this server (`ip:port`).
    pub fn contains(&self, addr: ServerAddr) -> bool {
        self.read().servers.contains_key(&addr.to_string())
    }

    pub fn masters(&self) -> Vec<MasterStatus> {
        self.read().masters.clone()
    }

    pub fn server(&self, addr: ServerAddr) -> Option<ServerInfo> {
        self.read().servers.get(&addr.to_string()).cloned()
    }

    /// Puts back what a previous run persisted: each server as it last answered, marked stale
    /// until it answers again (or gone, when its last answer is older than the operator
    /// allows), and the masters' last lists (configured masters only).
    pub fn restore(&self, servers: Vec<ServerInfo>, masters: Vec<MasterStatus>) {
        let now = crate::net::unix_ms();
        {
            let mut state = self.write();
            for mut server in servers {
                if state.servers.contains_key(&server.addr) {
                    continue;
                }
                server.reachability = Reachability::Stale;
                if server.updated_ms.is_none() {
                    state.listed_ms.insert(server.addr.clone(), now);
                }
                if state.gone(&server, now) {
                    server.reachability = Reachability::Gone;
                }
                server.ping_ms = None;
                self.place(&mut server, None);
                let addr = server.addr.clone();
                let id = state.ids.len() as u32;
                state.ids.insert(addr.clone(), id);
                state.servers.insert(addr.clone(), server);
                state.pending.servers.insert(addr);
            }
            for saved in masters {
                if let Some(master) = state.masters.iter_mut().find(|m| m.addr == saved.addr) {
                    master.last_list = saved.last_list;
                    master.polled_ms = saved.polled_ms;
                }
            }
            state.pending.masters = true;
        }
        self.changed.notify_one();
    }

    /// One master's status, as configured.
    pub fn master(&self, addr: &str) -> Option<MasterStatus> {
        self.read().masters.iter().find(|m| m.addr == addr).cloned()
    }

    /// Stores a server's latest state, noting what pages need to hear of it.
    pub fn upsert(&self, mut server: ServerInfo) {
        {
            let mut state = self.write();
            let addr = server.addr.clone();
            // The matches count comes from the store, not from the server's answer.
            let known = state.servers.get(&addr);
            if let Some(known) = known {
                server.matches_today = known.matches_today;
            }
            self.place(&mut server, known);
            if !state.ids.contains_key(&addr) {
                let id = state.ids.len() as u32;
                state.ids.insert(addr.clone(), id);
            }
            if server.updated_ms.is_none() {
                state
                    .listed_ms
                    .entry(addr.clone())
                    .or_insert_with(crate::net::unix_ms);
            } else {
                state.listed_ms.remove(&addr);
            }
            if state.servers.get(&addr) == Some(&server) {
                return;
            }
            state.servers.insert(addr.clone(), server);
            state.pending.servers.insert(addr);
        }
        self.changed.notify_one();
    }

    /// Marks a server that stopped answering (or answers only garbage), keeping what it last
    /// said. One long gone stays gone until it answers.
    pub fn mark(&self, addr: ServerAddr, reachability: Reachability) {
        let addr = addr.to_string();
        {
            let mut state = self.write();
            let Some(server) = state.servers.get_mut(&addr) else {
                return;
            };
            if server.reachability == reachability || server.reachability == Reachability::Gone {
                return;
            }
            server.reachability = reachability;
            server.ping_ms = None;
            state.pending.servers.insert(addr);
        }
        self.changed.notify_one();
    }

    /// Marks [`Reachability::Gone`] every server that has not answered for longer than the
    /// operator's `hide-down-after` (the poller calls this at each refresh).
    pub fn retire_gone(&self, now_ms: u64) {
        {
            let mut state = self.write();
            let gone: Vec<String> = state
                .servers
                .values()
                .filter(|s| s.reachability != Reachability::Gone && state.gone(s, now_ms))
                .map(|s| s.addr.clone())
                .collect();
            if gone.is_empty() {
                return;
            }
            for addr in gone {
                if let Some(server) = state.servers.get_mut(&addr) {
                    server.reachability = Reachability::Gone;
                    server.ping_ms = None;
                }
                state.pending.servers.insert(addr);
            }
        }
        self.changed.notify_one();
    }

    /// Records the refresh's progress.
    pub fn set_progress(&self, progress: Progress) {
        {
            let mut state = self.write();
            if state.progress == progress {
                return;
            }
            state.progress = progress;
            state.pending.progress = true;
        }
        self.changed.notify_one();
    }

    pub fn progress(&self) -> Progress {
        self.read().progress
    }

    /// A new page: its id for [`Self::watch`].
    pub fn page_opened(&self) -> u64 {
        let mut state = self.write();
        state.next_page += 1;
        state.next_page
    }

    pub fn page_closed(&self, page: u64) {
        self.write().watched.remove(&page);
    }

    /// What a page shows in detail; only servers already in the directory count. Returns the
    /// server it now watches.
    pub fn watch(&self, page: u64, addr: Option<String>) -> Option<String> {
        let mut state = self.write();
        match addr.filter(|a| state.servers.contains_key(a)) {
            Some(addr) => {
                state.watched.insert(page, addr.clone());
                Some(addr)
            }
            None => {
                state.watched.remove(&page);
                None
            }
        }
    }

    /// Every server some page of this relay shows in detail.
    pub fn local_watched(&self) -> BTreeSet<String> {
        self.read().watched.values().cloned().collect()
    }

    /// Every server some page shows in detail, on this relay or (in a cluster) another that
    /// said so within [`REMOTE_WATCH_FOR`].
    pub fn watched(&self) -> BTreeSet<String> {
        let state = self.read();
        let remote = state
            .remote_watched
            .values()
            .filter(|(at, _)| at.elapsed() < REMOTE_WATCH_FOR)
            .flat_map(|(_, servers)| servers.iter());
        state.watched.values().chain(remote).cloned().collect()
    }

    /// In a cluster: what another relay's pages show in detail now.
    pub fn set_remote_watched(&self, relay: &str, servers: BTreeSet<String>) {
        let mut state = self.write();
        state
            .remote_watched
            .retain(|_, (at, _)| at.elapsed() < REMOTE_WATCH_FOR);
        state
            .remote_watched
            .insert(relay.to_owned(), (std::time::Instant::now(), servers));
    }

    /// In a cluster: the masters as the poller's relay reports them.
    pub fn set_masters(&self, masters: Vec<MasterStatus>) {
        {
            let mut state = self.write();
            if state.masters == masters {
                return;
            }
            state.masters = masters;
            state.pending.masters = true;
        }
        self.changed.notify_one();
    }

    /// Shows what the relay's own master (`addr`, as the poller asks it) holds.
    pub fn set_own_master(&self, addr: &str, own: OwnMaster) {
        {
            let mut guard = self.write();
            let Some(master) = guard.masters.iter_mut().find(|m| m.addr == addr) else {
                return;
            };
            if master.own == Some(own) {
                return;
            }
            master.own = Some(own);
            guard.pending.masters = true;
        }
        self.changed.notify_one();
    }

    /// Records the outcome of one master poll.
    pub fn set_master(&self, addr: &str, state: MasterState, polled_ms: u64) {
        {
            let mut guard = self.write();
            if let Some(master) = guard.masters.iter_mut().find(|m| m.addr == addr) {
                if let MasterState::Ok { servers } = state {
                    master.last_list = Some(servers);
                }
                master.state = state;
                master.polled_ms = Some(polled_ms);
            }
            guard.pending.masters = true;
        }
        self.changed.notify_one();
    }
}

impl crate::seams::KnownServers for Directory {
    fn knows(&self, addr: ServerAddr) -> bool {
        self.contains(addr)
    }
}

impl crate::seams::WulframBoard for Directory {
    fn post(&self, server: WulframServer) {
        self.set_wulfram(server);
    }

    fn wulfram(&self) -> Vec<WulframServer> {
        Directory::wulfram(self)
    }
}

impl crate::seams::ServerRecords for Directory {
    fn record(&self, addr: &str) -> Option<ServerInfo> {
        self.read().servers.get(addr).cloned()
    }
}

impl crate::seams::MatchesToday for Directory {
    fn post_matches_today(&self, counts: std::collections::BTreeMap<String, u32>) {
        let changed = {
            let mut state = self.write();
            let state = &mut *state;
            let mut changed = false;
            for (addr, server) in state.servers.iter_mut() {
                let today = counts.get(addr).copied().unwrap_or(0);
                if server.matches_today != today {
                    server.matches_today = today;
                    state.pending.servers.insert(addr.clone());
                    changed = true;
                }
            }
            changed
        };
        if changed {
            self.changed.notify_one();
        }
    }
}

impl crate::seams::OwnMasterBoard for Directory {
    fn post_own_master(&self, polled_as: &str, own: OwnMaster) {
        self.set_own_master(polled_as, own);
    }
}

impl crate::seams::ServerSlots for Directory {
    fn slots(&self) -> Vec<crate::seams::Slots> {
        self.with_servers(|all| {
            // One refresh lost is not a server gone (the poller keeps what it last said,
            // marked stale): a followed match is not dropped for it.
            all.filter(|s| matches!(s.reachability, Reachability::Online | Reachability::Stale))
                .filter_map(|s| {
                    Some(crate::seams::Slots {
                        addr: s.addr.parse().ok()?,
                        humans: s.clients.saturating_sub(s.bots),
                        clients: s.clients,
                        max_clients: s.max_clients,
                        password: s.password,
                    })
                })
                .collect()
        })
    }
}

impl crate::seams::ServerStates for Directory {
    fn seq(&self) -> u64 {
        Directory::seq(self)
    }

    fn states(&self) -> Vec<crate::seams::ServerState> {
        use protocol::relay_api::alerts::AlertServer;
        self.with_servers(|all| {
            all.map(|s| {
                let up = match s.reachability {
                    Reachability::Online => Some(true),
                    Reachability::Unreachable | Reachability::Gone => Some(false),
                    Reachability::Pending | Reachability::Malformed | Reachability::Stale => None,
                };
                crate::seams::ServerState {
                    info: AlertServer {
                        addr: s.addr.clone(),
                        hostname: s.hostname.clone(),
                        map: s.map.clone(),
                        gametype: s.gametype.clone(),
                        humans: s.clients.saturating_sub(s.bots),
                        bots: s.bots,
                        max_clients: s.max_clients,
                        password: s.password,
                        up: up == Some(true),
                    },
                    up,
                    names: s.players.iter().map(|p| p.name.clone()).collect(),
                }
            })
            .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::browse::poller::pending_server;

    const HOUR: u64 = 3_600_000;

    fn answered(addr: &str, at_ms: u64) -> ServerInfo {
        ServerInfo {
            reachability: Reachability::Online,
            updated_ms: Some(at_ms),
            ..pending_server(addr.parse().unwrap(), vec!["operator".into()])
        }
    }

    fn reachability(directory: &Directory, addr: &str) -> Reachability {
        directory
            .server(addr.parse().unwrap())
            .unwrap()
            .reachability
    }

    #[test]
    fn a_server_down_longer_than_allowed_is_gone_until_it_answers() {
        let directory = Directory::new(&[]).hiding_down_after(Some(Duration::from_secs(3600)));
        let now = crate::net::unix_ms();
        directory.upsert(answered("10.0.0.1:28960", now - 2 * HOUR));
        directory.upsert(answered("10.0.0.2:28960", now - 2 * HOUR));
        directory.mark("10.0.0.1:28960".parse().unwrap(), Reachability::Unreachable);
        directory.retire_gone(now);
        assert_eq!(
            reachability(&directory, "10.0.0.1:28960"),
            Reachability::Gone
        );
        // Answering at the latest refresh is not down, however old the record says it is.
        assert_eq!(
            reachability(&directory, "10.0.0.2:28960"),
            Reachability::Online
        );
        // Another unanswered refresh does not bring it back into the list.
        directory.mark("10.0.0.1:28960".parse().unwrap(), Reachability::Unreachable);
        directory.mark("10.0.0.1:28960".parse().unwrap(), Reachability::Stale);
        assert_eq!(
            reachability(&directory, "10.0.0.1:28960"),
            Reachability::Gone
        );
        directory.upsert(answered("10.0.0.1:28960", now));
        assert_eq!(
            reachability(&directory, "10.0.0.1:28960"),
            Reachability::Online
        );
    }

    #[test]
    fn one_refresh_lost_keeps_a_server_s_slots_for_the_follower_and_two_drop_them() {
        use crate::seams::ServerSlots;
        let directory = Directory::new(&[]);
        let addr = "10.0.0.5:28960";
        directory.upsert(answered(addr, crate::net::unix_ms()));
        let listed = |d: &Directory| d.slots().iter().any(|s| s.addr.to_string() == addr);
        assert!(listed(&directory));
        directory.mark(addr.parse().unwrap(), Reachability::Stale);
        assert!(
            listed(&directory),
            "one refresh lost dropped a followed match"
        );
        directory.mark(addr.parse().unwrap(), Reachability::Unreachable);
        assert!(!listed(&directory));
    }

    #[test]
    fn one_that_never_answered_is_down_from_when_it_was_first_listed() {
        let directory = Directory::new(&[]).hiding_down_after(Some(Duration::from_secs(3600)));
        let addr: std::net::SocketAddrV4 = "10.0.0.3:28960".parse().unwrap();
        directory.upsert(pending_server(addr, vec!["lan".into()]));
        directory.mark(addr.into(), Reachability::Unreachable);
        let now = crate::net::unix_ms();
        directory.retire_gone(now + HOUR / 2);
        assert_eq!(
            reachability(&directory, "10.0.0.3:28960"),
            Reachability::Unreachable
        );
        directory.retire_gone(now + 2 * HOUR);
        assert_eq!(
            reachability(&directory, "10.0.0.3:28960"),
            Reachability::Gone
        );
    }

    #[test]
    fn a_restart_puts_back_long_silent_servers_as_gone_and_the_rest_as_stale() {
        let now = crate::net::unix_ms();
        let saved = vec![
            answered("10.0.0.4:28960", now - 3 * 24 * HOUR),
            answered("10.0.0.5:28960", now - HOUR / 4),
        ];
        let directory = Directory::new(&[]).hiding_down_after(Some(Duration::from_secs(3600)));
        directory.restore(saved.clone(), vec![]);
        assert_eq!(
            reachability(&directory, "10.0.0.4:28960"),
            Reachability::Gone
        );
        assert_eq!(
            reachability(&directory, "10.0.0.5:28960"),
            Reachability::Stale
        );
        // An operator who keeps every server sees them all, stale.
        let directory = Directory::new(&[]).hiding_down_after(None);
        directory.restore(saved, vec![]);
        directory.retire_gone(now + 365 * 24 * HOUR);
        assert_eq!(
            reachability(&directory, "10.0.0.4:28960"),
            Reachability::Stale
        );
    }
}
