//! One poller for the whole cluster, and the same directory on every relay.
//!
//! Every relay campaigns for the `poller` lease. The holder runs the poller as a lone relay
//! does, and after each of its feed's ticks publishes the records that changed (whole, as
//! JSON, encoded once) on [`TICKS`]; every other relay applies them to its own directory, whose
//! feed then ticks for its pages as if it had polled them itself. Messages carry the holder's
//! epoch (the revision it won the lease at) and a sequence number: a follower that sees a gap,
//! a new holder without a keyframe, or its own reconnection to NATS asks for a keyframe on
//! [`RESYNC`], and the holder publishes its whole directory. Followers also say which servers
//! their pages show in detail ([`WATCHED`]), so the holder refreshes those as often as its own.
//!
//! While NATS is unreachable no relay can hold the lease, and the list must not freeze: once a
//! relay without the lease has been cut off for a lease's time, it polls on its own (its list
//! fresh, no shared history written without the lease) and says so in `GET /api/cluster`;
//! when NATS returns it stops and follows the one poller again.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use protocol::relay_api::{MasterStatus, Progress, ServerInfo};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use super::{poller, Directory, PageFeed, PollerConfig};
use crate::cluster::lease::Lease;
use crate::cluster::Cluster;
use crate::seams::PollLog;
use crate::store::Fence;
use crate::AbortOnDrop;

pub const TICKS: &str = "muster.directory.ticks";
pub const RESYNC: &str = "muster.directory.resync";
pub const WATCHED: &str = "muster.directory.watched";
/// The poller's lease key.
pub const POLLER: &str = "poller";
/// Records per message: a record with its players and cvars is a few KB, so a message stays
/// far under NATS's 1 MB payload limit.
const SERVERS_PER_MESSAGE: usize = 64;
/// How often a relay says what its pages watch, and how soon a follower may ask again for a
/// keyframe.
const WATCHED_EVERY: Duration = Duration::from_secs(2);
const RESYNC_AFTER: Duration = Duration::from_millis(500);

/// One message of the directory's stream.
#[derive(Serialize, Deserialize)]
pub struct DirectoryTick {
    /// The relay that polled.
    pub relay: String,
    /// The lease revision the poller's relay won at: a new epoch is a new holder.
    pub epoch: u64,
    /// 1, 2, 3... within the epoch.
    pub seq: u64,
    /// Part of a whole directory, sent to resynchronise followers.
    pub keyframe: bool,
    pub servers: Vec<ServerInfo>,
    pub masters: Vec<MasterStatus>,
    pub progress: Progress,
}

/// What the relay's poller needs, handed over whenever this relay wins the lease.
pub struct Polling {
    pub directory: Arc<Directory>,
    pub feed: Arc<PageFeed>,
    pub config: PollerConfig,
    pub log: Option<Arc<dyn PollLog>>,
    pub fence: Option<Arc<Fence>>,
}

/// The relay's part in the cluster's directory, for the relay's life: campaigning for the
/// poller's lease and polling while it holds it, following the holder otherwise.
pub async fn run(cluster: Arc<Cluster>, polling: Polling) {
    let lease = Lease::campaign(cluster.clone(), POLLER.into());
    let mut held = lease.watch();
    let (holding_tx, holding) = watch::channel(false);
    let _follower = AbortOnDrop(tokio::spawn(follow(
        cluster.clone(),
        polling.directory.clone(),
        holding,
    )));
    let _watched = AbortOnDrop(tokio::spawn(say_watched(
        cluster.clone(),
        polling.directory.clone(),
    )));
    let mut running: Option<(AbortOnDrop, AbortOnDrop)> = None;
    let mut alone = Alone::default();
    let mut check = tokio::time::interval(Duration::from_millis(500));
    loop {
        let revision = *held.borrow_and_update();
        alone.check(&cluster, &polling, revision.is_some());
        if let (Some(revision), Some(fence)) = (revision, &polling.fence) {
            fence.hold(cluster.fencing_token(revision));
        }
        match (revision, running.is_some()) {
            (Some(revision), false) => {
                holding_tx.send_replace(true);
                tracing::info!(epoch = revision, "polling for the cluster");
                let poll = tokio::spawn(poller::run(
                    polling.directory.clone(),
                    polling.config.clone(),
                    polling.log.clone(),
                ));
                let publish = tokio::spawn(publish(
                    cluster.clone(),
                    polling.directory.clone(),
                    polling.feed.clone(),
                    revision,
                ));
                running = Some((AbortOnDrop(poll), AbortOnDrop(publish)));
            }
            (None, true) => {
                running = None;
                if let Some(fence) = &polling.fence {
                    fence.release();
                }
                holding_tx.send_replace(false);
                tracing::warn!("stopped polling: the lease passed on");
            }
            // Renewed, or still not ours.
            (Some(_), true) | (None, false) => {}
        }
        tokio::select! {
            changed = held.changed() => if changed.is_err() {
                return;
            },
            _ = check.tick() => {}
        }
    }
}

/// The relay's own poller while NATS is unreachable.
#[derive(Default)]
struct Alone {
    /// Since when this relay has found NATS unreachable.
    cut_off_since: Option<Instant>,
    poller: Option<AbortOnDrop>,
}

impl Alone {
    fn check(&mut self, cluster: &Arc<Cluster>, polling: &Polling, holding: bool) {
        let connected = cluster.connected();
        if connected {
            self.cut_off_since = None;
        }
        if holding || connected {
            if self.poller.take().is_some() {
                cluster.set_polling_alone(false);
                tracing::info!("NATS is back: following the cluster's poller again");
            }
            return;
        }
        let since = *self.cut_off_since.get_or_insert_with(Instant::now);
        if self.poller.is_none() && since.elapsed() >= cluster.config.lease_ttl {
            tracing::warn!("NATS is unreachable: polling on my own, writing no shared history");
            cluster.set_polling_alone(true);
            // No log: history is shared, and only the lease holder writes it.
            self.poller = Some(AbortOnDrop(tokio::spawn(poller::run(
                polling.directory.clone(),
                polling.config.clone(),
                None,
            ))));
        }
    }
}

/// The holder's side: each feed tick's changed records, and the whole directory when a
/// follower asks or the holder itself reconnected.
async fn publish(
    cluster: Arc<Cluster>,
    directory: Arc<Directory>,
    feed: Arc<PageFeed>,
    epoch: u64,
) {
    let mut out = Publisher {
        cluster: cluster.clone(),
        directory: directory.clone(),
        epoch,
        seq: 0,
    };
    let mut ticks = feed.subscribe();
    let mut connections = cluster.connections();
    let (mut resyncs, mut watched) = loop {
        let subscribed = async {
            Ok::<_, async_nats::SubscribeError>((
                cluster.client.subscribe(RESYNC).await?,
                cluster.client.subscribe(WATCHED).await?,
            ))
        };
        match subscribed.await {
            Ok(subs) => break subs,
            Err(e) => {
                tracing::warn!("cluster: cannot subscribe: {e}");
                tokio::time::sleep(RESYNC_AFTER).await;
            }
        }
    };
    out.keyframe().await;
    loop {
        tokio::select! {
            tick = ticks.recv() => match tick {
                Ok(tick) => {
                    let servers = tick
                        .details
                        .iter()
                        .filter_map(|addr| directory.server(addr.parse().ok()?))
                        .collect();
                    out.send(servers, false).await;
                }
                Err(broadcast::error::RecvError::Lagged(_)) => out.keyframe().await,
                Err(broadcast::error::RecvError::Closed) => return,
            },
            Some(_) = resyncs.next() => {
                // Several followers asking at once get one keyframe.
                tokio::time::sleep(Duration::from_millis(50)).await;
                while let Ok(Some(_)) =
                    tokio::time::timeout(Duration::ZERO, resyncs.next()).await {}
                out.keyframe().await;
            }
            Some(message) = watched.next() => {
                if let Ok((relay, servers)) =
                    serde_json::from_slice::<(String, BTreeSet<String>)>(&message.payload)
                {
                    directory.set_remote_watched(&relay, servers);
                }
            }
            Ok(()) = connections.changed() => out.keyframe().await,
        }
    }
}

struct Publisher {
    cluster: Arc<Cluster>,
    directory: Arc<Directory>,
    epoch: u64,
    seq: u64,
}

impl Publisher {
    async fn keyframe(&mut self) {
        crate::cluster::Counters::add(&self.cluster.counters.directory_keyframes);
        let servers = self.directory.servers();
        self.send(servers, true).await;
    }

    /// Sends records in messages of [`SERVERS_PER_MESSAGE`], each encoded once; at least one
    /// message, which carries the masters and the refresh's progress.
    async fn send(&mut self, servers: Vec<ServerInfo>, keyframe: bool) {
        let masters = self.directory.masters();
        let progress = self.directory.progress();
        let mut parts: Vec<Vec<ServerInfo>> = Vec::new();
        let mut servers = servers.into_iter().peekable();
        while servers.peek().is_some() {
            parts.push(servers.by_ref().take(SERVERS_PER_MESSAGE).collect());
        }
        if parts.is_empty() {
            parts.push(Vec::new());
        }
        for servers in parts {
            self.seq += 1;
            let tick = DirectoryTick {
                relay: self.cluster.relay.clone(),
                epoch: self.epoch,
                seq: self.seq,
                keyframe,
                servers,
                masters: masters.clone(),
                progress,
            };
            match serde_json::to_vec(&tick) {
                Ok(bytes) => self.cluster.publish(TICKS.into(), bytes.into()).await,
                Err(e) => tracing::warn!("cluster: cannot encode a directory tick: {e}"),
            }
        }
    }
}

/// A follower's side: applies the holder's records (not while this relay polls itself).
async fn follow(cluster: Arc<Cluster>, directory: Arc<Directory>, holding: watch::Receiver<bool>) {
    let mut connections = cluster.connections();
    let mut asked: Option<Instant> = None;
    let ask = |asked: &mut Option<Instant>| {
        if asked.is_some_and(|at| at.elapsed() < RESYNC_AFTER) {
            return;
        }
        *asked = Some(Instant::now());
        let cluster = cluster.clone();
        tokio::spawn(async move { cluster.publish(RESYNC.into(), "".into()).await });
    };
    loop {
        let mut ticks = match cluster.client.subscribe(TICKS).await {
            Ok(ticks) => ticks,
            Err(e) => {
                tracing::warn!("cluster: cannot subscribe to the directory: {e}");
                tokio::time::sleep(RESYNC_AFTER).await;
                continue;
            }
        };
        ask(&mut asked);
        let mut last: Option<(u64, u64)> = None;
        loop {
            tokio::select! {
                message = ticks.next() => {
                    let Some(message) = message else { break };
                    if *holding.borrow() {
                        last = None;
                        continue;
                    }
                    let tick: DirectoryTick = match serde_json::from_slice(&message.payload) {
                        Ok(tick) => tick,
                        Err(e) => {
                            tracing::warn!("cluster: unreadable directory tick: {e}");
                            continue;
                        }
                    };
                    if tick.relay == cluster.relay {
                        continue;
                    }
                    let next = last.is_some_and(|(epoch, seq)| {
                        epoch == tick.epoch && tick.seq == seq + 1
                    });
                    if !next && !tick.keyframe {
                        ask(&mut asked);
                    }
                    last = Some((tick.epoch, tick.seq));
                    apply(&directory, tick);
                }
                Ok(()) = connections.changed() => {
                    // Whatever was published while NATS was away is lost: start again.
                    last = None;
                    ask(&mut asked);
                }
            }
        }
    }
}

fn apply(directory: &Directory, tick: DirectoryTick) {
    for server in tick.servers {
        directory.upsert(server);
    }
    directory.set_masters(tick.masters);
    directory.set_progress(tick.progress);
}

/// Says, every [`WATCHED_EVERY`], which servers this relay's pages show in detail.
async fn say_watched(cluster: Arc<Cluster>, directory: Arc<Directory>) {
    let mut said_empty = false;
    loop {
        tokio::time::sleep(WATCHED_EVERY).await;
        let servers = directory.local_watched();
        if servers.is_empty() && said_empty {
            continue;
        }
        said_empty = servers.is_empty();
        if let Ok(bytes) = serde_json::to_vec(&(&cluster.relay, servers)) {
            cluster.publish(WATCHED.into(), bytes.into()).await;
        }
    }
}
