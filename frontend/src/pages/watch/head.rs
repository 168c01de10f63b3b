//! The line above the map: the server, map, mode, match clock, scores, audience, delay and
//! what the hub is doing.

use leptos::prelude::*;
use protocol::relay_api::watch::{HubState, HubStatus};

use super::demo::DemoPlayer;
use super::live::Live;
use crate::parts::coloured::Coloured;

/// Seconds until the delay has filled, re-read twice a second for the countdown.
fn filling_seconds(live: StoredValue<Live, LocalStorage>) -> impl Fn() -> u32 + Copy {
    let tick = RwSignal::new(0u32);
    let ticker = set_interval_with_handle(
        move || tick.update(|t| *t = t.wrapping_add(1)),
        std::time::Duration::from_millis(500),
    );
    on_cleanup(move || {
        if let Ok(handle) = ticker {
            handle.clear();
        }
    });
    move || {
        tick.track();
        let until = live.with_value(|l| l.filling_until);
        ((until - crate::net::now_ms()) / 1000.0).ceil().max(0.0) as u32
    }
}

/// What the view is doing: the demo's decoding, the hub's state, or the relay's socket.
fn state_line(
    player: Option<DemoPlayer>,
    status: Option<&HubStatus>,
    filling_s: u32,
    connected: bool,
) -> String {
    player
        .map(|p| match (p.error.get(), p.summary.with(Option::is_some)) {
            (Some(e), _) => tr!("demo-unplayable", why = e),
            (None, true) => tr!(
                "demo-decoded",
                name = p.name.get_value(),
                ms = p.decode_ms.get_value().round()
            ),
            (None, false) => tr!("demo-decoding"),
        })
        .or_else(|| status.map(|s| state_text(s, filling_s)))
        .unwrap_or_else(|| {
            if connected {
                "…".into()
            } else {
                tr!("relay-connecting")
            }
        })
}

/// The line above the map.
#[component]
pub(super) fn WatchHead(
    live: StoredValue<Live, LocalStorage>,
    player: Option<DemoPlayer>,
) -> impl IntoView {
    let (status, shown, connected, playing) =
        live.with_value(|l| (l.status, l.shown, l.connected, l.playing));
    let filling_s = filling_seconds(live);
    move || {
        let view = shown.get();
        let status = status.get();
        let state = match playing.get() {
            // Gone back into the rewind window: the hub's state is not what is shown.
            (false, 0) => tr!("watch-paused"),
            (false, pct) => tr!("watch-rewound", speed = f64::from(pct) / 100.0),
            (true, _) => state_line(player, status.as_ref(), filling_s(), connected.get()),
        };
        let delay = status.as_ref().map_or(String::new(), |s| match s.delay_ms {
            0 => tr!("watch-no-delay"),
            ms => tr!("watch-delay", seconds = ms / 1000),
        });
        let viewers = status
            .as_ref()
            .map(|s| tr!("watch-viewers", count = s.viewers));
        let server_time = view.as_ref().map(|v| v.server_time);
        let (host, map, mode, time, scores) = match &view {
            Some(v) => (
                v.header.hostname.clone(),
                v.header.map.clone(),
                v.header.gametype.clone(),
                clock_text(v.server_time.wrapping_sub(v.header.level_start)),
                tr!("watch-scores", axis = v.axis_score, allies = v.allies_score),
            ),
            None => Default::default(),
        };
        view! {
            <div class="watch-head">
                <h2 data-testid="watch-host"><Coloured text=host /></h2>
                <span data-testid="watch-map">{map}</span>
                <span>{mode}</span>
                <span data-testid="watch-clock" data-server-time=server_time>{time}</span>
                <span data-testid="watch-scores">{scores}</span>
                <span data-testid="watch-viewers">{viewers}</span>
                <span data-testid="watch-delay">{delay}</span>
                <span class="watch-state" data-testid="watch-status">{state}</span>
            </div>
        }
    }
}

/// The hub's state in words.
fn state_text(status: &HubStatus, filling_s: u32) -> String {
    match &status.state {
        HubState::Connecting => tr!("hub-joining"),
        HubState::Active if filling_s > 0 => {
            tr!("hub-filling", seconds = filling_s)
        }
        HubState::Active => tr!("hub-live"),
        // Watch directly's worker that failed does not retry.
        HubState::Refused {
            reason,
            retry_ms: 0,
        } => tr!("hub-refused", reason = reason.as_str()),
        HubState::Refused { reason, retry_ms } => {
            tr!(
                "hub-refused-retrying",
                reason = reason.as_str(),
                seconds = retry_ms / 1000
            )
        }
        HubState::Rejoining { reason, retry_ms } => {
            tr!(
                "hub-rejoining",
                reason = reason.as_str(),
                seconds = retry_ms / 1000
            )
        }
        HubState::Closed => tr!("hub-closed"),
    }
}

/// A match clock, `m:ss`.
pub(super) fn clock_text(ms: i32) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}
