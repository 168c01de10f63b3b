//! What a scrape reads of the hubs: hubs, viewers, what they were sent, and recordings.

use prometheus_client::encoding::DescriptorEncoder;

use super::Hubs;
use crate::metrics::{counter, gauge, Scrape, ScrapeResult};

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
        let (frames, writes) = self.sent.counts();
        counter(
            e,
            "spectator_frames",
            "Frames sent to viewers (status, keyframes, updates)",
            frames,
        )?;
        counter(
            e,
            "spectator_writes",
            "Writes to viewers' sockets that carried them (several frames to one behind)",
            writes,
        )?;
        gauge(
            e,
            "recordings",
            "Demo recordings being written",
            self.recording_paths().len() as u64,
        )
    }
}
