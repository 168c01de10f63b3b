//! The favourite toggle, in the list's rows and the server detail.

use leptos::prelude::*;

use crate::personal::Personal;

/// The favourite toggle; it does not select the row it sits in.
#[component]
pub fn Star(#[prop(into)] addr: Signal<String>, personal: Personal) -> impl IntoView {
    let favorite = Memo::new(move |_| {
        personal.favorites.track();
        addr.with(|addr| personal.is_favorite(addr))
    });
    view! {
        <button
            type="button"
            class="star"
            data-testid="star"
            aria-pressed=move || favorite.get().to_string()
            aria-label=move || if favorite.get() { tr!("favorite-remove") } else { tr!("favorite-add") }
            on:click=move |ev| {
                ev.stop_propagation();
                personal.toggle_favorite(&addr.get_untracked());
            }
        >
            {move || if favorite.get() { "★" } else { "☆" }}
        </button>
    }
}
