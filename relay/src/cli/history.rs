//! `muster history ADDR` and `muster seen NAME`: the history a relay kept, read straight from
//! its store (SQLite in `--data-dir`, or `--database`), while the relay runs or after.

use protocol::relay_api::history::{PlayerSeen, ServerHistory};
use protocol::relay_api::{Reachability, ServerInfo};
use serde::Serialize;

use super::out;
use crate::history::query;
use crate::net::{unix_ms, utc_minute};
use crate::store::worker::Workers;
use crate::store::{Store, StoreArgs};

/// Show a server's population over a range: min/avg/max per point, map changes, downtime.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    /// The server, as IP:PORT.
    pub addr: String,
    /// How far back (the page's ranges).
    #[arg(long, default_value = "24h", value_parser = ["1h", "6h", "24h", "7d", "30d", "1y"])]
    pub range: String,
    /// Print the API's JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Show where a name (colours and case ignored, any part of it) was seen, latest first.
#[derive(clap::Args, Debug)]
pub struct SeenArgs {
    pub name: String,
    /// Print the API's JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Runs `job` on one connection of `store`, on a thread of its own.
pub(super) fn with_store<T: Send + 'static>(
    store: &StoreArgs,
    job: impl FnOnce(&mut dyn Store) -> crate::store::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let args = store.clone();
    let opened = std::thread::spawn(move || args.open())
        .join()
        .map_err(|_| anyhow::anyhow!("opening the store panicked"))??;
    Ok(Workers::start(vec![opened], "cli-store").run_blocking(job)?)
}

/// The persisted directory, for hostnames. Who plays now is the running relay's to say
/// (`GET /api/players`): a record on disk cannot tell a live server from a dead one.
fn saved_servers(store: &mut dyn Store) -> crate::store::Result<Vec<ServerInfo>> {
    Ok(store
        .saved()?
        .servers
        .iter()
        .filter_map(|(_, json)| serde_json::from_str::<ServerInfo>(json).ok())
        .map(|s| ServerInfo {
            reachability: Reachability::Stale,
            ..s
        })
        .collect())
}

/// A server's history as text: one line per point, with a bar.
#[derive(Serialize)]
#[serde(transparent)]
pub struct HistoryReport(pub ServerHistory);

impl std::fmt::Display for HistoryReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = &self.0;
        writeln!(
            f,
            "{} over {}: {} points of {} min, {} map changes, {} downtime spans",
            h.addr,
            h.range,
            h.points.len(),
            h.step_ms / 60_000,
            h.map_changes.len(),
            h.downtime.len()
        )?;
        let mut marks = h.map_changes.iter().peekable();
        let mut downs = h.downtime.iter().peekable();
        for p in &h.points {
            while let Some(m) = marks.next_if(|m| m.t < p.t + h.step_ms) {
                writeln!(f, "{}  map {} {}", utc_minute(m.t), m.map, m.gametype)?;
            }
            while let Some((a, b)) = downs.next_if(|(a, _)| *a < p.t) {
                writeln!(f, "{}  down until {}", utc_minute(*a), utc_minute(*b))?;
            }
            let bar = "#".repeat(p.avg.round() as usize);
            writeln!(
                f,
                "{}  {:>3} {:>5.1} {:>3}  {bar}",
                utc_minute(p.t),
                p.min,
                p.avg,
                p.max
            )?;
        }
        for (a, b) in downs {
            writeln!(f, "{}  down until {}", utc_minute(*a), utc_minute(*b))?;
        }
        Ok(())
    }
}

/// Sightings as text.
#[derive(Serialize)]
#[serde(transparent)]
pub struct SeenReport(pub Vec<PlayerSeen>);

impl std::fmt::Display for SeenReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return writeln!(f, "never seen");
        }
        let strip = protocol::cod::text::strip;
        for p in &self.0 {
            match &p.online {
                Some(s) => writeln!(
                    f,
                    "{}: playing now on {} ({})",
                    strip(&p.name),
                    strip(&s.hostname),
                    s.addr
                )?,
                None => writeln!(
                    f,
                    "{}: last seen {} on {} ({})",
                    strip(&p.name),
                    utc_minute(p.last_seen_ms),
                    strip(&p.last_server.hostname),
                    p.last_server.addr
                )?,
            }
            for s in &p.stays {
                writeln!(
                    f,
                    "  {} - {}  {} ({})",
                    utc_minute(s.first_ms),
                    utc_minute(s.last_ms),
                    strip(&s.server.hostname),
                    s.server.addr
                )?;
            }
        }
        Ok(())
    }
}

pub fn history(args: HistoryArgs) -> anyhow::Result<()> {
    let (addr, range) = (args.addr.clone(), args.range.clone());
    let report = with_store(&args.store, move |store| {
        query::server_history(store, &addr, &range, unix_ms())
    })?
    .ok_or_else(|| anyhow::anyhow!("--range must be one of 1h, 6h, 24h, 7d, 30d, 1y"))?;
    let report = HistoryReport(report);
    if args.json {
        out(serde_json::to_string(&report)?)
    } else {
        out(report)
    }
}

pub fn seen(args: SeenArgs) -> anyhow::Result<()> {
    let name = args.name.clone();
    let report = SeenReport(with_store(&args.store, move |store| {
        let seen = query::seen(store, &name)?;
        Ok(query::sightings(seen, &name, &saved_servers(store)?))
    })?);
    if args.json {
        out(serde_json::to_string(&report)?)
    } else {
        out(report)
    }
}
