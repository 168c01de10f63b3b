//! The matches' charts as SVG under `/api/` (the score over a match, where its kills happened,
//! a player's rating), for the pages and for anyone who embeds them. API answers: their
//! refusals are in English, as every `/api/` error is.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::api::Pages;
use super::chart;
use crate::store::matches;
use crate::store::name_key;
use crate::store::worker::Workers;
use protocol::relay_api::matches::MatchDetail;
use protocol::relay_api::ApiError;

use crate::http::tag;

fn unavailable(e: crate::store::StoreError) -> Response {
    tracing::warn!("matches: {e}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "match records are unavailable",
    )
        .into_response()
}

/// A match's score over its course, as a chart for a page or a card to embed.
#[utoipa::path(get, path = "/api/matches/{id}/score.svg", tag = tag::MATCHES,
    params(("id" = u64, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The score over the match", content_type = "image/svg+xml", body = String),
        (status = 400, description = "Not a match id", body = ApiError),
        (status = 404, description = "No such match", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
pub async fn score_svg(State(readers): State<Workers>, Path(id): Path<u64>) -> Response {
    svg(readers, id, chart::score).await
}

#[derive(serde::Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RatingQuery {
    /// One gametype's ratings (the player's first otherwise).
    gametype: Option<String>,
}

/// A player's rating after each rated match, as a chart.
#[utoipa::path(get, path = "/api/players/{name}/rating.svg", tag = tag::MATCHES,
    params(("name" = String, Path, description = "The name, colour codes and case ignored", example = "Fury"), RatingQuery),
    responses(
        (status = 200, description = "The rating after each rated match", content_type = "image/svg+xml", body = String),
        (status = 404, description = "No followed match has this name", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
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

/// Where the match's kills were made, over the map's overview when the operator gave one.
#[utoipa::path(get, path = "/api/matches/{id}/heatmap.svg", tag = tag::MATCHES,
    params(("id" = u64, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The heatmap", content_type = "image/svg+xml", body = String),
        (status = 400, description = "Not a match id", body = ApiError),
        (status = 404, description = "No such match", body = ApiError),
        (status = 503, description = "The match records cannot be read", body = ApiError),
    ))]
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
