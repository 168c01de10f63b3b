//! Whole answers from the query engine: query a set of servers once, survey masters and the
//! servers they list, merge master lists, scan the LAN. The CLI's `query`, `master` and `scan`
//! print these; the replacement master federates with [`masters`].

use std::collections::{BTreeMap, BTreeSet};
use std::net::{Ipv4Addr, SocketAddrV4};

use protocol::cod::info::InfoString;
use protocol::cod::oob::Status;
use protocol::relay_api::ServerInfo;
use serde::Serialize;

use super::{collect, EngineConfig, Event, Outcome};
use crate::browse::poller::server_info;

/// One server's result, as `muster query --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct QueryResult {
    pub addr: String,
    /// `answered`, `timed_out` or `malformed`.
    pub outcome: &'static str,
    /// Why a malformed reply was refused.
    pub error: Option<String>,
    pub attempts: u32,
    /// Best round trip over the attempts.
    pub ping_ms: Option<u32>,
    /// What the server said: settings, players and cvars.
    pub server: Option<ServerInfo>,
}

fn empty_status() -> Status {
    Status {
        info: InfoString::new(0),
        players: Vec::new(),
    }
}

/// Queries every server once (getinfo and getstatus, with retries); results in input order.
pub async fn query(
    addrs: &[SocketAddrV4],
    config: EngineConfig,
) -> anyhow::Result<Vec<QueryResult>> {
    let unique: BTreeSet<SocketAddrV4> = addrs.iter().copied().collect();
    let events = collect(config, |engine| {
        unique.iter().for_each(|a| engine.server(*a))
    })
    .await?;
    let mut results = server_results(events);
    Ok(addrs.iter().filter_map(|a| results.remove(a)).collect())
}

/// Asks the masters and queries every server they list, each as soon as its list packet
/// arrives; `extra` servers too. Results in address order.
pub async fn survey(
    names: &[(String, Vec<SocketAddrV4>)],
    extra: &[SocketAddrV4],
    config: EngineConfig,
) -> anyhow::Result<(MasterListing, Vec<QueryResult>)> {
    let by_addr = master_names(names);
    let (engine, mut events) = super::driver::start(config, Default::default())?;
    by_addr.keys().for_each(|a| engine.master(*a));
    let mut asked: BTreeSet<SocketAddrV4> = extra.iter().copied().collect();
    asked.iter().for_each(|a| engine.server(*a));
    let mut masters_left = by_addr.len();
    // Held while lists are still coming; dropped, it lets the engine stop when done.
    let mut engine = (masters_left > 0).then_some(engine);
    let mut all = Vec::new();
    while let Some(event) = events.recv().await {
        match &event {
            Event::MasterPacket { servers, .. } => {
                for server in servers {
                    if asked.insert(*server) {
                        if let Some(engine) = &engine {
                            engine.server(*server);
                        }
                    }
                }
            }
            Event::Master(_) => {
                masters_left -= 1;
                if masters_left == 0 {
                    engine = None;
                }
            }
            _ => {}
        }
        all.push(event);
    }
    let listing = listing(&by_addr, &all);
    Ok((listing, server_results(all).into_values().collect()))
}

fn server_results(events: Vec<Event>) -> BTreeMap<SocketAddrV4, QueryResult> {
    let mut results = BTreeMap::new();
    for event in events {
        let Event::Server(reply) = event else {
            continue;
        };
        let (outcome, error) = match &reply.outcome {
            Outcome::Answered => ("answered", None),
            Outcome::TimedOut => ("timed_out", None),
            Outcome::Malformed(e) => ("malformed", Some(e.clone())),
        };
        let ping_ms = reply.rtt.map(|r| r.as_millis() as u32);
        let server = reply.info.as_ref().map(|info| {
            let status = reply.status.clone().unwrap_or_else(empty_status);
            let rtt = reply.rtt.unwrap_or_default();
            server_info(reply.addr, info, &status, rtt, &BTreeSet::new())
        });
        results.insert(
            reply.addr,
            QueryResult {
                addr: reply.addr.to_string(),
                outcome,
                error,
                attempts: reply.attempts,
                ping_ms,
                server,
            },
        );
    }
    results
}

/// One master's part of `muster master --json`.
#[derive(Clone, Debug, Serialize)]
pub struct MasterResult {
    /// As given.
    pub master: String,
    pub addr: String,
    pub servers: usize,
    pub packets: usize,
    /// The master ended its list with `\EOF`.
    pub complete: bool,
    pub error: Option<String>,
}

/// A listed server and every master that listed it.
#[derive(Clone, Debug, Serialize)]
pub struct ListedServer {
    pub addr: String,
    pub sources: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MasterListing {
    pub masters: Vec<MasterResult>,
    /// Every server any master listed, once, in address order.
    pub servers: Vec<ListedServer>,
}

fn master_names(names: &[(String, Vec<SocketAddrV4>)]) -> BTreeMap<SocketAddrV4, String> {
    names
        .iter()
        .flat_map(|(name, addrs)| addrs.iter().map(move |a| (*a, name.clone())))
        .collect()
}

/// Asks every master (each name may resolve to several addresses) and merges the lists.
pub async fn masters(
    names: &[(String, Vec<SocketAddrV4>)],
    config: EngineConfig,
) -> anyhow::Result<MasterListing> {
    let by_addr = master_names(names);
    let events = collect(config, |engine| {
        by_addr.keys().for_each(|a| engine.master(*a))
    })
    .await?;
    Ok(listing(&by_addr, &events))
}

/// Merges master replies: every server once, with every master that listed it.
fn listing(by_addr: &BTreeMap<SocketAddrV4, String>, events: &[Event]) -> MasterListing {
    let mut masters = Vec::new();
    let mut servers: BTreeMap<SocketAddrV4, BTreeSet<String>> = BTreeMap::new();
    for event in events {
        let Event::Master(reply) = event else {
            continue;
        };
        let name = by_addr.get(&reply.addr).cloned().unwrap_or_default();
        for server in &reply.servers {
            servers.entry(*server).or_default().insert(name.clone());
        }
        masters.push(MasterResult {
            master: name,
            addr: reply.addr.to_string(),
            servers: reply.servers.len(),
            packets: reply.packets,
            complete: reply.complete,
            error: reply.error.clone(),
        });
    }
    masters.sort_by(|a, b| a.addr.cmp(&b.addr));
    MasterListing {
        masters,
        servers: servers
            .into_iter()
            .map(|(addr, sources)| ListedServer {
                addr: addr.to_string(),
                sources: sources.into_iter().collect(),
            })
            .collect(),
    }
}

/// Broadcasts the stock LAN probe to each target and lists who answered, in address order.
pub async fn scan(targets: &[Ipv4Addr], config: EngineConfig) -> anyhow::Result<Vec<ServerInfo>> {
    let targets = targets.to_vec();
    let events = collect(config, move |engine| engine.scan_lan(targets)).await?;
    let mut found: Vec<ServerInfo> = events
        .into_iter()
        .filter_map(|event| match event {
            Event::Lan { addr, info } => {
                let sources = BTreeSet::from(["lan".to_owned()]);
                let mut server =
                    server_info(addr, &info, &empty_status(), Default::default(), &sources);
                // A broadcast probe measures no round trip.
                server.ping_ms = None;
                Some(server)
            }
            _ => None,
        })
        .collect();
    found.sort_by(|a, b| a.addr.cmp(&b.addr));
    Ok(found)
}
