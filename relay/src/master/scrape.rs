//! What a scrape reads of the relay's own master: servers by state, registrations,
//! heartbeats, expiries and drops.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;

use super::SharedMaster;
use crate::metrics::{counter, family, Scrape, ScrapeResult};

impl Scrape for SharedMaster {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let summary = self.summary();
        let counters = self.counters();
        family(
            e,
            MetricType::Gauge,
            "master_servers",
            "Servers the relay's own master holds, by state",
            "state",
            &[
                ("verified", u64::from(summary.registered)),
                ("flatlined", u64::from(summary.flatlined)),
            ],
        )?;
        counter(
            e,
            "master_registrations",
            "Servers the master listed after they answered its challenge",
            counters.registered,
        )?;
        counter(
            e,
            "master_heartbeats",
            "Heartbeats the master received",
            counters.heartbeats,
        )?;
        counter(
            e,
            "master_expired",
            "Servers the master dropped for silence",
            counters.expired,
        )?;
        let drops: Vec<(&str, u64)> = counters
            .dropped
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        family(
            e,
            MetricType::Counter,
            "master_drops",
            "Datagrams the master dropped, by reason",
            "reason",
            &drops,
        )
    }
}
