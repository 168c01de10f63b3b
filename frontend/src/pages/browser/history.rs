//! History on the page: a server's population chart and busiest hours, the population
//! sparkline above the list, and where a name was seen before. The relay draws the charts as
//! SVG (cached, the same bytes for every page); the page only fetches and inserts them, so no
//! chart code is in its download. Values show on hover or tap through the page's CSS.

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::history::{PlayerSeen, RANGES};

use crate::net::fetch_text;
use crate::parts::coloured::Coloured;

/// The viewer's zone in minutes east of UTC, for chart labels.
fn tz_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

fn encode(text: &str) -> String {
    js_sys::encode_uri_component(text).into()
}

/// "2 h ago" from a time in ms since the Unix epoch.
pub fn ago(t_ms: u64) -> String {
    let secs = ((js_sys::Date::now() - t_ms as f64) / 1000.0).max(0.0) as u64;
    crate::words::say(&protocol::said::ago(secs))
}

/// The selected server's population over 24 h, 7 d, 30 d or a year, and its busiest hours.
#[component]
pub fn ServerHistory(selected: RwSignal<Option<String>>) -> impl IntoView {
    let addr = Memo::new(move |_| selected.get());
    let range = RwSignal::new("24h".to_owned());
    let svg = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let (Some(addr), range) = (addr.get(), range.get()) else {
            svg.set(None);
            return;
        };
        spawn_local(async move {
            let url = format!(
                "/api/servers/{}/history.svg?range={range}&tz={}",
                encode(&addr),
                tz_minutes()
            );
            svg.set(fetch_text(&url).await);
        });
    });
    let ranges = RANGES
        .iter()
        .filter(|(name, _, _)| ["24h", "7d", "30d", "1y"].contains(name))
        .map(|(name, _, _)| {
            let name = (*name).to_owned();
            let this = name.clone();
            view! {
                <button
                    type="button"
                    aria-pressed=move || (range.get() == this).to_string()
                    on:click={
                        let name = name.clone();
                        move |_| range.set(name.clone())
                    }
                >
                    {name.clone()}
                </button>
            }
        })
        .collect_view();
    view! {
        <Show when=move || addr.with(Option::is_some)>
            <section class="history" aria-labelledby="history-title">
                <h3 id="history-title">{tr!("history-title")}</h3>
                <div class="ranges" role="group" aria-label=tr!("history-range")>{ranges.clone()}</div>
                <div class="chart-box" data-testid="history-chart" inner_html=move || {
                    svg.get().unwrap_or_else(|| format!("<p class=\"hint\">{}</p>", tr!("history-none")))
                }></div>
            </section>
        </Show>
    }
}

/// Every server's players together over the last day, above the list.
#[component]
pub fn Sparkline(
    /// Becomes true once the list is on screen: the chart waits for it, so on a slow link it
    /// does not share the bandwidth with the page's code and the list.
    after: Signal<bool>,
) -> impl IntoView {
    let svg = RwSignal::new(None::<String>);
    let load = move || {
        spawn_local(async move {
            let url = format!("/api/history.svg?range=24h&tz={}", tz_minutes());
            if let Some(text) = fetch_text(&url).await {
                svg.set(Some(text));
            }
        })
    };
    Effect::new(move |loaded: Option<bool>| {
        if loaded == Some(true) || !after.get() {
            return loaded.unwrap_or(false);
        }
        load();
        true
    });
    // The totals are tallied once a minute; a fresh chart every five is plenty.
    let handle = set_interval_with_handle(load, std::time::Duration::from_secs(300)).ok();
    on_cleanup(move || {
        if let Some(h) = handle {
            h.clear();
        }
    });
    view! {
        <Show when=move || svg.with(Option::is_some)>
            <div class="sparkline-box" data-testid="sparkline" title=tr!("sparkline-title")
                inner_html=move || svg.get().unwrap_or_default()></div>
        </Show>
    }
}

/// Names seen before that match the text, for Find player: "last seen on X, 2 h ago".
#[component]
pub fn SeenBefore(text: RwSignal<String>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let seen = RwSignal::new(Vec::<PlayerSeen>::new());
    let asked = StoredValue::new(String::new());
    Effect::new(move |_| {
        let name = text.get().trim().to_owned();
        asked.set_value(name.clone());
        if name.chars().count() < 2 {
            seen.set(Vec::new());
            return;
        }
        spawn_local(async move {
            // Typing on: ask once the text has rested.
            crate::net::sleep(std::time::Duration::from_millis(250)).await;
            if asked.get_value() != name {
                return;
            }
            let url = format!("/api/players?name={}", encode(&name));
            let found = fetch_text(&url)
                .await
                .and_then(|body| crate::net::from_json::<Vec<PlayerSeen>>(&body))
                .unwrap_or_default();
            if asked.get_value() == name {
                seen.set(found);
            }
        });
    });
    view! {
        <ul class="found seen" data-testid="seen-before">
            {move || {
                seen.get()
                    .into_iter()
                    .filter(|p| p.online.is_none())
                    .take(10)
                    .map(|p| {
                        let addr = p.last_server.addr.clone();
                        let shown = addr.clone();
                        view! {
                            <li data-testid="seen-player" data-addr=shown>
                                <Coloured text=p.name.clone() />
                                {tr!("seen-last-on")}
                                <button type="button" on:click=move |_| selected.set(Some(addr.clone()))>
                                    <Coloured text=p.last_server.hostname.clone() />
                                </button>
                                ", "
                                {ago(p.last_seen_ms)}
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}
