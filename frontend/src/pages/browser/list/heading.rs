//! What sits above the rows: the tabs, the refresh progress and the column headings.

use leptos::prelude::*;
use protocol::browse::{cells, Column, View};

use super::Tab;
use crate::feed::Feed;

/// Which servers the list draws from.
#[component]
pub fn Tabs(tab: RwSignal<Tab>) -> impl IntoView {
    view! {
        <div class="tabs" role="tablist">
            {[(Tab::All, "all", "tab-all"), (Tab::Favorites, "favorites", "tab-favorites"), (Tab::Recent, "recent", "tab-recent")]
                .into_iter()
                .map(|(t, name, label)| view! {
                    <button
                        type="button"
                        role="tab"
                        data-tab=name
                        aria-selected=move || (tab.get() == t).to_string()
                        class:current=move || tab.get() == t
                        on:click=move |_| tab.set(t)
                    >
                        {tr!(label)}
                    </button>
                })
                .collect_view()}
        </div>
    }
}

/// The refresh progress bar: answered of total in the current refresh.
#[component]
pub fn Progress(feed: Feed) -> impl IntoView {
    view! {
        <div class="progress" data-testid="progress">
            <progress
                max=move || feed.progress.get().total.max(1)
                value=move || feed.progress.get().finished
                aria-label=tr!("progress")
            ></progress>
            <span>
                {move || feed.progress.with(|p| crate::words::say(&cells::progress(p)))}
            </span>
        </div>
    }
}

/// The column headings, each sorting by its column.
#[component]
pub fn Heading(view: RwSignal<View>) -> impl IntoView {
    view! {
        <thead>
            <tr>
                <SortHeader view=view column=Column::Name label="col-server" />
                <SortHeader view=view column=Column::Map label="col-map" />
                <SortHeader view=view column=Column::Gametype label="col-mode" />
                <SortHeader view=view column=Column::Mod label="col-mod" />
                <SortHeader view=view column=Column::Players label="col-players" />
                <SortHeader view=view column=Column::Ping label="col-ping" />
                <SortHeader view=view column=Column::Matches label="col-matches" />
                <th scope="col">{tr!("col-flags")}</th>
                <th scope="col" class="num">{tr!("col-seen")}</th>
                <th scope="col"><span class="visually-hidden">{tr!("col-favorite")}</span></th>
            </tr>
        </thead>
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
    let numeric = matches!(column, Column::Players | Column::Ping | Column::Matches);
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
                {tr!(label)}
                {arrow}
            </button>
        </th>
    }
}
