//! The WebSocket↔UDP bridge: `/bridge/ADDR` carries whole UDP datagrams between a page and one
//! target, on a UDP socket of its own that is `connect`ed, so only the target's replies come
//! back. The target is a server the directory knows or a configured master; every datagram
//! passes [`protocol::bridge::Egress`] and the budgets here (per client IP, per target, in
//! all) before it goes. Text messages from the relay say what it did: `session` first (the
//! target and the qport the session must use), then `refused` for each datagram it dropped,
//! and `closed` with the reason when it ends the session.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::bridge::{check_address, Egress, Passed, Refusal, TargetKind, MAX_DATAGRAM};
use serde::Serialize;
use serde_json::json;
use tokio::net::UdpSocket;

use crate::directory::Directory;

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
#[derive(Default, Serialize)]
pub struct Counters {
    pub sessions: AtomicU64,
    pub sessions_opened: AtomicU64,
    pub datagrams_from_pages: AtomicU64,
    pub bytes_from_pages: AtomicU64,
    pub datagrams_to_targets: AtomicU64,
    pub bytes_to_targets: AtomicU64,
    pub datagrams_from_targets: AtomicU64,
    pub bytes_from_targets: AtomicU64,
    /// Refusals by kind: targets, sessions, datagrams and budgets.
    pub refused: Mutex<BTreeMap<&'static str, u64>>,
}

impl Counters {
    fn refuse(&self, kind: &'static str) {
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
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
    directory: Arc<Directory>,
    open: Mutex<Open>,
    per_ip: DefaultKeyedRateLimiter<IpAddr>,
    per_target: DefaultKeyedRateLimiter<SocketAddrV4>,
    global: DefaultDirectRateLimiter,
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
    pub fn new(config: BridgeConfig, directory: Arc<Directory>) -> Arc<Self> {
        Arc::new(Self {
            per_ip: RateLimiter::keyed(per_second(config.client_rate, config.client_rate)),
            per_target: RateLimiter::keyed(per_second(1, PER_TARGET_BURST)),
            global: RateLimiter::direct(per_second(config.global_rate, config.global_rate)),
            config,
            directory,
            open: Mutex::default(),
            counters: Counters::default(),
        })
    }

    pub fn config(&self) -> &BridgeConfig {
        &self.config
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The client a request comes from: the peer, or the right-most address in
    /// `X-Forwarded-For` that is not a trusted proxy when the peer is one.
    pub fn client_ip(&self, peer: IpAddr, forwarded: Option<&str>) -> IpAddr {
        if !self.config.trusted_proxies.contains(&peer) {
            return peer;
        }
        let hops = forwarded.unwrap_or("").split(',').rev();
        hops.filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
            .find(|ip| !self.config.trusted_proxies.contains(ip))
            .unwrap_or(peer)
    }

    /// What `target` is to this relay: a server it knows, or a configured master.
    async fn kind_of(&self, target: SocketAddrV4) -> Result<TargetKind, Refusal> {
        check_address(*target.ip(), target.port(), self.config.allow_private)?;
        if self.directory.contains(&target.to_string()) {
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
    fn budget(&self, client: IpAddr, target: SocketAddrV4, passed: Passed) -> Result<(), Budget> {
        if self.global.check().is_err() {
            return Err(Budget::Global);
        }
        if self.per_ip.check_key(&client).is_err() {
            return Err(Budget::Client);
        }
        if passed == Passed::Connectionless && self.per_target.check_key(&target).is_err() {
            return Err(Budget::Target);
        }
        Ok(())
    }
}

/// A budget a datagram did not fit.
#[derive(Clone, Copy, Debug)]
enum Budget {
    Global,
    Client,
    Target,
}

impl Budget {
    fn kind(self) -> &'static str {
        match self {
            Self::Global => "budget_global",
            Self::Client => "budget_client",
            Self::Target => "budget_target",
        }
    }

    fn reason(self, config: &BridgeConfig) -> String {
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

fn text(value: serde_json::Value) -> Message {
    Message::Text(value.to_string().into())
}

/// A refusal as the page reads it.
fn refused(kind: &str, reason: &str) -> Message {
    text(json!({"type": "refused", "kind": kind, "reason": reason}))
}

/// Tells a page why it got no session, and closes.
pub async fn refuse(mut ws: WebSocket, refusal: OpenError) {
    let _ = ws.send(closed(refusal.kind(), &refusal.to_string())).await;
    let _ = ws.send(Message::Close(None)).await;
}

/// The end of a session, as the page reads it.
fn closed(kind: &str, reason: &str) -> Message {
    text(json!({"type": "closed", "kind": kind, "reason": reason}))
}

impl Session {
    /// Carries datagrams until the page leaves, the target goes quiet for the idle time, or
    /// the socket fails.
    pub async fn run(self, mut ws: WebSocket) {
        let (kind, reason) = match self.carry(&mut ws).await {
            Ok(ended) => ended,
            Err(e) => ("socket", format!("socket error: {e}")),
        };
        let _ = ws.send(closed(kind, &reason)).await;
        let _ = ws.send(Message::Close(None)).await;
    }

    /// Why the session ended: a kind and a sentence.
    async fn carry(&self, ws: &mut WebSocket) -> std::io::Result<(&'static str, String)> {
        let bind = if self.target.ip().is_loopback() {
            Ipv4Addr::LOCALHOST
        } else {
            Ipv4Addr::UNSPECIFIED
        };
        let udp = UdpSocket::bind((bind, 0)).await?;
        // Connected: the kernel drops datagrams from any other address.
        udp.connect(self.target).await?;
        let hello = json!({
            "type": "session",
            "target": self.target.to_string(),
            "kind": self.kind,
            "qport": self.qport,
            "max_datagram": MAX_DATAGRAM,
        });
        if ws.send(text(hello)).await.is_err() {
            return Ok(("page_left", "page left".into()));
        }
        let counters = &self.bridge.counters;
        let mut egress = Egress::new(self.kind, self.qport);
        let (mut from_pages, mut to_target) = (0u64, 0u64);
        let mut buf = vec![0u8; MAX_DATAGRAM + 1];
        let idle = self.bridge.config.idle;
        loop {
            tokio::select! {
                message = ws.recv() => {
                    let message = match message {
                        Some(Ok(message)) => message,
                        Some(Err(e)) => {
                            return Ok(("unreadable", format!("unreadable message from the page: {e}")))
                        }
                        None => return Ok(("page_left", "page left".into())),
                    };
                    let datagram = match message {
                        Message::Binary(d) => d,
                        Message::Close(_) => return Ok(("page_left", "page left".into())),
                        _ => continue,
                    };
                    counters.datagrams_from_pages.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_from_pages.fetch_add(datagram.len() as u64, Ordering::Relaxed);
                    from_pages += datagram.len() as u64;
                    let verdict = egress.check(&datagram).map_err(|r| (r.kind(), r.to_string()));
                    let verdict = verdict.and_then(|verdict| {
                        self.bridge
                            .budget(self.client, self.target, verdict.passed)
                            .map(|()| verdict)
                            .map_err(|b| (b.kind(), b.reason(&self.bridge.config)))
                    });
                    let verdict = match verdict {
                        Ok(verdict) => verdict,
                        Err((kind, reason)) => {
                        counters.refuse(kind);
                        tracing::debug!(client = %self.client, target = %self.target, kind, "bridge refused a datagram");
                            if ws.send(refused(kind, &reason)).await.is_err() {
                                return Ok(("page_left", "page left".into()));
                            }
                            continue;
                        }
                    };
                    // Never more to the target than the page sent: the bridge adds nothing.
                    debug_assert!(to_target + datagram.len() as u64 <= from_pages);
                    udp.send(&datagram).await?;
                    egress.sent(&datagram, verdict);
                    to_target += datagram.len() as u64;
                    counters.datagrams_to_targets.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_to_targets.fetch_add(datagram.len() as u64, Ordering::Relaxed);
                }
                received = udp.recv(&mut buf) => {
                    let len = match received {
                        Ok(len) => len,
                        // An ICMP port unreachable from the target: nothing listens there.
                        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                        Err(e) => return Err(e),
                    };
                    if len > MAX_DATAGRAM {
                        counters.refuse("reply_too_large");
                        continue;
                    }
                    let datagram = &buf[..len];
                    counters.datagrams_from_targets.fetch_add(1, Ordering::Relaxed);
                    counters.bytes_from_targets.fetch_add(len as u64, Ordering::Relaxed);
                    egress.inbound(datagram);
                    if ws.send(Message::Binary(datagram.to_vec().into())).await.is_err() {
                        return Ok(("page_left", "page left".into()));
                    }
                }
                _ = tokio::time::sleep(idle) => {
                    counters.refuse("idle");
                    return Ok(("idle", format!("no datagram either way for {} s", idle.as_secs())));
                }
            }
        }
    }
}
