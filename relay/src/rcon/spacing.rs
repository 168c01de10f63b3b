//! Each game server's queue: commands leave one at a time, in arrival order, at least
//! [`SPACING`] apart. In a cluster every relay also takes a cell of the target's shared budget
//! (one per [`SPACING`]) before sending, so admins on different relays share one queue as the
//! server sees it.

use std::collections::HashMap;
use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::OwnedMutexGuard;
use tokio::time::Instant;

use crate::cluster::budget::{SharedBudget, Taken};
use crate::sync::Locked;

/// The stock server's 500 ms between accepted attempts, and 50 ms for the way there: two
/// datagrams sent 500 ms apart can arrive closer, and the second would be dropped.
pub const SPACING: Duration = Duration::from_millis(550);
/// Commands waiting for one server before more are refused.
pub const MAX_WAITING: usize = 16;

/// Too many commands are waiting for one server.
#[derive(Debug, thiserror::Error)]
#[error("{MAX_WAITING} commands are already waiting for this server; try again shortly")]
pub struct Busy;

#[derive(Default)]
struct Queue {
    /// When this relay last sent to the server; the lock's waiters are the queue (tokio's
    /// mutex is fair, first come first served).
    last_sent: Arc<tokio::sync::Mutex<Option<Instant>>>,
    waiting: AtomicUsize,
}

impl Queue {
    fn in_use(self: &Arc<Self>) -> bool {
        Arc::strong_count(self) > 1
            || Arc::strong_count(&self.last_sent) > 1
            || self.waiting.load(Ordering::Relaxed) > 0
    }

    fn sent_within_spacing(&self) -> bool {
        self.last_sent
            .try_lock()
            .map_or(true, |last| last.is_some_and(|t| t.elapsed() < SPACING))
    }
}

/// Every server's queue.
pub struct Spacing {
    queues: Mutex<HashMap<SocketAddrV4, Arc<Queue>>>,
    shared: Option<SharedBudget>,
}

/// A place at the head of a server's queue: the holder sends now, then drops it.
pub struct Turn {
    _head: OwnedMutexGuard<Option<Instant>>,
}

impl Spacing {
    pub fn new(cluster: Option<Arc<crate::cluster::Cluster>>) -> Self {
        Self {
            queues: Mutex::default(),
            shared: cluster.map(|c| SharedBudget::new(c, "rcon-target", SPACING, 1)),
        }
    }

    /// Waits for `target`'s turn: after every command queued before, and [`SPACING`] after the
    /// last one any relay sent.
    pub async fn turn(&self, target: SocketAddrV4) -> Result<Turn, Busy> {
        let queue = {
            let mut queues = self.queues.locked();
            // A queue goes once nobody holds or waits on it and its last command is a spacing
            // old: a new one then has nothing to wait for.
            queues.retain(|_, q| q.in_use() || q.sent_within_spacing());
            queues.entry(target).or_default().clone()
        };
        if queue.waiting.fetch_add(1, Ordering::AcqRel) >= MAX_WAITING {
            queue.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Busy);
        }
        let mut head = queue.last_sent.clone().lock_owned().await;
        queue.waiting.fetch_sub(1, Ordering::AcqRel);
        if let Some(last) = *head {
            tokio::time::sleep_until(last + SPACING).await;
        }
        if let Some(shared) = &self.shared {
            let key = crate::cluster::token(&target);
            loop {
                match shared.take(&key).await {
                    Taken::Yes => break,
                    Taken::Spent(wait) => tokio::time::sleep(wait).await,
                    Taken::Unavailable => {
                        tracing::warn!(%target, "cluster budget unavailable: rcon spaced by this relay alone");
                        break;
                    }
                }
            }
        }
        *head = Some(Instant::now());
        Ok(Turn { _head: head })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn commands_to_one_server_leave_spaced_in_order_and_others_do_not_wait() {
        let spacing = Arc::new(Spacing::new(None));
        let a: SocketAddrV4 = "10.0.0.1:28960".parse().unwrap();
        let b: SocketAddrV4 = "10.0.0.2:28960".parse().unwrap();
        let start = Instant::now();
        let mut tasks = Vec::new();
        for i in 0..4u32 {
            let spacing = spacing.clone();
            tasks.push(tokio::spawn(async move {
                let _turn = spacing.turn(a).await.unwrap();
                (i, start.elapsed())
            }));
            tokio::task::yield_now().await;
        }
        let other = spacing.turn(b).await.unwrap();
        assert_eq!(start.elapsed(), Duration::ZERO);
        drop(other);
        let mut sent = Vec::new();
        for t in tasks {
            sent.push(t.await.unwrap());
        }
        assert_eq!(
            sent,
            (0..4u32).map(|i| (i, SPACING * i)).collect::<Vec<_>>()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_queue_refuses() {
        let spacing = Arc::new(Spacing::new(None));
        let a: SocketAddrV4 = "10.0.0.1:28960".parse().unwrap();
        let held = spacing.turn(a).await.unwrap();
        let mut waiting = Vec::new();
        for _ in 0..MAX_WAITING {
            let spacing = spacing.clone();
            waiting.push(tokio::spawn(async move { spacing.turn(a).await.map(drop) }));
            tokio::task::yield_now().await;
        }
        assert!(spacing.turn(a).await.is_err());
        drop(held);
        for w in waiting {
            assert!(w.await.unwrap().is_ok());
        }
    }
}
