//! Owners: a server's admin proves it is theirs by its rcon password, sent once through the
//! admin console (`status`; the password is never kept) and gets a short owner session for
//! that server. With it they set the description and links the detail shows, the banner's
//! colours, a Discord webhook for the server's own events (alerts' rules: up, down, full,
//! each match's end), and whether the relay follows its matches for statistics.
//!
//! The relay cannot keep testing a password it does not keep, so a proof lasts
//! `--owner-proof-days`: after that the profile is no longer shown, the webhook no longer
//! fires and the server is no longer followed, until someone claims it again with the
//! password that works then. A changed password ends the old owner's reach the same way;
//! anyone with the current password may claim and edit (as anyone with it runs the server).
//!
//! Routes: `POST /api/servers/{addr}/claim`, `GET`/`PUT`/`DELETE /api/servers/{addr}/owner`.

mod api;
pub use api::openapi;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::Router;
use protocol::relay_api::owners::OwnerProfile;
use tokio::task::JoinSet;

use crate::net::ServerAddr;
use crate::seams::{OwnerProfiles, ProveOwner, ServerRecords, ServerWebhooks};
use crate::store::owners as stored;
use crate::store::worker::Workers;
use crate::sync::Shared;

/// The owners settings for `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct OwnersArgs {
    /// Minutes an owner session lasts after its claim.
    #[arg(
        long = "owner-session-minutes",
        default_value_t = 60,
        value_name = "MINUTES"
    )]
    pub owner_session_minutes: u64,
    /// Days a claim proves ownership: then the profile, webhook and following lapse until
    /// the server is claimed again with its rcon password.
    #[arg(long = "owner-proof-days", default_value_t = 30, value_name = "DAYS")]
    pub owner_proof_days: u64,
}

impl Default for OwnersArgs {
    fn default() -> Self {
        Self {
            owner_session_minutes: 60,
            owner_proof_days: 30,
        }
    }
}

/// Owners other relays sharing the store set are read this often.
const RELOAD_EVERY: Duration = Duration::from_secs(15);

/// What owners need from the relay.
pub struct OwnersStart {
    pub config: OwnersArgs,
    /// Owners are kept only where there is a store.
    pub store: Option<Workers>,
    pub prove: Arc<dyn ProveOwner>,
    pub records: Arc<dyn ServerRecords>,
    pub webhooks: Option<Arc<dyn ServerWebhooks>>,
    pub trusted: Vec<IpAddr>,
}

/// The owners' state: the store, and its owners in memory for banners and the follower.
#[derive(Clone)]
pub struct Owners {
    config: OwnersArgs,
    store: Option<Workers>,
    prove: Arc<dyn ProveOwner>,
    records: Arc<dyn ServerRecords>,
    webhooks: Option<Arc<dyn ServerWebhooks>>,
    trusted: Arc<Vec<IpAddr>>,
    /// Every owner's profile with when it was proven.
    known: Arc<RwLock<BTreeMap<String, OwnerProfile>>>,
}

impl Owners {
    fn proof_ms(&self) -> u64 {
        self.config.owner_proof_days.saturating_mul(24 * 3_600_000)
    }

    /// Whether a proof made at `proven_ms` still holds.
    fn holds(&self, proven_ms: u64) -> bool {
        proven_ms.saturating_add(self.proof_ms()) > crate::net::unix_ms()
    }

    /// Reads every owner from the store into memory.
    async fn reload(&self) {
        let Some(store) = &self.store else { return };
        match store.run(|s| stored::all(s.exec()?)).await {
            Ok(all) => {
                let profiles = all
                    .into_iter()
                    .filter_map(|o| serde_json::from_str(&o.profile).ok())
                    .map(|p: OwnerProfile| (p.addr.clone(), p))
                    .collect();
                *self.known.writing() = profiles;
            }
            Err(e) => tracing::debug!("owners not read: {e}"),
        }
    }

    fn remember(&self, profile: OwnerProfile) {
        self.known.writing().insert(profile.addr.clone(), profile);
    }

    fn forget(&self, addr: &str) {
        self.known.writing().remove(addr);
    }
}

impl OwnerProfiles for Owners {
    fn profile(&self, addr: &str) -> Option<OwnerProfile> {
        let profile = self.known.reading().get(addr).cloned()?;
        self.holds(profile.proven_ms).then_some(profile)
    }

    fn followed(&self) -> Vec<ServerAddr> {
        (self.known.reading().values())
            .filter(|p| p.follow && self.holds(p.proven_ms))
            .filter_map(|p| p.addr.parse().ok())
            .collect()
    }
}

/// What owners give back: their profiles (for banners and the follower) and their routes.
pub struct OwnersStarted {
    pub owners: Arc<dyn OwnerProfiles>,
    pub routes: Router,
}

/// Reads the owners and keeps them fresh; the routes answer 503 without a store.
pub fn start(start: OwnersStart, tasks: &mut JoinSet<()>) -> OwnersStarted {
    let owners = Owners {
        config: start.config,
        store: start.store,
        prove: start.prove,
        records: start.records,
        webhooks: start.webhooks,
        trusted: Arc::new(start.trusted),
        known: Arc::default(),
    };
    if owners.store.is_some() {
        let kept = owners.clone();
        tasks.spawn(async move {
            let mut every = tokio::time::interval(RELOAD_EVERY);
            loop {
                every.tick().await;
                kept.reload().await;
            }
        });
    }
    let routes = Router::from(api::api()).with_state(owners.clone());
    OwnersStarted {
        owners: Arc::new(owners),
        routes,
    }
}
