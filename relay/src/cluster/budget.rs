//! Budgets the whole cluster spends together, so a game server sees several relays as one
//! client: a GCRA bucket per target in the JetStream key-value bucket. The value is the
//! bucket's theoretical arrival time (Unix milliseconds); a relay takes a cell with a
//! compare-and-set on the key's revision, retrying when another relay took one meanwhile.
//! Meant for low rates (connectionless queries through the bridge, one a second per target;
//! rcon's 500 ms spacing), where a round trip to NATS per cell costs nothing that matters.

use std::sync::Arc;
use std::time::Duration;

use super::Cluster;
use crate::net::unix_ms;

/// What taking a cell came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    Yes,
    /// Spent; the next cell frees after this long.
    Spent(Duration),
    /// NATS did not answer: the caller falls back to its own, local budget.
    Unavailable,
}

/// One kind of budget: `burst` cells, one more every `period`.
pub struct SharedBudget {
    cluster: Arc<Cluster>,
    /// The key prefix, e.g. `bridge-target`.
    kind: &'static str,
    period_ms: u64,
    burst: u32,
}

/// Compare-and-set rounds before a very contended key is reported spent.
const ROUNDS: usize = 8;
/// How long one round may wait for NATS.
const WAIT: Duration = Duration::from_millis(500);

impl SharedBudget {
    pub fn new(cluster: Arc<Cluster>, kind: &'static str, period: Duration, burst: u32) -> Self {
        Self {
            cluster,
            kind,
            period_ms: period.as_millis().max(1) as u64,
            burst: burst.max(1),
        }
    }

    /// Takes one cell of `key`'s bucket (a token such as [`super::token`] gives).
    pub async fn take(&self, key: &str) -> Taken {
        match tokio::time::timeout(WAIT * ROUNDS as u32, self.try_take(key)).await {
            Ok(Some(taken)) => taken,
            _ => Taken::Unavailable,
        }
    }

    async fn try_take(&self, key: &str) -> Option<Taken> {
        let store = self.cluster.budgets().await.ok()?;
        let key = format!("{}.{key}", self.kind);
        let tolerance = self.period_ms * u64::from(self.burst - 1);
        for _ in 0..ROUNDS {
            let entry = store.entry(key.clone()).await.ok()?;
            let now = unix_ms();
            let (stored, revision) = match &entry {
                Some(e) if e.operation == async_nats::jetstream::kv::Operation::Put => (
                    std::str::from_utf8(&e.value)
                        .ok()
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0),
                    Some(e.revision),
                ),
                Some(e) => (0, Some(e.revision)),
                None => (0, None),
            };
            let tat = stored.max(now);
            if tat - now > tolerance {
                return Some(Taken::Spent(Duration::from_millis(tat - now - tolerance)));
            }
            let value = bytes::Bytes::from((tat + self.period_ms).to_string());
            let written = match revision {
                Some(revision) => store.update(&key, value, revision).await.is_ok(),
                None => store.create(&key, value).await.is_ok(),
            };
            if written {
                return Some(Taken::Yes);
            }
        }
        // Every round lost to another relay: the bucket is busy, so call it spent.
        Some(Taken::Spent(Duration::from_millis(self.period_ms)))
    }
}
