//! The broadcast delay: one queue that every piece of match content passes (positions, kill
//! feed, chat, scores, text), released no sooner than the delay after it reached the relay,
//! which is itself after the server time it describes.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Items a queue holds at most: 310 s of 20 Hz snapshots, past the longest delay operators may
/// set. Beyond it the oldest is released early rather than memory growing (the hub never gets
/// there, since it releases every item as it comes due).
pub const MAX_QUEUED: usize = 310 * 20;

/// Items waiting out the delay, oldest first.
#[derive(Debug)]
pub struct DelayQueue<T> {
    delay: Duration,
    items: VecDeque<(Instant, T)>,
    /// When the first item arrived: the countdown viewers see while the delay fills.
    first_arrival: Option<Instant>,
    released_any: bool,
}

impl<T> DelayQueue<T> {
    pub fn new(delay: Duration) -> Self {
        Self {
            delay,
            items: VecDeque::new(),
            first_arrival: None,
            released_any: false,
        }
    }

    /// Queues an item that reached the relay at `arrival`.
    pub fn push(&mut self, arrival: Instant, item: T) {
        self.first_arrival.get_or_insert(arrival);
        self.items.push_back((arrival + self.delay, item));
    }

    /// The next item whose delay is over at `now`. Past [`MAX_QUEUED`] the oldest comes out
    /// regardless, which only a stalled caller could cause.
    pub fn pop_due(&mut self, now: Instant) -> Option<T> {
        let due = self.items.front().is_some_and(|(at, _)| *at <= now);
        if due || self.items.len() > MAX_QUEUED {
            self.released_any = true;
            return self.items.pop_front().map(|(_, item)| item);
        }
        None
    }

    /// When the next item comes due.
    pub fn next_due(&self) -> Option<Instant> {
        self.items.front().map(|(at, _)| *at)
    }

    /// How long until the first picture, while the delay is still filling; zero once anything
    /// was released (or before anything arrived).
    pub fn filling(&self, now: Instant) -> Duration {
        match self.first_arrival {
            Some(first) if !self.released_any => {
                (first + self.delay).saturating_duration_since(now)
            }
            _ => Duration::ZERO,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_leaves_before_its_delay() {
        let start = Instant::now();
        let mut q = DelayQueue::new(Duration::from_secs(3));
        q.push(start, 1);
        q.push(start + Duration::from_millis(50), 2);
        assert_eq!(
            q.filling(start + Duration::from_secs(1)),
            Duration::from_secs(2)
        );
        assert_eq!(q.pop_due(start + Duration::from_millis(2999)), None);
        assert_eq!(q.pop_due(start + Duration::from_secs(3)), Some(1));
        assert_eq!(q.pop_due(start + Duration::from_secs(3)), None);
        assert_eq!(q.next_due(), Some(start + Duration::from_millis(3050)));
        assert_eq!(q.filling(start + Duration::from_secs(3)), Duration::ZERO);
        assert_eq!(q.pop_due(start + Duration::from_secs(4)), Some(2));
        assert!(q.is_empty());
    }

    #[test]
    fn a_zero_delay_releases_at_once_and_the_queue_is_bounded() {
        let start = Instant::now();
        let mut q = DelayQueue::new(Duration::ZERO);
        q.push(start, 'a');
        assert_eq!(q.pop_due(start), Some('a'));
        let mut long = DelayQueue::new(Duration::from_secs(3600));
        for i in 0..=MAX_QUEUED {
            long.push(start, i);
        }
        assert_eq!(long.pop_due(start), Some(0));
        assert_eq!(long.pop_due(start), None);
        assert_eq!(long.len(), MAX_QUEUED);
    }
}
