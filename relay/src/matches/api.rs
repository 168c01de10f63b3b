//! The matches' routes, read from the store on the history's reader connections.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use protocol::relay_api::matches::{LeaderRow, MatchDetail, MatchEnd, MatchSummary, PlayerStats};
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::tag;

use crate::net::unix_ms;
use crate::store::matches::{self, MatchFilter};
use crate::store::worker::Workers;
use crate::store::{name_key, Result};

/// A match neither ended nor written to for this long is no longer followed: it is shown
/// unfinished (a relay killed mid-match continues it if it comes back to the same match).
pub const STALE_MS: u64 = 60_000;
/// Names with fewer matches than this in the period are left off a leaderboard unless the
/// request names its own minimum.
pub const MIN_MATCHES: u32 = 3;
const MOST: u32 = 500;

/// A match record as shown: one nobody writes to any more is unfinished.
pub fn shown(mut summary: MatchSummary, now_ms: u64) -> MatchSummary {
    if summary.ended.is_none() && now_ms.saturating_sub(summary.end_ms) > STALE_MS {
        summary.ended = Some(MatchEnd::SessionLost);
    }
    summary
}

#[derive(serde::Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// One server's (`ip:port`).
    pub server: Option<String>,
    /// Matches a name played in, colour codes and case ignored.
    pub player: Option<String>,
    /// Only matches that ended after this, in Unix milliseconds.
    pub since: Option<u64>,
    /// How many, newest first (50 by default, at most 500).
    pub limit: Option<u32>,
}

impl ListQuery {
    pub fn filter(&self) -> MatchFilter {
        MatchFilter {
            server: self.server.clone().filter(|s| !s.is_empty()),
            player: self
                .player
                .as_deref()
                .map(name_key)
                .filter(|k| !k.is_empty()),
            since_ms: self.since.unwrap_or(0),
            limit: self.limit.unwrap_or(50).min(MOST),
        }
    }
}

/// The periods a leaderboard covers, as the description names them (the handler reads the
/// text itself, so a wrong one is refused naming these).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
enum BoardPeriod {
    Week,
    Month,
    All,
}

#[derive(serde::Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// One server's board (`ip:port`).
    pub server: Option<String>,
    /// One gametype's (`dm`, `tdm`, `sd` …).
    pub gametype: Option<String>,
    /// `week` (this calendar week, from Monday, UTC), `month` (this calendar month) or `all`
    /// (the default).
    #[param(value_type = Option<BoardPeriod>, inline)]
    pub period: Option<String>,
    /// Names with fewer matches in the period are left off (3 by default).
    pub min: Option<u32>,
    /// How many rows (100 by default, at most 500).
    pub limit: Option<u32>,
}

impl BoardQuery {
    /// The board asked for, or why it cannot be.
    pub fn board(&self, now_ms: u64) -> std::result::Result<matches::Board, String> {
        let period = match self.period.as_deref().unwrap_or("all") {
            "week" => matches::Period::Week,
            "month" => matches::Period::Month,
            "all" => matches::Period::All,
            other => return Err(format!("period must be week, month or all, not {other:?}")),
        };
        Ok(matches::Board {
            server: self.server.clone().filter(|s| !s.is_empty()),
            gametype: self.gametype.clone().filter(|s| !s.is_empty()),
            period,
            at_ms: now_ms,
            min_matches: self.min.unwrap_or(MIN_MATCHES),
            limit: self.limit.unwrap_or(100).min(MOST),
        })
    }
}

/// What the matches' routes read: the store, and the page's build, whose code for the match
/// and player pages (`dist/results/`) their HTML names.
#[derive(Clone)]
pub struct Pages {
    pub readers: Workers,
    pub dist: std::path::PathBuf,
    /// The operator's overview images by map (`--overview`), behind the heatmaps.
    pub overviews: std::sync::Arc<Vec<(String, super::chart::Backdrop)>>,
}

impl axum::extract::FromRef<Pages> for Workers {
    fn from_ref(pages: &Pages) -> Workers {
        pages.readers.clone()
    }
}

impl Pages {
    /// The overview behind a map's heatmap, if the operator gave one.
    pub fn backdrop(&self, map: &str) -> Option<&super::chart::Backdrop> {
        self.overviews
            .iter()
            .find(|(m, _)| m == map)
            .map(|(_, b)| b)
    }

    /// The tags Trunk put in the results page's head (its module script, preloads), for a
    /// relay-made page to load that code once shown; nothing while the page is not built.
    pub fn code(&self) -> String {
        let built = std::fs::read_to_string(self.dist.join("results/index.html"));
        let built = built.unwrap_or_default();
        match (
            built.find("<script type=\"module\">"),
            built.find("</head>"),
        ) {
            (Some(from), Some(to)) if from < to => built[from..to].to_owned(),
            _ => String::new(),
        }
    }
}

pub fn routes(pages: Pages) -> Router {
    Router::from(api())
        .route("/matches", get(super::html::recent))
        .route("/matches/{id}", get(super::html::one))
        .route("/players/{name}", get(super::html::player))
        .with_state(pages)
}

fn api() -> OpenApiRouter<Pages> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
        .routes(routes!(player))
        .routes(routes!(leaderboard))
        .routes(routes!(super::svg::score_svg))
        .routes(routes!(super::svg::heatmap_svg))
        .routes(routes!(super::svg::rating_svg))
}

/// The matches' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// A `server` that is neither empty (every server) nor an address, refused.
fn no_address(server: Option<&str>) -> Option<Response> {
    let server = server.filter(|s| !s.is_empty())?;
    let wrong = server.parse::<crate::net::ServerAddr>().is_err();
    wrong.then(|| {
        let why = format!("server: {server:?} is not an IPv4 address and port");
        (StatusCode::BAD_REQUEST, why).into_response()
    })
}

fn answer<T: serde::Serialize>(result: Result<Option<T>>, missing: &'static str) -> Response {
    match result {
        Ok(Some(found)) => Json(found).into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, missing).into_response(),
        Err(e) => {
            tracing::warn!("matches: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "match records are unavailable",
            )
                .into_response()
        }
    }
}

/// The followed matches, newest first.
#[utoipa::path(get, path = "/api/matches", tag = tag::MATCHES, operation_id = "matches",
    params(ListQuery),
    responses(
        (status = 200, description = "The matches", body = Vec<MatchSummary>),
        (status = 400, description = "A parameter it cannot read", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
async fn list(State(readers): State<Workers>, Query(q): Query<ListQuery>) -> Response {
    if let Some(refused) = no_address(q.server.as_deref()) {
        return refused;
    }
    let filter = q.filter();
    let found = readers
        .run(move |store| matches::list(store.exec()?, &filter))
        .await
        .map(|list| {
            let now = unix_ms();
            Some(list.into_iter().map(|m| shown(m, now)).collect::<Vec<_>>())
        });
    answer(found, "")
}

/// One match whole: its scoreboard, kill feed, rounds and roster changes.
#[utoipa::path(get, path = "/api/matches/{id}", tag = tag::MATCHES,
    params(("id" = u64, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The match", body = MatchDetail),
        (status = 400, description = "Not a match id", body = ApiError),
        (status = 404, description = "No such match", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
async fn detail(State(readers): State<Workers>, Path(id): Path<u64>) -> Response {
    let found = readers
        .run(move |store| matches::detail(store.exec()?, id))
        .await
        .map(|m| {
            m.map(|mut m| {
                m.summary = shown(m.summary, unix_ms());
                m
            })
        });
    answer(found, "no such match")
}

/// A player's record over the followed matches: totals, ratings, recent matches.
#[utoipa::path(get, path = "/api/players/{name}/stats", tag = tag::MATCHES,
    params(("name" = String, Path, description = "The name, colour codes and case ignored", example = "Fury")),
    responses(
        (status = 200, description = "The player's record", body = PlayerStats),
        (status = 404, description = "No followed match has this name", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
async fn player(State(readers): State<Workers>, Path(name): Path<String>) -> Response {
    let key = name_key(&name);
    let found = readers
        .run(move |store| matches::player(store.exec()?, &key, 20))
        .await
        .map(|p| {
            p.map(|mut p| {
                let now = unix_ms();
                for m in &mut p.recent {
                    m.summary = shown(m.summary.clone(), now);
                }
                p
            })
        });
    answer(found, "no followed match has this name")
}

/// The best rated players of a period.
#[utoipa::path(get, path = "/api/leaderboard", tag = tag::MATCHES,
    params(BoardQuery),
    responses(
        (status = 200, description = "The board, best first", body = Vec<LeaderRow>),
        (status = 400, description = "A parameter it cannot read", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
async fn leaderboard(State(readers): State<Workers>, Query(q): Query<BoardQuery>) -> Response {
    if let Some(refused) = no_address(q.server.as_deref()) {
        return refused;
    }
    let board = match q.board(unix_ms()) {
        Ok(board) => board,
        Err(why) => return (StatusCode::BAD_REQUEST, why).into_response(),
    };
    let found = readers
        .run(move |store| matches::leaderboard(store.exec()?, &board))
        .await
        .map(Some);
    answer(found, "")
}
