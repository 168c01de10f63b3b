//! Scale-out: several relays behave as one site through NATS (JetStream on).
//!
//! - Core subjects carry what is encoded once to every relay: the directory's changes from the
//!   one poller (`browse/cluster.rs`), each watched match's frames from the one relay whose hub holds
//!   the game slot (`spectate::cluster`), and the small heartbeats that tell those relays who
//!   still wants them.
//! - A JetStream key-value bucket holds the leases ([`lease`]): the poller's and one per hub.
//!   A lease's KV revision is its fencing token; history writes carry it and the database
//!   refuses a stale one.
//! - A second bucket holds budgets every relay draws from ([`budget`]), so a game server sees
//!   the whole cluster as one client; a third, small records every relay updates together
//!   ([`records`]: the admin console's lockouts).
//!
//! Without `--cluster` nothing here runs.

pub(crate) mod budget;
pub(crate) mod lease;
pub(crate) mod records;
mod scrape;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, kv};
use tokio::sync::watch;

use crate::sync::Locked;

/// How `muster serve` joins a cluster.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// A NATS server of the cluster's engine (JetStream on), as nats://HOST:PORT; repeat for
    /// a NATS cluster. Needs --database postgres://... (the shared history) or --no-history.
    #[arg(
        long = "cluster",
        value_name = "nats://HOST:PORT",
        env = "MUSTER_CLUSTER"
    )]
    pub cluster: Vec<String>,
    /// Seconds a lease (the poller's, a hub's) lives without renewal: what a dead holder costs.
    /// Holders renew it every quarter of that and keep it while a renewal comes back within
    /// three quarters; another relay takes over within it plus a quarter of a second.
    #[arg(long = "lease-ttl", value_name = "SECS", default_value_t = 2)]
    pub lease_ttl: u64,
}

impl ClusterArgs {
    pub fn config(&self) -> Option<ClusterConfig> {
        (!self.cluster.is_empty()).then(|| ClusterConfig {
            urls: self.cluster.clone(),
            lease_ttl: Duration::from_secs(self.lease_ttl.clamp(2, 60)),
        })
    }
}

#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub urls: Vec<String>,
    pub lease_ttl: Duration,
}

/// Where fencing tokens count bucket creation times from (2020-09-13).
const TOKEN_EPOCH: i64 = 1_600_000_000;

/// The lease bucket and the budgets bucket.
const LEASES: &str = "muster_leases";
const BUDGETS: &str = "muster_budgets";
const RECORDS: &str = "muster_records";
/// Records outlive the longest lockout and the quiet day that forgets it.
const RECORD_AGE: Duration = Duration::from_secs(9 * 24 * 3600);
/// Budget keys outlive any window they describe.
const BUDGET_AGE: Duration = Duration::from_secs(120);

/// The key-value buckets, found or made at first use.
#[derive(Clone)]
struct Buckets {
    /// Entries expire a TTL after their last renewal.
    leases: kv::Store,
    budgets: kv::Store,
    records: kv::Store,
}

/// This relay's connection to the cluster's engine, shared by every capability that takes
/// part.
pub struct Cluster {
    pub client: async_nats::Client,
    js: jetstream::Context,
    /// This relay's name on the bus: its listen address and a random tag, unique per run.
    pub relay: String,
    pub config: ClusterConfig,
    /// Counts the (re)connections to NATS: what was published meanwhile is lost, so followers
    /// resynchronise when it moves.
    connections: watch::Receiver<u64>,
    /// The buckets, once found.
    buckets: std::sync::Mutex<Option<Buckets>>,
    /// The leases this relay holds now, with their revisions (`GET /api/cluster`).
    held: std::sync::Mutex<BTreeMap<String, u64>>,
    /// Whether this relay polls on its own because NATS is unreachable (no lease can be held,
    /// and the list must not freeze).
    polling_alone: std::sync::atomic::AtomicBool,
    /// The lease bucket's creation time (seconds since [`TOKEN_EPOCH`]) in the upper bits of a
    /// fencing token: a NATS whose store was lost numbers revisions from 1 again, in a bucket
    /// made later, and its tokens must still be above every one written before. (The tokens
    /// fit the database's signed 64 bits until 2088.)
    token_base: AtomicU64,
    /// The lease bucket's creation time in nanoseconds: the same on every relay of this
    /// cluster and on no other's, it names the site (see [`Cluster::hub_qport`]). 0 until the
    /// buckets are found.
    site: AtomicU64,
    pub counters: Counters,
}

/// What this relay put on the bus, and why beyond the steady stream (`GET /api/cluster`).
#[derive(Debug, Default, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ClusterCounters)]
pub struct Counters {
    #[schema(value_type = u64)]
    pub published_messages: AtomicU64,
    #[schema(value_type = u64)]
    pub published_bytes: AtomicU64,
    /// Whole directories sent to followers (a new holder, a follower's request, a lag).
    #[schema(value_type = u64)]
    pub directory_keyframes: AtomicU64,
    /// Keyframes this relay asked another's hub for (a mirror that started or missed one).
    #[schema(value_type = u64)]
    pub hub_resyncs: AtomicU64,
    /// Keyframes a hub sent on the bus in place of frames its publisher fell behind on.
    #[schema(value_type = u64)]
    pub hub_keyframes_resent: AtomicU64,
}

impl Counters {
    pub fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

impl Cluster {
    /// Connects (in the background if NATS is not up yet) and makes sure both buckets exist.
    pub async fn connect(config: ClusterConfig, relay: String) -> anyhow::Result<Arc<Self>> {
        let (connected, connections) = watch::channel(0u64);
        let events = Arc::new(connected);
        let addrs = config
            .urls
            .iter()
            .map(|u| u.parse::<async_nats::ServerAddr>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow::anyhow!("--cluster: {e}"))?;
        let client = async_nats::ConnectOptions::new()
            .name(relay.clone())
            .retry_on_initial_connect()
            .request_timeout(Some(Duration::from_secs(2)))
            .connection_timeout(Duration::from_secs(2))
            .ping_interval(Duration::from_secs(2))
            // A restarted NATS is found again within a quarter of a second.
            .reconnect_delay_callback(|attempts| {
                Duration::from_millis((attempts as u64 * 50).min(250))
            })
            .event_callback(move |event| {
                let events = events.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => events.send_modify(|n| *n += 1),
                        async_nats::Event::Disconnected => {
                            tracing::warn!("cluster: NATS connection lost, reconnecting")
                        }
                        other => tracing::debug!("cluster: {other}"),
                    }
                }
            })
            .connect(addrs)
            .await?;
        let js = jetstream::new(client.clone());
        let cluster = Arc::new(Self {
            client,
            js,
            relay,
            config,
            connections,
            buckets: std::sync::Mutex::new(None),
            held: std::sync::Mutex::default(),
            polling_alone: Default::default(),
            token_base: AtomicU64::new(0),
            site: AtomicU64::new(0),
            counters: Counters::default(),
        });
        // A relay starts, and serves what it restored, even while NATS is away: its leases
        // wait for the buckets.
        match cluster.buckets().await {
            Ok(_) => tracing::info!(relay = %cluster.relay, "cluster: joined"),
            Err(e) => tracing::warn!(
                relay = %cluster.relay,
                "cluster: JetStream not reachable yet ({e}); taking part once it is"
            ),
        }
        Ok(cluster)
    }

    /// The lease bucket (entries expire a TTL after their last renewal) or the budgets
    /// bucket, created if missing (a NATS whose store was lost gets them again). The stream
    /// is made here with the layout JetStream's key-value buckets use, because the client's
    /// own bucket creation first reads account details that Debian's nats-server 2.9 words
    /// differently; the key-value calls themselves work on it.
    async fn bucket(&self, name: &str, max_age: Duration) -> anyhow::Result<kv::Store> {
        use jetstream::stream;
        let config = stream::Config {
            name: format!("KV_{name}"),
            subjects: vec![format!("$KV.{name}.>")],
            max_messages_per_subject: 1,
            max_age,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            discard: stream::DiscardPolicy::New,
            storage: stream::StorageType::File,
            ..Default::default()
        };
        let found = self.js.get_or_create_stream(config.clone()).await?;
        // A bucket made with another age (an earlier --lease-ttl) gets this relay's: the
        // relays of one cluster agree on it (docs/operator.md).
        let had = found.cached_info().config.max_age;
        if had != max_age {
            tracing::warn!(bucket = name, ?had, now = ?max_age, "cluster: bucket's age changed");
            self.js.update_stream(config).await?;
        }
        Ok(self.js.get_key_value(name).await?)
    }

    async fn buckets(&self) -> anyhow::Result<Buckets> {
        if let Some(found) = self.cached() {
            return Ok(found);
        }
        let found = Buckets {
            leases: self.bucket(LEASES, self.config.lease_ttl).await?,
            budgets: self.bucket(BUDGETS, BUDGET_AGE).await?,
            records: self.bucket(RECORDS, RECORD_AGE).await?,
        };
        if let Ok(status) = found.leases.status().await {
            let created = status.info.created.unix_timestamp() - TOKEN_EPOCH;
            self.token_base
                .fetch_max((created.max(0) as u64) << 32, Ordering::AcqRel);
            let site = status.info.created.unix_timestamp_nanos() as u64;
            self.site.store(site.max(1), Ordering::Release);
        }
        *self.buckets.locked() = Some(found.clone());
        Ok(found)
    }

    fn cached(&self) -> Option<Buckets> {
        self.buckets.locked().clone()
    }

    /// Looks the buckets up again at next use (after a failure: NATS may have lost them).
    pub(crate) fn forget_buckets(&self) {
        *self.buckets.locked() = None;
    }

    pub(crate) async fn leases(&self) -> anyhow::Result<kv::Store> {
        Ok(self.buckets().await?.leases)
    }

    pub(crate) async fn budgets(&self) -> anyhow::Result<kv::Store> {
        Ok(self.buckets().await?.budgets)
    }

    pub(crate) async fn records(&self) -> anyhow::Result<kv::Store> {
        Ok(self.buckets().await?.records)
    }

    /// The fencing token of a lease revision: ordered like the revisions within one bucket,
    /// and above every token of a bucket made before.
    pub fn fencing_token(&self, revision: u64) -> u64 {
        self.token_base.load(Ordering::Acquire) + revision.min(u64::from(u32::MAX))
    }

    /// The qport every relay of this cluster joins `server` with. A stock server knows a
    /// client by its address and qport and takes a `connect` from the same address and qport
    /// as a reconnect: it hands that client's old slot over at once. So a relay that takes a
    /// hub over from one that died (SIGKILL, a lost host) gets the dead session's slot back
    /// when the relays leave from one address (one host, or one NAT), instead of waiting for
    /// the server to time the dead one out (`sv_timeout`, 240 s stock) while a full server
    /// refuses it. Mixed from the site and the server (a fixed mix, the same in every build of
    /// the relay), never 0; `None` before the buckets are found (a random qport then).
    pub fn hub_qport(&self, server: std::net::SocketAddrV4) -> Option<u16> {
        let site = self.site.load(Ordering::Acquire);
        if site == 0 {
            return None;
        }
        let mut x = site ^ (u64::from(u32::from(*server.ip())) << 16) ^ u64::from(server.port());
        // splitmix64's finaliser: every bit of the site and the server moves the qport.
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        Some((x as u16).max(1))
    }

    /// Notes a lease won or renewed (`Some`) or lost (`None`).
    pub(crate) fn note_lease(&self, key: &str, revision: Option<u64>) {
        let mut held = self.held.locked();
        match revision {
            Some(revision) => held.insert(key.to_owned(), revision),
            None => held.remove(key),
        };
    }

    /// Shutdown: deletes the leases this relay held (each only at the revision it held, so a
    /// newer holder's is untouched), so other relays take over without waiting out the TTL.
    /// Returns how many were deleted within `within`.
    pub async fn release(&self, leases: BTreeMap<String, u64>, within: Duration) -> usize {
        let released = async {
            let Ok(bucket) = self.leases().await else {
                return 0;
            };
            let mut n = 0;
            for (key, revision) in leases {
                if bucket
                    .delete_expect_revision(&key, Some(revision))
                    .await
                    .is_ok()
                {
                    n += 1;
                }
            }
            n
        };
        let n = tokio::time::timeout(within, released).await.unwrap_or(0);
        let _ = tokio::time::timeout(within, self.client.flush()).await;
        n
    }

    /// What this relay is in the cluster now.
    pub fn status(&self) -> ClusterStatus<'_> {
        ClusterStatus {
            relay: &self.relay,
            connected: self.connected(),
            leases: self.held.locked().clone(),
            polling_alone: self.polling_alone.load(Ordering::Relaxed),
            counters: &self.counters,
        }
    }

    /// Whether NATS is reachable now.
    pub fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    /// Says (in `GET /api/cluster`) whether this relay polls on its own.
    pub fn set_polling_alone(&self, alone: bool) {
        self.polling_alone.store(alone, Ordering::Relaxed);
    }

    /// Moves each time the connection to NATS is (re)made.
    pub fn connections(&self) -> watch::Receiver<u64> {
        self.connections.clone()
    }

    /// Publishes, logging (not failing) when NATS is away: what is lost is recovered by the
    /// subscribers' resynchronisation.
    pub async fn publish(&self, subject: String, payload: bytes::Bytes) {
        self.counters
            .published_messages
            .fetch_add(1, Ordering::Relaxed);
        self.counters
            .published_bytes
            .fetch_add(payload.len() as u64, Ordering::Relaxed);
        if let Err(e) = self.client.publish(subject, payload).await {
            tracing::debug!("cluster: publish failed: {e}");
        }
    }
}

/// `GET /api/cluster`: this relay's name, whether it reaches NATS, the leases it holds
/// (`poller`, `hub.ADDR`) with their revisions, whether it polls on its own while NATS is
/// unreachable, and its [`Counters`].
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ClusterStatus<'a> {
    #[schema(value_type = String)]
    pub relay: &'a str,
    pub connected: bool,
    pub leases: BTreeMap<String, u64>,
    pub polling_alone: bool,
    #[schema(value_type = Counters)]
    pub counters: &'a Counters,
}

/// `GET /api/cluster` (404 on a relay outside a cluster).
pub fn routes(cluster: Option<Arc<Cluster>>) -> axum::Router {
    axum::Router::from(api()).with_state(cluster)
}

fn api() -> utoipa_axum::router::OpenApiRouter<Option<Arc<Cluster>>> {
    utoipa_axum::router::OpenApiRouter::new().routes(utoipa_axum::routes!(status))
}

/// The cluster's part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// This relay in its cluster: its name, whether it reaches NATS, the leases it holds and what
/// it put on the bus.
#[utoipa::path(get, path = "/api/cluster", tag = crate::http::tag::RELAY,
    responses(
        (status = 200, description = "The relay in its cluster", body = ClusterStatus),
        (status = 404, description = "This relay is not in a cluster", body = protocol::relay_api::ApiError),
    ))]
async fn status(
    axum::extract::State(cluster): axum::extract::State<Option<Arc<Cluster>>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match cluster {
        Some(cluster) => axum::Json(cluster.status()).into_response(),
        None => (
            axum::http::StatusCode::NOT_FOUND,
            "this relay is not in a cluster",
        )
            .into_response(),
    }
}

/// A game server's address as one token of a subject or a KV key (neither takes `.` or `:`
/// inside a token).
pub fn token(addr: &std::net::SocketAddrV4) -> String {
    addr.to_string().replace(['.', ':'], "-")
}

/// A name for this relay on the bus, unique per run.
pub fn relay_name(listen: std::net::SocketAddr) -> String {
    format!("{listen}/{:08x}", rand::random::<u32>())
}

/// Joins the cluster when configured (`None`: this relay is the whole site), named after its
/// first listener. Returns the connection and the routes.
pub async fn start(
    config: Option<ClusterConfig>,
    listen: std::net::SocketAddr,
) -> anyhow::Result<(Option<Arc<Cluster>>, axum::Router)> {
    use anyhow::Context as _;
    let cluster = match config {
        Some(config) => Some(
            Cluster::connect(config, relay_name(listen))
                .await
                .context("joining the cluster")?,
        ),
        None => None,
    };
    let router = routes(cluster.clone());
    Ok((cluster, router))
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};

    use axum::http::StatusCode;

    use super::*;
    use crate::http::oneshot::{call, get};

    #[tokio::test]
    async fn a_relay_outside_a_cluster_says_so() {
        let answer = call(&routes(None), get("/api/cluster")).await;
        assert_eq!(
            answer,
            (
                StatusCode::NOT_FOUND,
                "this relay is not in a cluster".into()
            )
        );
    }

    #[test]
    fn a_server_address_is_one_token_of_a_subject_and_a_key() {
        let addr = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 7), 28960);
        assert_eq!(token(&addr), "10-0-0-7-28960");
    }
}
