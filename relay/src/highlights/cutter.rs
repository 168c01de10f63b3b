//! The keeper: each play found is kept at once, then cut as a moment when the reel's live edge
//! has passed its end, and alerts are told of its clip; once a match is over and its plays are
//! all cut, alerts are told its play of the match. Highlights past their days go.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::relay_api::highlights::Highlight;
use tokio::sync::mpsc;

use super::scrape::Counts;
use super::{Told, AFTER_MS, BEFORE_MS};
use crate::net::ServerAddr;
use crate::seams::{FoundPlay, HighlightsTold, MomentCutting};
use crate::store::highlights;
use crate::store::worker::Workers;

/// How often the plays waiting for their clip look at the reel's edge.
const LOOK_EVERY: Duration = Duration::from_millis(500);
/// A play whose end the reel has not reached in this long (its hub went) stays unclipped.
const GIVE_UP: Duration = Duration::from_secs(120);
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// What the keeper works with.
pub(super) struct Keeper {
    pub store: Workers,
    pub cutting: Option<Arc<dyn MomentCutting>>,
    pub told: Option<Arc<dyn HighlightsTold>>,
    pub keep_days: u32,
    pub counts: Arc<Counts>,
}

/// A match, as its plays are kept: server, map, level start.
type MatchOf = (ServerAddr, String, i32);

/// A kept play waiting for its clip.
struct Waiting {
    id: String,
    of: MatchOf,
    from_ms: u64,
    to_ms: u64,
    since: Instant,
}

pub(super) async fn run(mut plays: mpsc::Receiver<Told>, keeper: Keeper) {
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    // Matches over whose play of the match is told once their plays are all cut.
    let mut over: Vec<MatchOf> = Vec::new();
    let mut look = tokio::time::interval(LOOK_EVERY);
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    loop {
        tokio::select! {
            // A play found is kept before anything is cut: the store has it at once, whatever
            // the clips cost.
            biased;
            told = plays.recv() => match told {
                None => return,
                Some(told) => keeper.take(told, &mut waiting, &mut over).await,
            },
            _ = look.tick(), if !waiting.is_empty() || !over.is_empty() => {
                keeper.cut_ready(&mut waiting, &mut over, &mut plays).await;
                let (done, still): (Vec<MatchOf>, Vec<MatchOf>) = over
                    .drain(..)
                    .partition(|m| !waiting.iter().any(|w| w.of == *m));
                over = still;
                for m in done {
                    keeper.tell_best(m).await;
                }
            }
            _ = sweep.tick(), if keeper.keep_days > 0 => keeper.sweep().await,
        }
        (keeper.counts.waiting).store(waiting.len() as u64, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Keeper {
    /// What the tap told: a play is kept (and waits for its clip), a match over is noted.
    async fn take(&self, told: Told, waiting: &mut VecDeque<Waiting>, over: &mut Vec<MatchOf>) {
        match told {
            Told::Play(play) => {
                if let Some(kept) = self.keep(play).await {
                    waiting.push_back(kept);
                }
            }
            Told::Over {
                server,
                map,
                level_start,
            } => over.push((server, map, level_start)),
        }
    }

    /// Keeps a play; what is to be cut for it, unless it was kept already (or nothing cuts).
    async fn keep(&self, found: FoundPlay) -> Option<Waiting> {
        let play = &found.play;
        let highlight = Highlight {
            id: crate::secrets::random_id(10),
            server: found.server.to_string(),
            match_id: None,
            map: found.map.clone(),
            gametype: found.gametype.clone(),
            kind: play.kind,
            player: play.player.clone(),
            kills: play.kills.clone(),
            start_server_time: play.start_server_time(),
            end_server_time: play.end_server_time(),
            start_ms: found.start_ms,
            score: play.score,
            round: play.round,
            play_of_the_match: found.best,
            moment: None,
            url: None,
        };
        let id = highlight.id.clone();
        let level_start = found.level_start;
        let kept = self
            .store
            .run(move |s| highlights::save(s.exec()?, &highlight, level_start))
            .await;
        match kept {
            Ok(true) => {
                Counts::add(&self.counts.kept);
                self.cutting.is_some().then(|| Waiting {
                    id,
                    of: (found.server, found.map, found.level_start),
                    from_ms: found
                        .start_ms
                        .saturating_sub(BEFORE_MS)
                        .max(found.match_seen_ms),
                    to_ms: found.end_ms.saturating_add(AFTER_MS),
                    since: Instant::now(),
                })
            }
            Ok(false) => None,
            Err(e) => {
                tracing::warn!("highlights: keeping a play: {e}");
                None
            }
        }
    }

    /// Cuts every waiting play whose end the reel has reached, oldest first, and tells of it.
    /// A play of a match that is over is cut once the reel holds its last kill, up to the
    /// reel's edge: the match's last frames may be all there will be (the next map's start a
    /// new reel), so the two seconds after it are not waited for.
    /// Plays found while it cuts are kept between two cuts (`plays`), so a long batch of
    /// clips never holds a play out of the store.
    async fn cut_ready(
        &self,
        waiting: &mut VecDeque<Waiting>,
        over: &mut Vec<MatchOf>,
        plays: &mut mpsc::Receiver<Told>,
    ) {
        let Some(cutting) = &self.cutting else {
            waiting.clear();
            return;
        };
        let mut still = VecDeque::with_capacity(waiting.len());
        loop {
            while let Ok(told) = plays.try_recv() {
                self.take(told, waiting, over).await;
            }
            let Some(w) = waiting.pop_front() else {
                break;
            };
            let server = w.of.0;
            let edge_ms = cutting.edge_us(server).map(|edge| edge / 1000);
            let last_kill_ms = w.to_ms.saturating_sub(AFTER_MS);
            let to_ms = match edge_ms {
                Some(edge) if edge >= w.to_ms => Some(w.to_ms),
                Some(edge) if over.contains(&w.of) && edge >= last_kill_ms => Some(edge),
                _ => None,
            };
            let Some(to_ms) = to_ms else {
                if w.since.elapsed() < GIVE_UP {
                    still.push_back(w);
                } else {
                    Counts::add(&self.counts.reel_gone);
                    tracing::info!(
                        "highlights: {} of {server} kept without a clip: its match's reel went",
                        w.id
                    );
                }
                continue;
            };
            match cutting.cut_moment(server, w.from_ms, to_ms).await {
                Ok(moment) => {
                    Counts::add(&self.counts.clipped);
                    let id = w.id.clone();
                    let set = self
                        .store
                        .run(move |s| {
                            let db = s.exec()?;
                            highlights::set_moment(db, &id, &moment)?;
                            highlights::one(db, &id)
                        })
                        .await;
                    match (set, &self.told) {
                        (Ok(Some(h)), Some(told)) => told.clipped(h),
                        (Ok(_), _) => {}
                        (Err(e), _) => tracing::warn!("highlights: giving {} its clip: {e}", w.id),
                    }
                }
                Err(why) => {
                    Counts::add(&self.counts.failed);
                    tracing::warn!("highlights: cutting {} of {server}: {why}", w.id);
                }
            }
        }
        *waiting = still;
    }

    /// A match over with its plays all cut: its best is its play of the match.
    async fn tell_best(&self, (server, map, level_start): MatchOf) {
        let Some(told) = &self.told else { return };
        let best = self
            .store
            .run(move |s| highlights::best_of(s.exec()?, &server.to_string(), &map, level_start))
            .await;
        match best {
            Ok(Some(h)) => told.play_of_the_match(h),
            Ok(None) => {}
            Err(e) => tracing::warn!("highlights: a match's best: {e}"),
        }
    }

    async fn sweep(&self) {
        let before = crate::net::unix_ms().saturating_sub(u64::from(self.keep_days) * 86_400_000);
        let swept = self
            .store
            .run(move |s| highlights::expire(s.exec()?, before))
            .await;
        match swept {
            Ok(0) => {}
            Ok(n) => tracing::info!("highlights: {n} past --moment-days dropped"),
            Err(e) => tracing::warn!("highlights: sweeping: {e}"),
        }
    }
}
