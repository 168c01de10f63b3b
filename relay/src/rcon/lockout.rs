//! Lockouts after wrong passwords, so the relay cannot be used to guess one: a key (a client
//! and a game server, or a client across every server) that fails `failures` times in a row
//! is refused for `first`, then twice as long after each further run of failures. A success
//! clears the key; a key quiet for `forgive` is forgotten. The relay refuses a locked key
//! before any datagram leaves, so a guesser costs the game server nothing, and admins who come
//! from other addresses are never locked out by somebody else's failures.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

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

#[derive(Clone, Copy, Debug)]
struct Entry {
    failures: u32,
    /// Lockouts so far: the next lasts `first * 2^strikes`.
    strikes: u32,
    locked_until: Option<Instant>,
    last_failure: Instant,
}

impl Entry {
    /// Since when the key has done nothing: its last failure, or the end of its lockout.
    fn quiet_since(&self) -> Instant {
        self.locked_until
            .map_or(self.last_failure, |until| until.max(self.last_failure))
    }
}

/// Lockouts by key.
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
    pub fn check(&self, key: &K, now: Instant) -> Result<(), Duration> {
        match self.entries.get(key).and_then(|e| e.locked_until) {
            Some(until) if until > now => Err(until - now),
            _ => Ok(()),
        }
    }

    /// Counts a wrong password; returns the lockout it starts, if it starts one.
    pub fn failed(&mut self, key: &K, now: Instant) -> Option<Duration> {
        if self.entries.len() >= MAX_KEYS {
            self.forget_quiet(now);
        }
        let policy = self.policy;
        let entry = self.entries.entry(key.clone()).or_insert(Entry {
            failures: 0,
            strikes: 0,
            locked_until: None,
            last_failure: now,
        });
        if now.saturating_duration_since(entry.quiet_since()) > policy.forgive {
            entry.strikes = 0;
            entry.failures = 0;
        }
        entry.last_failure = now;
        entry.failures += 1;
        if entry.failures < policy.failures {
            return None;
        }
        let lockout = policy
            .first
            .saturating_mul(1u32 << entry.strikes.min(20))
            .min(policy.longest);
        entry.failures = 0;
        entry.strikes += 1;
        entry.locked_until = Some(now + lockout);
        Some(lockout)
    }

    /// A right password: the key starts again from nothing.
    pub fn succeeded(&mut self, key: &K) {
        self.entries.remove(key);
    }

    /// Drops keys quiet for `forgive` since their last failure or lockout.
    pub fn forget_quiet(&mut self, now: Instant) {
        let forgive = self.policy.forgive;
        self.entries
            .retain(|_, e| now.saturating_duration_since(e.quiet_since()) <= forgive);
        if self.entries.len() >= MAX_KEYS {
            // Still full of recent failures: keep the locked ones and the newest.
            let mut quiet: Vec<(K, Instant)> = self
                .entries
                .iter()
                .filter(|(_, e)| e.locked_until.is_none_or(|u| u <= now))
                .map(|(k, e)| (k.clone(), e.last_failure))
                .collect();
            quiet.sort_by_key(|(_, at)| *at);
            for (key, _) in quiet.into_iter().take(MAX_KEYS / 10) {
                self.entries.remove(&key);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    #[test]
    fn five_failures_lock_for_15_minutes_then_30_then_60() {
        let mut locks = Lockouts::new(Policy::PER_TARGET);
        let t0 = Instant::now();
        let key = "client at server";
        for i in 0..4 {
            assert_eq!(locks.failed(&key, t0 + MIN * i), None);
            assert_eq!(locks.check(&key, t0 + MIN * i), Ok(()));
        }
        let at = t0 + MIN * 4;
        assert_eq!(locks.failed(&key, at), Some(15 * MIN));
        assert_eq!(locks.check(&key, at + MIN), Err(14 * MIN));
        // Over: five more failures lock twice as long, then four times.
        let mut at = at + 15 * MIN;
        assert_eq!(locks.check(&key, at), Ok(()));
        for expected in [30 * MIN, 60 * MIN] {
            let mut started = None;
            for _ in 0..5 {
                started = locks.failed(&key, at);
            }
            assert_eq!(started, Some(expected));
            assert!(locks.check(&key, at + expected - MIN).is_err());
            at += expected;
        }
    }

    #[test]
    fn a_lock_on_one_key_leaves_the_others_and_a_success_clears_it() {
        let mut locks = Lockouts::new(Policy::PER_TARGET);
        let now = Instant::now();
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
        let mut now = Instant::now();
        let mut last = Duration::ZERO;
        for _ in 0..12 {
            last = locks.failed(&1, now).unwrap();
            now += last;
        }
        assert_eq!(last, policy.longest);
        now += policy.forgive + MIN;
        assert_eq!(locks.failed(&1, now), Some(policy.first));
        locks.forget_quiet(now + policy.forgive + policy.first + MIN);
        assert!(locks.is_empty());
    }
}
