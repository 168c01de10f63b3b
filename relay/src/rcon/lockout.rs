//! Lockouts after wrong passwords, so the relay cannot be used to guess one: a key (a client
//! and a game server, or a client across every server) that fails `failures` times in a row
//! is refused for `first`, then twice as long after each further run of failures. A success
//! clears the key; a key quiet for `forgive` is forgotten. The relay refuses a locked key
//! before any datagram leaves, so a guesser costs the game server nothing, and admins who come
//! from other addresses are never locked out by somebody else's failures.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::SocketAddrV4;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::cluster::records::SharedRecords;
use crate::edge::limits::ClientKey;
use crate::sync::Locked;

/// When a key is locked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Failures in a row that lock the key.
    pub failures: u32,
    /// The first lockout; each later one doubles.
    pub first: Duration,
    /// The longest lockout.
    pub longest: Duration,
    /// A key quiet this long (no failure, no lockout running) starts again from nothing.
    pub forgive: Duration,
}

impl Policy {
    /// A client at one game server: 5 failures, then 15 minutes, doubling.
    pub const PER_TARGET: Self = Self {
        failures: 5,
        first: Duration::from_secs(15 * 60),
        longest: Duration::from_secs(7 * 24 * 3600),
        forgive: Duration::from_secs(24 * 3600),
    };
    /// A client across every server: 20 failures wherever, then 15 minutes, doubling. Stops
    /// one address from trying five passwords at each of a thousand servers.
    pub const PER_CLIENT: Self = Self {
        failures: 20,
        ..Self::PER_TARGET
    };
}

/// One key's record, in wall-clock milliseconds so that relays can share it through the
/// cluster's engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    failures: u32,
    /// Lockouts so far: the next lasts `first * 2^strikes`.
    strikes: u32,
    locked_until_ms: u64,
    last_failure_ms: u64,
}

impl Entry {
    /// Since when the key has done nothing: its last failure, or the end of its lockout.
    fn quiet_since_ms(&self) -> u64 {
        self.locked_until_ms.max(self.last_failure_ms)
    }

    /// `Err(retry_after)` while locked at `now_ms`.
    pub fn check(&self, now_ms: u64) -> Result<(), Duration> {
        match self.locked_until_ms.checked_sub(now_ms) {
            Some(left) if left > 0 => Err(Duration::from_millis(left)),
            _ => Ok(()),
        }
    }

    /// Counts a wrong password at `now_ms`; returns the lockout it starts, if it starts one.
    pub fn failed(&mut self, policy: &Policy, now_ms: u64) -> Option<Duration> {
        let forgive = policy.forgive.as_millis() as u64;
        if self.failures + self.strikes > 0
            && now_ms.saturating_sub(self.quiet_since_ms()) > forgive
        {
            *self = Self::default();
        }
        self.last_failure_ms = now_ms;
        self.failures += 1;
        if self.failures < policy.failures {
            return None;
        }
        let lockout = policy
            .first
            .saturating_mul(1u32 << self.strikes.min(20))
            .min(policy.longest);
        self.failures = 0;
        self.strikes += 1;
        self.locked_until_ms = now_ms + lockout.as_millis() as u64;
        Some(lockout)
    }

    /// Whether nothing is left to remember at `now_ms`: no lockout running and quiet for
    /// `forgive`.
    fn forgotten(&self, policy: &Policy, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.quiet_since_ms()) > policy.forgive.as_millis() as u64
    }
}

/// Lockouts by key, kept by this relay.
#[derive(Debug)]
pub struct Lockouts<K> {
    policy: Policy,
    entries: HashMap<K, Entry>,
}

/// Keys kept at most; past it the oldest quiet ones go first, never a locked one.
const MAX_KEYS: usize = 100_000;

impl<K: Hash + Eq + Clone> Lockouts<K> {
    pub fn new(policy: Policy) -> Self {
        Self {
            policy,
            entries: HashMap::new(),
        }
    }

    /// `Err(retry_after)` while `key` is locked.
    pub fn check(&self, key: &K, now_ms: u64) -> Result<(), Duration> {
        self.entries.get(key).map_or(Ok(()), |e| e.check(now_ms))
    }

    /// Counts a wrong password; returns the lockout it starts, if it starts one.
    pub fn failed(&mut self, key: &K, now_ms: u64) -> Option<Duration> {
        if self.entries.len() >= MAX_KEYS {
            self.forget_quiet(now_ms);
        }
        let policy = self.policy;
        self.entries
            .entry(key.clone())
            .or_default()
            .failed(&policy, now_ms)
    }

    /// A right password: the key starts again from nothing.
    pub fn succeeded(&mut self, key: &K) {
        self.entries.remove(key);
    }

    /// Drops keys quiet for `forgive` since their last failure or lockout.
    pub fn forget_quiet(&mut self, now_ms: u64) {
        let policy = self.policy;
        self.entries.retain(|_, e| !e.forgotten(&policy, now_ms));
        if self.entries.len() >= MAX_KEYS {
            // Still full of recent failures: keep the locked ones and the newest.
            let mut quiet: Vec<(K, u64)> = self
                .entries
                .iter()
                .filter(|(_, e)| e.check(now_ms).is_ok())
                .map(|(k, e)| (k.clone(), e.last_failure_ms))
                .collect();
            quiet.sort_by_key(|(_, at)| *at);
            for (key, _) in quiet.into_iter().take(MAX_KEYS / 10) {
                self.entries.remove(&key);
            }
        }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Where wrong passwords are counted: by this relay, and in a cluster by every relay together
/// (the cluster's record decides; this relay's own stands in while NATS does not answer), so
/// a client cannot try five passwords at each relay of a site.
pub struct Guard {
    per_target: Mutex<Lockouts<(ClientKey, SocketAddrV4)>>,
    per_client: Mutex<Lockouts<ClientKey>>,
    shared: Option<SharedRecords>,
}

impl Guard {
    pub fn new(cluster: Option<Arc<crate::cluster::Cluster>>) -> Self {
        Self {
            per_target: Mutex::new(Lockouts::new(Policy::PER_TARGET)),
            per_client: Mutex::new(Lockouts::new(Policy::PER_CLIENT)),
            shared: cluster.map(|c| SharedRecords::new(c, "rcon-lockout")),
        }
    }

    /// The shared records' names: the client at the server, and the client everywhere.
    fn names(client: ClientKey, target: SocketAddrV4) -> [(String, Policy); 2] {
        [
            (format!("{client} at {target}"), Policy::PER_TARGET),
            (format!("{client}"), Policy::PER_CLIENT),
        ]
    }

    /// `Err(retry_after)` while `client` is locked out of `target`, the longest lock counting.
    pub async fn check(
        &self,
        client: ClientKey,
        target: SocketAddrV4,
        now_ms: u64,
    ) -> Result<(), Duration> {
        let mut locks = vec![
            self.per_target.locked().check(&(client, target), now_ms),
            self.per_client.locked().check(&client, now_ms),
        ];
        if let Some(shared) = &self.shared {
            for (name, _) in Self::names(client, target) {
                if let Some(entry) = shared.get::<Entry>(&name).await {
                    locks.push(entry.check(now_ms));
                }
            }
        }
        locks
            .into_iter()
            .filter_map(Result::err)
            .max()
            .map_or(Ok(()), Err)
    }

    /// Counts a wrong password; true when it started a lockout.
    pub async fn failed(&self, client: ClientKey, target: SocketAddrV4, now_ms: u64) -> bool {
        let mut started = self
            .per_target
            .locked()
            .failed(&(client, target), now_ms)
            .is_some();
        started |= self.per_client.locked().failed(&client, now_ms).is_some();
        if let Some(shared) = &self.shared {
            for (name, policy) in Self::names(client, target) {
                let lockout = shared
                    .update(&name, |entry: &mut Entry| entry.failed(&policy, now_ms))
                    .await;
                started |= lockout.flatten().is_some();
            }
        }
        started
    }

    /// A right password: the client starts again from nothing at this server.
    pub async fn succeeded(&self, client: ClientKey, target: SocketAddrV4) {
        self.per_target.locked().succeeded(&(client, target));
        self.per_client.locked().succeeded(&client);
        if let Some(shared) = &self.shared {
            for (name, _) in Self::names(client, target) {
                // Read first: most commands have nothing to clear, and then write nothing.
                if shared
                    .get::<Entry>(&name)
                    .await
                    .is_some_and(|e| e != Entry::default())
                {
                    shared
                        .update(&name, |entry: &mut Entry| *entry = Entry::default())
                        .await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);
    /// Milliseconds in `d`.
    fn ms(d: Duration) -> u64 {
        d.as_millis() as u64
    }

    #[test]
    fn five_failures_lock_for_15_minutes_then_30_then_60() {
        let mut locks = Lockouts::new(Policy::PER_TARGET);
        let t0 = 1_000_000_000u64;
        let key = "client at server";
        for i in 0..4 {
            assert_eq!(locks.failed(&key, t0 + ms(MIN * i)), None);
            assert_eq!(locks.check(&key, t0 + ms(MIN * i)), Ok(()));
        }
        let at = t0 + ms(MIN * 4);
        assert_eq!(locks.failed(&key, at), Some(15 * MIN));
        assert_eq!(locks.check(&key, at + ms(MIN)), Err(14 * MIN));
        // Over: five more failures lock twice as long, then four times.
        let mut at = at + ms(15 * MIN);
        assert_eq!(locks.check(&key, at), Ok(()));
        for expected in [30 * MIN, 60 * MIN] {
            let mut started = None;
            for _ in 0..5 {
                started = locks.failed(&key, at);
            }
            assert_eq!(started, Some(expected));
            assert!(locks.check(&key, at + ms(expected - MIN)).is_err());
            at += ms(expected);
        }
    }

    #[test]
    fn a_lock_on_one_key_leaves_the_others_and_a_success_clears_it() {
        let mut locks = Lockouts::new(Policy::PER_TARGET);
        let now = 1_000_000_000u64;
        for _ in 0..5 {
            locks.failed(&"guesser", now);
        }
        assert!(locks.check(&"guesser", now).is_err());
        assert_eq!(locks.check(&"admin", now), Ok(()));
        for _ in 0..4 {
            locks.failed(&"admin", now);
        }
        locks.succeeded(&"admin");
        assert_eq!(locks.failed(&"admin", now), None);
        assert_eq!(locks.check(&"admin", now), Ok(()));
    }

    #[test]
    fn a_quiet_day_forgives_and_the_longest_lock_is_capped() {
        let policy = Policy {
            failures: 1,
            ..Policy::PER_TARGET
        };
        let mut locks = Lockouts::new(policy);
        let mut now = 1_000_000_000u64;
        let mut last = Duration::ZERO;
        for _ in 0..12 {
            last = locks.failed(&1, now).unwrap();
            now += ms(last);
        }
        assert_eq!(last, policy.longest);
        now += ms(policy.forgive + MIN);
        assert_eq!(locks.failed(&1, now), Some(policy.first));
        locks.forget_quiet(now + ms(policy.forgive + policy.first + MIN));
        assert!(locks.is_empty());
    }
}
