//! What a scrape reads of the rewind windows: how many, and their bytes against the budget.

use prometheus_client::encoding::DescriptorEncoder;

use super::Rewinds;
use crate::metrics::{gauge, Scrape, ScrapeResult};

impl Scrape for Rewinds {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        gauge(
            e,
            "rewind_windows",
            "Hubs keeping a rewind window",
            self.windows() as u64,
        )?;
        gauge(
            e,
            "rewind_bytes",
            "Bytes every rewind window holds together",
            self.bytes() as u64,
        )?;
        gauge(
            e,
            "rewind_budget_bytes",
            "The most every rewind window may hold together (--rewind-total-mb)",
            self.limits.total_bytes as u64,
        )
    }
}
