//! The header every page shares: the name, what the page is about, and the links between the
//! pages (the browser at `/`, tuning at `/tuning/`, the watch view at `/watch/`, the demo player
//! at `/playback/`), each its own download.

use leptos::prelude::*;

/// The pages the header links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    Servers,
    Tuning,
    /// The watch view, reached from a server's detail; it has no link of its own.
    Watch,
    Demos,
    /// A shared moment (`/m/ID`): a clip of a match, not one of the demos; no link of its own.
    Moment,
}

/// `children` go between the subtitle and the links (the browser's connection state).
/// `subtitle` is the catalogue's id of what the page is about.
#[component]
pub fn PageHeader(
    subtitle: &'static str,
    #[prop(into)] current: Signal<Page>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let link = move |page: Page| move || current.get() == page;
    let said = move |page: Page| move || (current.get() == page).then_some("page");
    view! {
        <header>
            <h1>"Muster"</h1>
            <span class="subtitle">{tr!(subtitle)}</span>
            {children.map(|c| c())}
            <nav aria-label=tr!("nav-pages")>
                <a href="/" class:current=link(Page::Servers) aria-current=said(Page::Servers)>{tr!("nav-servers")}</a>
                <a href="/tuning/" class:current=link(Page::Tuning) aria-current=said(Page::Tuning)>{tr!("nav-tuning")}</a>
                // In the demo player this changes only the hash: it does not load anew.
                <a href="/playback/#/demos" class:current=link(Page::Demos) aria-current=said(Page::Demos)>{tr!("nav-demos")}</a>
                // The relay's own pages: matches followed, players, leaderboards.
                <a href="/matches">{tr!("nav-matches")}</a>
                // The best plays of the followed matches, each a clip.
                <a href="/highlights">{tr!("nav-highlights")}</a>
            </nav>
            <LanguageChooser />
        </header>
    }
}

/// The visitor's language, by its own name; sent, it is kept and the page loads again in it
/// (not on a mere change of the select: WCAG 3.2.2). The relay's pages draw the same form
/// (`language_chooser` in `relay/src/card.rs`), which works without script through `/lang`.
#[component]
fn LanguageChooser() -> impl IntoView {
    let now = crate::words::lang();
    let chosen = RwSignal::new(now);
    let back = window()
        .location()
        .pathname()
        .unwrap_or_else(|_| "/".into());
    let send = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        crate::words::choose(chosen.get_untracked());
    };
    view! {
        <form class="language" action="/lang" method="get" on:submit=send>
            <select
                name="to"
                aria-label=tr!("language")
                on:change=move |ev| {
                    if let Some(to) = i18n::Lang::from_tag(&event_target_value(&ev)) {
                        chosen.set(to);
                    }
                }
            >
                {i18n::Lang::ALL
                    .into_iter()
                    .map(|l| view! { <option value=l.tag() lang=l.tag() selected=l == now>{l.endonym()}</option> })
                    .collect_view()}
            </select>
            <input type="hidden" name="back" value=back />
            <button type="submit">{tr!("language-go")}</button>
        </form>
    }
}
