//! The narrow seams between capabilities. A capability that needs something another one owns
//! takes one of these traits, never the other's state: the spectator hubs and the bridge ask
//! only whether a server is known, the Wulfram II checker only posts its findings, and the
//! relay's own master only shows its summary. `browse::Directory` implements them all.

use std::net::SocketAddrV4;
use std::sync::Arc;

use protocol::relay_api::{OwnMaster, WulframServer};

/// Which game servers the relay has learned of (from a master, the LAN scan or the operator):
/// the only targets a page may cause datagrams to.
pub trait KnownServers: Send + Sync {
    fn knows(&self, addr: SocketAddrV4) -> bool;
}

/// Where the Wulfram II checker posts what it found, for the feed and `GET /api/wulfram`.
pub trait WulframBoard: Send + Sync {
    /// Records a check of one configured server (added if new).
    fn post(&self, server: WulframServer);
    fn wulfram(&self) -> Vec<WulframServer>;
}

/// Where the relay's own master shows what it holds, on the masters panel.
pub trait OwnMasterBoard: Send + Sync {
    /// `polled_as` is the master's address as the poller asks it.
    fn post_own_master(&self, polled_as: &str, own: OwnMaster);
}

/// A fixed set of servers, for tests and tools that have no directory.
impl KnownServers for Vec<SocketAddrV4> {
    fn knows(&self, addr: SocketAddrV4) -> bool {
        self.contains(&addr)
    }
}

pub type Known = Arc<dyn KnownServers>;

/// What the poller tells the history: every poll's outcome, and records that changed without
/// one. Implementations must not block: the poller calls them inline.
pub trait PollLog: Send + Sync {
    /// A server answered; this is its new record.
    fn answered(&self, server: &protocol::relay_api::ServerInfo);
    /// A server did not answer after every retry, or answered only garbage.
    fn unanswered(&self, addr: &str, at_ms: u64);
    /// A server's record changed without a poll (newly listed, another source).
    fn listed(&self, server: &protocol::relay_api::ServerInfo);
    /// A master poll's outcome.
    fn master(&self, status: &protocol::relay_api::MasterStatus);
}
