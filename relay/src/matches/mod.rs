//! Matches: every match a hub follows becomes a record (its scoreboard, kills, roster), and
//! every name a record of kills, deaths, time and a rating, with no server plugin: only what a
//! stock server tells any spectator. A hub follows a match while it has viewers, and always
//! for the servers the operator names (`--follow`). The tap ([`tap`]) sends the match in parts
//! to the history's writer; the routes ([`api`]) read them back.
//!
//! Routes: `GET /api/matches`, `GET /api/matches/{id}` (and its `score.svg`, `heatmap.svg`),
//! `GET /api/players/{name}/stats`, `GET /api/leaderboard`; the pages `/matches`,
//! `/matches/{id}` and `/players/{name}` ([`html`]).

pub mod api;
pub mod chart;
pub mod html;
pub mod tap;

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use crate::net::ServerAddr;
use crate::seams::{FollowHubs, JoinError};

/// Which matches are followed.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MatchesArgs {
    /// Follow this server's matches (`ip:port`) whether anyone watches or not, for its match
    /// records and its players' figures; repeat for more. Takes one game slot.
    #[arg(long = "follow", value_name = "ADDR")]
    pub follow: Vec<ServerAddr>,
}

#[derive(Clone, Debug, Default)]
pub struct MatchesConfig {
    pub follow: Vec<ServerAddr>,
}

impl MatchesArgs {
    pub fn config(&self) -> MatchesConfig {
        MatchesConfig {
            follow: self.follow.clone(),
        }
    }
}

/// How often the followed servers' hubs are asked for (a server the directory has not
/// learned yet, or whose hub was full, is tried again).
const FOLLOW_EVERY: Duration = Duration::from_secs(5);

/// Keeps a hub on each followed server.
pub fn start(config: MatchesConfig, hubs: Arc<dyn FollowHubs>, tasks: &mut JoinSet<()>) {
    if config.follow.is_empty() {
        return;
    }
    tasks.spawn(async move {
        let mut every = tokio::time::interval(FOLLOW_EVERY);
        let mut said = std::collections::BTreeMap::new();
        loop {
            every.tick().await;
            for &addr in &config.follow {
                let outcome = hubs.clone().follow(addr);
                // Each refusal is logged once, not every few seconds.
                if said.insert(addr, outcome.clone()) != Some(outcome.clone()) {
                    match outcome {
                        Ok(()) => tracing::info!(server = %addr, "following its matches"),
                        Err(JoinError::Unknown) => tracing::info!(
                            server = %addr,
                            "to follow once the directory lists it"
                        ),
                        Err(e) => tracing::warn!(server = %addr, "cannot follow: {e}"),
                    }
                }
            }
        }
    });
}
