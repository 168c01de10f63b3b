//! The selected server: its players and every cvar it reports.

use leptos::prelude::*;
use protocol::relay_api::ServerInfo;

use crate::feed::Feed;
use crate::pages::browser::bridge::{Asked, JoinCheck, RefreshNow};
use crate::pages::browser::matches::ServerMatches;
use crate::parts::coloured::Coloured;
use crate::parts::star::Star;
use crate::personal::Personal;

/// What the detail says before a server is selected (the catalogue's id).
pub const HINT: &str = "detail-hint";

#[component]
pub fn Detail(feed: Feed, selected: RwSignal<Option<String>>, personal: Personal) -> impl IntoView {
    // The whole record once the relay sent it, or the page's own answer from Refresh now if
    // that is newer; until then what the list knows.
    let asked = Asked::new();
    let fresh = asked.fresh;
    let server = move || {
        let addr = selected.get()?;
        let sent = feed.detail.get().filter(|d| d.addr == addr);
        let asked = fresh.get().filter(|d| d.addr == addr);
        let newest = match (sent, asked) {
            (Some(s), Some(a)) => Some(if a.updated_ms > s.updated_ms { a } else { s }),
            (s, a) => s.or(a),
        };
        newest.or_else(|| feed.servers.with(|all| all.get(&addr).cloned()))
    };
    // The join line re-renders only when the server does, not with its every refresh, so a
    // password being typed stays.
    let join = Memo::new(move |_| server().map(|s| (s.addr, s.password)));
    let full = Memo::new(move |_| {
        server().is_some_and(|s| s.max_clients > 0 && s.clients >= s.max_clients)
    });
    view! {
        <aside class="detail" aria-live="polite">
            {move || match server() {
                None => view! { <p class="hint">{tr!(HINT)}</p> }.into_any(),
                Some(server) => view! { <ServerHead server=server personal=personal /> }.into_any(),
            }}
            {move || join.get().map(|(addr, passworded)| view! {
                <JoinGame addr=addr.clone() passworded=passworded />
                <crate::pages::browser::alerts::ServerAlerts addr=addr.clone() full=full />
                <crate::pages::browser::share::ServerShare addr=addr.clone() />
                <crate::pages::browser::owner::ServerOwner addr=addr />
            })}
            {move || server().map(|server| view! { <ServerDetail server=server asked=asked /> })}
            // Outside the record's re-rendering: it fetches when the server or range changes.
            <crate::pages::browser::history::ServerHistory selected=selected />
            <ServerMatches feed=feed selected=selected />
            // Outside it too: a record's update must not reload the console (and lose its
            // password).
            <AdminTab selected=selected />
        </aside>
    }
}

/// The Admin tab: the admin console (its own page and wasm, `/admin/`) framed here only once
/// opened, for the selected server.
#[component]
fn AdminTab(selected: RwSignal<Option<String>>) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <Show when=move || selected.get().is_some()>
            <p class="admin-tab">
                <button type="button" data-testid="admin-tab"
                    aria-expanded=move || open.get().to_string()
                    on:click=move |_| open.update(|o| *o = !*o)>
                    {move || if open.get() { tr!("admin-close") } else { tr!("admin-tab") }}
                </button>
            </p>
            {move || {
                let addr = selected.get()?;
                open.get().then(|| view! {
                    <iframe class="admin-frame" title=tr!("admin-title") data-testid="admin-frame"
                        src=format!("/admin/#{addr}")></iframe>
                })
            }}
        </Show>
    }
}

/// The server's name and how to watch it.
#[component]
fn ServerHead(server: ServerInfo, personal: Personal) -> impl IntoView {
    view! {
        <h2>
            <span data-testid="detail-name"><Coloured text=server.hostname.clone() /></span>
            " "
            <Star addr=server.addr.clone() personal=personal />
        </h2>
        <p class="country" data-testid="detail-country">{country_line(&server)}</p>
        <p class="connect">
            <a class="button" href=format!("/watch/#/watch/{}", server.addr) data-testid="watch">{tr!("watch")}</a>
            " "
            <a href=format!("/watch/#/watch-direct/{}", server.addr) data-testid="watch-direct"
               title=tr!("watch-directly-title")>{tr!("watch-directly")}</a>
        </p>
    }
}

/// Where the server is: its country's code, or why it has none.
fn country_line(server: &ServerInfo) -> String {
    match (&server.country, protocol::geo::not_placed(&server.addr)) {
        (Some(code), _) => tr!("country-is", code = code.as_str()),
        (None, Some(why)) => tr!("country-none", why = tr!(why)),
        (None, None) => tr!("country-unknown"),
    }
}

/// Joining the game: the `coduo://` link joinme.click's launcher opens, and the console line
/// to copy without it.
#[component]
fn JoinGame(addr: String, passworded: bool) -> impl IntoView {
    // For a passworded server the console needs the password first; it stays in this page.
    let password = RwSignal::new(String::new());
    let connect = {
        let addr = addr.clone();
        Memo::new(move |_| connect_line(&addr, passworded.then(|| password.get()).as_deref()))
    };
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&connect.get_untracked());
        copied.set(true);
    };
    view! {
        <p class="join-game">
            <a class="button" href=format!("coduo://{addr}") data-testid="join">{tr!("join")}</a>
            {tr!("join-before")}
            <a href="https://joinme.click/" rel="noopener" target="_blank">"joinme.click"</a>
            {tr!("join-after")}
        </p>
        <p class="connect-line">
            <Show when=move || passworded>
                <input type="password" placeholder=tr!("server-password-placeholder") aria-label=tr!("server-password")
                    data-testid="connect-password" autocomplete="off"
                    on:input=move |ev| { password.set(event_target_value(&ev)); copied.set(false); } />
                " "
            </Show>
            <code data-testid="connect">{move || connect.get()}</code>
            " "
            <button type="button" on:click=copy data-testid="copy">
                {move || if copied.get() { tr!("copied") } else { tr!("copy") }}
            </button>
        </p>
    }
}

#[component]
fn ServerDetail(server: ServerInfo, asked: Asked) -> impl IntoView {
    let tuning = crate::pages::tuning::link(&server);
    let cvar_filter = RwSignal::new(String::new());
    let mut cvars = server.cvars.clone();
    cvars.sort_by_key(|(k, _)| k.to_lowercase());
    let mut players = server.players.clone();
    players.sort_by_key(|p| std::cmp::Reverse(p.score));
    view! {
        <p class="refresh">
            <RefreshNow addr=server.addr.clone() asked=asked />
        </p>
        <p class="join">
            <JoinCheck addr=server.addr.clone() asked=asked />
        </p>
        <p class="matches">
            <a href=format!("/matches?server={}", server.addr) data-testid="recent-matches">
                {tr!("detail-every-match")}
            </a>
        </p>
        <h3>{tr!("detail-players", count = players.len())}</h3>
        <table data-testid="players-table">
            <thead>
                <tr>
                    <th scope="col">{tr!("col-name")}</th>
                    <th scope="col" class="num">{tr!("col-score")}</th>
                    <th scope="col" class="num">{tr!("col-ping")}</th>
                </tr>
            </thead>
            <tbody>
                {players
                    .into_iter()
                    .map(|p| {
                        // Stock shows a client still connecting with ping 999.
                        let ping = if p.bot {
                            tr!("ping-bot")
                        } else if p.ping >= 999 {
                            tr!("ping-connecting")
                        } else {
                            p.ping.to_string()
                        };
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
        // The player's settings on this server: the tuning page, its own download.
        <p class="tuning-link">
            <a href=tuning data-testid="tuning-link">{tr!("detail-tuning-link")}</a>
            {tr!("detail-tuning-after")}
        </p>
        <h3>{tr!("detail-settings")}</h3>
        <input
            id="cvar-search"
            type="search"
            placeholder=tr!("detail-find-setting-placeholder")
            aria-label=tr!("detail-find-setting")
            prop:value=move || cvar_filter.get()
            on:input=move |ev| cvar_filter.set(event_target_value(&ev))
        />
        <table class="cvars" data-testid="cvars-table">
            <tbody>
                {move || {
                    let needle = cvar_filter.get().to_lowercase();
                    cvars
                        .iter()
                        .filter(|(k, v)| {
                            needle.is_empty()
                                || k.to_lowercase().contains(&needle)
                                || v.to_lowercase().contains(&needle)
                        })
                        .map(|(k, v)| {
                            view! {
                                <tr>
                                    <th scope="row">{k.clone()}</th>
                                    <td><Coloured text=v.clone() /></td>
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
    }
}

/// The console line that joins `addr`: for a passworded server `password` first (stock reads
/// the cvar when it connects), with a placeholder until the player types theirs.
fn connect_line(addr: &str, password: Option<&str>) -> String {
    match password {
        None => format!("/connect {addr}"),
        Some("") => format!("/password PASSWORD; connect {addr}"),
        Some(p) => format!("/password {}; connect {addr}", p.replace([';', '"'], "")),
    }
}
