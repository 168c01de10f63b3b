//! Hub recording over HTTP. The relay's operator (`--operator-token`, sent as
//! `Authorization: Bearer TOKEN`) starts and stops a recording with `POST` and `DELETE
//! /api/spectate/ADDR/record`; anyone may list the finished demos (`GET /api/demos`) and
//! download them (`GET /demos/NAME`). A file still being written is neither listed nor served:
//! it would show the match without the broadcast delay.

use std::net::SocketAddrV4;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tower_http::services::ServeFile;

use super::hub::Hubs;
use crate::record;

#[derive(Clone)]
struct RecordingState {
    hubs: Arc<Hubs>,
    operator_token: Option<Arc<str>>,
}

/// The recording routes.
pub fn routes(hubs: Arc<Hubs>, operator_token: Option<String>) -> Router {
    Router::new()
        .route("/api/spectate/{addr}/record", post(start).delete(stop))
        .route("/api/demos", get(list))
        .route("/demos/{name}", get(download))
        .with_state(RecordingState {
            hubs,
            operator_token: operator_token.map(Into::into),
        })
}

/// Equal in time whatever the bytes, so the token cannot be guessed a byte at a time.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorize(state: &RecordingState, headers: &HeaderMap) -> Result<(), Box<Response>> {
    let Some(token) = &state.operator_token else {
        return Err(Box::new(
            (
                StatusCode::FORBIDDEN,
                "this relay has no operator: start it with --operator-token",
            )
                .into_response(),
        ));
    };
    let given = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if same(given.as_bytes(), token.as_bytes()) {
        Ok(())
    } else {
        Err(Box::new(
            (StatusCode::UNAUTHORIZED, "the operator token is wrong").into_response(),
        ))
    }
}

fn target(state: &RecordingState, addr: &str) -> Result<SocketAddrV4, Box<Response>> {
    if state.hubs.config().recording.is_none() {
        return Err(Box::new(
            (
                StatusCode::NOT_FOUND,
                "recording is off: start the relay with --record-dir",
            )
                .into_response(),
        ));
    }
    addr.parse()
        .map_err(|_| Box::new((StatusCode::BAD_REQUEST, "not an IPv4 ip:port").into_response()))
}

async fn start(
    State(state): State<RecordingState>,
    UrlPath(addr): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    set(&state, &headers, &addr, true)
}

async fn stop(
    State(state): State<RecordingState>,
    UrlPath(addr): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    set(&state, &headers, &addr, false)
}

/// The operator's start (which starts the hub if need be) or stop.
fn set(state: &RecordingState, headers: &HeaderMap, addr: &str, on: bool) -> Response {
    let addr = match authorize(state, headers).and_then(|()| target(state, addr)) {
        Ok(addr) => addr,
        Err(refusal) => return *refusal,
    };
    let found = match (on, state.hubs.get(&addr)) {
        (true, _) => state.hubs.record(addr).map_err(IntoResponse::into_response),
        (false, Some(hub)) => {
            hub.set_recording(false);
            Ok(hub)
        }
        (false, None) => Err((StatusCode::NOT_FOUND, "no hub for that server").into_response()),
    };
    match found {
        Ok(_) => (
            StatusCode::ACCEPTED,
            Json(json!({"addr": addr.to_string(), "recording": on})),
        )
            .into_response(),
        Err(refusal) => refusal,
    }
}

async fn list(State(state): State<RecordingState>) -> Response {
    let Some(config) = &state.hubs.config().recording else {
        return Json(json!({"demos": [], "recording": []})).into_response();
    };
    let busy = state.hubs.recording_paths();
    let demos: Vec<_> = record::list(&config.dir, &busy)
        .into_iter()
        .map(|d| {
            json!({
                "name": d.name,
                "map": d.map,
                "bytes": d.bytes,
                "finished": d.started,
                "url": format!("/demos/{}", d.name),
            })
        })
        .collect();
    let recording: Vec<_> = state
        .hubs
        .list()
        .iter()
        .filter_map(|hub| {
            let status = hub.status();
            let file = status.recording?;
            Some(json!({"addr": status.addr, "file": file.file, "bytes": file.bytes}))
        })
        .collect();
    Json(json!({"demos": demos, "recording": recording})).into_response()
}

async fn download(
    State(state): State<RecordingState>,
    UrlPath(name): UrlPath<String>,
    request: Request,
) -> Response {
    use tower::ServiceExt;
    let Some(config) = &state.hubs.config().recording else {
        return (StatusCode::NOT_FOUND, "recording is off").into_response();
    };
    let path = config.dir.join(&name);
    let plain = !name.contains(['/', '\\']) && !name.starts_with('.');
    if !plain
        || !name.ends_with(".dm_3")
        || state.hubs.recording_paths().contains(&path)
        || !path.is_file()
    {
        return (StatusCode::NOT_FOUND, "no such demo").into_response();
    }
    match ServeFile::new(&path).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}
