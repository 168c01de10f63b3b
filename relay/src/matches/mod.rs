//! Matches: every match a hub follows becomes a record (its scoreboard, kills, roster), and
//! every name a record of kills, deaths, time and a rating, with no server plugin: only what a
//! stock server tells any spectator. A hub follows a match while it has viewers, and always
//! for the servers the operator names (`--follow`). The tap ([`tap`]) sends the match in parts
//! to the history's writer; the routes ([`api`]) read them back.
//!
//! Routes: `GET /api/matches`, `GET /api/matches/{id}` (and its `score.svg`, `heatmap.svg`),
//! `GET /api/players/{name}/stats`, `GET /api/leaderboard`; the pages `/matches`,
//! `/matches/{id}` and `/players/{name}` ([`html`]).

mod api;
mod chart;
mod follow;
mod html;
mod svg;
mod tap;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::task::JoinSet;

use crate::net::ServerAddr;
use crate::seams::{FollowHubs, JoinError, MatchesToday, RecordingHubs, ServerSlots};
use crate::store::worker::Workers;

pub use api::{openapi, shown, BoardQuery, ListQuery, MIN_MATCHES};
pub use chart::{heatmap, score, Backdrop};
pub use tap::{tap, PlaysTo};

/// Which matches are followed with nobody watching.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MatchesArgs {
    /// Follow this server's matches (`ip:port`) whether anyone watches or not, for its match
    /// records and its players' figures; repeat for more. Takes one game slot.
    #[arg(long = "follow", value_name = "ADDR")]
    pub follow: Vec<ServerAddr>,
    /// Also follow the busiest servers: those with at least this many humans (never a
    /// passworded one without its password, never into a server's last free slot).
    #[arg(long = "follow-busy", value_name = "HUMANS")]
    pub follow_busy: Option<u32>,
    /// At most this many busy servers followed at once, the most populated first.
    #[arg(long = "follow-max", default_value_t = 10, value_name = "N")]
    pub follow_max: usize,
    /// Record every followed match to `--record-dir`, so each match page links its demo and
    /// each kill its moment.
    #[arg(long = "follow-record")]
    pub follow_record: bool,
}

pub type MatchesConfig = follow::FollowConfig;

impl MatchesArgs {
    pub fn config(&self) -> MatchesConfig {
        MatchesConfig {
            follow: self.follow.clone(),
            busy: self.follow_busy,
            busy_max: self.follow_max,
            record: self.follow_record,
        }
    }
}

/// How often the followed servers are chosen again (a server the directory has not learned
/// yet, or whose hub was refused a slot, is tried again).
const FOLLOW_EVERY: Duration = Duration::from_secs(5);

/// How often each server's matches of the last 24 hours are counted for the list.
const COUNT_EVERY: Duration = Duration::from_secs(15);

/// What the matches capability starts from: the history it keeps records in (none with
/// `--no-history`), the hubs it follows through and the list it counts matches for.
pub struct MatchesStart {
    pub config: MatchesConfig,
    /// The history's readers, for the pages and the daily counts.
    pub readers: Option<Workers>,
    pub dist: PathBuf,
    /// The operator's overview images (`--overview`): map and world corners.
    pub overviews: Vec<(String, [f32; 4])>,
    pub hubs: Arc<dyn FollowHubs>,
    /// The hubs' recorder, when the relay records (`--record-dir`).
    pub recorder: Option<Arc<dyn RecordingHubs>>,
    pub servers: Arc<dyn ServerSlots>,
    pub list: Arc<dyn MatchesToday>,
    /// Servers their proven owners opted in to being followed.
    pub owners: Arc<dyn crate::seams::OwnerProfiles>,
}

/// Starts following, counting and serving matches; the routes exist only with a history.
pub fn start(start: MatchesStart, tasks: &mut JoinSet<()>) -> anyhow::Result<Option<Router>> {
    let Some(readers) = start.readers else {
        if !start.config.follow.is_empty() || start.config.busy.is_some() {
            anyhow::bail!(
                "--follow and --follow-busy keep match records in the history: drop --no-history"
            );
        }
        return Ok(None);
    };
    let recorder = match (start.config.record, start.recorder) {
        (false, _) => None,
        (true, Some(recorder)) => Some(recorder),
        (true, None) => anyhow::bail!("--follow-record records to --record-dir: give one"),
    };
    let overviews = start
        .overviews
        .into_iter()
        .map(|(map, corners)| {
            let url = format!("/overview/{map}");
            (map, Backdrop { url, corners })
        })
        .collect();
    count_today(readers.clone(), start.list, tasks);
    follow(
        start.config,
        Followed {
            hubs: start.hubs,
            recorder,
            servers: start.servers,
            owners: start.owners,
        },
        tasks,
    );
    Ok(Some(api::routes(api::Pages {
        readers,
        dist: start.dist,
        overviews: Arc::new(overviews),
    })))
}

/// Counts each server's matches of the last 24 hours for the server list, now and every
/// [`COUNT_EVERY`].
fn count_today(readers: Workers, list: Arc<dyn MatchesToday>, tasks: &mut JoinSet<()>) {
    tasks.spawn(async move {
        let mut every = tokio::time::interval(COUNT_EVERY);
        loop {
            every.tick().await;
            let since = crate::net::unix_ms().saturating_sub(crate::store::DAY_MS);
            let counted = readers
                .run(move |store| crate::store::matches::started_since(store.exec()?, since))
                .await;
            match counted {
                Ok(counts) => list.post_matches_today(counts),
                Err(e) => tracing::debug!("matches today not counted: {e}"),
            }
        }
    });
}

/// What following works through.
struct Followed {
    hubs: Arc<dyn FollowHubs>,
    /// The hubs' recorder, when followed matches are recorded.
    recorder: Option<Arc<dyn RecordingHubs>>,
    servers: Arc<dyn ServerSlots>,
    owners: Arc<dyn crate::seams::OwnerProfiles>,
}

/// Keeps a hub on each followed server (the operator's, the busiest, and those their owners
/// opted in), recording it when there is a recorder.
fn follow(config: MatchesConfig, with: Followed, tasks: &mut JoinSet<()>) {
    let Followed {
        hubs,
        recorder,
        servers,
        owners,
    } = with;
    let mut follower = follow::Follower::new(config);
    tasks.spawn(async move {
        let mut every = tokio::time::interval(FOLLOW_EVERY);
        let mut said = std::collections::BTreeMap::new();
        loop {
            every.tick().await;
            follower.also_follow(owners.followed());
            if follower.is_idle() {
                continue;
            }
            let plan = follower.plan(
                &servers.slots(),
                |a| hubs.turned_away(a),
                |a| hubs.has_password(a),
                std::time::Instant::now(),
            );
            for (addr, why) in plan.leave {
                if let Some(recorder) = &recorder {
                    recorder.stop_recording(addr);
                }
                hubs.unfollow(addr);
                said.remove(&addr);
                tracing::info!(server = %addr, "no longer following: {why}");
            }
            for addr in plan.follow {
                let mut outcome = hubs.clone().follow(addr);
                if let (Ok(()), Some(recorder)) = (&outcome, &recorder) {
                    outcome = recorder.clone().record(addr);
                }
                if outcome.is_ok() {
                    follower.followed(addr);
                }
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
