//! The in-game filters and the free-text search, folded away on a phone.

use leptos::prelude::*;
use protocol::browse::{Tri, View, NO_COUNTRY};

use crate::feed::Feed;

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
            {tr!(label)}
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
            <span>{tr!(label)}</span>
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
                <option value="any">{tr!("tri-any")}</option>
                <option value="yes">{tr!("tri-yes")}</option>
                <option value="no">{tr!("tri-no")}</option>
            </select>
        </label>
    }
}

/// A country filter's choice: its code and how many servers.
fn country_option(code: &str, servers: usize) -> String {
    if code == NO_COUNTRY {
        tr!("country-none-option", count = servers)
    } else {
        format!("{code} ({servers})")
    }
}

/// The search box and the filters.
#[component]
pub fn Filters(feed: Feed, view: RwSignal<View>) -> impl IntoView {
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
    // The countries the list has, each with its count, for the country filter.
    let countries = Memo::new(move |_| {
        let mut count: std::collections::BTreeMap<String, usize> = Default::default();
        feed.servers.with(|s| {
            for server in s.values() {
                let code = server.country.clone().unwrap_or_else(|| NO_COUNTRY.into());
                *count.entry(code).or_default() += 1;
            }
        });
        count.into_iter().collect::<Vec<_>>()
    });
    view! {
        <form class="toolbar" role="search" on:submit=|ev| ev.prevent_default()>
            <label for="search" class="search">
                <span class="visually-hidden">{tr!("search")}</span>
                <input
                    id="search"
                    type="search"
                    placeholder=tr!("search-placeholder")
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
                {move || view.with(|v| crate::words::say(&v.filters_label()))}
            </button>
        </form>
        <div class="filters" id="filters" hidden=move || !open.get()>
            <label for="gametype">
                <span>{tr!("col-mode")}</span>
                <select
                    id="gametype"
                    prop:value=move || view.with(|v| v.gametype.clone())
                    on:change=move |ev| {
                        let g = event_target_value(&ev);
                        view.update(|v| v.gametype = g);
                    }
                >
                    <option value="">{tr!("filter-all")}</option>
                    <For each=move || gametypes.get() key=|g| g.clone() let:g>
                        <option value=g.clone()>{g.clone()}</option>
                    </For>
                </select>
            </label>
            <label for="country">
                <span>{tr!("filter-country")}</span>
                <select
                    id="country"
                    prop:value=move || view.with(|v| v.countries.join(","))
                    on:change=move |ev| {
                        let code = event_target_value(&ev);
                        view.update(|v| v.countries = if code.is_empty() { Vec::new() } else { vec![code] });
                    }
                >
                    <option value="">{tr!("filter-all")}</option>
                    <For each=move || countries.get() key=|c| c.clone() let:c>
                        <option value=c.0.clone()>{country_option(&c.0, c.1)}</option>
                    </For>
                </select>
            </label>
            <label for="max-ping">
                <span>{tr!("filter-max-ping")}</span>
                <input
                    id="max-ping"
                    type="number"
                    min="0"
                    placeholder=tr!("tri-any")
                    prop:value=move || view.with(|v| v.max_ping.map(|p| p.to_string()).unwrap_or_default())
                    on:input=move |ev| {
                        let limit = event_target_value(&ev).trim().parse().ok();
                        view.update(|v| v.max_ping = limit);
                    }
                />
            </label>
            {check_box(view, "show-empty", "filter-empty", |v| v.show_empty, |v, on| v.show_empty = on)}
            {check_box(view, "show-full", "filter-full", |v| v.show_full, |v, on| v.show_full = on)}
            {check_box(view, "hide-unreachable", "filter-answering", |v| v.hide_unreachable, |v, on| v.hide_unreachable = on)}
            {check_box(view, "show-gone", "filter-long-down", |v| v.show_gone, |v, on| v.show_gone = on)}
            {tri_select(view, "f-password", "filter-password", |v| v.password, |v, t| v.password = t)}
            {tri_select(view, "f-pure", "filter-pure", |v| v.pure, |v, t| v.pure = t)}
            {tri_select(view, "f-dedicated", "filter-dedicated", |v| v.dedicated, |v, t| v.dedicated = t)}
            {tri_select(view, "f-pb", "filter-punkbuster", |v| v.punkbuster, |v, t| v.punkbuster = t)}
            {tri_select(view, "f-mod", "col-mod", |v| v.modded, |v, t| v.modded = t)}
            {tri_select(view, "f-ff", "filter-friendly-fire", |v| v.friendly_fire, |v, t| v.friendly_fire = t)}
            {tri_select(view, "f-killcam", "filter-killcam", |v| v.killcam, |v, t| v.killcam = t)}
            {tri_select(view, "f-jeeps", "filter-jeeps", |v| v.jeeps, |v, t| v.jeeps = t)}
            {tri_select(view, "f-tanks", "filter-tanks", |v| v.tanks, |v, t| v.tanks = t)}
            <button type="button" on:click=move |_| view.set(View::default())>{tr!("filter-reset")}</button>
        </div>
    }
}
