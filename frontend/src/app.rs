//! The page's frame: header with the relay and master state, the list, the selected server.

use leptos::prelude::*;
use protocol::relay_api::MasterState;

use crate::detail::Detail;
use crate::feed::Feed;
use crate::list::ServerList;

#[component]
pub fn App() -> impl IntoView {
    let feed = Feed::new();
    feed.start();
    let selected = RwSignal::new(None::<String>);
    // The relay refreshes the server shown in detail more often.
    Effect::new(move |_| feed.watched.set(selected.get()));
    view! {
        <header>
            <h1>"Muster"</h1>
            <span class="subtitle">"Call of Duty: United Offensive 1.51 servers"</span>
            <span class="connection" data-testid="connection">
                {move || if feed.connected.get() { "live" } else { "connecting…" }}
            </span>
        </header>
        <Masters feed=feed />
        <main>
            <ServerList feed=feed selected=selected />
            <Detail feed=feed selected=selected />
        </main>
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
