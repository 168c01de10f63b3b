//! What every relay-made HTML page shares: its head (the title, the app's own stylesheet, and
//! the Open Graph tags that make a card of a link pasted into a chat or a forum; each page adds
//! its kind and image) and the app's header, so a visitor who follows a link from the app to a
//! match, a player or a moment stays in one design.

use std::path::Path;

use axum::http::{header, HeaderMap};
use i18n::{Catalogue, Lang};
use maud::{html, Markup, PreEscaped};

/// The page's stylesheet source, inlined while no page is built.
pub const STYLE_SOURCE: &str = include_str!("../../assets/style.css");

/// The app's stylesheet, as the built page links it (one file the browser caches for every
/// page); while no page is built, its source inline, so the page reads the same.
pub fn stylesheet(dist: &Path) -> Markup {
    let built = std::fs::read_to_string(dist.join("index.html")).unwrap_or_default();
    let link = built.find("<link rel=\"stylesheet\"").and_then(|from| {
        let to = from + built[from..].find('>')?;
        Some(&built[from..=to])
    });
    match link {
        Some(link) => html! { (PreEscaped(link)) },
        None => html! { style { (PreEscaped(STYLE_SOURCE)) } },
    }
}

/// Which of the header's pages a page is (`Page` in `frontend/src/parts/header.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Current {
    Servers,
    Matches,
    Highlights,
    /// A page of its own (a moment): no link marked.
    None,
}

/// The header every page wears (`PageHeader` in `frontend/src/parts/header.rs`): the name,
/// what the page is about (`subtitle`, a catalogue id), `extra` (the list's connection state),
/// the links between the pages with this one marked, and the language chooser, which comes
/// back to `back` (this page's path) in the language chosen.
pub fn page_header(
    words: &Catalogue,
    subtitle: &str,
    current: Current,
    extra: Markup,
    back: &str,
) -> Markup {
    let marked = |page: Current| (page == current).then_some("current");
    html! {
        header {
            h1 { "Muster" }
            span class="subtitle" { (words.text(subtitle)) }
            (extra)
            nav aria-label=(words.text("nav-pages")) {
                a href="/" class=[marked(Current::Servers)] aria-current=[marked(Current::Servers).map(|_| "page")] { (words.text("nav-servers")) }
                a href="/tuning/" { (words.text("nav-tuning")) }
                a href="/playback/#/demos" { (words.text("nav-demos")) }
                a href="/matches" class=[marked(Current::Matches)] aria-current=[marked(Current::Matches).map(|_| "page")] { (words.text("nav-matches")) }
                a href="/highlights" class=[marked(Current::Highlights)] aria-current=[marked(Current::Highlights).map(|_| "page")] { (words.text("nav-highlights")) }
            }
            (language_chooser(words, back))
        }
    }
}

/// The language chooser (`LanguageChooser` in `frontend/src/parts/header.rs`, the same markup):
/// a form to `/lang` that works without script; a choice takes effect when sent, not on a mere
/// change of the select (WCAG 3.2.2: no change of context on input).
pub fn language_chooser(words: &Catalogue, back: &str) -> Markup {
    let now = words.lang();
    html! {
        form class="language" action="/lang" method="get" {
            select name="to" aria-label=(words.text("language")) {
                @for lang in Lang::ALL {
                    option value=(lang.tag()) lang=(lang.tag()) selected[lang == now] { (lang.endonym()) }
                }
            }
            input type="hidden" name="back" value=(back);
            button type="submit" { (words.text("language-go")) }
        }
    }
}

/// Charset, viewport, title, description and the card's site, title and description.
pub fn head(words: &Catalogue, title: &str, description: &str) -> Markup {
    html! {
        meta charset="utf-8";
        meta name="viewport" content="width=device-width, initial-scale=1";
        title { (title) (words.text("title-suffix")) }
        meta name="description" content=(description);
        meta property="og:site_name" content="Muster";
        meta property="og:title" content=(title);
        meta property="og:description" content=(description);
        link rel="icon" href="data:,";
    }
}

/// `scheme://host` of this request, for the absolute addresses cards need.
pub fn origin(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let https = headers
        .get("x-forwarded-proto")
        .is_some_and(|p| p.as_bytes() == b"https");
    format!("{}://{host}", if https { "https" } else { "http" })
}

/// A card's picture, as Open Graph and Twitter read it: the page's own address, the image
/// (PNG, `width` x `height`) and its title.
pub struct Picture<'a> {
    pub url: &'a str,
    pub image: &'a str,
    pub width: u32,
    pub height: u32,
    pub title: &'a str,
}

/// The tags that make a pasted link unfurl with `picture`.
pub fn picture(picture: &Picture) -> Markup {
    html! {
        meta property="og:url" content=(picture.url);
        meta property="og:image" content=(picture.image);
        meta property="og:image:type" content="image/png";
        meta property="og:image:width" content=(picture.width);
        meta property="og:image:height" content=(picture.height);
        meta name="twitter:card" content="summary_large_image";
        meta name="twitter:title" content=(picture.title);
        meta name="twitter:image" content=(picture.image);
    }
}

/// A highlight as every relay page shows it: its still (a link to its clip, `/m/ID`), what it
/// was, by whom, where, its score and when. The still is square (`moments::still::SIDE`), so
/// its box is known before it loads.
pub fn highlight(words: &Catalogue, h: &protocol::relay_api::highlights::Highlight) -> Markup {
    use protocol::cod::text::{spans, strip};
    let kind = words.text(h.kind.message_id());
    let alt = words.with(
        "highlight-by",
        &[
            ("kind", kind.as_str().into()),
            ("player", strip(&h.player).into()),
        ],
    );
    let player = protocol::relay_api::matches::segment(&crate::store::name_key(&h.player));
    html! {
        figure class="highlight" data-testid="highlight" data-kind=(h.kind.name()) {
            @if let Some(moment) = &h.moment {
                a href=(format!("/m/{moment}")) {
                    img src=(format!("/api/moments/{moment}.png")) alt=(alt) width="160" height="160" loading="lazy";
                }
            } @else {
                div class="no-clip" { (words.text("highlight-no-clip")) }
            }
            figcaption {
                strong { (kind) } " · "
                a href=(format!("/players/{player}")) { @for s in spans(&h.player) { span class=(format!("c{}", s.colour)) { (s.text) } } }
                br;
                (h.map) " · " (words.with("highlight-score", &[("score", h.score.into())]))
                br;
                span class="sub" { (words.date_time_utc(h.start_ms)) }
                @if let Some(moment) = &h.moment {
                    " · " a href=(format!("/m/{moment}")) { (words.text("highlight-watch")) }
                }
            }
        }
    }
}

/// What a relay-made page in the app's design is: its title and description, what the
/// header says it is about (`subtitle`, a catalogue id) and marks, where the language chooser
/// comes back to, and the tags of the page's code that takes it over (empty for none).
pub struct Sheet<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub subtitle: &'a str,
    pub current: Current,
    pub back: &'a str,
    pub code: String,
}

/// A relay-made page: the head, the header, and `body` as its first screen (shown until its
/// code, if any, takes over, and to whatever runs no code), cached ten seconds.
pub fn sheet(
    words: &Catalogue,
    dist: &Path,
    sheet: Sheet<'_>,
    body: Markup,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let page = html! {
        (maud::DOCTYPE)
        html lang=(words.lang().tag()) {
            head {
                (head(words, sheet.title, sheet.description))
                meta property="og:type" content="website";
                meta name="twitter:card" content="summary";
                (stylesheet(dist))
                (PreEscaped(sheet.code))
            }
            body class="sheet" {
                (page_header(words, sheet.subtitle, sheet.current, html! {}, sheet.back))
                div id="first-screen" { (body) }
            }
        }
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=10"),
            (header::VARY, crate::site::language::VARY),
        ],
        page.into_string(),
    )
        .into_response()
}
