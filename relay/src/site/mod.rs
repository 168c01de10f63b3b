//! What search engines read: `/robots.txt` (every public page may be crawled; the admin console
//! and the sockets are not pages) and `/sitemap.xml`, the public pages (the list, each server's
//! page, the matches, each match, each player who played one, each moment kept), so a search
//! for a server's or a player's name finds its page here. Addresses are absolute, from the
//! request's host (and `X-Forwarded-Proto` behind a proxy).

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use protocol::browse::escape_markup;
use protocol::relay_api::matches::segment;

use crate::seams::ServerStates;
use crate::store::sitemap::{listed, Listed};
use crate::store::worker::Workers;

/// At most this many of each kind from the store: the sitemap protocol takes 50,000 addresses
/// a file, and the newest are the ones worth a crawl.
const PER_KIND: u64 = 10_000;

#[derive(Clone)]
pub struct Site {
    pub servers: Arc<dyn ServerStates>,
    /// Matches, players and moments are listed only where there is a store.
    pub store: Option<Workers>,
}

pub mod language;

pub fn routes(site: Site) -> Router {
    Router::new()
        .route("/lang", get(language::choose))
        .route("/robots.txt", get(robots))
        .route("/sitemap.xml", get(sitemap))
        .with_state(site)
}

async fn robots(headers: HeaderMap) -> Response {
    let origin = crate::card::origin(&headers);
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("User-agent: *\nDisallow: /admin/\nDisallow: /ws\nDisallow: /lang\nAllow: /\n\nSitemap: {origin}/sitemap.xml\n"),
    )
        .into_response()
}

/// A day as a sitemap's `lastmod` writes it.
fn day(ms: u64) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::OffsetDateTime::from_unix_timestamp((ms / 1000) as i64)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_default()
}

async fn sitemap(State(site): State<Site>, headers: HeaderMap) -> Response {
    let origin = crate::card::origin(&headers);
    let stored = match &site.store {
        Some(store) => store
            .run(|s| listed(s.exec()?, PER_KIND))
            .await
            .unwrap_or_else(|e| {
                tracing::warn!("sitemap: reading the store: {e}");
                Listed::default()
            }),
        None => Listed::default(),
    };
    let mut pages: Vec<(String, Option<u64>)> = vec![("/".into(), None), ("/servers".into(), None)];
    for server in site.servers.states() {
        if server.up.is_some() {
            pages.push((format!("/server/{}", server.info.addr), None));
        }
    }
    if site.store.is_some() {
        pages.push(("/matches".into(), None));
        pages.push(("/highlights".into(), None));
    }
    pages.extend(
        stored
            .matches
            .iter()
            .map(|(id, at)| (format!("/matches/{id}"), Some(*at))),
    );
    pages.extend(
        (stored.players.iter()).map(|(key, at)| (format!("/players/{}", segment(key)), Some(*at))),
    );
    pages.extend(
        stored
            .moments
            .iter()
            .map(|(id, at)| (format!("/m/{id}"), Some(*at))),
    );
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (path, at) in pages {
        let loc = escape_markup(&format!("{origin}{path}"));
        let _ = match at {
            Some(at) => writeln!(
                xml,
                "<url><loc>{loc}</loc><lastmod>{}</lastmod></url>",
                day(at)
            ),
            None => writeln!(xml, "<url><loc>{loc}</loc></url>"),
        };
    }
    xml.push_str("</urlset>\n");
    (
        [
            (header::CONTENT_TYPE, "application/xml; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        xml,
    )
        .into_response()
}
