//! The server list: the in-game filters, free-text search and sorting on every column, kept in
//! the URL; rows rendered only where the list is scrolled to, so thousands stay smooth.

use std::sync::Arc;

use leptos::prelude::*;
use protocol::browse::{cells, plain_lower, search_text, text_matches, Column, Tri, View};
use protocol::relay_api::{Reachability, ServerInfo};

use crate::feed::Feed;
use crate::personal::Personal;

/// Which servers the list draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tab {
    All,
    Favorites,
    Recent,
}

/// A CSS length in whole pixels: rows are whole pixels tall.
fn px(length: f64) -> String {
    format!("{}px", length.round() as u64)
}

/// Height of one row in pixels (the stylesheet fixes it too): one line on a wide screen, two
/// on a narrow one, where the row is laid out to fit.
fn row_height() -> f64 {
    let narrow = window()
        .match_media("(max-width: 600px)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches());
    if narrow {
        44.0
    } else {
        32.0
    }
}
/// How long the order waits after a touch or a scroll, in milliseconds.
const HOLD_AFTER_TOUCH_MS: f64 = 3000.0;
/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: usize = 8;

/// The view the page's URL describes.
pub fn view_from_url() -> View {
    View::from_query(&window().location().search().unwrap_or_default())
}

/// How long the view rests before the URL follows it.
const URL_REST_MS: u64 = 250;

/// Keeps the URL in step with the view, without adding history entries.
fn write_url(view: &View) {
    let query = view.to_query();
    let url = if query.is_empty() {
        window()
            .location()
            .pathname()
            .unwrap_or_else(|_| "/".into())
    } else {
        format!("?{query}")
    };
    let hash = window().location().hash().unwrap_or_default();
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{url}{hash}")),
        );
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

#[component]
pub fn ServerList(
    feed: Feed,
    selected: RwSignal<Option<String>>,
    view: RwSignal<View>,
    personal: Personal,
) -> impl IntoView {
    let tab = RwSignal::new(Tab::All);
    // The URL follows the view once it rests: `history.replaceState` costs a few milliseconds,
    // a good part of a keystroke's frame at 5,000 servers.
    let url_due = StoredValue::new_local(None::<TimeoutHandle>);
    Effect::new(move |_| {
        view.track();
        if let Some(due) = url_due.get_value() {
            due.clear();
        }
        let due = set_timeout_with_handle(
            move || view.with_untracked(write_url),
            std::time::Duration::from_millis(URL_REST_MS),
        );
        url_due.set_value(due.ok());
    });
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
    // The shown servers' addresses, in two steps so that a keystroke costs one substring test
    // per server and no sort: the pool (the directory through the tab, the filters and the
    // sort), recomputed when one of those changes; then the search text over the pool, whose
    // order it keeps. Each server's search text is rebuilt only when that server changes: a new
    // answer, or its player names arriving (the players index follows the list).
    type Stamp = (Option<u64>, usize);
    /// A server in the pool: its address and its search text, shared rather than copied, so
    /// a keystroke's scan allocates nothing per server.
    type Entry = (Arc<str>, Arc<str>);
    let index = StoredValue::new(std::collections::HashMap::<String, (Stamp, Entry)>::new());
    let criteria = Memo::new(move |_| {
        view.with(|v| View {
            text: String::new(),
            ..v.clone()
        })
    });
    let pool = Memo::new(move |_| -> Arc<Vec<Entry>> {
        let keep: Option<Vec<String>> = match tab.get() {
            Tab::All => None,
            Tab::Favorites => Some(personal.favorites.get()),
            Tab::Recent => Some(personal.recent.get()),
        };
        feed.servers.with(|all| {
            index.update_value(|index| {
                index.retain(|addr, _| all.contains_key(addr));
                for server in all.values() {
                    let stamp = (server.updated_ms, server.players.len());
                    let stale = index
                        .get(&server.addr)
                        .is_none_or(|(known, _)| *known != stamp);
                    if stale {
                        let entry = (server.addr.as_str().into(), search_text(server).into());
                        index.insert(server.addr.clone(), (stamp, entry));
                    }
                }
            });
            index.with_value(|index| {
                criteria.with(|v| {
                    let entry = |s: &ServerInfo| index.get(&s.addr).map(|(_, e)| e);
                    let pool = all
                        .values()
                        .filter(|s| keep.as_ref().is_none_or(|k| k.contains(&s.addr)))
                        .map(|s| (s, entry(s).map_or("", |(_, text)| &**text)));
                    Arc::new(
                        v.apply_indexed(pool)
                            .into_iter()
                            .filter_map(|s| entry(s).cloned())
                            .collect(),
                    )
                })
            })
        })
    });
    // Addresses only: rows fetch their server when they are drawn.
    let ordered = Memo::new(move |_| -> Arc<Vec<Arc<str>>> {
        let needle = view.with(|v| plain_lower(&v.text));
        pool.with(|pool| {
            Arc::new(
                pool.iter()
                    .filter(|(_, text)| needle.is_empty() || text_matches(&needle, text))
                    .map(|(addr, _)| addr.clone())
                    .collect(),
            )
        })
    });
    // Rows do not move under the pointer or a finger: while the pointer is over the list, and
    // for a while after a touch or a scroll, the order the live updates would give waits (a
    // changed row is marked instead); what the visitor asks (search, filters, sort, tab) is
    // shown at once.
    let held = RwSignal::new(false);
    // Shared, not copied: the list can hold every address of a 5,000-server directory.
    let shown = RwSignal::new(Arc::new(Vec::<Arc<str>>::new()));
    let asked = StoredValue::new(None::<(View, Tab)>);
    Effect::new(move |_| {
        let order = ordered.get();
        let now_asked = (view.get(), tab.get());
        let changed_view = asked.with_value(|a| a.as_ref() != Some(&now_asked));
        if changed_view || !held.get() {
            asked.set_value(Some(now_asked));
            shown.set(order);
        }
    });
    let quiet_at = StoredValue::new(0.0f64);
    let pointer_over = StoredValue::new(false);
    // A row focused from the keyboard holds the order too: a row is a place on screen, and
    // Enter there must open the server the visitor moved to.
    let keyboard_inside = StoredValue::new(false);
    let release = move || {
        if !pointer_over.get_value()
            && !keyboard_inside.get_value()
            && js_sys::Date::now() >= quiet_at.get_value()
        {
            held.set(false);
        }
    };
    let hold_a_while = move || {
        let until = js_sys::Date::now() + HOLD_AFTER_TOUCH_MS;
        quiet_at.set_value(until);
        held.set(true);
        set_timeout(
            release,
            std::time::Duration::from_millis(HOLD_AFTER_TOUCH_MS as u64 + 10),
        );
    };
    let on_pointer_enter = move |ev: leptos::ev::PointerEvent| {
        if ev.pointer_type() == "mouse" {
            pointer_over.set_value(true);
            held.set(true);
        }
    };
    let on_pointer_leave = move |ev: leptos::ev::PointerEvent| {
        if ev.pointer_type() == "mouse" {
            pointer_over.set_value(false);
            release();
        }
    };
    let on_focus_in = move |ev: leptos::ev::FocusEvent| {
        let keyboard = event_target::<web_sys::Element>(&ev)
            .matches(":focus-visible")
            .unwrap_or(false);
        keyboard_inside.set_value(keyboard);
        if keyboard {
            held.set(true);
        }
    };
    let on_focus_out = move |_: leptos::ev::FocusEvent| {
        keyboard_inside.set_value(false);
        release();
    };
    // The first time rows are on screen, for the page benchmark.
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
    // Counted when the directory changes, not on every keystroke that redraws the summary.
    let online = Memo::new(move |_| {
        feed.servers.with(|all| {
            all.values()
                .filter(|s| s.reachability == Reachability::Online)
                .count()
        })
    });
    let row_px = RwSignal::new(row_height());
    let on_resize = window_event_listener(leptos::ev::resize, move |_| row_px.set(row_height()));
    on_cleanup(move || on_resize.remove());
    let scroll_top = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(640.0f64);
    let container = NodeRef::<leptos::html::Div>::new();
    let window_rows = move || {
        let total = shown.with(|s| s.len());
        let row = row_px.get();
        let first = ((scroll_top.get() / row) as usize).saturating_sub(OVERSCAN);
        let count = (viewport.get() / row) as usize + 2 * OVERSCAN;
        let first = first.min(total);
        (first, (first + count).min(total), total)
    };
    let on_scroll = move |_| {
        hold_a_while();
        if let Some(el) = container.get() {
            scroll_top.set(f64::from(el.scroll_top()));
            viewport.set(f64::from(el.client_height()));
        }
    };
    // Arrow keys move the selection through the shown servers; Enter keeps it.
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let step: isize = match ev.key().as_str() {
            "ArrowDown" => 1,
            "ArrowUp" => -1,
            _ => return,
        };
        ev.prevent_default();
        let next = shown.with(|list| {
            let at = selected
                .get_untracked()
                .and_then(|a| list.iter().position(|s| **s == *a));
            let index = match at {
                Some(i) => (i as isize + step).clamp(0, list.len() as isize - 1) as usize,
                None => 0,
            };
            list.get(index).map(|s| (index, s.to_string()))
        });
        if let Some((index, addr)) = next {
            selected.set(Some(addr));
            if let Some(el) = container.get() {
                let row = row_px.get_untracked();
                let top = index as f64 * row;
                let bottom = top + row;
                let visible = f64::from(el.scroll_top())
                    ..f64::from(el.scroll_top() + el.client_height()) - row;
                if !visible.contains(&top) {
                    el.set_scroll_top(if top < visible.start {
                        top
                    } else {
                        bottom - f64::from(el.client_height()) + row
                    } as i32);
                }
            }
        }
    };
    // An update can move the focused row in the DOM, which drops its focus to the body; keys
    // pressed then still move the selection, as long as nothing else holds the focus.
    let keys_without_focus = window_event_listener(leptos::ev::keydown, move |ev| {
        let unfocused = document()
            .active_element()
            .is_none_or(|el| el.tag_name() == "BODY");
        if unfocused && container.get().is_some() {
            on_keydown(ev);
        }
    });
    on_cleanup(move || keys_without_focus.remove());
    view! {
        <section class="list" aria-label="Servers">
            <div class="tabs" role="tablist">
                {[(Tab::All, "All servers"), (Tab::Favorites, "Favorites"), (Tab::Recent, "Recently viewed")]
                    .into_iter()
                    .map(|(t, label)| view! {
                        <button
                            type="button"
                            role="tab"
                            data-tab=label
                            aria-selected=move || (tab.get() == t).to_string()
                            class:current=move || tab.get() == t
                            on:click=move |_| tab.set(t)
                        >
                            {label}
                        </button>
                    })
                    .collect_view()}
            </div>
            <Filters feed=feed view=view />
            <p class="summary" data-testid="summary">
                {move || cells::summary(feed.servers.with(|s| s.len()), online.get(), shown.with(|s| s.len()))}
            </p>
            <Progress feed=feed />
            <div
                class="table-scroll"
                node_ref=container
                on:scroll=on_scroll
                on:keydown=on_keydown
                on:pointerenter=on_pointer_enter
                on:pointerleave=on_pointer_leave
                on:focusin=on_focus_in
                on:focusout=on_focus_out
                on:touchstart=move |_| hold_a_while()
                data-held=move || held.get().to_string()
                tabindex="-1"
            >
                <table class="servers">
                    <thead>
                        <tr>
                            <SortHeader view=view column=Column::Name label="Server" />
                            <SortHeader view=view column=Column::Map label="Map" />
                            <SortHeader view=view column=Column::Gametype label="Mode" />
                            <SortHeader view=view column=Column::Mod label="Mod" />
                            <SortHeader view=view column=Column::Players label="Players" />
                            <SortHeader view=view column=Column::Ping label="Ping" />
                            <th scope="col">"Flags"</th>
                            <th scope="col" class="num">"Seen"</th>
                            <th scope="col"><span class="visually-hidden">"Favorite"</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        <tr class="spacer" aria-hidden="true">
                            <td colspan="9" style:height=move || px(window_rows().0 as f64 * row_px.get())></td>
                        </tr>
                        // A row is a place in the list, not a server: when the search or the
                        // filters change what is shown, the rows in view keep their elements and
                        // only their text changes, which costs a keystroke far less than new rows.
                        <For
                            each=move || {
                                let (first, last, _) = window_rows();
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
                                let (_, last, total) = window_rows();
                                px((total - last) as f64 * row_px.get())
                            }></td>
                        </tr>
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// The refresh progress bar: answered of total in the current refresh.
#[component]
fn Progress(feed: Feed) -> impl IntoView {
    view! {
        <div class="progress" data-testid="progress">
            <progress
                max=move || feed.progress.get().total.max(1)
                value=move || feed.progress.get().finished
                aria-label="Refresh progress"
            ></progress>
            <span>
                {move || feed.progress.with(cells::progress)}
            </span>
        </div>
    }
}

#[component]
fn SortHeader(view: RwSignal<View>, column: Column, label: &'static str) -> impl IntoView {
    let sorted = move || view.with(|v| (v.sort == column).then_some(v.descending));
    let aria = move || match sorted() {
        Some(true) => "descending",
        Some(false) => "ascending",
        None => "none",
    };
    let arrow = move || match sorted() {
        Some(true) => " ▼",
        Some(false) => " ▲",
        None => "",
    };
    let numeric = matches!(column, Column::Players | Column::Ping);
    view! {
        <th scope="col" aria-sort=aria class:num=numeric>
            <button
                type="button"
                class="sort"
                data-sort=column.as_str()
                on:click=move |_| view.update(|v| {
                    if v.sort == column {
                        v.descending = !v.descending;
                    } else {
                        v.sort = column;
                        // Numbers read best largest first, names A to Z.
                        v.descending = numeric;
                    }
                })
            >
                {label}
                {arrow}
            </button>
        </th>
    }
}

/// One on/off filter as a labelled checkbox.
fn check_box(
    view: RwSignal<View>,
    id: &'static str,
    label: &'static str,
    get: fn(&View) -> bool,
    set: fn(&mut View, bool),
) -> impl IntoView {
    view! {
        <label class="check">
            <input
                id=id
                type="checkbox"
                prop:checked=move || get(&view.get())
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    view.update(|v| set(v, on));
                }
            />
            {label}
        </label>
    }
}

/// One yes/no/any filter as a small select.
fn tri_select(
    view: RwSignal<View>,
    id: &'static str,
    label: &'static str,
    get: fn(&View) -> Tri,
    set: fn(&mut View, Tri),
) -> impl IntoView {
    let value = move || match get(&view.get()) {
        Tri::Any => "any",
        Tri::Yes => "yes",
        Tri::No => "no",
    };
    view! {
        <label for=id class="tri">
            <span>{label}</span>
            <select
                id=id
                prop:value=value
                on:change=move |ev| {
                    let tri = match event_target_value(&ev).as_str() {
                        "yes" => Tri::Yes,
                        "no" => Tri::No,
                        _ => Tri::Any,
                    };
                    view.update(|v| set(v, tri));
                }
            >
                <option value="any">"any"</option>
                <option value="yes">"yes"</option>
                <option value="no">"no"</option>
            </select>
        </label>
    }
}

#[component]
fn Filters(feed: Feed, view: RwSignal<View>) -> impl IntoView {
    // The filters fill a phone's screen: they open on a tap, the button counting those set.
    let open = RwSignal::new(false);
    let gametypes = Memo::new(move |_| {
        let mut all: Vec<String> = feed.servers.with(|s| {
            s.values()
                .map(|s| s.gametype.clone())
                .filter(|g| !g.is_empty())
                .collect()
        });
        all.sort();
        all.dedup();
        all
    });
    view! {
        <form class="toolbar" role="search" on:submit=|ev| ev.prevent_default()>
            <label for="search" class="search">
                <span class="visually-hidden">"Search"</span>
                <input
                    id="search"
                    type="search"
                    placeholder="server, map or player"
                    autocomplete="off"
                    prop:value=move || view.with(|v| v.text.clone())
                    on:input=move |ev| {
                        let text = event_target_value(&ev);
                        view.update(|v| v.text = text);
                    }
                />
            </label>
            <button
                type="button"
                class="filters-toggle"
                aria-controls="filters"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)
            >
                {move || view.with(View::filters_label)}
            </button>
        </form>
        <div class="filters" id="filters" hidden=move || !open.get()>
            <label for="gametype">
                <span>"Mode"</span>
                <select
                    id="gametype"
                    prop:value=move || view.with(|v| v.gametype.clone())
                    on:change=move |ev| {
                        let g = event_target_value(&ev);
                        view.update(|v| v.gametype = g);
                    }
                >
                    <option value="">"all"</option>
                    <For each=move || gametypes.get() key=|g| g.clone() let:g>
                        <option value=g.clone()>{g.clone()}</option>
                    </For>
                </select>
            </label>
            <label for="max-ping">
                <span>"Max ping"</span>
                <input
                    id="max-ping"
                    type="number"
                    min="0"
                    placeholder="any"
                    prop:value=move || view.with(|v| v.max_ping.map(|p| p.to_string()).unwrap_or_default())
                    on:input=move |ev| {
                        let limit = event_target_value(&ev).trim().parse().ok();
                        view.update(|v| v.max_ping = limit);
                    }
                />
            </label>
            {check_box(view, "show-empty", "empty", |v| v.show_empty, |v, on| v.show_empty = on)}
            {check_box(view, "show-full", "full", |v| v.show_full, |v, on| v.show_full = on)}
            {check_box(view, "hide-unreachable", "answering only", |v| v.hide_unreachable, |v, on| v.hide_unreachable = on)}
            {tri_select(view, "f-password", "Password", |v| v.password, |v, t| v.password = t)}
            {tri_select(view, "f-pure", "Pure", |v| v.pure, |v, t| v.pure = t)}
            {tri_select(view, "f-dedicated", "Dedicated", |v| v.dedicated, |v, t| v.dedicated = t)}
            {tri_select(view, "f-pb", "PunkBuster", |v| v.punkbuster, |v, t| v.punkbuster = t)}
            {tri_select(view, "f-mod", "Mod", |v| v.modded, |v, t| v.modded = t)}
            {tri_select(view, "f-ff", "Friendly fire", |v| v.friendly_fire, |v, t| v.friendly_fire = t)}
            {tri_select(view, "f-killcam", "Killcam", |v| v.killcam, |v, t| v.killcam = t)}
            {tri_select(view, "f-jeeps", "Jeeps", |v| v.jeeps, |v, t| v.jeeps = t)}
            {tri_select(view, "f-tanks", "Tanks", |v| v.tanks, |v, t| v.tanks = t)}
            <button type="button" on:click=move |_| view.set(View::default())>"Reset"</button>
        </div>
    }
}

#[component]
fn Row(
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
            <td class="flags">
                {move || flag(|s| s.password)().then(|| view! { <span class="flag" title="Password required">"PW"</span> })}
                {move || flag(|s| s.punkbuster)().then(|| view! { <span class="flag" title="PunkBuster">"PB"</span> })}
            </td>
            <td class="num age" title="Time since the server last answered">
                {move || cells::age(clock.get(), updated())}
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
    password: bool,
    punkbuster: bool,
    updated_ms: Option<u64>,
    reachability: Reachability,
}

impl RowData {
    fn of(server: &ServerInfo) -> Self {
        Self {
            hostname_html: crate::coloured::markup(&server.hostname),
            map: server.map.clone(),
            gametype: server.gametype.clone(),
            game: server.game.clone(),
            players: cells::players(server),
            ping: cells::ping(server),
            password: server.password,
            punkbuster: server.punkbuster,
            updated_ms: server.updated_ms,
            reachability: server.reachability,
        }
    }
}

/// The favourite toggle; it does not select the row it sits in.
#[component]
pub fn Star(#[prop(into)] addr: Signal<String>, personal: Personal) -> impl IntoView {
    let favorite = Memo::new(move |_| {
        personal.favorites.track();
        addr.with(|addr| personal.is_favorite(addr))
    });
    view! {
        <button
            type="button"
            class="star"
            data-testid="star"
            aria-pressed=move || favorite.get().to_string()
            aria-label=move || if favorite.get() { "Remove from favorites" } else { "Add to favorites" }
            on:click=move |ev| {
                ev.stop_propagation();
                personal.toggle_favorite(&addr.get_untracked());
            }
        >
            {move || if favorite.get() { "★" } else { "☆" }}
        </button>
    }
}
