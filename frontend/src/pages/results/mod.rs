//! The match and player pages (`/matches/ID`, `/players/NAME`), a wasm of their own
//! (`muster-results`) that the relay's HTML of those pages names: the relay's page is the
//! first screen, readable before and without this code, and this takes its place once its
//! data has come, then keeps a followed match live (every 5 s until it ends), filters the
//! kill feed by a name, sorts the scoreboard, and shows a rating per gametype.

mod one;
mod player;

use leptos::prelude::*;

use crate::first_screen;
use crate::net::{fetch_text, from_json};

/// Which page the location names.
enum Shown {
    Match(u64),
    Player(String),
}

fn shown_in_location() -> Option<Shown> {
    let path = window().location().pathname().ok()?;
    if let Some(id) = path.strip_prefix("/matches/") {
        return id.parse().ok().map(Shown::Match);
    }
    let name = path.strip_prefix("/players/")?;
    let name = js_sys::decode_uri_component(name).ok()?.as_string()?;
    Some(Shown::Player(name))
}

/// Mounts the page the location names beside the first screen; it takes the first screen's
/// place once it has its data.
pub fn start() {
    let Some(shown) = shown_in_location() else {
        return;
    };
    let root = first_screen::app_root();
    let view = move || match &shown {
        Shown::Match(id) => view! { <one::MatchPage id=*id /> }.into_any(),
        Shown::Player(name) => view! { <player::PlayerPage name=name.clone() /> }.into_any(),
    };
    leptos::mount::mount_to(root, view).forget();
}

/// GETs `url` as JSON into `T`.
async fn fetch_json<T: serde::de::DeserializeOwned>(url: &str) -> Option<T> {
    from_json(&fetch_text(url).await?)
}

/// The page's data has come: it takes the first screen's place, once.
fn shown_now() {
    if document().get_element_by_id("first-screen").is_some() {
        let _ = first_screen::hand_over();
    }
}

/// `2026-12-05 03:20 UTC`, as the relay's pages write a time (in the visitor's language).
fn when(ms: u64) -> String {
    i18n::catalogue(crate::words::lang()).date_time_utc(ms)
}

/// A chart the relay draws (SVG), inline as the relay's own page has it, so its values show
/// on hover through the page's styles.
/// Fetched with the page's data where it is known at once (`drawn`), so the page takes the
/// first screen's place with its charts in it and nothing moves after.
#[component]
fn Chart(url: String, #[prop(optional)] drawn: Option<String>) -> impl IntoView {
    let svg = RwSignal::new(drawn.clone().unwrap_or_default());
    if drawn.is_none() {
        leptos::task::spawn_local(async move {
            if let Some(text) = fetch_text(&url).await {
                svg.set(text);
            }
        });
    }
    view! { <div inner_html=move || svg.get()></div> }
}

/// A link to a name's page.
#[component]
fn PlayerLink(#[prop(into)] name: String) -> impl IntoView {
    let key = protocol::browse::plain_lower(&name).trim().to_owned();
    let href = format!("/players/{}", protocol::relay_api::matches::segment(&key));
    view! { <a href=href><crate::parts::coloured::Coloured text=name /></a> }
}
