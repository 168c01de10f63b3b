//! Demos: recordings made through the spectator hubs, the `.dm_3` files on disk, and their
//! routes. The relay's operator (`--operator-token`, sent as
//! `Authorization: Bearer TOKEN`) starts and stops a recording with `POST` and `DELETE
//! /api/spectate/ADDR/record`; anyone may list the finished demos (`GET /api/demos`) and
//! download them (`GET /demos/NAME`). A file still being written is neither listed nor served:
//! it would show the match without the broadcast delay.

use std::sync::Arc;

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use protocol::relay_api::demos::{DemoEntry, DemoListing, RecordAnswer};
use protocol::relay_api::ApiError;
use tower_http::services::ServeFile;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::tag;
use crate::net::ServerAddr;
use crate::seams::RecordingHubs;

mod recorder;
mod tap;

pub use recorder::{finished, DemoFile, RecordConfig, RecordTarget, Recorder};
pub use tap::{tap, RecordTap};

/// The operator's recording settings for `muster serve`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DemosArgs {
    /// Where hubs record demos when the operator asks (the Record button, or POST
    /// /api/spectate/ADDR/record); the finished ones are listed at /api/demos.
    #[arg(long = "record-dir", value_name = "DIR")]
    pub record_dir: Option<std::path::PathBuf>,
    /// One recording stops, with its end marker, before its files reach this many MB.
    #[arg(long = "record-max-mb", default_value_t = 256)]
    pub record_max_mb: u64,
    /// The secret the relay's operator gives to start and stop recordings (as a Bearer
    /// token); without it nobody can.
    #[arg(
        long = "operator-token",
        env = "MUSTER_OPERATOR_TOKEN",
        value_name = "TOKEN"
    )]
    pub operator_token: Option<String>,
}

impl DemosArgs {
    /// Where hubs record, if anywhere.
    pub fn recording(&self) -> Option<RecordConfig> {
        self.record_dir.clone().map(|dir| RecordConfig {
            dir,
            max_bytes: self.record_max_mb.saturating_mul(1_000_000),
        })
    }

    /// The operator's token; an empty one is none.
    pub fn operator_token(&self) -> Option<String> {
        self.operator_token.clone().filter(|t| !t.is_empty())
    }
}

#[derive(Clone)]
struct RecordingState {
    hubs: Arc<dyn RecordingHubs>,
    /// Where hubs record; `None`: recording is off.
    recording: Option<RecordConfig>,
    operator_token: Option<Arc<str>>,
}

/// `POST`/`DELETE /api/spectate/ADDR/record`, `GET /api/demos`, `GET /demos/NAME`.
pub fn routes(
    hubs: Arc<dyn RecordingHubs>,
    recording: Option<RecordConfig>,
    operator_token: Option<String>,
) -> Router {
    Router::from(api())
        .route("/demos/{name}", get(download))
        .with_state(RecordingState {
            hubs,
            recording,
            operator_token: operator_token.map(Into::into),
        })
}

fn api() -> OpenApiRouter<RecordingState> {
    OpenApiRouter::new()
        .routes(routes!(start, stop))
        .routes(routes!(listing))
}

/// The demos' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
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

fn target(state: &RecordingState, addr: &str) -> Result<ServerAddr, Box<Response>> {
    if state.recording.is_none() {
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

/// Starts recording a server's match to a stock demo (starting its hub if need be).
#[utoipa::path(post, path = "/api/spectate/{addr}/record", tag = tag::DEMOS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Recording", body = RecordAnswer),
        (status = 400, description = "Not an IPv4 ip:port", body = ApiError),
        (status = 401, description = "The operator token is wrong", body = ApiError),
        (status = 403, description = "This relay has no operator token", body = ApiError),
        (status = 404, description = "Recording is off here, or the server is not listed", body = ApiError),
        (status = 503, description = "Every spectator slot of this relay is in use", body = ApiError),
    ))]
async fn start(
    State(state): State<RecordingState>,
    UrlPath(addr): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    set(&state, &headers, &addr, true)
}

/// Stops a recording; the demo is finished with the end marker and listed.
#[utoipa::path(delete, path = "/api/spectate/{addr}/record", tag = tag::DEMOS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "Stopped", body = RecordAnswer),
        (status = 400, description = "Not an IPv4 ip:port", body = ApiError),
        (status = 401, description = "The operator token is wrong", body = ApiError),
        (status = 403, description = "This relay has no operator token", body = ApiError),
        (status = 404, description = "Recording is off here, or no hub for that server", body = ApiError),
    ))]
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
    let found = if on {
        state
            .hubs
            .clone()
            .record(addr)
            .map_err(IntoResponse::into_response)
    } else if state.hubs.stop_recording(addr) {
        Ok(())
    } else {
        Err((StatusCode::NOT_FOUND, "no hub for that server").into_response())
    };
    match found {
        Ok(_) => (
            StatusCode::ACCEPTED,
            Json(RecordAnswer {
                addr: addr.to_string(),
                recording: on,
            }),
        )
            .into_response(),
        Err(refusal) => refusal,
    }
}

/// The finished demos, each with its download link, and the recordings under way.
#[utoipa::path(get, path = "/api/demos", tag = tag::DEMOS, operation_id = "demos",
    responses((status = 200, description = "The demos", body = DemoListing)))]
async fn listing(State(state): State<RecordingState>) -> Json<DemoListing> {
    let Some(config) = &state.recording else {
        return Json(DemoListing::default());
    };
    let busy = state.hubs.recording_paths();
    let demos = finished(&config.dir, &busy)
        .into_iter()
        .map(|d| DemoEntry {
            url: format!("/demos/{}", d.name),
            name: d.name,
            map: d.map,
            bytes: d.bytes,
            finished: d.started,
        })
        .collect();
    let recording = state.hubs.recordings();
    Json(DemoListing { demos, recording })
}

async fn download(
    State(state): State<RecordingState>,
    UrlPath(name): UrlPath<String>,
    request: Request,
) -> Response {
    use tower::ServiceExt;
    let Some(config) = &state.recording else {
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

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};

    use std::path::Path;

    use axum::http::Method;

    use super::*;
    use crate::http::oneshot::{call, get, request};
    use crate::spectate::{Hubs, SpectateConfig};

    const KNOWN: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960);
    const TOKEN: &str = "operator-secret";

    fn demos(dir: Option<&Path>, max_hubs: usize, token: Option<&str>) -> Router {
        let recording = dir.map(|dir| RecordConfig {
            dir: dir.to_path_buf(),
            max_bytes: 1_000_000,
        });
        let config = SpectateConfig {
            max_hubs,
            recordable: recording.is_some(),
            taps: crate::spectate::Taps(recording.iter().cloned().map(tap).collect()),
            ..SpectateConfig::default()
        };
        let hubs = Hubs::new(config, Arc::new(vec![KNOWN]));
        routes(hubs, recording, token.map(String::from))
    }

    async fn record(app: &Router, method: Method, addr: &str, token: Option<&str>) -> StatusCode {
        let uri = format!("/api/spectate/{addr}/record");
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer
            .as_deref()
            .map(|b| ("authorization", b))
            .into_iter()
            .collect();
        call(app, request(method, &uri, &headers)).await.0
    }

    #[tokio::test]
    async fn only_the_operator_records_and_every_refusal_has_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let no_operator = demos(Some(dir.path()), 16, None);
        assert_eq!(
            record(&no_operator, Method::POST, "10.0.0.7:28960", Some(TOKEN)).await,
            StatusCode::FORBIDDEN
        );
        let app = demos(Some(dir.path()), 0, Some(TOKEN));
        for wrong in [None, Some("guess"), Some("operator-secreT")] {
            assert_eq!(
                record(&app, Method::POST, "10.0.0.7:28960", wrong).await,
                StatusCode::UNAUTHORIZED
            );
        }
        let recording_off = demos(None, 16, Some(TOKEN));
        assert_eq!(
            record(&recording_off, Method::POST, "10.0.0.7:28960", Some(TOKEN)).await,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            record(&app, Method::POST, "nonsense", Some(TOKEN)).await,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            record(&app, Method::POST, "10.0.0.8:28960", Some(TOKEN)).await,
            StatusCode::NOT_FOUND,
            "a server the relay does not know"
        );
        assert_eq!(
            record(&app, Method::POST, "10.0.0.7:28960", Some(TOKEN)).await,
            StatusCode::SERVICE_UNAVAILABLE,
            "no hub slot left"
        );
        assert_eq!(
            record(&app, Method::DELETE, "10.0.0.7:28960", Some(TOKEN)).await,
            StatusCode::NOT_FOUND,
            "no hub to stop"
        );
    }

    #[tokio::test]
    async fn finished_demos_are_listed_and_served_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let name = "20261201-201500-10.0.0.7_28960-mp_foy.dm_3";
        std::fs::write(dir.path().join(name), b"a demo").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"not a demo").unwrap();
        let app = demos(Some(dir.path()), 16, Some(TOKEN));
        let (status, body) = call(&app, get("/api/demos")).await;
        assert_eq!(status, StatusCode::OK);
        let listing = DemoListing::decode(body.as_bytes()).unwrap();
        assert_eq!(listing.demos.len(), 1);
        assert_eq!(listing.demos[0].name, name);
        assert_eq!(listing.demos[0].map, "mp_foy");
        assert_eq!(listing.demos[0].bytes, 6);
        assert_eq!(listing.demos[0].url, format!("/demos/{name}"));
        assert!(listing.recording.is_empty());
        let (status, body) = call(&app, get(&listing.demos[0].url)).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "a demo"));
        for uri in [
            "/demos/notes.txt",
            "/demos/missing.dm_3",
            "/demos/..%2Fsecret.dm_3",
            "/demos/.hidden.dm_3",
        ] {
            assert_eq!(call(&app, get(uri)).await.0, StatusCode::NOT_FOUND, "{uri}");
        }
        let off = demos(None, 16, Some(TOKEN));
        let (status, body) = call(&off, get("/api/demos")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            DemoListing::decode(body.as_bytes()).unwrap(),
            DemoListing::default()
        );
        assert_eq!(
            call(&off, get(&format!("/demos/{name}"))).await.0,
            StatusCode::NOT_FOUND
        );
    }
}
