//! The watch view (`/watch/#/watch/ADDR`, its own page and wasm): a live top-down map of a match from the relay's spectator
//! hub, beside the scoreboard by team, the kill feed, chat, and the hub's delay and audience.

mod demo;
mod direct;
mod events;
mod gestures;
mod head;
mod live;
mod map;
mod rewind;
mod scoreboard;
mod share;
mod socket;

use leptos::prelude::*;
use protocol::relay_api::watch::HubStatus;

use crate::parts::header::{Page, PageHeader};
use crate::worker::SessionWorker;
use demo::DemoPlayer;
use events::Events;
use gestures::Gestures;
use head::WatchHead;
use live::{frame_loop, Live};
use scoreboard::Scoreboard;

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
/// The watch page (`/watch/`): the header and the match the location names.
#[component]
pub fn WatchPage() -> impl IntoView {
    let watched = RwSignal::new(watched_in_location());
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        watched.set(watched_in_location())
    });
    on_cleanup(move || on_hash.remove());
    view! {
        <PageHeader subtitle="subtitle-watch" current=Page::Watch />
        {move || match watched.get() {
            Some((addr, direct)) => view! { <Watch addr=addr direct=direct /> }.into_any(),
            None => view! {
                <main class="single">
                    <p class="hint">{tr!("watch-none-before")}<a href="/">{tr!("watch-none-list")}</a>{tr!("watch-none-after")}</p>
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
    /// The server time of a kill to start the demo at (3 s before it).
    #[prop(optional)]
    from_kill: Option<i32>,
    /// The demo starts again at its end (a shared moment).
    #[prop(optional)]
    looped: bool,
) -> impl IntoView {
    let live = StoredValue::new_local(Live::new());
    let open = StoredValue::new(true);
    on_cleanup(move || open.set_value(false));
    let player = demo.map(|source| DemoPlayer::start(source, live, from_kill, looped));
    // Watch directly's worker, and whether it has left its server.
    let worker = StoredValue::new_local(None::<SessionWorker>);
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
    // Going back in the match: only through the relay's hub, which keeps the window.
    let rewinder =
        (player.is_none() && !direct).then(|| rewind::Rewinder::start(addr.clone(), live, open));
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |started: Option<bool>| {
        if started != Some(true) && canvas.get().is_some() {
            frame_loop(live, canvas, open);
            return true;
        }
        started.unwrap_or(false)
    });
    let (status, shown, selected, marked, zoom) =
        live.with_value(|l| (l.status, l.shown, l.selected, l.marked, l.zoomed));
    let map = Gestures {
        live,
        canvas,
        selected,
    };
    let nav = match player {
        Some(_) => {
            view! { <a href="#/demos" data-testid="watch-back">{tr!("back-demos")}</a> }.into_any()
        }
        None => {
            view! { <Nav addr=addr.clone() direct=direct status=status worker=worker left=left /> }
                .into_any()
        }
    };
    view! {
        <main class="watch" data-testid="watch-view" data-addr=addr>
            <section class="watch-main">
                <p class="watch-nav">{nav}</p>
                <WatchHead live=live player=player />
                <div class="watch-canvas-wrap">
                    <canvas
                        node_ref=canvas
                        class="watch-canvas"
                        data-testid="watch-canvas"
                        // Who is where is drawn here; the scoreboard says it in words.
                        role="img"
                        aria-label=tr!("watch-map-alt")
                        on:pointerdown=move |ev| map.down(ev)
                        on:pointermove=move |ev| map.moved(ev)
                        on:pointerup=move |ev| map.up(ev)
                        on:pointercancel=move |ev| map.cancel(ev)
                        on:wheel=move |ev| map.wheel(ev)
                        data-zoom=move || format!("{:.2}", zoom.get())
                    ></canvas>
                    <div class="watch-tools">
                        <button type="button" on:click=move |_| map.fit() data-testid="watch-fit">{tr!("watch-fit")}</button>
                    </div>
                </div>
                {player.map(|player| view! { <demo::DemoBar player=player /> })}
                {rewinder.map(|r| view! { <rewind::RewindBar rewinder=r /> })}
            </section>
            <aside class="watch-side">
                <Scoreboard shown=shown selected=selected />
                <Events shown=shown selected=selected marked=marked rewinder=rewinder />
                {player.map(|player| view! { <demo::DemoKills player=player /> })}
            </aside>
        </main>
    }
}

/// Back to the list, the console command that joins the server, and recording through the hub.
#[component]
fn Nav(
    addr: String,
    direct: bool,
    status: RwSignal<Option<HubStatus>>,
    worker: StoredValue<Option<SessionWorker>, LocalStorage>,
    left: RwSignal<bool>,
) -> impl IntoView {
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
        <a href="/" data-testid="watch-back" on:click=back>{tr!("back-servers")}</a>
        " "
        <code>{connect}</code>
        " "
        {record}
    }
}
