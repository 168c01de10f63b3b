//! The retry timer: a rolling average of ten samples, seeded at 500 ms. Each round-trip
//! sample is stored multiplied by 1.5; the timeout is the truncated average clamped to
//! 200-1,000 ms. A timeout feeds 1.5 times the current timeout back into the same average, so
//! a lossy link lengthens the timer gradually (not exponential backoff).

/// Samples in the rolling average.
pub const SAMPLES: usize = 10;
pub const SEED_MS: u32 = 500;
pub const MIN_MS: u32 = 200;
pub const MAX_MS: u32 = 1000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryTimer {
    /// Stored values (samples times 1.5), oldest overwritten first.
    ring: [u32; SAMPLES],
    next: usize,
}

impl Default for RetryTimer {
    fn default() -> Self {
        Self {
            ring: [SEED_MS; SAMPLES],
            next: 0,
        }
    }
}

impl RetryTimer {
    fn push(&mut self, value: u32) {
        self.ring[self.next] = value;
        self.next = (self.next + 1) % SAMPLES;
    }

    /// A measured round trip.
    pub fn sample(&mut self, rtt_ms: u32) {
        self.push(rtt_ms.saturating_mul(3) / 2);
    }

    /// A record timed out: 1.5 times the current timeout joins the average.
    pub fn timed_out(&mut self) {
        let fed = self.timeout_ms().saturating_mul(3) / 2;
        self.push(fed);
    }

    /// The current retry timeout.
    pub fn timeout_ms(&self) -> u32 {
        let sum: u64 = self.ring.iter().map(|&v| u64::from(v)).sum();
        ((sum / SAMPLES as u64) as u32).clamp(MIN_MS, MAX_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_at_500_and_moved_by_samples() {
        let mut t = RetryTimer::default();
        assert_eq!(t.timeout_ms(), 500);
        // One 100 ms sample: (9 * 500 + 150) / 10 = 465.
        t.sample(100);
        assert_eq!(t.timeout_ms(), 465);
        for _ in 0..10 {
            t.sample(40);
        }
        // Ten samples of 40 ms store 60 each; the clamp holds 200.
        assert_eq!(t.timeout_ms(), 200);
        for _ in 0..10 {
            t.sample(2000);
        }
        assert_eq!(t.timeout_ms(), 1000);
    }

    #[test]
    fn a_timeout_feeds_back_without_exponential_growth() {
        let mut t = RetryTimer::default();
        t.timed_out();
        // (9 * 500 + 750) / 10 = 525: one step, not a doubling.
        assert_eq!(t.timeout_ms(), 525);
        t.timed_out();
        // 525 * 1.5 = 787 joins: (8 * 500 + 750 + 787) / 10 = 553.
        assert_eq!(t.timeout_ms(), 553);
        for _ in 0..50 {
            t.timed_out();
        }
        assert_eq!(t.timeout_ms(), 1000, "clamped");
    }
}
