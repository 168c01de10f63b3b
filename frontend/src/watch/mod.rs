//! The watch view (`/watch/#/watch/ADDR`, its own page and wasm): a live top-down map of a match from the relay's spectator
//! hub, beside the scoreboard by team, the kill feed, chat, and the hub's delay and audience.

mod demo;
mod direct;
mod map;
mod socket;

pub use demo::Playback;

use leptos::prelude::*;
use protocol::cod::text::strip;
use protocol::relay_api::watch::{
    FeedItem, HubState, HubStatus, MatchView, Overview, Team, WatchPlayer,
};
use protocol::watching::{Bounds, RenderClock, Tracks};

use crate::coloured::Coloured;
use crate::header::{Page, PageHeader};

/// What the socket, the map and the tables share.
pub struct Live {
    view: Option<MatchView>,
    seq: u64,
    tracks: Tracks,
    clock: RenderClock,
    /// What the map frames: every sighting on this map so far.
    bounds: Option<Bounds>,
    framed_map: String,
    zoom: f32,
    /// The zoom, for the page (and its tests) to read.
    zoomed: RwSignal<f32>,
    pan: (f32, f32),
    /// The player followed and highlighted (a click on the map or the scoreboard).
    selected: RwSignal<Option<u8>>,
    overview: Option<(Overview, web_sys::HtmlImageElement)>,
    drag: Option<(f32, f32, bool)>,
    /// The fingers on the map (pointer id and where), and the distance between the first two
    /// when there are two: a pinch zooms about their midpoint.
    touches: Vec<(i32, f32, f32)>,
    pinch: Option<f32>,
    /// Local time the delay finishes filling.
    filling_until: f64,
    shown_at: f64,
    connected: RwSignal<bool>,
    status: RwSignal<Option<HubStatus>>,
    /// The view the tables show, refreshed a few times a second.
    shown: RwSignal<Option<MatchView>>,
}

/// Zooms the map by `factor` about the point (`x`, `y`) of a `w` x `h` canvas: the point
/// under the cursor or between the fingers stays put.
fn zoom_about(l: &mut Live, w: f32, h: f32, x: f32, y: f32, factor: f32) {
    let zoom = (l.zoom * factor).clamp(0.25, 40.0);
    let ratio = zoom / l.zoom;
    let (cx, cy) = (w / 2.0 + l.pan.0, h / 2.0 + l.pan.1);
    l.pan.0 += (x - cx) * (1.0 - ratio);
    l.pan.1 += (y - cy) * (1.0 - ratio);
    l.zoom = zoom;
    l.zoomed.set(zoom);
}

/// The distance between the first two fingers.
fn spread(touches: &[(i32, f32, f32)]) -> f32 {
    match touches {
        [(_, ax, ay), (_, bx, by), ..] => (ax - bx).hypot(ay - by),
        _ => 0.0,
    }
}

/// The point between the first two fingers.
fn midpoint(touches: &[(i32, f32, f32)]) -> (f32, f32) {
    match touches {
        [(_, ax, ay), (_, bx, by), ..] => ((ax + bx) / 2.0, (ay + by) / 2.0),
        _ => (0.0, 0.0),
    }
}

impl Live {
    fn new() -> Self {
        Self {
            view: None,
            seq: 0,
            tracks: Tracks::default(),
            clock: RenderClock::default(),
            bounds: None,
            framed_map: String::new(),
            zoom: 1.0,
            zoomed: RwSignal::new(1.0),
            pan: (0.0, 0.0),
            selected: RwSignal::new(None),
            overview: None,
            drag: None,
            touches: Vec::new(),
            pinch: None,
            filling_until: 0.0,
            shown_at: 0.0,
            connected: RwSignal::new(false),
            status: RwSignal::new(None),
            shown: RwSignal::new(None),
        }
    }

    /// Loads the operator's overview image for the current map, once.
    fn load_overview(&mut self) {
        let map = self.framed_map.clone();
        let wanted = self.status.with_untracked(|s| {
            s.as_ref()
                .and_then(|s| s.overviews.iter().find(|o| o.map == map).cloned())
        });
        let current = self.overview.as_ref().map(|(o, _)| o.map.clone());
        match wanted {
            Some(o) if current.as_deref() != Some(&o.map) => {
                if let Ok(image) = web_sys::HtmlImageElement::new() {
                    image.set_src(&o.url);
                    self.overview = Some((o, image));
                }
            }
            None => self.overview = None,
            _ => {}
        }
    }
}

/// The address a location names, and whether the page is to spectate it itself:
/// `#/watch/ADDR` or `/watch/ADDR` through the relay's hub, `#/watch-direct/ADDR` directly.
/// The browser's page sends either hash to the watch page (`/watch/` + the hash).
pub fn watched_in_location() -> Option<(String, bool)> {
    let location = window().location();
    let hash = location.hash().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    let (addr, direct) = match hash.strip_prefix("#/watch-direct/") {
        Some(addr) => (Some(addr), true),
        None => (
            hash.strip_prefix("#/watch/")
                .or_else(|| path.strip_prefix("/watch/")),
            false,
        ),
    };
    addr.filter(|a| !a.is_empty())
        .map(|a| (a.to_owned(), direct))
}

fn frame_loop(
    live: StoredValue<Live, LocalStorage>,
    canvas: NodeRef<leptos::html::Canvas>,
    open: StoredValue<bool>,
) {
    request_animation_frame(move || {
        if !open.try_get_value().unwrap_or(false) {
            return;
        }
        if let Some(canvas) = canvas.get_untracked() {
            let now = crate::net::now_ms();
            live.update_value(|l| {
                l.load_overview();
                map::draw(l, &canvas, now);
            });
        }
        frame_loop(live, canvas, open);
    });
}

fn state_text(status: &HubStatus, filling_s: u32) -> String {
    match &status.state {
        HubState::Connecting => "joining the server…".into(),
        HubState::Active if filling_s > 0 => {
            format!("delay filling: first picture in {filling_s} s")
        }
        HubState::Active => "live".into(),
        HubState::Refused { reason, retry_ms } => {
            format!("refused: {reason} (retrying in {} s)", retry_ms / 1000)
        }
        HubState::Rejoining { reason, retry_ms } => {
            format!(
                "lost the server: {reason} (rejoining in {} s)",
                retry_ms / 1000
            )
        }
        HubState::Closed => "closed".into(),
    }
}

fn clock_text(ms: i32) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The watch page (`/watch/`): the header and the match the location names.
#[component]
pub fn WatchPage() -> impl IntoView {
    let watched = RwSignal::new(watched_in_location());
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        watched.set(watched_in_location())
    });
    on_cleanup(move || on_hash.remove());
    view! {
        <PageHeader subtitle="Call of Duty: United Offensive 1.51 matches" current=Page::Watch />
        {move || match watched.get() {
            Some((addr, direct)) => view! { <Watch addr=addr direct=direct /> }.into_any(),
            None => view! {
                <main class="single">
                    <p class="hint">"No match named: open a server in the "<a href="/">"list"</a>" and press Watch."</p>
                </main>
            }.into_any(),
        }}
    }
}

/// The watch view of a server through the relay's hub, or `direct`ly with the page's own
/// session, or of a `demo`.
#[component]
pub fn Watch(
    addr: String,
    direct: bool,
    #[prop(optional)] demo: Option<session::demo::DemoSource>,
) -> impl IntoView {
    let live = StoredValue::new_local(Live::new());
    let open = StoredValue::new(true);
    on_cleanup(move || open.set_value(false));
    let player = demo.map(|source| demo::DemoPlayer::start(source, live));
    // Watch directly's worker, and whether it has left its server.
    let worker = StoredValue::new_local(None::<crate::worker::SessionWorker>);
    let left = RwSignal::new(false);
    if let Some(player) = player {
        on_cleanup(move || player.stop());
    } else if direct {
        // The worker lives as long as the view and is told to leave when it closes.
        match direct::follow(&addr, live, left) {
            Ok(started) => {
                worker.set_value(Some(started));
                on_cleanup(move || {
                    worker.try_with_value(|w| w.as_ref().map(|w| w.send(&session::Request::Stop)));
                });
            }
            Err(e) => leptos::logging::warn!("{e}"),
        }
    } else {
        socket::follow(addr.clone(), live, open);
    }
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |started: Option<bool>| {
        if started != Some(true) && canvas.get().is_some() {
            frame_loop(live, canvas, open);
            return true;
        }
        started.unwrap_or(false)
    });
    let (status, shown, connected) = live.with_value(|l| (l.status, l.shown, l.connected));
    let selected = live.with_value(|l| l.selected);
    // A second tick for the countdown while the delay fills.
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
    let filling_s = move || {
        tick.track();
        let until = live.with_value(|l| l.filling_until);
        ((until - crate::net::now_ms()) / 1000.0).ceil().max(0.0) as u32
    };
    let header = move || {
        let view = shown.get();
        let status = status.get();
        let state = player
            .map(|p| match (p.error.get(), p.summary.with(Option::is_some)) {
                (Some(e), _) => format!("the demo could not be played: {e}"),
                (None, true) => format!(
                    "demo {} (decoded in {:.0} ms)",
                    p.name.get_value(),
                    p.decode_ms.get_value()
                ),
                (None, false) => "decoding the demo…".into(),
            })
            .or_else(|| status.as_ref().map(|s| state_text(s, filling_s())))
            .unwrap_or_else(|| {
                if connected.get() {
                    "…"
                } else {
                    "connecting to the relay…"
                }
                .into()
            });
        let delay = status.as_ref().map_or(String::new(), |s| match s.delay_ms {
            0 => "no delay".into(),
            ms => format!("delay {} s", ms / 1000),
        });
        let viewers = status.as_ref().map(|s| format!("{} watching", s.viewers));
        let server_time = view.as_ref().map(|v| v.server_time);
        let (host, map, mode, time, scores) = match &view {
            Some(v) => (
                v.header.hostname.clone(),
                v.header.map.clone(),
                v.header.gametype.clone(),
                clock_text(v.server_time.wrapping_sub(v.header.level_start)),
                format!("Axis {} : {} Allies", v.axis_score, v.allies_score),
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
    };
    let size = move || {
        canvas
            .get_untracked()
            .map(|c| (c.client_width() as f32, c.client_height() as f32))
    };
    // One pointer drags (or clicks, picking a player); two fingers pinch.
    let on_down = move |ev: leptos::ev::PointerEvent| {
        let (x, y) = (ev.offset_x() as f32, ev.offset_y() as f32);
        if let Some(canvas) = canvas.get_untracked() {
            let _ = canvas.set_pointer_capture(ev.pointer_id());
        }
        live.update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            l.touches.push((ev.pointer_id(), x, y));
            if l.touches.len() == 2 {
                l.pinch = Some(spread(&l.touches));
                // A pinch is never a click.
                l.drag = Some((x, y, true));
            } else if l.touches.len() == 1 {
                l.drag = Some((x, y, false));
            }
        });
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        let (x, y) = (ev.offset_x() as f32, ev.offset_y() as f32);
        let Some((w, h)) = size() else {
            return;
        };
        live.update_value(|l| {
            let before = l
                .touches
                .first()
                .zip(l.touches.get(1))
                .map(|_| midpoint(&l.touches));
            if let Some(t) = l.touches.iter_mut().find(|t| t.0 == ev.pointer_id()) {
                (t.1, t.2) = (x, y);
            }
            if let (Some(was), Some((mx0, my0))) = (l.pinch, before) {
                let now = spread(&l.touches);
                let (mx, my) = midpoint(&l.touches);
                l.pan.0 += mx - mx0;
                l.pan.1 += my - my0;
                zoom_about(l, w, h, mx, my, now / was.max(1.0));
                l.pinch = Some(now);
                return;
            }
            if let Some((px, py, moved)) = l.drag {
                let (dx, dy) = (x - px, y - py);
                if moved || dx.abs() + dy.abs() > 3.0 {
                    l.pan.0 += dx;
                    l.pan.1 += dy;
                    l.drag = Some((x, y, true));
                    if selected.get_untracked().is_some() {
                        selected.set(None);
                    }
                }
            }
        });
    };
    let on_up = move |ev: leptos::ev::PointerEvent| {
        let (x, y) = (ev.offset_x() as f32, ev.offset_y() as f32);
        let Some((w, h)) = size() else {
            return;
        };
        let picked = live.try_update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            if l.touches.len() < 2 {
                l.pinch = None;
            }
            if !l.touches.is_empty() {
                return None;
            }
            let was_click = matches!(l.drag.take(), Some((_, _, false)));
            let time = l.clock.render_time(crate::net::now_ms())?;
            let camera = map::camera(l, w, h, time)?;
            was_click.then(|| map::pick(l, &camera, x, y, time))
        });
        if let Some(Some(pick)) = picked {
            selected.set(pick);
        }
    };
    let on_cancel = move |ev: leptos::ev::PointerEvent| {
        live.update_value(|l| {
            l.touches.retain(|t| t.0 != ev.pointer_id());
            l.pinch = None;
            l.drag = None;
        });
    };
    let zoom = live.with_value(|l| l.zoomed);
    let on_wheel = move |ev: leptos::ev::WheelEvent| {
        ev.prevent_default();
        let factor = 1.15f32.powf(-(ev.delta_y() as f32) / 100.0);
        let (x, y) = (ev.offset_x() as f32, ev.offset_y() as f32);
        let Some((w, h)) = size() else {
            return;
        };
        live.update_value(|l| zoom_about(l, w, h, x, y, factor));
    };
    let fit = move |_| {
        live.update_value(|l| {
            l.zoom = 1.0;
            l.zoomed.set(1.0);
            l.pan = (0.0, 0.0);
        });
        selected.set(None);
    };
    let nav = match player {
        Some(_) => view! { <a href="#/demos" data-testid="watch-back">"← Demos"</a> }.into_any(),
        None => {
            let connect = format!("/connect {addr}");
            let record =
                (!direct).then(|| view! { <demo::RecordButton addr=addr.clone() status=status /> });
            // Watch directly leaves its server before the page goes.
            let back = move |ev: leptos::ev::MouseEvent| {
                worker.with_value(|w| {
                    if let Some(w) = w {
                        ev.prevent_default();
                        direct::leave_then_go(w, left, "/");
                    }
                })
            };
            view! {
                <a href="/" data-testid="watch-back" on:click=back>"← Servers"</a>
                " "
                <code>{connect}</code>
                " "
                {record}
            }
            .into_any()
        }
    };
    view! {
        <main class="watch" data-testid="watch-view" data-addr=addr>
            <section class="watch-main">
                <p class="watch-nav">{nav}</p>
                {header}
                <div class="watch-canvas-wrap">
                    <canvas
                        node_ref=canvas
                        class="watch-canvas"
                        data-testid="watch-canvas"
                        on:pointerdown=on_down
                        on:pointermove=on_move
                        on:pointerup=on_up
                        on:pointercancel=on_cancel
                        on:wheel=on_wheel
                        data-zoom=move || format!("{:.2}", zoom.get())
                    ></canvas>
                    <div class="watch-tools">
                        <button type="button" on:click=fit data-testid="watch-fit">"Fit"</button>
                    </div>
                </div>
                {player.map(|player| view! { <demo::DemoBar player=player /> })}
            </section>
            <aside class="watch-side">
                <Scoreboard shown=shown selected=selected />
                <Feed shown=shown />
                {player.map(|player| view! { <demo::DemoKills player=player /> })}
            </aside>
        </main>
    }
}

fn team_title(team: Team) -> &'static str {
    match team {
        Team::Axis => "Axis",
        Team::Allies => "Allies",
        Team::Free => "Players",
        Team::Spectator => "Spectators",
    }
}

fn state_of(p: &WatchPlayer, server_time: i32) -> String {
    if p.team == Team::Spectator {
        return "spectating".into();
    }
    let age = p.seen.map(|t| server_time.wrapping_sub(t));
    match age {
        None => "not seen yet".into(),
        Some(_) if !p.alive => "dead".into(),
        Some(a) if a > map::STALE_MS => format!("seen {} s ago", a / 1000),
        Some(_) => "alive".into(),
    }
}

#[component]
fn Scoreboard(shown: RwSignal<Option<MatchView>>, selected: RwSignal<Option<u8>>) -> impl IntoView {
    let teams = move || {
        let Some(view) = shown.get() else {
            return Vec::new();
        };
        let mut teams = Vec::new();
        for team in [Team::Axis, Team::Allies, Team::Free, Team::Spectator] {
            let mut players: Vec<WatchPlayer> = view
                .players
                .iter()
                .filter(|p| p.team == team)
                .cloned()
                .collect();
            if players.is_empty() {
                continue;
            }
            players.sort_by_key(|p| (std::cmp::Reverse(p.score), p.client));
            let score = match team {
                Team::Axis => Some(view.axis_score),
                Team::Allies => Some(view.allies_score),
                _ => None,
            };
            teams.push((team, score, players, view.server_time));
        }
        teams
    };
    view! {
        <section class="scoreboard" aria-label="Scoreboard">
            {move || {
                teams()
                    .into_iter()
                    .map(|(team, score, players, time)| {
                        let title = match score {
                            Some(s) => format!("{} — {s}", team_title(team)),
                            None => team_title(team).to_owned(),
                        };
                        view! {
                            <h3 class=format!("team-{}", team.name())>{title}</h3>
                            <table>
                                <thead>
                                    <tr>
                                        <th scope="col">"Name"</th>
                                        <th scope="col" class="num">"Score"</th>
                                        <th scope="col" class="num">"Deaths"</th>
                                        <th scope="col" class="num">"Ping"</th>
                                        <th scope="col">"State"</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {players
                                        .into_iter()
                                        .map(|p| {
                                            let client = p.client;
                                            let state = state_of(&p, time);
                                            let ping = match p.ping {
                                                0 => "bot".to_owned(),
                                                -1 => "…".to_owned(),
                                                ping => ping.to_string(),
                                            };
                                            view! {
                                                <tr
                                                    data-testid="watch-player"
                                                    data-name=p.name.clone()
                                                    data-team=team.name()
                                                    data-x=p.origin[0]
                                                    data-y=p.origin[1]
                                                    data-seen=p.seen.unwrap_or(-1)
                                                    class:selected=move || selected.get() == Some(client)
                                                    on:click=move |_| selected.set(Some(client))
                                                >
                                                    <td><Coloured text=p.name.clone() /></td>
                                                    <td class="num">{p.score}</td>
                                                    <td class="num">{p.deaths}</td>
                                                    <td class="num">{ping}</td>
                                                    <td class="state">{state}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        }
                    })
                    .collect_view()
            }}
        </section>
    }
}

#[component]
fn Feed(shown: RwSignal<Option<MatchView>>) -> impl IntoView {
    let name_of = |view: &MatchView, client: Option<u8>| match client {
        None => "the world".to_owned(),
        Some(c) => view
            .players
            .iter()
            .find(|p| p.client == c)
            .map_or_else(|| format!("#{c}"), |p| p.name.clone()),
    };
    let kills = move || {
        let view = shown.get()?;
        let lines: Vec<(String, String, String)> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Kill {
                    attacker,
                    victim,
                    weapon,
                    ..
                } => Some((
                    name_of(&view, *attacker),
                    weapon
                        .trim_end_matches("_mp")
                        .trim_start_matches("MOD_")
                        .to_lowercase(),
                    name_of(&view, Some(*victim)),
                )),
                _ => None,
            })
            .take(12)
            .collect();
        Some(lines)
    };
    let chat = move || {
        let view = shown.get()?;
        let lines: Vec<(bool, String)> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Chat { text, team, .. } => Some((*team, text.clone())),
                _ => None,
            })
            .take(12)
            .collect();
        Some(lines)
    };
    let messages = move || {
        let view = shown.get()?;
        let lines: Vec<String> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Message { text, .. } => Some(text.clone()),
                _ => None,
            })
            .take(6)
            .collect();
        Some(lines)
    };
    view! {
        <section class="killfeed" aria-label="Kill feed">
            <h3>"Kills"</h3>
            <ul>
                {move || kills().unwrap_or_default().into_iter().map(|(a, w, v)| view! {
                    <li data-testid="kill">
                        <Coloured text=a />
                        <span class="weapon">{format!(" [{w}] ")}</span>
                        <Coloured text=v />
                    </li>
                }).collect_view()}
            </ul>
        </section>
        <section class="chat" aria-label="Chat">
            <h3>"Chat"</h3>
            <ul>
                {move || chat().unwrap_or_default().into_iter().map(|(team, text)| view! {
                    <li data-testid="chat" class:team=team><Coloured text=text /></li>
                }).collect_view()}
            </ul>
        </section>
        <section class="messages" aria-label="Server messages">
            <ul>
                {move || messages().unwrap_or_default().into_iter().map(|text| view! {
                    <li data-testid="server-message">{strip(&text)}</li>
                }).collect_view()}
            </ul>
        </section>
    }
}
