//! Per-client limits on what reaches the capabilities: a rate on `/api/*` and one on WebSocket
//! upgrades (GCRA buckets from `governor`), and caps on the WebSockets open per client and in
//! all, each held for the socket's life. A client is its IPv4 address, or its IPv6 /64 (one
//! household or host gets a whole /64, so a full address would give it 2^64 budgets); behind
//! `--trusted-proxy`, the address the proxy names in `X-Forwarded-For`. A refusal is a 429
//! with `Retry-After` (rates) or a 503 (the relay's own total), and is counted by reason.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{RETRY_AFTER, UPGRADE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::listen::ConnectionSlot;
use super::Limits;
use crate::metrics::HttpMetrics;
use crate::sync::Locked;

/// Whom a limit counts: an IPv4 address or an IPv6 /64.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    pub fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Self(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(prefix) => write!(f, "{prefix}/64"),
        }
    }
}

/// The address of a request's client as text (see [`client_ip`]), from the connection info
/// axum put in its extensions; "local" for a request with none (a test's `oneshot`).
pub fn client_of(
    extensions: &axum::http::Extensions,
    headers: &HeaderMap,
    trusted: &[IpAddr],
) -> String {
    extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(
            || "local".to_owned(),
            |axum::extract::ConnectInfo(peer)| client_ip(peer.ip(), headers, trusted).to_string(),
        )
}

/// The client's address: the peer's, or, when the peer is a trusted proxy, the last address
/// in `X-Forwarded-For` that is not itself a trusted proxy (the nearest hop the proxies saw).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let mut forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|part| part.trim().parse().ok())
        .collect();
    forwarded.reverse();
    forwarded
        .into_iter()
        .find(|ip| !trusted.contains(ip))
        .unwrap_or(peer)
}

/// Counts of open WebSockets by client, and in all.
#[derive(Default)]
struct Open {
    per_client: HashMap<ClientKey, usize>,
    total: usize,
}

/// One open WebSocket's place in the caps, given back when it is dropped (with the socket's
/// connection).
pub struct SocketPermit {
    sockets: Arc<Sockets>,
    client: ClientKey,
}

impl Drop for SocketPermit {
    fn drop(&mut self) {
        let mut open = self.sockets.lock();
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.per_client.remove(&self.client);
            }
        }
    }
}

struct Sockets {
    open: Mutex<Open>,
    per_client: usize,
    total: usize,
}

impl Sockets {
    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.locked()
    }

    fn take(self: &Arc<Self>, client: ClientKey) -> Result<SocketPermit, &'static str> {
        let mut open = self.lock();
        if open.total >= self.total {
            return Err("sockets_total");
        }
        let mine = open.per_client.entry(client).or_default();
        if *mine >= self.per_client {
            return Err("sockets_per_client");
        }
        *mine += 1;
        open.total += 1;
        Ok(SocketPermit {
            sockets: self.clone(),
            client,
        })
    }
}

/// The limits' state, shared by every request.
pub struct Guard {
    trusted: Vec<IpAddr>,
    api: DefaultKeyedRateLimiter<ClientKey>,
    upgrades: DefaultKeyedRateLimiter<ClientKey>,
    sockets: Arc<Sockets>,
    metrics: HttpMetrics,
}

fn quota(per_second: u32, burst: u32) -> Quota {
    let rate = NonZeroU32::new(per_second).unwrap_or(NonZeroU32::MIN);
    Quota::per_second(rate).allow_burst(NonZeroU32::new(burst).unwrap_or(rate))
}

impl Guard {
    pub fn new(limits: &Limits, trusted: Vec<IpAddr>, metrics: HttpMetrics) -> Arc<Self> {
        Arc::new(Self {
            trusted,
            api: RateLimiter::keyed(quota(limits.api_per_second, limits.api_burst)),
            upgrades: RateLimiter::keyed(quota(limits.upgrades_per_second, limits.upgrades_burst)),
            sockets: Arc::new(Sockets {
                open: Mutex::default(),
                per_client: limits.sockets_per_client,
                total: limits.sockets_total,
            }),
            metrics,
        })
    }

    /// Forgets buckets that are full again, so the maps hold only recent clients.
    pub fn forget_idle(&self) {
        self.api.retain_recent();
        self.api.shrink_to_fit();
        self.upgrades.retain_recent();
        self.upgrades.shrink_to_fit();
    }

    fn limited(
        &self,
        reason: &'static str,
        limiter: &DefaultKeyedRateLimiter<ClientKey>,
        key: ClientKey,
    ) -> Option<Response> {
        let Err(not_until) = limiter.check_key(&key) else {
            return None;
        };
        self.metrics.limit(reason);
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        Some(too_many(
            wait,
            "too many requests from this address; try again shortly",
        ))
    }
}

/// A 429 whose `Retry-After` is the wait in whole seconds, rounded up (at least 1).
fn too_many(wait: Duration, text: &'static str) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = (StatusCode::TOO_MANY_REQUESTS, text).into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

fn is_upgrade(request: &Request) -> bool {
    request.headers().contains_key(UPGRADE) || request.method() == Method::CONNECT
}

/// Requests that make the relay work for them, limited like the API: the API itself, the
/// plain list and a first screen in a view of the client's own (the default one is shared).
fn costs_work(request: &Request) -> bool {
    let uri = request.uri();
    match uri.path() {
        "/servers" => true,
        "/" | "/index.html" => uri.query().is_some_and(|q| !q.is_empty()),
        path => path.starts_with("/api/"),
    }
}

/// The middleware: rates first (cheap, before any work), then the socket caps for upgrades,
/// whose permit goes into the connection's slot once the upgrade succeeded.
pub async fn enforce(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    // In-process tests have no connection; nothing to key on, nothing to limit.
    let Some(peer) = peer else {
        return next.run(request).await;
    };
    let client = ClientKey::of(client_ip(peer, request.headers(), &guard.trusted));
    let upgrade = is_upgrade(&request);
    if upgrade {
        if let Some(refused) = guard.limited("upgrade_rate", &guard.upgrades, client) {
            return refused;
        }
    } else if costs_work(&request) {
        if let Some(refused) = guard.limited("api_rate", &guard.api, client) {
            return refused;
        }
    }
    if !upgrade {
        return next.run(request).await;
    }
    let permit = match guard.sockets.take(client) {
        Ok(permit) => permit,
        Err(reason) => {
            guard.metrics.limit(reason);
            return if reason == "sockets_total" {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "this relay has all the sockets it can hold open",
                )
                    .into_response()
            } else {
                too_many(
                    Duration::from_secs(5),
                    "too many sockets open from this address",
                )
            };
        }
    };
    let slot = request.extensions().get::<ConnectionSlot>().cloned();
    let response = next.run(request).await;
    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        if let Some(slot) = slot {
            slot.hold(permit);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_are_counted_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(ClientKey::of(a), ClientKey::of(b));
        assert_ne!(ClientKey::of(a), ClientKey::of(other));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(ClientKey::of(mapped), ClientKey::of(v4));
    }

    #[test]
    fn forwarded_for_is_read_only_from_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let stranger: IpAddr = "198.51.100.4".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.77, 10.0.0.3".parse().unwrap(),
        );
        let trusted = [proxy, "10.0.0.3".parse().unwrap()];
        // The nearest address no trusted proxy holds: a client cannot forge the hops after it.
        assert_eq!(
            client_ip(proxy, &headers, &trusted),
            "198.51.100.77".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_ip(stranger, &headers, &trusted), stranger);
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &trusted), proxy);
    }
}
