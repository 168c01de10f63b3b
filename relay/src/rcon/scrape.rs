//! What a scrape reads of the admin console: commands by outcome, lockouts.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;

use super::Rcon;
use crate::metrics::{counter, family, load, Scrape, ScrapeResult};
use crate::sync::Locked;

impl Scrape for Rcon {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let c = &self.counters;
        let mut outcomes = vec![
            ("output", load(&c.output)),
            ("bad_password", load(&c.bad_password)),
            ("no_password", load(&c.no_password)),
        ];
        let refused = c.refused.locked().clone();
        outcomes.extend(refused);
        family(
            e,
            MetricType::Counter,
            "rcon_commands",
            "Admin console commands, by outcome (the server's answer, or why none was sent)",
            "outcome",
            &outcomes,
        )?;
        counter(
            e,
            "rcon_lockouts",
            "Lockouts started by wrong passwords",
            load(&c.lockouts),
        )
    }
}
