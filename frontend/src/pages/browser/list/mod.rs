//! The server list: the in-game filters, free-text search and sorting on every column, kept in
//! the URL; rows rendered only where the list is scrolled to, so thousands stay smooth.

mod filters;
mod heading;
mod hold;
mod order;
mod row;
mod url;
mod window;

use leptos::prelude::*;
use protocol::browse::{cells, View};

use crate::feed::Feed;
use crate::personal::Personal;
use filters::Filters;
use heading::{Heading, Progress, Tabs};
use hold::Hold;
use order::Order;
use row::Row;
pub use url::view_from_url;
use window::{px, RowWindow};

/// Which servers the list draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    All,
    Favorites,
    Recent,
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// A clock for the rows' "seen" ages, ticking every 5 s while the list is open.
fn age_clock() -> RwSignal<u64> {
    let clock = RwSignal::new(now_ms());
    let tick = set_interval_with_handle(
        move || clock.set(now_ms()),
        std::time::Duration::from_secs(5),
    );
    on_cleanup(move || {
        if let Ok(tick) = tick {
            tick.clear();
        }
    });
    clock
}

/// Marks the first time rows are on screen, for the page benchmark.
fn mark_first_rows(shown: RwSignal<Order>) {
    Effect::new(move |marked: Option<bool>| {
        if marked == Some(true) {
            return true;
        }
        let any = shown.with(|s| !s.is_empty());
        if any {
            request_animation_frame(|| crate::feed::mark("muster-list-shown"));
        }
        any
    });
}

#[component]
pub fn ServerList(
    feed: Feed,
    selected: RwSignal<Option<String>>,
    view: RwSignal<View>,
    personal: Personal,
) -> impl IntoView {
    let tab = RwSignal::new(Tab::All);
    url::follow(view);
    let hold = Hold::new();
    let shown = hold.shown(order::ordered(feed, view, tab, personal), view, tab);
    mark_first_rows(shown);
    let online = order::online(feed);
    let rows = RowWindow::new();
    rows.keys_without_focus(shown, selected);
    view! {
        <section class="list" aria-label=tr!("nav-servers")>
            <Tabs tab=tab />
            <Filters feed=feed view=view />
            <p class="summary" data-testid="summary">
                {move || crate::words::say(&cells::summary(feed.servers.with(|s| s.len()), online.get(), shown.with(|s| s.len())))}
            </p>
            <Progress feed=feed />
            <div
                class="table-scroll"
                node_ref=rows.container
                on:scroll=move |_| {
                    hold.a_while();
                    rows.scrolled();
                }
                on:keydown=move |ev| rows.key(ev, shown, selected)
                on:pointerenter=move |ev| hold.pointer_enter(ev)
                on:pointerleave=move |ev| hold.pointer_leave(ev)
                on:focusin=move |ev| hold.focus_in(ev)
                on:focusout=move |_| hold.focus_out()
                on:touchstart=move |_| hold.a_while()
                data-held=move || hold.held.get().to_string()
                tabindex="-1"
            >
                <table class="servers">
                    <Heading view=view />
                    <Rows rows=rows shown=shown feed=feed selected=selected personal=personal held=hold.held />
                </table>
            </div>
            <CountryCredit />
        </section>
    }
}

/// The credit the country database's licence asks for (DB-IP's CC BY 4.0: a link back),
/// when the relay has one.
#[component]
fn CountryCredit() -> impl IntoView {
    let about = LocalResource::new(|| async {
        let text = crate::net::fetch_text("/api/countries").await?;
        crate::net::from_json::<protocol::relay_api::CountryDatabase>(&text)
    });
    move || {
        let about = about.get().flatten()?;
        let (text, url) = (about.attribution?, about.attribution_url?);
        Some(view! {
            <p class="credit" data-testid="country-credit">
                {tr!("countries-credit")} <a href=url rel="noopener" target="_blank">{text}</a>
            </p>
        })
    }
}

/// The rows in the scrolled window, with spacers for those above and below.
#[component]
fn Rows(
    rows: RowWindow,
    shown: RwSignal<Order>,
    feed: Feed,
    selected: RwSignal<Option<String>>,
    personal: Personal,
    held: RwSignal<bool>,
) -> impl IntoView {
    let clock = age_clock();
    let range = move || rows.rows(shown.with(|s| s.len()));
    view! {
        <tbody>
            <tr class="spacer" aria-hidden="true">
                <td colspan="9" style:height=move || px(range().0 as f64 * rows.row_px.get())></td>
            </tr>
            // A row is a place in the list, not a server: when the search or the filters
            // change what is shown, the rows in view keep their elements and only their text
            // changes, which costs a keystroke far less than new rows.
            <For
                each=move || {
                    let (first, last, _) = range();
                    first..last
                }
                key=|at| *at
                let:at
            >
                <Row
                    addr=Memo::new(move |_| shown.with(|list| list.get(at).cloned()))
                    feed=feed
                    selected=selected
                    clock=clock
                    personal=personal
                    held=held
                />
            </For>
            <tr class="spacer" aria-hidden="true">
                <td colspan="9" style:height=move || {
                    let (_, last, total) = range();
                    px((total - last) as f64 * rows.row_px.get())
                }></td>
            </tr>
        </tbody>
    }
}
