//! The embedded backend: one SQLite file, WAL so pages read while the writer writes.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{params, Connection};

use super::{
    sql, to_i64, to_u16, to_u64, AuditEntry, Batch, Chunk, MapChange, Resolution, Result, Sample,
    Saved, Seen, SeriesName, Session, Store, StoreError,
};

/// The schema, one step per version; never edit a step that has shipped.
const MIGRATIONS: &[&str] = &["
CREATE TABLE series (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE directory (addr TEXT PRIMARY KEY, record TEXT NOT NULL, saved_ms INTEGER NOT NULL);
CREATE TABLE masters (addr TEXT PRIMARY KEY, record TEXT NOT NULL, saved_ms INTEGER NOT NULL);
CREATE TABLE samples (series INTEGER NOT NULL, at_ms INTEGER NOT NULL, clients INTEGER NOT NULL,
    bots INTEGER NOT NULL, max_clients INTEGER NOT NULL, up INTEGER NOT NULL);
CREATE INDEX samples_at ON samples (at_ms);
CREATE INDEX samples_series ON samples (series, at_ms);
CREATE TABLE chunks (series INTEGER NOT NULL, resolution INTEGER NOT NULL, start_ms INTEGER NOT NULL,
    data BLOB NOT NULL, PRIMARY KEY (series, resolution, start_ms)) WITHOUT ROWID;
CREATE INDEX chunks_expiry ON chunks (resolution, start_ms);
CREATE TABLE map_changes (series INTEGER NOT NULL, at_ms INTEGER NOT NULL, map TEXT NOT NULL,
    gametype TEXT NOT NULL, PRIMARY KEY (series, at_ms)) WITHOUT ROWID;
CREATE TABLE players (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    last_ms INTEGER NOT NULL, last_series INTEGER NOT NULL);
CREATE INDEX players_last ON players (last_ms);
CREATE TABLE sessions (player INTEGER NOT NULL, series INTEGER NOT NULL, first_ms INTEGER NOT NULL,
    last_ms INTEGER NOT NULL, PRIMARY KEY (player, series, first_ms)) WITHOUT ROWID;
",
// Fencing: the greatest lease revision a cluster's writer has written with.
"CREATE TABLE fence (name TEXT PRIMARY KEY, token INTEGER NOT NULL);
",
// The admin console's audit.
"CREATE TABLE rcon_audit (at_ms INTEGER NOT NULL, client TEXT NOT NULL, server TEXT NOT NULL,
    command TEXT NOT NULL, outcome TEXT NOT NULL, round_trip_ms INTEGER NOT NULL);
CREATE INDEX rcon_audit_server ON rcon_audit (server, at_ms);
",
// Matches, what each name did in them, and ratings.
super::matches::SQLITE_SCHEMA,
// Leaderboards' standings per week, month and all time.
super::matches::SQLITE_STANDINGS,
// Moments: clips of watched matches shared as links.
super::moments::SQLITE_SCHEMA,
// Alerts: subscriptions, rules and the outbox.
super::alerts::SQLITE_SCHEMA,
// Proven owners: their servers' profiles and sessions.
super::owners::SQLITE_SCHEMA,
// The language each alert subscription speaks.
super::alerts::SCHEMA_LANG,
// Highlights: the plays each followed match's kills make.
super::highlights::SQLITE_SCHEMA];

/// How many schema versions this relay knows.
pub(super) const VERSIONS: i64 = MIGRATIONS.len() as i64;

pub struct Sqlite {
    conn: Connection,
    /// Series ids by name, as they are made.
    ids: HashMap<String, i64>,
}

impl Sqlite {
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)?;
        // 16 KiB pages for a new file (an existing one keeps its own): a match's record is a
        // few KiB, and 4 KiB pages would hold one each with the rest of the page left empty.
        conn.pragma_update(None, "page_size", 16384)?;
        // WAL: readers never wait for the writer; NORMAL: a killed process loses nothing
        // committed (only a power cut may lose the last transactions).
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        let mut store = Self {
            conn,
            ids: HashMap::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)",
        )?;
        let tx = self.conn.transaction()?;
        let found: Option<i64> = tx.query_row(sql::VERSION, [], |r| r.get(0))?;
        let found = found.unwrap_or(0);
        if found > VERSIONS {
            return Err(StoreError::TooNew {
                found,
                known: VERSIONS,
            });
        }
        for (version, step) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(step)?;
            tx.execute(
                sql::MIGRATED,
                params![version as i64 + 1, to_i64(crate::net::unix_ms())],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn series_id(conn: &Connection, ids: &mut HashMap<String, i64>, name: &str) -> Result<i64> {
        if let Some(&id) = ids.get(name) {
            return Ok(id);
        }
        conn.execute(sql::PUT_SERIES, params![name])?;
        let id: i64 = conn.query_row(sql::SERIES_ID, params![name], |r| r.get(0))?;
        ids.insert(name.to_owned(), id);
        Ok(id)
    }
}

fn pairs(conn: &Connection, query: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(query)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

impl Store for Sqlite {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    fn write(&mut self, batch: &Batch) -> Result<()> {
        let now = to_i64(crate::net::unix_ms());
        let Self { conn, ids } = self;
        let tx = conn.transaction()?;
        // A rolled-back transaction may have made series ids that no longer exist.
        let known = ids.clone();
        let result = (|| -> Result<()> {
            if let Some(token) = batch.fence {
                if tx
                    .prepare_cached(sql::FENCE)?
                    .execute(params![to_i64(token)])?
                    == 0
                {
                    return Err(StoreError::Fenced { token });
                }
            }
            for (series, s) in &batch.samples {
                let id = Self::series_id(&tx, ids, series)?;
                tx.prepare_cached(sql::PUT_SAMPLE)?.execute(params![
                    id,
                    to_i64(s.at_ms),
                    s.clients,
                    s.bots,
                    s.max_clients,
                    s.up
                ])?;
            }
            for (addr, record) in &batch.servers {
                tx.prepare_cached(sql::PUT_SERVER)?
                    .execute(params![addr, record, now])?;
            }
            for (addr, record) in &batch.masters {
                tx.prepare_cached(sql::PUT_MASTER)?
                    .execute(params![addr, record, now])?;
            }
            for c in &batch.map_changes {
                let id = Self::series_id(&tx, ids, &c.series)?;
                tx.prepare_cached(sql::PUT_MAP_CHANGE)?.execute(params![
                    id,
                    to_i64(c.at_ms),
                    c.map,
                    c.gametype
                ])?;
            }
            for s in &batch.sessions {
                let server = Self::series_id(&tx, ids, &s.server)?;
                let player: i64 = tx
                    .prepare_cached(sql::PUT_PLAYER)?
                    .query_row(params![s.key, s.name, to_i64(s.last_ms), server], |r| {
                        r.get(0)
                    })?;
                tx.prepare_cached(sql::PUT_SESSION)?.execute(params![
                    player,
                    server,
                    to_i64(s.first_ms),
                    to_i64(s.last_ms)
                ])?;
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(tx.commit()?),
            Err(e) => {
                *ids = known;
                Err(e)
            }
        }
    }

    fn saved(&mut self) -> Result<Saved> {
        Ok(Saved {
            servers: pairs(&self.conn, sql::SERVERS)?,
            masters: pairs(&self.conn, sql::MASTERS)?,
        })
    }

    fn samples(
        &mut self,
        series: Option<&str>,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<(SeriesName, Sample)>> {
        let row = |r: &rusqlite::Row| {
            Ok((
                r.get::<_, String>(0)?,
                Sample {
                    at_ms: to_u64(r.get(1)?),
                    clients: to_u16(r.get(2)?),
                    bots: to_u16(r.get(3)?),
                    max_clients: to_u16(r.get(4)?),
                    up: r.get(5)?,
                },
            ))
        };
        let (from, to) = (to_i64(from_ms), to_i64(to_ms));
        let rows = match series {
            Some(series) => self
                .conn
                .prepare_cached(sql::SAMPLES_OF)?
                .query_map(params![from, to, series], row)?
                .collect::<rusqlite::Result<_>>()?,
            None => self
                .conn
                .prepare_cached(sql::SAMPLES_ALL)?
                .query_map(params![from, to], row)?
                .collect::<rusqlite::Result<_>>()?,
        };
        Ok(rows)
    }

    fn oldest_sample(&mut self) -> Result<Option<u64>> {
        let oldest: Option<i64> = self.conn.query_row(sql::OLDEST_SAMPLE, [], |r| r.get(0))?;
        Ok(oldest.map(to_u64))
    }

    fn chunks(
        &mut self,
        series: &str,
        resolution: Resolution,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<Chunk>> {
        let mut stmt = self.conn.prepare_cached(sql::CHUNKS)?;
        let rows = stmt.query_map(
            params![series, resolution.code(), to_i64(from_ms), to_i64(to_ms)],
            |r| {
                Ok(Chunk {
                    series: series.to_owned(),
                    resolution,
                    start_ms: to_u64(r.get(0)?),
                    data: r.get(1)?,
                })
            },
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn pack(&mut self, chunks: &[Chunk], packed_before: u64) -> Result<()> {
        let Self { conn, ids } = self;
        let tx = conn.transaction()?;
        for c in chunks {
            let id = Self::series_id(&tx, ids, &c.series)?;
            tx.prepare_cached(sql::PUT_CHUNK)?.execute(params![
                id,
                c.resolution.code(),
                to_i64(c.start_ms),
                c.data
            ])?;
        }
        tx.execute(sql::DROP_SAMPLES, params![to_i64(packed_before)])?;
        tx.commit()?;
        Ok(())
    }

    fn expire(&mut self, resolution: Resolution, before_ms: u64) -> Result<u64> {
        let start_before = before_ms.saturating_sub(resolution.chunk_ms());
        let n = self.conn.execute(
            sql::EXPIRE,
            params![resolution.code(), to_i64(start_before)],
        )?;
        Ok(n as u64)
    }

    fn expire_sessions(&mut self, before_ms: u64) -> Result<u64> {
        let n = self
            .conn
            .execute(sql::EXPIRE_SESSIONS, params![to_i64(before_ms)])?;
        Ok(n as u64)
    }

    fn expire_map_changes(&mut self, before_ms: u64) -> Result<u64> {
        let n = self
            .conn
            .execute(sql::EXPIRE_MAP_CHANGES, params![to_i64(before_ms)])?;
        Ok(n as u64)
    }

    fn map_changes(&mut self, series: &str, from_ms: u64, to_ms: u64) -> Result<Vec<MapChange>> {
        let mut stmt = self.conn.prepare_cached(sql::MAP_CHANGES)?;
        let rows = stmt.query_map(params![series, to_i64(from_ms), to_i64(to_ms)], |r| {
            Ok(MapChange {
                series: series.to_owned(),
                at_ms: to_u64(r.get(0)?),
                map: r.get(1)?,
                gametype: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn find_players(&mut self, key_part: &str, limit: u32, sessions: u32) -> Result<Vec<Seen>> {
        let mut found = Vec::new();
        let mut stmt = self.conn.prepare_cached(sql::FIND_PLAYERS)?;
        let rows = stmt.query_map(
            params![super::like_pattern(key_part, false), i64::from(limit)],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Seen {
                        key: r.get(1)?,
                        name: r.get(2)?,
                        last_ms: to_u64(r.get(3)?),
                        last_server: r.get(4)?,
                        sessions: Vec::new(),
                    },
                ))
            },
        )?;
        for row in rows {
            found.push(row?);
        }
        let mut stays = self.conn.prepare_cached(sql::SESSIONS_OF)?;
        for (id, seen) in &mut found {
            let (key, name) = (seen.key.clone(), seen.name.clone());
            let rows = stays.query_map(params![*id, i64::from(sessions)], |r| {
                Ok(Session {
                    key: key.clone(),
                    name: name.clone(),
                    server: r.get(0)?,
                    first_ms: to_u64(r.get(1)?),
                    last_ms: to_u64(r.get(2)?),
                })
            })?;
            seen.sessions = rows.collect::<rusqlite::Result<_>>()?;
        }
        Ok(found.into_iter().map(|(_, seen)| seen).collect())
    }

    fn series_names(&mut self, prefix: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(sql::SERIES_NAMED)?;
        let rows = stmt.query_map(params![super::like_pattern(prefix, true)], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn size_bytes(&mut self) -> Result<u64> {
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok(to_u64(pages * size))
    }

    fn put_audit(&mut self, entries: &[AuditEntry]) -> Result<()> {
        let tx = self.conn.transaction()?;
        for e in entries {
            tx.prepare_cached(sql::PUT_AUDIT)?.execute(params![
                to_i64(e.at_ms),
                e.client,
                e.server,
                e.command,
                e.outcome,
                to_i64(e.round_trip_ms)
            ])?;
        }
        tx.commit()?;
        Ok(())
    }

    fn audit(&mut self, server: Option<&str>, limit: u32) -> Result<Vec<AuditEntry>> {
        let read = |r: &rusqlite::Row| {
            Ok(AuditEntry {
                at_ms: to_u64(r.get(0)?),
                client: r.get(1)?,
                server: r.get(2)?,
                command: r.get(3)?,
                outcome: r.get(4)?,
                round_trip_ms: to_u64(r.get(5)?),
            })
        };
        let rows = match server {
            Some(server) => self
                .conn
                .prepare_cached(sql::AUDIT_OF)?
                .query_map(params![server, i64::from(limit)], read)?
                .collect::<std::result::Result<Vec<_>, _>>()?,
            None => self
                .conn
                .prepare_cached(sql::AUDIT_ALL)?
                .query_map(params![i64::from(limit)], read)?
                .collect::<std::result::Result<Vec<_>, _>>()?,
        };
        Ok(rows)
    }

    fn exec(&mut self) -> Result<&mut dyn super::matches::exec::Exec> {
        Ok(&mut self.conn)
    }

    fn transact(
        &mut self,
        body: &mut dyn FnMut(&mut dyn super::matches::exec::Exec) -> Result<()>,
    ) -> Result<()> {
        // Immediate: the write lock is taken at the start, so a transaction that reads before
        // it writes waits its turn (busy_timeout) instead of failing with "database is locked"
        // when another connection wrote in between.
        let mut tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        body(&mut tx)?;
        Ok(tx.commit()?)
    }
}
