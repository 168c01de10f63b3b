//! `/m/{id}`: a moment's page. Its first screen is plain HTML (the still, the kills, the clip
//! to download) with Open Graph and Twitter card tags, so a link pasted into a chat or a forum
//! unfurls as a card; then the demo player's code takes over and plays the clip in a loop.
//! `/m/{id}/embed` is the same player alone, for an iframe.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use i18n::Catalogue;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use protocol::cod::text::strip;
use protocol::relay_api::moments::{is_moment_id, MomentDetail};

use super::Moments;

/// The demo player's tags (its module script, style and worker), for a relay-made page; the
/// worker's address made absolute, as this page is not under `/playback/`.
fn player_code(moments: &Moments) -> String {
    let built = std::fs::read_to_string(moments.dist.join("playback/index.html"));
    let built = built.unwrap_or_default();
    match (
        built.find("<script type=\"module\">"),
        built.find("</head>"),
    ) {
        (Some(from), Some(to)) if from < to => {
            built[from..to].replace("content=\"./", "content=\"/playback/")
        }
        _ => String::new(),
    }
}

fn first_screen(words: &Catalogue, m: &MomentDetail) -> Markup {
    html! {
        h1 { (words.say(&m.headline())) }
        p class="sub" {
            (strip(&m.hostname)) " · " (m.map) " · " (m.gametype) " · "
            (words.with("seconds", &[("seconds", m.seconds().round().into())]))
        }
        img class="still" src=(m.still()) width="512" height="512"
            alt=(words.with("moment-still", &[("map", m.map.as_str().into())]));
        @if !m.kills.is_empty() {
            ol {
                @for k in &m.kills {
                    li { (words.with("moment-kill", &[
                        ("attacker", k.attacker.as_deref().map_or_else(|| words.text("the-world"), strip).into()),
                        ("victim", strip(&k.victim).into()),
                        ("weapon", k.weapon.as_str().into()),
                    ])) }
                }
            }
        }
        p {
            a href=(m.demo()) download="" { (words.text("moment-download")) }
            @if let Some(full) = &m.match_demo { " · " a href=(full) { (words.text("moment-whole-match")) } }
        }
    }
}

fn moment_page(moments: &Moments, m: &MomentDetail, headers: &HeaderMap, embed: bool) -> Response {
    let origin = crate::card::origin(headers);
    let words = crate::site::language::words_for(headers);
    let title = format!("{} · {}", words.say(&m.headline()), strip(&m.hostname));
    let description = words.with(
        "moment-description",
        &[
            ("seconds", m.seconds().round().into()),
            ("map", m.map.as_str().into()),
            ("server", strip(&m.hostname).into()),
        ],
    );
    let image = format!("{origin}{}", m.still());
    let page = html! {
        (DOCTYPE)
        html lang=(words.lang().tag()) {
            head {
                (crate::card::head(words, &title, &description))
                meta property="og:type" content="video.other";
                (crate::card::picture(&crate::card::Picture {
                    url: &format!("{origin}{}", m.page()),
                    image: &image,
                    width: 512,
                    height: 512,
                    title: &title,
                }))
                meta name="muster-moment" content=(m.id);
                @if let Some(full) = &m.match_demo { meta name="muster-match-demo" content=(full); }
                // The player's tags, its copy of the app's stylesheet among them (while no
                // player is built, the stylesheet alone).
                @match player_code(moments) {
                    code if code.is_empty() => (crate::card::stylesheet(&moments.dist)),
                    code => (PreEscaped(code)),
                }
            }
            body class=[embed.then_some("embed")] {
                // The player's header, where the player draws its own when it takes over.
                div id="first-screen" {
                    @if !embed {
                        (crate::card::page_header(
                            words,
                            "subtitle-moment",
                            crate::card::Current::None,
                            html! {},
                            &m.page(),
                        ))
                    }
                    main class="moment-first" { (first_screen(words, m)) }
                }
            }
        }
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=60"),
            (header::VARY, crate::site::language::VARY),
        ],
        page.into_string(),
    )
        .into_response()
}

async fn shown(moments: Moments, id: String, headers: HeaderMap, embed: bool) -> Response {
    let words = crate::site::language::words_for(&headers);
    if !is_moment_id(&id) {
        return (StatusCode::NOT_FOUND, words.text("moment-missing")).into_response();
    }
    match moments.detail(&id).await {
        Ok(Some(m)) => moment_page(&moments, &m, &headers, embed),
        Ok(None) => (StatusCode::NOT_FOUND, words.text("moment-expired")).into_response(),
        Err(e) => {
            tracing::warn!("moments: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                words.text("moments-unavailable"),
            )
                .into_response()
        }
    }
}

/// `GET /m/{id}`.
pub async fn page(
    State(moments): State<Moments>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    shown(moments, id, headers, false).await
}

/// `GET /m/{id}/embed`.
pub async fn embed(
    State(moments): State<Moments>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    shown(moments, id, headers, true).await
}
