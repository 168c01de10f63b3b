//! The Wulfram II servers the relay's operator configured: reachability and round trip, from
//! the relay's checks. Shown only when there are any.

use leptos::prelude::*;
use protocol::relay_api::Reachability;

use crate::feed::Feed;

#[component]
pub fn WulframServers(feed: Feed) -> impl IntoView {
    view! {
        <Show when=move || feed.wulfram.with(|w| !w.is_empty())>
            <section class="wulfram panel" aria-label=tr!("wulfram-servers")>
                <h2>"Wulfram II"</h2>
                <table>
                    <thead>
                        <tr>
                            <th scope="col">{tr!("col-server")}</th>
                            <th scope="col">{tr!("col-address")}</th>
                            <th scope="col">{tr!("col-status")}</th>
                            <th scope="col" class="num">{tr!("col-rtt")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            feed.wulfram
                                .get()
                                .into_iter()
                                .map(|w| {
                                    let (class, status) = match w.reachability {
                                        Reachability::Online => ("online", tr!("wulfram-online")),
                                        Reachability::Unreachable | Reachability::Gone => ("down", tr!("wulfram-unreachable")),
                                        Reachability::Malformed => ("down", tr!("ping-bad-reply")),
                                        Reachability::Pending | Reachability::Stale => ("pending", tr!("wulfram-checking")),
                                    };
                                    let rtt = w.rtt_ms.map_or("-".to_owned(), |ms| tr!("ms", ms = ms));
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
