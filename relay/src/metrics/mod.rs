//! `GET /metrics`: the relay's life in the Prometheus text format, through the Prometheus
//! project's own client (`prometheus-client`, an explicit registry, no global state).
//!
//! Two kinds of figure. Events that happen between scrapes (a query's outcome, a poll's
//! duration, a history write, bytes through a socket) are counted as they happen by the
//! instruments here ([`Metrics`]), which each capability is handed. State that already lives
//! somewhere (pages, viewers, hubs, bridge sessions, the master's servers, leases) is read at
//! scrape time by each capability's [`Scrape`], so nothing is counted twice; this module imports no
//! capability.
//!
//! Names follow Prometheus's rules: the `muster_` prefix, base units (seconds, bytes), `_total`
//! on counters, histograms rather than summaries (a histogram's buckets add up across relays,
//! a summary's quantiles do not), and no label per player or per client address.

mod collect;
pub(crate) mod exposition;
mod process;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

pub use collect::{counter, family, gauge, load, Scrape, ScrapeResult, Sources};
pub use exposition::parse as parse_exposition;

/// One label, `outcome` or `reason` or `kind`: a word from a fixed set, never an address.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Outcome {
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Reason {
    pub reason: &'static str,
}

/// The poller's figures: every server query's outcome and round trip, each full refresh's
/// duration, every master poll's outcome, and the query engine's UDP traffic.
#[derive(Clone, Debug)]
pub struct PollMetrics {
    pub queries: Family<Outcome, Counter>,
    pub rtt: Histogram,
    pub cycle: Histogram,
    pub master_polls: Family<Outcome, Counter>,
    pub datagrams_sent: Counter,
    pub bytes_sent: Counter,
    pub datagrams_received: Counter,
    pub bytes_received: Counter,
}

impl Default for PollMetrics {
    fn default() -> Self {
        Self {
            queries: Family::default(),
            // 5 ms to ~10 s: a LAN answers in a few, the far side of the world in hundreds.
            rtt: Histogram::new(exponential_buckets(0.005, 2.0, 12)),
            // 0.25 s to ~17 min: a refresh of a few servers to thousands on a slow link.
            cycle: Histogram::new(exponential_buckets(0.25, 2.0, 13)),
            master_polls: Family::default(),
            datagrams_sent: Counter::default(),
            bytes_sent: Counter::default(),
            datagrams_received: Counter::default(),
            bytes_received: Counter::default(),
        }
    }
}

impl PollMetrics {
    pub fn query(&self, outcome: &'static str) {
        self.queries.get_or_create(&Outcome { outcome }).inc();
    }

    pub fn master_poll(&self, outcome: &'static str) {
        self.master_polls.get_or_create(&Outcome { outcome }).inc();
    }
}

/// The history store's figures: how long each batch took to commit, and the database's size.
#[derive(Clone, Debug)]
pub struct StoreMetrics {
    pub write: Histogram,
    pub size: Gauge,
}

impl Default for StoreMetrics {
    fn default() -> Self {
        Self {
            // 0.5 ms to ~16 s: SQLite on a quiet disk to PostgreSQL across a slow link.
            write: Histogram::new(exponential_buckets(0.0005, 2.0, 16)),
            size: Gauge::default(),
        }
    }
}

/// The HTTP side: connections and bytes through the listeners, and every request or
/// connection refused by a limit, by reason.
#[derive(Clone, Debug, Default)]
pub struct HttpMetrics {
    pub connections: Gauge,
    pub connections_accepted: Counter,
    pub bytes_received: Counter,
    pub bytes_sent: Counter,
    pub limited: Family<Reason, Counter>,
}

impl HttpMetrics {
    pub fn limit(&self, reason: &'static str) {
        self.limited.get_or_create(&Reason { reason }).inc();
    }
}

/// Every instrument, handed to the capabilities that count events. Clones share the counts.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    pub poll: PollMetrics,
    pub store: StoreMetrics,
    pub http: HttpMetrics,
}

impl Metrics {
    /// The registry a scrape encodes: the instruments, then what `sources` hold now.
    /// The registry of one relay: these instruments, then each capability's scrape in order,
    /// and the store's instruments when the relay keeps history.
    pub fn registry(&self, sources: Sources, keeps_history: bool) -> Registry {
        let mut r = Registry::with_prefix("muster");
        let poll = &self.poll;
        r.register(
            "server_queries",
            "Server queries finished, by outcome (answered, timeout, malformed)",
            poll.queries.clone(),
        );
        r.register_with_unit(
            "server_query_rtt",
            "Best round trip of each answered server query",
            Unit::Seconds,
            poll.rtt.clone(),
        );
        r.register_with_unit(
            "poll_duration",
            "Time from the start of a refresh to its last server's outcome",
            Unit::Seconds,
            poll.cycle.clone(),
        );
        r.register(
            "master_polls",
            "Master polls finished, by outcome (ok, failed)",
            poll.master_polls.clone(),
        );
        r.register(
            "query_datagrams_sent",
            "UDP datagrams the query engine sent (queries, master and LAN probes)",
            poll.datagrams_sent.clone(),
        );
        r.register_with_unit(
            "query_sent",
            "UDP bytes the query engine sent",
            Unit::Bytes,
            poll.bytes_sent.clone(),
        );
        r.register(
            "query_datagrams_received",
            "UDP datagrams the query engine received",
            poll.datagrams_received.clone(),
        );
        r.register_with_unit(
            "query_received",
            "UDP bytes the query engine received",
            Unit::Bytes,
            poll.bytes_received.clone(),
        );
        let http = &self.http;
        r.register(
            "http_connections",
            "TCP connections open to the relay's listeners",
            http.connections.clone(),
        );
        r.register(
            "http_connections_accepted",
            "TCP connections accepted",
            http.connections_accepted.clone(),
        );
        r.register_with_unit(
            "http_received",
            "Bytes read from HTTP and WebSocket clients",
            Unit::Bytes,
            http.bytes_received.clone(),
        );
        r.register_with_unit(
            "http_sent",
            "Bytes written to HTTP and WebSocket clients",
            Unit::Bytes,
            http.bytes_sent.clone(),
        );
        r.register(
            "http_limited",
            "Requests, upgrades and connections refused by a limit, by reason",
            http.limited.clone(),
        );
        if keeps_history {
            r.register_with_unit(
                "history_write_duration",
                "Time to commit one batch of history",
                Unit::Seconds,
                self.store.write.clone(),
            );
            r.register_with_unit(
                "history_database_size",
                "Size of the history database, as the store reports it",
                Unit::Bytes,
                self.store.size.clone(),
            );
        }
        r.register(
            "build",
            "The relay's version",
            prometheus_client::metrics::info::Info::new(vec![(
                "version".to_owned(),
                env!("CARGO_PKG_VERSION").to_owned(),
            )]),
        );
        r.register_collector(Box::new(sources));
        r.register_collector(Box::new(process::Process));
        r
    }
}

/// `GET /metrics`.
pub fn routes(registry: Registry) -> axum::Router {
    exposition::routes(registry)
}
