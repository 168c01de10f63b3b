//! The list as HTML from the relay itself: `index.html` with its first screen already in it
//! (the top of the list in the default order), so a visitor reads server names while the
//! page's code is still on its way, or without it; and `/servers`, every server as a plain
//! list, paged, for a browser without JavaScript, a text browser or a search engine.
//!
//! The first screen is rendered once per feed keyframe and the same bytes (and their gzip) go
//! to every page, with an `ETag`. Its markup is the page's own (`frontend/src/pages/browser/`),
//! so the page's code takes over in place without a row moving; only its test ids
//! differ (`first-row`, `first-summary`), so a test can tell the two apart.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::{RawQuery, State};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use i18n::{catalogue, Catalogue, Lang};
use maud::{html, Markup, DOCTYPE};
use protocol::browse::{cells, View};
use protocol::cod::text;
use protocol::relay_api::{MasterStatus, Progress, Reachability, ServerInfo};

use super::{Directory, PageFeed};
use crate::site::language::{lang_of, VARY as VARY_LANGUAGE};
use crate::sync::Locked;

/// Rows in the first screen: a tall laptop's list, a phone's several times over.
pub const FIRST_ROWS: usize = 40;
/// Rows per page of the plain list.
pub const PLAIN_ROWS: usize = 100;

/// `index.html` while the page is not built (a relay started before its page, as
/// `cargo xtask run` does on a fresh machine so the list can be read while Trunk and the wasm
/// still compile): the page's own stylesheet inline and no code, so the first screen reads as
/// it will; a reload every 15 s keeps the list fresh and brings the page in once it is built.
const UNBUILT: &str = concat!(
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    "<meta http-equiv=\"refresh\" content=\"15\">",
    "<title>Muster: CoD:UO server browser</title><link rel=\"icon\" href=\"data:,\"><style>",
    include_str!("../../../assets/style.css"),
    ".unbuilt{position:fixed;left:0;right:0;bottom:0;margin:0;padding:.5rem 1rem;",
    "background:var(--panel);border-top:1px solid var(--line);font-size:.9rem}",
    "body{padding-bottom:4rem}</style></head><body>",
    "<p class=\"unbuilt\" role=\"status\" data-testid=\"unbuilt\">The page&#39;s code is not ",
    "built yet: this list reloads itself every 15 s until it is (<code>cargo xtask page</code> ",
    "builds it).</p></body></html>",
);

/// One rendering of `index.html`, shared by every page until the next keyframe.
struct Rendered {
    /// The keyframe it shows and the template it was made from (a rebuilt page changes it).
    made_from: (u64, Option<SystemTime>),
    etag: HeaderValue,
    plain: Bytes,
    gzip: Bytes,
}

/// The relay's HTML: the page's template from the build, and the latest first screen in each
/// language a visitor has asked for since.
pub struct Html {
    dist: PathBuf,
    directory: Arc<Directory>,
    feed: Arc<PageFeed>,
    latest: Mutex<std::collections::HashMap<Lang, Arc<Rendered>>>,
}

impl Html {
    pub fn new(dist: PathBuf, directory: Arc<Directory>, feed: Arc<PageFeed>) -> Arc<Self> {
        Arc::new(Self {
            dist,
            directory,
            feed,
            latest: Mutex::default(),
        })
    }

    /// The built page's time, or `None` while there is none.
    fn built(&self) -> Option<SystemTime> {
        std::fs::metadata(self.dist.join("index.html"))
            .and_then(|m| m.modified())
            .ok()
    }

    /// The built `index.html` and its time; [`UNBUILT`] while the page has not been built.
    fn template(&self) -> (String, Option<SystemTime>) {
        let modified = self.built();
        match std::fs::read_to_string(self.dist.join("index.html")) {
            Ok(template) if modified.is_some() => (template, modified),
            _ => (UNBUILT.to_owned(), None),
        }
    }

    /// The first screen for the default view in `lang`: the one kept if it shows the latest
    /// keyframe, else rendered now and kept.
    fn first_screen(&self, lang: Lang) -> Arc<Rendered> {
        // Only the template's time is read per request; the file itself only to render anew.
        let made_from = (self.feed.keyframe_seq(), self.built());
        let mut latest = self.latest.locked();
        if let Some(kept) = latest.get(&lang).filter(|r| r.made_from == made_from) {
            return kept.clone();
        }
        let (template, modified) = self.template();
        let made_from = (made_from.0, modified);
        let page = self.render(&template, &View::default(), catalogue(lang));
        let rendered = Arc::new(Rendered {
            made_from,
            etag: etag(&page),
            gzip: gzip(&page),
            plain: page,
        });
        latest.insert(lang, rendered.clone());
        rendered
    }

    /// `index.html` in `words`' language with the first screen of `view` after its `<body>`.
    fn render(&self, template: &str, view: &View, words: &Catalogue) -> Bytes {
        // Read apart: the directory's lock is not taken twice (a waiting writer would wedge it).
        let (masters, progress) = (self.directory.masters(), self.directory.progress());
        let screen = self.directory.with_servers(|all| {
            let total = all.len();
            let servers: Vec<&ServerInfo> = all.collect();
            let answering = answering(&servers);
            let shown = view.apply(servers.iter().copied());
            first_screen(
                words,
                view,
                &masters,
                (total, answering),
                &shown,
                &progress,
                unix_ms(),
            )
        });
        let template = in_language(template, words);
        let at = template
            .find("<body")
            .and_then(|b| template[b..].find('>').map(|e| b + e + 1))
            .unwrap_or(template.len());
        let mut page = String::with_capacity(template.len() + screen.len());
        page.push_str(&template[..at]);
        page.push_str(&screen);
        page.push_str(&template[at..]);
        Bytes::from(page)
    }
}

/// The built `index.html` in `words`' language: its `lang`, title and description (Trunk
/// builds it in English).
fn in_language(template: &str, words: &Catalogue) -> String {
    let mut page = template.replacen(
        "<html lang=\"en\">",
        &format!("<html lang=\"{}\">", words.lang().tag()),
        1,
    );
    let between = |page: &mut String, from: &str, to: &str, with: &str| {
        if let Some(start) = page.find(from).map(|s| s + from.len()) {
            if let Some(end) = page[start..].find(to).map(|e| start + e) {
                page.replace_range(start..end, &protocol::browse::escape_markup(with));
            }
        }
    };
    between(
        &mut page,
        "<title>",
        "</title>",
        &words.text("title-servers"),
    );
    between(
        &mut page,
        "<meta name=\"description\" content=\"",
        "\"",
        &words.text("description-servers"),
    );
    page
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn answering(servers: &[&ServerInfo]) -> usize {
    servers
        .iter()
        .filter(|s| s.reachability == Reachability::Online)
        .count()
}

fn etag(page: &[u8]) -> HeaderValue {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    hasher.write(page);
    HeaderValue::from_str(&format!("\"{:016x}\"", hasher.finish()))
        .unwrap_or(HeaderValue::from_static("\"0\""))
}

fn gzip(page: &[u8]) -> Bytes {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(page);
    encoder.finish().unwrap_or_default().into()
}

/// A name in the game's `^N` colours: the page's `Coloured`.
fn coloured(name: &str) -> Markup {
    html! {
        @for span in text::spans(name) {
            span class=(format!("c{}", span.colour)) { (span.text) }
        }
    }
}

/// One row as the page's list draws it (`Row` in `frontend/src/pages/browser/list/row.rs`, and `cells`).
/// The first row's name carries an `elementtiming` mark: when a visitor could first read a
/// server's name (`cargo xtask bench page`).
fn row(words: &Catalogue, server: &ServerInfo, now_ms: u64, first: bool) -> Markup {
    html! {
        tr class=(cells::reachability_class(server.reachability))
            data-testid="first-row" data-addr=(server.addr) tabindex="0" aria-selected="false" {
            td class="name" elementtiming=[first.then_some("first-server")] {
                @if let Some(code) = &server.country {
                    span.country title=(words.with("country-is", &[("code", code.as_str().into())])) { (code) } " "
                }
                (coloured(&server.hostname))
            }
            td { (server.map) }
            td { (server.gametype) }
            td { (server.game) }
            td class="num" { (cells::players(server)) }
            td class="num ping" { (words.say(&cells::ping(server))) }
            td class="num matches" title=(words.text("matches-today-title")) { (cells::matches(server)) }
            td class="flags" {
                @if server.password { span class="flag" title=(words.text("flag-password")) { (words.text("flag-password-short")) } }
                @if server.punkbuster { span class="flag" title="PunkBuster" { "PB" } }
            }
            td class="num age" title=(words.text("age-title")) {
                (words.say(&cells::age(now_ms, server.updated_ms)))
            }
            td {
                button type="button" class="star" aria-pressed="false"
                    aria-label=(words.text("favorite-add")) disabled { "☆" }
            }
        }
    }
}

/// The page's header and masters line (`PageHeader` in `frontend/src/parts/header.rs`, `Sources` in
/// `frontend/src/pages/browser/mod.rs`).
fn header(words: &Catalogue, masters: &[MasterStatus], total: usize) -> Markup {
    html! {
        (crate::card::page_header(
            words,
            "subtitle-servers",
            crate::card::Current::Servers,
            html! { span class="connection" { (words.text("feed-connecting")) } },
            "/",
        ))
        details class="sources" {
            summary data-testid="first-sources" { (words.say(&cells::sources(masters, total))) }
        }
    }
}

/// The column headings (`SortHeader` in `frontend/src/pages/browser/list/heading.rs`); on the
/// plain list they link to the list sorted by them.
fn head(words: &Catalogue) -> Markup {
    html! {
        thead {
            tr {
                @for (label, numeric, sorted) in [
                    ("col-server", false, false), ("col-map", false, false), ("col-mode", false, false),
                    ("col-mod", false, false), ("col-players", true, true), ("col-ping", true, false),
                    ("col-matches", true, false),
                ] {
                    th scope="col" aria-sort=(if sorted { "descending" } else { "none" }) class=[numeric.then_some("num")] {
                        button type="button" class="sort" disabled {
                            (words.text(label)) @if sorted { " ▼" }
                        }
                    }
                }
                th scope="col" { (words.text("col-flags")) }
                th scope="col" class="num" { (words.text("col-seen")) }
                th scope="col" { span class="visually-hidden" { (words.text("col-favorite")) } }
            }
        }
    }
}

/// The first screen: what the page draws before any change, with the top rows of the list.
fn first_screen(
    words: &Catalogue,
    view: &View,
    masters: &[MasterStatus],
    (total, answering): (usize, usize),
    shown: &[&ServerInfo],
    progress: &Progress,
    now_ms: u64,
) -> String {
    html! {
        div id="first-screen" {
            (header(words, masters, total))
            main {
                section class="list" aria-label=(words.text("nav-servers")) {
                    div class="tabs" role="tablist" {
                        @for (name, label, current) in [("all", "tab-all", true), ("favorites", "tab-favorites", false), ("recent", "tab-recent", false)] {
                            button type="button" role="tab" data-tab=(name)
                                aria-selected=(current.to_string()) class=[current.then_some("current")] { (words.text(label)) }
                        }
                    }
                    // Without the page's code, searching opens the plain list.
                    form class="toolbar" role="search" action="/servers" method="get" {
                        label for="first-search" class="search" {
                            span class="visually-hidden" { (words.text("search")) }
                            input id="first-search" name="q" type="search"
                                placeholder=(words.text("search-placeholder")) autocomplete="off" value=(view.text);
                        }
                        button type="button" class="filters-toggle" aria-expanded="false" disabled { (words.say(&view.filters_label())) }
                    }
                    p class="summary" data-testid="first-summary" { (words.say(&cells::summary(total, answering, shown.len()))) }
                    div class="progress" {
                        progress max=(progress.total.max(1)) value=(progress.finished) aria-label=(words.text("progress")) {}
                        span { (words.say(&cells::progress(progress))) }
                    }
                    div class="table-scroll" tabindex="-1" {
                        table class="servers" {
                            (head(words))
                            tbody {
                                tr class="spacer" aria-hidden="true" { td colspan="9" style="height:0px" {} }
                                @for (i, server) in shown.iter().take(FIRST_ROWS).enumerate() { (row(words, server, now_ms, i == 0)) }
                                @if shown.len() > FIRST_ROWS {
                                    tr class="more" { td colspan="9" {
                                        a href="/servers" { (words.with("plain-every-count", &[("count", shown.len().into())])) }
                                    } }
                                }
                            }
                        }
                    }
                    noscript { p { a href="/servers" { (words.text("plain-every")) } } }
                }
                div class="side" {}
            }
        }
    }
    .into_string()
}

/// The plain list's few styles, in the page (it loads nothing else): readable on a phone,
/// where the address, mod and age give way.
const PLAIN_STYLE: &str =
    "body{font:15px/1.4 system-ui,sans-serif;margin:1rem auto;max-width:72rem;padding:0 .75rem}\
h1{font-size:1.25rem}table{border-collapse:collapse;width:100%}\
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ccc;vertical-align:top}\
nav{margin:1rem 0;display:flex;gap:1.5rem}\
@media(max-width:600px){th:nth-child(n+6),td:nth-child(n+6){display:none}}";

/// `/servers?page=N&…`: one page of the list in the view the query names, as plain HTML.
fn plain_list(
    words: &Catalogue,
    view: &View,
    page: usize,
    servers: &[&ServerInfo],
    total: usize,
) -> String {
    let pages = servers.len().div_ceil(PLAIN_ROWS).max(1);
    let page = page.clamp(1, pages);
    let query = view.to_query();
    let link = |to: usize| {
        if query.is_empty() {
            format!("/servers?page={to}")
        } else {
            format!("/servers?page={to}&{query}")
        }
    };
    let now_ms = unix_ms();
    html! {
        (DOCTYPE)
        html lang=(words.lang().tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (words.with("plain-title", &[("page", page.into()), ("pages", pages.into())])) }
                style { (PLAIN_STYLE) }
                @if page > 1 { link rel="prev" href=(link(page - 1)); }
                @if page < pages { link rel="next" href=(link(page + 1)); }
            }
            body class="plain" {
                h1 { a href="/" { "Muster" } ": " (words.text("subtitle-servers")) }
                form action="/servers" method="get" role="search" {
                    label { (words.text("search")) " " input name="q" type="search" value=(view.text); }
                    " "
                    button type="submit" { (words.text("search")) }
                }
                p data-testid="plain-summary" {
                    (words.with("plain-summary", &[
                        ("shown", servers.len().into()),
                        ("total", total.into()),
                        ("page", page.into()),
                        ("pages", pages.into()),
                    ]))
                }
                table {
                    thead { tr {
                        @for label in ["col-server", "col-players", "col-ping", "col-map", "col-mode", "col-address", "col-mod", "col-seen"] {
                            th scope="col" { (words.text(label)) }
                        }
                    } }
                    tbody {
                        @for server in servers.iter().skip((page - 1) * PLAIN_ROWS).take(PLAIN_ROWS) {
                            tr data-testid="plain-row" {
                                td { (text::strip(&server.hostname)) }
                                td { (cells::players(server)) }
                                td { (words.say(&cells::ping(server))) } td { (server.map) } td { (server.gametype) }
                                td { a href=(format!("/watch/{}", server.addr)) { (server.addr) } }
                                td { (server.game) } td { (words.say(&cells::age(now_ms, server.updated_ms))) }
                            }
                        }
                    }
                }
                nav aria-label=(words.text("nav-pages")) {
                    @if page > 1 { a rel="prev" href=(link(page - 1)) { (words.text("plain-previous")) } " " }
                    @if page < pages { a rel="next" href=(link(page + 1)) { (words.text("plain-next")) } }
                }
            }
        }
    }
    .into_string()
}

/// Whether the request's `If-None-Match` names `etag`.
fn not_modified(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == etag.to_str().unwrap_or_default())
        })
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get(ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")))
}

fn html_response(headers: &HeaderMap, plain: Bytes, gzip: Bytes, etag: HeaderValue) -> Response {
    let mut response = if not_modified(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else if accepts_gzip(headers) && !gzip.is_empty() {
        let mut r = gzip.into_response();
        r.headers_mut()
            .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        r
    } else {
        plain.into_response()
    };
    let set = response.headers_mut();
    set.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // Always revalidated: the list changes, and the page's assets it names may too.
    set.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    set.insert(VARY, HeaderValue::from_static(VARY_LANGUAGE));
    set.insert(ETAG, etag);
    response
}

/// `GET /` and `/index.html`: the page with its first screen. The default view's is shared;
/// a shared link's view is rendered for it (no more work than `/api/servers`).
pub async fn index(
    State(html): State<Arc<Html>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let view = View::from_query(query.as_deref().unwrap_or_default());
    let lang = lang_of(&headers);
    if view == View::default() {
        let r = html.first_screen(lang);
        return html_response(&headers, r.plain.clone(), r.gzip.clone(), r.etag.clone());
    }
    let (template, _) = html.template();
    let page = html.render(&template, &view, catalogue(lang));
    let (etag, gzip) = (etag(&page), gzip(&page));
    html_response(&headers, page, gzip, etag)
}

/// `GET /server/{addr}`: the page, opening on that server, with Open Graph and Twitter card
/// tags (its banner as the image) so a pasted link unfurls.
pub async fn server_page(
    State(html): State<Arc<Html>>,
    axum::extract::Path(addr): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    use crate::seams::ServerRecords;
    let Some(server) = html.directory.record(&addr) else {
        let words = catalogue(lang_of(&headers));
        return (StatusCode::NOT_FOUND, words.text("not-listed")).into_response();
    };
    let origin = crate::card::origin(&headers);
    let lang = lang_of(&headers);
    let words = catalogue(lang);
    let name = text::strip(&server.hostname);
    let mut facts = vec![
        server.map.clone(),
        server.gametype.clone(),
        words.with(
            "card-players",
            &[("players", cells::players(&server).into())],
        ),
    ];
    facts.extend(server.country.clone());
    facts.push(server.addr.clone());
    let description = facts
        .into_iter()
        .filter(|f| !f.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    let image = format!("{origin}/banner/{addr}.png");
    let tags = html! {
        meta property="og:site_name" content="Muster";
        meta property="og:type" content="website";
        meta property="og:title" content=(name);
        meta property="og:description" content=(description);
        meta name="twitter:description" content=(description);
        (crate::card::picture(&crate::card::Picture {
            url: &format!("{origin}/server/{addr}"),
            image: &image,
            width: 560,
            height: 95,
            title: &name,
        }))
        meta name="muster-server" content=(addr);
    };
    let first = html.first_screen(lang);
    let page = String::from_utf8_lossy(&first.plain);
    let at = page.find("</head>").unwrap_or(0);
    let page = Bytes::from(format!(
        "{}{}{}",
        &page[..at],
        tags.into_string(),
        &page[at..]
    ));
    let (etag, gzip) = (etag(&page), gzip(&page));
    html_response(&headers, page, gzip, etag)
}

/// `GET /servers`: the plain list.
pub async fn servers(
    State(html): State<Arc<Html>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let query = query.unwrap_or_default();
    let view = View::from_query(&query);
    let page = query
        .split('&')
        .find_map(|p| p.strip_prefix("page="))
        .and_then(|p| p.parse().ok())
        .unwrap_or(1);
    let body = html.directory.with_servers(|all| {
        let total = all.len();
        let shown = view.apply(all);
        plain_list(catalogue(lang_of(&headers)), &view, page, &shown, total)
    });
    let body = Bytes::from(body);
    let (etag, gzip) = (etag(&body), gzip(&body));
    html_response(&headers, body, gzip, etag)
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use axum::Router;
    use std::io::Read;
    use tower::ServiceExt;

    use super::*;

    fn server(i: u32, clients: u32, name: &str) -> ServerInfo {
        let addr = std::net::SocketAddrV4::new([10, 0, 0, 1].into(), 20000 + i as u16);
        let mut s = crate::browse::poller::pending_server(addr, vec!["lan".into()]);
        s.reachability = Reachability::Online;
        s.hostname = name.into();
        s.map = "mp_carentan".into();
        s.gametype = "tdm".into();
        s.clients = clients;
        s.max_clients = 32;
        s.ping_ms = Some(40 + i);
        s
    }

    /// A relay's browse routes over `servers`, with a built page in a throwaway `dist`.
    fn relay(servers: Vec<ServerInfo>) -> (tempfile::TempDir, Arc<Directory>, Router) {
        let dist = tempfile::tempdir().unwrap();
        std::fs::write(
            dist.path().join("index.html"),
            "<!doctype html><html><head><title>t</title></head><body class=\"x\"><script src=\"/app.js\"></script></body></html>",
        )
        .unwrap();
        let directory = Arc::new(Directory::new(&[]));
        for s in servers {
            directory.upsert(s);
        }
        let feed = PageFeed::new(directory.clone());
        let routes = super::super::routes(directory.clone(), feed, dist.path().to_owned());
        (dist, directory, routes)
    }

    async fn get(router: &Router, uri: &str, headers: &[(&str, &str)]) -> Response {
        let mut request = Request::builder().uri(uri);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let request = request.body(Body::empty()).unwrap();
        router.clone().oneshot(request).await.unwrap()
    }

    async fn body(response: Response) -> String {
        let gzipped = response.headers().get(CONTENT_ENCODING).is_some();
        let bytes = axum::body::to_bytes(response.into_body(), 16 << 20)
            .await
            .unwrap();
        if gzipped {
            let mut text = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut text)
                .unwrap();
            text
        } else {
            String::from_utf8(bytes.to_vec()).unwrap()
        }
    }

    /// The `data-addr` of each row, in order.
    fn rows(page: &str) -> Vec<String> {
        page.split("data-addr=\"")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].to_owned())
            .collect()
    }

    #[tokio::test]
    async fn the_first_screen_speaks_the_visitor_s_language_and_each_is_kept_apart() {
        let servers: Vec<_> = (0..3).map(|i| server(i, 2, &format!("S{i}"))).collect();
        let (_dist, _directory, router) = relay(servers);
        let german = body(
            get(
                &router,
                "/",
                &[("accept-language", "de-DE,de;q=0.9,en;q=0.5")],
            )
            .await,
        )
        .await;
        assert!(
            german.contains("<title>Muster: CoD:UO-Serverbrowser</title>"),
            "{german}"
        );
        assert!(german.contains("3 Server, 3 antworten, 3 angezeigt"));
        assert!(german.contains(">Alle Server<"));
        assert!(german.contains("<option value=\"de\" lang=\"de\" selected>Deutsch</option>"));
        // The choice, kept in the cookie, wins over the browser's languages; English stays
        // English for the next visitor.
        let russian = body(
            get(
                &router,
                "/",
                &[("accept-language", "de"), ("cookie", "muster-lang=ru")],
            )
            .await,
        )
        .await;
        assert!(
            russian.contains("Серверов: 3, отвечают: 3, показано: 3"),
            "{russian}"
        );
        let english = get(&router, "/", &[]).await;
        assert_eq!(
            english.headers()[VARY],
            "Accept-Encoding, Accept-Language, Cookie"
        );
        assert!(body(english)
            .await
            .contains("3 servers, 3 answering, 3 shown"));
    }

    #[tokio::test]
    async fn the_page_comes_with_the_top_of_the_list_in_the_default_order() {
        // Fuller servers first (the default sort), 60 of them: the first screen holds 40.
        let servers: Vec<_> = (0..60)
            .map(|i| server(i, i % 30, &format!("^1Srv^7 {i}")))
            .collect();
        let mut expected: Vec<&ServerInfo> = servers.iter().collect();
        expected = View::default().apply(expected);
        let (_dist, _directory, router) = relay(servers.clone());
        let response = get(&router, "/", &[]).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[CACHE_CONTROL], "no-cache");
        let page = body(response).await;
        // The template is whole (titled in the visitor's language), the first screen straight
        // after its <body ...>.
        assert!(page.starts_with("<!doctype html><html><head><title>Muster: CoD:UO server browser</title></head><body class=\"x\"><div id=\"first-screen\">"));
        assert!(page.ends_with("</div><script src=\"/app.js\"></script></body></html>"));
        let want: Vec<String> = expected
            .iter()
            .take(FIRST_ROWS)
            .map(|s| s.addr.clone())
            .collect();
        assert_eq!(rows(&page), want);
        assert_ne!(
            want[0], servers[0].addr,
            "the order is the list's, not the directory's"
        );
        assert!(page.contains("<span class=\"c1\">Srv</span><span class=\"c7\"> 29</span>"));
        assert!(page.contains("60 servers, 60 answering, 60 shown"));
        assert!(page.contains("no master · 60 servers"));
        assert!(page.contains("<a href=\"/servers\">Every server (60), as a plain list</a>"));
    }

    #[tokio::test]
    async fn every_page_gets_the_same_bytes_until_the_list_changes() {
        let (_dist, directory, router) = relay((0..5).map(|i| server(i, i, "a")).collect());
        let first = get(&router, "/", &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(first.headers()[CONTENT_ENCODING], "gzip");
        let etag = first.headers()[ETAG].clone();
        let first = body(first).await;
        let second = get(&router, "/index.html", &[]).await;
        assert_eq!(second.headers()[ETAG], etag);
        assert_eq!(
            body(second).await,
            first,
            "gzip and plain are the same page"
        );
        // A page that has it already is told so.
        let again = get(&router, "/", &[("if-none-match", etag.to_str().unwrap())]).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        // A new server is a new first screen, from the feed's next tick on.
        directory.upsert(server(9, 20, "newcomer"));
        assert!(directory.take_changes().is_some());
        let changed = get(&router, "/", &[("if-none-match", etag.to_str().unwrap())]).await;
        assert_eq!(changed.status(), StatusCode::OK);
        assert_ne!(changed.headers()[ETAG], etag);
        assert_eq!(rows(&body(changed).await)[0], "10.0.0.1:20009");
    }

    #[tokio::test]
    async fn names_are_text_never_markup() {
        let (_dist, _directory, router) = relay(vec![server(1, 3, "<script>alert(1)</script>\"&")]);
        for uri in ["/", "/servers"] {
            let page = body(get(&router, uri, &[]).await).await;
            assert!(!page.contains("<script>alert"), "{uri}");
            assert!(
                page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;"),
                "{uri}"
            );
        }
    }

    #[tokio::test]
    async fn a_shared_link_s_view_is_what_the_first_screen_shows() {
        let servers = vec![
            server(1, 3, "alpha"),
            server(2, 9, "bravo"),
            server(3, 5, "alpine"),
        ];
        let (_dist, _directory, router) = relay(servers);
        let page = body(get(&router, "/?q=alp", &[]).await).await;
        assert_eq!(rows(&page), ["10.0.0.1:20003", "10.0.0.1:20001"]);
        assert!(page.contains("value=\"alp\""));
        assert!(page.contains("3 servers, 3 answering, 2 shown"));
    }

    #[tokio::test]
    async fn the_plain_list_pages_through_every_server() {
        let servers: Vec<_> = (0..250)
            .map(|i| server(i, i % 32, &format!("s{i:03}")))
            .collect();
        let (_dist, _directory, router) = relay(servers.clone());
        let mut seen = Vec::new();
        let mut next = Some("/servers".to_owned());
        while let Some(uri) = next.take() {
            let page = body(get(&router, &uri, &[]).await).await;
            seen.extend(
                page.split("href=\"/watch/")
                    .skip(1)
                    .map(|r| r[..r.find('"').unwrap()].to_owned()),
            );
            next = page
                .split("<a rel=\"next\" href=\"")
                .nth(1)
                .map(|r| r[..r.find('"').unwrap()].replace("&amp;", "&"));
        }
        let want: Vec<String> = View::default()
            .apply(&servers)
            .iter()
            .map(|s| s.addr.clone())
            .collect();
        assert_eq!(
            seen, want,
            "three pages, every server once, in the list's order"
        );
        let last = body(get(&router, "/servers?page=3", &[]).await).await;
        assert!(last.contains("250 of 250 servers · page 3 of 3"));
        assert_eq!(last.matches("data-testid=\"plain-row\"").count(), 50);
        // Searching without the page's code: the plain list of what matches.
        let found = body(get(&router, "/servers?q=s12", &[]).await).await;
        assert_eq!(found.matches("data-testid=\"plain-row\"").count(), 10);
        // A page past the end shows the last; nonsense shows the first.
        assert!(body(get(&router, "/servers?page=99", &[]).await)
            .await
            .contains("page 3 of 3"));
        assert!(body(get(&router, "/servers?page=x", &[]).await)
            .await
            .contains("page 1 of 3"));
    }

    #[tokio::test]
    async fn without_a_built_page_the_list_is_served_until_the_page_is() {
        let servers: Vec<_> = (0..3).map(|i| server(i, i, "a")).collect();
        let (dist, _directory, router) = relay(servers.clone());
        let template = dist.path().join("index.html");
        let built = std::fs::read(&template).unwrap();
        std::fs::remove_file(&template).unwrap();
        let response = get(&router, "/", &[]).await;
        assert_eq!(response.status(), StatusCode::OK);
        let page = body(response).await;
        // The relay's own template: the first screen with the page's styles, no code, a reload.
        assert!(page.contains("<div id=\"first-screen\">"));
        assert_eq!(rows(&page).len(), 3);
        assert!(page.contains("<meta http-equiv=\"refresh\" content=\"15\">"));
        assert!(page.contains(include_str!("../../../assets/style.css")));
        assert!(page.contains("data-testid=\"unbuilt\""));
        assert!(!page.contains("<script"));
        // A shared link's view likewise.
        let shared = body(get(&router, "/?q=srv", &[]).await).await;
        assert!(shared.contains("data-testid=\"unbuilt\""));
        // The page once built is served at once, without waiting for the next keyframe.
        std::fs::write(&template, built).unwrap();
        let page = body(get(&router, "/", &[]).await).await;
        assert!(page.contains("<script src=\"/app.js\"></script>"));
        assert!(!page.contains("data-testid=\"unbuilt\""));
        assert_eq!(rows(&page).len(), 3);
    }
}
