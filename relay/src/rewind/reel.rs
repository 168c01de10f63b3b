//! A hub's reel (`protocol::cod::reel`): the game's messages of its window's span, from which
//! a moment's demo is cut, within the same budgets as the window (a hub's window and reel
//! share `--rewind-hub-mb`), oldest seconds first.

use protocol::cod::client::Event;
use protocol::cod::reel::{Reel, ReelLimits};

use super::window::{Budget, Limits};

pub struct Kept {
    pub reel: Reel,
    limits: Limits,
    budget: Budget,
}

impl Kept {
    pub fn new(limits: Limits, keyframe_every_ms: i32, budget: Budget) -> Self {
        let span_ms = i32::try_from(limits.span_us / 1000).unwrap_or(i32::MAX);
        Self {
            reel: Reel::new(ReelLimits {
                span_ms,
                keyframe_every_ms,
            }),
            limits,
            budget,
        }
    }

    /// Takes one of the session's events, then drops the oldest seconds while over a budget.
    pub fn handle(&mut self, event: &Event) {
        let before = self.reel.bytes();
        match event {
            Event::Gamestate(gamestate) => self.reel.gamestate(gamestate),
            Event::Configstring { index, value } => self.reel.configstring(*index, value),
            Event::ServerCommand { sequence, text } => self.reel.command(*sequence, text),
            Event::Snapshot(snapshot) => self.reel.snapshot(snapshot),
            _ => return,
        }
        self.account(before);
        while self.budget.over(&self.limits) {
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
            self.budget.grow(now - before);
        } else {
            self.budget.shrink(before - now);
        }
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.budget.shrink(self.reel.bytes());
    }
}
