//! The server list: one row per server, most players first.

use leptos::prelude::*;
use protocol::relay_api::{Reachability, ServerInfo};

use crate::coloured::Coloured;
use crate::feed::Feed;

fn sorted(feed: &Feed) -> Vec<ServerInfo> {
    let mut servers: Vec<ServerInfo> = feed.servers.with(|all| all.values().cloned().collect());
    servers.sort_by(|a, b| b.clients.cmp(&a.clients).then_with(|| a.addr.cmp(&b.addr)));
    servers
}

#[component]
pub fn ServerList(feed: Feed, selected: RwSignal<Option<String>>) -> impl IntoView {
    let online = move || {
        feed.servers.with(|all| {
            all.values()
                .filter(|s| s.reachability == Reachability::Online)
                .count()
        })
    };
    view! {
        <section class="list">
            <p class="summary" data-testid="summary">
                {move || format!("{} servers, {} answering", feed.servers.with(|s| s.len()), online())}
            </p>
            <p class="progress" data-testid="progress">
                {move || {
                    let p = feed.progress.get();
                    if p.total == 0 || p.finished >= p.total {
                        format!("refreshed: {}/{} answered", p.answered, p.total)
                    } else {
                        format!("refreshing: {}/{} answered", p.answered, p.total)
                    }
                }}
            </p>
            <table>
                <thead>
                    <tr>
                        <th scope="col">"Server"</th>
                        <th scope="col">"Map"</th>
                        <th scope="col">"Mode"</th>
                        <th scope="col" class="num">"Players"</th>
                        <th scope="col" class="num">"Ping"</th>
                        <th scope="col">"Flags"</th>
                    </tr>
                </thead>
                <tbody>
                    <For
                        each=move || sorted(&feed)
                        key=|s| (s.addr.clone(), s.updated_ms, s.reachability)
                        let:server
                    >
                        <Row server=server selected=selected />
                    </For>
                </tbody>
            </table>
        </section>
    }
}

#[component]
fn Row(server: ServerInfo, selected: RwSignal<Option<String>>) -> impl IntoView {
    let addr = server.addr.clone();
    let is_selected = {
        let addr = addr.clone();
        move || selected.with(|s| s.as_deref() == Some(addr.as_str()))
    };
    let state = match server.reachability {
        Reachability::Online => "online",
        Reachability::Pending => "pending",
        Reachability::Unreachable => "unreachable",
        Reachability::Malformed => "malformed",
    };
    let ping = server
        .ping_ms
        .map_or_else(|| "—".to_owned(), |p| p.to_string());
    let players = format!("{}/{}", server.clients, server.max_clients);
    view! {
        <tr
            class=state
            class:selected=is_selected
            data-testid="server-row"
            data-addr=addr.clone()
            tabindex="0"
            on:click=move |_| selected.set(Some(addr.clone()))
        >
            <td class="name"><Coloured text=server.hostname /></td>
            <td>{server.map}</td>
            <td>{server.gametype}</td>
            <td class="num" data-testid="players">{players}</td>
            <td class="num">{ping}</td>
            <td class="flags">
                {server.password.then(|| view! { <span class="flag" title="Password required">"PW"</span> })}
                {server.punkbuster.then(|| view! { <span class="flag" title="PunkBuster">"PB"</span> })}
            </td>
        </tr>
    }
}
