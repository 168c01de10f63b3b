//! The WebSocket↔UDP bridge: `/bridge/ADDR` carries whole UDP datagrams between a page and one
//! target, on a UDP socket of its own that is `connect`ed, so only the target's replies come
//! back. The target is a server the directory knows or a configured master; every datagram
//! passes [`protocol::bridge::Egress`] and the budgets here (per client IP, per target, in
//! all) before it goes. Text messages from the relay say what it did: `session` first (the
//! target and the qport the session must use), then `refused` for each datagram it dropped,
//! and `closed` with the reason when it ends the session.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, SocketAddr, SocketAddrV4};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path as UrlPath, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::StreamExt;
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::bridge::{check_address, Passed, Refusal, TargetKind, MAX_DATAGRAM};
use serde::Serialize;

use crate::seams::Known;
use crate::sync::Locked;

mod scrape;
mod session;

pub use session::refuse;

/// The bridge's budgets for `muster serve` (`--allow-private` and `--trusted-proxy` are the
/// relay's, shared with other capabilities).
#[derive(clap::Args, Debug, Clone)]
pub struct BridgeArgs {
    /// Bridge sessions open at once, in all.
    #[arg(long = "bridge-sessions", value_name = "N", default_value_t = 256)]
    pub bridge_sessions: usize,
    /// Bridge sessions open at once from one client address.
    #[arg(long = "bridge-sessions-per-ip", value_name = "N", default_value_t = 4)]
    pub bridge_sessions_per_ip: usize,
    /// Seconds without a datagram either way before a bridge session is closed.
    #[arg(long = "bridge-idle", value_name = "SECS", default_value_t = 30)]
    pub bridge_idle: u64,
    /// Datagrams a second one client address may send through the bridge.
    #[arg(long = "bridge-client-rate", value_name = "N", default_value_t = 100)]
    pub bridge_client_rate: u32,
    /// Datagrams a second through the whole bridge.
    #[arg(long = "bridge-rate", value_name = "N", default_value_t = 5000)]
    pub bridge_rate: u32,
}

impl BridgeArgs {
    pub fn config(&self, allow_private: bool, trusted_proxies: Vec<IpAddr>) -> BridgeConfig {
        BridgeConfig {
            allow_private,
            trusted_proxies,
            max_sessions: self.bridge_sessions,
            sessions_per_ip: self.bridge_sessions_per_ip,
            idle: Duration::from_secs(self.bridge_idle.clamp(1, 3600)),
            masters: Vec::new(),
            client_rate: self.bridge_client_rate,
            global_rate: self.bridge_rate,
        }
    }
}

/// The operator's settings for the bridge.
#[derive(Clone, Debug)]
pub struct BridgeConfig {
    /// Private and loopback targets pass (an operator's LAN, the lab on 127.0.0.1).
    pub allow_private: bool,
    /// Peers whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<IpAddr>,
    /// Sessions open at once, in all.
    pub max_sessions: usize,
    /// Sessions open at once from one client IP.
    pub sessions_per_ip: usize,
    /// A session with no datagram either way for this long is closed.
    pub idle: Duration,
    /// The masters the operator configured, `host:port`: `getservers` may go to them.
    pub masters: Vec<String>,
    /// Datagrams a second one client address may send through all its sessions (and as a
    /// burst): a player's session sends at most `cl_maxpackets` (100) a second.
    pub client_rate: u32,
    /// Datagrams a second through the whole bridge (and as a burst).
    pub global_rate: u32,
}

impl Default for BridgeConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            trusted_proxies: Vec::new(),
            max_sessions: 256,
            sessions_per_ip: 4,
            idle: Duration::from_secs(30),
            masters: Vec::new(),
            client_rate: 100,
            global_rate: 5000,
        }
    }
}

/// Connectionless requests to one target, from every session: ioquake3's per-address bucket,
/// a burst of 10, then one a second.
const PER_TARGET_BURST: u32 = 10;

fn per_second(n: u32, burst: u32) -> Quota {
    let n = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_second(n).allow_burst(NonZeroU32::new(burst).unwrap_or(n))
}

/// What the bridge has done, for `GET /api/bridge`.
#[derive(Default, Serialize, utoipa::ToSchema)]
#[schema(as = BridgeCounters)]
pub struct Counters {
    /// Sessions open now.
    #[schema(value_type = u64)]
    pub sessions: AtomicU64,
    #[schema(value_type = u64)]
    pub sessions_opened: AtomicU64,
    #[schema(value_type = u64)]
    pub datagrams_from_pages: AtomicU64,
    #[schema(value_type = u64)]
    pub bytes_from_pages: AtomicU64,
    #[schema(value_type = u64)]
    pub datagrams_to_targets: AtomicU64,
    #[schema(value_type = u64)]
    pub bytes_to_targets: AtomicU64,
    #[schema(value_type = u64)]
    pub datagrams_from_targets: AtomicU64,
    #[schema(value_type = u64)]
    pub bytes_from_targets: AtomicU64,
    /// Refusals by kind: targets, sessions, datagrams and budgets.
    #[schema(value_type = BTreeMap<String, u64>)]
    pub refused: Mutex<BTreeMap<&'static str, u64>>,
}

impl Counters {
    pub(crate) fn refuse(&self, kind: &'static str) {
        let mut refused = self.refused.locked();
        *refused.entry(kind).or_default() += 1;
    }
}

/// Why a page could not open a session; the HTTP status and a sentence.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Target(Refusal),
    #[error("this relay has {0} bridge sessions open, its limit")]
    Full(usize),
    #[error("{0} bridge sessions are open from this address, the limit")]
    TooManyFromIp(usize),
}

impl OpenError {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Target(r) => r.kind(),
            Self::Full(_) => "sessions_full",
            Self::TooManyFromIp(_) => "sessions_per_ip",
        }
    }
}

#[derive(Default)]
struct Open {
    per_ip: HashMap<IpAddr, usize>,
    total: usize,
    qports: HashMap<SocketAddrV4, HashSet<u16>>,
}

pub struct Bridge {
    config: BridgeConfig,
    known: Known,
    open: Mutex<Open>,
    per_ip: DefaultKeyedRateLimiter<IpAddr>,
    per_target: DefaultKeyedRateLimiter<SocketAddrV4>,
    global: DefaultDirectRateLimiter,
    /// In a cluster: the per-target budget every relay spends together.
    shared_per_target: Option<crate::cluster::budget::SharedBudget>,
    pub counters: Counters,
}

/// An open session's place: released (its count and qport) when the session ends.
pub struct Session {
    bridge: Arc<Bridge>,
    client: IpAddr,
    target: SocketAddrV4,
    kind: TargetKind,
    qport: u16,
}

impl Drop for Session {
    fn drop(&mut self) {
        let mut open = self.bridge.open();
        open.total -= 1;
        if let Some(n) = open.per_ip.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.per_ip.remove(&self.client);
            }
        }
        if let Some(used) = open.qports.get_mut(&self.target) {
            used.remove(&self.qport);
            if used.is_empty() {
                open.qports.remove(&self.target);
            }
        }
        self.bridge
            .counters
            .sessions
            .fetch_sub(1, Ordering::Relaxed);
    }
}

impl Bridge {
    /// A bridge to the servers `known` lists and the configured masters, and nowhere else.
    pub fn new(config: BridgeConfig, known: Known) -> Arc<Self> {
        Self::clustered(config, known, None)
    }

    /// A bridge whose per-target budget, in a cluster, is the whole cluster's: a game server
    /// sees every relay's pages as one client.
    pub fn clustered(
        config: BridgeConfig,
        known: Known,
        cluster: Option<Arc<crate::cluster::Cluster>>,
    ) -> Arc<Self> {
        let shared_per_target = cluster.map(|cluster| {
            crate::cluster::budget::SharedBudget::new(
                cluster,
                "bridge-target",
                Duration::from_secs(1),
                PER_TARGET_BURST,
            )
        });
        Arc::new(Self {
            shared_per_target,
            per_ip: RateLimiter::keyed(per_second(config.client_rate, config.client_rate)),
            per_target: RateLimiter::keyed(per_second(1, PER_TARGET_BURST)),
            global: RateLimiter::direct(per_second(config.global_rate, config.global_rate)),
            config,
            known,
            open: Mutex::default(),
            counters: Counters::default(),
        })
    }

    pub fn config(&self) -> &BridgeConfig {
        &self.config
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.locked()
    }

    /// The client a request comes from: the peer, or the right-most address in
    /// `X-Forwarded-For` that is not a trusted proxy when the peer is one.
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        crate::edge::limits::client_ip(peer, headers, &self.config.trusted_proxies)
    }

    /// What `target` is to this relay: a server it knows, or a configured master.
    async fn kind_of(&self, target: SocketAddrV4) -> Result<TargetKind, Refusal> {
        check_address(*target.ip(), target.port(), self.config.allow_private)?;
        if self.known.knows(target.into()) {
            return Ok(TargetKind::Server);
        }
        for master in &self.config.masters {
            let resolved = tokio::time::timeout(
                Duration::from_secs(2),
                tokio::net::lookup_host(master.as_str()),
            )
            .await;
            if let Ok(Ok(mut addrs)) = resolved {
                if addrs.any(|a| a == SocketAddr::V4(target)) {
                    return Ok(TargetKind::Master);
                }
            }
        }
        Err(Refusal::UnknownTarget)
    }

    /// Opens a session for `client` to `target`, held until the returned [`Session`] drops.
    pub async fn open_session(
        self: &Arc<Self>,
        client: IpAddr,
        target: SocketAddrV4,
    ) -> Result<Session, OpenError> {
        let result = self.try_open(client, target).await;
        if let Err(e) = &result {
            self.counters.refuse(e.kind());
        }
        result
    }

    async fn try_open(
        self: &Arc<Self>,
        client: IpAddr,
        target: SocketAddrV4,
    ) -> Result<Session, OpenError> {
        let kind = self.kind_of(target).await.map_err(OpenError::Target)?;
        let mut open = self.open();
        if open.total >= self.config.max_sessions {
            return Err(OpenError::Full(self.config.max_sessions));
        }
        let from_ip = open.per_ip.get(&client).copied().unwrap_or(0);
        if from_ip >= self.config.sessions_per_ip {
            return Err(OpenError::TooManyFromIp(self.config.sessions_per_ip));
        }
        // A qport no other session to this target has: stock matches clients by it.
        let used = open.qports.entry(target).or_default();
        let qport = std::iter::repeat_with(rand::random::<u16>)
            .take(1024)
            .find(|&q| q != 0 && used.insert(q))
            .ok_or(OpenError::Full(self.config.max_sessions))?;
        open.total += 1;
        *open.per_ip.entry(client).or_default() += 1;
        drop(open);
        self.counters.sessions.fetch_add(1, Ordering::Relaxed);
        self.counters
            .sessions_opened
            .fetch_add(1, Ordering::Relaxed);
        // Keys not seen for a while go, so the limiters' memory follows the live clients.
        self.per_ip.retain_recent();
        self.per_target.retain_recent();
        Ok(Session {
            bridge: self.clone(),
            client,
            target,
            kind,
            qport,
        })
    }

    /// The budgets a datagram that passed the policy still has to fit.
    pub(crate) async fn budget(
        &self,
        client: IpAddr,
        target: SocketAddrV4,
        passed: Passed,
    ) -> Result<(), Budget> {
        if self.global.check().is_err() {
            return Err(Budget::Global);
        }
        if self.per_ip.check_key(&client).is_err() {
            return Err(Budget::Client);
        }
        if passed != Passed::Connectionless {
            return Ok(());
        }
        use crate::cluster::budget::Taken;
        let shared = match &self.shared_per_target {
            Some(shared) => shared.take(&crate::cluster::token(&target)).await,
            None => Taken::Unavailable,
        };
        match shared {
            Taken::Yes => Ok(()),
            Taken::Spent(_) => Err(Budget::Target),
            // Alone, or NATS away: this relay's own bucket.
            Taken::Unavailable => match self.per_target.check_key(&target) {
                Ok(()) => Ok(()),
                Err(_) => Err(Budget::Target),
            },
        }
    }
}

/// A budget a datagram did not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Budget {
    Global,
    Client,
    Target,
}

impl Budget {
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Self::Global => "budget_global",
            Self::Client => "budget_client",
            Self::Target => "budget_target",
        }
    }

    pub(crate) fn reason(self, config: &BridgeConfig) -> String {
        match self {
            Self::Global => format!(
                "the relay's bridge budget ({} datagrams a second) is spent",
                config.global_rate
            ),
            Self::Client => format!(
                "more than {} datagrams a second from this address",
                config.client_rate
            ),
            Self::Target => format!(
                "this server's query budget is spent (a burst of {PER_TARGET_BURST}, then one a \
                 second, for every page)"
            ),
        }
    }
}

/// `GET /api/bridge` and the session socket `/bridge/ADDR` (the HTTP assembly puts the Origin
/// check in front of it).
pub fn routes(bridge: Arc<Bridge>) -> Router {
    Router::from(api())
        .route("/bridge/{addr}", get(upgrade))
        .with_state(bridge)
}

fn api() -> utoipa_axum::router::OpenApiRouter<Arc<Bridge>> {
    utoipa_axum::router::OpenApiRouter::new().routes(utoipa_axum::routes!(counters))
}

/// The bridge's part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// The bridge's counters: sessions, datagrams and bytes each way, refusals by kind.
#[utoipa::path(get, path = "/api/bridge", tag = crate::http::tag::RELAY,
    responses((status = 200, description = "The counters", body = Counters)))]
async fn counters(State(bridge): State<Arc<Bridge>>) -> impl IntoResponse {
    Json(serde_json::to_value(&bridge.counters).unwrap_or_default())
}

/// Opens a bridge session to a known server or configured master.
async fn upgrade(
    UrlPath(addr): UrlPath<String>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    State(bridge): State<Arc<Bridge>>,
    closing: crate::edge::Closing,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    // Nothing is opened for a request that cannot become a session. A message is one
    // datagram; twice the bridge's limit, so an oversized one is reported.
    let (target, ws) = match crate::http::socket_target(&addr, ws, 2 * MAX_DATAGRAM) {
        Ok(upgrade) => upgrade,
        Err(refused) => return *refused,
    };
    let client = bridge.client_ip(peer.ip(), &headers);
    let opened = bridge.open_session(client, target).await;
    // A refused session is still upgraded: a browser never shows a page the body of a failed
    // upgrade, and the page is to say why.
    match opened {
        Ok(session) => ws.on_upgrade(move |socket| {
            let (sink, stream) = closing.split(socket);
            session.run(sink, stream)
        }),
        Err(refusal) => ws.on_upgrade(move |socket| {
            let (sink, _) = socket.split();
            refuse(sink, refusal)
        }),
    }
}

/// Starts the bridge to the servers `known` lists (budgets shared by the cluster, if any);
/// returns it and its routes.
pub fn start(
    config: BridgeConfig,
    known: Known,
    cluster: Option<Arc<crate::cluster::Cluster>>,
) -> (Arc<Bridge>, Router) {
    let bridge = Bridge::clustered(config, known, cluster);
    let router = routes(bridge.clone());
    (bridge, router)
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};

    use super::*;
    use crate::http::oneshot::{call, get, upgrade};

    /// Every request reaches the bridge with its peer's address, as `axum::serve` gives it.
    fn from_peer(mut request: Request<Body>) -> Request<Body> {
        let peer = SocketAddr::from((Ipv4Addr::new(192, 0, 2, 9), 50000));
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    }

    fn bridge() -> (Arc<Bridge>, Router) {
        let known = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960);
        let bridge = Bridge::new(BridgeConfig::default(), Arc::new(vec![known]));
        (bridge.clone(), routes(bridge))
    }

    #[tokio::test]
    async fn a_session_needs_an_address_and_a_handshake_and_opens_nothing_before() {
        let (bridge, app) = bridge();
        let bad = call(&app, from_peer(upgrade("/bridge/nonsense", None))).await;
        assert_eq!(bad, (StatusCode::BAD_REQUEST, "not an IPv4 ip:port".into()));
        let plain = call(&app, from_peer(get("/bridge/10.0.0.7:28960"))).await;
        assert_eq!(plain.0, StatusCode::BAD_REQUEST, "{plain:?}");
        assert_eq!(bridge.counters.sessions_opened.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn counters_are_json() {
        let (_, app) = bridge();
        let (status, body) = call(&app, get("/api/bridge")).await;
        assert_eq!(status, StatusCode::OK);
        let counters: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(counters["sessions"], 0);
        assert_eq!(counters["refused"], serde_json::json!({}));
    }
}
