//! `muster query`: getinfo and getstatus of servers given or listed by masters; `--json` is
//! one stable document, text is for people.

use std::net::SocketAddrV4;

use protocol::cod::text::strip;

use super::out;
use crate::browse::query::results::{self, MasterListing, QueryResult};
use crate::browse::query::EngineConfig;
use crate::net::resolve;

/// Query servers once: getinfo and getstatus, with players, cvars and ping. Addresses are
/// read from stdin, one per line, when none are given.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Servers as HOST[:PORT] (default port 28960).
    addrs: Vec<String>,
    /// Also query every server this master lists (HOST[:PORT], default port 20610); repeat
    /// for more. The lists are merged, each server once.
    #[arg(long = "master", value_name = "HOST:PORT")]
    masters: Vec<String>,
    /// Packets per second sent, across all servers.
    #[arg(long, default_value_t = 5000.0)]
    rate: f64,
    /// Print one JSON array, one object per server, in input order.
    #[arg(long)]
    json: bool,
    /// In text output, list every cvar under each server.
    #[arg(long)]
    cvars: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    use std::io::BufRead;
    let mut targets = args.addrs;
    let config = EngineConfig {
        send_rate: args.rate.max(1.0),
        ..Default::default()
    };
    if args.masters.is_empty() && targets.is_empty() {
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
                targets.push(line);
            }
        }
    }
    let mut addrs = Vec::new();
    for target in &targets {
        addrs.extend(resolve(target, protocol::cod::DEFAULT_SERVER_PORT).await?);
    }
    let results = if args.masters.is_empty() {
        results::query(&addrs, config).await?
    } else {
        let names = resolve_masters(&args.masters).await?;
        let (listing, results) = results::survey(&names, &addrs, config).await?;
        report_masters(&listing);
        results
    };
    if args.json {
        out(serde_json::to_string_pretty(&results)?)?;
    } else {
        if !results.is_empty() {
            out(QueryText {
                results: &results,
                cvars: args.cvars,
            })?;
        }
    }
    eprintln!("{}", query_summary(&results));
    Ok(())
}

pub async fn resolve_masters(
    masters: &[String],
) -> anyhow::Result<Vec<(String, Vec<SocketAddrV4>)>> {
    let mut names = Vec::new();
    for name in masters {
        let addrs = resolve(name, protocol::cod::MASTER_PORT).await?;
        names.push((name.clone(), addrs));
    }
    Ok(names)
}

/// One line per master on stderr: how its list went.
pub fn report_masters(listing: &MasterListing) {
    for m in &listing.masters {
        let state = match &m.error {
            Some(e) => e.clone(),
            None if m.complete => format!("{} servers in {} packets", m.servers, m.packets),
            None => format!("{} servers in {} packets, no \\EOF", m.servers, m.packets),
        };
        eprintln!("{} ({}): {state}", m.master, m.addr);
    }
}

/// `muster query` for people: a line per server, its players beneath (and its cvars, if
/// asked for).
pub struct QueryText<'a> {
    pub results: &'a [QueryResult],
    pub cvars: bool,
}

impl std::fmt::Display for QueryText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut lines = Vec::new();
        for r in self.results {
            let Some(s) = &r.server else {
                let why = match &r.error {
                    Some(e) => format!("malformed reply: {e}"),
                    None => format!("no reply after {} attempts", r.attempts),
                };
                lines.push(format!("{:<21} {why}", r.addr));
                continue;
            };
            lines.push(format!(
                "{:<21} {:>4} ms  {:>2}/{:<2}  {:<16} {:<5} {}",
                r.addr,
                r.ping_ms.unwrap_or(0),
                s.clients,
                s.max_clients,
                s.map,
                s.gametype,
                strip(&s.hostname)
            ));
            for p in &s.players {
                let ping = if p.bot {
                    "bot".to_owned()
                } else {
                    p.ping.to_string()
                };
                lines.push(format!(
                    "    {:<24} {:>5} {:>5}",
                    strip(&p.name),
                    p.score,
                    ping
                ));
            }
            if self.cvars {
                lines.extend(s.cvars.iter().map(|(k, v)| format!("    {k} = {v}")));
            }
        }
        f.write_str(&lines.join("\n"))
    }
}

/// A one-line tally for stderr.
pub fn query_summary(results: &[QueryResult]) -> String {
    let count = |o: &str| results.iter().filter(|r| r.outcome == o).count();
    format!(
        "{} servers: {} answered, {} timed out, {} malformed",
        results.len(),
        count("answered"),
        count("timed_out"),
        count("malformed")
    )
}
