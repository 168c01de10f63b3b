//! A hub's reel (`protocol::cod::reel`): the game's messages of its window's span, from which
//! a moment's demo is cut, held to the same budgets as the window (the hub's and the relay's
//! together), oldest seconds first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use protocol::cod::client::Event;
use protocol::cod::reel::{Reel, ReelLimits};

use super::window::Limits;

pub struct Kept {
    pub reel: Reel,
    limits: Limits,
    total: Arc<AtomicUsize>,
}

impl Kept {
    pub fn new(limits: Limits, keyframe_every_ms: i32, total: Arc<AtomicUsize>) -> Self {
        let span_ms = i32::try_from(limits.span_us / 1000).unwrap_or(i32::MAX);
        Self {
            reel: Reel::new(ReelLimits {
                span_ms,
                keyframe_every_ms,
            }),
            limits,
            total,
        }
    }

    /// Takes one of the session's events, then drops the oldest seconds while over a budget.
    pub fn handle(&mut self, event: &Event) {
        let before = self.reel.bytes();
        self.reel.handle(event);
        self.account(before);
        while self.reel.bytes() > self.limits.hub_bytes
            || self.total.load(Ordering::Relaxed) > self.limits.total_bytes
        {
            let before = self.reel.bytes();
            if !self.reel.drop_oldest() {
                break;
            }
            self.account(before);
        }
    }

    fn account(&self, before: usize) {
        let now = self.reel.bytes();
        if now >= before {
            self.total.fetch_add(now - before, Ordering::Relaxed);
        } else {
            self.total.fetch_sub(before - now, Ordering::Relaxed);
        }
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.total.fetch_sub(self.reel.bytes(), Ordering::Relaxed);
    }
}
