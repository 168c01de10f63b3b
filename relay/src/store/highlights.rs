//! Highlights in the store, alike on both backends (through [`Exec`]): each play as found,
//! kept the moment it is found (a relay killed before its clip is cut loses no highlight),
//! then given its clip's moment. A play is itself by its match, kind, player and first kill,
//! so one found twice (two relays, a restart) is kept once.

use protocol::relay_api::highlights::{Highlight, HighlightKill, HighlightKind};

use super::matches::exec::{Cell, Exec, Value};
use super::matches::int;
use super::Result;

/// Schema version 10 on SQLite.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE highlights (id TEXT PRIMARY KEY, server TEXT NOT NULL, map TEXT NOT NULL,
    level_start INTEGER NOT NULL, gametype TEXT NOT NULL, kind TEXT NOT NULL,
    player TEXT NOT NULL, player_key TEXT NOT NULL, start_server_time INTEGER NOT NULL,
    end_server_time INTEGER NOT NULL, start_ms INTEGER NOT NULL, score INTEGER NOT NULL,
    round INTEGER, kills TEXT NOT NULL, best INTEGER NOT NULL, moment TEXT,
    UNIQUE (server, map, level_start, kind, player_key, start_server_time));
CREATE INDEX highlights_start ON highlights (start_ms);
CREATE INDEX highlights_server ON highlights (server, start_ms);
CREATE INDEX highlights_player ON highlights (player_key, start_ms);
";

/// Schema version 10 on PostgreSQL.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE highlights (id TEXT PRIMARY KEY, server TEXT NOT NULL, map TEXT NOT NULL,
    level_start BIGINT NOT NULL, gametype TEXT NOT NULL, kind TEXT NOT NULL,
    player TEXT NOT NULL, player_key TEXT NOT NULL, start_server_time BIGINT NOT NULL,
    end_server_time BIGINT NOT NULL, start_ms BIGINT NOT NULL, score BIGINT NOT NULL,
    round BIGINT, kills TEXT NOT NULL, best BIGINT NOT NULL, moment TEXT,
    UNIQUE (server, map, level_start, kind, player_key, start_server_time));
CREATE INDEX highlights_start ON highlights (start_ms);
CREATE INDEX highlights_server ON highlights (server, start_ms);
CREATE INDEX highlights_player ON highlights (player_key, start_ms);
";

/// Which highlights to list, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    pub server: Option<String>,
    /// A name key (`store::name_key`).
    pub player: Option<String>,
    pub match_id: Option<u64>,
    pub kind: Option<HighlightKind>,
    pub since_ms: Option<u64>,
    /// Only the best of each match (the plays of the match).
    pub best: bool,
    /// Best scored first (else newest first).
    pub by_score: bool,
    pub limit: u32,
}

const COLUMNS: &str = "h.id, h.server, m.id, h.map, h.gametype, h.kind, h.player, h.kills, \
     h.start_server_time, h.end_server_time, h.start_ms, h.score, h.round, h.best, h.moment";

/// The highlights from their match, with the match's id once its record is kept.
const FROM: &str = "FROM highlights h LEFT JOIN series s ON s.name = h.server \
     LEFT JOIN matches m ON m.series = s.id AND m.map = h.map AND m.level_start = h.level_start";

/// Keeps a play as found; false if it was kept already (found by another relay, or again).
/// When it is `best`, it is its match's play of the match and no earlier one is.
pub fn save(db: &mut dyn Exec, h: &Highlight, level_start: i32) -> Result<bool> {
    let kills = serde_json::to_string(&h.kills).unwrap_or_default();
    let key = super::name_key(&h.player);
    let added = db.exec(
        "INSERT INTO highlights (id, server, map, level_start, gametype, kind, player, player_key,
             start_server_time, end_server_time, start_ms, score, round, kills, best, moment)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, NULL)
         ON CONFLICT DO NOTHING",
        &[
            Value::Text(&h.id),
            Value::Text(&h.server),
            Value::Text(&h.map),
            Value::Int(level_start.into()),
            Value::Text(&h.gametype),
            Value::Text(h.kind.name()),
            Value::Text(&h.player),
            Value::Text(&key),
            Value::Int(h.start_server_time.into()),
            Value::Int(h.end_server_time.into()),
            int(h.start_ms),
            int(h.score.into()),
            h.round.map_or(Value::Null, |r| Value::Int(r.into())),
            Value::Text(&kills),
            Value::Int(h.play_of_the_match.into()),
        ],
    )? > 0;
    if added && h.play_of_the_match {
        db.exec(
            "UPDATE highlights SET best = 0
             WHERE server = $1 AND map = $2 AND level_start = $3 AND id <> $4 AND best <> 0",
            &[
                Value::Text(&h.server),
                Value::Text(&h.map),
                Value::Int(level_start.into()),
                Value::Text(&h.id),
            ],
        )?;
    }
    Ok(added)
}

/// Gives a highlight its clip.
pub fn set_moment(db: &mut dyn Exec, id: &str, moment: &str) -> Result<()> {
    db.exec(
        "UPDATE highlights SET moment = $1 WHERE id = $2",
        &[Value::Text(moment), Value::Text(id)],
    )?;
    Ok(())
}

/// The highlights wanted, newest (or best) first.
pub fn list(db: &mut dyn Exec, wanted: &Wanted) -> Result<Vec<Highlight>> {
    let kind = wanted.kind.map(HighlightKind::name);
    let asked: [(&str, Option<Value>); 5] = [
        ("h.server", wanted.server.as_deref().map(Value::Text)),
        ("h.player_key", wanted.player.as_deref().map(Value::Text)),
        ("m.id", wanted.match_id.map(int)),
        ("h.kind", kind.map(Value::Text)),
        ("h.start_ms >=", wanted.since_ms.map(int)),
    ];
    let mut clauses: Vec<String> = Vec::new();
    let mut params: Vec<Value> = Vec::new();
    for (column, value) in asked {
        if let Some(value) = value {
            params.push(value);
            let op = if column.ends_with('=') { "" } else { " =" };
            clauses.push(format!("{column}{op} ${}", params.len()));
        }
    }
    if wanted.best {
        clauses.push("h.best <> 0".to_owned());
    }
    let filter = if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    };
    let order = if wanted.by_score {
        "h.score DESC, h.start_ms DESC"
    } else {
        "h.start_ms DESC"
    };
    let sql = format!(
        "SELECT {COLUMNS} {FROM} {filter} ORDER BY {order}, h.id LIMIT {}",
        wanted.limit
    );
    Ok(db.rows(&sql, &params)?.iter().map(|r| row(r)).collect())
}

/// One highlight.
pub fn one(db: &mut dyn Exec, id: &str) -> Result<Option<Highlight>> {
    let rows = db.rows(
        &format!("SELECT {COLUMNS} {FROM} WHERE h.id = $1"),
        &[Value::Text(id)],
    )?;
    Ok(rows.first().map(|r| row(r)))
}

/// A match's play of the match, by its server, map and level start.
pub fn best_of(
    db: &mut dyn Exec,
    server: &str,
    map: &str,
    level_start: i32,
) -> Result<Option<Highlight>> {
    let rows = db.rows(
        &format!(
            "SELECT {COLUMNS} {FROM} WHERE h.server = $1 AND h.map = $2 AND h.level_start = $3 \
             AND h.best <> 0 ORDER BY h.score DESC LIMIT 1"
        ),
        &[
            Value::Text(server),
            Value::Text(map),
            Value::Int(level_start.into()),
        ],
    )?;
    Ok(rows.first().map(|r| row(r)))
}

/// The highlights found before `before_ms` go (with the moments' retention).
pub fn expire(db: &mut dyn Exec, before_ms: u64) -> Result<u64> {
    db.exec(
        "DELETE FROM highlights WHERE start_ms < $1",
        &[int(before_ms)],
    )
}

fn row(r: &[Cell]) -> Highlight {
    let kills: Vec<HighlightKill> = serde_json::from_str(&r[7].text()).unwrap_or_default();
    let moment = r[14].opt_text();
    Highlight {
        id: r[0].text(),
        server: r[1].text(),
        match_id: r[2].opt_int().map(|id| id.max(0) as u64),
        map: r[3].text(),
        gametype: r[4].text(),
        kind: HighlightKind::from_name(&r[5].text()).unwrap_or(HighlightKind::Triple),
        player: r[6].text(),
        kills,
        start_server_time: r[8].int() as i32,
        end_server_time: r[9].int() as i32,
        start_ms: r[10].int().max(0) as u64,
        score: r[11].int().clamp(0, u32::MAX.into()) as u32,
        round: r[12].opt_int().map(|r| r.clamp(0, u32::MAX.into()) as u32),
        play_of_the_match: r[13].int() != 0,
        url: moment.as_ref().map(|m| format!("/m/{m}")),
        moment,
    }
}
