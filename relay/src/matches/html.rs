//! The matches' pages as HTML from the relay: `/matches` (recent matches and the leaderboard),
//! `/matches/{id}` (scoreboard, score over time, kill matrix, weapons, where kills happened, the
//! kill feed) and `/players/{name}` (figures, ratings, favourites, recent matches). They need
//! no code: a pasted link reads at once, a text browser or a search engine reads them whole,
//! and their Open Graph tags make a card of a link pasted into a chat.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use protocol::cod::text::{spans, strip};
use protocol::relay_api::matches::{
    demo_link, moment, most_played, played, segment, Count, KillKind, LeaderRow, MatchDetail,
    MatchSummary, PlayerStats,
};

use super::api::{shown, Pages};
use super::chart;
use crate::net::{unix_ms, utc_minute};
use crate::store::matches::{self, MatchFilter};
use crate::store::name_key;
use crate::store::worker::Workers;

/// A name in its `^N` colours.
fn coloured(name: &str) -> Markup {
    html! { @for s in spans(name) { span class=(format!("c{}", s.colour)) { (s.text) } } }
}

fn player_link(name: &str) -> Markup {
    html! { a href=(format!("/players/{}", segment(&name_key(name)))) { (coloured(name)) } }
}

/// A page in the app's design and header (Matches marked), whose code (`with_code`: the
/// results page's tags) takes it over once loaded: its content is the first screen, shown
/// until then and to whatever runs no code.
fn page(pages: &Pages, title: &str, description: &str, body: Markup, with_code: bool) -> Response {
    let code = if with_code {
        pages.code()
    } else {
        String::new()
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                (crate::card::head(title, description))
                meta property="og:type" content="website";
                meta name="twitter:card" content="summary";
                (crate::card::stylesheet(&pages.dist))
                (PreEscaped(code))
            }
            body class="sheet" {
                (crate::card::page_header(
                    "Call of Duty: United Offensive 1.51 matches",
                    crate::card::Current::Matches,
                    html! {},
                ))
                div id="first-screen" { (body) }
            }
        }
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=10"),
        ],
        page.into_string(),
    )
        .into_response()
}

fn unavailable(e: crate::store::StoreError) -> Response {
    tracing::warn!("matches: {e}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "match records are unavailable",
    )
        .into_response()
}

fn not_found(pages: &Pages, what: &str) -> Response {
    let body = html! { h1 { (what) } p { a href="/matches" { "Recent matches" } } };
    let mut response = page(pages, what, what, body, false);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

fn match_rows(list: &[MatchSummary]) -> Markup {
    html! {
        table {
            thead { tr { th { "When" } th { "Map" } th { "Mode" } th { "Server" } th { "Result" } th class="n" { "Kills" } th { "" } } }
            tbody {
                @for m in list {
                    tr {
                        td { a href=(format!("/matches/{}", m.id)) { (utc_minute(m.start_ms)) } }
                        td { (m.map) }
                        td { (m.gametype) }
                        td { (coloured(&m.hostname)) }
                        td { (m.result()) }
                        td class="n" { (m.kills) }
                        td class="sub" { (m.ended_text()) }
                    }
                }
            }
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct RecentQuery {
    /// One server's matches and leaderboard (`ip:port`).
    server: Option<String>,
    /// The leaderboard's gametype; the most played of the matches listed by default.
    gametype: Option<String>,
    /// The leaderboard's period: `week` (the default), `month` or `all`.
    period: Option<String>,
}

/// A link to `/matches` with this server, gametype and period.
fn matches_link(server: Option<&str>, gametype: &str, period: &str) -> String {
    let server = server.map_or_else(String::new, |s| format!("server={}&", segment(s)));
    format!(
        "/matches?{server}gametype={}&period={period}",
        segment(gametype)
    )
}

/// `/matches[?server=ADDR][&gametype=G][&period=week|month|all]`: the latest matches, and a
/// leaderboard (this week's, by default of the gametype most played), of every server or of
/// one, with links to the board's other periods and gametypes.
pub async fn recent(
    State(pages): State<Pages>,
    axum::extract::Query(q): axum::extract::Query<RecentQuery>,
) -> Response {
    let readers = pages.readers.clone();
    let now = unix_ms();
    let server = q.server.filter(|s| !s.is_empty());
    let period = q.period.filter(|p| !p.is_empty()).unwrap_or("week".into());
    let asked = super::api::BoardQuery {
        server: server.clone(),
        gametype: None,
        period: Some(period.clone()),
        min: None,
        limit: Some(20),
    };
    let board_of = match asked.board(now) {
        Ok(board) => board,
        Err(e) => return (axum::http::StatusCode::BAD_REQUEST, e).into_response(),
    };
    let of = server.clone();
    let wanted = q.gametype.filter(|g| !g.is_empty());
    let read = readers
        .run(move |store| {
            let list = matches::list(
                store.exec()?,
                &MatchFilter {
                    server: of,
                    limit: 50,
                    ..Default::default()
                },
            )?;
            let gametypes = most_played(&list);
            let gametype = wanted.or_else(|| gametypes.first().cloned());
            let board = match &gametype {
                None => Vec::new(),
                Some(gametype) => matches::leaderboard(
                    store.exec()?,
                    &matches::Board {
                        gametype: Some(gametype.clone()),
                        ..board_of
                    },
                )?,
            };
            Ok((list, gametypes, gametype, board))
        })
        .await;
    let (list, gametypes, gametype, board) = match read {
        Ok(read) => read,
        Err(e) => return unavailable(e),
    };
    let list: Vec<MatchSummary> = list.into_iter().map(|m| shown(m, now)).collect();
    let title = match &server {
        Some(server) => format!("Matches on {server}"),
        None => "Matches".to_owned(),
    };
    let periods = [
        ("week", "This week"),
        ("month", "This month"),
        ("all", "All time"),
    ];
    let body = html! {
        h1 { (title) }
        p class="sub" { "Every match this relay followed, newest first. A match is followed while someone watches it, and always on the servers the operator follows." }
        @if list.is_empty() { p { "No match followed yet." } } @else { (match_rows(&list)) }
        @if let Some(gametype) = &gametype {
            h2 data-testid="board-title" {
                (match period.as_str() { "month" => "This month's", "all" => "All-time", _ => "This week's" })
                " best at " (gametype)
            }
            p class="sub" data-testid="board-choices" {
                @for (code, label) in periods {
                    @if code == period { strong aria-current="true" { (label) } } @else { a href=(matches_link(server.as_deref(), gametype, code)) { (label) } }
                    " · "
                }
                @for g in &gametypes {
                    " "
                    @if g == gametype { strong aria-current="true" { (g) } } @else { a href=(matches_link(server.as_deref(), g, &period)) { (g) } }
                }
            }
            (leaders(&board))
        }
    };
    page(
        &pages,
        &title,
        &format!("{} recent matches followed by this relay", list.len()),
        body,
        false,
    )
}

fn leaders(board: &[LeaderRow]) -> Markup {
    html! {
        @if board.is_empty() { p class="sub" { "Nobody rated has played " (super::api::MIN_MATCHES) " matches in this period yet." } }
        @else {
            table {
                thead { tr { th class="n" { "#" } th { "Name" } th class="n" { "Ranked as" } th class="n" { "Kills" } th class="n" { "Deaths" } th class="n" { "K/D" } th class="n" { "Matches" } } }
                tbody { @for r in board {
                    tr {
                        td class="n" { (r.rank) }
                        td { (player_link(&r.name)) }
                        td class="n" { @if let Some(g) = &r.rating { (format!("{:.1}", g.mu - 3.0 * g.sigma)) } }
                        td class="n" { (r.totals.kills) }
                        td class="n" { (r.totals.deaths) }
                        td class="n" { (format!("{:.2}", r.totals.kills as f64 / r.totals.deaths.max(1) as f64)) }
                        td class="n" { (r.totals.matches) }
                    }
                } }
            }
        }
    }
}

/// `/matches/{id}`.
pub async fn one(State(pages): State<Pages>, Path(id): Path<u64>) -> Response {
    let readers = pages.readers.clone();
    let found = readers
        .run(move |store| matches::detail(store.exec()?, id))
        .await;
    let mut m = match found {
        Ok(Some(m)) => m,
        Ok(None) => return not_found(&pages, "No such match"),
        Err(e) => return unavailable(e),
    };
    m.summary = shown(m.summary, unix_ms());
    let s = &m.summary;
    let title = format!("{} on {}: {}", s.map, strip(&s.hostname), s.result());
    let description = format!(
        "{} {}, {} kills by {} names; {}",
        s.gametype,
        utc_minute(s.start_ms),
        s.kills,
        s.players,
        s.ended_text()
    );
    let backdrop = pages.backdrop(&m.summary.map);
    page(&pages, &title, &description, match_body(&m, backdrop), true)
}

fn match_body(m: &MatchDetail, backdrop: Option<&chart::Backdrop>) -> Markup {
    let s = &m.summary;
    let names: Vec<&str> = m.scoreboard.iter().map(|p| p.name.as_str()).collect();
    let (matrix, weapons) = (m.matrix(), m.weapons());
    let clock = |t: i32| m.clock(t);
    html! {
        h1 { (s.map) " · " (s.gametype) " · " (coloured(&s.hostname)) }
        p class="sub" data-testid="match-summary" {
            (utc_minute(s.start_ms)) " · " (s.server) " · " (s.result()) " · " (s.ended_text())
            @if let Some(demo) = &s.demo { " · " a data-testid="match-demo" href=(demo_link(demo)) { "demo" } }
        }
        h2 { "Scoreboard" }
        table data-testid="scoreboard" {
            thead { tr { th { "Name" } th { "Side" } th class="n" { "Score" } th class="n" { "Kills" } th class="n" { "Deaths" } th class="n" { "Suicides" } th class="n" { "Team kills" } th class="n" { "Time" } } }
            tbody { @for p in &m.scoreboard {
                tr {
                    td { (player_link(&p.name)) }
                    td { (format!("{:?}", p.team).to_lowercase()) }
                    td class="n" { (p.score.map(|v| v.to_string()).unwrap_or_default()) }
                    td class="n" { (p.kills) }
                    td class="n" { (p.deaths) }
                    td class="n" { (p.suicides) }
                    td class="n" { (p.team_kills) }
                    td class="n" { (played(p.time_ms)) }
                }
            } }
        }
        @if !m.rounds.is_empty() {
            h2 { "Rounds" }
            table data-testid="rounds" {
                thead { tr { th class="n" { "Round" } th { "Won by" } th class="n" { "At" } th class="n" { "Axis" } th class="n" { "Allies" } } }
                tbody { @for r in &m.rounds {
                    tr {
                        td class="n" { (r.number) }
                        td { (format!("{:?}", r.winner).to_lowercase()) }
                        td class="n" { (clock(r.server_time)) }
                        td class="n" { (r.axis) }
                        td class="n" { (r.allies) }
                    }
                } }
            }
        }
        div class="charts" {
            figure { (PreEscaped(chart::score(m))) figcaption class="sub" { "The score over the match" } }
            figure class="heat" { (PreEscaped(chart::heatmap(m, backdrop))) figcaption class="sub" { "Kills made (red) and deaths (blue), seen from above" } }
        }
        h2 { "Who killed whom" }
        table class="matrix" data-testid="kill-matrix" {
            thead { tr { th { "killer ↓ victim →" } @for (i, _) in names.iter().enumerate() { th title=(strip(names[i])) { (i + 1) } } } }
            tbody { @for (i, a) in names.iter().enumerate() {
                tr {
                    th { (i + 1) ". " (coloured(a)) }
                    @for v in &names {
                        @let n = matrix.get(&(*a, *v)).copied().unwrap_or(0);
                        td class=[(n == 0).then_some("z")] { (n) }
                    }
                }
            } }
        }
        h2 { "Weapons" }
        table data-testid="weapons" {
            thead { tr { th { "Weapon" } th class="n" { "Kills" } } }
            tbody { @for (w, n) in &weapons { tr { td { (w) } td class="n" { (n) } } } }
        }
        h2 { "Kill feed" }
        table data-testid="kill-feed" {
            tbody { @for k in &m.kill_feed {
                tr {
                    td class="n" {
                        @match &s.demo {
                            Some(demo) => a data-testid="kill-moment" title="this kill in the demo, from 3 s before"
                                href=(moment(demo, k.server_time)) { (clock(k.server_time)) },
                            None => (clock(k.server_time)),
                        }
                    }
                    td { @if let Some(a) = &k.attacker { (player_link(a)) } }
                    td class="sub" { (k.weapon) @if k.kind != KillKind::Kill { " (" (k.kind.name()) ")" } }
                    td { (player_link(&k.victim)) }
                }
            } }
        }
    }
}

fn counts(title: &str, counts: &[Count]) -> Markup {
    html! {
        div {
            h2 { (title) }
            table { tbody { @for c in counts.iter().take(10) { tr { td { (c.what) } td class="n" { (c.count) } } } } }
        }
    }
}

/// `/players/{name}`.
pub async fn player(State(pages): State<Pages>, Path(name): Path<String>) -> Response {
    let readers = pages.readers.clone();
    let key = name_key(&name);
    let found = readers
        .run(move |store| matches::player(store.exec()?, &key, 20))
        .await;
    let p = match found {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(&pages, "No followed match has this name"),
        Err(e) => return unavailable(e),
    };
    let t = &p.totals;
    let title = strip(&p.name);
    let rating = p
        .ratings
        .first()
        .map(|r| {
            format!(
                "; rated {:.1} ± {:.1} in {}",
                r.mu,
                3.0 * r.sigma,
                r.gametype
            )
        })
        .unwrap_or_default();
    let description = format!(
        "{} kills, {} deaths in {} matches ({} won){rating}",
        t.kills, t.deaths, t.matches, t.wins
    );
    page(&pages, &title, &description, player_body(&p), true)
}

fn player_body(p: &PlayerStats) -> Markup {
    let t = &p.totals;
    let now = unix_ms();
    let recent: Vec<MatchSummary> = p
        .recent
        .iter()
        .map(|m| shown(m.summary.clone(), now))
        .collect();
    html! {
        h1 { (coloured(&p.name)) }
        @if let (Some(at), Some(server)) = (p.last_seen_ms, &p.last_server) {
            p class="sub" { "Last seen " (utc_minute(at)) " on " (server) }
        }
        table data-testid="totals" {
            tbody {
                tr { th { "Kills" } td class="n" { (t.kills) } th { "Deaths" } td class="n" { (t.deaths) } th { "K/D" } td class="n" { (format!("{:.2}", t.kills as f64 / t.deaths.max(1) as f64)) } }
                tr { th { "Suicides" } td class="n" { (t.suicides) } th { "Team kills" } td class="n" { (t.team_kills) } th { "Time played" } td class="n" { (played(t.time_ms)) } }
                tr { th { "Matches" } td class="n" { (t.matches) } th { "Won" } td class="n" { (t.wins) } th { "Lost" } td class="n" { (t.losses) } }
            }
        }
        h2 { "Ratings" }
        @if p.ratings.is_empty() { p class="sub" { "Rated after a finished match." } }
        @else {
            table data-testid="ratings" {
                thead { tr { th { "Mode" } th class="n" { "Rating" } th class="n" { "± 3σ" } th class="n" { "Ranked as" } th class="n" { "Rated matches" } } }
                tbody { @for r in &p.ratings { tr {
                    td { (r.gametype) }
                    td class="n" { (format!("{:.1}", r.mu)) }
                    td class="n" { (format!("{:.1}", 3.0 * r.sigma)) }
                    td class="n" { (format!("{:.1}", r.mu - 3.0 * r.sigma)) }
                    td class="n" { (r.matches) }
                } } }
            }
            div class="charts" { figure { (PreEscaped(chart::rating(&p.rating_history))) figcaption class="sub" { "Rating after each rated match; lists rank by the lower line" } } }
        }
        div class="charts" {
            (counts("Weapons", &p.weapons))
            (counts("Maps", &p.maps))
            (counts("Servers", &p.servers))
        }
        h2 { "Recent matches" }
        (match_rows(&recent))
    }
}

/// `/matches/{id}/score.svg` and the other charts, for a page or a card to embed.
pub async fn score_svg(State(readers): State<Workers>, Path(id): Path<u64>) -> Response {
    svg(readers, id, chart::score).await
}

#[derive(serde::Deserialize, Default)]
pub struct RatingQuery {
    /// One gametype's ratings (the player's first otherwise).
    gametype: Option<String>,
}

/// `/api/players/{name}/rating.svg[?gametype=]`: the rating after each rated match.
pub async fn rating_svg(
    State(readers): State<Workers>,
    Path(name): Path<String>,
    axum::extract::Query(q): axum::extract::Query<RatingQuery>,
) -> Response {
    let key = name_key(&name);
    match readers
        .run(move |store| matches::player(store.exec()?, &key, 0))
        .await
    {
        Ok(Some(p)) => {
            let gametype = q
                .gametype
                .or_else(|| p.ratings.first().map(|r| r.gametype.clone()));
            let history: Vec<_> = p
                .rating_history
                .into_iter()
                .filter(|r| gametype.as_ref().is_none_or(|g| *g == r.gametype))
                .collect();
            let svg = chart::rating(&history);
            ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response()
        }
        Ok(None) => (StatusCode::NOT_FOUND, "no followed match has this name").into_response(),
        Err(e) => unavailable(e),
    }
}

pub async fn heatmap_svg(State(pages): State<Pages>, Path(id): Path<u64>) -> Response {
    let readers = pages.readers.clone();
    svg(readers, id, move |m| {
        chart::heatmap(m, pages.backdrop(&m.summary.map))
    })
    .await
}

async fn svg(readers: Workers, id: u64, draw: impl Fn(&MatchDetail) -> String) -> Response {
    match readers
        .run(move |store| matches::detail(store.exec()?, id))
        .await
    {
        Ok(Some(m)) => ([(header::CONTENT_TYPE, "image/svg+xml")], draw(&m)).into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "no such match").into_response(),
        Err(e) => unavailable(e),
    }
}
