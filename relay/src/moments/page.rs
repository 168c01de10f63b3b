//! `/m/{id}`: a moment's page. Its first screen is plain HTML (the still, the kills, the clip
//! to download) with Open Graph and Twitter card tags, so a link pasted into a chat or a forum
//! unfurls as a card; then the demo player's code takes over and plays the clip in a loop.
//! `/m/{id}/embed` is the same player alone, for an iframe.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
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

fn first_screen(m: &MomentDetail) -> Markup {
    html! {
        h1 { (m.headline()) }
        p class="sub" {
            (strip(&m.hostname)) " · " (m.map) " · " (m.gametype) " · "
            (format!("{:.0} s", m.seconds()))
        }
        img class="still" src=(m.still()) width="512" height="512"
            alt=(format!("Where everyone stood on {}", m.map));
        @if !m.kills.is_empty() {
            ol {
                @for k in &m.kills {
                    li { (strip(k.attacker.as_deref().unwrap_or("the world"))) " killed "
                        (strip(&k.victim)) " (" (k.weapon) ")" }
                }
            }
        }
        p {
            a href=(m.demo()) download="" { "Download the clip (.dm_3)" }
            @if let Some(full) = &m.match_demo { " · " a href=(full) { "The whole match" } }
        }
    }
}

fn moment_page(moments: &Moments, m: &MomentDetail, headers: &HeaderMap, embed: bool) -> Response {
    let origin = crate::card::origin(headers);
    let title = format!("{} · {}", m.headline(), strip(&m.hostname));
    let description = format!(
        "A {:.0}-second moment of {} on {}, playable in the browser or in the game.",
        m.seconds(),
        m.map,
        strip(&m.hostname)
    );
    let image = format!("{origin}{}", m.still());
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                (crate::card::head(&title, &description))
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
                            "A moment of a Call of Duty: United Offensive match",
                            crate::card::Current::None,
                            html! {},
                        ))
                    }
                    main class="moment-first" { (first_screen(m)) }
                }
            }
        }
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=60"),
        ],
        page.into_string(),
    )
        .into_response()
}

async fn shown(moments: Moments, id: String, headers: HeaderMap, embed: bool) -> Response {
    if !is_moment_id(&id) {
        return (StatusCode::NOT_FOUND, "no such moment").into_response();
    }
    match moments.detail(&id).await {
        Ok(Some(m)) => moment_page(&moments, &m, &headers, embed),
        Ok(None) => (StatusCode::NOT_FOUND, "no such moment (or it has expired)").into_response(),
        Err(e) => {
            tracing::warn!("moments: {e}");
            (StatusCode::SERVICE_UNAVAILABLE, "moments are unavailable").into_response()
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
