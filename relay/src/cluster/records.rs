//! Small records every relay reads and updates together: JSON values in a key-value bucket,
//! changed by compare-and-set on the key's revision (retried when another relay changed it
//! meanwhile). The admin console keeps its lockouts here, so a client that fails at one relay
//! is locked out at every relay. Meant for rare writes (a wrong password), where a round trip
//! to NATS per change costs nothing that matters.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv::Operation;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::Cluster;

/// Compare-and-set rounds before giving up on a very contended key.
const ROUNDS: usize = 8;
/// How long one call may wait for NATS in all.
const WAIT: Duration = Duration::from_secs(2);

/// One kind of record, under its own key prefix.
pub struct SharedRecords {
    cluster: Arc<Cluster>,
    /// The key prefix, e.g. `rcon-lockout`.
    kind: &'static str,
}

impl SharedRecords {
    pub fn new(cluster: Arc<Cluster>, kind: &'static str) -> Self {
        Self { cluster, kind }
    }

    /// The key for `name`: hex, since the bucket's keys take few characters and names (an
    /// IPv6 prefix, an address) hold others.
    fn key(&self, name: &str) -> String {
        let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{}.{hex}", self.kind)
    }

    /// The record under `name` (the default when there is none); `None` when NATS did not
    /// answer, so the caller falls back to what it keeps itself.
    pub async fn get<T: DeserializeOwned + Default>(&self, name: &str) -> Option<T> {
        let store = self.cluster.records().await.ok()?;
        let entry = tokio::time::timeout(WAIT, store.entry(self.key(name)))
            .await
            .ok()?
            .ok()?;
        Some(decode(entry.as_ref()).0)
    }

    /// Changes the record under `name` with `change` (from the default when there is none)
    /// and returns what `change` returned; `None` when NATS did not take the change.
    pub async fn update<T, R>(&self, name: &str, mut change: impl FnMut(&mut T) -> R) -> Option<R>
    where
        T: Serialize + DeserializeOwned + Default,
    {
        let rounds = async {
            let store = self.cluster.records().await.ok()?;
            let key = self.key(name);
            for _ in 0..ROUNDS {
                let entry = store.entry(key.clone()).await.ok()?;
                let (mut record, revision) = decode::<T>(entry.as_ref());
                let returned = change(&mut record);
                let value = bytes::Bytes::from(serde_json::to_vec(&record).ok()?);
                let written = match revision {
                    Some(revision) => store.update(&key, value, revision).await.is_ok(),
                    None => store.create(&key, value).await.is_ok(),
                };
                if written {
                    return Some(returned);
                }
            }
            None
        };
        tokio::time::timeout(WAIT, rounds).await.ok().flatten()
    }
}

/// A stored record and its revision; the default (and the revision to replace) for a deleted
/// or unreadable one.
fn decode<T: DeserializeOwned + Default>(
    entry: Option<&async_nats::jetstream::kv::Entry>,
) -> (T, Option<u64>) {
    match entry {
        Some(e) if e.operation == Operation::Put => (
            serde_json::from_slice(&e.value).unwrap_or_default(),
            Some(e.revision),
        ),
        Some(e) => (T::default(), Some(e.revision)),
        None => (T::default(), None),
    }
}
