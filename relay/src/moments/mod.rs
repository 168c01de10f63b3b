//! Moments: a viewer's "share" cuts a stretch of a watched match (20 s before to 10 s after by
//! default, at most 2 minutes) from the hub's rewind reel as its own stock `.dm_3`, keeps it in
//! the store with a still of the map, and gives it a link that plays it (`/m/ID`) and unfurls
//! as a card where it is pasted. Any relay sharing the store serves a moment; the relay holding
//! the match's session cuts it. Moments are kept `--moment-days`; one client makes at most
//! `--moment-per-hour`.
//!
//! Routes: `POST /api/moments`, `GET /api/moments/{id}` (and `.dm_3`, `.png`), `/m/{id}` and
//! `/m/{id}/embed`.

mod api;
pub use api::openapi;
mod page;
pub mod still;

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use tokio::task::JoinSet;

use crate::seams::Clipping;
use crate::store::worker::Workers;

/// The moments settings for `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct MomentsArgs {
    /// Days a shared moment is kept; 0 keeps them until deleted by hand.
    #[arg(long = "moment-days", default_value_t = 30, value_name = "DAYS")]
    pub moment_days: u32,
    /// Moments one client (address) may make in an hour.
    #[arg(long = "moment-per-hour", default_value_t = 20, value_name = "N")]
    pub moment_per_hour: u32,
}

impl Default for MomentsArgs {
    fn default() -> Self {
        Self {
            moment_days: 30,
            moment_per_hour: 20,
        }
    }
}

/// What moments need from the relay.
pub struct MomentsStart {
    pub config: MomentsArgs,
    /// The store: moments are kept only where there is one.
    pub store: Option<Workers>,
    /// The rewind reels to cut from (`None` with `--rewind-minutes 0`: moments are only served).
    pub clipping: Option<Arc<dyn Clipping>>,
    pub dist: PathBuf,
    /// The operator's overview images: map, file, corners.
    pub overviews: Vec<(String, PathBuf, [f32; 4])>,
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted: Vec<IpAddr>,
}

#[derive(Clone)]
struct Moments {
    config: MomentsArgs,
    store: Workers,
    clipping: Option<Arc<dyn Clipping>>,
    dist: PathBuf,
    overviews: Arc<Vec<(String, PathBuf, [f32; 4])>>,
    trusted: Arc<Vec<IpAddr>>,
}

/// How often moments past their days are dropped.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// What moments give the relay: their routes, and their cutting for highlights.
pub struct MomentsStarted {
    pub routes: Router,
    pub cutting: Arc<dyn crate::seams::MomentCutting>,
}

/// The routes, when there is a store to keep moments in (else none: `/m/...` is not found).
pub fn start(start: MomentsStart, tasks: &mut JoinSet<()>) -> Option<MomentsStarted> {
    let store = start.store?;
    let moments = Moments {
        config: start.config,
        store,
        clipping: start.clipping,
        dist: start.dist,
        overviews: Arc::new(start.overviews),
        trusted: Arc::new(start.trusted),
    };
    if moments.config.moment_days > 0 {
        let sweeper = moments.clone();
        tasks.spawn(async move {
            let mut every = tokio::time::interval(SWEEP_EVERY);
            loop {
                every.tick().await;
                sweeper.sweep().await;
            }
        });
    }
    Some(MomentsStarted {
        routes: Router::from(api::api())
            .route("/m/{id}", get(page::page))
            .route("/m/{id}/embed", get(page::embed))
            .with_state(moments.clone()),
        cutting: Arc::new(moments),
    })
}

/// Highlights' clips are moments cut here, made by no client (so no visitor's hourly
/// allowance is spent on them).
pub const HIGHLIGHTS_CLIENT: &str = "highlights";

impl crate::seams::MomentCutting for Moments {
    fn cut_moment(
        &self,
        server: crate::net::ServerAddr,
        from_ms: u64,
        to_ms: u64,
    ) -> futures_util::future::BoxFuture<'static, Result<String, String>> {
        let moments = self.clone();
        Box::pin(async move {
            let clipping = moments
                .clipping
                .clone()
                .ok_or("this relay keeps no rewind window")?;
            let (from, to) = (
                protocol::relay_api::moments::MomentTime::UnixMs(from_ms),
                protocol::relay_api::moments::MomentTime::UnixMs(to_ms),
            );
            moments
                .cut(clipping, server, from, to, HIGHLIGHTS_CLIENT.to_owned())
                .await
                .map(|created| created.id)
                .map_err(|(status, why)| format!("{status}: {why}"))
        })
    }

    fn edge_us(&self, server: crate::net::ServerAddr) -> Option<u64> {
        self.clipping.as_ref()?.edge_us(server)
    }
}

impl Moments {
    /// Drops the moments older than their days.
    async fn sweep(&self) {
        let keep_ms = u64::from(self.config.moment_days) * 86_400_000;
        let before = crate::net::unix_ms().saturating_sub(keep_ms);
        let swept = self
            .store
            .run(move |store| crate::store::moments::expire(store.exec()?, before))
            .await;
        match swept {
            Ok(0) => {}
            Ok(n) => tracing::info!("moments: {n} past --moment-days dropped"),
            Err(e) => tracing::warn!("moments: sweeping: {e}"),
        }
    }
}
