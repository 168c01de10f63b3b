//! The selected server: its players and every cvar it reports.

use leptos::prelude::*;
use protocol::relay_api::ServerInfo;

use crate::coloured::Coloured;
use crate::feed::Feed;
use crate::tuning::{Bench, TuningPanel};

#[component]
pub fn Detail(
    feed: Feed,
    selected: RwSignal<Option<String>>,
    bench: RwSignal<Bench>,
) -> impl IntoView {
    let server = move || {
        let addr = selected.get()?;
        feed.servers.with(|all| all.get(&addr).cloned())
    };
    view! {
        <aside class="detail" aria-live="polite">
            {move || match server() {
                None => view! { <p class="hint">"Select a server to see its players and settings."</p> }.into_any(),
                Some(server) => view! { <ServerDetail server=server bench=bench /> }.into_any(),
            }}
        </aside>
    }
}

#[component]
fn ServerDetail(server: ServerInfo, bench: RwSignal<Bench>) -> impl IntoView {
    let tuning_server = server.clone();
    let mut players = server.players.clone();
    players.sort_by_key(|p| std::cmp::Reverse(p.score));
    view! {
        <h2 data-testid="detail-name"><Coloured text=server.hostname.clone() /></h2>
        <p class="connect"><code>{format!("/connect {}", server.addr)}</code></p>
        <h3>{format!("Players ({})", players.len())}</h3>
        <table data-testid="players-table">
            <thead>
                <tr>
                    <th scope="col">"Name"</th>
                    <th scope="col" class="num">"Score"</th>
                    <th scope="col" class="num">"Ping"</th>
                </tr>
            </thead>
            <tbody>
                {players
                    .into_iter()
                    .map(|p| {
                        let ping = if p.bot { "bot".to_owned() } else { p.ping.to_string() };
                        view! {
                            <tr data-testid="player-row">
                                <td><Coloured text=p.name /></td>
                                <td class="num">{p.score}</td>
                                <td class="num">{ping}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
        <TuningPanel server=tuning_server bench=bench />
        <h3>"Settings"</h3>
        <table class="cvars" data-testid="cvars-table">
            <tbody>
                {server
                    .cvars
                    .into_iter()
                    .map(|(k, v)| view! { <tr><th scope="row">{k}</th><td><Coloured text=v /></td></tr> })
                    .collect_view()}
            </tbody>
        </table>
    }
}
