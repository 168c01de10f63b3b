//! Rewind: the last minutes of every watched or followed match, kept per hub as keyframes a
//! few seconds apart and the updates between them (a hub tap fills each window with the bytes
//! the broadcast sent), so a viewer can go back to any moment of it. Only what left the
//! broadcast delay is ever kept, so nothing in a window is newer than the delay allows.
//! Memory is bounded twice: per hub (`--rewind-hub-mb`) and for the relay (`--rewind-total-mb`);
//! the oldest seconds go first.
//!
//! Routes: `GET /api/spectate/{addr}/rewind` (the window: its span, size and kills).
//!
//! In a cluster every relay keeps the window of each hub its viewers watch: the one holding the
//! game slot from its session, the mirrors from the frames they forward (no traffic beyond
//! what viewers already cost), so a viewer rewinds through its own relay, and a relay that
//! takes the slot over keeps the window it mirrored.

mod reel;
mod scrape;
mod tap;
mod window;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::tag;
use crate::net::ServerAddr;
use protocol::relay_api::moments::{MomentTime, MAX_SPAN_S};

use crate::seams::{Clip, ClipRefused, Clipping, Moment, Rewinding, TapMaker};
use crate::sync::Locked;

pub use window::{Limits, Step, Window};

/// How far apart a window's keyframes are: a seek is one keyframe and at most this much of
/// updates after it (GOTV's fragments are 3 s; a CoD keyframe is a few KB, so fewer of them).
pub const KEYFRAME_EVERY: Duration = Duration::from_secs(5);

/// The rewind settings for `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct RewindArgs {
    /// Minutes of each watched or followed match kept for viewers to go back into; 0 keeps
    /// none.
    #[arg(long = "rewind-minutes", default_value_t = 15, value_name = "MINUTES")]
    pub rewind_minutes: u32,
    /// The most one match's window and reel may hold together, in MB (a full 32-player match
    /// needs about 7 for 15 minutes: 3 of window, 4 of reel); past it the oldest seconds go.
    #[arg(long = "rewind-hub-mb", default_value_t = 16, value_name = "MB")]
    pub rewind_hub_mb: u32,
    /// The most every window of this relay may hold together, in MB; past it each window
    /// that grows drops its oldest seconds.
    #[arg(long = "rewind-total-mb", default_value_t = 256, value_name = "MB")]
    pub rewind_total_mb: u32,
}

impl Default for RewindArgs {
    fn default() -> Self {
        Self {
            rewind_minutes: 15,
            rewind_hub_mb: 16,
            rewind_total_mb: 256,
        }
    }
}

impl RewindArgs {
    /// The windows' limits, or `None` when rewinding is off.
    pub fn config(&self) -> RewindConfig {
        (self.rewind_minutes > 0).then(|| Limits {
            span_us: u64::from(self.rewind_minutes) * 60_000_000,
            keyframe_every_us: KEYFRAME_EVERY.as_micros() as u64,
            hub_bytes: self.rewind_hub_mb as usize * 1_000_000,
            total_bytes: self.rewind_total_mb as usize * 1_000_000,
        })
    }
}

/// Rewinding's limits; `None`: off.
pub type RewindConfig = Option<Limits>;

/// How long a window outlives its last tap: a cluster's hub that moves between holding the
/// slot and mirroring (a takeover) keeps its window across the move.
const ORPHAN_GRACE: Duration = Duration::from_secs(10);

/// A hub's window and reel, the taps filling them, and since when none has.
struct Held {
    window: Arc<Mutex<Window>>,
    reel: Arc<Mutex<reel::Kept>>,
    taps: usize,
    orphaned: Option<Instant>,
}

/// Every hub's window on this relay.
pub struct Rewinds {
    limits: Limits,
    windows: Mutex<HashMap<ServerAddr, Held>>,
    /// Every window's bytes together.
    total: Arc<AtomicUsize>,
}

impl Rewinds {
    pub fn new(limits: Limits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            windows: Mutex::new(HashMap::new()),
            total: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The tap that gives each hub its window: the server's window if one is held (a hub
    /// that went from mirroring to holding the slot, or back), else a new one.
    pub fn tap(self: &Arc<Self>) -> TapMaker {
        let rewinds = self.clone();
        Arc::new(move |server| {
            let (window, reel) = {
                let mut windows = rewinds.held();
                let held = windows.entry(server).or_insert_with(|| {
                    let budget = window::Budget::of_hub(rewinds.total.clone());
                    Held {
                        window: Arc::new(Mutex::new(Window::new(rewinds.limits, budget.clone()))),
                        reel: Arc::new(Mutex::new(reel::Kept::new(
                            rewinds.limits,
                            KEYFRAME_EVERY.as_millis() as i32,
                            budget,
                        ))),
                        taps: 0,
                        orphaned: None,
                    }
                });
                held.taps += 1;
                held.orphaned = None;
                (held.window.clone(), held.reel.clone())
            };
            Box::new(tap::RewindTap::new(server, window, reel, rewinds.clone()))
        })
    }

    /// The windows, without those whose hub left here more than [`ORPHAN_GRACE`] ago.
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<ServerAddr, Held>> {
        let mut windows = self.windows.locked();
        windows.retain(|_, h| h.orphaned.is_none_or(|at| at.elapsed() < ORPHAN_GRACE));
        windows
    }

    /// A hub's window, while its hub runs here (or has just moved). Read on every rewound
    /// viewer's tick, so it only looks: the sweep is [`Rewinds::held`]'s.
    pub fn window(&self, server: ServerAddr) -> Option<Arc<Mutex<Window>>> {
        self.looked_up(server, |held| held.window.clone())
    }

    fn reel(&self, server: ServerAddr) -> Option<Arc<Mutex<reel::Kept>>> {
        self.looked_up(server, |held| held.reel.clone())
    }

    /// Part of a server's `Held`, if its hub runs here or has just moved.
    fn looked_up<T>(&self, server: ServerAddr, part: impl Fn(&Held) -> T) -> Option<T> {
        let windows = self.windows.locked();
        let held = windows.get(&server)?;
        let fresh = held.orphaned.is_none_or(|at| at.elapsed() < ORPHAN_GRACE);
        fresh.then(|| part(held))
    }

    /// Hubs keeping a window now.
    pub fn windows(&self) -> usize {
        self.held().len()
    }

    /// Every window's bytes together.
    pub fn bytes(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// A tap of the server's window is gone; with the last, the window is kept for
    /// [`ORPHAN_GRACE`] in case the hub comes back (a cluster's takeover), then forgotten.
    fn forget(&self, server: ServerAddr) {
        let mut windows = self.windows.locked();
        if let Some(held) = windows.get_mut(&server) {
            held.taps = held.taps.saturating_sub(1);
            if held.taps == 0 {
                held.orphaned = Some(Instant::now());
            }
        }
    }
}

impl Rewinding for Rewinds {
    fn seek(&self, server: ServerAddr, relay_us: u64) -> Option<Moment> {
        self.window(server)?.locked().seek(relay_us)
    }

    fn play(&self, server: ServerAddr, seq: u64, until_us: u64, max: usize) -> Option<Moment> {
        self.window(server)?.locked().after(seq, until_us, max)
    }
}

impl Clipping for Rewinds {
    fn edge_us(&self, server: ServerAddr) -> Option<u64> {
        Some(self.window(server)?.locked().end()?.relay_us)
    }

    fn clip(
        &self,
        server: ServerAddr,
        from: MomentTime,
        to: MomentTime,
    ) -> Result<Clip, ClipRefused> {
        let window = self.window(server).ok_or(ClipRefused::NoWindow)?;
        let reel = self.reel(server).ok_or(ClipRefused::NoWindow)?;
        let (from_us, to_us, from_time, to_time, kills) = {
            let window = window.locked();
            let edge = window.end().ok_or(ClipRefused::NoWindow)?;
            let edge_us = edge.relay_us;
            // Never past the live edge: the broadcast delay holds for clips too.
            let from_us = from.unix_us(edge_us).min(edge_us);
            let to_us = to.unix_us(edge_us).min(edge_us);
            if to_us <= from_us {
                return Err(ClipRefused::Span(
                    "the span ends before it starts (or both ends are past the live edge)".into(),
                ));
            }
            if to_us - from_us > (MAX_SPAN_S * 1e6) as u64 {
                return Err(ClipRefused::Span(format!(
                    "a moment is at most {MAX_SPAN_S} seconds"
                )));
            }
            let time = |us| window.server_time_at(us).ok_or(ClipRefused::NoWindow);
            let kills = window.kills_between(from_us, to_us);
            (from_us, to_us, time(from_us)?, time(to_us)?, kills)
        };
        let kept = reel.locked();
        if kept.reel.span().is_none() {
            return Err(ClipRefused::Mirrored);
        }
        let cut = kept
            .reel
            .cut(from_time, to_time)
            .map_err(|e| ClipRefused::Outside(e.to_string()))?;
        Ok(Clip {
            demo: cut.demo,
            from_us,
            to_us,
            first_server_time: cut.first_server_time,
            last_server_time: cut.last_server_time,
            snapshots: cut.snapshots,
            kills,
        })
    }
}

/// Starts rewinding when it is on: the tap for every hub, and the routes.
pub fn start(config: RewindConfig) -> (Option<Arc<Rewinds>>, Router) {
    let rewinds = config.map(Rewinds::new);
    let routes = Router::from(api()).with_state(rewinds.clone());
    (rewinds, routes)
}

fn api() -> OpenApiRouter<Option<Arc<Rewinds>>> {
    OpenApiRouter::new().routes(routes!(summary))
}

/// The rewind windows' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// A watched server's rewind window: its span, size and kills.
#[utoipa::path(get, path = "/api/spectate/{addr}/rewind", tag = tag::SPECTATE,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    responses(
        (status = 200, description = "The window", body = RewindWindow),
        (status = 400, description = "Not an IPv4 address and port", body = ApiError),
        (status = 404, description = "No window for this server here, or this relay keeps none", body = ApiError),
    ))]
async fn summary(
    State(rewinds): State<Option<Arc<Rewinds>>>,
    Path(addr): Path<String>,
) -> Response {
    let Some(rewinds) = rewinds else {
        return (
            StatusCode::NOT_FOUND,
            "this relay keeps no rewind window (--rewind-minutes 0)",
        )
            .into_response();
    };
    let Ok(server) = addr.parse::<ServerAddr>() else {
        return (StatusCode::BAD_REQUEST, "not an IPv4 address and port").into_response();
    };
    let summary = rewinds.window(server).and_then(|w| w.locked().summary());
    match summary {
        Some(summary) => Json(summary).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            "no rewind window for this server: no hub here has shown it yet",
        )
            .into_response(),
    }
}
