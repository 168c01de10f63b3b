//! What a scrape reads of the history writer: records dropped, batches fenced, whether writes
//! fail now and what outages lost.

use prometheus_client::encoding::DescriptorEncoder;

use super::History;
use crate::metrics::{counter, gauge, load, Scrape, ScrapeResult};

impl Scrape for History {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        counter(
            e,
            "history_records_dropped",
            "Poll records the history writer could not take (its queue was full)",
            load(&self.log.dropped),
        )?;
        counter(
            e,
            "history_fenced_batches",
            "History batches the database refused for a stale fencing token",
            load(&self.log.fenced),
        )?;
        counter(
            e,
            "history_samples_lost",
            "Samples an outage of the database held past the writer's bound, dropped oldest first",
            load(&self.log.health.lost_samples),
        )?;
        gauge(
            e,
            "history_writes_failing",
            "1 while history writes do not reach the database (they are held meanwhile)",
            u64::from(self.log.health.failing()),
        )
    }
}
