//! The server browser (`/`): header with the relay and master state, the list, the selected
//! server; the side panels beside it are a wasm of their own (`panels`).

mod alerts;
pub(crate) mod bridge;
mod detail;
mod history;
mod list;
mod matches;
mod owner;
pub(crate) mod panels;
mod share;
mod tools;
mod wulfram;

use leptos::prelude::*;
use protocol::browse::cells;
use protocol::relay_api::MasterState;

use crate::bus;
use crate::feed::Feed;
use crate::pages::watch::watched_in_location;
use crate::parts::header::{Page, PageHeader};
use crate::personal::Personal;
use list::{view_from_url, ServerList};
use panels::{Waiting, ROOT, WAITING};
use wulfram::WulframServers;

/// An old link to another page here (`#/watch/ADDR`, `#tuning`; `index.html` sends them on
/// before the code loads, this after a hash change) goes to that page's own (`/watch/`,
/// `/tuning/`).
fn send_on() {
    let location = window().location();
    if let Some((addr, direct)) = watched_in_location() {
        let how = if direct { "watch-direct" } else { "watch" };
        let _ = location.replace(&format!("/watch/#/{how}/{addr}"));
    } else if location.hash().is_ok_and(|h| h == "#tuning") {
        let _ = location.replace("/tuning/");
    }
}

/// The server a `/server/ADDR` link names.
fn server_from_path() -> Option<String> {
    let path = window().location().pathname().ok()?;
    let addr = path.strip_prefix("/server/")?.trim_end_matches('/');
    addr.parse::<std::net::SocketAddrV4>()
        .is_ok()
        .then(|| addr.to_owned())
}

#[component]
pub fn App() -> impl IntoView {
    let feed = Feed::new();
    feed.start();
    // A server's own link (`/server/ADDR`) opens with it selected.
    let selected = RwSignal::new(server_from_path());
    // The relay refreshes the server shown in detail more often.
    Effect::new(move |_| feed.watched.set(selected.get()));
    let view = RwSignal::new(view_from_url());
    let personal = Personal::load();
    Effect::new(move |_| {
        if let Some(addr) = selected.get() {
            personal.viewed(&addr);
        }
    });
    // The side panels (their own wasm) come when a visitor reaches for them: a server
    // selected, the side touched, or a watch list whose alerts they raise.
    bus::share_selection(selected);
    // The panels take the waiting forms' place themselves (in one task); the list then drops
    // their view, which would otherwise follow the feed unseen.
    let (panels, asked) = (RwSignal::new(false), StoredValue::new(false));
    bus::serve_panels(feed.to_panels, selected, move || panels.set(true));
    let reach = move || {
        if !asked.get_value() {
            asked.set_value(true);
            bus::load_panels();
        }
    };
    Effect::new(move |_| {
        if selected.with(Option::is_some) {
            reach();
        }
    });
    // The relay's first screen (the list) stays until the list has come; then the app takes
    // its place.
    Effect::new(move |handed: Option<bool>| {
        if handed == Some(true) || !feed.connected.get() {
            return handed.unwrap_or(false);
        }
        request_animation_frame(move || {
            if let Some(typed) = crate::first_screen::hand_over() {
                view.update(|v| v.text = typed);
            }
            if personal.watch.with_untracked(|w| !w.is_empty()) {
                reach();
            }
        });
        true
    });
    send_on();
    let on_hash = leptos::prelude::window_event_listener(leptos::ev::hashchange, |_| send_on());
    on_cleanup(move || on_hash.remove());

    view! {
        <PageHeader subtitle="subtitle-servers" current=Page::Servers>
            <span class="connection" data-testid="connection">
                {move || if feed.connected.get() { tr!("feed-live") } else { tr!("feed-connecting") }}
            </span>
        </PageHeader>
        <Sources feed=feed />
        <main>
            <ServerList feed=feed selected=selected view=view personal=personal />
            <div class="side">
                <crate::pages::browser::history::Sparkline after=feed.connected.into() />
                <WulframServers feed=feed />
                <div class="panels" on:pointerdown=move |_| reach() on:focusin=move |_| reach()>
                    <Show when=move || !panels.get()>
                        <div id=WAITING class="panels"><Waiting feed=feed selected=selected /></div>
                    </Show>
                    <div id=ROOT class="panels"></div>
                </div>
            </div>
        </main>
    }
}

/// The masters in one line ("2 of 3 masters answering · 24 servers"), each one's state in
/// plain words on a tap; the relay's own error text in its tooltip.
#[component]
fn Sources(feed: Feed) -> impl IntoView {
    view! {
        <details class="sources">
            <summary data-testid="sources">
                {move || feed.masters.with(|m| crate::words::say(&cells::sources(m, feed.servers.with(|s| s.len()))))}
            </summary>
            <ul class="masters" aria-label=tr!("masters")>
                {move || {
                    feed.masters
                        .get()
                        .into_iter()
                        .map(|m| {
                            let mut detail = String::new();
                            let (class, mut text) = match m.state {
                                MasterState::Ok { servers } => ("ok", tr!("master-servers", count = servers)),
                                MasterState::Failed { error } => {
                                    let plain = crate::words::say(&cells::plain_error(&error));
                                    detail = error;
                                    match m.last_list {
                                        // Its last list stays on the page, marked stale.
                                        Some(servers) => ("failed", tr!("master-failed-kept", why = plain.as_str(), count = servers)),
                                        None => ("failed", plain),
                                    }
                                }
                                MasterState::Pending => match m.last_list {
                                    Some(servers) => ("pending", tr!("master-polling-last", count = servers)),
                                    None => ("pending", tr!("master-polling")),
                                },
                            };
                            // The relay's own master: what it holds besides what it lists.
                            if let Some(own) = m.own {
                                text = tr!(
                                    "master-own",
                                    registered = own.registered,
                                    flatlined = own.flatlined,
                                    heartbeats = own.heartbeats,
                                    dropped = own.dropped
                                );
                            }
                            view! {
                                <li class=format!("master {class}") data-testid="master" title=detail>
                                    <strong>{m.addr}</strong>
                                    " "
                                    <span>{text}</span>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </details>
    }
}
