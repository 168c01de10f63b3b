//! Every hub of this relay, by server: joining one (starting it if need be), recording
//! through one, and shutting them all down with their goodbyes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use protocol::relay_api::demos::Recording;

use super::config::SpectateConfig;
use super::hub::{Hub, ViewerGuard};
use super::replica::Replica;
use super::task::HubTask;
use crate::net::ServerAddr;
use crate::seams::{FollowHubs, JoinError, Known, RecordingHubs};
use crate::sync::Locked;

/// The hubs by server, locked.
type Registry<'a> = MutexGuard<'a, BTreeMap<ServerAddr, Arc<Hub>>>;

/// Every hub, by server.
pub struct Hubs {
    config: SpectateConfig,
    known: Known,
    hubs: Mutex<BTreeMap<ServerAddr, Arc<Hub>>>,
    /// Hub sessions running on this relay (shutdown waits for their goodbyes).
    pub(super) running: AtomicUsize,
    /// In a cluster, one relay's hub holds each match's game slot and the others mirror it.
    cluster: Option<Arc<crate::cluster::Cluster>>,
    /// What every viewer was sent, for the scrape.
    pub(super) sent: Arc<super::sent::Sent>,
}

impl Hubs {
    /// Hubs for the servers `known` lists, and no others.
    pub fn new(config: SpectateConfig, known: Known) -> Arc<Self> {
        Self::clustered(config, known, None)
    }

    /// Hubs that, in a cluster, share one game slot per match with every other relay.
    pub fn clustered(
        config: SpectateConfig,
        known: Known,
        cluster: Option<Arc<crate::cluster::Cluster>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            config,
            known,
            hubs: Mutex::default(),
            sent: Arc::default(),
            running: Default::default(),
            cluster,
        })
    }

    pub fn config(&self) -> &SpectateConfig {
        &self.config
    }

    /// Whether a hub may be started for `addr`: the relay knows the server.
    pub fn knows(&self, addr: ServerAddr) -> bool {
        self.known.knows(addr)
    }

    fn registry(&self) -> Registry<'_> {
        self.hubs.locked()
    }

    /// Joins the hub of a server the directory knows, starting it if need be.
    pub fn join(self: &Arc<Self>, addr: ServerAddr) -> Result<ViewerGuard, JoinError> {
        let (hub, _hubs) = self.hub_for(addr)?;
        hub.viewers.fetch_add(1, Ordering::AcqRel);
        hub.lock().idle_since = None;
        Ok(ViewerGuard::new(hub))
    }

    /// Records a server the directory knows, starting its hub if need be (it stays joined
    /// while the recording runs, watched or not).
    pub fn record(self: &Arc<Self>, addr: impl Into<ServerAddr>) -> Result<Arc<Hub>, JoinError> {
        let (hub, _hubs) = self.hub_for(addr.into())?;
        hub.set_recording(true);
        Ok(hub)
    }

    /// Follows a server's matches with nobody watching, starting its hub if need be.
    pub fn follow(self: &Arc<Self>, addr: ServerAddr) -> Result<Arc<Hub>, JoinError> {
        let (hub, _hubs) = self.hub_for(addr)?;
        hub.follow();
        Ok(hub)
    }

    /// The hub of `addr`, started if need be; the registry stays locked while the caller
    /// takes its hold, so the hub cannot retire in between.
    fn hub_for(self: &Arc<Self>, addr: ServerAddr) -> Result<(Arc<Hub>, Registry<'_>), JoinError> {
        if !self.known.knows(addr) {
            return Err(JoinError::Unknown);
        }
        let mut hubs = self.registry();
        let hub = match hubs.get(&addr) {
            Some(hub) => hub.clone(),
            None => {
                if hubs.len() >= self.config.max_hubs {
                    return Err(JoinError::Full);
                }
                let hub = Arc::new(Hub::new(addr, &self.config));
                hubs.insert(addr, hub.clone());
                match &self.cluster {
                    Some(cluster) => tokio::spawn(super::cluster::run(
                        Replica::new(hub.clone(), self.clone()),
                        cluster.clone(),
                    )),
                    None => tokio::spawn(HubTask::new(hub.clone(), self.clone(), None, None).run()),
                };
                hub
            }
        };
        Ok((hub, hubs))
    }

    /// The demo files hubs are writing now.
    pub fn recording_paths(&self) -> Vec<PathBuf> {
        self.list().iter().filter_map(|h| h.record_path()).collect()
    }

    pub fn get(&self, addr: &ServerAddr) -> Option<Arc<Hub>> {
        self.registry().get(addr).cloned()
    }

    pub fn list(&self) -> Vec<Arc<Hub>> {
        self.registry().values().cloned().collect()
    }

    /// Shutdown: every hub session says goodbye to its game server (`disconnect`) and ends its
    /// recording with the end marker. Returns how many were running, once they have all
    /// finished or `within` has passed.
    pub async fn close_all(&self, within: Duration) -> usize {
        let running = self.running.load(Ordering::Acquire);
        for hub in self.list() {
            hub.closing.store(true, Ordering::Release);
        }
        let deadline = Instant::now() + within;
        while self.running.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        running
    }

    /// Removes the hub if it is still idle past the grace period; joins hold the same lock, so
    /// a viewer arriving now keeps it.
    pub(super) fn retire(&self, hub: &Arc<Hub>) -> bool {
        let mut hubs = self.registry();
        if hub.idle_for().is_some_and(|idle| idle >= self.config.grace) {
            hubs.remove(&hub.addr);
            true
        } else {
            false
        }
    }
}

impl FollowHubs for Hubs {
    fn follow(self: Arc<Self>, server: ServerAddr) -> Result<(), JoinError> {
        Hubs::follow(&self, server).map(drop)
    }

    fn unfollow(&self, server: ServerAddr) {
        if let Some(hub) = self.get(&server) {
            hub.unfollow(self.config.grace);
        }
    }

    fn turned_away(&self, server: ServerAddr) -> Option<String> {
        use protocol::relay_api::watch::HubState;
        match self.get(&server)?.status().state {
            HubState::Refused { reason, .. } => Some(reason),
            HubState::Rejoining { reason, .. } if reason.to_lowercase().contains("kick") => {
                Some(reason)
            }
            _ => None,
        }
    }

    fn has_password(&self, server: ServerAddr) -> bool {
        self.config.server_passwords.contains_key(&server)
    }
}

impl RecordingHubs for Hubs {
    fn record(self: Arc<Self>, server: ServerAddr) -> Result<(), JoinError> {
        Hubs::record(&self, server).map(drop)
    }

    fn stop_recording(&self, server: ServerAddr) -> bool {
        self.get(&server)
            .map(|hub| hub.set_recording(false))
            .is_some()
    }

    fn recording_paths(&self) -> Vec<PathBuf> {
        Hubs::recording_paths(self)
    }

    fn recordings(&self) -> Vec<Recording> {
        self.list()
            .iter()
            .filter_map(|hub| {
                let status = hub.status();
                let file = status.recording?;
                Some(Recording {
                    addr: status.addr,
                    file: file.file,
                    bytes: file.bytes,
                })
            })
            .collect()
    }
}
