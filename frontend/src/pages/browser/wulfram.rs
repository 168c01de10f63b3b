//! The Wulfram II servers the relay's operator configured: reachability and round trip, from
//! the relay's checks. Shown only when there are any.

use leptos::prelude::*;
use protocol::relay_api::Reachability;

use crate::feed::Feed;

#[component]
pub fn WulframServers(feed: Feed) -> impl IntoView {
    view! {
        <Show when=move || feed.wulfram.with(|w| !w.is_empty())>
            <section class="wulfram panel" aria-label="Wulfram II servers">
                <h2>"Wulfram II"</h2>
                <table>
                    <thead>
                        <tr>
                            <th scope="col">"Server"</th>
                            <th scope="col">"Address"</th>
                            <th scope="col">"Status"</th>
                            <th scope="col" class="num">"RTT"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            feed.wulfram
                                .get()
                                .into_iter()
                                .map(|w| {
                                    let (class, status) = match w.reachability {
                                        Reachability::Online => ("online", "online"),
                                        Reachability::Unreachable | Reachability::Gone => ("down", "unreachable"),
                                        Reachability::Malformed => ("down", "bad reply"),
                                        Reachability::Pending | Reachability::Stale => ("pending", "checking…"),
                                    };
                                    let rtt = w.rtt_ms.map_or("-".to_owned(), |ms| format!("{ms} ms"));
                                    let name = w.name.clone();
                                    view! {
                                        <tr data-testid="wulfram-server" data-name=name class=class>
                                            <td>{w.name}</td>
                                            <td>{w.addr}</td>
                                            <td class="status">{status}</td>
                                            <td class="num">{rtt}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </section>
        </Show>
    }
}
