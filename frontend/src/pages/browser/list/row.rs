//! One row of the list: a place on screen that shows whichever server the order puts there.

use std::sync::Arc;

use leptos::prelude::*;
use protocol::browse::cells;
use protocol::relay_api::{Reachability, ServerInfo};

use crate::feed::Feed;
use crate::parts::star::Star;
use crate::personal::Personal;

/// A row, its cells changed in place when its server or the order changes.
#[component]
pub fn Row(
    /// The server at this place in the list, if the list reaches it.
    addr: Memo<Option<Arc<str>>>,
    feed: Feed,
    selected: RwSignal<Option<String>>,
    clock: RwSignal<u64>,
    personal: Personal,
    held: RwSignal<bool>,
) -> impl IntoView {
    // Only the cells change, in place, so focus and selection survive live updates.
    let server = Memo::new(move |_| {
        addr.with(|addr| {
            let addr = addr.as_deref()?;
            feed.servers.with(|all| all.get(addr).map(RowData::of))
        })
    });
    // Changed while the order waits: marked, since it does not move. Another server come to
    // this place is not a change.
    let changed = RwSignal::new(false);
    Effect::new(move |was: Option<Option<Arc<str>>>| {
        server.track();
        let now = addr.get();
        match was {
            Some(was) if was == now && held.get_untracked() => changed.set(true),
            Some(_) => changed.set(false),
            None => {}
        }
        now
    });
    Effect::new(move |_| {
        if !held.get() {
            changed.set(false);
        }
    });
    let is_selected = Memo::new(move |_| {
        addr.with(|addr| {
            selected.with(|s| s.as_deref().is_some_and(|s| Some(s) == addr.as_deref()))
        })
    });
    let reachability = move |state: Reachability| {
        move || server.with(|s| s.as_ref().is_some_and(|s| s.reachability == state))
    };
    let select = move || {
        if let Some(addr) = addr.get_untracked() {
            selected.set(Some(addr.to_string()));
        }
    };
    let text = move |field: fn(&RowData) -> &str| {
        move || server.with(|s| s.as_ref().map_or_else(String::new, |s| field(s).to_owned()))
    };
    let flag = move |on: fn(&RowData) -> bool| move || server.with(|s| s.as_ref().is_some_and(on));
    let updated = move || server.with(|s| s.as_ref().and_then(|s| s.updated_ms));
    view! {
        <tr
            class:online=reachability(Reachability::Online)
            class:pending=reachability(Reachability::Pending)
            class:unreachable=reachability(Reachability::Unreachable)
            class:malformed=reachability(Reachability::Malformed)
            class:stale=reachability(Reachability::Stale)
            class:gone=reachability(Reachability::Gone)
            class:selected=is_selected
            class:changed=move || changed.get()
            data-testid="server-row"
            data-addr=move || addr.get().map(|a| a.to_string())
            tabindex="0"
            aria-selected=move || is_selected.get().to_string()
            on:click=move |_| select()
            on:keydown=move |ev| if ev.key() == "Enter" { select() }
        >
            <td class="name" inner_html=text(|s| &s.hostname_html)></td>
            <td>{text(|s| &s.map)}</td>
            <td>{text(|s| &s.gametype)}</td>
            <td>{text(|s| &s.game)}</td>
            <td class="num" data-testid="players">{text(|s| &s.players)}</td>
            <td class="num ping" data-testid="ping">{text(|s| &s.ping)}</td>
            <td class="num matches" data-testid="matches" title=tr!("matches-today-title")>{text(|s| &s.matches)}</td>
            <td class="flags">
                {move || flag(|s| s.password)().then(|| view! { <span class="flag" title=tr!("flag-password")>{tr!("flag-password-short")}</span> })}
                {move || flag(|s| s.punkbuster)().then(|| view! { <span class="flag" title="PunkBuster">"PB"</span> })}
            </td>
            <td class="num age" title=tr!("age-title")>
                {move || crate::words::say(&cells::age(clock.get(), updated()))}
            </td>
            <td><Star addr=Signal::derive(move || addr.get().map(|a| a.to_string()).unwrap_or_default()) personal=personal /></td>
        </tr>
    }
}

/// What a row draws of its server: a row copies this much, not the players and settings.
#[derive(Clone, PartialEq)]
struct RowData {
    /// The name in its colours, as markup: one `innerHTML` per row, not an element per colour.
    hostname_html: String,
    map: String,
    gametype: String,
    game: String,
    players: String,
    ping: String,
    matches: String,
    password: bool,
    punkbuster: bool,
    updated_ms: Option<u64>,
    reachability: Reachability,
}

impl RowData {
    fn of(server: &ServerInfo) -> Self {
        Self {
            hostname_html: crate::parts::coloured::named(server),
            map: server.map.clone(),
            gametype: server.gametype.clone(),
            game: server.game.clone(),
            players: cells::players(server),
            ping: crate::words::say(&cells::ping(server)),
            matches: cells::matches(server),
            password: server.password,
            punkbuster: server.punkbuster,
            updated_ms: server.updated_ms,
            reachability: server.reachability,
        }
    }
}
