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

fn unavailable(e: crate::store::StoreError) -> Response {
    tracing::warn!("matches: {e}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "match records are unavailable",
    )
        .into_response()
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
