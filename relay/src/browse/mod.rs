//! Browsing: the query engine, the poller that drives it over masters, the LAN and the
//! operator's servers, the one directory of what they answered, and the page feed that pushes
//! the directory's changes to every page. Routes: `/ws` (a page's feed), `GET /api/servers`,
//! `GET /api/masters`, `GET /api/feed`, and the list as HTML: `GET /` (the page with its first
//! screen) and `GET /servers` (the plain list).

mod cluster;
mod directory;
mod feed;
pub(crate) mod html;
pub(crate) mod poller;
pub(crate) mod query;
mod scrape;

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use protocol::relay_api::{ApiError, MasterStatus, ServerInfo};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::tag;
use tokio::task::JoinSet;

pub use directory::Directory;
pub use feed::PageFeed;
pub use poller::{pending_server, PollerConfig};
pub use query::results::{masters as query_masters, query as query_servers, scan};
pub use query::EngineConfig;

/// The stock master and the community UO masters.
pub const DEFAULT_MASTERS: &[&str] = &[
    "coduomaster.activision.com:20610",
    "master.cod.pm:20610",
    "codmaster.comu-mvzg.com:20610",
];

/// What `muster serve` polls and how often.
#[derive(clap::Args, Debug, Clone)]
pub struct BrowseArgs {
    /// A master to poll, as HOST:PORT; repeat for more.
    #[arg(long = "master", value_name = "HOST:PORT")]
    pub masters: Vec<String>,
    /// Poll only the masters given with --master.
    #[arg(long)]
    pub no_default_masters: bool,
    /// Where the LAN scan sends `getinfo xxx` (ports 28960-28963); repeat for more.
    #[arg(long = "lan", value_name = "ADDR", default_value = "255.255.255.255")]
    pub lan: Vec<Ipv4Addr>,
    /// Do not scan the LAN.
    #[arg(long)]
    pub no_lan: bool,
    /// A server to poll even if no master lists it; repeat for more.
    #[arg(long = "server", value_name = "IP:PORT")]
    pub servers: Vec<SocketAddrV4>,
    /// Seconds between master polls.
    #[arg(long, default_value_t = 300)]
    pub master_interval: u64,
    /// Seconds between refreshes of every server.
    #[arg(long, default_value_t = 20)]
    pub refresh_interval: u64,
    /// Seconds between LAN scans.
    #[arg(long, default_value_t = 60)]
    pub lan_interval: u64,
    /// Seconds a server may go unanswered before it leaves the default list (the page's "long
    /// down" filter still shows it; its history is kept); 0 keeps every server listed.
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400)]
    pub hide_down_after: u64,
}

impl BrowseArgs {
    pub fn config(&self) -> PollerConfig {
        let mut masters: Vec<String> = if self.no_default_masters {
            Vec::new()
        } else {
            DEFAULT_MASTERS.iter().map(|m| m.to_string()).collect()
        };
        masters.extend(self.masters.iter().cloned());
        PollerConfig {
            masters,
            lan: if self.no_lan {
                Vec::new()
            } else {
                self.lan.clone()
            },
            servers: self.servers.clone(),
            master_interval: Duration::from_secs(self.master_interval.max(10)),
            refresh_interval: Duration::from_secs(self.refresh_interval.max(1)),
            lan_interval: Duration::from_secs(self.lan_interval.max(5)),
            hide_down_after: (self.hide_down_after > 0)
                .then(|| Duration::from_secs(self.hide_down_after)),
            ..PollerConfig::default()
        }
    }
}

#[derive(Clone)]
struct BrowseState {
    directory: Arc<Directory>,
    feed: Arc<PageFeed>,
}

/// The browsing routes (the HTTP assembly puts the Origin check in front of `/ws`).
pub fn routes(directory: Arc<Directory>, feed: Arc<PageFeed>, dist: PathBuf) -> Router {
    let page = html::Html::new(dist, directory.clone(), feed.clone());
    Router::new()
        .route("/", get(html::index))
        .route("/index.html", get(html::index))
        .route("/servers", get(html::servers))
        .route("/server/{addr}", get(html::server_page))
        .with_state(page)
        .route("/ws", get(feed_upgrade))
        .merge(Router::from(api()))
        .with_state(BrowseState { directory, feed })
}

fn api() -> OpenApiRouter<BrowseState> {
    OpenApiRouter::new()
        .routes(routes!(servers))
        .routes(routes!(one_server))
        .routes(routes!(masters))
        .routes(routes!(feed_counters))
}

/// The browsing routes' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// Every server listed here, as the list shows it.
#[utoipa::path(get, path = "/api/servers", tag = tag::SERVERS,
    responses((status = 200, description = "The servers", body = Vec<ServerInfo>)))]
async fn servers(State(state): State<BrowseState>) -> Json<Vec<ServerInfo>> {
    Json(state.directory.servers())
}

/// One server's record: its players with scores and pings, every setting.
#[utoipa::path(get, path = "/api/servers/{addr}", tag = tag::SERVERS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    responses(
        (status = 200, description = "The server", body = ServerInfo),
        (status = 404, description = "Not listed here", body = ApiError),
    ))]
async fn one_server(
    State(state): State<BrowseState>,
    axum::extract::Path(addr): axum::extract::Path<String>,
) -> Response {
    use crate::seams::ServerRecords;
    match state.directory.record(&addr) {
        Some(server) => Json(server).into_response(),
        None => (StatusCode::NOT_FOUND, "no such server listed here").into_response(),
    }
}

/// How the latest poll of each configured master went.
#[utoipa::path(get, path = "/api/masters", tag = tag::SERVERS,
    responses((status = 200, description = "The masters", body = Vec<MasterStatus>)))]
async fn masters(State(state): State<BrowseState>) -> Json<Vec<MasterStatus>> {
    Json(state.directory.masters())
}

/// The page feed's counters: pages, ticks, keyframes, resyncs, slow pages closed.
#[utoipa::path(get, path = "/api/feed", tag = tag::RELAY,
    responses((status = 200, description = "The counters", body = feed::Counters)))]
async fn feed_counters(State(state): State<BrowseState>) -> impl IntoResponse {
    Json(serde_json::to_value(&state.feed.counters).unwrap_or_default())
}

/// `/ws?hold`: the page opened its feed before its code ran; the players index and the ticks
/// wait for its first message.
#[derive(serde::Deserialize)]
struct FeedQuery {
    hold: Option<String>,
}

/// Opens a page's feed.
async fn feed_upgrade(
    ws: WebSocketUpgrade,
    Query(query): Query<FeedQuery>,
    State(state): State<BrowseState>,
    closing: crate::edge::Closing,
) -> Response {
    // A page only ever sends a short watch message, and takes whole frames as they come.
    ws.max_message_size(4096)
        .max_frame_size(4096)
        .read_buffer_size(crate::http::SOCKET_BUFFER)
        .write_buffer_size(0)
        .on_upgrade(move |socket: WebSocket| {
            let (sink, stream) = closing.split(socket);
            state.feed.serve(sink, stream, query.hold.is_some())
        })
}

/// What browsing starts from.
pub struct BrowseStart {
    /// The directory, holding what the history put back (stale) if it keeps any.
    pub directory: Arc<Directory>,
    pub poller: PollerConfig,
    /// Where the poller reports each outcome (the history's writer), if anywhere.
    pub log: Option<Arc<dyn crate::seams::PollLog>>,
    /// In a cluster only the holder of the poller lease polls; the others apply its changes.
    pub cluster: Option<Arc<crate::cluster::Cluster>>,
    /// The poller lease's fencing token, carried by every history write (cluster only).
    pub fence: Option<Arc<crate::store::Fence>>,
    /// Where the page is built, for the first screen.
    pub dist: PathBuf,
}

/// Starts the poller (alone, or as the cluster's one poller) and the page feed; returns the
/// feed and the routes.
pub fn start(start: BrowseStart, tasks: &mut JoinSet<()>) -> (Arc<PageFeed>, Router) {
    let BrowseStart {
        directory,
        poller,
        log,
        cluster,
        fence,
        dist,
    } = start;
    let feed = PageFeed::new(directory.clone());
    match cluster {
        Some(cluster) => {
            let polling = cluster::Polling {
                directory: directory.clone(),
                feed: feed.clone(),
                config: poller,
                log,
                fence,
            };
            tasks.spawn(cluster::run(cluster, polling));
        }
        None => {
            tasks.spawn(poller::run(directory.clone(), poller, log));
        }
    }
    tasks.spawn(feed.clone().run());
    let router = routes(directory, feed.clone(), dist);
    (feed, router)
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};
    use std::path::PathBuf;

    use axum::http::StatusCode;
    use protocol::relay_api::{MasterStatus, ServerInfo};

    use super::*;
    use crate::http::oneshot::{call, get, upgrade};

    fn browse() -> Router {
        let directory = Arc::new(Directory::new(&["master.test:20610".into()]));
        let addr = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960);
        directory.upsert(poller::pending_server(addr, vec!["operator".into()]));
        let feed = PageFeed::new(directory.clone());
        routes(directory, feed, PathBuf::from("dist"))
    }

    #[tokio::test]
    async fn the_api_answers_the_directory() {
        let app = browse();
        let (status, body) = call(&app, get("/api/servers")).await;
        assert_eq!(status, StatusCode::OK);
        let servers: Vec<ServerInfo> = serde_json::from_str(&body).unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].addr, "10.0.0.7:28960");
        assert_eq!(servers[0].sources, ["operator"]);
        let (status, body) = call(&app, get("/api/masters")).await;
        assert_eq!(status, StatusCode::OK);
        let masters: Vec<MasterStatus> = serde_json::from_str(&body).unwrap();
        assert_eq!(masters[0].addr, "master.test:20610");
        let (status, body) = call(&app, get("/api/feed")).await;
        assert_eq!(status, StatusCode::OK);
        let counters: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(counters["pages"], 0);
    }

    #[tokio::test]
    async fn the_feed_is_a_websocket() {
        let app = browse();
        // A plain GET is no handshake.
        assert_eq!(call(&app, get("/ws")).await.0, StatusCode::BAD_REQUEST);
        // A whole handshake passes every check; only the missing connection stops it here.
        let handshake = call(&app, upgrade("/ws?hold", None)).await;
        assert_eq!(handshake.0, StatusCode::UPGRADE_REQUIRED);
        assert_eq!(
            call(&app, get("/api/nothing")).await.0,
            StatusCode::NOT_FOUND
        );
    }
}
