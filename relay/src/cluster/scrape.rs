//! What a scrape reads of the cluster: the connection, leases held, what was published.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;

use super::Cluster;
use crate::metrics::{counter, family, gauge, load, Scrape, ScrapeResult};

impl Scrape for Cluster {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let status = self.status();
        gauge(
            e,
            "cluster_connected",
            "1 while the relay is connected to NATS",
            u64::from(status.connected),
        )?;
        let poller = u64::from(status.leases.contains_key("poller"));
        let hubs = status
            .leases
            .keys()
            .filter(|k| k.starts_with("hub."))
            .count() as u64;
        family(
            e,
            MetricType::Gauge,
            "cluster_leases_held",
            "Leases this relay holds: the poller's (0 or 1) and its hubs'",
            "lease",
            &[("poller", poller), ("hub", hubs)],
        )?;
        let c = &self.counters;
        counter(
            e,
            "cluster_published_messages",
            "Messages this relay published on the bus",
            load(&c.published_messages),
        )?;
        counter(
            e,
            "cluster_published_bytes",
            "Bytes this relay published on the bus",
            load(&c.published_bytes),
        )?;
        counter(
            e,
            "cluster_hub_resyncs",
            "Mirrored hubs that resynchronised from a keyframe",
            load(&c.hub_resyncs),
        )
    }
}
