//! The page's frame: header with the relay and master state, the list, the selected server.

use leptos::prelude::*;
use protocol::relay_api::MasterState;

use crate::detail::Detail;
use crate::feed::Feed;
use crate::list::{view_from_url, ServerList};
use crate::personal::Personal;
use crate::tools::{FindPlayer, Toasts, WatchList};
use crate::tuning::{saved_bench, TuningPage};
use crate::wulfram::WulframServers;

/// Which page the hash names: `#tuning`, or the server list.
fn tuning_in_hash() -> bool {
    window().location().hash().is_ok_and(|h| h == "#tuning")
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
    let tuning = RwSignal::new(tuning_in_hash());
    let on_hash = leptos::prelude::window_event_listener(leptos::ev::hashchange, move |_| {
        tuning.set(tuning_in_hash())
    });
    on_cleanup(move || on_hash.remove());
    view! {
        <header>
            <h1>"Muster"</h1>
            <span class="subtitle">"Call of Duty: United Offensive 1.51 servers"</span>
            <span class="connection" data-testid="connection">
                {move || if feed.connected.get() { "live" } else { "connecting…" }}
            </span>
            <nav aria-label="Pages">
                <a href="#" class:current=move || !tuning.get()>"Servers"</a>
                <a href="#tuning" class:current=move || tuning.get()>"Tuning"</a>
            </nav>
        </header>
        <Masters feed=feed />
        <Show
            when=move || tuning.get()
            fallback=move || view! {
                <main>
                    <ServerList feed=feed selected=selected view=view personal=personal />
                    <div class="side">
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
        <Toasts personal=personal selected=selected />
    }
}

/// One line per configured master: how its latest poll went, failures included.
#[component]
fn Masters(feed: Feed) -> impl IntoView {
    view! {
        <ul class="masters" aria-label="Master servers">
            {move || {
                feed.masters
                    .get()
                    .into_iter()
                    .map(|m| {
                        let (class, text) = match m.state {
                            MasterState::Pending => ("pending", "polling…".to_owned()),
                            MasterState::Ok { servers } => ("ok", format!("{servers} servers")),
                            MasterState::Failed { error } => ("failed", error),
                        };
                        view! {
                            <li class=format!("master {class}") data-testid="master">
                                <strong>{m.addr}</strong>
                                " "
                                <span>{text}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}
