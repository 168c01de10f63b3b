//! Leases in the JetStream key-value bucket. `create` succeeds only for an absent key, so one
//! relay wins; the winner renews with `update(key, revision)` every quarter of the TTL, and the
//! bucket's `max_age` removes the key of a holder that stopped renewing. Each renewal's
//! revision makes the fencing token ([`Cluster::fencing_token`]): the bucket's revisions only
//! grow, so a later holder's token is always greater than any token a former holder had.
//!
//! A holder whose renewal has not come back a quarter of the TTL before the key could expire
//! (counted from when it sent the last one that did, which is before NATS stamped it) stops
//! acting as holder then, even while that renewal is still on its way, so two relays never
//! both believe they hold it (bounded clock drift assumed; the database's fence check covers
//! the rest). The TTL is what a dead holder costs (its key expires, then another relay's next
//! campaign wins); a holder renews four times in it, paced from each renewal's sending, so one
//! that is only slow keeps its lease while three renewals in a row fail or a renewal's round
//! trip takes less than three quarters of the TTL.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv;
use tokio::sync::watch;
use tokio::time::Instant;

use super::Cluster;
use crate::AbortOnDrop;

/// How often a relay that does not hold a lease tries to take it: part of what a holder's death
/// or release costs its viewers (a `create` that fails is one small request to NATS).
pub const CAMPAIGN_EVERY: Duration = Duration::from_millis(250);

/// Until when this relay may act as a lease's holder: the last renewal's sending plus three
/// quarters of the TTL, or not at all. Read against the clock, so a relay that was paused (a
/// stop-the-world, a stalled VM) finds it over the moment it runs again, before the lease's
/// own task has had its turn to step down: whatever acts on the holder's behalf outside the
/// store (a game session whose slot a successor takes over as the same client) asks it before
/// each act.
#[derive(Clone, Debug, Default)]
pub struct Trust(Arc<std::sync::Mutex<Option<std::time::Instant>>>);

impl Trust {
    /// Whether this relay holds the lease at this instant.
    pub fn holds_now(&self) -> bool {
        let until = *self.0.lock().unwrap_or_else(|e| e.into_inner());
        until.is_some_and(|until| std::time::Instant::now() < until)
    }

    fn set(&self, until: Option<Instant>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = until.map(Instant::into_std);
    }
}

/// A lease this relay campaigns for while the handle lives; released at once when dropped.
pub struct Lease {
    held: watch::Receiver<Option<u64>>,
    trust: Trust,
    _task: AbortOnDrop,
    release: Option<(Arc<Cluster>, String)>,
}

impl Lease {
    /// Starts campaigning for `key`.
    pub fn campaign(cluster: Arc<Cluster>, key: String) -> Self {
        let (tx, held) = watch::channel(None);
        let trust = Trust::default();
        let task = tokio::spawn(run(cluster.clone(), key.clone(), tx, trust.clone()));
        Self {
            held,
            trust,
            _task: AbortOnDrop(task),
            release: Some((cluster, key)),
        }
    }

    /// The lease's revision while this relay holds it.
    pub fn held(&self) -> Option<u64> {
        *self.held.borrow()
    }

    /// Until when this relay holds the lease, by the clock.
    pub fn trust(&self) -> Trust {
        self.trust.clone()
    }

    /// Changes whenever the lease is won, renewed or lost.
    pub fn watch(&self) -> watch::Receiver<Option<u64>> {
        self.held.clone()
    }
}

impl Drop for Lease {
    /// A lease let go on purpose is deleted at once, so another relay does not wait out the
    /// TTL (only if it is still ours: the delete names our revision).
    fn drop(&mut self) {
        self.trust.set(None);
        let (Some(revision), Some((cluster, key))) = (self.held(), self.release.take()) else {
            return;
        };
        cluster.note_lease(&key, None);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Ok(leases) = cluster.leases().await {
                    let _ = leases.delete_expect_revision(&key, Some(revision)).await;
                }
            });
        }
    }
}

async fn run(cluster: Arc<Cluster>, key: String, held: watch::Sender<Option<u64>>, trust: Trust) {
    let ttl = cluster.config.lease_ttl;
    let renew_every = ttl / 4;
    // Renewed no later than this, or the holder steps down before the key can expire.
    let trust_for = ttl - renew_every;
    let mut bucket = None;
    let mut renewed_at = Instant::now();
    let mut first_round = true;
    let value = bytes::Bytes::from(cluster.relay.clone());
    loop {
        let store = match &bucket {
            Some(store) => store,
            None => match tokio::time::timeout(ttl, cluster.leases()).await {
                Ok(Ok(store)) => bucket.insert(store),
                _ => {
                    step_down(
                        &cluster,
                        &held,
                        &trust,
                        &key,
                        "the lease bucket is unreachable",
                    );
                    tokio::time::sleep(CAMPAIGN_EVERY).await;
                    continue;
                }
            },
        };
        let current = *held.borrow();
        let sent_at = Instant::now();
        let attempt = match current {
            // A renewal still unanswered when the trust runs out is a failed one.
            Some(revision) => tokio::time::timeout_at(
                renewed_at + trust_for,
                store.update(&key, value.clone(), revision),
            )
            .await
            .map_err(|_| false)
            .and_then(|r| r.map_err(|e| e.kind() == kv::UpdateErrorKind::WrongLastRevision)),
            // `Err(true)`: someone else holds the key; `Err(false)`: NATS did not answer.
            None => store
                .create(&key, value.clone())
                .await
                .map_err(|e| e.kind() == kv::CreateErrorKind::AlreadyExists),
        };
        let mut wait = CAMPAIGN_EVERY;
        if matches!(attempt, Err(false)) {
            // NATS failed us (or lost the bucket): look it up again next round.
            cluster.forget_buckets();
            bucket = None;
        }
        match (current, attempt) {
            (_, Ok(revision)) => {
                if current.is_none() {
                    tracing::info!(%key, revision, relay = %cluster.relay, "lease won");
                }
                renewed_at = sent_at;
                trust.set(Some(sent_at + trust_for));
                cluster.note_lease(&key, Some(revision));
                held.send_replace(Some(revision));
                // Paced from when it was sent, not from its answer: on a slow link a renewal
                // follows the last at once, so a holder keeps its lease while a round trip
                // takes up to `trust_for`.
                wait = renew_every.saturating_sub(sent_at.elapsed());
            }
            // Someone else holds it now: our revision is no longer the key's.
            (Some(_), Err(true)) => {
                step_down(&cluster, &held, &trust, &key, "taken by another relay");
            }
            (Some(_), Err(false)) if renewed_at.elapsed() >= trust_for => {
                step_down(&cluster, &held, &trust, &key, "not renewed in time");
            }
            // Another relay holds it; or a failed round, retried soon (a renewal while the
            // trust lasts).
            (None, Err(_)) | (Some(_), Err(false)) => {}
        }
        if std::mem::take(&mut first_round) && held.borrow().is_none() {
            // Lost the first round: said at once, so whoever waits for the outcome (a hub
            // deciding to mirror) need not wait for a change that will not come.
            held.send_replace(None);
        }
        tokio::time::sleep(wait).await;
    }
}

fn step_down(
    cluster: &Cluster,
    held: &watch::Sender<Option<u64>>,
    trust: &Trust,
    key: &str,
    why: &str,
) {
    trust.set(None);
    cluster.note_lease(key, None);
    if held.borrow().is_some() {
        tracing::warn!(%key, "lease lost: {why}");
        held.send_replace(None);
    }
}
