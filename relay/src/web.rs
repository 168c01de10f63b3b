//! HTTP: the built page, the JSON API, and the WebSocket that pushes the directory to pages.

use std::path::Path;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRef, Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::relay_api::{PageMessage, RelayMessage};
use tokio::sync::broadcast::error::RecvError;
use tower_http::services::{ServeDir, ServeFile};

use crate::directory::Directory;
use crate::spectate::{self, Hubs, JoinError};
use crate::wulfram::{self, WulframTarget, MAX_PAGE_MESSAGE};

/// Wulfram II sessions proxied at once, across all pages.
const MAX_PROXIES: usize = 64;

#[derive(Clone)]
struct AppState {
    directory: Arc<Directory>,
    wulfram: Arc<Vec<WulframTarget>>,
    proxies: Arc<tokio::sync::Semaphore>,
    hubs: Arc<Hubs>,
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
) -> Router {
    let page = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    let state = AppState {
        directory,
        wulfram: Arc::new(wulfram),
        proxies: Arc::new(tokio::sync::Semaphore::new(MAX_PROXIES)),
        hubs,
    };
    Router::new()
        .route("/api/servers", get(api_servers))
        .route("/api/masters", get(api_masters))
        .route("/api/wulfram", get(api_wulfram))
        .route("/api/spectate", get(api_spectate))
        .route("/api/spectate/{addr}", get(api_spectate_one))
        .route("/ws", get(ws_upgrade))
        .route("/spectate/{addr}", get(spectate_upgrade))
        .route("/overview/{map}", get(overview))
        .route("/wulfram/{name}", get(wulfram_upgrade))
        .fallback_service(page)
        .with_state(state)
}

/// Socket buffers of a viewer: it only ever sends a few bytes, and the relay writes whole
/// frames straight through, so an idle viewer costs little.
const VIEWER_BUFFER: usize = 4096;

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
        Err(e @ JoinError::Unknown) => {
            return (StatusCode::NOT_FOUND, e.to_string()).into_response()
        }
        Err(e @ JoinError::Full) => {
            return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response()
        }
    };
    ws.max_message_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .max_frame_size(protocol::relay_api::watch::MAX_VIEWER_MESSAGE)
        .read_buffer_size(VIEWER_BUFFER)
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
) -> axum::response::Response {
    let Some(file) = state.hubs.config().overviews.iter().find(|o| o.map == map) else {
        return (StatusCode::NOT_FOUND, "no overview for that map").into_response();
    };
    let kind = match file.path.extension().and_then(|e| e.to_str()) {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    match tokio::fs::read(&file.path).await {
        Ok(bytes) => ([(axum::http::header::CONTENT_TYPE, kind)], bytes).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, e.to_string()).into_response(),
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

async fn ws_upgrade(
    ws: WebSocketUpgrade,
    State(directory): State<Arc<Directory>>,
) -> impl IntoResponse {
    // A page only ever sends a short watch message.
    ws.max_message_size(4096)
        .max_frame_size(4096)
        .on_upgrade(move |socket: WebSocket| {
            let (sink, stream) = socket.split();
            feed_page(directory, sink, stream)
        })
}

fn encode(message: &RelayMessage) -> Message {
    // Serializing these plain structs cannot fail.
    Message::Text(serde_json::to_string(message).unwrap_or_default().into())
}

/// Sends the directory, then every change, until the page goes away. A page that falls behind
/// gets the whole directory again instead of the changes it missed. A page may say which known
/// server it shows in detail, which the relay then refreshes more often; nothing it sends can
/// make the relay query an address it did not already know.
pub async fn feed_page<S, R>(directory: Arc<Directory>, mut sink: S, mut stream: R)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let mut changes = directory.subscribe();
    if sink.send(encode(&directory.snapshot())).await.is_err() {
        return;
    }
    let page = directory.page_opened();
    follow(&directory, page, &mut changes, &mut sink, &mut stream).await;
    directory.page_closed(page);
}

async fn follow<S, R>(
    directory: &Directory,
    page: u64,
    changes: &mut tokio::sync::broadcast::Receiver<RelayMessage>,
    sink: &mut S,
    stream: &mut R,
) where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    loop {
        tokio::select! {
            change = changes.recv() => {
                let message = match change {
                    Ok(message) => message,
                    Err(RecvError::Lagged(_)) => directory.snapshot(),
                    Err(RecvError::Closed) => return,
                };
                if sink.send(encode(&message)).await.is_err() {
                    return;
                }
            }
            incoming = stream.next() => match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(Message::Text(text))) => {
                    if let Ok(PageMessage::Watch { addr }) = serde_json::from_str(&text) {
                        directory.watch(page, addr);
                    }
                }
                Some(Ok(_)) => {}
            },
        }
    }
}
