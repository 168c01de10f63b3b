//! The list's view kept in the page's URL, so a search or a sort can be shared as a link.

use leptos::prelude::*;
use protocol::browse::View;

/// How long the view rests before the URL follows it.
const URL_REST_MS: u64 = 250;

/// The view the page's URL describes.
pub fn view_from_url() -> View {
    View::from_query(&window().location().search().unwrap_or_default())
}

/// Makes the URL follow the view once it rests: `history.replaceState` costs a few
/// milliseconds, a good part of a keystroke's frame at 5,000 servers.
pub fn follow(view: RwSignal<View>) {
    let due = StoredValue::new_local(None::<TimeoutHandle>);
    Effect::new(move |_| {
        view.track();
        if let Some(due) = due.get_value() {
            due.clear();
        }
        let next = set_timeout_with_handle(
            move || view.with_untracked(write_url),
            std::time::Duration::from_millis(URL_REST_MS),
        );
        due.set_value(next.ok());
    });
}

/// Keeps the URL in step with the view, without adding history entries.
fn write_url(view: &View) {
    let query = view.to_query();
    let url = if query.is_empty() {
        window()
            .location()
            .pathname()
            .unwrap_or_else(|_| "/".into())
    } else {
        format!("?{query}")
    };
    let hash = window().location().hash().unwrap_or_default();
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{url}{hash}")),
        );
    }
}
