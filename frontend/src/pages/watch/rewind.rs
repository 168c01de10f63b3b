//! Going back in a live match: the relay keeps the last minutes of each hub's match (its
//! rewind window); this bar pauses, jumps back 10 s, plays at 0.5x, 1x or 2x, scrubs over the
//! window with its kills marked, and comes back to live. Each viewer's place is its own: the
//! relay paces the window's frames to this socket only.

use std::time::Duration;

use leptos::prelude::*;
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::watch::ViewerMessage;

use super::head::clock_text;
use super::live::Live;
use crate::net::{fetch_text, from_json, sleep};

/// How often the window's span and kills are fetched again.
const WINDOW_EVERY: Duration = Duration::from_secs(2);
/// How far "back" goes, and how long before a kill "replay" starts.
const BACK_US: u64 = 10_000_000;
pub(super) const KILL_LEAD_US: u64 = 3_000_000;
const SPEEDS: [u16; 3] = [50, 100, 200];

/// The window as last fetched, and the view's socket to ask through.
#[derive(Clone, Copy)]
pub(super) struct Rewinder {
    pub(super) window: RwSignal<Option<RewindWindow>>,
    live: StoredValue<Live, LocalStorage>,
    server: StoredValue<String>,
}

impl Rewinder {
    /// Fetches `addr`'s window while the view is `open`.
    pub(super) fn start(
        addr: String,
        live: StoredValue<Live, LocalStorage>,
        open: StoredValue<bool>,
    ) -> Self {
        let rewinder = Self {
            window: RwSignal::new(None),
            live,
            server: StoredValue::new(addr.clone()),
        };
        leptos::task::spawn_local(async move {
            let url = format!("/api/spectate/{addr}/rewind");
            while open.try_get_value().unwrap_or(false) {
                let window = fetch_text(&url).await.and_then(|t| from_json(&t));
                rewinder.window.set(window);
                sleep(WINDOW_EVERY).await;
            }
        });
        rewinder
    }

    fn playing(&self) -> (bool, u16) {
        self.live.with_value(|l| l.playing.get())
    }

    /// Where the view is in the relay's clock (µs since the Unix epoch).
    pub(super) fn at_us(&self) -> u64 {
        self.live.with_value(|l| l.shown_us.get())
    }

    /// The server watched.
    pub(super) fn server(&self) -> String {
        self.server.get_value()
    }

    /// Shows the match from `relay_us` at `speed_pct` (0: paused there).
    pub(super) fn seek(&self, relay_us: u64, speed_pct: u16) {
        self.live.with_value(|l| {
            l.say(ViewerMessage::Seek {
                relay_us,
                speed_pct,
            })
        });
    }

    fn live(&self) {
        self.live.with_value(|l| l.say(ViewerMessage::Live));
    }

    /// Pauses where the view is, or plays on from there.
    fn toggle(&self) {
        let (live, speed) = self.live.with_value(|l| l.playing.get_untracked());
        let at = self.live.with_value(|l| l.shown_us.get_untracked());
        match (live, speed) {
            (_, 0) => self.seek(at, 100),
            _ => self.seek(at, 0),
        }
    }

    /// When the kill at `server_time` reached the relay, if the window still holds it.
    pub(super) fn kill_moment(&self, server_time: i32) -> Option<u64> {
        self.window.with_untracked(|w| {
            w.as_ref()?
                .kills
                .iter()
                .find(|k| k.server_time == server_time)
                .map(|k| k.relay_us)
        })
    }
}

/// Where `at_us` lies in the window, 0 to 1000.
fn permille(window: &RewindWindow, at_us: u64) -> u64 {
    let span = window.end_us.saturating_sub(window.start_us).max(1);
    at_us
        .clamp(window.start_us, window.end_us)
        .saturating_sub(window.start_us)
        * 1000
        / span
}

/// The bar under the map of a match watched through the relay's hub.
#[component]
pub(super) fn RewindBar(rewinder: Rewinder) -> impl IntoView {
    let held = move || rewinder.window.with(Option::is_some);
    let behind = move || {
        let (live, _) = rewinder.playing();
        let end = rewinder.window.with(|w| w.as_ref().map_or(0, |w| w.end_us));
        if live {
            tr!("rewind-live-now")
        } else {
            let ms = end.saturating_sub(rewinder.at_us()) / 1000;
            format!("−{}", clock_text(ms as i32))
        }
    };
    let on_scrub = move |ev: leptos::ev::Event| {
        let Ok(permille) = event_target_value(&ev).parse::<u64>() else {
            return;
        };
        let Some((start, end)) = rewinder
            .window
            .with_untracked(|w| w.as_ref().map(|w| (w.start_us, w.end_us)))
        else {
            return;
        };
        let (_, speed) = rewinder.playing();
        rewinder.seek(start + (end - start) * permille / 1000, speed);
    };
    let back = move |_| {
        let (_, speed) = rewinder.playing();
        let at = rewinder.at_us().saturating_sub(BACK_US);
        rewinder.seek(at, speed.max(100));
    };
    let speeds = SPEEDS
        .iter()
        .map(|&pct| {
            let label = format!("{}x", f64::from(pct) / 100.0);
            view! {
                <button
                    type="button"
                    data-testid="rewind-speed"
                    data-speed=pct
                    class:current=move || rewinder.playing() == (false, pct)
                    on:click=move |_| rewinder.seek(rewinder.at_us(), pct)
                >
                    {label}
                </button>
            }
        })
        .collect_view();
    // The window's kills as marks on the bar, where each happened.
    let marks = move || {
        rewinder.window.with(|w| {
            w.as_ref().map_or_else(Vec::new, |w| {
                w.kills
                    .iter()
                    .map(|k| {
                        let left = format!("left: {:.1}%", permille(w, k.relay_us) as f64 / 10.0);
                        view! { <i class="rewind-kill" style=left></i> }
                    })
                    .collect()
            })
        })
    };
    view! {
        <div class="demo-bar rewind-bar" data-testid="rewind-bar" class:held=held>
            <button type="button" data-testid="rewind-play" on:click=move |_| rewinder.toggle()>
                {move || if rewinder.playing().1 == 0 { tr!("play") } else { tr!("pause") }}
            </button>
            <button type="button" data-testid="rewind-back" on:click=back>{tr!("rewind-back-10")}</button>
            <span class="rewind-track">
                <input
                    type="range"
                    min="0"
                    max="1000"
                    step="1"
                    prop:value=move || rewinder.window.with(|w| {
                        w.as_ref().map_or(1000, |w| permille(w, rewinder.at_us())).to_string()
                    })
                    on:change=on_scrub
                    data-testid="rewind-seek"
                    aria-label=tr!("rewind-position")
                />
                <span class="rewind-marks" aria-hidden="true">{marks}</span>
            </span>
            <span data-testid="rewind-behind">{behind}</span>
            <span class="demo-speeds">{speeds}</span>
            <button
                type="button"
                data-testid="rewind-live"
                class:current=move || rewinder.playing().0
                on:click=move |_| rewinder.live()
            >
                {tr!("rewind-live")}
            </button>
        </div>
        <super::share::Share rewinder=rewinder />
    }
}
