//! Banners and cards: `/banner/{addr}.svg` and `.png` (560x95 or 350x20, the owner's colours
//! if a proven owner set them) for forums and signatures, and `/embed/{addr}`, a widget of a
//! few hundred bytes of HTML for an iframe (no wasm) whose player count follows the server.
//! A banner is drawn once per change of what it shows and kept (bounded), so a popular
//! banner costs a lookup per request.

pub mod contrast;
pub mod png;
pub mod svg;

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::SocketAddrV4;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use maud::{html, PreEscaped, DOCTYPE};
use protocol::cod::text::spans;
use protocol::relay_api::ServerInfo;

use crate::seams::{OwnerProfiles, ServerRecords};
use crate::site::language::{lang_of, words_for, VARY};
use crate::sync::Locked;
use contrast::readable;
use i18n::Lang;
use svg::{Colours, Size};

/// Banners kept at most; past it the cache starts again (a crawler walking every server
/// cannot grow it without bound).
const KEPT: usize = 8192;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Format {
    Svg,
    Png,
}

/// A banner kept: its server, size, format and language.
type KeptKey = (String, Size, Format, Lang);

struct Kept {
    /// What the banner was drawn from.
    drawn_from: u64,
    body: Bytes,
    etag: HeaderValue,
}

/// The banners' state: where servers and owners' colours come from, and what was drawn.
#[derive(Clone)]
pub struct Banners {
    records: Arc<dyn ServerRecords>,
    owners: Option<Arc<dyn OwnerProfiles>>,
    renderer: Arc<png::Renderer>,
    kept: Arc<Mutex<HashMap<KeptKey, Kept>>>,
}

impl Banners {
    pub fn new(records: Arc<dyn ServerRecords>, owners: Option<Arc<dyn OwnerProfiles>>) -> Self {
        Self {
            records,
            owners,
            renderer: Arc::new(png::Renderer::default()),
            kept: Arc::default(),
        }
    }

    fn colours(&self, addr: &str) -> Colours {
        let chosen = self.owners.as_ref().and_then(|o| o.profile(addr)?.banner);
        chosen.map_or_else(Colours::default, |c| Colours {
            background: c.background,
            text: c.text,
            accent: c.accent,
        })
    }

    /// The banner of `addr` in `lang`, drawn now only if what it shows changed since it was
    /// kept.
    fn banner(
        &self,
        addr: &str,
        size: Size,
        format: Format,
        lang: Lang,
    ) -> Option<(Bytes, HeaderValue)> {
        let server = self.records.record(addr)?;
        let colours = self.colours(addr);
        let drawn_from = fingerprint(&server, &colours);
        let key = (addr.to_owned(), size, format, lang);
        if let Some(kept) = self.kept.locked().get(&key) {
            if kept.drawn_from == drawn_from {
                return Some((kept.body.clone(), kept.etag.clone()));
            }
        }
        let text = svg::banner(&server, size, &colours, i18n::catalogue(lang));
        let body = match format {
            Format::Svg => Bytes::from(text),
            Format::Png => match self.renderer.png(&text) {
                Ok(png) => Bytes::from(png),
                Err(e) => {
                    tracing::warn!("banner of {addr}: {e}");
                    return None;
                }
            },
        };
        let etag = HeaderValue::from_str(&format!(
            "\"{drawn_from:016x}{}{}\"",
            size_tag(size),
            lang.tag()
        ))
        .unwrap_or(HeaderValue::from_static("\"0\""));
        let mut kept = self.kept.locked();
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(
            key,
            Kept {
                drawn_from,
                body: body.clone(),
                etag: etag.clone(),
            },
        );
        Some((body, etag))
    }
}

fn size_tag(size: Size) -> &'static str {
    match size {
        Size::Wide => "w",
        Size::Small => "s",
    }
}

/// What a banner shows, hashed: the same for the same pixels.
fn fingerprint(server: &ServerInfo, colours: &Colours) -> u64 {
    let mut h = DefaultHasher::new();
    (
        &server.hostname,
        &server.map,
        &server.gametype,
        &server.addr,
    )
        .hash(&mut h);
    (server.clients, server.max_clients, &server.country).hash(&mut h);
    (server.reachability as u8).hash(&mut h);
    colours.hash(&mut h);
    h.finish()
}

#[derive(serde::Deserialize)]
struct SizeQuery {
    size: Option<String>,
    /// The banner's language (`de`): a forum's readers see the one its owner picked; without
    /// it, each reader's browser's.
    lang: Option<String>,
}

/// `GET /banner/{addr}.svg|.png?size=560x95|350x20`.
async fn banner(
    State(banners): State<Banners>,
    Path(file): Path<String>,
    Query(query): Query<SizeQuery>,
    headers: HeaderMap,
) -> Response {
    let (addr, format) = match (file.strip_suffix(".svg"), file.strip_suffix(".png")) {
        (Some(addr), _) => (addr, Format::Svg),
        (_, Some(addr)) => (addr, Format::Png),
        _ => return (StatusCode::NOT_FOUND, "a banner is ADDR.svg or ADDR.png").into_response(),
    };
    let Some(size) = Size::parse(query.size.as_deref().unwrap_or("560x95")) else {
        return (StatusCode::BAD_REQUEST, "size is 560x95 or 350x20").into_response();
    };
    if addr.parse::<SocketAddrV4>().is_err() {
        return (StatusCode::BAD_REQUEST, "the address is ip:port").into_response();
    }
    let lang = match query.lang.as_deref() {
        None => lang_of(&headers),
        Some(tag) => match Lang::parse(tag) {
            Ok(lang) => lang,
            Err(unknown) => {
                return (StatusCode::BAD_REQUEST, format!("lang: {unknown}")).into_response()
            }
        },
    };
    let banners2 = banners.clone();
    let addr2 = addr.to_owned();
    // Rendering a PNG takes a few milliseconds of CPU: off the async workers.
    let drawn = tokio::task::spawn_blocking(move || banners2.banner(&addr2, size, format, lang))
        .await
        .ok()
        .flatten();
    let Some((body, etag)) = drawn else {
        return (
            StatusCode::NOT_FOUND,
            i18n::catalogue(lang).text("not-listed"),
        )
            .into_response();
    };
    let kind = match format {
        Format::Svg => "image/svg+xml",
        Format::Png => "image/png",
    };
    let cache = (
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=60"),
    );
    if headers.get(header::IF_NONE_MATCH) == Some(&etag) {
        return (StatusCode::NOT_MODIFIED, [cache, (header::ETAG, etag)]).into_response();
    }
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
            cache,
            (header::ETAG, etag),
            (header::VARY, HeaderValue::from_static(VARY)),
        ],
        body,
    )
        .into_response()
}

/// The player count's refresh in the widget, every `EMBED_REFRESH_S` seconds.
const EMBED_REFRESH_S: u32 = 10;

/// `GET /embed/{addr}`: the widget.
async fn embed(
    State(banners): State<Banners>,
    Path(addr): Path<String>,
    headers: HeaderMap,
) -> Response {
    let words = words_for(&headers);
    if addr.parse::<SocketAddrV4>().is_err() {
        return (StatusCode::BAD_REQUEST, "the address is ip:port").into_response();
    }
    let Some(server) = banners.records.record(&addr) else {
        return (StatusCode::NOT_FOUND, words.text("not-listed")).into_response();
    };
    let colours = banners.colours(&addr);
    let background = &colours.background;
    // The game's colours, each readable on the owner's background, as the banner draws them.
    let game: String = (0..=9)
        .filter_map(|code| Some((code, svg::game_colour(code)?)))
        .map(|(code, colour)| format!(".c{code}{{color:{}}}", readable(colour, background)))
        .collect();
    let style = format!(
        "body{{margin:0;font:13px/1.4 system-ui,sans-serif;background:{background};color:{}}}\
         a{{color:{};text-decoration:none}}div{{padding:6px 10px}}b{{font-size:15px}}{game}",
        readable(&colours.text, background),
        readable(&colours.accent, background)
    );
    let script = format!(
        "setInterval(async()=>{{try{{const r=await fetch('/api/servers/{addr}');if(!r.ok)return;\
         const s=await r.json();document.getElementById('players').textContent=s.clients+'/'+s.max_clients;\
         document.getElementById('map').textContent=s.map}}catch(e){{}}}},{});",
        EMBED_REFRESH_S * 1000
    );
    let page = html! {
        (DOCTYPE)
        html lang=(words.lang().tag()) {
            head {
                meta charset="utf-8";
                title { (protocol::cod::text::strip(&server.hostname)) }
                style { (PreEscaped(style)) }
            }
            body {
                div {
                    a href=(format!("/server/{addr}")) target="_blank" rel="noopener" {
                        b {
                            @for span in spans(&server.hostname) {
                                span class=(format!("c{}", span.colour)) { (span.text) }
                            }
                        }
                    }
                    br;
                    span id="map" { (server.map) } " · " (server.gametype) " · "
                    span id="players" data-testid="players" { (server.clients) "/" (server.max_clients) }
                    " " (words.text("banner-players"))
                }
                script { (PreEscaped(script)) }
            }
        }
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=30"),
            (header::VARY, VARY),
        ],
        page.into_string(),
    )
        .into_response()
}

/// The banners' routes.
pub fn routes(banners: Banners) -> Router {
    Router::new()
        .route("/banner/{file}", get(banner))
        .route("/embed/{addr}", get(embed))
        .with_state(banners)
}
