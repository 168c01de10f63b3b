//! A demo in the watch view (the demo player's page is `pages/playback.rs`): decoded in the
//! session worker by `protocol` and drawn by the watch view, with a timeline: play and pause,
//! 0.25x to 8x, seeking, and the kill list to jump to a kill. Also the operator's Record button
//! for a hub.

use leptos::prelude::*;
use protocol::cod::watch::timeline::DemoSummary;
use session::demo::{DemoSource, SPEEDS};
use session::{Reply, Request};

use super::head::clock_text;
use super::live::Live;
use crate::worker::SessionWorker;

/// How long before a kill the kill list jumps to, so the kill is seen happening.
const KILL_LEAD_MS: u32 = 3000;
/// Where the operator's token is kept in this browser.
const TOKEN_KEY: &str = "muster.operator-token";

/// A playing demo, as the page sees it.
#[derive(Clone, Copy)]
pub struct DemoPlayer {
    pub name: StoredValue<String>,
    pub summary: RwSignal<Option<DemoSummary>>,
    pub error: RwSignal<Option<String>>,
    /// How long the worker took to decode the whole file.
    pub decode_ms: StoredValue<f64>,
    at_ms: RwSignal<u32>,
    playing: RwSignal<bool>,
    speed: RwSignal<f64>,
    worker: StoredValue<Option<SessionWorker>, LocalStorage>,
    live: StoredValue<Live, LocalStorage>,
}

impl DemoPlayer {
    /// Starts the worker on `source`; it plays from the start once decoded, or from 3 s before
    /// the kill at server time `from_kill`; `looped`, it starts again at its end (a moment).
    pub fn start(
        source: DemoSource,
        live: StoredValue<Live, LocalStorage>,
        from_kill: Option<i32>,
        looped: bool,
    ) -> Self {
        let player = Self {
            name: StoredValue::new(source.name().to_owned()),
            summary: RwSignal::new(None),
            error: RwSignal::new(None),
            decode_ms: StoredValue::new(0.0),
            at_ms: RwSignal::new(0),
            playing: RwSignal::new(false),
            speed: RwSignal::new(1.0),
            worker: StoredValue::new_local(None),
            live,
        };
        let started =
            SessionWorker::start(&Request::Demo(source), move |reply: Reply| match reply {
                Reply::DemoOpened { summary, decode_ms } => {
                    player.decode_ms.set_value(decode_ms);
                    let start = from_kill.map(|t| kill_moment(&summary, t));
                    player.summary.set(Some(*summary));
                    if let Some(at_ms) = start {
                        player.seek(at_ms);
                    }
                    player.control(true, 1.0);
                }
                Reply::DemoFailed(e) | Reply::Failed(e) => player.error.set(Some(e)),
                Reply::DemoAt { at_ms, playing } => {
                    let end = player
                        .summary
                        .with_untracked(|s| s.as_ref().map(|s| s.duration_ms));
                    if looped && !playing && end.is_some_and(|end| end > 0 && at_ms >= end) {
                        player.seek(0);
                        player.control(true, player.speed.get_untracked());
                    }
                    player.at_ms.set(at_ms);
                    player.playing.set(playing);
                    // Paused (after a seek, say), the tables show the latest view at once.
                    if !playing {
                        live.update_value(|l| l.show_now());
                    }
                }
                Reply::Watch(message) => live.update_value(|l| l.take(message)),
                _ => {}
            });
        match started {
            Ok(worker) => player.worker.set_value(Some(worker)),
            Err(e) => player.error.set(Some(e)),
        }
        player
    }

    fn send(&self, request: &Request) {
        self.worker.with_value(|w| {
            if let Some(w) = w {
                w.send(request);
            }
        });
    }

    fn control(&self, playing: bool, speed: f64) {
        self.speed.set(speed);
        self.live.update_value(|l| l.clock.set_rate(speed));
        self.send(&Request::DemoControl { playing, speed });
    }

    fn seek(&self, at_ms: u32) {
        self.send(&Request::DemoSeek { at_ms });
    }

    /// Closes the worker with the view.
    pub fn stop(&self) {
        self.send(&Request::Stop);
    }
}

/// The demo time to start at for the kill at `server_time`: the kill's own moment where the
/// demo holds it, else that server time's place after the demo's first snapshot; 3 s before.
fn kill_moment(summary: &DemoSummary, server_time: i32) -> u32 {
    let at = summary
        .kills
        .iter()
        .find(|k| k.server_time == server_time)
        .map_or_else(
            || {
                let since = i64::from(server_time) - i64::from(summary.first_server_time);
                since.clamp(0, i64::from(summary.duration_ms)) as u32
            },
            |k| k.at_ms,
        );
    at.saturating_sub(KILL_LEAD_MS)
}

/// The timeline under the map.
#[component]
pub fn DemoBar(player: DemoPlayer) -> impl IntoView {
    let duration = move || {
        player
            .summary
            .with(|s| s.as_ref().map_or(0, |s| s.duration_ms))
    };
    let toggle = move |_| {
        player.control(
            !player.playing.get_untracked(),
            player.speed.get_untracked(),
        )
    };
    let on_seek = move |ev: leptos::ev::Event| {
        if let Ok(at) = event_target_value(&ev).parse::<u32>() {
            player.seek(at);
        }
    };
    let speeds = SPEEDS
        .iter()
        .map(|&speed| {
            let label = format!("{speed}x");
            view! {
                <button
                    type="button"
                    data-testid="demo-speed"
                    data-speed=speed
                    class:current=move || player.speed.get() == speed
                    on:click=move |_| player.control(player.playing.get_untracked(), speed)
                >
                    {label}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="demo-bar" data-testid="demo-bar">
            <button type="button" data-testid="demo-play" on:click=toggle>
                {move || if player.playing.get() { tr!("pause") } else { tr!("play") }}
            </button>
            <input
                type="range"
                min="0"
                max=move || duration().to_string()
                step="1"
                prop:value=move || player.at_ms.get().to_string()
                on:input=on_seek
                data-testid="demo-seek"
                aria-label=tr!("demo-position")
            />
            <span data-testid="demo-time" data-at=move || player.at_ms.get()>
                {move || format!(
                    "{} / {}",
                    clock_text(player.at_ms.get() as i32),
                    clock_text(duration() as i32)
                )}
            </span>
            <span class="demo-speeds">{speeds}</span>
        </div>
    }
}

/// Every kill in the demo; a click jumps to just before it.
#[component]
pub fn DemoKills(player: DemoPlayer) -> impl IntoView {
    let kills = move || {
        player
            .summary
            .with(|s| s.as_ref().map(|s| s.kills.clone()).unwrap_or_default())
    };
    view! {
        <section class="demo-kills" aria-label=tr!("demo-kills")>
            <h3>{tr!("demo-all-kills")}</h3>
            <ol>
                {move || kills().into_iter().map(|k| {
                    let at = k.at_ms;
                    let text = format!(
                        "{} {} [{}] {}",
                        clock_text(at as i32),
                        k.attacker.as_deref().map_or_else(|| tr!("the-world"), protocol::cod::text::strip),
                        k.weapon.trim_end_matches("_mp").trim_start_matches("MOD_").to_lowercase(),
                        protocol::cod::text::strip(&k.victim),
                    );
                    view! {
                        <li>
                            <button
                                type="button"
                                data-testid="demo-kill"
                                data-at=at
                                on:click=move |_| {
                                    player.seek(at.saturating_sub(KILL_LEAD_MS));
                                    player.control(true, player.speed.get_untracked());
                                }
                            >
                                {text}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ol>
        </section>
    }
}

fn stored_token() -> Option<String> {
    let storage = window().local_storage().ok().flatten()?;
    storage
        .get_item(TOKEN_KEY)
        .ok()
        .flatten()
        .filter(|t| !t.is_empty())
}

fn forget_token() {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = storage.remove_item(TOKEN_KEY);
    }
}

/// The operator's token, asked for once and kept in this browser.
fn operator_token() -> Option<String> {
    stored_token().or_else(|| {
        let token = window()
            .prompt_with_message(&tr!("operator-token-prompt"))
            .ok()
            .flatten()
            .filter(|t| !t.is_empty())?;
        if let Some(storage) = window().local_storage().ok().flatten() {
            let _ = storage.set_item(TOKEN_KEY, &token);
        }
        Some(token)
    })
}

/// Record and stop for a hub, shown when the relay records (`--record-dir`).
#[component]
pub fn RecordButton(
    addr: String,
    status: RwSignal<Option<protocol::relay_api::watch::HubStatus>>,
) -> impl IntoView {
    let answer = RwSignal::new(None::<String>);
    let worker = StoredValue::new_local(None::<SessionWorker>);
    let recording = move || status.with(|s| s.as_ref().and_then(|s| s.recording.clone()));
    let click = move |_| {
        let Some(token) = operator_token() else {
            return;
        };
        let request = Request::Record {
            addr: addr.clone(),
            on: recording().is_none(),
            token,
        };
        let started = SessionWorker::start(&request, move |reply: Reply| match reply {
            Reply::Recorded(result) => {
                if matches!(&result, Err(e) if e.starts_with("401")) {
                    forget_token();
                }
                answer.set(result.err());
            }
            Reply::Failed(e) => answer.set(Some(e)),
            _ => {}
        });
        worker.set_value(started.ok());
    };
    let shown = move || status.with(|s| s.as_ref().is_some_and(|s| s.recordable));
    view! {
        <Show when=shown>
            <button type="button" data-testid="record" on:click=click.clone()>
                {move || if recording().is_some() { tr!("record-stop") } else { tr!("record") }}
            </button>
            <span class="record-state" data-testid="record-state">
                {move || match (recording(), answer.get(), status.with(|s| s.as_ref().and_then(|s| s.record_stopped.clone()))) {
                    (_, Some(e), _) => e,
                    (Some(r), None, _) => format!("● {} ({})", r.file, tr!("kilobytes", kb = r.bytes.div_ceil(1000))),
                    (None, None, Some(why)) => tr!("record-stopped", why = why),
                    (None, None, None) => String::new(),
                }}
            </span>
        </Show>
    }
}
