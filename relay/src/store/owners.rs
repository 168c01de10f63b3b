//! Proven owners in the store, alike on both backends: each server's profile (what its owner
//! set, as JSON), the Discord webhook of its own events, and when a working rcon password
//! last proved it; and owner sessions, by the hash of their token (the token is never kept).

use super::matches::exec::{Exec, Value};
use super::matches::int;
use super::Result;

/// Schema version 8 on SQLite.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE owners (addr TEXT PRIMARY KEY, profile TEXT NOT NULL, discord_webhook TEXT,
    proven_ms INTEGER NOT NULL);
CREATE TABLE owner_sessions (token_hash TEXT PRIMARY KEY, addr TEXT NOT NULL,
    expires_ms INTEGER NOT NULL);
";

/// Schema version 8 on PostgreSQL.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE owners (addr TEXT PRIMARY KEY, profile TEXT NOT NULL, discord_webhook TEXT,
    proven_ms BIGINT NOT NULL);
CREATE TABLE owner_sessions (token_hash TEXT PRIMARY KEY, addr TEXT NOT NULL,
    expires_ms BIGINT NOT NULL);
";

/// One server's owner as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub addr: String,
    /// `relay_api::owners::OwnerProfile` as JSON.
    pub profile: String,
    pub discord_webhook: Option<String>,
    pub proven_ms: u64,
}

/// Every owner, for the relay's copy in memory.
pub fn all(db: &mut dyn Exec) -> Result<Vec<Owner>> {
    read(db, "ORDER BY addr", &[])
}

pub fn get(db: &mut dyn Exec, addr: &str) -> Result<Option<Owner>> {
    Ok(read(db, "WHERE addr = $1", &[Value::Text(addr)])?
        .into_iter()
        .next())
}

fn read(db: &mut dyn Exec, filter: &str, params: &[Value]) -> Result<Vec<Owner>> {
    let rows = db.rows(
        &format!("SELECT addr, profile, discord_webhook, proven_ms FROM owners {filter}"),
        params,
    )?;
    Ok(rows
        .iter()
        .map(|r| Owner {
            addr: r[0].text(),
            profile: r[1].text(),
            discord_webhook: r[2].opt_text(),
            proven_ms: r[3].int().max(0) as u64,
        })
        .collect())
}

/// Writes `owner` whole (a new one, or a change).
pub fn put(db: &mut dyn Exec, owner: &Owner) -> Result<()> {
    db.exec(
        "DELETE FROM owners WHERE addr = $1",
        &[Value::Text(&owner.addr)],
    )?;
    db.exec(
        "INSERT INTO owners (addr, profile, discord_webhook, proven_ms) VALUES ($1, $2, $3, $4)",
        &[
            Value::Text(&owner.addr),
            Value::Text(&owner.profile),
            owner
                .discord_webhook
                .as_deref()
                .map_or(Value::Null, Value::Text),
            int(owner.proven_ms),
        ],
    )?;
    Ok(())
}

/// Forgets a server's owner and every session on it.
pub fn remove(db: &mut dyn Exec, addr: &str) -> Result<()> {
    db.exec(
        "DELETE FROM owner_sessions WHERE addr = $1",
        &[Value::Text(addr)],
    )?;
    db.exec("DELETE FROM owners WHERE addr = $1", &[Value::Text(addr)])?;
    Ok(())
}

pub fn add_session(db: &mut dyn Exec, token_hash: &str, addr: &str, expires_ms: u64) -> Result<()> {
    db.exec(
        "INSERT INTO owner_sessions (token_hash, addr, expires_ms) VALUES ($1, $2, $3)",
        &[Value::Text(token_hash), Value::Text(addr), int(expires_ms)],
    )?;
    Ok(())
}

/// The server a session (by its token's hash) is on, if it has not expired at `now_ms`; the
/// expired ones are swept on the way.
pub fn session(db: &mut dyn Exec, token_hash: &str, now_ms: u64) -> Result<Option<String>> {
    db.exec(
        "DELETE FROM owner_sessions WHERE expires_ms <= $1",
        &[int(now_ms)],
    )?;
    let rows = db.rows(
        "SELECT addr FROM owner_sessions WHERE token_hash = $1",
        &[Value::Text(token_hash)],
    )?;
    Ok(rows.first().map(|r| r[0].text()))
}
