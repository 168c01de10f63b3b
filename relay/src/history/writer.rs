//! The history's writer: one thread owning the writing connection. The poller's outcomes
//! arrive on a bounded channel (never blocking the poller; a full channel drops and counts);
//! they become samples, map changes, player sessions and persisted directory records, written
//! once a second in one transaction, so a crash loses at most the last second. Totals are
//! tallied once per refresh, and the compactor runs between batches.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::relay_api::{MasterStatus, ServerInfo};

use crate::metrics::StoreMetrics;
use crate::net::unix_ms;
use crate::seams::PollLog;
use crate::store::compact::{self, Retention};
use crate::store::matches::MatchPart;
use crate::store::{self, AuditEntry, Batch, Fence, MapChange, Sample, Session, Store};
use crate::sync::Locked;

/// What the poller reports.
pub enum Record {
    Answered(Box<ServerInfo>, u64),
    Unanswered(String, u64),
    Listed(Box<ServerInfo>),
    Master(MasterStatus),
    /// An admin console command.
    Audit(AuditEntry),
    /// A part of a followed match.
    Match(Box<MatchPart>),
    /// Write what is pending now, then say so (shutdown).
    Sync(tokio::sync::oneshot::Sender<()>),
}

/// How often batches are committed.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// How often the compactor looks for finished hours and expired chunks.
const COMPACT_EVERY: Duration = Duration::from_secs(60);
/// Samples held through a failing database before the oldest are dropped.
const MAX_HELD: usize = 2_000_000;
/// Audit entries held through a failing database before the oldest are dropped.
const MAX_AUDIT_HELD: usize = 100_000;
/// Records the channel holds: a whole refresh of 2,000 servers several times over.
const QUEUE: usize = 16_384;

/// The poller's side: cheap, never blocks.
pub struct Log {
    tx: mpsc::SyncSender<Record>,
    pub dropped: AtomicU64,
    /// Batches the database refused for a stale fencing token (cluster).
    pub fenced: Arc<AtomicU64>,
    /// Whether writes reach the database now, and what an outage cost.
    pub health: Arc<WriteHealth>,
}

/// The writer's state as an operator checks it (`/api/history/store`, `/metrics`). Through an
/// outage (the database restarted or refusing, the disk full) every write is held and merged
/// into the next, so nothing is lost until [`MAX_HELD`] samples wait; past that the oldest go,
/// counted here.
#[derive(Debug, Default)]
pub struct WriteHealth {
    /// Unix ms of the first failed write of the outage now; 0 while writes succeed.
    pub failing_since_ms: AtomicU64,
    /// Samples dropped because an outage held more than [`MAX_HELD`].
    pub lost_samples: AtomicU64,
    /// Why the last write failed, while writes fail.
    pub last_error: std::sync::Mutex<Option<String>>,
}

impl WriteHealth {
    fn failed(&self, error: &store::StoreError) {
        if self.failing_since_ms.load(Ordering::Relaxed) == 0 {
            self.failing_since_ms.store(unix_ms(), Ordering::Relaxed);
            tracing::warn!("history writes are failing; holding them until they succeed: {error}");
        } else {
            tracing::debug!("history write failed again: {error}");
        }
        *self.last_error.locked() = Some(error.to_string());
    }

    fn succeeded(&self) {
        let since = self.failing_since_ms.swap(0, Ordering::Relaxed);
        if since != 0 {
            *self.last_error.locked() = None;
            tracing::info!(
                "history writes succeed again after {} s; {} samples lost in all",
                unix_ms().saturating_sub(since) / 1000,
                self.lost_samples.load(Ordering::Relaxed)
            );
        }
    }

    /// Whether the last write failed.
    pub fn failing(&self) -> bool {
        self.failing_since_ms.load(Ordering::Relaxed) != 0
    }
}

impl Log {
    fn send(&self, record: Record) {
        if self.tx.try_send(record).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Has everything sent so far written, waiting at most `within`; false if it was not.
    pub async fn sync(&self, within: Duration) -> bool {
        let (ack, done) = tokio::sync::oneshot::channel();
        let tx = self.tx.clone();
        // The queue may be full for a moment; the blocking send waits off the runtime.
        let queued = tokio::task::spawn_blocking(move || tx.send(Record::Sync(ack)).is_ok());
        let synced = async { queued.await.unwrap_or(false) && done.await.is_ok() };
        tokio::time::timeout(within, synced).await.unwrap_or(false)
    }
}

impl PollLog for Log {
    fn answered(&self, server: &ServerInfo) {
        self.send(Record::Answered(
            Box::new(server.clone()),
            server.updated_ms.unwrap_or_else(unix_ms),
        ));
    }

    fn unanswered(&self, addr: &str, at_ms: u64) {
        self.send(Record::Unanswered(addr.to_owned(), at_ms));
    }

    fn listed(&self, server: &ServerInfo) {
        self.send(Record::Listed(Box::new(server.clone())));
    }

    fn master(&self, status: &MasterStatus) {
        self.send(Record::Master(status.clone()));
    }
}

/// A server's latest answer, for the totals.
struct Latest {
    at_ms: u64,
    up: bool,
    sample: Sample,
    gametype: String,
}

/// What the writer remembers between polls.
#[derive(Default)]
struct State {
    /// Per server: the names on it now, with when their stay began and how they look.
    open: HashMap<String, HashMap<String, (u64, String)>>,
    /// Per server: the map and gametype last written.
    maps: HashMap<String, (String, String)>,
    latest: HashMap<String, Latest>,
    batch: Batch,
    /// Directory records and master statuses of this batch, the latest of each.
    servers: BTreeMap<String, String>,
    masters: BTreeMap<String, String>,
    /// Sessions of this batch by (key, server, first): the latest sighting wins.
    sessions: BTreeMap<(String, String, u64), Session>,
    /// Admin console commands not yet written.
    audit: Vec<AuditEntry>,
    /// Parts of matches not yet written, merged per match.
    matches: BTreeMap<(String, String, i32), MatchPart>,
}

impl State {
    fn seed(&mut self, servers: &[ServerInfo]) {
        for s in servers {
            if !s.map.is_empty() {
                self.maps
                    .insert(s.addr.clone(), (s.map.clone(), s.gametype.clone()));
            }
        }
    }

    fn apply(&mut self, record: Record) {
        match record {
            Record::Answered(server, at_ms) => self.answered(&server, at_ms),
            Record::Unanswered(addr, at_ms) => {
                self.open.remove(&addr);
                let sample = Sample {
                    at_ms,
                    clients: 0,
                    bots: 0,
                    max_clients: self.latest.get(&addr).map_or(0, |l| l.sample.max_clients),
                    up: false,
                };
                self.batch.samples.push((addr.clone(), sample));
                if let Some(latest) = self.latest.get_mut(&addr) {
                    latest.up = false;
                    latest.at_ms = at_ms;
                }
            }
            Record::Listed(server) => self.persist(&server),
            Record::Audit(entry) => self.audit.push(entry),
            Record::Match(part) => self.add_part(*part),
            // Handled by the writer's loop before records are applied.
            Record::Sync(_) => {}
            Record::Master(status) => {
                if let Ok(json) = serde_json::to_string(&status) {
                    self.masters.insert(status.addr, json);
                }
            }
        }
    }

    fn add_part(&mut self, part: MatchPart) {
        match self.matches.entry(part.key()) {
            std::collections::btree_map::Entry::Occupied(mut held) => held.get_mut().merge(part),
            std::collections::btree_map::Entry::Vacant(new) => {
                new.insert(part);
            }
        }
    }

    fn persist(&mut self, server: &ServerInfo) {
        if let Ok(json) = serde_json::to_string(server) {
            self.servers.insert(server.addr.clone(), json);
        }
    }

    fn answered(&mut self, server: &ServerInfo, at_ms: u64) {
        let addr = &server.addr;
        let clamp = |v: u32| u16::try_from(v).unwrap_or(u16::MAX);
        let sample = Sample {
            at_ms,
            clients: clamp(server.clients),
            bots: clamp(server.bots),
            max_clients: clamp(server.max_clients),
            up: true,
        };
        self.batch.samples.push((addr.clone(), sample));
        self.latest.insert(
            addr.clone(),
            Latest {
                at_ms,
                up: true,
                sample,
                gametype: server.gametype.clone(),
            },
        );
        let map = (server.map.clone(), server.gametype.clone());
        if self.maps.get(addr) != Some(&map) {
            self.batch.map_changes.push(MapChange {
                series: addr.clone(),
                at_ms,
                map: map.0.clone(),
                gametype: map.1.clone(),
            });
            self.maps.insert(addr.clone(), map);
        }
        // Stays: a name present now continues its stay; one that left ended at its last poll.
        let before = self.open.remove(addr).unwrap_or_default();
        let mut now = HashMap::new();
        for player in server.players.iter().filter(|p| !p.bot) {
            let key = store::name_key(&player.name);
            if key.is_empty() {
                continue;
            }
            let first = before.get(&key).map_or(at_ms, |(first, _)| *first);
            self.sessions.insert(
                (key.clone(), addr.clone(), first),
                Session {
                    key: key.clone(),
                    name: player.name.clone(),
                    server: addr.clone(),
                    first_ms: first,
                    last_ms: at_ms,
                },
            );
            now.insert(key, (first, player.name.clone()));
        }
        self.open.insert(addr.clone(), now);
        self.persist(server);
    }

    /// Every server's and every gametype's humans added up, from each server's latest answer
    /// (servers not heard from in `fresh_ms` count as gone).
    fn tally(&mut self, at_ms: u64, fresh_ms: u64) {
        let mut totals: BTreeMap<String, Sample> = BTreeMap::new();
        let blank = Sample {
            at_ms,
            clients: 0,
            bots: 0,
            max_clients: 0,
            up: true,
        };
        totals.insert(store::TOTAL.to_owned(), blank);
        for latest in self.latest.values() {
            if !latest.up || at_ms.saturating_sub(latest.at_ms) > fresh_ms {
                continue;
            }
            for series in [
                store::TOTAL.to_owned(),
                store::gametype_series(&latest.gametype),
            ] {
                let total = totals.entry(series).or_insert(blank);
                total.clients = total.clients.saturating_add(latest.sample.clients);
                total.bots = total.bots.saturating_add(latest.sample.bots);
                total.max_clients = total.max_clients.saturating_add(latest.sample.max_clients);
            }
        }
        self.batch.samples.extend(totals);
    }

    fn take(&mut self) -> Batch {
        let mut batch = std::mem::take(&mut self.batch);
        batch.sessions = std::mem::take(&mut self.sessions).into_values().collect();
        batch.servers = std::mem::take(&mut self.servers).into_iter().collect();
        batch.masters = std::mem::take(&mut self.masters).into_iter().collect();
        batch
    }
}

/// How the writer keeps what it writes.
pub struct Settings {
    pub retention: Retention,
    /// Name keys given no figures (`--stats-exclude`).
    pub hidden_names: Vec<String>,
    /// How often the totals are tallied.
    pub refresh: Duration,
}

/// Starts the writer thread; it stops (after a last write) when every [`Log`] is dropped.
/// In a cluster (`fence`), only the lease holder tallies totals and compacts, and every batch
/// carries the holder's token.
pub fn start(
    mut store: Box<dyn Store>,
    seed: &[ServerInfo],
    settings: Settings,
    fence: Option<Arc<Fence>>,
    metrics: StoreMetrics,
) -> Arc<Log> {
    let Settings {
        retention,
        hidden_names,
        refresh,
    } = settings;
    let fenced = Arc::new(AtomicU64::new(0));
    let fenced_count = fenced.clone();
    let health = Arc::new(WriteHealth::default());
    let writes = health.clone();
    // A server counts in the totals while its latest answer is at most two refreshes old.
    let fresh_ms = 2 * refresh.as_millis() as u64 + 10_000;
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let mut state = State::default();
    state.seed(seed);
    let spawned = std::thread::Builder::new()
        .name("history-writer".into())
        .spawn(move || {
            let mut next_flush = Instant::now() + FLUSH_EVERY;
            let mut next_tally = Instant::now() + refresh;
            let mut next_compact = Instant::now();
            measure_size(store.as_mut(), &metrics);
            let mut expired_hour = None;
            loop {
                let wait = next_flush
                    .min(next_tally)
                    .saturating_duration_since(Instant::now());
                let mut synced = None;
                let closed = match rx.recv_timeout(wait) {
                    Ok(Record::Sync(ack)) => {
                        synced = Some(ack);
                        false
                    }
                    Ok(record) => {
                        state.apply(record);
                        false
                    }
                    Err(RecvTimeoutError::Timeout) => false,
                    Err(RecvTimeoutError::Disconnected) => true,
                };
                let now = Instant::now();
                let acting = fence.as_ref().is_none_or(|f| f.holding());
                if now >= next_tally {
                    if acting {
                        state.tally(unix_ms(), fresh_ms);
                    }
                    next_tally = now + refresh;
                }
                if now >= next_flush || closed || synced.is_some() {
                    let token = fence.as_ref().and_then(|f| f.token());
                    write_matches(store.as_mut(), &mut state, &hidden_names, &writes);
                    if flush(store.as_mut(), &mut state, token, &metrics, &writes) {
                        fenced_count.fetch_add(1, Ordering::Relaxed);
                    }
                    next_flush = now + FLUSH_EVERY;
                    if let Some(ack) = synced {
                        let _ = ack.send(());
                    }
                }
                if closed {
                    return;
                }
                if now >= next_compact && acting {
                    if let Err(e) = compact_now(store.as_mut(), &retention, &mut expired_hour) {
                        tracing::warn!("history compaction: {e}");
                    }
                    next_compact = Instant::now() + COMPACT_EVERY;
                    measure_size(store.as_mut(), &metrics);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the history writer: {e}");
    }
    Arc::new(Log {
        tx,
        dropped: AtomicU64::new(0),
        fenced,
        health,
    })
}

/// The database's size for `GET /metrics`, read where the writer already holds a connection.
fn measure_size(store: &mut dyn Store, metrics: &StoreMetrics) {
    if let Ok(size) = store.size_bytes() {
        metrics.size.set(i64::try_from(size).unwrap_or(i64::MAX));
    }
}

/// Packs every finished hour, and drops what is past its retention once an hour (expiry
/// scans whole tables; `expired_hour` remembers the last one).
fn compact_now(
    store: &mut dyn Store,
    retention: &Retention,
    expired_hour: &mut Option<u64>,
) -> crate::store::Result<()> {
    let now_ms = unix_ms();
    compact::pack_finished(store, now_ms)?;
    let hour = now_ms / crate::store::HOUR_MS;
    if *expired_hour != Some(hour) {
        *expired_hour = Some(hour);
        compact::expire(store, now_ms, retention)?;
    }
    Ok(())
}

/// Writes the parts of matches pending, in one transaction apart from the poller's batch: a
/// match is written by the relay whose hub follows it (one per match in a cluster), not by
/// the poller's lease holder. A failed write is kept whole for the next.
fn write_matches(
    store: &mut dyn Store,
    state: &mut State,
    hidden: &[String],
    health: &WriteHealth,
) {
    if state.matches.is_empty() {
        return;
    }
    let parts: Vec<MatchPart> = std::mem::take(&mut state.matches).into_values().collect();
    let hidden = |key: &str| hidden.iter().any(|h| h == key);
    let mut fenced = 0;
    let written = store.transact(&mut |db| {
        fenced = store::matches::write_parts(db, &parts, &hidden)?;
        Ok(())
    });
    if fenced > 0 {
        tracing::warn!(
            parts = fenced,
            "match parts refused: another relay follows the match now (a greater lease token)"
        );
    }
    if let Err(e) = written {
        health.failed(&e);
        for part in parts {
            let newer = state.matches.remove(&part.key());
            state.add_part(part);
            if let Some(newer) = newer {
                state.add_part(newer);
            }
        }
    }
}

/// Writes what is pending; true when the database refused it for a stale token (the batch is
/// then dropped: a newer holder writes these polls' successors).
fn flush(
    store: &mut dyn Store,
    state: &mut State,
    fence: Option<u64>,
    metrics: &StoreMetrics,
    health: &WriteHealth,
) -> bool {
    if !state.audit.is_empty() {
        match store.put_audit(&state.audit) {
            Ok(()) => state.audit.clear(),
            Err(e) => {
                health.failed(&e);
                let excess = state.audit.len().saturating_sub(MAX_AUDIT_HELD);
                state.audit.drain(..excess);
            }
        }
    }
    let mut batch = state.take();
    if batch.is_empty() {
        return false;
    }
    batch.fence = fence;
    let began = Instant::now();
    let result = store.write(&batch);
    metrics.write.observe(began.elapsed().as_secs_f64());
    if let Err(e @ crate::store::StoreError::Fenced { .. }) = &result {
        tracing::warn!("history {e}; this relay no longer holds the poller's lease");
        return true;
    }
    match &result {
        Ok(()) => health.succeeded(),
        Err(e) => health.failed(e),
    }
    if result.is_err() {
        // Kept for the next flush (merged ahead of what came since), so a passing fault
        // loses nothing.
        let newer = std::mem::replace(&mut state.batch, batch);
        let held = &mut state.batch;
        held.samples.extend(newer.samples);
        held.map_changes.extend(newer.map_changes);
        // Bounded: past a day of a big fleet's samples, the oldest go.
        let excess = held.samples.len().saturating_sub(MAX_HELD);
        held.samples.drain(..excess);
        health
            .lost_samples
            .fetch_add(excess as u64, Ordering::Relaxed);
        for (addr, json) in std::mem::take(&mut held.servers) {
            state.servers.entry(addr).or_insert(json);
        }
        for (addr, json) in std::mem::take(&mut held.masters) {
            state.masters.entry(addr).or_insert(json);
        }
        for s in std::mem::take(&mut held.sessions) {
            state
                .sessions
                .entry((s.key.clone(), s.server.clone(), s.first_ms))
                .or_insert(s);
        }
    }
    false
}

impl crate::seams::MatchLog for Log {
    /// Sent to the writer with the poller's records: it never blocks the hub.
    fn part(&self, part: MatchPart) {
        self.send(Record::Match(Box::new(part)));
    }
}

impl crate::seams::AuditLog for Log {
    /// Records an admin console command (written with the next batch, fence or not).
    fn audit(&self, entry: AuditEntry) {
        self.send(Record::Audit(entry));
    }
}
