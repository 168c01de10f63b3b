//! What a scrape reads of the bridge: sessions, datagrams and bytes, refusals by reason.

use std::collections::BTreeMap;

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;

use super::Bridge;
use crate::metrics::{counter, family, gauge, load, Scrape, ScrapeResult};
use crate::sync::Locked;

impl Scrape for Bridge {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let c = &self.counters;
        gauge(
            e,
            "bridge_sessions",
            "Bridge sessions open",
            load(&c.sessions),
        )?;
        counter(
            e,
            "bridge_sessions_opened",
            "Bridge sessions opened",
            load(&c.sessions_opened),
        )?;
        family(
            e,
            MetricType::Counter,
            "bridge_datagrams",
            "Datagrams through the bridge, by direction",
            "direction",
            &[
                ("from_pages", load(&c.datagrams_from_pages)),
                ("to_targets", load(&c.datagrams_to_targets)),
                ("from_targets", load(&c.datagrams_from_targets)),
            ],
        )?;
        family(
            e,
            MetricType::Counter,
            "bridge_bytes",
            "Bytes through the bridge, by direction",
            "direction",
            &[
                ("from_pages", load(&c.bytes_from_pages)),
                ("to_targets", load(&c.bytes_to_targets)),
                ("from_targets", load(&c.bytes_from_targets)),
            ],
        )?;
        let refused: BTreeMap<&'static str, u64> = c.refused.locked().clone();
        let refused: Vec<(&str, u64)> = refused.into_iter().collect();
        family(
            e,
            MetricType::Counter,
            "bridge_refusals",
            "Sessions and datagrams the bridge refused, by reason",
            "reason",
            &refused,
        )
    }
}
