//! `muster status URL`: a running relay's `/metrics`, read for a person (or, with `--json`,
//! for a script): what it lists, how its polling goes, who is connected, how its store and its
//! cluster lease fare, and what the process costs.

use anyhow::{bail, Context};
use std::collections::BTreeMap;

use serde::Serialize;

use super::out;
use crate::metrics::exposition::{parse, Sample};

/// Show a running relay's state from its `/metrics`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The relay, as http://HOST:PORT (its /metrics is read).
    url: String,
    /// Print one JSON object (stable keys) instead of text.
    #[arg(long)]
    json: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let text = fetch_metrics(&args.url).await?;
    let summary = summarize(&parse(&text));
    if args.json {
        let summary = Summary {
            url: Some(args.url),
            ..summary
        };
        return out(serde_json::to_string(&summary)?);
    }
    out(render(&args.url, &summary))
}

/// `GET URL/metrics`.
async fn fetch_metrics(url: &str) -> anyhow::Result<String> {
    let (status, body) = super::relay_http::call(url, hyper::Method::GET, "/metrics", None).await?;
    let uri = format!("{}/metrics", url.trim_end_matches('/'));
    if !status.is_success() {
        bail!("{uri} answered {status}");
    }
    let text = String::from_utf8(body.to_vec()).context("the metrics are not UTF-8")?;
    if !text.contains("muster_build_info") {
        bail!("{uri} is not a Muster relay's metrics (no muster_build_info)");
    }
    Ok(text)
}

fn value(samples: &[Sample], name: &str) -> f64 {
    samples
        .iter()
        .filter(|s| s.name == name)
        .map(|s| s.value)
        .sum()
}

/// Counts by one label's value.
type ByLabel = BTreeMap<String, f64>;

fn by_label(samples: &[Sample], name: &str, key: &str) -> ByLabel {
    samples
        .iter()
        .filter(|s| s.name == name)
        .filter_map(|s| Some((s.label(key)?.to_owned(), s.value)))
        .collect()
}

/// A quantile from a histogram's cumulative buckets, interpolated within its bucket as
/// Prometheus's `histogram_quantile` does; `None` before any observation.
pub fn quantile(samples: &[Sample], name: &str, q: f64) -> Option<f64> {
    let bucket = format!("{name}_bucket");
    let mut buckets: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.name == bucket)
        .filter_map(|s| Some((s.label("le")?.parse::<f64>().ok()?, s.value)))
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q * total;
    let (mut lower, mut below) = (0.0, 0.0);
    for (le, count) in buckets {
        if count >= rank {
            if le.is_infinite() {
                return Some(lower);
            }
            let within = count - below;
            let share = if within > 0.0 {
                (rank - below) / within
            } else {
                1.0
            };
            return Some(lower + (le - lower) * share);
        }
        (lower, below) = (le, count);
    }
    Some(lower)
}

/// The figures `muster status` shows, under stable keys (`--json` prints this).
#[derive(Serialize)]
pub struct Summary {
    /// The relay read (only in `--json`'s output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub version: String,
    pub servers: ByLabel,
    pub players: f64,
    pub masters: ByLabel,
    pub queries: ByLabel,
    pub query_rtt_ms: Percentiles,
    pub refresh_s: Refreshes,
    pub pages: f64,
    pub hubs: f64,
    pub viewers: f64,
    pub recordings: f64,
    pub bridge_sessions: f64,
    pub bridge_refusals: ByLabel,
    pub http: Http,
    /// Null when the relay keeps no history.
    pub history: Option<HistoryFigures>,
    /// Null outside a cluster.
    pub cluster: Option<ClusterFigures>,
    pub process: ProcessFigures,
}

#[derive(Serialize)]
pub struct Percentiles {
    pub p50: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Serialize)]
pub struct Refreshes {
    pub count: f64,
    pub p50: Option<f64>,
}

#[derive(Serialize)]
pub struct Http {
    pub connections: f64,
    pub received_bytes: f64,
    pub sent_bytes: f64,
    pub limited: ByLabel,
}

#[derive(Serialize)]
pub struct HistoryFigures {
    pub database_bytes: f64,
    pub write_ms_p99: Option<f64>,
    pub dropped: f64,
}

#[derive(Serialize)]
pub struct ClusterFigures {
    pub connected: bool,
    pub leases: ByLabel,
}

#[derive(Serialize)]
pub struct ProcessFigures {
    pub resident_bytes: f64,
    pub open_fds: f64,
    pub cpu_seconds: f64,
    pub tasks: f64,
}

/// Reads the figures out of a scrape.
pub fn summarize(s: &[Sample]) -> Summary {
    let version = s
        .iter()
        .find(|x| x.name == "muster_build_info")
        .and_then(|x| x.label("version"))
        .unwrap_or_default()
        .to_owned();
    let has = |name: &str| s.iter().any(|x| x.name == name);
    let ms = |name: &str, q: f64| quantile(s, name, q).map(|v| (v * 1000.0).round());
    Summary {
        url: None,
        version,
        servers: by_label(s, "muster_servers", "reachability"),
        players: value(s, "muster_players"),
        masters: by_label(s, "muster_masters", "state"),
        queries: by_label(s, "muster_server_queries_total", "outcome"),
        query_rtt_ms: Percentiles {
            p50: ms("muster_server_query_rtt_seconds", 0.5),
            p99: ms("muster_server_query_rtt_seconds", 0.99),
        },
        refresh_s: Refreshes {
            count: value(s, "muster_poll_duration_seconds_count"),
            p50: quantile(s, "muster_poll_duration_seconds", 0.5),
        },
        pages: value(s, "muster_pages"),
        hubs: value(s, "muster_hubs"),
        viewers: value(s, "muster_spectator_viewers"),
        recordings: value(s, "muster_recordings"),
        bridge_sessions: value(s, "muster_bridge_sessions"),
        bridge_refusals: by_label(s, "muster_bridge_refusals_total", "reason"),
        http: Http {
            connections: value(s, "muster_http_connections"),
            received_bytes: value(s, "muster_http_received_bytes_total"),
            sent_bytes: value(s, "muster_http_sent_bytes_total"),
            limited: by_label(s, "muster_http_limited_total", "reason"),
        },
        history: has("muster_history_database_size_bytes").then(|| HistoryFigures {
            database_bytes: value(s, "muster_history_database_size_bytes"),
            write_ms_p99: ms("muster_history_write_duration_seconds", 0.99),
            dropped: value(s, "muster_history_records_dropped_total"),
        }),
        cluster: has("muster_cluster_connected").then(|| ClusterFigures {
            connected: value(s, "muster_cluster_connected") > 0.0,
            leases: by_label(s, "muster_cluster_leases_held", "lease"),
        }),
        process: ProcessFigures {
            resident_bytes: value(s, "muster_process_resident_memory_bytes"),
            open_fds: value(s, "muster_process_open_fds"),
            cpu_seconds: value(s, "muster_process_cpu_seconds_total"),
            tasks: value(s, "muster_runtime_tasks"),
        },
    }
}

/// A whole count.
fn n(v: f64) -> u64 {
    v as u64
}

/// The non-zero counts, as `N label, ...`.
fn counts(v: &ByLabel) -> String {
    let parts: Vec<String> = v
        .iter()
        .filter(|(_, c)| **c > 0.0)
        .map(|(k, c)| format!("{} {k}", n(*c)))
        .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

fn millis(v: Option<f64>) -> String {
    v.map_or("-".to_owned(), |ms| format!("{ms} ms"))
}

fn render(url: &str, s: &Summary) -> String {
    let mut lines = vec![
        format!("relay     {url} (muster {})", s.version),
        format!("servers   {}; {} players", counts(&s.servers), n(s.players)),
        format!("masters   {}", counts(&s.masters)),
        format!(
            "queries   {}; round trip p50 {} p99 {}",
            counts(&s.queries),
            millis(s.query_rtt_ms.p50),
            millis(s.query_rtt_ms.p99)
        ),
        format!(
            "refreshes {} done, p50 {}",
            n(s.refresh_s.count),
            s.refresh_s
                .p50
                .map_or("-".to_owned(), |v| format!("{v:.1} s"))
        ),
        format!(
            "clients   {} pages, {} viewers on {} hubs, {} recordings, {} bridge sessions",
            n(s.pages),
            n(s.viewers),
            n(s.hubs),
            n(s.recordings),
            n(s.bridge_sessions)
        ),
        format!(
            "http      {} connections, {} in, {} out; limited: {}",
            n(s.http.connections),
            mib(s.http.received_bytes),
            mib(s.http.sent_bytes),
            counts(&s.http.limited)
        ),
    ];
    if !s.bridge_refusals.is_empty() {
        lines.push(format!("refused   {}", counts(&s.bridge_refusals)));
    }
    if let Some(h) = &s.history {
        lines.push(format!(
            "history   {}, write p99 {}, {} records dropped",
            mib(h.database_bytes),
            millis(h.write_ms_p99),
            n(h.dropped)
        ));
    }
    if let Some(c) = &s.cluster {
        lines.push(format!(
            "cluster   {}; leases held: {}",
            if c.connected {
                "connected"
            } else {
                "NOT connected to NATS"
            },
            counts(&c.leases)
        ));
    }
    let p = &s.process;
    lines.push(format!(
        "process   {} resident, {} open files, {:.1} s CPU, {} tasks",
        mib(p.resident_bytes),
        n(p.open_fds),
        p.cpu_seconds,
        n(p.tasks)
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantile_is_interpolated_within_its_bucket() {
        let text = "h_bucket{le=\"0.1\"} 10\nh_bucket{le=\"0.2\"} 30\nh_bucket{le=\"+Inf\"} 40\n";
        let samples = parse(text);
        // Rank 20 of 40 lies halfway through the (0.1, 0.2] bucket.
        assert_eq!(quantile(&samples, "h", 0.5), Some(0.15000000000000002));
        // Past the last finite bucket: its bound.
        assert_eq!(quantile(&samples, "h", 0.99), Some(0.2));
        assert_eq!(
            quantile(&parse("h_bucket{le=\"+Inf\"} 0\n"), "h", 0.5),
            None
        );
    }
}
