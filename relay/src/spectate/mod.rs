//! Spectating: hubs that join a watched server once (one server slot) and fan the delayed match
//! out to any number of viewers; the routes `/spectate/ADDR` (a viewer's socket),
//! `GET /api/spectate`, `GET /api/spectate/ADDR` and `GET /overview/MAP`.

mod api;
mod cluster;
mod config;
mod delay;
mod hub;
mod registry;
mod replica;
mod scrape;
mod sent;
mod task;
mod viewer;

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tower_http::services::ServeFile;

use crate::http::tag;
use crate::net::ServerAddr;
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

pub use crate::seams::JoinError;
pub use cluster::ClusterClipping;
pub use config::{OverviewFile, Rewind, ServerPassword, SpectateArgs, SpectateConfig, Taps};
pub use hub::{Frame, FrameKind, Hub, ViewerGuard, VIEWER_BACKLOG};
pub use registry::Hubs;

/// The spectating routes (the HTTP assembly puts the Origin check in front of the socket).
pub fn routes(hubs: Arc<Hubs>) -> Router {
    Router::from(api())
        .route("/spectate/{addr}", get(upgrade))
        .route("/overview/{map}", get(overview))
        .with_state(hubs)
}

fn api() -> OpenApiRouter<Arc<Hubs>> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(one))
}

/// The spectator's part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// Opens a viewer on the spectator hub of a server the directory lists.
async fn upgrade(
    UrlPath(addr): UrlPath<String>,
    State(hubs): State<Arc<Hubs>>,
    closing: crate::edge::Closing,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Ok(addr) = addr.parse::<ServerAddr>() else {
        return (StatusCode::BAD_REQUEST, "not an IPv4 ip:port").into_response();
    };
    // Said before anything starts: a plain GET learns why, and takes no slot.
    if !hubs.knows(addr) {
        return JoinError::Unknown.into_response();
    }
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    let rewind = hubs.config().rewind.0.clone();
    let sent = hubs.sent.clone();
    let guard = match hubs.join(addr) {
        Ok(guard) => guard,
        Err(e) => return e.into_response(),
    };
    ws.max_message_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .max_frame_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .read_buffer_size(crate::http::SOCKET_BUFFER)
        // Frames are written when the viewer's turn ends (flushed), several at once when it
        // fell behind: never held back, never written one system call each.
        .write_buffer_size(crate::http::SOCKET_BUFFER)
        .on_upgrade(move |socket| {
            let (sink, stream) = closing.split(socket);
            viewer::serve(guard, rewind, sent, sink, stream)
        })
}

/// The hubs: each watched server, its state, audience and delay.
#[utoipa::path(get, path = "/api/spectate", tag = tag::SPECTATE, operation_id = "hubs",
    responses((status = 200, description = "The hubs", body = Vec<api::HubSummary>)))]
async fn list(State(hubs): State<Arc<Hubs>>) -> Json<Vec<api::HubSummary>> {
    Json(hubs.list().iter().map(|h| api::hub_summary(h)).collect())
}

/// One hub with its delayed match: players, vehicles and the feed, as viewers see it.
#[utoipa::path(get, path = "/api/spectate/{addr}", tag = tag::SPECTATE, operation_id = "hub",
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    responses(
        (status = 200, description = "The hub", body = api::HubSummary),
        (status = 404, description = "Nobody watches that server", body = ApiError),
    ))]
async fn one(UrlPath(addr): UrlPath<String>, State(hubs): State<Arc<Hubs>>) -> Response {
    let hub = addr.parse::<ServerAddr>().ok().and_then(|a| hubs.get(&a));
    match hub {
        Some(hub) => Json(api::match_json(&hub)).into_response(),
        None => (StatusCode::NOT_FOUND, "nobody watches that server").into_response(),
    }
}

/// An overview image the operator configured for a map.
async fn overview(
    UrlPath(map): UrlPath<String>,
    State(hubs): State<Arc<Hubs>>,
    request: Request,
) -> Response {
    use tower::ServiceExt;
    let Some(file) = hubs.config().overviews.iter().find(|o| o.map == map) else {
        return (StatusCode::NOT_FOUND, "no overview for that map").into_response();
    };
    match ServeFile::new(&file.path).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

/// Starts the hubs (none runs until a viewer or a recording asks) for the servers `known`
/// lists; in a cluster one relay's hub holds each match's game slot. Returns the hubs and the
/// routes.
pub fn start(
    config: SpectateConfig,
    known: crate::seams::Known,
    cluster: Option<Arc<crate::cluster::Cluster>>,
) -> (Arc<Hubs>, Router) {
    let hubs = Hubs::clustered(config, known, cluster);
    let router = routes(hubs.clone());
    (hubs, router)
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};

    use super::*;
    use crate::http::oneshot::{call, get, upgrade};

    const KNOWN: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960);

    fn spectate(overview: &std::path::Path) -> (Arc<Hubs>, Router) {
        let config = SpectateConfig {
            overviews: vec![OverviewFile {
                map: "mp_foy".into(),
                path: overview.to_path_buf(),
                corners: [-100.0, 100.0, 100.0, -100.0],
            }],
            ..SpectateConfig::default()
        };
        let hubs = Hubs::new(config, Arc::new(vec![KNOWN]));
        (hubs.clone(), routes(hubs))
    }

    #[tokio::test]
    async fn a_viewer_socket_opens_only_for_a_known_server() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let (hubs, app) = spectate(file.path());
        let bad = call(&app, upgrade("/spectate/not-an-address", None)).await;
        assert_eq!(bad, (StatusCode::BAD_REQUEST, "not an IPv4 ip:port".into()));
        let unknown = call(&app, upgrade("/spectate/10.0.0.8:28960", None)).await;
        assert_eq!(
            unknown,
            (
                StatusCode::NOT_FOUND,
                "not a server in the directory".into()
            )
        );
        let plain = call(&app, get("/spectate/10.0.0.7:28960")).await;
        assert_eq!(plain.0, StatusCode::BAD_REQUEST, "{plain:?}");
        let known = call(&app, upgrade("/spectate/10.0.0.7:28960", None)).await;
        assert_eq!(known.0, StatusCode::UPGRADE_REQUIRED);
        // None of these took a server slot.
        assert!(hubs.list().is_empty());
    }

    #[tokio::test]
    async fn hubs_and_overviews() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), b"PNG of mp_foy").unwrap();
        let (_, app) = spectate(file.path());
        assert_eq!(
            call(&app, get("/api/spectate")).await,
            (StatusCode::OK, "[]".into())
        );
        for uri in ["/api/spectate/10.0.0.7:28960", "/api/spectate/nonsense"] {
            let answer = call(&app, get(uri)).await;
            assert_eq!(
                answer,
                (StatusCode::NOT_FOUND, "nobody watches that server".into())
            );
        }
        assert_eq!(
            call(&app, get("/overview/mp_foy")).await,
            (StatusCode::OK, "PNG of mp_foy".into())
        );
        assert_eq!(
            call(&app, get("/overview/mp_carentan")).await,
            (StatusCode::NOT_FOUND, "no overview for that map".into())
        );
    }
}
