//! The replacement master on a UDP socket: `protocol::cod::master_server` driven by tokio,
//! standalone (`muster master-server`) or inside the relay (`muster serve --master-listen`),
//! with federation: the servers other masters list are verified by our own challenge before
//! they are served.

mod scrape;

use std::net::{SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use protocol::cod::master_server::{
    MasterConfig, MasterCounters, MasterEvent, MasterServer, Origin,
};
use serde::Serialize;
use tokio::net::UdpSocket;

use crate::browse::query::results::masters;
use crate::browse::query::EngineConfig;
use crate::net::resolve;
use crate::seams::OwnMasterBoard;
use crate::sync::Locked;

/// The master's limits and federation, for `muster master-server` and `muster serve
/// --master-listen`.
#[derive(clap::Args, Debug, Clone)]
pub struct MasterArgs {
    /// Servers listed at once, in all.
    #[arg(long = "master-max-servers", value_name = "N", default_value_t = 4096)]
    pub max_servers: usize,
    /// Servers listed at once from one IP address.
    #[arg(
        long = "master-max-per-address",
        value_name = "N",
        default_value_t = 32
    )]
    pub max_per_address: usize,
    /// Seconds a server stays listed after its last verified answer.
    #[arg(long = "master-timeout", value_name = "SECS", default_value_t = 900)]
    pub timeout: u64,
    /// getservers a client address may send at once, then one a second; 0 turns the flood
    /// limit off.
    #[arg(long = "master-flood-burst", value_name = "N", default_value_t = 4)]
    pub flood_burst: u32,
    /// Also list the servers this master lists, each verified by our own challenge first;
    /// repeat for more.
    #[arg(long = "federate", value_name = "HOST:PORT")]
    pub federate: Vec<String>,
}

impl MasterArgs {
    /// The master's settings; `allow_private` lists servers on private and loopback
    /// addresses (a LAN, the lab).
    pub fn config(&self, allow_private: bool) -> MasterConfig {
        use protocol::cod::master_server::Flood;
        MasterConfig {
            max_servers: self.max_servers,
            max_per_address: self.max_per_address,
            timeout_ms: self.timeout.max(1).saturating_mul(1000),
            flood: (self.flood_burst > 0).then_some(Flood {
                burst: self.flood_burst,
                refill_ms: 1000,
            }),
            allow_private,
            ..MasterConfig::default()
        }
    }

    /// A master beside the relay on `listen`.
    pub fn listen(&self, listen: SocketAddr, allow_private: bool) -> MasterListen {
        MasterListen {
            listen,
            config: self.config(allow_private),
            federate: self.federate.clone(),
        }
    }
}

/// The master a relay runs beside itself (`--master-listen`).
#[derive(Clone, Debug)]
pub struct MasterListen {
    pub listen: SocketAddr,
    pub config: MasterConfig,
    pub federate: Vec<String>,
}

/// How often the other masters are asked for their lists.
pub const FEDERATE_EVERY: Duration = Duration::from_secs(300);
/// Challenges sent a second to servers other masters listed, so a merge is no burst.
const FEDERATED_CHALLENGES_PER_SECOND: usize = 200;

/// The master's state, shared with `GET /api/master`.
#[derive(Clone)]
pub struct SharedMaster {
    inner: Arc<Mutex<MasterServer>>,
    /// The master's clock: milliseconds since this instant.
    epoch: Instant,
    pub addr: SocketAddr,
}

impl SharedMaster {
    fn lock(&self) -> MutexGuard<'_, MasterServer> {
        self.inner.locked()
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// The summary the masters panel shows.
    pub fn summary(&self) -> protocol::relay_api::OwnMaster {
        let master = self.lock();
        let flatlined = master.servers().filter(|(_, s)| s.flatlined).count() as u32;
        protocol::relay_api::OwnMaster {
            registered: master.servers().count() as u32 - flatlined,
            flatlined,
            heartbeats: master.counters().heartbeats,
            dropped: master.counters().dropped.values().sum(),
        }
    }

    /// What the master has counted since it started.
    pub fn counters(&self) -> protocol::cod::master_server::MasterCounters {
        self.lock().counters().clone()
    }

    /// What `GET /api/master` answers.
    pub fn listing(&self) -> MasterListing {
        let master = self.lock();
        let now = self.now();
        let unix_now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let at = |ms: u64| unix_now.saturating_sub(now.saturating_sub(ms));
        let servers = master
            .servers()
            .map(|(addr, s)| ListedServer {
                addr: addr.to_string(),
                hostname: s.info.get("hostname").map(str::to_owned),
                mapname: s.info.get("mapname").map(str::to_owned),
                clients: s.clients(),
                sv_maxclients: s.max_clients(),
                origin: s.origin,
                state: if s.flatlined { "flatlined" } else { "verified" },
                registered_unix_ms: at(s.registered_at),
                verified_unix_ms: at(s.verified_at),
                heartbeat_unix_ms: s.heartbeat_at.map(at),
                status_unix_ms: s.status.as_ref().map(|(_, t)| at(*t)),
                players: s.status.as_ref().map(|(st, _)| st.players.len()),
            })
            .collect();
        let config = master.config();
        MasterListing {
            listen: self.addr.to_string(),
            servers,
            pending_challenges: master.pending(),
            counters: master.counters().clone(),
            limits: MasterLimits {
                max_servers: config.max_servers,
                max_per_address: config.max_per_address,
                timeout_s: config.timeout_ms / 1000,
                flood: config.flood.map(|f| FloodLimit {
                    burst: f.burst,
                    refill_ms: f.refill_ms,
                }),
                allow_private: config.allow_private,
            },
        }
    }
}

/// `GET /api/master`: the master's servers, counters and limits.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MasterListing {
    pub listen: String,
    pub servers: Vec<ListedServer>,
    pub pending_challenges: usize,
    pub counters: MasterCounters,
    pub limits: MasterLimits,
}

/// One server the master holds.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ListedServer {
    pub addr: String,
    pub hostname: Option<String>,
    pub mapname: Option<String>,
    pub clients: u32,
    pub sv_maxclients: u32,
    pub origin: Origin,
    /// `verified`, or `flatlined` (silent past the timeout, not yet dropped).
    pub state: &'static str,
    pub registered_unix_ms: u64,
    pub verified_unix_ms: u64,
    pub heartbeat_unix_ms: Option<u64>,
    pub status_unix_ms: Option<u64>,
    pub players: Option<usize>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct MasterLimits {
    pub max_servers: usize,
    pub max_per_address: usize,
    pub timeout_s: u64,
    pub flood: Option<FloodLimit>,
    pub allow_private: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct FloodLimit {
    pub burst: u32,
    pub refill_ms: u64,
}

/// Binds the master and runs it (with federation, if any masters are named) until dropped.
pub async fn start(
    listen: SocketAddr,
    config: MasterConfig,
    federate: Vec<String>,
) -> anyhow::Result<(SharedMaster, tokio::task::JoinHandle<()>)> {
    let socket = Arc::new(UdpSocket::bind(listen).await?);
    let shared = SharedMaster {
        inner: Arc::new(Mutex::new(MasterServer::new(config))),
        epoch: Instant::now(),
        addr: socket.local_addr()?,
    };
    let task = tokio::spawn(run(socket, shared.clone(), federate));
    Ok((shared, task))
}

/// A master started beside the relay.
pub struct BesideRelay {
    pub shared: SharedMaster,
    pub task: tokio::task::JoinHandle<()>,
    /// Its address as the relay's poller asks it: over loopback, which it trusts for lists.
    pub polled_as: String,
}

impl BesideRelay {
    /// Shows what the master holds on the masters panel, every few seconds, forever.
    pub fn show_on(
        &self,
        board: Arc<dyn OwnMasterBoard>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let (shared, polled_as) = (self.shared.clone(), self.polled_as.clone());
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            loop {
                tick.tick().await;
                board.post_own_master(&polled_as, shared.summary());
            }
        }
    }
}

/// Starts the master of `muster serve --master-listen`; the relay's poller asks it over
/// loopback, which the master trusts for lists.
pub async fn start_beside_relay(listen: MasterListen) -> anyhow::Result<BesideRelay> {
    let mut config = listen.config;
    config.trusted.push(std::net::Ipv4Addr::LOCALHOST);
    let (shared, task) = start(listen.listen, config, listen.federate).await?;
    let polled_as = format!("127.0.0.1:{}", shared.addr.port());
    Ok(BesideRelay {
        shared,
        task,
        polled_as,
    })
}

fn log(event: MasterEvent) {
    match event {
        MasterEvent::Registered { addr, origin } => {
            tracing::info!(server = %addr, ?origin, "master: registered")
        }
        MasterEvent::Expired { addr } => tracing::info!(server = %addr, "master: expired"),
        MasterEvent::Flatlined { addr } => {
            tracing::info!(server = %addr, "master: heartbeat flatline")
        }
        MasterEvent::Refused { addr, reason } => {
            tracing::warn!(server = %addr, %reason, "master: refused")
        }
    }
}

async fn run(socket: Arc<UdpSocket>, shared: SharedMaster, federate: Vec<String>) {
    let (found_tx, mut found) = tokio::sync::mpsc::channel::<Vec<(SocketAddrV4, SocketAddrV4)>>(4);
    if !federate.is_empty() {
        tokio::spawn(federation(federate, found_tx));
    }
    let mut queue: std::collections::VecDeque<(SocketAddrV4, SocketAddrV4)> = Default::default();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut buf = vec![0u8; protocol::cod::master_server::MAX_INPUT + 1];
    let mut draw = rand::random::<u32>;
    loop {
        let sends = tokio::select! {
            received = socket.recv_from(&mut buf) => {
                let Ok((len, SocketAddr::V4(from))) = received else { continue };
                let now = shared.now();
                let mut master = shared.lock();
                master.handle_datagram(now, from, &buf[..len], &mut draw);
                drain(&mut master)
            }
            _ = tick.tick() => {
                let now = shared.now();
                let mut master = shared.lock();
                master.handle_timeout(now);
                for (server, listed_by) in queue.drain(..queue.len().min(FEDERATED_CHALLENGES_PER_SECOND)) {
                    master.challenge(now, server, Origin::Federated(listed_by), &mut draw);
                }
                drain(&mut master)
            }
            Some(listed) = found.recv() => {
                // Servers we already list are refreshed by their own heartbeats or the next round.
                let master = shared.lock();
                queue.extend(listed.into_iter().filter(|(s, _)| master.get(s).is_none()));
                Vec::new()
            }
        };
        for transmit in sends {
            let _ = socket.send_to(&transmit.payload, transmit.to).await;
        }
    }
}

fn drain(master: &mut MasterServer) -> Vec<protocol::Transmit> {
    while let Some(event) = master.poll_event() {
        log(event);
    }
    std::iter::from_fn(|| master.poll_transmit()).collect()
}

/// Asks the other masters for their lists every [`FEDERATE_EVERY`]; hands on each server with
/// the master that listed it.
async fn federation(
    names: Vec<String>,
    found: tokio::sync::mpsc::Sender<Vec<(SocketAddrV4, SocketAddrV4)>>,
) {
    let mut tick = tokio::time::interval(FEDERATE_EVERY);
    loop {
        tick.tick().await;
        let mut resolved = Vec::new();
        for name in &names {
            match resolve(name, protocol::cod::MASTER_PORT).await {
                Ok(addrs) => resolved.push((name.clone(), addrs)),
                Err(e) => tracing::warn!(master = %name, "federation: {e}"),
            }
        }
        let listing = match masters(&resolved, EngineConfig::default()).await {
            Ok(listing) => listing,
            Err(e) => {
                tracing::warn!("federation: {e}");
                continue;
            }
        };
        let by_name: std::collections::BTreeMap<&str, SocketAddrV4> = resolved
            .iter()
            .filter_map(|(n, a)| Some((n.as_str(), *a.first()?)))
            .collect();
        let servers: Vec<(SocketAddrV4, SocketAddrV4)> = listing
            .servers
            .iter()
            .filter_map(|s| {
                let addr = s.addr.parse().ok()?;
                let master = by_name.get(s.sources.first()?.as_str())?;
                Some((addr, *master))
            })
            .collect();
        tracing::info!(
            servers = servers.len(),
            "federation: the other masters listed"
        );
        if found.send(servers).await.is_err() {
            return;
        }
    }
}

/// `GET /api/master`.
pub fn routes(master: Option<SharedMaster>) -> axum::Router {
    axum::Router::from(api()).with_state(master)
}

fn api() -> utoipa_axum::router::OpenApiRouter<Option<SharedMaster>> {
    utoipa_axum::router::OpenApiRouter::new().routes(utoipa_axum::routes!(listing))
}

/// The master's part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The master this relay runs (`--master-listen`): its registered servers, their state, its
/// counters and limits.
#[utoipa::path(get, path = "/api/master", tag = crate::http::tag::RELAY, operation_id = "master",
    responses(
        (status = 200, description = "The master", body = MasterListing),
        (status = 404, description = "This relay runs no master", body = protocol::relay_api::ApiError),
    ))]
async fn listing(
    axum::extract::State(master): axum::extract::State<Option<SharedMaster>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match master {
        Some(m) => axum::Json(m.listing()).into_response(),
        None => (
            axum::http::StatusCode::NOT_FOUND,
            "this relay runs no master: start it with --master-listen",
        )
            .into_response(),
    }
}

/// Starts the master of `--master-listen`, if asked for, beside the relay: its poller asks it
/// over loopback (added to `masters`), and the masters panel shows what it holds on `board`.
/// Returns it (for shutdown and metrics) and its routes.
pub async fn start_for_relay(
    listen: Option<MasterListen>,
    masters: &mut Vec<String>,
) -> anyhow::Result<(Option<BesideRelay>, axum::Router)> {
    let started = match listen {
        Some(listen) => {
            let started = start_beside_relay(listen).await?;
            masters.push(started.polled_as.clone());
            Some(started)
        }
        None => None,
    };
    let router = routes(started.as_ref().map(|m| m.shared.clone()));
    Ok((started, router))
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;
    use crate::http::oneshot::{call, get};

    #[tokio::test]
    async fn the_master_api_says_when_there_is_no_master() {
        let (status, body) = call(&routes(None), get("/api/master")).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body.contains("--master-listen"), "{body}");
    }

    #[tokio::test]
    async fn the_master_api_lists_what_the_master_holds() {
        let listen = SocketAddr::from(([127, 0, 0, 1], 0));
        let (master, _task) = start(listen, MasterConfig::default(), Vec::new())
            .await
            .unwrap();
        let (status, body) = call(&routes(Some(master)), get("/api/master")).await;
        assert_eq!(status, StatusCode::OK);
        let listing: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(listing["servers"], serde_json::json!([]), "{listing}");
    }
}
