//! "Share" under a match watched through the relay: asks the relay to cut a moment around
//! where the view is (20 s before to 10 s after by default, adjustable, at most 2 minutes) and
//! shows its link (`/m/ID`) to copy or open. The relay clamps the end to the live edge, so a
//! moment never shows more than the broadcast delay allows.

use leptos::prelude::*;
use protocol::relay_api::moments::{
    MomentAsk, MomentCreated, DEFAULT_AFTER_S, DEFAULT_BEFORE_S, MAX_SPAN_S,
};

use super::rewind::Rewinder;
use crate::net::{from_json, post_json, to_json};

/// What sharing came to: nothing yet, waiting, a link, or why not.
#[derive(Clone, PartialEq)]
enum Shared {
    Idle,
    Asking,
    Link(String),
    Refused(String),
}

async fn ask(server: String, at_us: u64, before: f64, after: f64) -> Shared {
    let at_ms = (at_us / 1000) as f64;
    let ask = MomentAsk {
        server,
        from: at_ms - before * 1000.0,
        to: at_ms + after * 1000.0,
    };
    let Some(body) = to_json(&ask) else {
        return Shared::Refused(tr!("moment-unwritable"));
    };
    match post_json("/api/moments", &body).await {
        Ok((201, text)) => match from_json::<MomentCreated>(&text) {
            Some(created) => {
                let origin = window().location().origin().unwrap_or_default();
                Shared::Link(format!("{origin}{}", created.url))
            }
            None => Shared::Refused(tr!("relay-answer-unreadable")),
        },
        Ok((_, text)) => Shared::Refused(text),
        Err(e) => Shared::Refused(e),
    }
}

/// Seconds from a number box, kept within a clip's limit.
fn seconds(ev: &leptos::ev::Event, keep: f64) -> f64 {
    event_target_value(ev)
        .parse::<f64>()
        .map_or(keep, |s| s.clamp(0.0, MAX_SPAN_S))
}

/// A number of seconds to set, in a clip's limit.
#[component]
fn Seconds(label: &'static str, testid: &'static str, value: RwSignal<f64>) -> impl IntoView {
    view! {
        <label>{tr!(label)}
            <input type="number" min="0" max="120" step="1" data-testid=testid
                prop:value=move || value.get().to_string()
                on:change=move |ev| value.set(seconds(&ev, value.get_untracked())) />
            {tr!("seconds-unit")}
        </label>
    }
}

#[component]
pub(super) fn Share(rewinder: Rewinder) -> impl IntoView {
    let before = RwSignal::new(DEFAULT_BEFORE_S);
    let after = RwSignal::new(DEFAULT_AFTER_S);
    let shared = RwSignal::new(Shared::Idle);
    let share = move |_| {
        let (server, at_us) = (rewinder.server(), rewinder.at_us());
        let (before, after) = (before.get_untracked(), after.get_untracked());
        // Within 2 minutes: what is before the moment is kept first.
        let after = after.min(MAX_SPAN_S - before);
        shared.set(Shared::Asking);
        leptos::task::spawn_local(async move {
            shared.set(ask(server, at_us, before, after).await);
        });
    };
    let copy = move |_| {
        if let Shared::Link(link) = shared.get_untracked() {
            let _ = window().navigator().clipboard().write_text(&link);
        }
    };
    view! {
        <div class="share" data-testid="share">
            <button type="button" data-testid="share-moment" on:click=share
                disabled=move || shared.get() == Shared::Asking>
                {tr!("moment-share")}
            </button>
            <Seconds label="moment-from" testid="share-before" value=before />
            <Seconds label="moment-to" testid="share-after" value=after />
            {move || match shared.get() {
                Shared::Idle => ().into_any(),
                Shared::Asking => view! { <span>{tr!("moment-cutting")}</span> }.into_any(),
                Shared::Link(link) => view! {
                    <input type="text" readonly data-testid="moment-link" class="moment-link"
                        prop:value=link.clone() aria-label=tr!("moment-link") />
                    <button type="button" on:click=copy>{tr!("copy")}</button>
                    <a href=link target="_blank" rel="noopener">{tr!("open")}</a>
                }.into_any(),
                Shared::Refused(why) => view! {
                    <span class="error" data-testid="share-error">{why}</span>
                }.into_any(),
            }}
        </div>
    }
}
