//! Rewind: the last minutes of every watched or followed match, kept per hub as keyframes a
//! few seconds apart and the updates between them (a hub tap fills each window with the bytes
//! the broadcast sent), so a viewer can go back to any moment of it. Only what left the
//! broadcast delay is ever kept, so nothing in a window is newer than the delay allows.
//! Memory is bounded twice: per hub (`--rewind-hub-mb`) and for the relay (`--rewind-total-mb`);
//! the oldest seconds go first.
//!
//! Routes: `GET /api/spectate/{addr}/rewind` (the window: its span, size and kills).
//!
//! A window lives with its hub's session on the relay holding the game slot; in a cluster,
//! a mirror has none, and a takeover starts a new window.

mod scrape;
mod tap;
mod window;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::net::ServerAddr;
use crate::seams::{Moment, Rewinding, TapMaker};
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
    /// The most one match's window may hold, in MB (a full 32-player match needs about 3 for
    /// 15 minutes); past it the oldest seconds go.
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

/// Every hub's window on this relay.
pub struct Rewinds {
    limits: Limits,
    windows: Mutex<HashMap<ServerAddr, Arc<Mutex<Window>>>>,
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

    /// The tap that gives each hub its window.
    pub fn tap(self: &Arc<Self>) -> TapMaker {
        let rewinds = self.clone();
        Arc::new(move |server| {
            let window = Arc::new(Mutex::new(Window::new(
                rewinds.limits,
                rewinds.total.clone(),
            )));
            rewinds.windows.locked().insert(server, window.clone());
            Box::new(tap::RewindTap::new(server, window, rewinds.clone()))
        })
    }

    /// A hub's window, while its hub runs here.
    pub fn window(&self, server: ServerAddr) -> Option<Arc<Mutex<Window>>> {
        self.windows.locked().get(&server).cloned()
    }

    /// Hubs keeping a window now.
    pub fn windows(&self) -> usize {
        self.windows.locked().len()
    }

    /// Every window's bytes together.
    pub fn bytes(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Forgets a hub's window, unless a newer hub for the server has replaced it.
    fn forget(&self, server: ServerAddr, window: &Arc<Mutex<Window>>) {
        let mut windows = self.windows.locked();
        if windows.get(&server).is_some_and(|w| Arc::ptr_eq(w, window)) {
            windows.remove(&server);
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

/// Starts rewinding when it is on: the tap for every hub, and the routes.
pub fn start(config: RewindConfig) -> (Option<Arc<Rewinds>>, Router) {
    let Some(limits) = config else {
        return (
            None,
            Router::new().route("/api/spectate/{addr}/rewind", get(off)),
        );
    };
    let rewinds = Rewinds::new(limits);
    let routes = Router::new()
        .route("/api/spectate/{addr}/rewind", get(summary))
        .with_state(rewinds.clone());
    (Some(rewinds), routes)
}

async fn off() -> Response {
    (
        StatusCode::NOT_FOUND,
        "this relay keeps no rewind window (--rewind-minutes 0)",
    )
        .into_response()
}

/// `GET /api/spectate/{addr}/rewind`: the window's span, size and kills.
async fn summary(State(rewinds): State<Arc<Rewinds>>, Path(addr): Path<String>) -> Response {
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
