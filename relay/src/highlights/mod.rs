//! Highlights: the plays a followed or watched match's kills make, by the rule
//! `cod::watch::highlights` applies (docs/using.md, "Highlights"). The matches' tap finds them
//! from the events it builds the record from (no copy of a frame) and hands each here through
//! `seams::PlaysFound`; each is kept in the store at once (a relay killed before the clip is
//! cut loses no highlight), then cut as a moment once the reel's live edge has passed its
//! last kill by [`AFTER_MS`], while the reel still holds its first.
//!
//! Routes: `GET /api/highlights`, `GET /api/highlights/{id}`, `GET /highlights`.

mod api;
mod cutter;
mod page;
mod scrape;

use std::sync::Arc;

use axum::routing::get;
use axum::Router;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::net::ServerAddr;
use crate::seams::{FoundPlay, HighlightsTold, MomentCutting, PlaysFound};
use crate::store::worker::Workers;
pub use api::openapi;

/// A clip starts this long before a play's first kill…
pub const BEFORE_MS: u64 = 3000;
/// …and ends this long after its last.
pub const AFTER_MS: u64 = 2000;
/// Plays waiting to be kept; more are dropped (and said) rather than held without bound.
const QUEUE: usize = 1024;

/// The highlights' settings for `muster serve`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct HighlightsArgs {
    /// Finds no plays in the matches followed or watched (their records are kept as before).
    #[arg(long = "no-highlights")]
    pub no_highlights: bool,
}

/// What highlights need from the relay.
pub struct HighlightsStart {
    /// The store: highlights are kept only where there is one.
    pub store: Option<Workers>,
    /// Moments, to cut each play's clip (`None`: no rewind reel here, plays are kept unclipped).
    pub cutting: Option<Arc<dyn MomentCutting>>,
    /// Days a highlight is kept: the moments' (`--moment-days`), as its clip is one.
    pub keep_days: u32,
    /// The page's build, whose stylesheet the Highlights page wears.
    pub dist: std::path::PathBuf,
    pub config: HighlightsArgs,
    /// Alerts, told of each clip and each match's play of the match.
    pub told: Option<Arc<dyn HighlightsTold>>,
}

/// What highlights give the relay.
pub struct HighlightsStarted {
    /// Where the matches' tap sends the plays it finds (`None` with `--no-highlights`: the
    /// tap finds none; the pages still show those kept).
    pub plays: Option<Arc<dyn PlaysFound>>,
    pub routes: Router,
    /// The plays and clips counted for `/metrics`.
    pub scrape: Arc<dyn crate::metrics::Scrape>,
}

/// What the tap tells the keeper.
enum Told {
    Play(FoundPlay),
    /// A match is over: once its plays are cut, its play of the match is known.
    Over {
        server: ServerAddr,
        map: String,
        level_start: i32,
    },
}

/// The tap's side: a bounded queue to the keeper, so the hub's loop never waits.
struct Plays {
    to: mpsc::Sender<Told>,
    counts: Arc<scrape::Counts>,
}

impl Plays {
    fn send(&self, told: Told) {
        if let Err(e) = self.to.try_send(told) {
            scrape::Counts::add(&self.counts.dropped);
            tracing::warn!("highlights: a play was not kept ({e}): the store is behind");
        }
    }
}

impl PlaysFound for Plays {
    fn found(&self, play: FoundPlay) {
        self.send(Told::Play(play));
    }

    fn match_over(&self, server: ServerAddr, map: String, level_start: i32) {
        self.send(Told::Over {
            server,
            map,
            level_start,
        });
    }
}

#[derive(Clone)]
struct Highlights {
    store: Workers,
    dist: std::path::PathBuf,
}

/// Starts keeping and cutting plays; `None` without a store.
pub fn start(start: HighlightsStart, tasks: &mut JoinSet<()>) -> Option<HighlightsStarted> {
    let store = start.store?;
    let (to, from) = mpsc::channel(QUEUE);
    let counts = Arc::new(scrape::Counts::default());
    tasks.spawn(cutter::run(
        from,
        cutter::Keeper {
            store: store.clone(),
            cutting: start.cutting,
            told: start.told,
            keep_days: start.keep_days,
            counts: counts.clone(),
        },
    ));
    let routes = Router::from(api::api())
        .route("/highlights", get(page::page))
        .with_state(Highlights {
            store,
            dist: start.dist,
        });
    Some(HighlightsStarted {
        plays: (!start.config.no_highlights).then(|| {
            Arc::new(Plays {
                to,
                counts: counts.clone(),
            }) as Arc<dyn PlaysFound>
        }),
        routes,
        scrape: counts,
    })
}
