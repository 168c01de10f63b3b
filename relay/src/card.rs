//! The head every relay-made HTML page shares: its title, and the Open Graph tags that make a
//! card of a link pasted into a chat or a forum (each page adds its kind and image).

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
