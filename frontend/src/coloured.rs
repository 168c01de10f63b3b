//! Names drawn in the game's `^N` colours.

use leptos::prelude::*;
use protocol::cod::text;

/// `text` with its colour codes rendered as coloured spans (CSS classes `c0`..`c7`).
#[component]
pub fn Coloured(#[prop(into)] text: String) -> impl IntoView {
    text::spans(&text)
        .into_iter()
        .map(|span| view! { <span class=format!("c{}", span.colour)>{span.text}</span> })
        .collect_view()
}
