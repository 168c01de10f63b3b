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
            <span class="subtitle">{subtitle}</span>
            {children.map(|c| c())}
            <nav aria-label="Pages">
                <a href="/" class:current=link(Page::Servers) aria-current=said(Page::Servers)>"Servers"</a>
                <a href="/tuning/" class:current=link(Page::Tuning) aria-current=said(Page::Tuning)>"Tuning"</a>
                // In the demo player this changes only the hash: it does not load anew.
                <a href="/playback/#/demos" class:current=link(Page::Demos) aria-current=said(Page::Demos)>"Demos"</a>
                // The relay's own pages: matches followed, players, leaderboards.
                <a href="/matches">"Matches"</a>
            </nav>
        </header>
    }
}
