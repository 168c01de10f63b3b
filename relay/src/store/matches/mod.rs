//! Matches and what each name did in them: a row per match holding its [`record::Record`],
//! a row per name per match, and figures kept added up per name, server, gametype and day
//! (so a player's page and a leaderboard read sums, never kills), per weapon, and ratings.
//!
//! A followed match arrives in [`MatchPart`]s. Each write reads the match's stored record,
//! merges the part into it (each kill once), and adds to the figures only the difference the
//! merge made, so a part written twice, or a match continued after a restart, counts once.
//! The code is the same on both backends ([`exec::Exec`]).

pub mod exec;
mod packing;
pub mod record;
mod standings;
#[cfg(test)]
pub(super) mod suite;

use std::collections::BTreeMap;
use std::sync::LazyLock;

use protocol::relay_api::matches::{
    round_based, rounds, Count, MatchDetail, MatchEnd, MatchKill, MatchPlayer, MatchSummary,
    PlayedMatch, PlayerStats, Rating, RatingPoint, Totals,
};
use protocol::relay_api::watch::Team;
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

use self::exec::{Cell, Exec, Value};
use self::record::{Figures, Record};
use super::{name_key, to_i64, to_u64, Result, DAY_MS};

pub use self::standings::{leaderboard, Board, Period};
pub(super) use self::standings::{
    POSTGRES_SCHEMA as POSTGRES_STANDINGS, SQLITE_SCHEMA as SQLITE_STANDINGS,
};

/// The schema step that added matches, as SQLite spells it.
pub(super) const SQLITE_SCHEMA: &str = "
CREATE TABLE matches (id INTEGER PRIMARY KEY, series INTEGER NOT NULL, map TEXT NOT NULL,
    level_start INTEGER NOT NULL, gametype TEXT NOT NULL, hostname TEXT NOT NULL,
    start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, ended TEXT, kills INTEGER NOT NULL,
    players INTEGER NOT NULL, axis INTEGER, allies INTEGER, winner TEXT, rated INTEGER NOT NULL,
    demo TEXT, record BLOB NOT NULL, UNIQUE (series, map, level_start));
CREATE INDEX matches_start ON matches (start_ms);
CREATE INDEX matches_series ON matches (series, start_ms);
CREATE TABLE match_players (player INTEGER NOT NULL, match_id INTEGER NOT NULL, team INTEGER NOT NULL,
    kills INTEGER NOT NULL, deaths INTEGER NOT NULL, score INTEGER, place INTEGER,
    PRIMARY KEY (player, match_id)) WITHOUT ROWID;
CREATE INDEX match_players_match ON match_players (match_id);
CREATE TABLE player_stats (player INTEGER NOT NULL, series INTEGER NOT NULL, gametype TEXT NOT NULL,
    day INTEGER NOT NULL, kills INTEGER NOT NULL, deaths INTEGER NOT NULL, suicides INTEGER NOT NULL,
    team_kills INTEGER NOT NULL, time_ms INTEGER NOT NULL, matches INTEGER NOT NULL,
    wins INTEGER NOT NULL, losses INTEGER NOT NULL,
    PRIMARY KEY (player, series, gametype, day)) WITHOUT ROWID;
CREATE INDEX player_stats_day ON player_stats (day);
CREATE TABLE weapon_stats (player INTEGER NOT NULL, weapon TEXT NOT NULL, kills INTEGER NOT NULL,
    PRIMARY KEY (player, weapon)) WITHOUT ROWID;
CREATE TABLE ratings (player INTEGER NOT NULL, gametype TEXT NOT NULL, mu REAL NOT NULL,
    sigma REAL NOT NULL, matches INTEGER NOT NULL, PRIMARY KEY (player, gametype)) WITHOUT ROWID;
CREATE TABLE rating_history (player INTEGER NOT NULL, at_ms INTEGER NOT NULL, match_id INTEGER NOT NULL,
    gametype TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (player, at_ms, match_id)) WITHOUT ROWID;
";

/// The same step as PostgreSQL spells it.
pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE matches (id BIGSERIAL PRIMARY KEY, series BIGINT NOT NULL, map TEXT NOT NULL,
    level_start BIGINT NOT NULL, gametype TEXT NOT NULL, hostname TEXT NOT NULL,
    start_ms BIGINT NOT NULL, end_ms BIGINT NOT NULL, ended TEXT, kills BIGINT NOT NULL,
    players BIGINT NOT NULL, axis BIGINT, allies BIGINT, winner TEXT, rated BIGINT NOT NULL,
    demo TEXT, record BYTEA NOT NULL, UNIQUE (series, map, level_start));
CREATE INDEX matches_start ON matches (start_ms);
CREATE INDEX matches_series ON matches (series, start_ms);
CREATE TABLE match_players (player BIGINT NOT NULL, match_id BIGINT NOT NULL, team BIGINT NOT NULL,
    kills BIGINT NOT NULL, deaths BIGINT NOT NULL, score BIGINT, place BIGINT,
    PRIMARY KEY (player, match_id));
CREATE INDEX match_players_match ON match_players (match_id);
CREATE TABLE player_stats (player BIGINT NOT NULL, series BIGINT NOT NULL, gametype TEXT NOT NULL,
    day BIGINT NOT NULL, kills BIGINT NOT NULL, deaths BIGINT NOT NULL, suicides BIGINT NOT NULL,
    team_kills BIGINT NOT NULL, time_ms BIGINT NOT NULL, matches BIGINT NOT NULL,
    wins BIGINT NOT NULL, losses BIGINT NOT NULL, PRIMARY KEY (player, series, gametype, day));
CREATE INDEX player_stats_day ON player_stats (day);
CREATE TABLE weapon_stats (player BIGINT NOT NULL, weapon TEXT NOT NULL, kills BIGINT NOT NULL,
    PRIMARY KEY (player, weapon));
CREATE TABLE ratings (player BIGINT NOT NULL, gametype TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL, matches BIGINT NOT NULL, PRIMARY KEY (player, gametype));
CREATE TABLE rating_history (player BIGINT NOT NULL, at_ms BIGINT NOT NULL, match_id BIGINT NOT NULL,
    gametype TEXT NOT NULL, mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, at_ms, match_id));
";

/// A part of one followed match, as its tap sends it: what happened since the last part.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchPart {
    /// `ip:port`.
    pub server: String,
    pub map: String,
    pub level_start: i32,
    pub gametype: String,
    pub hostname: String,
    /// When the level started, by the relay's clock.
    pub start_ms: u64,
    /// The relay's clock at the latest thing in the part.
    pub end_ms: u64,
    pub ended: Option<MatchEnd>,
    pub record: Record,
    /// The demo file the hub was recording the match to.
    pub demo: Option<String>,
    /// In a cluster: the hub lease's fencing token the part was followed under; a part under
    /// a token lower than one written before for the server is refused.
    pub fence: Option<u64>,
}

impl MatchPart {
    /// The match it belongs to.
    pub fn key(&self) -> (String, String, i32) {
        (self.server.clone(), self.map.clone(), self.level_start)
    }

    /// Takes in a later part of the same match.
    pub fn merge(&mut self, later: MatchPart) {
        self.record.merge(&later.record);
        self.end_ms = self.end_ms.max(later.end_ms);
        self.start_ms = self.start_ms.min(later.start_ms);
        self.ended = later.ended.or(self.ended);
        self.hostname = later.hostname;
        self.demo = later.demo.or(self.demo.take());
        self.fence = self.fence.max(later.fence);
    }
}

fn end_code(end: MatchEnd) -> &'static str {
    match end {
        MatchEnd::MapChange => "map_change",
        MatchEnd::MapRestart => "map_restart",
        MatchEnd::Intermission => "intermission",
        MatchEnd::SessionLost => "session_lost",
    }
}

fn end_of(code: Option<String>) -> Option<MatchEnd> {
    Some(match code?.as_str() {
        "map_change" => MatchEnd::MapChange,
        "map_restart" => MatchEnd::MapRestart,
        "intermission" => MatchEnd::Intermission,
        _ => MatchEnd::SessionLost,
    })
}

fn team_code(team: Team) -> i64 {
    match team {
        Team::Free => 0,
        Team::Axis => 1,
        Team::Allies => 2,
        Team::Spectator => 3,
    }
}

pub(crate) fn int(v: u64) -> Value<'static> {
    Value::Int(to_i64(v))
}

fn series_id(db: &mut dyn Exec, name: &str) -> Result<i64> {
    db.exec(super::sql::PUT_SERIES, &[Value::Text(name)])?;
    let rows = db.rows(super::sql::SERIES_ID, &[Value::Text(name)])?;
    Ok(rows.first().map_or(0, |r| r[0].int()))
}

fn player_id(db: &mut dyn Exec, name: &str, at_ms: u64, series: i64) -> Result<i64> {
    let rows = db.rows(
        super::sql::PUT_PLAYER,
        &[
            Value::Text(&name_key(name)),
            Value::Text(name),
            int(at_ms),
            Value::Int(series),
        ],
    )?;
    Ok(rows.first().map_or(0, |r| r[0].int()))
}

const STORED: &str = "SELECT id, start_ms, ended, rated, record, demo FROM matches \
     WHERE series = $1 AND map = $2 AND level_start = $3";
const INSERT_MATCH: &str = "INSERT INTO matches (series, map, level_start, gametype, hostname, \
     start_ms, end_ms, ended, kills, players, axis, allies, winner, rated, demo, record) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, $14, $15) RETURNING id";
/// SQLite numbers `$N` parameters in the order they first appear, so they appear in order.
const UPDATE_MATCH: &str = "UPDATE matches SET gametype = $1, hostname = $2, start_ms = $3, \
     end_ms = $4, ended = $5, kills = $6, players = $7, axis = $8, allies = $9, winner = $10, \
     demo = $11, record = $12 WHERE id = $13";
const PUT_MATCH_PLAYER: &str =
    "INSERT INTO match_players (player, match_id, team, kills, deaths, score, place) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player, match_id) DO UPDATE SET \
     team = excluded.team, kills = excluded.kills, deaths = excluded.deaths, \
     score = excluded.score, place = excluded.place";
/// Adds a name's gains to its daily figures.
static ADD_STATS: LazyLock<String> = LazyLock::new(|| {
    standings::adding(
        "player_stats",
        "player, series, gametype, day, kills, deaths, suicides, team_kills, time_ms, matches, \
         wins, losses",
        "player, series, gametype, day",
        &["($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)".to_owned()],
    )
});
const ADD_WEAPON: &str = "INSERT INTO weapon_stats (player, weapon, kills) VALUES ($1, $2, $3) \
     ON CONFLICT (player, weapon) DO UPDATE SET kills = weapon_stats.kills + excluded.kills";
const RATING_OF: &str =
    "SELECT mu, sigma, matches FROM ratings WHERE player = $1 AND gametype = $2";
const PUT_RATING: &str = "INSERT INTO ratings (player, gametype, mu, sigma, matches) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player, gametype) DO UPDATE SET \
     mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches";
const PUT_RATING_POINT: &str =
    "INSERT INTO rating_history (player, at_ms, match_id, gametype, mu, sigma) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (player, at_ms, match_id) DO NOTHING";

/// Who won a finished match: a side, `draw`, or the best name.
fn winner(record: &Record) -> Option<String> {
    let board = record.board.as_ref()?;
    if record.teams() {
        return Some(
            match board.axis.cmp(&board.allies) {
                std::cmp::Ordering::Greater => "axis",
                std::cmp::Ordering::Less => "allies",
                std::cmp::Ordering::Equal => "draw",
            }
            .to_owned(),
        );
    }
    board
        .rows
        .iter()
        .filter(|r| r.1 != Team::Spectator)
        .max_by_key(|r| r.2)
        .map(|r| record.names[r.0 as usize].clone())
}

/// Raises a hub's fence to the token, or changes nothing when a greater one is there.
const HUB_FENCE: &str = "INSERT INTO fence (name, token) VALUES ($1, $2) \
     ON CONFLICT (name) DO UPDATE SET token = excluded.token WHERE fence.token <= excluded.token";

/// Writes parts of matches, each merged into what is stored, in the caller's transaction.
/// Names in `hidden` (keys) are kept in the match's record but given no figures. A part
/// fenced off (another relay took the server's hub over with a greater token) is dropped; the
/// parts dropped are counted.
pub fn write_parts(
    db: &mut dyn Exec,
    parts: &[MatchPart],
    hidden: &dyn Fn(&str) -> bool,
) -> Result<usize> {
    let mut fenced = 0;
    for part in parts {
        if let Some(token) = part.fence {
            let name = format!("hub.{}", part.server);
            if db.exec(HUB_FENCE, &[Value::Text(&name), int(token)])? == 0 {
                fenced += 1;
                continue;
            }
        }
        write_part(db, part, hidden)?;
    }
    Ok(fenced)
}

fn write_part(db: &mut dyn Exec, part: &MatchPart, hidden: &dyn Fn(&str) -> bool) -> Result<()> {
    let series = series_id(db, &part.server)?;
    let key = [
        Value::Int(series),
        Value::Text(&part.map),
        Value::Int(part.level_start.into()),
    ];
    let stored = db.rows(STORED, &key)?.into_iter().next();
    let (old, old_end, rated, start_ms, demo) = match &stored {
        Some(row) => (
            Record::decode(row[4].blob())
                .map_err(|_| super::StoreError::Corrupt("a match record"))?,
            end_of(row[2].opt_text()),
            row[3].int() != 0,
            to_u64(row[1].int()).min(part.start_ms),
            row[5].opt_text().or(part.demo.clone()),
        ),
        None => (
            Record::default(),
            None,
            false,
            part.start_ms,
            part.demo.clone(),
        ),
    };
    let mut merged = old.clone();
    merged.merge(&part.record);
    // A finished match stays finished; otherwise the latest word counts (a part without an
    // end: the match is followed again).
    let ended = match old_end {
        Some(MatchEnd::Intermission) => old_end,
        _ => part.ended,
    };
    let was_finished = old_end == Some(MatchEnd::Intermission);
    let finished = ended == Some(MatchEnd::Intermission);
    let won = finished.then(|| winner(&merged)).flatten();
    let board = merged.board.as_ref();
    let teams = merged.teams();
    let (axis, allies) = match board {
        Some(b) if teams => (Value::Int(b.axis.into()), Value::Int(b.allies.into())),
        _ => (Value::Null, Value::Null),
    };
    let encoded = merged.encode();
    let figures = merged.figures(finished);
    let players = figures.len() as u64;
    let ended_text = ended.map(end_code);
    fn text_or_null(v: &Option<String>) -> Value<'_> {
        v.as_deref().map_or(Value::Null, Value::Text)
    }
    let end_ms = part.end_ms;
    // The match's fields, in the order both statements take them.
    let fields = [
        Value::Text(&part.gametype),
        Value::Text(&part.hostname),
        int(start_ms),
        int(end_ms),
        ended_text.map_or(Value::Null, Value::Text),
        int(merged.kills.len() as u64),
        int(players),
        axis,
        allies,
        text_or_null(&won),
        text_or_null(&demo),
        Value::Blob(&encoded),
    ];
    let id = match &stored {
        Some(row) => {
            let id = row[0].int();
            let params: Vec<Value> = fields.into_iter().chain([Value::Int(id)]).collect();
            db.exec(UPDATE_MATCH, &params)?;
            id
        }
        None => {
            let params: Vec<Value> = key.into_iter().chain(fields).collect();
            let rows = db.rows(INSERT_MATCH, &params)?;
            rows.first().map_or(0, |r| r[0].int())
        }
    };
    let before = old.figures(was_finished);
    let day = to_i64(start_ms / DAY_MS);
    let mut ids = BTreeMap::new();
    for (key, now) in &figures {
        if key.is_empty() || hidden(key) {
            continue;
        }
        let player = player_id(db, &now.name, end_ms, series)?;
        ids.insert(key.clone(), player);
        let placed = |f: &Figures| f.outcome.map_or(Value::Null, |p| Value::Int(p.into()));
        db.exec(
            PUT_MATCH_PLAYER,
            &[
                Value::Int(player),
                Value::Int(id),
                Value::Int(team_code(now.team)),
                Value::Int(now.kills.into()),
                Value::Int(now.deaths.into()),
                now.score.map_or(Value::Null, |s| Value::Int(s.into())),
                placed(now),
            ],
        )?;
        let was = before.get(key).cloned().unwrap_or_default();
        let diff = |a: u32, b: u32| Value::Int(i64::from(a) - i64::from(b));
        let win = |f: &Figures| u32::from(f.outcome == Some(1));
        let loss = |f: &Figures| u32::from(f.outcome.is_some_and(|p| p > 1));
        let gained: standings::Gained = [
            diff(now.kills, was.kills),
            diff(now.deaths, was.deaths),
            diff(now.suicides, was.suicides),
            diff(now.team_kills, was.team_kills),
            Value::Int(to_i64(now.time_ms) - to_i64(was.time_ms)),
            Value::Int(i64::from(!before.contains_key(key))),
            diff(win(now), win(&was)),
            diff(loss(now), loss(&was)),
        ];
        let daily = [
            Value::Int(player),
            Value::Int(series),
            Value::Text(&part.gametype),
            Value::Int(day),
        ];
        let params: Vec<Value> = daily.into_iter().chain(gained).collect();
        db.exec(&ADD_STATS, &params)?;
        standings::add(db, player, series, &part.gametype, day, gained)?;
        for (weapon, kills) in &now.weapons {
            let more = kills - was.weapons.get(weapon).copied().unwrap_or(0);
            if more > 0 {
                db.exec(
                    ADD_WEAPON,
                    &[
                        Value::Int(player),
                        Value::Text(weapon),
                        Value::Int(more.into()),
                    ],
                )?;
            }
        }
    }
    if finished && !rated {
        rate(db, id, end_ms, &part.gametype, &figures, &ids)?;
    }
    Ok(())
}

/// A rated name: its player id, its rating before the match, its matches rated so far.
type Member = (i64, WengLinRating, i64);

/// Rates a finished match once: each side a team (in free-for-all each name its own), ranked
/// by place. Weng-Lin (the Bayesian approximation behind OpenSkill) takes teams of any size
/// and any number of them in one update, so one model serves both kinds of gametype, and
/// it keeps an uncertainty that shrinks with each match.
fn rate(
    db: &mut dyn Exec,
    match_id: i64,
    at_ms: u64,
    gametype: &str,
    figures: &BTreeMap<String, Figures>,
    ids: &BTreeMap<String, i64>,
) -> Result<()> {
    let teams = figures
        .values()
        .any(|f| matches!(f.team, Team::Axis | Team::Allies));
    // Team (or name) -> (place, its members).
    let mut sides: BTreeMap<String, (u32, Vec<Member>)> = BTreeMap::new();
    for (key, f) in figures {
        let (Some(place), Some(&player)) = (f.outcome, ids.get(key)) else {
            continue;
        };
        let row = db.rows(RATING_OF, &[Value::Int(player), Value::Text(gametype)])?;
        let (rating, matches) = row.first().map_or((WengLinRating::new(), 0), |r| {
            (
                WengLinRating {
                    rating: r[0].real(),
                    uncertainty: r[1].real(),
                },
                r[2].int(),
            )
        });
        let side = if teams {
            format!("{:?}", f.team)
        } else {
            key.clone()
        };
        let entry = sides.entry(side).or_insert((place, Vec::new()));
        entry.1.push((player, rating, matches));
    }
    if sides.len() < 2 {
        return Ok(());
    }
    let sides: Vec<_> = sides.into_values().collect();
    let ratings: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|(_, members)| members.iter().map(|m| m.1).collect())
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
        .iter()
        .zip(&sides)
        .map(|(r, (place, _))| (&r[..], MultiTeamOutcome::new(*place as usize)))
        .collect();
    let rated = weng_lin_multi_team(&input, &WengLinConfig::new());
    for ((_, members), new) in sides.iter().zip(rated) {
        for ((player, _, matches), r) in members.iter().zip(new) {
            db.exec(
                PUT_RATING,
                &[
                    Value::Int(*player),
                    Value::Text(gametype),
                    Value::Real(r.rating),
                    Value::Real(r.uncertainty),
                    Value::Int(matches + 1),
                ],
            )?;
            db.exec(
                PUT_RATING_POINT,
                &[
                    Value::Int(*player),
                    int(at_ms),
                    Value::Int(match_id),
                    Value::Text(gametype),
                    Value::Real(r.rating),
                    Value::Real(r.uncertainty),
                ],
            )?;
        }
    }
    db.exec(
        "UPDATE matches SET rated = 1 WHERE id = $1",
        &[Value::Int(match_id)],
    )?;
    Ok(())
}

/// Which matches a list asks for.
#[derive(Clone, Debug, Default)]
pub struct MatchFilter {
    pub server: Option<String>,
    /// A name key.
    pub player: Option<String>,
    pub since_ms: u64,
    pub limit: u32,
}

const SUMMARY: &str = "m.id, s.name, m.hostname, m.map, m.gametype, m.start_ms, m.end_ms, \
     m.ended, m.kills, m.players, m.axis, m.allies, m.winner, m.demo";

fn summary(row: &[Cell]) -> MatchSummary {
    MatchSummary {
        id: to_u64(row[0].int()),
        server: row[1].text(),
        hostname: row[2].text(),
        map: row[3].text(),
        gametype: row[4].text(),
        start_ms: to_u64(row[5].int()),
        end_ms: to_u64(row[6].int()),
        ended: end_of(row[7].opt_text()),
        kills: row[8].int() as u32,
        players: row[9].int() as u32,
        axis: row[10].opt_int().map(|v| v as i32),
        allies: row[11].opt_int().map(|v| v as i32),
        winner: row[12].opt_text(),
        demo: row[13].opt_text(),
    }
}

/// How many matches started on each server (`ip:port`) since `since_ms`.
pub fn started_since(db: &mut dyn Exec, since_ms: u64) -> Result<BTreeMap<String, u32>> {
    let rows = db.rows(
        "SELECT s.name, COUNT(*) FROM matches m JOIN series s ON s.id = m.series \
         WHERE m.start_ms >= $1 GROUP BY s.name",
        &[int(since_ms)],
    )?;
    Ok(rows
        .iter()
        .map(|r| (r[0].text(), u32::try_from(r[1].int()).unwrap_or(u32::MAX)))
        .collect())
}

/// Matches newest first.
pub fn list(db: &mut dyn Exec, filter: &MatchFilter) -> Result<Vec<MatchSummary>> {
    let sql = format!(
        "SELECT {SUMMARY} FROM matches m JOIN series s ON s.id = m.series \
         WHERE m.start_ms >= $1 AND ($2 = '' OR s.name = $2) AND ($3 = '' OR m.id IN \
         (SELECT x.match_id FROM match_players x JOIN players p ON p.id = x.player WHERE p.key = $3)) \
         ORDER BY m.start_ms DESC, m.id DESC LIMIT $4"
    );
    let rows = db.rows(
        &sql,
        &[
            int(filter.since_ms),
            Value::Text(filter.server.as_deref().unwrap_or("")),
            Value::Text(filter.player.as_deref().unwrap_or("")),
            Value::Int(filter.limit.into()),
        ],
    )?;
    Ok(rows.iter().map(|r| summary(r)).collect())
}

/// One match whole.
pub fn detail(db: &mut dyn Exec, id: u64) -> Result<Option<MatchDetail>> {
    let sql = format!(
        "SELECT {SUMMARY}, m.level_start, m.record FROM matches m \
         JOIN series s ON s.id = m.series WHERE m.id = $1"
    );
    let Some(row) = db.rows(&sql, &[int(id)])?.into_iter().next() else {
        return Ok(None);
    };
    let summary = summary(&row);
    let finished = summary.ended == Some(MatchEnd::Intermission);
    let record =
        Record::decode(row[15].blob()).map_err(|_| super::StoreError::Corrupt("a match record"))?;
    let name = |id: u32| record.names[id as usize].clone();
    let kill_feed = record
        .kills
        .iter()
        .map(|k| MatchKill {
            server_time: k.t,
            attacker: k.attacker.map(name),
            attacker_team: k.attacker_team,
            victim: name(k.victim),
            victim_team: k.victim_team,
            weapon: record.weapons[k.weapon as usize].clone(),
            kind: k.kind,
            attacker_origin: k.attacker_at,
            victim_origin: k.victim_at,
        })
        .collect();
    let mut scoreboard: Vec<MatchPlayer> = record
        .figures(finished)
        .into_values()
        .map(|f| MatchPlayer {
            name: f.name,
            team: f.team,
            score: f.score,
            kills: f.kills,
            deaths: f.deaths,
            suicides: f.suicides,
            team_kills: f.team_kills,
            time_ms: f.time_ms,
            place: f.outcome,
        })
        .collect();
    scoreboard.sort_by_key(|p| {
        (
            std::cmp::Reverse(p.score.unwrap_or(p.kills as i32)),
            p.deaths,
        )
    });
    let rounds = if round_based(&summary.gametype) {
        rounds(&record.team_scores)
    } else {
        Vec::new()
    };
    Ok(Some(MatchDetail {
        summary,
        level_start: row[14].int() as i32,
        scoreboard,
        kill_feed,
        rounds,
        team_scores: record.team_scores,
    }))
}

pub(super) const TOTALS: &str = "CAST(SUM(t.kills) AS BIGINT), CAST(SUM(t.deaths) AS BIGINT), \
     CAST(SUM(t.suicides) AS BIGINT), CAST(SUM(t.team_kills) AS BIGINT), \
     CAST(SUM(t.time_ms) AS BIGINT), CAST(SUM(t.matches) AS BIGINT), \
     CAST(SUM(t.wins) AS BIGINT), CAST(SUM(t.losses) AS BIGINT)";

pub(super) fn totals(row: &[Cell]) -> Totals {
    let n = |i: usize| to_u64(row[i].int());
    Totals {
        kills: n(0),
        deaths: n(1),
        suicides: n(2),
        team_kills: n(3),
        time_ms: n(4),
        matches: n(5),
        wins: n(6),
        losses: n(7),
    }
}

fn counts(rows: Vec<Vec<Cell>>) -> Vec<Count> {
    rows.iter()
        .map(|r| Count {
            what: r[0].text(),
            count: to_u64(r[1].int()),
        })
        .collect()
}

fn rating(row: &[Cell]) -> Rating {
    Rating {
        gametype: row[0].text(),
        mu: row[1].real(),
        sigma: row[2].real(),
        matches: row[3].int() as u32,
    }
}

/// A name's record; `None` when it has played no followed match.
pub fn player(db: &mut dyn Exec, key: &str, recent: u32) -> Result<Option<PlayerStats>> {
    let Some(found) = db
        .rows(
            "SELECT p.id, p.name, p.last_ms, s.name FROM players p \
             LEFT JOIN series s ON s.id = p.last_series WHERE p.key = $1",
            &[Value::Text(key)],
        )?
        .into_iter()
        .next()
    else {
        return Ok(None);
    };
    let id = Value::Int(found[0].int());
    let sums = db.rows(
        &format!("SELECT {TOTALS} FROM player_stats t WHERE t.player = $1"),
        &[id],
    )?;
    let totals = totals(&sums[0]);
    if totals.matches == 0 {
        return Ok(None);
    }
    let weapons = counts(db.rows(
        "SELECT weapon, kills FROM weapon_stats WHERE player = $1 ORDER BY kills DESC, weapon",
        &[id],
    )?);
    let servers = counts(db.rows(
        "SELECT s.name, CAST(SUM(t.matches) AS BIGINT) AS n FROM player_stats t \
         JOIN series s ON s.id = t.series WHERE t.player = $1 GROUP BY s.name ORDER BY n DESC, s.name",
        &[id],
    )?);
    let maps = counts(db.rows(
        "SELECT m.map, COUNT(*) AS n FROM match_players x JOIN matches m ON m.id = x.match_id \
         WHERE x.player = $1 GROUP BY m.map ORDER BY n DESC, m.map",
        &[id],
    )?);
    let ratings = db
        .rows(
            "SELECT gametype, mu, sigma, matches FROM ratings WHERE player = $1 \
             ORDER BY mu - 3 * sigma DESC",
            &[id],
        )?
        .iter()
        .map(|r| rating(r))
        .collect();
    let rating_history = db
        .rows(
            "SELECT at_ms, match_id, gametype, mu, sigma FROM rating_history WHERE player = $1 \
             ORDER BY at_ms, match_id",
            &[id],
        )?
        .iter()
        .map(|r| RatingPoint {
            at_ms: to_u64(r[0].int()),
            match_id: to_u64(r[1].int()),
            gametype: r[2].text(),
            mu: r[3].real(),
            sigma: r[4].real(),
        })
        .collect();
    let recent = db
        .rows(
            &format!(
                "SELECT {SUMMARY}, x.kills, x.deaths, x.score, x.place FROM match_players x \
                 JOIN matches m ON m.id = x.match_id JOIN series s ON s.id = m.series \
                 WHERE x.player = $1 ORDER BY x.match_id DESC LIMIT $2"
            ),
            &[id, Value::Int(recent.into())],
        )?
        .iter()
        .map(|r| PlayedMatch {
            summary: summary(r),
            kills: r[14].int() as u32,
            deaths: r[15].int() as u32,
            score: r[16].opt_int().map(|v| v as i32),
            place: r[17].opt_int().map(|v| v as u32),
        })
        .collect();
    Ok(Some(PlayerStats {
        key: key.to_owned(),
        name: found[1].text(),
        totals,
        weapons,
        maps,
        servers,
        ratings,
        rating_history,
        recent,
        last_seen_ms: found[2].opt_int().map(to_u64),
        last_server: found[3].opt_text(),
    }))
}

/// Drops matches that ended before `before_ms` with their per-name rows; the figures stay.
pub fn expire(db: &mut dyn Exec, before_ms: u64) -> Result<u64> {
    db.exec(
        "DELETE FROM match_players WHERE match_id IN (SELECT id FROM matches WHERE end_ms < $1)",
        &[int(before_ms)],
    )?;
    db.exec("DELETE FROM matches WHERE end_ms < $1", &[int(before_ms)])
}
