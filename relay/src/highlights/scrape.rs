//! What a scrape reads of the highlights: the plays kept (or dropped when the store fell
//! behind), and each clip's outcome, so an operator sees whether clips keep up with the plays.

use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;

use crate::metrics::{family, gauge, load, Scrape, ScrapeResult};

/// Counted by the tap's queue and the keeper as they go.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub kept: AtomicU64,
    /// Not kept: the queue to the store was full.
    pub dropped: AtomicU64,
    pub clipped: AtomicU64,
    /// The cut was refused or failed (logged with why).
    pub failed: AtomicU64,
    /// The reel never reached the play's end (its hub went): kept without a clip.
    pub reel_gone: AtomicU64,
    /// Kept plays waiting for the reel to pass their end.
    pub waiting: AtomicU64,
}

impl Counts {
    pub fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

impl Scrape for Counts {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        family(
            e,
            MetricType::Counter,
            "highlights_plays",
            "Plays found in followed and watched matches, by outcome (kept, dropped: the store was behind)",
            "outcome",
            &[("kept", load(&self.kept)), ("dropped", load(&self.dropped))],
        )?;
        family(
            e,
            MetricType::Counter,
            "highlights_clips",
            "Highlights' clips, by outcome (clipped, failed, reel_gone: the hub left before the play's end was on its reel)",
            "outcome",
            &[
                ("clipped", load(&self.clipped)),
                ("failed", load(&self.failed)),
                ("reel_gone", load(&self.reel_gone)),
            ],
        )?;
        gauge(
            e,
            "highlights_waiting",
            "Highlights kept and waiting for the reel to pass their end to be cut",
            load(&self.waiting),
        )
    }
}
