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

/// `text` with its colour codes as the markup [`Coloured`] builds, for an `innerHTML`: the list's
/// rows set one string where `Coloured` would build an element per colour.
/// A server's name as the list shows it: its country's code as a badge (as the relay's first
/// screen draws it; flag emoji are letters or boxes on many systems), then the name in its
/// colours.
pub fn named(server: &protocol::relay_api::ServerInfo) -> String {
    let name = markup(&server.hostname);
    match &server.country {
        Some(code) => {
            let code = protocol::browse::escape_markup(code);
            let title = protocol::browse::escape_markup(&tr!("country-is", code = code.as_str()));
            format!("<span class=\"country\" title=\"{title}\">{code}</span> {name}")
        }
        None => name,
    }
}

pub fn markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for span in text::spans(text) {
        out.push_str("<span class=\"c");
        out.push(char::from(b'0' + span.colour));
        out.push_str("\">");
        out.push_str(&protocol::browse::escape_markup(&span.text));
        out.push_str("</span>");
    }
    out
}
