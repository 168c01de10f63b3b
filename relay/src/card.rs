//! The head every relay-made HTML page shares: its title, and the Open Graph tags that make a
//! card of a link pasted into a chat or a forum (each page adds its kind and image).

use axum::http::{header, HeaderMap};
use maud::{html, Markup};

/// Charset, viewport, title, description and the card's site, title and description.
pub fn head(title: &str, description: &str) -> Markup {
    html! {
        meta charset="utf-8";
        meta name="viewport" content="width=device-width, initial-scale=1";
        title { (title) " · Muster" }
        meta name="description" content=(description);
        meta property="og:site_name" content="Muster";
        meta property="og:title" content=(title);
        meta property="og:description" content=(description);
        link rel="icon" href="data:,";
    }
}

/// `scheme://host` of this request, for the absolute addresses cards need.
pub fn origin(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let https = headers
        .get("x-forwarded-proto")
        .is_some_and(|p| p.as_bytes() == b"https");
    format!("{}://{host}", if https { "https" } else { "http" })
}
