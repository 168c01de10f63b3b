//! The side panels beside the list: the selected server's detail, Find player, the watch list
//! and its alerts. They are a wasm of their own (`muster-panels`), fetched only when a visitor
//! reaches for one (`app.rs`: a server selected, the side touched, or a watch list to keep),
//! so the first download is the list's alone. Until then the list draws their empty forms
//! (`Waiting`); what was typed into them, and which had the focus, carries over.

use leptos::prelude::*;
use protocol::browse::cells;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::bus;
use crate::feed::Feed;
use crate::pages::browser::detail::Detail;
use crate::pages::browser::tools::{FindPlayer, Toasts, WatchList};
use crate::personal::{ask_for_notifications, notifications_allowed, Personal};

/// Where the panels mount, in the list's side column.
pub const ROOT: &str = "panels";
/// The panels' forms as the list draws them until the panels come.
pub const WAITING: &str = "panels-waiting";
/// The inputs that carry over from the waiting forms, by id.
const FIND: &str = "find-player";
const WATCH: &str = "watch-name";

fn input(id: &str) -> Option<HtmlInputElement> {
    document().get_element_by_id(id)?.dyn_into().ok()
}

/// Starts the panels in the list's page, in the waiting forms' place: in one task, so no
/// keystroke falls between them.
pub fn start() {
    let (Some(root), Some(waiting)) = (
        document().get_element_by_id(ROOT),
        document().get_element_by_id(WAITING),
    ) else {
        leptos::logging::warn!("the side panels start only in the server browser's page");
        return;
    };
    let typed = |id| input(id).map(|i| i.value()).unwrap_or_default();
    let (find, watch) = (typed(FIND), typed(WATCH));
    let focused = document().active_element().map(|e| e.id());
    waiting.remove();
    let root: web_sys::HtmlElement = root.unchecked_into();
    leptos::mount::mount_to(root, move || view! { <Panels find=find watch=watch /> }).forget();
    if let Some(input) = focused
        .filter(|id| id == FIND || id == WATCH)
        .and_then(|id| input(&id))
    {
        let _ = input.focus();
    }
}

#[component]
fn Panels(find: String, watch: String) -> impl IntoView {
    let selected = RwSignal::new(None::<String>);
    // The selection first: the list answers `READY` with the feed so far, then its selection.
    bus::share_selection(selected);
    let feed = Feed::new();
    feed.follow_list();
    let personal = Personal::load();
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
    view! {
        <FindPlayer feed=feed selected=selected typed=find />
        <WatchList feed=feed personal=personal selected=selected typed=watch />
        <Detail feed=feed selected=selected personal=personal />
        <Toasts personal=personal selected=selected />
    }
}

/// The panels' forms as the list draws them until the panels come (the same ids and text, so
/// nothing moves when they take over); a server selected meanwhile shows what the list knows
/// of it at once.
#[component]
pub fn Waiting(feed: Feed, selected: RwSignal<Option<String>>) -> impl IntoView {
    let server = move || {
        let addr = selected.get()?;
        feed.servers.with(|all| all.get(&addr).cloned())
    };
    view! {
        <section class="tool" aria-labelledby="find-player-title">
            <h2 id="find-player-title">{tr!("find-player")}</h2>
            <input id=FIND type="search" placeholder=tr!("find-player-placeholder") autocomplete="off" />
            <ul class="found"></ul>
        </section>
        <section class="tool" aria-labelledby="watch-title">
            <h2 id="watch-title">{tr!("watch-list")}</h2>
            <form on:submit=|ev| ev.prevent_default()>
                <input id=WATCH type="text" placeholder=tr!("watch-list-placeholder") />
                <button type="submit">{tr!("watch")}</button>
            </form>
            <Show when=|| !notifications_allowed()>
                <button type="button" class="ask" on:click=|_| ask_for_notifications()>
                    {tr!("notify-me")}
                </button>
            </Show>
            <ul class="watched"></ul>
        </section>
        <aside class="detail">
            {move || match server() {
                None => view! { <p class="hint">{tr!(crate::pages::browser::detail::HINT)}</p> }.into_any(),
                Some(s) => view! {
                    <h2 inner_html=crate::parts::coloured::markup(&s.hostname)></h2>
                    <p class="connect"><code>{format!("/connect {}", s.addr)}</code></p>
                    <p>{tr!("waiting-line", map = s.map.as_str(), mode = s.gametype.as_str(), players = cells::players(&s), ping = crate::words::say(&cells::ping(&s)))}</p>
                    <p class="hint">{tr!("waiting-loading")}</p>
                }.into_any(),
            }}
        </aside>
    }
}
