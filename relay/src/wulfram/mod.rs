//! Wulfram II: the servers the operator configured, checked by connecting to their TCP port,
//! and a session proxy. A page (or tool) opens `/wulfram/NAME` and exchanges packets with that
//! server over TCP and UDP through the relay, which enforces the size policy both ways and
//! never connects anywhere the operator did not name.
//!
//! WebSocket binary messages carry one transport unit each, after a channel byte: `0` and a TCP
//! payload (opcode and body; the relay adds and strips the frame's size prefix), or `1` and one
//! whole UDP datagram. Text messages from the relay are [`protocol::relay_api::proxy::ProxyReport`]s:
//! `connected`, `dropped` (a packet over the policy, which is never forwarded) and `closed`.

mod check;
mod proxy;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use protocol::wulfram::policy::MAX_TCP_PAYLOAD;
use protocol::wulfram::PORT;

pub use check::check;
pub use protocol::relay_api::proxy::{CHANNEL_TCP, CHANNEL_UDP};
pub use proxy::proxy;

use crate::seams::WulframBoard;

/// The largest WebSocket message a page may send: a channel byte and a TCP payload.
pub const MAX_PAGE_MESSAGE: usize = 1 + MAX_TCP_PAYLOAD + 64;
/// How long a check or a proxy's connect may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WulframTarget {
    pub name: String,
    pub addr: SocketAddr,
}

/// Parses `NAME=HOST[:PORT]` (port 2627 by default), resolving the host once.
pub async fn parse_target(text: &str) -> anyhow::Result<WulframTarget> {
    let (name, host) = text
        .split_once('=')
        .with_context(|| format!("{text:?}: expected NAME=HOST[:PORT]"))?;
    let name = name.trim();
    anyhow::ensure!(
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "{name:?}: a Wulfram server's name is letters, digits, '-', '_' and '.'"
    );
    // The relay's one way of reading HOST[:PORT]; Wulfram II targets are IPv4 as the rest.
    let addr = crate::net::resolve(host, PORT).await?[0];
    Ok(WulframTarget {
        name: name.to_owned(),
        addr: SocketAddr::V4(addr),
    })
}

/// The Wulfram II servers of `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct WulframArgs {
    /// A Wulfram II server pages may open sessions to, as NAME=HOST[:PORT] (port 2627); repeat
    /// for more. The relay proxies only to these.
    #[arg(long = "wulfram", value_name = "NAME=HOST[:PORT]")]
    pub wulfram: Vec<String>,
    /// Seconds between checks of the Wulfram II servers.
    #[arg(long, default_value_t = 30)]
    pub wulfram_interval: u64,
}

impl WulframArgs {
    /// Resolves every target once.
    pub async fn config(&self) -> anyhow::Result<WulframConfig> {
        let mut targets = Vec::new();
        for target in &self.wulfram {
            targets.push(parse_target(target).await?);
        }
        Ok(WulframConfig {
            targets,
            check_every: Duration::from_secs(self.wulfram_interval.max(1)),
        })
    }
}

/// The servers sessions may be proxied to, and how often they are checked.
#[derive(Clone, Debug)]
pub struct WulframConfig {
    pub targets: Vec<WulframTarget>,
    pub check_every: Duration,
}

impl Default for WulframConfig {
    fn default() -> Self {
        Self {
            targets: Vec::new(),
            check_every: Duration::from_secs(30),
        }
    }
}

/// Wulfram II sessions proxied at once, across all pages.
const MAX_PROXIES: usize = 64;

#[derive(Clone)]
struct WulframState {
    board: Arc<dyn WulframBoard>,
    targets: Arc<Vec<WulframTarget>>,
    proxies: Arc<tokio::sync::Semaphore>,
}

/// `GET /api/wulfram` and the proxy socket `/wulfram/NAME` (the HTTP assembly puts the Origin
/// check in front of it).
pub fn routes(board: Arc<dyn WulframBoard>, targets: Vec<WulframTarget>) -> Router {
    Router::from(api())
        .route("/wulfram/{name}", get(upgrade))
        .with_state(WulframState {
            board,
            targets: Arc::new(targets),
            proxies: Arc::new(tokio::sync::Semaphore::new(MAX_PROXIES)),
        })
}

fn api() -> utoipa_axum::router::OpenApiRouter<WulframState> {
    utoipa_axum::router::OpenApiRouter::new().routes(utoipa_axum::routes!(list))
}

/// The Wulfram II part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The configured Wulfram II servers, as last checked.
#[utoipa::path(get, path = "/api/wulfram", tag = crate::http::tag::SERVERS, operation_id = "wulfram_servers",
    responses((status = 200, description = "The servers", body = Vec<protocol::relay_api::WulframServer>)))]
async fn list(State(state): State<WulframState>) -> Json<Vec<protocol::relay_api::WulframServer>> {
    Json(state.board.wulfram())
}

/// Opens a proxied session to a configured Wulfram II server; any other name is not found.
async fn upgrade(
    UrlPath(name): UrlPath<String>,
    State(state): State<WulframState>,
    closing: crate::edge::Closing,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Some(target) = state.targets.iter().find(|t| t.name == name).cloned() else {
        return (StatusCode::NOT_FOUND, "no such Wulfram server").into_response();
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    let Ok(permit) = state.proxies.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many Wulfram sessions").into_response();
    };
    ws.max_message_size(MAX_PAGE_MESSAGE)
        .max_frame_size(MAX_PAGE_MESSAGE)
        .on_upgrade(move |socket| async move {
            let (sink, stream) = closing.split(socket);
            proxy(sink, stream, target).await;
            drop(permit);
        })
}

/// Starts the checks of the configured Wulfram II servers (posted to `board`) and returns the
/// routes.
pub fn start(
    config: WulframConfig,
    board: Arc<dyn WulframBoard>,
    tasks: &mut tokio::task::JoinSet<()>,
) -> Router {
    if !config.targets.is_empty() {
        tasks.spawn(check(
            board.clone(),
            config.targets.clone(),
            config.check_every,
        ));
    }
    routes(board, config.targets)
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use protocol::relay_api::{Reachability, WulframServer};

    use super::*;
    use crate::browse::Directory;
    use crate::http::oneshot::{call, get, upgrade};

    fn wulfram() -> Router {
        let board = Arc::new(Directory::new(&[]));
        board.set_wulfram(WulframServer {
            name: "arena".into(),
            addr: "127.0.0.1:2627".into(),
            reachability: Reachability::Online,
            rtt_ms: Some(3),
            checked_ms: Some(1),
        });
        let target = WulframTarget {
            name: "arena".into(),
            addr: "127.0.0.1:2627".parse().unwrap(),
        };
        routes(board, vec![target])
    }

    #[tokio::test]
    async fn only_configured_servers_are_proxied() {
        let app = wulfram();
        let unknown = call(&app, upgrade("/wulfram/elsewhere", None)).await;
        assert_eq!(
            unknown,
            (StatusCode::NOT_FOUND, "no such Wulfram server".into())
        );
        assert_eq!(
            call(&app, get("/wulfram/arena")).await.0,
            StatusCode::BAD_REQUEST
        );
        let handshake = call(&app, upgrade("/wulfram/arena", None)).await;
        assert_eq!(handshake.0, StatusCode::UPGRADE_REQUIRED);
    }

    #[tokio::test]
    async fn the_checks_are_listed() {
        let (status, body) = call(&wulfram(), get("/api/wulfram")).await;
        assert_eq!(status, StatusCode::OK);
        let servers: Vec<WulframServer> = serde_json::from_str(&body).unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].reachability, Reachability::Online);
    }
}
