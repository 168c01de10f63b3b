//! The matches' pages as HTML from the relay: `/matches` (recent matches and the leaderboard),
//! `/matches/{id}` (scoreboard, score over time, kill matrix, weapons, where kills happened, the
//! kill feed) and `/players/{name}` (figures, ratings, favourites, recent matches). They need
//! no code: a pasted link reads at once, a text browser or a search engine reads them whole,
//! and their Open Graph tags make a card of a link pasted into a chat.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use i18n::Catalogue;
use maud::{html, Markup, PreEscaped};
use protocol::cod::text::{spans, strip};
use protocol::relay_api::highlights::Highlight;
use protocol::relay_api::matches::{
    demo_link, moment, most_played, played, segment, Count, KillKind, LeaderRow, MatchDetail,
    MatchSummary, PlayerStats,
};

use super::api::{shown, Pages};
use super::chart;
use crate::net::unix_ms;
use crate::site::language::words_for;
use crate::store::matches::{self, MatchFilter};
use crate::store::name_key;

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
/// `back` is the page's own path, where the language chooser comes back to.
fn page(
    pages: &Pages,
    words: &Catalogue,
    (title, description): (&str, &str),
    body: Markup,
    with_code: bool,
    back: &str,
) -> Response {
    let code = if with_code {
        pages.code()
    } else {
        String::new()
    };
    let sheet = crate::card::Sheet {
        title,
        description,
        subtitle: "subtitle-matches",
        current: crate::card::Current::Matches,
        back,
        code,
    };
    crate::card::sheet(words, &pages.dist, sheet, body)
}

fn unavailable(words: &Catalogue, e: crate::store::StoreError) -> Response {
    tracing::warn!("matches: {e}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        words.text("match-records-unavailable"),
    )
        .into_response()
}

fn not_found(pages: &Pages, words: &Catalogue, what: &str, back: &str) -> Response {
    let what = words.text(what);
    let body = html! { h1 { (what) } p { a href="/matches" { (words.text("matches-recent")) } } };
    let mut response = page(pages, words, (&what, &what), body, false, back);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

fn match_rows(words: &Catalogue, list: &[MatchSummary]) -> Markup {
    html! {
        table {
            thead { tr {
                @for label in ["col-when", "col-map", "col-mode", "col-server", "col-result"] { th { (words.text(label)) } }
                th class="n" { (words.text("col-kills")) } th { "" }
            } }
            tbody {
                @for m in list {
                    tr {
                        td { a href=(format!("/matches/{}", m.id)) { (words.date_time_utc(m.start_ms)) } }
                        td { (m.map) }
                        td { (m.gametype) }
                        td { (coloured(&m.hostname)) }
                        td { (words.say(&m.result())) }
                        td class="n" { (m.kills) }
                        td class="sub" { (words.say(&m.ended_text())) }
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
    headers: HeaderMap,
) -> Response {
    let words = words_for(&headers);
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
        Err(e) => return unavailable(words, e),
    };
    let list: Vec<MatchSummary> = list.into_iter().map(|m| shown(m, now)).collect();
    let title = match &server {
        Some(server) => words.with("matches-on", &[("server", server.as_str().into())]),
        None => words.text("nav-matches"),
    };
    let periods = [
        ("week", "period-week"),
        ("month", "period-month"),
        ("all", "period-all"),
    ];
    let board_title = match period.as_str() {
        "month" => "board-month",
        "all" => "board-all",
        _ => "matches-week-best",
    };
    let body = html! {
        h1 { (title) }
        p class="sub" { (words.text("matches-intro")) }
        @if list.is_empty() { p { (words.text("matches-none")) } } @else { (match_rows(words, &list)) }
        @if let Some(gametype) = &gametype {
            h2 data-testid="board-title" {
                (words.with(board_title, &[("mode", gametype.as_str().into())]))
            }
            p class="sub" data-testid="board-choices" {
                @for (code, label) in periods {
                    @let label = words.text(label);
                    @if code == period { strong aria-current="true" { (label) } } @else { a href=(matches_link(server.as_deref(), gametype, code)) { (label) } }
                    " · "
                }
                @for g in &gametypes {
                    " "
                    @if g == gametype { strong aria-current="true" { (g) } } @else { a href=(matches_link(server.as_deref(), g, &period)) { (g) } }
                }
            }
            (leaders(words, &board))
        }
    };
    let description = words.with("matches-description", &[("count", list.len().into())]);
    page(
        &pages,
        words,
        (&title, &description),
        body,
        false,
        "/matches",
    )
}

fn leaders(words: &Catalogue, board: &[LeaderRow]) -> Markup {
    html! {
        @if board.is_empty() { p class="sub" { (words.with("board-empty", &[("count", super::api::MIN_MATCHES.into())])) } }
        @else {
            table {
                thead { tr {
                    th class="n" { "#" } th { (words.text("col-name")) }
                    @for label in ["col-ranked-as", "col-kills", "col-deaths", "col-kd", "col-matches"] { th class="n" { (words.text(label)) } }
                } }
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
pub async fn one(State(pages): State<Pages>, Path(id): Path<u64>, headers: HeaderMap) -> Response {
    let words = words_for(&headers);
    let back = format!("/matches/{id}");
    let readers = pages.readers.clone();
    let found = readers
        .run(move |store| {
            let db = store.exec()?;
            let best = crate::store::highlights::list(db, &best_of_match(id))?;
            Ok(matches::detail(db, id)?.map(|m| (m, best)))
        })
        .await;
    let (mut m, best) = match found {
        Ok(Some(m)) => m,
        Ok(None) => return not_found(&pages, words, "match-missing", &back),
        Err(e) => return unavailable(words, e),
    };
    m.summary = shown(m.summary, unix_ms());
    let s = &m.summary;
    let title = words.with(
        "match-title",
        &[
            ("map", s.map.as_str().into()),
            ("server", strip(&s.hostname).into()),
            ("result", words.say(&s.result()).into()),
        ],
    );
    let description = words.with(
        "match-description",
        &[
            ("mode", s.gametype.as_str().into()),
            ("when", words.date_time_utc(s.start_ms).into()),
            ("kills", s.kills.into()),
            ("names", s.players.into()),
            ("ended", words.say(&s.ended_text()).into()),
        ],
    );
    let backdrop = pages.backdrop(&m.summary.map);
    let body = html! {
        (match_body(words, &m, backdrop, &best))
    };
    page(&pages, words, (&title, &description), body, true, &back)
}

/// The match's play of the match, as `GET /api/highlights?match=ID&best=true&limit=1` asks.
fn best_of_match(id: u64) -> crate::store::highlights::Wanted {
    crate::store::highlights::Wanted {
        match_id: Some(id),
        best: true,
        limit: 1,
        ..Default::default()
    }
}

/// Its play of the match, first, as the page's code draws it too.
fn play_of_the_match(words: &Catalogue, best: &[Highlight]) -> Markup {
    html! {
        @if !best.is_empty() {
            section data-testid="play-of-the-match" {
                h2 { (words.text("play-of-the-match")) }
                div class="highlights" { @for h in best { (crate::card::highlight(words, h)) } }
            }
        }
    }
}

fn match_body(
    words: &Catalogue,
    m: &MatchDetail,
    backdrop: Option<&chart::Backdrop>,
    best: &[Highlight],
) -> Markup {
    let s = &m.summary;
    let names: Vec<&str> = m.scoreboard.iter().map(|p| p.name.as_str()).collect();
    let (matrix, weapons) = (m.matrix(), m.weapons());
    let clock = |t: i32| m.clock(t);
    html! {
        h1 { (s.map) " · " (s.gametype) " · " (coloured(&s.hostname)) }
        p class="sub" data-testid="match-summary" {
            (words.date_time_utc(s.start_ms)) " · " (s.server) " · " (words.say(&s.result())) " · " (words.say(&s.ended_text()))
            @if let Some(demo) = &s.demo { " · " a data-testid="match-demo" href=(demo_link(demo)) { (words.text("match-demo")) } }
        }
        (play_of_the_match(words, best))
        h2 { (words.text("scoreboard")) }
        table data-testid="scoreboard" {
            thead { tr {
                th { (words.text("col-name")) } th { (words.text("col-side")) }
                @for label in ["col-score", "col-kills", "col-deaths", "col-suicides", "col-team-kills", "col-time"] { th class="n" { (words.text(label)) } }
            } }
            tbody { @for p in &m.scoreboard {
                tr {
                    td { (player_link(&p.name)) }
                    td { (words.say(&p.team.said())) }
                    td class="n" { (p.score.map(|v| v.to_string()).unwrap_or_default()) }
                    td class="n" { (p.kills) }
                    td class="n" { (p.deaths) }
                    td class="n" { (p.suicides) }
                    td class="n" { (p.team_kills) }
                    td class="n" { (words.say(&played(p.time_ms))) }
                }
            } }
        }
        @if !m.rounds.is_empty() {
            h2 { (words.text("match-rounds")) }
            table data-testid="rounds" {
                thead { tr {
                    th class="n" { (words.text("col-round")) } th { (words.text("col-won-by")) }
                    @for label in ["col-at", "team-axis", "team-allies"] { th class="n" { (words.text(label)) } }
                } }
                tbody { @for r in &m.rounds {
                    tr {
                        td class="n" { (r.number) }
                        td { (words.say(&r.winner.said())) }
                        td class="n" { (clock(r.server_time)) }
                        td class="n" { (r.axis) }
                        td class="n" { (r.allies) }
                    }
                } }
            }
        }
        div class="charts" {
            figure { (PreEscaped(chart::score(m))) figcaption class="sub" { (words.text("match-score-chart")) } }
            figure class="heat" { (PreEscaped(chart::heatmap(m, backdrop))) figcaption class="sub" { (words.text("match-heatmap")) } }
        }
        h2 { (words.text("match-who-killed-whom")) }
        table class="matrix" data-testid="kill-matrix" {
            thead { tr { th { (words.text("matrix-corner")) } @for (i, _) in names.iter().enumerate() { th title=(strip(names[i])) { (i + 1) } } } }
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
        h2 { (words.text("match-weapons")) }
        table data-testid="weapons" {
            thead { tr { th { (words.text("col-weapon")) } th class="n" { (words.text("col-kills")) } } }
            tbody { @for (w, n) in &weapons { tr { td { (w) } td class="n" { (n) } } } }
        }
        h2 { (words.text("kill-feed")) }
        table data-testid="kill-feed" {
            tbody { @for k in &m.kill_feed {
                tr {
                    td class="n" {
                        @match &s.demo {
                            Some(demo) => a data-testid="kill-moment" title=(words.text("kill-moment-title"))
                                href=(moment(demo, k.server_time)) { (clock(k.server_time)) },
                            None => (clock(k.server_time)),
                        }
                    }
                    td { @if let Some(a) = &k.attacker { (player_link(a)) } }
                    td class="sub" { (k.weapon) @if k.kind != KillKind::Kill { " (" (words.say(&k.kind.said())) ")" } }
                    td { (player_link(&k.victim)) }
                }
            } }
        }
    }
}

fn counts(words: &Catalogue, title: &str, counts: &[Count]) -> Markup {
    html! {
        div {
            h2 { (words.text(title)) }
            table { tbody { @for c in counts.iter().take(10) { tr { td { (c.what) } td class="n" { (c.count) } } } } }
        }
    }
}

/// `/players/{name}`.
pub async fn player(
    State(pages): State<Pages>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let words = words_for(&headers);
    let back = format!("/players/{}", segment(&name));
    let readers = pages.readers.clone();
    let key = name_key(&name);
    let found = readers
        .run(move |store| {
            let db = store.exec()?;
            let plays = crate::store::highlights::list(db, &plays_of(&key))?;
            Ok(matches::player(db, &key, 20)?.map(|p| (p, plays)))
        })
        .await;
    let (p, plays) = match found {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(&pages, words, "player-missing", &back),
        Err(e) => return unavailable(words, e),
    };
    let t = &p.totals;
    let title = strip(&p.name);
    let rating = p
        .ratings
        .first()
        .map(|r| {
            words.with(
                "player-rated",
                &[
                    ("rating", format!("{:.1}", r.mu).into()),
                    ("spread", format!("{:.1}", 3.0 * r.sigma).into()),
                    ("mode", r.gametype.as_str().into()),
                ],
            )
        })
        .unwrap_or_default();
    let description = words.with(
        "player-description",
        &[
            ("kills", t.kills.into()),
            ("deaths", t.deaths.into()),
            ("matches", t.matches.into()),
            ("won", t.wins.into()),
        ],
    ) + &rating;
    let body = player_body(words, &p, &plays);
    page(&pages, words, (&title, &description), body, true, &back)
}

/// A player's latest highlights, as `GET /api/highlights?player=NAME&limit=12` asks.
fn plays_of(key: &str) -> crate::store::highlights::Wanted {
    crate::store::highlights::Wanted {
        player: Some(key.to_owned()),
        limit: 12,
        ..Default::default()
    }
}

fn player_body(words: &Catalogue, p: &PlayerStats, plays: &[Highlight]) -> Markup {
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
            p class="sub" { (words.with("player-last-seen", &[("when", words.date_time_utc(at).into()), ("server", server.as_str().into())])) }
        }
        table data-testid="totals" {
            tbody {
                tr { th { (words.text("col-kills")) } td class="n" { (t.kills) } th { (words.text("col-deaths")) } td class="n" { (t.deaths) } th { (words.text("col-kd")) } td class="n" { (format!("{:.2}", t.kills as f64 / t.deaths.max(1) as f64)) } }
                tr { th { (words.text("col-suicides")) } td class="n" { (t.suicides) } th { (words.text("col-team-kills")) } td class="n" { (t.team_kills) } th { (words.text("col-time-played")) } td class="n" { (words.say(&played(t.time_ms))) } }
                tr { th { (words.text("col-matches")) } td class="n" { (t.matches) } th { (words.text("col-won")) } td class="n" { (t.wins) } th { (words.text("col-lost")) } td class="n" { (t.losses) } }
            }
        }
        h2 { (words.text("player-ratings")) }
        @if p.ratings.is_empty() { p class="sub" { (words.text("player-unrated")) } }
        @else {
            table data-testid="ratings" {
                thead { tr {
                    th { (words.text("col-mode")) } th class="n" { (words.text("col-rating")) } th class="n" { "± 3σ" }
                    th class="n" { (words.text("col-ranked-as")) } th class="n" { (words.text("col-rated-matches")) }
                } }
                tbody { @for r in &p.ratings { tr {
                    td { (r.gametype) }
                    td class="n" { (format!("{:.1}", r.mu)) }
                    td class="n" { (format!("{:.1}", 3.0 * r.sigma)) }
                    td class="n" { (format!("{:.1}", r.mu - 3.0 * r.sigma)) }
                    td class="n" { (r.matches) }
                } } }
            }
            div class="charts" { figure { (PreEscaped(chart::rating(&p.rating_history))) figcaption class="sub" { (words.text("player-rating-chart-any")) } } }
        }
        div class="charts" {
            (counts(words, "match-weapons", &p.weapons))
            (counts(words, "player-maps", &p.maps))
            (counts(words, "nav-servers", &p.servers))
        }
        @if !plays.is_empty() {
            section data-testid="player-highlights" {
                h2 { (words.text("player-highlights")) }
                div class="highlights" { @for h in plays { (crate::card::highlight(words, h)) } }
            }
        }
        h2 { (words.text("matches-recent")) }
        (match_rows(words, &recent))
    }
}
