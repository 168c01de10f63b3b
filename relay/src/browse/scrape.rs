//! What a scrape reads of the directory and the page feed: servers and masters by state,
//! players, pages and the feed's work.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::MetricType;
use protocol::relay_api::{MasterState, Reachability};

use super::{Directory, PageFeed};
use crate::metrics::{counter, family, gauge, load, Scrape, ScrapeResult};

impl Scrape for Directory {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let mut by_state = [
            ("pending", 0u64),
            ("online", 0),
            ("unreachable", 0),
            ("malformed", 0),
            ("stale", 0),
            ("gone", 0),
        ];
        let mut players = 0u64;
        self.with_servers(|servers| {
            for server in servers {
                let index = match server.reachability {
                    Reachability::Pending => 0,
                    Reachability::Online => 1,
                    Reachability::Unreachable => 2,
                    Reachability::Malformed => 3,
                    Reachability::Stale => 4,
                    Reachability::Gone => 5,
                };
                by_state[index].1 += 1;
                if server.reachability == Reachability::Online {
                    players += server.players.len() as u64;
                }
            }
        });
        family(
            e,
            MetricType::Gauge,
            "servers",
            "Servers in the directory, by reachability",
            "reachability",
            &by_state,
        )?;
        gauge(
            e,
            "players",
            "Players on the servers that answered the latest refresh",
            players,
        )?;
        let masters = self.masters();
        let mut by_state = [("ok", 0u64), ("failed", 0), ("pending", 0)];
        for master in &masters {
            let index = match master.state {
                MasterState::Ok { .. } => 0,
                MasterState::Failed { .. } => 1,
                _ => 2,
            };
            by_state[index].1 += 1;
        }
        family(
            e,
            MetricType::Gauge,
            "masters",
            "Masters polled, by the state of their latest poll",
            "state",
            &by_state,
        )
    }
}

impl Scrape for PageFeed {
    fn scrape(&self, e: &mut DescriptorEncoder) -> ScrapeResult {
        let c = &self.counters;
        gauge(
            e,
            "pages",
            "Pages connected to the live feed",
            load(&c.pages),
        )?;
        counter(e, "feed_ticks", "Feed ticks encoded", load(&c.ticks))?;
        counter(
            e,
            "feed_keyframes_encoded",
            "Directory keyframes encoded (once each, whatever the number of pages)",
            load(&c.keyframes_encoded),
        )?;
        counter(
            e,
            "feed_resyncs",
            "Pages that fell behind and were sent a fresh keyframe",
            load(&c.resyncs),
        )?;
        counter(
            e,
            "feed_slow_closed",
            "Pages closed because they could not keep up",
            load(&c.closed_slow),
        )
    }
}
