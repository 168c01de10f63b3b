//! `muster matches`, `muster stats NAME` and `muster leaderboard`: the followed matches and
//! each name's figures a relay kept, read straight from its store, with the API's JSON under
//! `--json`.

use protocol::cod::text::strip;
use protocol::relay_api::matches::{LeaderRow, MatchDetail, MatchEnd, MatchSummary, PlayerStats};
use serde::Serialize;

use super::history::with_store;
use super::out;
use crate::matches::{shown, BoardQuery, ListQuery};
use crate::net::unix_ms;
use crate::net::utc_minute;
use crate::store::{matches, name_key, StoreArgs};

/// List followed matches, newest first, or show one whole (`muster matches ID`).
#[derive(clap::Args, Debug)]
pub struct MatchesArgs {
    /// One match's id: its scoreboard and kills.
    pub id: Option<u64>,
    /// Only this server's (`ip:port`).
    #[arg(long)]
    pub server: Option<String>,
    /// Only matches this name played (colours and case ignored).
    #[arg(long)]
    pub player: Option<String>,
    /// At most this many.
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// Print the API's JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Show a name's figures: kills, deaths, time, weapons, maps, servers, ratings, recent matches.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    pub name: String,
    /// Print the API's JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Rank names: by the gametype's rating with `--g_gametype` (rated names only), else by kills.
#[derive(clap::Args, Debug)]
pub struct LeaderboardArgs {
    /// Only this server's matches (`ip:port`).
    #[arg(long)]
    pub server: Option<String>,
    /// Only this gametype's (`g_gametype`: `tdm`, `sd`, ...), ranked by its rating.
    #[arg(long = "g_gametype", alias = "gametype")]
    pub gametype: Option<String>,
    /// This calendar week (from Monday, UTC), this calendar month, or all time.
    #[arg(long, default_value = "all", value_parser = ["week", "month", "all"])]
    pub period: String,
    /// Leave off names with fewer matches in the period.
    #[arg(long, default_value_t = crate::matches::MIN_MATCHES)]
    pub min_matches: u32,
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// Print the API's JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

fn ended(m: &MatchSummary) -> &'static str {
    match m.ended {
        None => "followed now",
        Some(MatchEnd::Intermission) => "finished",
        Some(MatchEnd::MapChange) => "map changed",
        Some(MatchEnd::MapRestart) => "restarted",
        Some(MatchEnd::SessionLost) => "unfinished",
    }
}

fn line(m: &MatchSummary) -> String {
    let score = match (m.axis, m.allies) {
        (Some(axis), Some(allies)) => format!("axis {axis} allies {allies}"),
        _ => String::new(),
    };
    format!(
        "#{:<6} {}  {:<14} {:<5} {:>4} kills {:>3} names  {:<12} {}  {}",
        m.id,
        utc_minute(m.start_ms),
        m.map,
        m.gametype,
        m.kills,
        m.players,
        ended(m),
        score,
        strip(&m.hostname)
    )
}

#[derive(Serialize)]
#[serde(untagged)]
enum Report {
    List(Vec<MatchSummary>),
    One(Box<MatchDetail>),
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::List(list) if list.is_empty() => writeln!(f, "no matches kept"),
            Self::List(list) => list.iter().try_for_each(|m| writeln!(f, "{}", line(m))),
            Self::One(m) => {
                writeln!(f, "{}", line(&m.summary))?;
                if let Some(winner) = &m.summary.winner {
                    writeln!(f, "won by {}", strip(winner))?;
                }
                writeln!(f, "  score  kills deaths  time  name")?;
                for p in &m.scoreboard {
                    writeln!(
                        f,
                        "  {:>5}  {:>5} {:>6} {:>4}m  {} ({:?})",
                        p.score.map(|s| s.to_string()).unwrap_or_default(),
                        p.kills,
                        p.deaths,
                        p.time_ms / 60_000,
                        strip(&p.name),
                        p.team
                    )?;
                }
                for k in &m.kill_feed {
                    let secs = (k.server_time - m.level_start) / 1000;
                    writeln!(
                        f,
                        "  {:>3}:{:02}  {} -> {}  {} ({})",
                        secs / 60,
                        secs % 60,
                        k.attacker.as_deref().map(strip).unwrap_or_default(),
                        strip(&k.victim),
                        k.weapon,
                        k.kind.name()
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// Prints a report as text, or as the API's JSON.
fn show(report: impl Serialize + std::fmt::Display, json: bool) -> anyhow::Result<()> {
    if json {
        out(serde_json::to_string(&report)?)
    } else {
        out(report)
    }
}

pub fn list(args: MatchesArgs) -> anyhow::Result<()> {
    let report = match args.id {
        Some(id) => {
            let found = with_store(&args.store, move |store| matches::detail(store.exec()?, id))?
                .ok_or_else(|| anyhow::anyhow!("no match #{id}"))?;
            Report::One(Box::new(MatchDetail {
                summary: shown(found.summary.clone(), unix_ms()),
                ..found
            }))
        }
        None => {
            let filter = ListQuery {
                server: args.server.clone(),
                player: args.player.clone(),
                since: None,
                limit: Some(args.limit),
            }
            .filter();
            let now = unix_ms();
            Report::List(
                with_store(&args.store, move |store| {
                    matches::list(store.exec()?, &filter)
                })?
                .into_iter()
                .map(|m| shown(m, now))
                .collect(),
            )
        }
    };
    show(report, args.json)
}

#[derive(Serialize)]
#[serde(transparent)]
struct StatsReport(PlayerStats);

impl std::fmt::Display for StatsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = &self.0;
        let t = &p.totals;
        let kd = t.kills as f64 / t.deaths.max(1) as f64;
        writeln!(f, "{}", strip(&p.name))?;
        writeln!(
            f,
            "  {} kills, {} deaths (K/D {kd:.2}), {} suicides, {} team kills, {} min played",
            t.kills,
            t.deaths,
            t.suicides,
            t.team_kills,
            t.time_ms / 60_000
        )?;
        writeln!(
            f,
            "  {} matches: {} won, {} lost",
            t.matches, t.wins, t.losses
        )?;
        for r in &p.ratings {
            writeln!(
                f,
                "  rating {}: {:.1} ± {:.1} (ranked as {:.1}) after {} matches",
                r.gametype,
                r.mu,
                3.0 * r.sigma,
                r.mu - 3.0 * r.sigma,
                r.matches
            )?;
        }
        let top = |what: &[protocol::relay_api::matches::Count]| {
            what.iter()
                .take(5)
                .map(|c| format!("{} {}", c.what, c.count))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(f, "  weapons: {}", top(&p.weapons))?;
        writeln!(f, "  maps: {}", top(&p.maps))?;
        writeln!(f, "  servers: {}", top(&p.servers))?;
        for m in &p.recent {
            writeln!(f, "  {}  {}-{}", line(&m.summary), m.kills, m.deaths)?;
        }
        Ok(())
    }
}

pub fn stats(args: StatsArgs) -> anyhow::Result<()> {
    let key = name_key(&args.name);
    let found = with_store(&args.store, move |store| {
        matches::player(store.exec()?, &key, 20)
    })?
    .ok_or_else(|| anyhow::anyhow!("{}: in no followed match", args.name))?;
    let report = StatsReport(found);
    show(report, args.json)
}

#[derive(Serialize)]
#[serde(transparent)]
struct BoardReport(Vec<LeaderRow>);

impl std::fmt::Display for BoardReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return writeln!(f, "nobody has played enough matches");
        }
        for r in &self.0 {
            let rating = r
                .rating
                .as_ref()
                .map(|r| format!("{:.1} ± {:.1}", r.mu, 3.0 * r.sigma))
                .unwrap_or_default();
            writeln!(
                f,
                "{:>4}. {:<24} {:>6} kills {:>6} deaths {:>4} matches  {rating}",
                r.rank,
                strip(&r.name),
                r.totals.kills,
                r.totals.deaths,
                r.totals.matches
            )?;
        }
        Ok(())
    }
}

pub fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<()> {
    let board = BoardQuery {
        server: args.server.clone(),
        gametype: args.gametype.clone(),
        period: Some(args.period.clone()),
        min: Some(args.min_matches),
        limit: Some(args.limit),
    }
    .board(unix_ms())
    .map_err(|e| anyhow::anyhow!(e))?;
    let report = BoardReport(with_store(&args.store, move |store| {
        matches::leaderboard(store.exec()?, &board)
    })?);
    show(report, args.json)
}
