//! The Muster relay: polls masters and servers into one directory, and serves the page, the
//! JSON API and the WebSocket feed from it.

pub mod bridge;
pub mod cli;
pub mod demo;
pub mod directory;
pub mod feed;
pub mod master_server;
pub mod poller;
pub mod query;
pub mod record;
pub mod spectate;
pub mod tune;
pub mod web;
pub mod wire;
pub mod wulfram;
pub mod wulfram_wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

pub use directory::Directory;
pub use poller::PollerConfig;

/// The stock master and the community UO masters.
pub const DEFAULT_MASTERS: &[&str] = &[
    "coduomaster.activision.com:20610",
    "master.cod.pm:20610",
    "codmaster.comu-mvzg.com:20610",
];

/// Everything `muster serve` needs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// The directory Trunk built the page into.
    pub dist: PathBuf,
    pub poller: PollerConfig,
    /// Wulfram II servers sessions may be proxied to, and how often they are checked.
    pub wulfram: Vec<wulfram::WulframTarget>,
    pub wulfram_check: std::time::Duration,
    /// The spectator hubs.
    pub spectate: spectate::SpectateConfig,
    /// Origins besides the relay's own whose pages may open its WebSockets.
    pub allowed_origins: Vec<String>,
    /// The WebSocket-UDP bridge; its masters are the poller's.
    pub bridge: bridge::BridgeConfig,
    /// The operator's secret for starting and stopping recordings.
    pub operator_token: Option<String>,
    /// Also run a master server.
    pub master: Option<MasterListen>,
}

/// The master a relay runs beside itself (`--master-listen`).
#[derive(Clone, Debug)]
pub struct MasterListen {
    pub listen: SocketAddr,
    pub config: protocol::cod::master_server::MasterConfig,
    pub federate: Vec<String>,
}

impl Default for ServeConfig {
    /// Any free port on 127.0.0.1, the page in `dist/`, the default poller, no Wulfram servers.
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            dist: PathBuf::from("dist"),
            poller: PollerConfig::default(),
            wulfram: Vec::new(),
            wulfram_check: std::time::Duration::from_secs(30),
            spectate: spectate::SpectateConfig::default(),
            allowed_origins: Vec::new(),
            bridge: bridge::BridgeConfig::default(),
            operator_token: None,
            master: None,
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

/// A running relay; dropping it stops the server and the poller.
pub struct Relay {
    pub addr: SocketAddr,
    pub directory: Arc<Directory>,
    pub hubs: Arc<spectate::Hubs>,
    /// The master this relay runs, if any; it stops with the relay.
    pub master: Option<(master_server::SharedMaster, AbortOnDrop)>,
    _tasks: JoinSet<()>,
}

impl Relay {
    /// Binds the HTTP listener, then starts serving and polling.
    pub async fn start(config: ServeConfig) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("binding {}", config.listen))?;
        let addr = listener.local_addr()?;
        // The relay's own master, which its poller asks like any other (over loopback).
        let mut config = config;
        let mut master = None;
        if let Some(listen) = config.master.take() {
            let mut master_config = listen.config;
            master_config.trusted.push(std::net::Ipv4Addr::LOCALHOST);
            let (shared, task) =
                master_server::start(listen.listen, master_config, listen.federate).await?;
            let port = shared.addr.port();
            config.poller.masters.push(format!("127.0.0.1:{port}"));
            master = Some((shared, task));
        }
        let directory = Arc::new(Directory::new(&config.poller.masters));
        let mut tasks = JoinSet::new();
        if let Some((shared, _)) = &master {
            // The masters panel shows what the relay's own master holds, every few seconds.
            let (shared, directory) = (shared.clone(), directory.clone());
            let polled_as = format!("127.0.0.1:{}", shared.addr.port());
            tasks.spawn(async move {
                let mut tick = tokio::time::interval(std::time::Duration::from_secs(2));
                loop {
                    tick.tick().await;
                    directory.set_own_master(&polled_as, shared.summary());
                }
            });
        }
        let masters = config.poller.masters.clone();
        tasks.spawn(poller::run(directory.clone(), config.poller));
        if !config.wulfram.is_empty() {
            tasks.spawn(wulfram::check(
                directory.clone(),
                config.wulfram.clone(),
                config.wulfram_check,
            ));
        }
        let hubs = spectate::Hubs::new(config.spectate, directory.clone());
        let feed = feed::PageFeed::new(directory.clone());
        tasks.spawn(feed.clone().run());
        let bridge = bridge::Bridge::new(
            bridge::BridgeConfig {
                masters,
                ..config.bridge
            },
            directory.clone(),
        );
        let app = web::router(
            directory.clone(),
            &config.dist,
            config.wulfram,
            hubs.clone(),
            feed,
            config.allowed_origins,
            bridge.clone(),
        )
        .merge(spectate::recording::routes(
            hubs.clone(),
            config.operator_token,
        ))
        .merge(master_server::routes(
            master.as_ref().map(|(m, _)| m.clone()),
        ));
        // The bridge budgets by client address, so every request carries its peer's.
        let app = app.into_make_service_with_connect_info::<SocketAddr>();
        tasks.spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!("HTTP server stopped: {e}");
            }
        });
        Ok(Self {
            addr,
            directory,
            hubs,
            master: master.map(|(m, task)| (m, AbortOnDrop(task))),
            _tasks: tasks,
        })
    }
}
