//! What a scrape reads from state the capabilities already keep: nothing here counts twice.
//! Each capability implements [`Scrape`] in its own folder (`browse/scrape.rs`, ...) and reads
//! its figures under its own lock, briefly; at 2,000 servers the whole scrape stays well under
//! a millisecond of work. This module knows no capability: it only writes the families.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;

/// What writing a family comes to.
pub type ScrapeResult = std::result::Result<(), std::fmt::Error>;
type Result = ScrapeResult;

/// State a capability keeps, read at scrape time: each writes its own families.
pub trait Scrape: Send + Sync {
    fn scrape(&self, e: &mut DescriptorEncoder) -> Result;
}

/// Every capability's scrape, in the order their families are written.
pub struct Sources(pub Vec<Arc<dyn Scrape>>);

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} sources", self.0.len())
    }
}

/// Writes one family: a gauge or counter per label value (`key` names the label), or a
/// single sample when `key` is empty.
pub fn family(
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

pub fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> Result {
    family(e, MetricType::Gauge, name, help, "", &[("", value)])
}

pub fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> Result {
    family(e, MetricType::Counter, name, help, "", &[("", value)])
}

pub fn load(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

impl Collector for Sources {
    fn encode(&self, mut e: DescriptorEncoder) -> Result {
        for source in &self.0 {
            source.scrape(&mut e)?;
        }
        Ok(())
    }
}
