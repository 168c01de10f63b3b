//! The hand-over from the relay's first screen (`relay/src/browse/html.rs`: the top of the list
//! as plain HTML in `index.html`) to the page's code: the app is built hidden beside it, with
//! the same markup, and shown in its place in one frame once its list has come, so no second
//! list appears and no row moves. What the visitor did meanwhile carries over: the text typed
//! in the search box, its focus, and how far the list was scrolled.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement};

const FIRST_SCREEN: &str = "first-screen";
const APP: &str = "app";

/// The element the app mounts in: hidden while the relay's first screen is shown.
pub fn app_root() -> HtmlElement {
    let doc = document();
    let root: HtmlElement = doc.create_element("div").expect("a div").unchecked_into();
    root.set_id(APP);
    if doc.get_element_by_id(FIRST_SCREEN).is_some() {
        root.set_hidden(true);
    }
    let _ = doc.body().expect("a body").append_child(&root);
    root
}

fn inside(parent: &Element, css: &str) -> Option<Element> {
    parent.query_selector(css).ok().flatten()
}

/// Shows the app in the first screen's place, once; the text typed into the first screen's
/// search box, if any, for the app's view.
pub fn hand_over() -> Option<String> {
    let doc = document();
    let first = doc.get_element_by_id(FIRST_SCREEN)?;
    let app: HtmlElement = doc.get_element_by_id(APP)?.unchecked_into();
    let search =
        inside(&first, "input[name=q]").and_then(|i| i.dyn_into::<HtmlInputElement>().ok());
    let typed = search.as_ref().map(HtmlInputElement::value);
    let focused = doc
        .active_element()
        .is_some_and(|e| e.id() == "first-search");
    let list_scrolled = inside(&first, ".table-scroll").map_or(0, |e| e.scroll_top());
    let page_scrolled = window().scroll_y().unwrap_or(0.0);
    // The first screen goes before the app shows, and a scroll is set only where there is one
    // to carry over: setting one makes the browser lay the page out there and then, once for
    // each, and the app's first layout is a good part of the hand-over.
    first.remove();
    app.set_hidden(false);
    if list_scrolled > 0 {
        if let Some(list) = inside(&app, ".table-scroll") {
            list.set_scroll_top(list_scrolled);
        }
    }
    if page_scrolled > 0.0 {
        window().scroll_to_with_x_and_y(0.0, page_scrolled);
    }
    if focused {
        if let Some(input) = doc
            .get_element_by_id("search")
            .and_then(|i| i.dyn_into::<HtmlInputElement>().ok())
        {
            let _ = input.focus();
        }
    }
    crate::feed::mark("muster-hand-over");
    typed.filter(|t| !t.is_empty())
}
