//! `GET /api/highlights` and `GET /api/highlights/{id}`.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::relay_api::highlights::{Highlight, HighlightKind};
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Highlights;
use crate::http::tag;
use crate::net::ServerAddr;
use crate::store::highlights::{self, Wanted};

/// The most one answer lists.
const MOST: u32 = 200;
const DEFAULT_LIMIT: u32 = 50;

fn refused(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

fn unavailable(e: crate::store::StoreError) -> Response {
    tracing::warn!("highlights: {e}");
    refused(
        StatusCode::SERVICE_UNAVAILABLE,
        "highlights are unavailable",
    )
}

/// The query read, or which parameter is wrong and why. Read by hand from the raw pairs so
/// the refusal names the parameter (serde's would name a type).
fn wanted(query: &HashMap<String, String>) -> Result<Wanted, String> {
    let mut wanted = Wanted {
        limit: DEFAULT_LIMIT,
        ..Wanted::default()
    };
    for (name, value) in query {
        match name.as_str() {
            // An empty server is every server, as in the matches' routes.
            "server" if value.is_empty() => {}
            "server" => {
                value
                    .parse::<ServerAddr>()
                    .map_err(|_| format!("server: {value:?} is not an IPv4 address and port"))?;
                wanted.server = Some(value.clone());
            }
            // A name with nothing but colours and spaces is no one's: no play is theirs.
            "player" => wanted.player = Some(crate::store::name_key(value)),
            "match" => {
                wanted.match_id = Some(
                    value
                        .parse()
                        .map_err(|_| format!("match: {value:?} is not a match id"))?,
                )
            }
            "kind" => {
                wanted.kind = Some(HighlightKind::from_name(value).ok_or_else(|| {
                    let kinds: Vec<&str> = HighlightKind::ALL.map(HighlightKind::name).to_vec();
                    format!("kind: {value:?} is none of {}", kinds.join(", "))
                })?)
            }
            "since" => {
                wanted.since_ms =
                    Some(value.parse().map_err(|_| {
                        format!("since: {value:?} is not a time in Unix milliseconds")
                    })?)
            }
            "best" => {
                wanted.best = match value.as_str() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("best: {value:?} is not true or false")),
                }
            }
            "limit" => {
                wanted.limit = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MOST).contains(n))
                    .ok_or_else(|| format!("limit: {value:?} is not from 1 to {MOST}"))?
            }
            other => {
                return Err(format!(
                "{other}: not a parameter here (server, player, match, kind, since, best, limit)"
            ))
            }
        }
    }
    Ok(wanted)
}

pub(super) fn api() -> OpenApiRouter<Highlights> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(one))
}

/// The highlights' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The plays of the followed matches, newest first (or best first with `best`).
#[utoipa::path(get, path = "/api/highlights", tag = tag::HIGHLIGHTS, operation_id = "highlights",
    params(
        ("server" = Option<String>, Query, description = "One server's (`ip:port`)"),
        ("player" = Option<String>, Query, description = "One player's, colour codes and case ignored"),
        ("match" = Option<u64>, Query, description = "One match's"),
        ("kind" = Option<HighlightKind>, Query, description = "One kind of play"),
        ("since" = Option<u64>, Query, description = "Only plays made after this, in Unix milliseconds"),
        ("best" = Option<bool>, Query, description = "Only each match's play of the match"),
        ("limit" = Option<u32>, Query, description = "How many (50 by default, 1 to 200)", minimum = 1, maximum = 200),
    ),
    responses(
        (status = 200, description = "The plays", body = Vec<Highlight>),
        (status = 400, description = "A parameter it cannot read, named", body = ApiError),
        (status = 503, description = "The highlights cannot be read", body = ApiError),
    ))]
pub(super) async fn list(
    State(h): State<Highlights>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let wanted = match wanted(&query) {
        Ok(wanted) => wanted,
        Err(why) => return refused(StatusCode::BAD_REQUEST, why),
    };
    match h
        .store
        .run(move |s| highlights::list(s.exec()?, &wanted))
        .await
    {
        Ok(list) => Json(list).into_response(),
        Err(e) => unavailable(e),
    }
}

/// One play.
#[utoipa::path(get, path = "/api/highlights/{id}", tag = tag::HIGHLIGHTS, operation_id = "highlight",
    params(("id" = String, Path, description = "The play's id")),
    responses(
        (status = 200, description = "The play", body = Highlight),
        (status = 404, description = "No such play", body = ApiError),
        (status = 503, description = "The highlights cannot be read", body = ApiError),
    ))]
pub(super) async fn one(State(h): State<Highlights>, Path(id): Path<String>) -> Response {
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return refused(StatusCode::NOT_FOUND, "no such highlight");
    }
    match h.store.run(move |s| highlights::one(s.exec()?, &id)).await {
        Ok(Some(one)) => Json(one).into_response(),
        Ok(None) => refused(StatusCode::NOT_FOUND, "no such highlight"),
        Err(e) => unavailable(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(pairs: &[(&str, &str)]) -> Result<Wanted, String> {
        wanted(
            &pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn each_bad_parameter_is_named() {
        for (pair, said) in [
            (("server", "nowhere"), "server:"),
            (("match", "x"), "match:"),
            (("kind", "ace"), "kind: \"ace\" is none of triple, quad"),
            (("since", "-1"), "since:"),
            (("limit", "0"), "limit:"),
            (("limit", "201"), "limit:"),
            (("best", "maybe"), "best:"),
            (("colour", "red"), "colour: not a parameter"),
        ] {
            let why = ask(&[pair]).unwrap_err();
            assert!(why.starts_with(said), "{pair:?}: {why}");
        }
        let good = ask(&[
            ("server", "127.0.0.1:28960"),
            ("player", "^1Sgt.^7Fury"),
            ("kind", "long_shot"),
            ("limit", "200"),
        ])
        .unwrap();
        assert_eq!(good.player.as_deref(), Some("sgt.fury"));
        assert_eq!(good.kind, Some(HighlightKind::LongShot));
        assert_eq!(good.limit, 200);
    }
}
