//! The page's frame: header with the relay and master state, the list, the selected server.

use leptos::prelude::*;
use protocol::browse::cells;
use protocol::relay_api::MasterState;

use crate::detail::Detail;
use crate::feed::Feed;
use crate::list::{view_from_url, ServerList};
use crate::personal::Personal;
use crate::tools::{FindPlayer, Toasts, WatchList};
use crate::tuning::{saved_bench, TuningPage};
use crate::watch::{watched_in_location, Watch};
use crate::wulfram::WulframServers;

/// Which page the location names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Route {
    Servers,
    /// `#tuning`
    Tuning,
    /// `#/watch/ADDR` or `/watch/ADDR`; `#/watch-direct/ADDR` with the page's own session.
    Watch(String, bool),
}

fn route() -> Route {
    if let Some((addr, direct)) = watched_in_location() {
        return Route::Watch(addr, direct);
    }
    if window().location().hash().is_ok_and(|h| h == "#tuning") {
        Route::Tuning
    } else {
        Route::Servers
    }
}

#[component]
pub fn App() -> impl IntoView {
    let feed = Feed::new();
    feed.start();
    let selected = RwSignal::new(None::<String>);
    // The relay refreshes the server shown in detail more often.
    Effect::new(move |_| feed.watched.set(selected.get()));
    let bench = saved_bench();
    let view = RwSignal::new(view_from_url());
    let personal = Personal::load();
    Effect::new(move |_| {
        if let Some(addr) = selected.get() {
            personal.viewed(&addr);
        }
    });
    // Watched names: the first directory only records where they are; later ones alert.
    let looked = StoredValue::new(false);
    Effect::new(move |_| {
        personal.watch.track();
        feed.servers.with(|all| {
            if !all.is_empty() {
                personal.check(all, !looked.get_value());
                looked.set_value(true);
            }
        })
    });
    // The relay's first screen (the list) stays until the list has come; then the app takes
    // its place. A link to another page (a match to watch, tuning) is not the list: it takes
    // the place at once.
    let listing = route() == Route::Servers;
    Effect::new(move |handed: Option<bool>| {
        if handed == Some(true) || (listing && !feed.connected.get()) {
            return handed.unwrap_or(false);
        }
        request_animation_frame(move || {
            if let Some(typed) = crate::first_screen::hand_over() {
                view.update(|v| v.text = typed);
            }
        });
        true
    });
    let page = RwSignal::new(route());
    let on_hash =
        leptos::prelude::window_event_listener(leptos::ev::hashchange, move |_| page.set(route()));
    on_cleanup(move || on_hash.remove());
    let tuning = Memo::new(move |_| page.get() == Route::Tuning);
    let watching = Memo::new(move |_| match page.get() {
        Route::Watch(addr, direct) => Some((addr, direct)),
        _ => None,
    });

    view! {
        <header>
            <h1>"Muster"</h1>
            <span class="subtitle">"Call of Duty: United Offensive 1.51 servers"</span>
            <span class="connection" data-testid="connection">
                {move || if feed.connected.get() { "live" } else { "connecting…" }}
            </span>
            <nav aria-label="Pages">
                <a href="#" class:current=move || page.get() == Route::Servers>"Servers"</a>
                <a href="#tuning" class:current=move || tuning.get()>"Tuning"</a>
                // The demo player is a page of its own (`/playback/`).
                <a href="/playback/">"Demos"</a>
            </nav>
        </header>
        <Sources feed=feed />
        {move || watching.get().map(|(addr, direct)| view! { <Watch addr=addr direct=direct /> })}
        <Show
            when=move || watching.with(Option::is_none)
        >
        <Show
            when=move || tuning.get()
            fallback=move || view! {
                <main>
                    <ServerList feed=feed selected=selected view=view personal=personal />
                    <div class="side">
                        <crate::history::Sparkline />
                        <WulframServers feed=feed />
                        <FindPlayer feed=feed selected=selected />
                        <WatchList feed=feed personal=personal selected=selected />
                        <Detail feed=feed selected=selected bench=bench personal=personal />
                    </div>
                </main>
            }
        >
            <main class="single">
                <TuningPage bench=bench />
            </main>
        </Show>
        </Show>
        <Toasts personal=personal selected=selected />
    }
}

/// The masters in one line ("2 of 3 masters answering · 24 servers"), each one's state in
/// plain words on a tap; the relay's own error text in its tooltip.
#[component]
fn Sources(feed: Feed) -> impl IntoView {
    view! {
        <details class="sources">
            <summary data-testid="sources">
                {move || feed.masters.with(|m| cells::sources(m, feed.servers.with(|s| s.len())))}
            </summary>
            <ul class="masters" aria-label="Master servers">
                {move || {
                    feed.masters
                        .get()
                        .into_iter()
                        .map(|m| {
                            let mut detail = String::new();
                            let (class, mut text) = match m.state {
                                MasterState::Ok { servers } => ("ok", format!("{servers} servers")),
                                MasterState::Failed { error } => {
                                    let plain = cells::plain_error(&error);
                                    detail = error;
                                    match m.last_list {
                                        // Its last list stays on the page, marked stale.
                                        Some(servers) => ("failed", format!("{plain}; its last list ({servers} servers) is kept, stale")),
                                        None => ("failed", plain.to_owned()),
                                    }
                                }
                                MasterState::Pending => match m.last_list {
                                    Some(servers) => ("pending", format!("polling… (last list: {servers} servers)")),
                                    None => ("pending", "polling…".to_owned()),
                                },
                            };
                            // The relay's own master: what it holds besides what it lists.
                            if let Some(own) = m.own {
                                text = format!(
                                    "this relay's master: {} registered, {} flatlined, {} heartbeats, {} dropped",
                                    own.registered, own.flatlined, own.heartbeats, own.dropped
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
