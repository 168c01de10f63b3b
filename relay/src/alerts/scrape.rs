//! What a scrape reads of the alert judge: how many refreshes it has judged.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use prometheus_client::encoding::DescriptorEncoder;

use crate::metrics::{counter, load, Scrape, ScrapeResult};

/// The judge's count of looks, shared with it.
pub struct Looks(pub Arc<AtomicU64>);

impl Scrape for Looks {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        counter(
            e,
            "alert_looks",
            "Refreshes of the directory the alert judge judged, its verdicts written (a relay \
             that does not hold the alerts lease takes none)",
            load(&self.0),
        )
    }
}
