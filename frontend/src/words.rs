//! The visitor's language and its words: every string the page shows comes from the catalogue
//! of the language chosen here (the `muster-lang` cookie the header's chooser sets, which the
//! relay's own pages read too; else the first of the browser's languages Muster speaks; else
//! English). A change of language reloads the page, so the language is fixed for a page's life.

use std::sync::OnceLock;

use i18n::{catalogue, Arg, Lang};
use wasm_bindgen::JsCast;

/// The cookie both the page and the relay read the visitor's choice from.
pub const COOKIE: &str = "muster-lang";

/// The page's language, decided once at its start.
pub fn lang() -> Lang {
    static CHOSEN: OnceLock<Lang> = OnceLock::new();
    *CHOSEN.get_or_init(|| chosen().unwrap_or_else(browsers))
}

/// The visitor's own choice, from the cookie.
fn chosen() -> Option<Lang> {
    let cookies = leptos::prelude::document()
        .dyn_into::<web_sys::HtmlDocument>()
        .ok()?
        .cookie()
        .ok()?;
    cookies.split(';').find_map(|c| {
        let (name, value) = c.trim().split_once('=')?;
        (name == COOKIE).then(|| Lang::from_tag(value)).flatten()
    })
}

/// The first of the browser's languages Muster speaks.
fn browsers() -> Lang {
    let wanted: Vec<String> = leptos::prelude::window()
        .navigator()
        .languages()
        .iter()
        .filter_map(|l| l.as_string())
        .collect();
    Lang::first_of(wanted.iter().map(String::as_str))
}

/// Marks the document with its language (screen readers' voice, the browser's hyphenation) and
/// gives it its title in that language, unless the relay wrote the page (its title is the
/// match's or the moment's, already in the visitor's language). Every entry point calls it.
pub fn start(title: Option<&str>) {
    let doc = leptos::prelude::document();
    if let Some(html) = doc.document_element() {
        let _ = html.set_attribute("lang", lang().tag());
    }
    if let Some(title) = title {
        doc.set_title(&t(title));
    }
}

/// Keeps `to` as the visitor's language (a year, on every path) and loads the page again in it.
pub fn choose(to: Lang) {
    if let Ok(doc) = leptos::prelude::document().dyn_into::<web_sys::HtmlDocument>() {
        let _ = doc.set_cookie(&format!(
            "{COOKIE}={}; path=/; max-age=31536000; SameSite=Lax",
            to.tag()
        ));
    }
    let _ = leptos::prelude::window().location().reload();
}

/// The message `id` in the page's language.
pub fn t(id: &str) -> String {
    catalogue(lang()).text(id)
}

/// The message `id` with its arguments; `tr!` is the shorter way to call it.
pub fn with(id: &str, args: &[(&str, Arg<'_>)]) -> String {
    catalogue(lang()).with(id, args)
}

/// What the shared code decided to say, in the page's language.
pub fn say(said: &protocol::said::Said) -> String {
    catalogue(lang()).say(said)
}

/// `tr!("id")` or `tr!("id", name = value, …)`: the message in the page's language.
#[macro_export]
macro_rules! tr {
    ($id:expr) => {
        $crate::words::t($id)
    };
    ($id:expr, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::words::with($id, &[$((stringify!($name), i18n::Arg::from($value))),+])
    };
}
