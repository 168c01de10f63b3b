//! The relay's edge, between the internet and the capabilities: the listeners (`listen.rs`:
//! several addresses, IPv4 and IPv6, header deadlines and sizes, a connection cap, bytes
//! counted, a graceful drain), the per-client limits (`limits.rs`: request and upgrade rates,
//! WebSocket caps, `X-Forwarded-For` only from trusted proxies), and the shutdown signal every
//! WebSocket handler takes (`socket.rs`).

pub(crate) mod limits;
pub(crate) mod listen;
pub(crate) mod socket;

use std::net::IpAddr;
use std::time::Duration;

pub use socket::{Closing, SHUTDOWN_REASON, TOO_BIG_REASON};

/// The edge's limits for `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct EdgeArgs {
    /// Requests a second one client (an IPv4 address or an IPv6 /64) may make to /api/*,
    /// after a burst of --api-burst.
    #[arg(long, env = "MUSTER_API_RATE", default_value_t = 10, value_name = "N")]
    pub api_rate: u32,
    /// Requests to /api/* one client may make at once before --api-rate applies.
    #[arg(long, env = "MUSTER_API_BURST", default_value_t = 60, value_name = "N")]
    pub api_burst: u32,
    /// WebSocket upgrades a second one client may make, after a burst of --upgrade-burst.
    #[arg(
        long,
        env = "MUSTER_UPGRADE_RATE",
        default_value_t = 2,
        value_name = "N"
    )]
    pub upgrade_rate: u32,
    /// WebSocket upgrades one client may make at once before --upgrade-rate applies.
    #[arg(
        long,
        env = "MUSTER_UPGRADE_BURST",
        default_value_t = 20,
        value_name = "N"
    )]
    pub upgrade_burst: u32,
    /// WebSockets (pages, viewers, bridge and proxy sessions) one client may hold open.
    #[arg(
        long,
        env = "MUSTER_SOCKETS_PER_CLIENT",
        default_value_t = 32,
        value_name = "N"
    )]
    pub sockets_per_client: usize,
    /// WebSockets the relay holds open in all.
    #[arg(
        long,
        env = "MUSTER_SOCKETS_TOTAL",
        default_value_t = 20_000,
        value_name = "N"
    )]
    pub sockets_total: usize,
    /// TCP connections the relay holds open in all (WebSockets included); past it, new ones
    /// are closed at once. Keep it under the process's open-file limit.
    #[arg(
        long,
        env = "MUSTER_CONNECTIONS",
        default_value_t = 24_000,
        value_name = "N"
    )]
    pub connections: usize,
    /// Seconds a client has to send a whole request head (slowloris).
    #[arg(
        long,
        env = "MUSTER_HEADER_TIMEOUT",
        default_value_t = 10,
        value_name = "SECONDS"
    )]
    pub header_timeout: u64,
    /// Seconds between the pings the relay sends a WebSocket it writes to.
    #[arg(
        long,
        env = "MUSTER_WS_PING_INTERVAL",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub ws_ping_interval: u64,
    /// Seconds a WebSocket client has to send a whole frame (a pong counts) after a ping before
    /// its socket is closed (a dead client, or one dribbling a frame that never ends).
    #[arg(
        long,
        env = "MUSTER_WS_ANSWER_TIMEOUT",
        default_value_t = 60,
        value_name = "SECONDS"
    )]
    pub ws_answer_timeout: u64,
    /// Largest request head, in bytes (at least 8192).
    #[arg(
        long,
        env = "MUSTER_MAX_HEADER_BYTES",
        default_value_t = 16_384,
        value_name = "BYTES"
    )]
    pub max_header_bytes: usize,
}

impl EdgeArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            api_per_second: self.api_rate,
            api_burst: self.api_burst,
            upgrades_per_second: self.upgrade_rate,
            upgrades_burst: self.upgrade_burst,
            sockets_per_client: self.sockets_per_client,
            sockets_total: self.sockets_total,
            connections: self.connections,
            header_timeout: Duration::from_secs(self.header_timeout.max(1)),
            max_header_bytes: self.max_header_bytes.max(8192),
            ws_ping_every: Duration::from_secs(self.ws_ping_interval.max(1)),
            ws_answer_within: Duration::from_secs(self.ws_answer_timeout.max(1)),
        }
    }
}

/// What the edge allows.
#[derive(Clone, Debug)]
pub struct Limits {
    pub api_per_second: u32,
    pub api_burst: u32,
    pub upgrades_per_second: u32,
    pub upgrades_burst: u32,
    pub sockets_per_client: usize,
    pub sockets_total: usize,
    pub connections: usize,
    pub header_timeout: Duration,
    pub max_header_bytes: usize,
    pub ws_ping_every: Duration,
    pub ws_answer_within: Duration,
}

impl Limits {
    /// No limit a test or a bench could meet: thousands of clients from 127.0.0.1.
    pub fn none() -> Self {
        Self {
            api_per_second: u32::MAX,
            api_burst: u32::MAX,
            upgrades_per_second: u32::MAX,
            upgrades_burst: u32::MAX,
            sockets_per_client: usize::MAX,
            sockets_total: usize::MAX,
            connections: usize::MAX,
            ..Self::default()
        }
    }
}

/// `muster serve`'s defaults.
impl Default for Limits {
    fn default() -> Self {
        Self {
            api_per_second: 10,
            api_burst: 60,
            upgrades_per_second: 2,
            upgrades_burst: 20,
            sockets_per_client: 32,
            sockets_total: 20_000,
            connections: 24_000,
            header_timeout: Duration::from_secs(10),
            max_header_bytes: 16_384,
            ws_ping_every: socket::PING_EVERY,
            ws_answer_within: socket::ANSWER_WITHIN,
        }
    }
}

/// The edge's configuration: its limits, and the proxies whose `X-Forwarded-For` names the
/// client.
#[derive(Clone, Debug)]
pub struct EdgeConfig {
    pub limits: Limits,
    pub trusted_proxies: Vec<IpAddr>,
}

/// For tests and embedders: no limits (`muster serve` sets its own from its flags).
impl Default for EdgeConfig {
    fn default() -> Self {
        Self {
            limits: Limits::none(),
            trusted_proxies: Vec::new(),
        }
    }
}
