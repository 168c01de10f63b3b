//! A highlight as every page shows it (`highlight` in `relay/src/card.rs` draws the same for
//! the relay's first screens): its still, a link to its clip, what it was, by whom, where, its
//! score and when.

use leptos::prelude::*;
use protocol::cod::text::strip;
use protocol::relay_api::highlights::Highlight;

use crate::parts::coloured::Coloured;

/// The kind's name in the visitor's language.
pub fn kind_name(h: &Highlight) -> String {
    crate::words::t(h.kind.message_id())
}

/// What it was and by whom, in words: its still's text alternative and its clip's title.
pub fn described(h: &Highlight) -> String {
    tr!(
        "highlight-by",
        kind = kind_name(h).as_str(),
        player = strip(&h.player).as_str()
    )
}

/// The highlight's clip playing in a loop (the moment's own player, `/m/ID/embed`), where a
/// page opens with it: a match's play of the match. The frame is a picture to the keyboard,
/// out of the Tab order (its player would hold the focus in a second page of controls): the
/// card beside it links the clip's own page, where its player is at the keyboard's command.
#[component]
pub fn HighlightClip(h: Highlight) -> impl IntoView {
    h.moment.clone().map(|moment| {
        view! {
            <iframe class="clip" data-testid="highlight-clip" title=described(&h) tabindex="-1"
                src=format!("/m/{moment}/embed")></iframe>
        }
    })
}

#[component]
pub fn HighlightCard(h: Highlight) -> impl IntoView {
    let kind = kind_name(&h);
    let alt = described(&h);
    let key = protocol::browse::plain_lower(&h.player).trim().to_owned();
    let player = format!("/players/{}", protocol::relay_api::matches::segment(&key));
    let when = i18n::catalogue(crate::words::lang()).date_time_utc(h.start_ms);
    let still = match &h.moment {
        Some(moment) => view! {
            <a href=format!("/m/{moment}")>
                <img src=format!("/api/moments/{moment}.png") alt=alt width="160" height="160" loading="lazy" />
            </a>
        }
        .into_any(),
        None => view! { <div class="no-clip">{tr!("highlight-no-clip")}</div> }.into_any(),
    };
    let watch = h.moment.clone().map(|moment| {
        view! { " · " <a href=format!("/m/{moment}")>{tr!("highlight-watch")}</a> }
    });
    view! {
        <figure class="highlight" data-testid="highlight" data-kind=h.kind.name()>
            {still}
            <figcaption>
                <strong>{kind}</strong> " · "
                <a href=player><Coloured text=h.player.clone() /></a>
                <br />
                {h.map.clone()} " · " {tr!("highlight-score", score = h.score)}
                <br />
                <span class="sub">{when}</span>
                {watch}
            </figcaption>
        </figure>
    }
}
