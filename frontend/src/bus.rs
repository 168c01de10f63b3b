//! What the browser's two modules say to each other. The list (`muster-frontend`) is all the
//! first download carries; the side panels (server detail, Find player, the watch list and its
//! alerts, Wulfram II; `muster-panels`, `panels.rs`) are a wasm of their own, fetched once the
//! list is on screen. Each module has its own reactive graph, so what they share goes as DOM
//! events on `window`: the feed's messages (the list forwards what its socket receives: one
//! socket per page, and the relay's bytes decoded by each side), the selected server, and a
//! change to a value kept in localStorage.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CustomEvent, CustomEventInit};

/// A whole feed message (its parts joined), from the list to the panels.
const FEED: &str = "muster-feed";
/// The panels are listening: the list replays what they missed.
const READY: &str = "muster-panels-ready";
/// The selected server's address, or null; from whichever side changed it.
const SELECT: &str = "muster-select";
/// A localStorage key that one side wrote.
const SAVED: &str = "muster-saved";

/// Messages kept for panels not yet listening; past this (the panels never came) no more are.
const WAITING_MAX: usize = 2_000;

fn dispatch(name: &str, detail: &JsValue) {
    let init = CustomEventInit::new();
    init.set_detail(detail);
    if let Ok(event) = CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = window().dispatch_event(&event);
    }
}

/// Calls `on` with each `name` event's detail, for the page's life.
fn listen(name: &str, on: impl Fn(JsValue) + 'static) {
    let handle = window_event_listener_untyped(name, move |event| {
        if let Ok(event) = event.dyn_into::<CustomEvent>() {
            on(event.detail());
        }
    });
    // The listener lives as long as the page: nothing to remove.
    drop(handle);
}

/// The list's side: forwards each feed message to the panels, keeping those since the last
/// list for panels not yet listening.
#[derive(Default)]
pub struct ToPanels {
    /// `None` once the panels listen (or never came and the list stopped keeping).
    waiting: Option<Vec<js_sys::Uint8Array>>,
    listening: bool,
}

impl ToPanels {
    pub fn new() -> Self {
        Self {
            waiting: Some(Vec::new()),
            listening: false,
        }
    }

    /// One whole message; `list` if it is a new list (what came before it is then moot).
    pub fn send(&mut self, bytes: &[u8], list: bool) {
        if !self.listening && self.waiting.is_none() {
            return;
        }
        let message = js_sys::Uint8Array::from(bytes);
        if self.listening {
            dispatch(FEED, &message);
        } else if let Some(waiting) = &mut self.waiting {
            if list {
                waiting.clear();
            }
            if waiting.len() < WAITING_MAX {
                waiting.push(message);
            } else {
                self.waiting = None;
            }
        }
    }

    /// The panels listen: what they missed, then the selection.
    fn ready(&mut self, selected: Option<String>) {
        self.listening = true;
        for message in self.waiting.take().unwrap_or_default() {
            dispatch(FEED, &message);
        }
        dispatch(SELECT, &selected.map_or(JsValue::NULL, JsValue::from));
    }
}

/// The list's side: answers the panels' `READY` through `to_panels`, then calls `on_ready`.
pub fn serve_panels(
    to_panels: StoredValue<ToPanels>,
    selected: RwSignal<Option<String>>,
    on_ready: impl Fn() + 'static,
) {
    listen(READY, move |_| {
        to_panels.update_value(|to| to.ready(selected.get_untracked()));
        on_ready();
    });
}

/// The panels' side: each feed message the list forwards, from the start (they ask for a
/// replay once listening).
pub fn from_list(on: impl Fn(Vec<u8>) + 'static) {
    listen(FEED, move |detail| {
        if let Ok(bytes) = detail.dyn_into::<js_sys::Uint8Array>() {
            on(bytes.to_vec());
        }
    });
    dispatch(READY, &JsValue::NULL);
}

/// Both sides: one selected server. A change here is told to the other side, and the other's
/// is taken here; the first value is not told (the panels learn the list's when they start).
pub fn share_selection(selected: RwSignal<Option<String>>) {
    listen(SELECT, move |detail| {
        let addr = detail.as_string();
        if selected.with_untracked(|s| *s != addr) {
            selected.set(addr);
        }
    });
    Effect::new(move |told: Option<()>| {
        let addr = selected.get();
        if told.is_some() {
            dispatch(SELECT, &addr.map_or(JsValue::NULL, JsValue::from));
        }
    });
}

/// Both sides: this side saved `key`.
pub fn saved(key: &str) {
    dispatch(SAVED, &JsValue::from(key));
}

/// Both sides: calls `on` when either side saved `key`.
pub fn on_saved(key: &'static str, on: impl Fn() + 'static) {
    listen(SAVED, move |detail| {
        if detail.as_string().as_deref() == Some(key) {
            on();
        }
    });
}

/// The panels' wasm, named by the build in `<meta name="muster-panels" content="JS"
/// data-wasm="WASM">`, loaded and started; nothing if this build has none.
pub fn load_panels() {
    let meta = document()
        .query_selector("meta[name=muster-panels]")
        .ok()
        .flatten();
    let name = |attribute: &str| meta.as_ref()?.get_attribute(attribute);
    let (Some(js), Some(wasm)) = (name("content"), name("data-wasm")) else {
        leptos::logging::warn!("this build names no side panels (meta muster-panels)");
        return;
    };
    let load = js_sys::Function::new_with_args(
        "js, wasm",
        "return import(js).then(function (m) { return m.default({ module_or_path: wasm }); })",
    );
    let _ = load.call2(&JsValue::NULL, &JsValue::from(js), &JsValue::from(wasm));
}
