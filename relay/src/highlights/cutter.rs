//! The keeper: each play found is kept at once, then cut as a moment when the reel's live edge
//! has passed its end; highlights past their days go.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::relay_api::highlights::Highlight;
use tokio::sync::mpsc;

use super::{AFTER_MS, BEFORE_MS};
use crate::net::ServerAddr;
use crate::seams::{FoundPlay, MomentCutting};
use crate::store::highlights;
use crate::store::worker::Workers;

/// How often the plays waiting for their clip look at the reel's edge.
const LOOK_EVERY: Duration = Duration::from_millis(500);
/// A play whose end the reel has not reached in this long (its hub went) stays unclipped.
const GIVE_UP: Duration = Duration::from_secs(120);
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// A kept play waiting for its clip.
struct Waiting {
    id: String,
    server: ServerAddr,
    from_ms: u64,
    to_ms: u64,
    since: Instant,
}

pub(super) async fn run(
    mut plays: mpsc::Receiver<FoundPlay>,
    store: Workers,
    cutting: Option<Arc<dyn MomentCutting>>,
    keep_days: u32,
) {
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    let mut look = tokio::time::interval(LOOK_EVERY);
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    loop {
        tokio::select! {
            play = plays.recv() => {
                let Some(play) = play else { return };
                if let (Some(kept), true) = (keep(&store, play).await, cutting.is_some()) {
                    waiting.push_back(kept);
                }
            }
            _ = look.tick(), if !waiting.is_empty() => {
                if let Some(cutting) = &cutting {
                    cut_ready(&store, cutting.as_ref(), &mut waiting).await;
                }
            }
            _ = sweep.tick(), if keep_days > 0 => {
                let before = crate::net::unix_ms()
                    .saturating_sub(u64::from(keep_days) * 86_400_000);
                let swept = store
                    .run(move |s| highlights::expire(s.exec()?, before))
                    .await;
                match swept {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("highlights: {n} past --moment-days dropped"),
                    Err(e) => tracing::warn!("highlights: sweeping: {e}"),
                }
            }
        }
    }
}

/// Keeps a play; what is to be cut for it, unless it was kept already.
async fn keep(store: &Workers, found: FoundPlay) -> Option<Waiting> {
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
    let kept = store
        .run(move |s| highlights::save(s.exec()?, &highlight, level_start))
        .await;
    match kept {
        Ok(true) => Some(Waiting {
            id,
            server: found.server,
            from_ms: found
                .start_ms
                .saturating_sub(BEFORE_MS)
                .max(found.match_seen_ms),
            to_ms: found.end_ms.saturating_add(AFTER_MS),
            since: Instant::now(),
        }),
        Ok(false) => None,
        Err(e) => {
            tracing::warn!("highlights: keeping a play: {e}");
            None
        }
    }
}

/// Cuts every waiting play whose end the reel has reached, oldest first.
async fn cut_ready(store: &Workers, cutting: &dyn MomentCutting, waiting: &mut VecDeque<Waiting>) {
    let mut still = VecDeque::with_capacity(waiting.len());
    while let Some(w) = waiting.pop_front() {
        let reached = cutting
            .edge_us(w.server)
            .is_some_and(|edge| edge >= w.to_ms.saturating_mul(1000));
        if !reached {
            if w.since.elapsed() < GIVE_UP {
                still.push_back(w);
            } else {
                tracing::info!(
                    "highlights: {} of {} kept without a clip: its match's reel went",
                    w.id,
                    w.server
                );
            }
            continue;
        }
        match cutting.cut_moment(w.server, w.from_ms, w.to_ms).await {
            Ok(moment) => {
                let id = w.id.clone();
                let set = store
                    .run(move |s| highlights::set_moment(s.exec()?, &id, &moment))
                    .await;
                if let Err(e) = set {
                    tracing::warn!("highlights: giving {} its clip: {e}", w.id);
                }
            }
            Err(why) => tracing::warn!("highlights: cutting {} of {}: {why}", w.id, w.server),
        }
    }
    *waiting = still;
}
