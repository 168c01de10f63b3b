//! What a scrape reads of the history writer: records dropped, batches fenced.

use prometheus_client::encoding::DescriptorEncoder;

use super::History;
use crate::metrics::{counter, load, Scrape, ScrapeResult};

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
        )
    }
}
