//! Rows rendered only where the list is scrolled to, so thousands stay smooth; the arrow keys
//! move the selection through them.

use leptos::prelude::*;

use super::order::Order;

/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: usize = 8;

/// Height of one row in pixels (the stylesheet fixes it too): one line on a wide screen, two
/// on a narrow one, where the row is laid out to fit.
fn row_height() -> f64 {
    let narrow = window()
        .match_media("(max-width: 600px)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches());
    if narrow {
        44.0
    } else {
        32.0
    }
}

/// A CSS length in whole pixels: rows are whole pixels tall.
pub fn px(length: f64) -> String {
    format!("{}px", length.round() as u64)
}

/// The scrolled part of the list.
#[derive(Clone, Copy)]
pub struct RowWindow {
    pub container: NodeRef<leptos::html::Div>,
    pub row_px: RwSignal<f64>,
    scroll_top: RwSignal<f64>,
    viewport: RwSignal<f64>,
}

impl RowWindow {
    /// Follows the window's size for as long as the list is open.
    pub fn new() -> Self {
        let row_px = RwSignal::new(row_height());
        let on_resize =
            window_event_listener(leptos::ev::resize, move |_| row_px.set(row_height()));
        on_cleanup(move || on_resize.remove());
        Self {
            container: NodeRef::new(),
            row_px,
            scroll_top: RwSignal::new(0.0),
            viewport: RwSignal::new(640.0),
        }
    }

    /// The first and past-the-last rows to render, and how many there are.
    pub fn rows(self, total: usize) -> (usize, usize, usize) {
        let row = self.row_px.get();
        let first = ((self.scroll_top.get() / row) as usize).saturating_sub(OVERSCAN);
        let count = (self.viewport.get() / row) as usize + 2 * OVERSCAN;
        let first = first.min(total);
        (first, (first + count).min(total), total)
    }

    pub fn scrolled(self) {
        if let Some(el) = self.container.get() {
            self.scroll_top.set(f64::from(el.scroll_top()));
            self.viewport.set(f64::from(el.client_height()));
        }
    }

    /// Arrow keys move the selection through the shown servers, scrolling it into view.
    pub fn key(
        self,
        ev: leptos::ev::KeyboardEvent,
        shown: RwSignal<Order>,
        selected: RwSignal<Option<String>>,
    ) {
        let step: isize = match ev.key().as_str() {
            "ArrowDown" => 1,
            "ArrowUp" => -1,
            _ => return,
        };
        ev.prevent_default();
        let next = shown.with(|list| {
            let at = selected
                .get_untracked()
                .and_then(|a| list.iter().position(|s| **s == *a));
            let index = match at {
                Some(i) => (i as isize + step).clamp(0, list.len() as isize - 1) as usize,
                None => 0,
            };
            list.get(index).map(|s| (index, s.to_string()))
        });
        if let Some((index, addr)) = next {
            selected.set(Some(addr));
            self.reveal(index);
        }
    }

    fn reveal(self, index: usize) {
        let Some(el) = self.container.get() else {
            return;
        };
        let row = self.row_px.get_untracked();
        let top = index as f64 * row;
        let bottom = top + row;
        let visible =
            f64::from(el.scroll_top())..f64::from(el.scroll_top() + el.client_height()) - row;
        if !visible.contains(&top) {
            el.set_scroll_top(if top < visible.start {
                top
            } else {
                bottom - f64::from(el.client_height()) + row
            } as i32);
        }
    }

    /// An update can move the focused row in the DOM, which drops its focus to the body; keys
    /// pressed then still move the selection, as long as nothing else holds the focus.
    pub fn keys_without_focus(self, shown: RwSignal<Order>, selected: RwSignal<Option<String>>) {
        let listener = window_event_listener(leptos::ev::keydown, move |ev| {
            let unfocused = document()
                .active_element()
                .is_none_or(|el| el.tag_name() == "BODY");
            if unfocused && self.container.get().is_some() {
                self.key(ev, shown, selected);
            }
        });
        on_cleanup(move || listener.remove());
    }
}
