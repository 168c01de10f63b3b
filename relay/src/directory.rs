//! The one in-memory directory of servers and masters, and the feed of its changes to pages.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::RwLock;

use protocol::relay_api::{
    MasterState, MasterStatus, Progress, Reachability, RelayMessage, ServerInfo, WulframServer,
};
use tokio::sync::broadcast;

/// Changes a slow page may fall behind by before it is sent the whole directory again.
const FEED_CAPACITY: usize = 4096;

#[derive(Default)]
struct State {
    servers: BTreeMap<String, ServerInfo>,
    masters: Vec<MasterStatus>,
    progress: Progress,
    wulfram: Vec<WulframServer>,
    /// What each connected page shows in detail, by page.
    watched: BTreeMap<u64, String>,
    next_page: u64,
}

/// Shared by the poller (the only writer) and every page and API request (readers).
pub struct Directory {
    state: RwLock<State>,
    feed: broadcast::Sender<RelayMessage>,
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
                })
                .collect(),
            ..State::default()
        };
        Self {
            state: RwLock::new(state),
            feed: broadcast::channel(FEED_CAPACITY).0,
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Every change from now on. Subscribe before taking [`Self::snapshot`] so nothing falls between.
    pub fn subscribe(&self) -> broadcast::Receiver<RelayMessage> {
        self.feed.subscribe()
    }

    /// The whole directory as one message.
    pub fn snapshot(&self) -> RelayMessage {
        let state = self.read();
        RelayMessage::Directory {
            servers: state.servers.values().cloned().collect(),
            masters: state.masters.clone(),
            progress: state.progress,
            wulfram: state.wulfram.clone(),
        }
    }

    pub fn wulfram(&self) -> Vec<WulframServer> {
        self.read().wulfram.clone()
    }

    /// Records a check of one configured Wulfram II server (added if new) and tells pages
    /// when anything changed.
    pub fn set_wulfram(&self, server: WulframServer) {
        let servers = {
            let mut state = self.write();
            match state.wulfram.iter_mut().find(|w| w.name == server.name) {
                Some(known) if *known == server => return,
                Some(known) => *known = server,
                None => state.wulfram.push(server),
            }
            state.wulfram.clone()
        };
        let _ = self.feed.send(RelayMessage::Wulfram { servers });
    }

    pub fn servers(&self) -> Vec<ServerInfo> {
        self.read().servers.values().cloned().collect()
    }

    /// Whether the directory lists this server (`ip:port`).
    pub fn contains(&self, addr: &str) -> bool {
        self.read().servers.contains_key(addr)
    }

    pub fn masters(&self) -> Vec<MasterStatus> {
        self.read().masters.clone()
    }

    pub fn server(&self, addr: &str) -> Option<ServerInfo> {
        self.read().servers.get(addr).cloned()
    }

    /// Stores a server's latest state and tells every page.
    pub fn upsert(&self, server: ServerInfo) {
        self.write()
            .servers
            .insert(server.addr.clone(), server.clone());
        let _ = self.feed.send(RelayMessage::Server { server });
    }

    /// Marks a server that stopped answering (or answers only garbage), keeping what it last
    /// said.
    pub fn mark(&self, addr: &str, reachability: Reachability) {
        let changed = {
            let mut state = self.write();
            state.servers.get_mut(addr).and_then(|server| {
                (server.reachability != reachability).then(|| {
                    server.reachability = reachability;
                    server.ping_ms = None;
                    server.clone()
                })
            })
        };
        if let Some(server) = changed {
            let _ = self.feed.send(RelayMessage::Server { server });
        }
    }

    /// Reports the refresh's progress to every page.
    pub fn set_progress(&self, progress: Progress) {
        self.write().progress = progress;
        let _ = self.feed.send(RelayMessage::Progress { progress });
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

    /// What a page shows in detail; only servers already in the directory count.
    pub fn watch(&self, page: u64, addr: Option<String>) {
        let mut state = self.write();
        match addr.filter(|a| state.servers.contains_key(a)) {
            Some(addr) => state.watched.insert(page, addr),
            None => state.watched.remove(&page),
        };
    }

    /// Every server some page shows in detail.
    pub fn watched(&self) -> BTreeSet<String> {
        self.read().watched.values().cloned().collect()
    }

    /// Records the outcome of one master poll and tells every page.
    pub fn set_master(&self, addr: &str, state: MasterState, polled_ms: u64) {
        let masters = {
            let mut guard = self.write();
            if let Some(master) = guard.masters.iter_mut().find(|m| m.addr == addr) {
                master.state = state;
                master.polled_ms = Some(polled_ms);
            }
            guard.masters.clone()
        };
        let _ = self.feed.send(RelayMessage::Masters { masters });
    }
}
