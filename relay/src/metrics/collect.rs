//! What a scrape reads from state the capabilities already keep: nothing here counts twice.
//! Every figure is read under the owner's own lock, briefly; at 2,000 servers the whole scrape
//! stays well under a millisecond of work.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use protocol::relay_api::{MasterState, Reachability};

use crate::browse::{Directory, PageFeed};
use crate::master::SharedMaster;

/// The capabilities a scrape reads.
pub struct Sources {
    pub directory: Arc<Directory>,
    pub feed: Arc<PageFeed>,
    pub hubs: Arc<crate::spectate::Hubs>,
    pub bridge: Arc<crate::bridge::Bridge>,
    pub master: Option<SharedMaster>,
    pub cluster: Option<Arc<crate::cluster::Cluster>>,
    pub history: Option<Arc<crate::history::History>>,
    pub rcon: Arc<crate::rcon::Rcon>,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sources")
    }
}

type Result = std::result::Result<(), std::fmt::Error>;

/// Writes one family: a gauge or counter per label value (`key` names the label), or a
/// single sample when `key` is empty.
pub(super) fn family(
    e: &mut DescriptorEncoder,
    kind: MetricType,
    name: &str,
    help: &str,
    key: &str,
    values: &[(&str, u64)],
) -> Result {
    let mut metric = e.encode_descriptor(name, help, None, kind)?;
    if key.is_empty() {
        let value = values.first().map_or(0, |(_, v)| *v);
        return match kind {
            MetricType::Counter => ConstCounter::new(value).encode(metric),
            _ => ConstGauge::new(value as i64).encode(metric),
        };
    }
    for (label, value) in values {
        let labels = [(key, *label)];
        let sample = metric.encode_family(&labels)?;
        match kind {
            MetricType::Counter => ConstCounter::new(*value).encode(sample)?,
            _ => ConstGauge::new(*value as i64).encode(sample)?,
        }
    }
    Ok(())
}

pub(super) fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> Result {
    family(e, MetricType::Gauge, name, help, "", &[("", value)])
}

pub(super) fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> Result {
    family(e, MetricType::Counter, name, help, "", &[("", value)])
}

fn load(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

impl Collector for Sources {
    fn encode(&self, mut e: DescriptorEncoder) -> Result {
        self.directory(&mut e)?;
        self.pages(&mut e)?;
        self.spectate(&mut e)?;
        self.bridge(&mut e)?;
        self.rcon(&mut e)?;
        if let Some(master) = &self.master {
            own_master(&mut e, master)?;
        }
        if let Some(cluster) = &self.cluster {
            cluster_state(&mut e, cluster)?;
        }
        if let Some(history) = &self.history {
            counter(
                &mut e,
                "history_records_dropped",
                "Poll records the history writer could not take (its queue was full)",
                load(&history.log.dropped),
            )?;
            counter(
                &mut e,
                "history_fenced_batches",
                "History batches the database refused for a stale fencing token",
                load(&history.log.fenced),
            )?;
        }
        Ok(())
    }
}

impl Sources {
    fn directory(&self, e: &mut DescriptorEncoder) -> Result {
        let mut by_state = [
            ("pending", 0u64),
            ("online", 0),
            ("unreachable", 0),
            ("malformed", 0),
            ("stale", 0),
        ];
        let mut players = 0u64;
        self.directory.with_servers(|servers| {
            for server in servers {
                let index = match server.reachability {
                    Reachability::Pending => 0,
                    Reachability::Online => 1,
                    Reachability::Unreachable => 2,
                    Reachability::Malformed => 3,
                    Reachability::Stale => 4,
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
        let masters = self.directory.masters();
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

    fn pages(&self, e: &mut DescriptorEncoder) -> Result {
        let c = &self.feed.counters;
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

    fn spectate(&self, e: &mut DescriptorEncoder) -> Result {
        let hubs = self.hubs.list();
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
            self.hubs.recording_paths().len() as u64,
        )
    }

    fn bridge(&self, e: &mut DescriptorEncoder) -> Result {
        let c = &self.bridge.counters;
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
        let refused: BTreeMap<&'static str, u64> =
            c.refused.lock().unwrap_or_else(|p| p.into_inner()).clone();
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

impl Sources {
    fn rcon(&self, e: &mut DescriptorEncoder) -> Result {
        let c = &self.rcon.counters;
        let mut outcomes = vec![
            ("output", load(&c.output)),
            ("bad_password", load(&c.bad_password)),
            ("no_password", load(&c.no_password)),
        ];
        let refused = c.refused.lock().unwrap_or_else(|p| p.into_inner()).clone();
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

fn own_master(e: &mut DescriptorEncoder, master: &SharedMaster) -> Result {
    let summary = master.summary();
    let counters = master.counters();
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

fn cluster_state(e: &mut DescriptorEncoder, cluster: &crate::cluster::Cluster) -> Result {
    let status = cluster.status();
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
    let c = &cluster.counters;
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
