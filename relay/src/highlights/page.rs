//! `/highlights`: the site's best plays, today's and this week's, and the latest, each its
//! still and its clip a click away; `?server=ADDR` and `?kind=KIND` narrow it (links to each
//! kind on the page). HTML from the relay, in the visitor's language and the app's design: it
//! needs no code, so a pasted link reads at once.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use i18n::Catalogue;
use maud::{html, Markup};
use protocol::relay_api::highlights::{Highlight, HighlightKind};

use super::Highlights;
use crate::card::{self, Current};
use crate::net::{unix_ms, ServerAddr};
use crate::site::language::words_for;
use crate::store::highlights::{self, Wanted};

/// Plays a section shows.
const SHOWN: u32 = 12;
const DAY_MS: u64 = 86_400_000;

fn section(words: &Catalogue, title: &str, plays: &[Highlight]) -> Markup {
    html! {
        h2 { (title) }
        @if plays.is_empty() {
            p class="hint" { (words.text("highlights-none")) }
        } @else {
            div class="highlights" { @for h in plays { (card::highlight(words, h)) } }
        }
    }
}

/// `GET /highlights[?server=ADDR][&kind=KIND]`.
pub(super) async fn page(
    State(h): State<Highlights>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let words = words_for(&headers);
    let server = query
        .get("server")
        .filter(|s| s.parse::<ServerAddr>().is_ok())
        .cloned();
    let kind = query.get("kind").and_then(|k| HighlightKind::from_name(k));
    let now = unix_ms();
    let wanted = |since_ms: Option<u64>, by_score: bool| Wanted {
        server: server.clone(),
        kind,
        since_ms,
        by_score,
        limit: SHOWN,
        ..Wanted::default()
    };
    let asked = [
        wanted(Some(now.saturating_sub(DAY_MS)), true),
        wanted(Some(now.saturating_sub(7 * DAY_MS)), true),
        wanted(None, false),
    ];
    let read = h
        .store
        .run(move |s| {
            let db = s.exec()?;
            asked
                .iter()
                .map(|w| highlights::list(db, w))
                .collect::<crate::store::Result<Vec<_>>>()
        })
        .await;
    let sections = match read {
        Ok(sections) => sections,
        Err(e) => {
            tracing::warn!("highlights: {e}");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                words.text("match-records-unavailable"),
            )
                .into_response();
        }
    };
    let title = words.text("highlights-title");
    let back = match (&server, kind) {
        (Some(s), _) => format!("/highlights?server={s}"),
        (None, Some(k)) => format!("/highlights?kind={}", k.name()),
        (None, None) => "/highlights".to_owned(),
    };
    let link = |k: Option<HighlightKind>| {
        let mut q: Vec<String> = Vec::new();
        if let Some(s) = &server {
            q.push(format!("server={s}"));
        }
        if let Some(k) = k {
            q.push(format!("kind={}", k.name()));
        }
        if q.is_empty() {
            "/highlights".to_owned()
        } else {
            format!("/highlights?{}", q.join("&"))
        }
    };
    let current = |k: Option<HighlightKind>| (k == kind).then_some("page");
    let body = html! {
        h1 { (title) }
        @if let Some(s) = &server { p class="sub" { (words.with("highlights-on-server", &[("server", s.as_str().into())])) } }
        nav class="kinds" aria-label=(words.text("highlights-all-kinds")) {
            a href=(link(None)) aria-current=[current(None)] { (words.text("highlights-all-kinds")) }
            @for k in HighlightKind::ALL { a href=(link(Some(k))) aria-current=[current(Some(k))] { (words.text(k.message_id())) } }
        }
        (section(words, &words.text("highlights-today"), &sections[0]))
        (section(words, &words.text("highlights-week"), &sections[1]))
        (section(words, &words.text("highlights-latest"), &sections[2]))
    };
    let sheet = card::Sheet {
        title: &title,
        description: &words.text("highlights-description"),
        subtitle: "subtitle-highlights",
        current: Current::Highlights,
        back: &back,
        code: String::new(),
    };
    card::sheet(words, &h.dist, sheet, body)
}
