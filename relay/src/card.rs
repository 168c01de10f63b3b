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

/// A card's picture, as Open Graph and Twitter read it: the page's own address, the image
/// (PNG, `width` x `height`) and its title.
pub struct Picture<'a> {
    pub url: &'a str,
    pub image: &'a str,
    pub width: u32,
    pub height: u32,
    pub title: &'a str,
}

/// The tags that make a pasted link unfurl with `picture`.
pub fn picture(picture: &Picture) -> Markup {
    html! {
        meta property="og:url" content=(picture.url);
        meta property="og:image" content=(picture.image);
        meta property="og:image:type" content="image/png";
        meta property="og:image:width" content=(picture.width);
        meta property="og:image:height" content=(picture.height);
        meta name="twitter:card" content="summary_large_image";
        meta name="twitter:title" content=(picture.title);
        meta name="twitter:image" content=(picture.image);
    }
}
