//! Moments in the store, alike on both backends (through [`Exec`]): each clip with its
//! description and still, so any relay sharing the store serves it; who made it (for the
//! per-client limit) and when (for retention).

use super::matches::exec::{Exec, Value};
use super::matches::int;
use super::Result;

/// Schema version 6 on SQLite.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE moments (id TEXT PRIMARY KEY, server TEXT NOT NULL, client TEXT NOT NULL,
    created_ms INTEGER NOT NULL, detail TEXT NOT NULL, demo BLOB NOT NULL, still BLOB NOT NULL);
CREATE INDEX moments_created ON moments (created_ms);
CREATE INDEX moments_client ON moments (client, created_ms);
";

/// Schema version 6 on PostgreSQL.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE moments (id TEXT PRIMARY KEY, server TEXT NOT NULL, client TEXT NOT NULL,
    created_ms BIGINT NOT NULL, detail TEXT NOT NULL, demo BYTEA NOT NULL, still BYTEA NOT NULL);
CREATE INDEX moments_created ON moments (created_ms);
CREATE INDEX moments_client ON moments (client, created_ms);
";

/// One moment as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedMoment {
    pub id: String,
    pub server: String,
    /// Who made it: the client's address, for the creation limit.
    pub client: String,
    pub created_ms: u64,
    /// `relay_api::moments::MomentDetail` as JSON.
    pub detail: String,
    pub demo: Vec<u8>,
    /// The PNG still.
    pub still: Vec<u8>,
}

pub fn save(db: &mut dyn Exec, m: &SavedMoment) -> Result<()> {
    db.exec(
        "INSERT INTO moments (id, server, client, created_ms, detail, demo, still)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            Value::Text(&m.id),
            Value::Text(&m.server),
            Value::Text(&m.client),
            int(m.created_ms),
            Value::Text(&m.detail),
            Value::Blob(&m.demo),
            Value::Blob(&m.still),
        ],
    )?;
    Ok(())
}

/// What of a moment to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Detail,
    Demo,
    Still,
}

/// One part of a moment: its detail's JSON as bytes, its demo or its still.
pub fn part(db: &mut dyn Exec, id: &str, part: Part) -> Result<Option<Vec<u8>>> {
    let column = match part {
        Part::Detail => "detail",
        Part::Demo => "demo",
        Part::Still => "still",
    };
    let rows = db.rows(
        &format!("SELECT {column} FROM moments WHERE id = $1"),
        &[Value::Text(id)],
    )?;
    Ok(rows.into_iter().next().map(|row| match part {
        Part::Detail => row[0].text().into_bytes(),
        _ => row[0].blob().to_vec(),
    }))
}

/// Moments `client` made since `since_ms`.
pub fn made_since(db: &mut dyn Exec, client: &str, since_ms: u64) -> Result<u64> {
    let rows = db.rows(
        "SELECT COUNT(*) FROM moments WHERE client = $1 AND created_ms >= $2",
        &[Value::Text(client), int(since_ms)],
    )?;
    Ok(rows.first().map_or(0, |r| r[0].int().max(0) as u64))
}

/// Drops the moments made before `before_ms`; how many went.
pub fn expire(db: &mut dyn Exec, before_ms: u64) -> Result<u64> {
    db.exec(
        "DELETE FROM moments WHERE created_ms < $1",
        &[int(before_ms)],
    )
}

/// How many moments are kept, and their bytes (clip and still).
pub fn count(db: &mut dyn Exec) -> Result<(u64, u64)> {
    let rows = db.rows(
        "SELECT COUNT(*), CAST(COALESCE(SUM(LENGTH(demo) + LENGTH(still)), 0) AS BIGINT) FROM moments",
        &[],
    )?;
    Ok(rows.first().map_or((0, 0), |r| {
        (r[0].int().max(0) as u64, r[1].int().max(0) as u64)
    }))
}
