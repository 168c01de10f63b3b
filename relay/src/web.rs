//! HTTP: the built page, the JSON API, and the WebSocket that pushes the directory to pages.

use std::path::Path;
use std::sync::Arc;

use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::Request;
use axum::extract::{ConnectInfo, FromRef, Path as UrlPath, Query, State};
use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use futures_util::StreamExt;
use tower_http::services::{ServeDir, ServeFile};

use crate::bridge::Bridge;
use crate::directory::Directory;
use crate::feed::PageFeed;
use crate::spectate::{self, Hubs};
use crate::wulfram::{self, WulframTarget, MAX_PAGE_MESSAGE};

/// Wulfram II sessions proxied at once, across all pages.
const MAX_PROXIES: usize = 64;

#[derive(Clone)]
struct AppState {
    directory: Arc<Directory>,
    wulfram: Arc<Vec<WulframTarget>>,
    proxies: Arc<tokio::sync::Semaphore>,
    hubs: Arc<Hubs>,
    feed: Arc<PageFeed>,
    /// Origins besides the relay's own that may open its sockets.
    origins: Arc<Vec<String>>,
    bridge: Arc<Bridge>,
}

impl FromRef<AppState> for Arc<Directory> {
    fn from_ref(state: &AppState) -> Self {
        state.directory.clone()
    }
}

/// The relay's routes; `dist` is the page Trunk built, `wulfram` the servers sessions may be
/// proxied to, `hubs` the spectator hubs.
pub fn router(
    directory: Arc<Directory>,
    dist: &Path,
    wulfram: Vec<WulframTarget>,
    hubs: Arc<Hubs>,
    feed: Arc<PageFeed>,
    origins: Vec<String>,
    bridge: Arc<Bridge>,
) -> Router {
    // The page's files go gzipped where the build left a .gz beside them.
    let page = ServeDir::new(dist)
        .precompressed_gzip()
        .fallback(ServeFile::new(dist.join("index.html")).precompressed_gzip());
    let state = AppState {
        directory,
        wulfram: Arc::new(wulfram),
        proxies: Arc::new(tokio::sync::Semaphore::new(MAX_PROXIES)),
        hubs,
        feed,
        origins: Arc::new(origins),
        bridge,
    };
    // Every WebSocket opens only for the relay's own pages and the origins allowed.
    let sockets = Router::new()
        .route("/ws", get(ws_upgrade))
        .route("/spectate/{addr}", get(spectate_upgrade))
        .route("/wulfram/{name}", get(wulfram_upgrade))
        .route("/bridge/{addr}", get(bridge_upgrade))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            same_origin,
        ));
    Router::new()
        .route("/api/servers", get(api_servers))
        .route("/api/masters", get(api_masters))
        .route("/api/wulfram", get(api_wulfram))
        .route("/api/feed", get(api_feed))
        .route("/api/bridge", get(api_bridge))
        .route("/api/spectate", get(api_spectate))
        .route("/api/spectate/{addr}", get(api_spectate_one))
        .route("/overview/{map}", get(overview))
        .merge(sockets)
        .fallback_service(page)
        .with_state(state)
}

/// Refuses a request from a foreign origin with 403.
async fn same_origin(
    State(state): State<AppState>,
    request: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if origin_allowed(request.headers(), &state.origins) {
        next.run(request).await
    } else {
        (
            StatusCode::FORBIDDEN,
            "this origin may not open the relay's sockets",
        )
            .into_response()
    }
}

/// Opens a viewer on the spectator hub of a server the directory lists.
async fn spectate_upgrade(
    ws: WebSocketUpgrade,
    UrlPath(addr): UrlPath<String>,
    State(state): State<AppState>,
) -> axum::response::Response {
    let Ok(addr) = addr.parse::<std::net::SocketAddrV4>() else {
        return (StatusCode::BAD_REQUEST, "not an IPv4 ip:port").into_response();
    };
    let guard = match state.hubs.join(addr) {
        Ok(guard) => guard,
        Err(e) => return e.into_response(),
    };
    ws.max_message_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .max_frame_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .read_buffer_size(PAGE_BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket| {
            let (sink, stream) = socket.split();
            spectate::viewer::serve(guard, sink, stream)
        })
}

async fn api_spectate(State(state): State<AppState>) -> impl IntoResponse {
    let hubs: Vec<serde_json::Value> = state
        .hubs
        .list()
        .iter()
        .map(|h| spectate::api::hub_summary(h))
        .collect();
    Json(hubs)
}

async fn api_spectate_one(
    UrlPath(addr): UrlPath<String>,
    State(state): State<AppState>,
) -> axum::response::Response {
    let hub = addr
        .parse::<std::net::SocketAddrV4>()
        .ok()
        .and_then(|a| state.hubs.get(&a));
    match hub {
        Some(hub) => Json(spectate::api::match_json(&hub)).into_response(),
        None => (StatusCode::NOT_FOUND, "nobody watches that server").into_response(),
    }
}

/// An overview image the operator configured for a map.
async fn overview(
    UrlPath(map): UrlPath<String>,
    State(state): State<AppState>,
    request: Request,
) -> axum::response::Response {
    use tower::ServiceExt;
    let Some(file) = state.hubs.config().overviews.iter().find(|o| o.map == map) else {
        return (StatusCode::NOT_FOUND, "no overview for that map").into_response();
    };
    match ServeFile::new(&file.path).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    }
}

async fn api_wulfram(State(directory): State<Arc<Directory>>) -> impl IntoResponse {
    Json(directory.wulfram())
}

/// Opens a proxied session to a configured Wulfram II server; any other name is not found.
async fn wulfram_upgrade(
    ws: WebSocketUpgrade,
    UrlPath(name): UrlPath<String>,
    State(state): State<AppState>,
) -> axum::response::Response {
    let Some(target) = state.wulfram.iter().find(|t| t.name == name).cloned() else {
        return (StatusCode::NOT_FOUND, "no such Wulfram server").into_response();
    };
    let Ok(permit) = state.proxies.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many Wulfram sessions").into_response();
    };
    ws.max_message_size(MAX_PAGE_MESSAGE)
        .max_frame_size(MAX_PAGE_MESSAGE)
        .on_upgrade(move |socket| async move {
            wulfram::proxy(socket, target).await;
            drop(permit);
        })
}

async fn api_servers(State(directory): State<Arc<Directory>>) -> impl IntoResponse {
    Json(directory.servers())
}

async fn api_masters(State(directory): State<Arc<Directory>>) -> impl IntoResponse {
    Json(directory.masters())
}

/// Opens a page's feed; only the relay's own pages (and the origins the operator allowed) may.
async fn ws_upgrade(
    ws: WebSocketUpgrade,
    Query(query): Query<FeedQuery>,
    State(state): State<AppState>,
) -> axum::response::Response {
    // A page only ever sends a short watch message, and takes whole frames as they come.
    ws.max_message_size(4096)
        .max_frame_size(4096)
        .read_buffer_size(PAGE_BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket: WebSocket| {
            let (sink, stream) = socket.split();
            state.feed.serve(sink, stream, query.hold.is_some())
        })
}

/// `/ws?hold`: the page opened its feed before its code ran; the players index and the ticks
/// wait for its first message.
#[derive(serde::Deserialize)]
struct FeedQuery {
    hold: Option<String>,
}

/// Opens a bridge session to a known server or configured master; see [`crate::bridge`].
async fn bridge_upgrade(
    ws: WebSocketUpgrade,
    UrlPath(addr): UrlPath<String>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> axum::response::Response {
    let Ok(target) = addr.parse::<std::net::SocketAddrV4>() else {
        return (StatusCode::BAD_REQUEST, "not an IPv4 ip:port").into_response();
    };
    let forwarded = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
    let client = state.bridge.client_ip(peer.ip(), forwarded);
    let opened = state.bridge.open_session(client, target).await;
    // A message is one datagram; twice the bridge's limit, so an oversized one is reported.
    let limit = 2 * protocol::bridge::MAX_DATAGRAM;
    let ws = ws
        .max_message_size(limit)
        .max_frame_size(limit)
        .read_buffer_size(PAGE_BUFFER)
        .write_buffer_size(0);
    // A refused session is still upgraded: a browser never shows a page the body of a failed
    // upgrade, and the page is to say why.
    match opened {
        Ok(session) => ws.on_upgrade(move |socket| session.run(socket)),
        Err(refusal) => ws.on_upgrade(move |socket| crate::bridge::refuse(socket, refusal)),
    }
}

async fn api_bridge(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::to_value(&state.bridge.counters).unwrap_or_default())
}

/// Socket buffers of a page or viewer: it sends a few bytes, and the relay writes whole frames
/// straight through, so an idle one costs little.
const PAGE_BUFFER: usize = 4096;

/// Whether a browser's `Origin` may open the relay's sockets: the relay's own origin (the
/// `Host` the page reached it at) or one the operator allowed. Tools that are not browsers send
/// no `Origin`; a web page cannot leave it out.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    let host = headers.get(HOST).and_then(|h| h.to_str().ok());
    let own = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    (own.is_some() && own == host) || allowed.iter().any(|a| a.trim_end_matches('/') == origin)
}

async fn api_feed(State(state): State<AppState>) -> impl IntoResponse {
    Json(serde_json::to_value(&state.feed.counters).unwrap_or_default())
}
