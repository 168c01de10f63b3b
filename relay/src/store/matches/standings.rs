//! Leaderboards read from standings: what each name did in a calendar week, a calendar month
//! and all time, on each server and on all of them together, per gametype, added to as each
//! match is written. A board is then one scope's rows (a server's: some thousands) or, site-wide
//! by rating, a walk down the ratings' index that stops at the board's length; never the kills
//! or the daily figures of every name.
//!
//! Weeks start on Monday and months on the 1st, at 00:00 UTC, so "this week" is a week that
//! fills as it goes and whose board everyone sees the same.

use std::sync::LazyLock;

use protocol::relay_api::matches::{LeaderRow, Rating};

use super::exec::{Exec, Value};
use super::{int, totals, Result};
use crate::store::{to_i64, DAY_MS};

/// The schema step that added standings (version 5), as SQLite spells it: standings filled
/// from the daily figures kept so far; the daily figures lose the index only the old boards
/// read; ratings get the order boards rank by.
pub(in crate::store) const SQLITE_SCHEMA: &str = "
CREATE TABLE standings (period INTEGER NOT NULL, since_day INTEGER NOT NULL, series INTEGER NOT NULL,
    gametype TEXT NOT NULL, player INTEGER NOT NULL, kills INTEGER NOT NULL, deaths INTEGER NOT NULL,
    suicides INTEGER NOT NULL, team_kills INTEGER NOT NULL, time_ms INTEGER NOT NULL,
    matches INTEGER NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL,
    PRIMARY KEY (period, since_day, series, gametype, player)) WITHOUT ROWID;
INSERT INTO standings (period, since_day, series, gametype, player, kills, deaths, suicides,
    team_kills, time_ms, matches, wins, losses)
SELECT period, since_day, scope, gametype, player, SUM(kills), SUM(deaths), SUM(suicides),
    SUM(team_kills), SUM(time_ms), SUM(matches), SUM(wins), SUM(losses)
FROM (SELECT p.period, CASE p.period WHEN 0 THEN 0 WHEN 1 THEN t.day - (t.day + 3) % 7
        ELSE CAST(strftime('%s', t.day * 86400, 'unixepoch', 'start of month') AS INTEGER) / 86400
        END AS since_day, t.series * s.own AS scope, t.*
    FROM player_stats t CROSS JOIN (SELECT 0 AS period UNION ALL SELECT 1 UNION ALL SELECT 2) p
    CROSS JOIN (SELECT 0 AS own UNION ALL SELECT 1) s)
GROUP BY period, since_day, scope, gametype, player;
DROP INDEX player_stats_day;
CREATE INDEX ratings_rank ON ratings (gametype, (mu - 3 * sigma));
";

/// The same step as PostgreSQL spells it.
pub(in crate::store) const POSTGRES_SCHEMA: &str = "
CREATE TABLE standings (period BIGINT NOT NULL, since_day BIGINT NOT NULL, series BIGINT NOT NULL,
    gametype TEXT NOT NULL, player BIGINT NOT NULL, kills BIGINT NOT NULL, deaths BIGINT NOT NULL,
    suicides BIGINT NOT NULL, team_kills BIGINT NOT NULL, time_ms BIGINT NOT NULL,
    matches BIGINT NOT NULL, wins BIGINT NOT NULL, losses BIGINT NOT NULL,
    PRIMARY KEY (period, since_day, series, gametype, player));
INSERT INTO standings (period, since_day, series, gametype, player, kills, deaths, suicides,
    team_kills, time_ms, matches, wins, losses)
SELECT period, since_day, scope, gametype, player, SUM(kills), SUM(deaths), SUM(suicides),
    SUM(team_kills), SUM(time_ms), SUM(matches), SUM(wins), SUM(losses)
FROM (SELECT p.period, CASE p.period WHEN 0 THEN 0 WHEN 1 THEN t.day - (t.day + 3) % 7
        ELSE CAST(EXTRACT(EPOCH FROM date_trunc('month',
            to_timestamp(t.day * 86400) AT TIME ZONE 'UTC')) AS BIGINT) / 86400
        END AS since_day, t.series * s.own AS scope, t.*
    FROM player_stats t CROSS JOIN (SELECT 0 AS period UNION ALL SELECT 1 UNION ALL SELECT 2) p
    CROSS JOIN (SELECT 0 AS own UNION ALL SELECT 1) s) AS spread
GROUP BY period, since_day, scope, gametype, player;
DROP INDEX player_stats_day;
CREATE INDEX ratings_rank ON ratings (gametype, (mu - 3 * sigma));
";

/// What a board covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Period {
    /// The calendar week (from Monday, UTC).
    Week,
    /// The calendar month.
    Month,
    #[default]
    All,
}

impl Period {
    const EVERY: [Period; 3] = [Period::All, Period::Week, Period::Month];

    fn code(self) -> i64 {
        match self {
            Period::All => 0,
            Period::Week => 1,
            Period::Month => 2,
        }
    }

    /// The first day (days since 1970-01-01) of the period holding `day`.
    pub fn first_day(self, day: i64) -> i64 {
        // 1970-01-01 is the Julian day 2440588 and a Thursday.
        const EPOCH: i64 = 2_440_588;
        match self {
            Period::All => 0,
            Period::Week => day - (day + 3).rem_euclid(7),
            Period::Month => i32::try_from(day + EPOCH)
                .ok()
                .and_then(|j| time::Date::from_julian_day(j).ok())
                .and_then(|d| d.replace_day(1).ok())
                .map_or(day, |d| i64::from(d.to_julian_day()) - EPOCH),
        }
    }
}

/// The figures a name gained in one write, in the order [`add`]'s statement takes them.
pub(super) type Gained<'a> = [Value<'a>; 8];

const FIGURES: [&str; 8] = [
    "kills",
    "deaths",
    "suicides",
    "team_kills",
    "time_ms",
    "matches",
    "wins",
    "losses",
];

/// An upsert of `rows` into `table` (`columns` in the rows' order, the figures among them)
/// that adds the figures to a row already there.
pub(super) fn adding(table: &str, columns: &str, key: &str, rows: &[String]) -> String {
    let sums: Vec<String> = FIGURES
        .iter()
        .map(|f| format!("{f} = {table}.{f} + excluded.{f}"))
        .collect();
    format!(
        "INSERT INTO {table} ({columns}) VALUES {} ON CONFLICT ({key}) DO UPDATE SET {}",
        rows.join(", "),
        sums.join(", ")
    )
}

/// The statement [`add`] runs, made once: the shared values first ($1-$10), then each row's
/// period, first day and server, so the numbers appear in order as SQLite counts them.
static ADD: LazyLock<String> = LazyLock::new(|| {
    let rows: Vec<String> = (0..6)
        .map(|i| {
            let b = 11 + 3 * i;
            format!(
                "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${b}, ${}, ${})",
                b + 1,
                b + 2
            )
        })
        .collect();
    adding(
        "standings",
        &format!(
            "gametype, player, {}, period, since_day, series",
            FIGURES.join(", ")
        ),
        "period, since_day, series, gametype, player",
        &rows,
    )
});

/// Adds what a name gained in a match to its standings: each period the match's day falls in,
/// on the match's server and on all servers. Nothing is written for a write that gained nothing.
pub(super) fn add(
    db: &mut dyn Exec,
    player: i64,
    series: i64,
    gametype: &str,
    day: i64,
    gained: Gained,
) -> Result<()> {
    if gained.iter().all(|v| matches!(v, Value::Int(0))) {
        return Ok(());
    }
    let mut params: Vec<Value> = vec![Value::Text(gametype), Value::Int(player)];
    params.extend(gained);
    for period in Period::EVERY {
        for scope in [series, 0] {
            params.extend([
                Value::Int(period.code()),
                Value::Int(period.first_day(day)),
                Value::Int(scope),
            ]);
        }
    }
    db.exec(&ADD, &params)?;
    Ok(())
}

/// What a leaderboard asks for.
#[derive(Clone, Debug, Default)]
pub struct Board {
    pub server: Option<String>,
    pub gametype: Option<String>,
    pub period: Period,
    /// A moment in the week or month asked for (now, for the current one).
    pub at_ms: u64,
    /// Fewer matches than this in the period and a name is not listed.
    pub min_matches: u32,
    pub limit: u32,
}

const ROW: &str = "t.kills, t.deaths, t.suicides, t.team_kills, t.time_ms, t.matches, t.wins, \
     t.losses, p.key, p.name";

/// Names ranked: by the gametype's rating (`mu - 3 sigma`; names not yet rated are left off)
/// when one is asked for, else by kills in every gametype together.
pub fn leaderboard(db: &mut dyn Exec, board: &Board) -> Result<Vec<LeaderRow>> {
    let series = match &board.server {
        None => 0,
        Some(server) => {
            let found = db.rows(
                "SELECT id FROM series WHERE name = $1",
                &[Value::Text(server)],
            )?;
            match found.first() {
                Some(row) => row[0].int(),
                None => return Ok(Vec::new()),
            }
        }
    };
    let period = board.period;
    let since = period.first_day(to_i64(board.at_ms / DAY_MS));
    let gametype = board.gametype.as_deref().unwrap_or("");
    let scope = [
        Value::Int(period.code()),
        Value::Int(since),
        Value::Int(series),
    ];
    let rows = if board.gametype.is_none() {
        let sql = format!(
            "SELECT {TOTALS}, p.key, p.name, NULL, NULL, NULL FROM standings t \
             JOIN players p ON p.id = t.player \
             WHERE t.period = $1 AND t.since_day = $2 AND t.series = $3 \
             GROUP BY p.id, p.key, p.name HAVING CAST(SUM(t.matches) AS BIGINT) >= $4 \
             ORDER BY 1 DESC, p.key LIMIT $5",
            TOTALS = super::TOTALS
        );
        let params: Vec<Value> = scope
            .into_iter()
            .chain([int(board.min_matches.into()), int(board.limit.into())])
            .collect();
        db.rows(&sql, &params)?
    } else if let Some(rows) = (series == 0)
        .then(|| walked(db, gametype, &scope, board))
        .transpose()?
        .flatten()
    {
        rows
    } else {
        // One server's names in the period, a few thousand at most, then their ratings; or
        // every name's, when few of the best rated played in it.
        let sql = format!(
            "SELECT {ROW}, r.mu, r.sigma, r.matches FROM standings t {} {} \
             WHERE t.period = $1 AND t.since_day = $2 AND t.series = $3 AND t.gametype = $4 \
             AND t.matches >= $5 ORDER BY r.mu - 3 * r.sigma DESC, p.key LIMIT $6",
            joined(
                db,
                "ratings",
                "r",
                "r.player = t.player AND r.gametype = t.gametype"
            ),
            joined(db, "players", "p", "p.id = t.player"),
        );
        let params: Vec<Value> = scope
            .into_iter()
            .chain([
                Value::Text(gametype),
                int(board.min_matches.into()),
                int(board.limit.into()),
            ])
            .collect();
        db.rows(&sql, &params)?
    };
    Ok(rows
        .iter()
        .enumerate()
        .map(|(i, r)| LeaderRow {
            rank: i as u32 + 1,
            key: r[8].text(),
            name: r[9].text(),
            totals: totals(r),
            rating: r[10].opt_int().map(|_| Rating {
                gametype: gametype.to_owned(),
                mu: r[10].real(),
                sigma: r[11].real(),
                matches: r[12].int() as u32,
            }),
        })
        .collect())
}

/// Joins `table` as `alias` on `on`, read after what comes before it, a row looked up by its
/// key for each row before. Left to choose, PostgreSQL's planner (sure that hashing a whole
/// table beats a few thousand look-ups) reads every name and rating for a board of a hundred,
/// and SQLite's reads the period's rows first; a `LATERAL` subquery that cannot be flattened
/// (`OFFSET 0`) and SQLite's `CROSS JOIN` keep the order written.
fn joined(db: &dyn Exec, table: &str, alias: &str, on: &str) -> String {
    if db.postgres() {
        format!("CROSS JOIN LATERAL (SELECT * FROM {table} {alias} WHERE {on} OFFSET 0) {alias}")
    } else {
        format!("CROSS JOIN {table} {alias} ON {on}")
    }
}

/// A site-wide board by rating: the ratings' index read best first, a few times the board's
/// length at a time, each of those names' standings read by its key, until the board is full
/// or the ratings run out. `None` when so few of the best played in the period that reading
/// the period's own rows is the shorter way.
fn walked(
    db: &mut dyn Exec,
    gametype: &str,
    scope: &[Value; 3],
    board: &Board,
) -> Result<Option<Vec<Vec<super::exec::Cell>>>> {
    const MOST: i64 = 4096;
    let limit = i64::from(board.limit.max(1));
    let sql = format!(
        "SELECT {ROW}, r.mu, r.sigma, r.matches FROM (SELECT player, gametype, mu, sigma, \
         matches FROM ratings WHERE gametype = $1 ORDER BY mu - 3 * sigma DESC LIMIT $2) r {} {} \
         ORDER BY r.mu - 3 * r.sigma DESC, p.key LIMIT $7",
        joined(
            db,
            "standings",
            "t",
            "t.period = $3 AND t.since_day = $4 AND t.series = $5 AND t.gametype = r.gametype \
             AND t.player = r.player AND t.matches >= $6"
        ),
        joined(db, "players", "p", "p.id = r.player"),
    );
    let mut fetch = limit * 2;
    // How many are rated: read once, when a first read came short.
    let mut rated = None;
    while fetch <= MOST {
        let params: Vec<Value> = [Value::Text(gametype), Value::Int(fetch)]
            .into_iter()
            .chain(scope.iter().copied())
            .chain([int(board.min_matches.into()), Value::Int(limit)])
            .collect();
        let rows = db.rows(&sql, &params)?;
        if rows.len() as i64 >= limit {
            return Ok(Some(rows));
        }
        let all = match rated {
            Some(all) => all,
            None => {
                let count = db.rows(
                    "SELECT COUNT(*) FROM ratings WHERE gametype = $1",
                    &[Value::Text(gametype)],
                )?;
                *rated.insert(count.first().map_or(0, |r| r[0].int()))
            }
        };
        if all <= fetch {
            return Ok(Some(rows));
        }
        fetch *= 4;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::Period;

    #[test]
    fn weeks_start_on_monday_and_months_on_the_first() {
        // 2026-12-05 is a Saturday, day 20792.
        let day = 20_792;
        assert_eq!(Period::Week.first_day(day), day - 5);
        assert_eq!(Period::Week.first_day(day - 5), day - 5);
        assert_eq!(Period::Week.first_day(day - 6), day - 12);
        assert_eq!(Period::Month.first_day(day), day - 4);
        assert_eq!(Period::Month.first_day(day - 4), day - 4);
        assert_eq!(Period::Month.first_day(day - 5), day - 4 - 30);
        assert_eq!(Period::All.first_day(day), 0);
    }
}
