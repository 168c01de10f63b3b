//! What a scrape reads of the hubs: hubs, viewers and recordings.

use prometheus_client::encoding::DescriptorEncoder;

use super::Hubs;
use crate::metrics::{gauge, Scrape, ScrapeResult};

impl Scrape for Hubs {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let hubs = self.list();
        let viewers: u64 = hubs.iter().map(|h| u64::from(h.viewers())).sum();
        gauge(
            e,
            "hubs",
            "Spectator hubs (one game slot each)",
            hubs.len() as u64,
        )?;
        gauge(
            e,
            "spectator_viewers",
            "Viewers connected to this relay's hubs",
            viewers,
        )?;
        gauge(
            e,
            "recordings",
            "Demo recordings being written",
            self.recording_paths().len() as u64,
        )
    }
}
