//! The Muster relay: one process, several capabilities, each in its own folder with its state,
//! configuration, routes and tests (see `ARCHITECTURE.md` at the repository root):
//!
//! - [`browse`]: the query engine, the poller, the directory and the page feed;
//! - [`spectate`]: spectator hubs and their viewers;
//! - [`demos`]: recordings made through the hubs, and the files on disk;
//! - [`bridge`]: the WebSocket-UDP bridge and its budgets;
//! - [`wulfram`]: the Wulfram II proxy and its checks;
//! - [`master`]: the replacement master and its federation;
//! - [`history`]: population history, player sightings and the persisted directory, kept in
//!   [`store`] (SQLite or PostgreSQL);
//! - [`matches`]: followed matches kept as records, each name's figures and rating;
//! - [`rewind`]: the last minutes of each watched match, for viewers to go back into;
//! - [`moments`]: stretches of a match shared as links;
//! - [`alerts`]: rules on servers delivered to webhooks, Discord and ntfy;
//! - [`cluster`]: several relays as one site through NATS (one poller, one game slot per
//!   match, shared budgets).
//!
//! [`http`] only merges their routes; [`seams`] holds the narrow traits through which one
//! capability uses another; [`net`] and [`game_link`] are shared helpers; [`cli`] holds the
//! command-line tools, which no capability imports.

pub mod alerts;
pub mod banners;
pub mod bridge;
pub mod browse;
pub mod card;
pub mod cli;
pub mod cluster;
pub mod demos;
pub mod edge;
pub mod game_link;
pub mod geo;
pub mod highlights;
pub mod history;
pub mod http;
pub mod master;
pub mod matches;
pub mod metrics;
pub mod moments;
pub mod net;
pub mod openapi;
pub mod owners;
pub mod rcon;
pub mod rewind;
pub mod seams;
pub mod secrets;
pub mod site;
pub mod spectate;
pub mod store;
pub mod sync;
pub mod wulfram;

#[cfg(test)]
mod layers;
mod start;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

pub use browse::{Directory, PollerConfig, DEFAULT_MASTERS};
pub use master::MasterListen;

/// Everything `muster serve` needs, by capability.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Addresses for the page, the API and the sockets (IPv4 and IPv6 alike); at least one.
    pub listen: Vec<SocketAddr>,
    /// Limits at the edge, and the proxies trusted to name the client.
    pub edge: edge::EdgeConfig,
    /// The directory Trunk built the page into.
    pub dist: PathBuf,
    /// Origins besides the relay's own whose pages may open its WebSockets.
    pub allowed_origins: Vec<String>,
    /// What to poll and how often.
    pub poller: PollerConfig,
    /// The spectator hubs.
    pub spectate: spectate::SpectateConfig,
    /// Where hubs record demos on the operator's request (`None`: recording is off).
    pub recording: Option<demos::RecordConfig>,
    /// The operator's secret for starting and stopping recordings.
    pub operator_token: Option<String>,
    /// The WebSocket-UDP bridge; its masters are the poller's.
    pub bridge: bridge::BridgeConfig,
    /// Wulfram II servers sessions may be proxied to, and how often they are checked.
    pub wulfram: wulfram::WulframConfig,
    /// Also run a master server.
    pub master: Option<MasterListen>,
    /// Keep history and persist the directory (`None`: remember nothing across restarts).
    pub history: Option<history::HistoryConfig>,
    /// Join a cluster of relays through NATS (`None`: this relay is the whole site).
    pub cluster: Option<cluster::ClusterConfig>,
    /// The admin console.
    pub rcon: rcon::RconConfig,
    /// Which matches are followed with nobody watching (their records need the history).
    pub matches: matches::MatchesConfig,
    /// How much of each watched match viewers can go back into (`None`: nothing).
    pub rewind: rewind::RewindConfig,
    /// Shared moments' retention and creation limit.
    pub moments: moments::MomentsArgs,
    pub highlights: highlights::HighlightsArgs,
    /// Alerts' allow-list, per-client cap and timeout.
    pub alerts: alerts::AlertsArgs,
    /// The country database.
    pub geo: geo::GeoArgs,
    /// Owner sessions' and proofs' lifetimes.
    pub owners: owners::OwnersArgs,
}

impl Default for ServeConfig {
    /// Any free port on 127.0.0.1, the page in `dist/`, the default poller, no Wulfram servers.
    fn default() -> Self {
        Self {
            listen: vec![SocketAddr::from(([127, 0, 0, 1], 0))],
            edge: edge::EdgeConfig::default(),
            dist: PathBuf::from("dist"),
            allowed_origins: Vec::new(),
            poller: PollerConfig::default(),
            spectate: spectate::SpectateConfig::default(),
            recording: None,
            operator_token: None,
            bridge: bridge::BridgeConfig::default(),
            wulfram: wulfram::WulframConfig::default(),
            master: None,
            history: None,
            cluster: None,
            rcon: rcon::RconConfig::default(),
            matches: matches::MatchesConfig::default(),
            rewind: rewind::RewindArgs::default().config(),
            moments: moments::MomentsArgs::default(),
            highlights: highlights::HighlightsArgs::default(),
            alerts: alerts::AlertsArgs::default(),
            geo: geo::GeoArgs::default(),
            owners: owners::OwnersArgs::default(),
        }
    }
}

/// A task that stops when this is dropped.
pub struct AbortOnDrop(pub tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A running relay; dropping it stops the server and the poller at once, [`Relay::shutdown`]
/// stops it cleanly.
pub struct Relay {
    /// The first listener's address.
    pub addr: SocketAddr,
    /// Every listener's address, in `--listen` order.
    pub addrs: Vec<SocketAddr>,
    pub metrics: metrics::Metrics,
    pub directory: Arc<Directory>,
    pub hubs: Arc<spectate::Hubs>,
    /// The master this relay runs, if any; it stops with the relay.
    pub master: Option<(master::SharedMaster, AbortOnDrop)>,
    pub history: Option<Arc<history::History>>,
    pub cluster: Option<Arc<cluster::Cluster>>,
    stop: tokio_util::sync::CancellationToken,
    goodbyes: tokio_util::task::TaskTracker,
    server: tokio::task::JoinHandle<()>,
    tasks: JoinSet<()>,
}

impl Relay {
    /// Binds the HTTP listeners, then starts every capability and serves their routes.
    pub async fn start(config: ServeConfig) -> anyhow::Result<Self> {
        anyhow::ensure!(!config.listen.is_empty(), "no address to listen on");
        let mut listeners = Vec::new();
        for listen in &config.listen {
            listeners.push(bind(*listen).await?);
        }
        let addrs = listeners
            .iter()
            .map(TcpListener::local_addr)
            .collect::<std::io::Result<Vec<_>>>()?;
        let (edge, dist, origins) = (
            config.edge.clone(),
            config.dist.clone(),
            config.allowed_origins.clone(),
        );
        let metrics = metrics::Metrics::default();
        let mut tasks = JoinSet::new();
        let started = start::capabilities(config, addrs[0], &metrics, &mut tasks).await?;
        let scrape = metrics.registry(metrics::Sources(started.scrapes), started.history.is_some());
        let mut routers = vec![metrics::routes(scrape), openapi::routes(dist.clone())];
        routers.extend(started.routers);
        let app = http::assemble(routers, &dist, origins);
        let serving = start::serve(listeners, app, edge, &metrics, &mut tasks);
        Ok(Self {
            addr: addrs[0],
            addrs,
            metrics,
            directory: started.directory,
            hubs: started.hubs,
            master: started.master.map(|m| (m.shared, AbortOnDrop(m.task))),
            history: started.history,
            cluster: started.cluster,
            stop: serving.stop,
            goodbyes: serving.goodbyes,
            server: serving.server,
            tasks,
        })
    }

    /// Stops cleanly, within about 10 s: the listeners close; pages, viewers and sessions are
    /// told why (a close frame); hubs say goodbye to their game servers and finish their
    /// recordings with the end marker; the poller stops; the cluster's leases are released at
    /// once (another relay need not wait out their TTL); what the history holds is written.
    pub async fn shutdown(mut self) -> ShutdownReport {
        use std::time::Duration;
        use tokio::time::{timeout_at, Instant};
        let began = Instant::now();
        // Each step waits at most its own share, and all of them together at most
        // SHUTDOWN_WITHIN, so a step that hangs cannot push the exit past it.
        let deadline = began + SHUTDOWN_WITHIN;
        let until = |share: Duration| deadline.min(Instant::now() + share);
        let leases = self
            .cluster
            .as_ref()
            .map(|c| c.status().leases)
            .unwrap_or_default();
        // Every socket open now is tracked until its close frame is written.
        let sockets_closed = self.goodbyes.len();
        self.stop.cancel();
        let hubs = self.hubs.close_all(Duration::from_secs(3)).await;
        self.goodbyes.close();
        let _ = timeout_at(until(Duration::from_millis(1500)), self.goodbyes.wait()).await;
        let _ = timeout_at(until(Duration::from_millis(1500)), &mut self.server).await;
        self.server.abort();
        // The poller, the feed and the cluster's roles (their leases let go as they drop).
        self.tasks.shutdown().await;
        let mut leases_released = 0;
        if let Some(cluster) = &self.cluster {
            let share =
                until(Duration::from_millis(1500)).saturating_duration_since(Instant::now());
            leases_released = cluster.release(leases, share).await;
        }
        let history_flushed = match &self.history {
            Some(history) => {
                let share = deadline.saturating_duration_since(Instant::now());
                history.log.sync(share).await
            }
            None => true,
        };
        ShutdownReport {
            sockets_closed,
            hubs_closed: hubs,
            leases_released,
            history_flushed,
            took: began.elapsed(),
        }
    }
}

/// How long [`Relay::shutdown`] takes at most, whatever hangs: under the 10 s a service
/// manager is usually given (the README's unit allows 15).
pub const SHUTDOWN_WITHIN: std::time::Duration = std::time::Duration::from_secs(9);

/// What [`Relay::shutdown`] did, for the log.
#[derive(Debug)]
pub struct ShutdownReport {
    pub sockets_closed: usize,
    pub hubs_closed: usize,
    pub leases_released: usize,
    pub history_flushed: bool,
    pub took: std::time::Duration,
}

/// A listener; an IPv6 one takes IPv6 only, so `[::]:P` and `0.0.0.0:P` can both be given.
async fn bind(addr: SocketAddr) -> anyhow::Result<TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)
        .with_context(|| format!("binding {addr}"))?;
    if addr.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket
        .bind(&addr.into())
        .with_context(|| format!("binding {addr}"))?;
    socket.listen(1024)?;
    Ok(TcpListener::from_std(socket.into())?)
}
