//! The PostgreSQL backend, for a relay that outgrew one file (and for several relays sharing
//! one history). Statements are prepared once per connection.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, NoTls, Statement};

use super::matches::exec::{Exec, Prepared, Rows, Value};

use super::{
    sql, to_i64, to_u16, to_u64, AuditEntry, Batch, Chunk, MapChange, Resolution, Result, Sample,
    Saved, Seen, SeriesName, Session, Store, StoreError,
};

/// The schema, one step per version; never edit a step that has shipped.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE series (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE directory (addr TEXT PRIMARY KEY, record TEXT NOT NULL, saved_ms BIGINT NOT NULL);
CREATE TABLE masters (addr TEXT PRIMARY KEY, record TEXT NOT NULL, saved_ms BIGINT NOT NULL);
CREATE TABLE samples (series BIGINT NOT NULL, at_ms BIGINT NOT NULL, clients BIGINT NOT NULL,
    bots BIGINT NOT NULL, max_clients BIGINT NOT NULL, up BOOLEAN NOT NULL);
CREATE INDEX samples_at ON samples (at_ms);
CREATE INDEX samples_series ON samples (series, at_ms);
CREATE TABLE chunks (series BIGINT NOT NULL, resolution BIGINT NOT NULL, start_ms BIGINT NOT NULL,
    data BYTEA NOT NULL, PRIMARY KEY (series, resolution, start_ms));
CREATE INDEX chunks_expiry ON chunks (resolution, start_ms);
CREATE TABLE map_changes (series BIGINT NOT NULL, at_ms BIGINT NOT NULL, map TEXT NOT NULL,
    gametype TEXT NOT NULL, PRIMARY KEY (series, at_ms));
CREATE TABLE players (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    last_ms BIGINT NOT NULL, last_series BIGINT NOT NULL);
CREATE INDEX players_last ON players (last_ms);
CREATE TABLE sessions (player BIGINT NOT NULL, series BIGINT NOT NULL, first_ms BIGINT NOT NULL,
    last_ms BIGINT NOT NULL, PRIMARY KEY (player, series, first_ms));
CREATE INDEX sessions_last ON sessions (last_ms);
CREATE INDEX sessions_player ON sessions (player, last_ms);
-- Find player asks for any part of a name: trigrams answer LIKE '%part%' without a scan.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX players_key_trgm ON players USING gin (key gin_trgm_ops);
",
    // Fencing: the greatest lease revision a cluster's writer has written with.
    "CREATE TABLE fence (name TEXT PRIMARY KEY, token BIGINT NOT NULL);
",
    // The admin console's audit.
    "CREATE TABLE rcon_audit (at_ms BIGINT NOT NULL, client TEXT NOT NULL, server TEXT NOT NULL,
    command TEXT NOT NULL, outcome TEXT NOT NULL, round_trip_ms BIGINT NOT NULL);
CREATE INDEX rcon_audit_server ON rcon_audit (server, at_ms);
",
    // Matches, what each name did in them, and ratings.
    super::matches::POSTGRES_SCHEMA,
    // Leaderboards' standings per week, month and all time.
    super::matches::POSTGRES_STANDINGS,
    // Moments: clips of watched matches shared as links.
    super::moments::POSTGRES_SCHEMA,
    // Alerts: subscriptions, rules and the outbox.
    super::alerts::POSTGRES_SCHEMA,
    // Proven owners: their servers' profiles and sessions.
    super::owners::POSTGRES_SCHEMA,
    // The language each alert subscription speaks.
    super::alerts::SCHEMA_LANG,
    // Highlights: the plays each followed match's kills make.
    super::highlights::POSTGRES_SCHEMA,
];

/// How many schema versions this relay knows.
pub const VERSIONS: usize = MIGRATIONS.len();

/// Every statement the backend runs more than once.
const PREPARED: &[&str] = &[
    sql::CHUNKS,
    sql::PUT_CHUNK,
    sql::SAMPLES_OF,
    sql::SAMPLES_ALL,
    sql::PUT_SAMPLE,
    sql::FENCE,
    sql::PUT_SERVER,
    sql::PUT_MASTER,
    sql::PUT_MAP_CHANGE,
    sql::MAP_CHANGES,
    sql::PUT_PLAYER,
    sql::PUT_SESSION,
    sql::FIND_PLAYERS,
    sql::SESSIONS_OF,
    sql::SERIES_ID,
    sql::SERIES_NAMED,
    sql::PUT_SERIES,
    sql::PUT_AUDIT,
    sql::AUDIT_OF,
    sql::AUDIT_ALL,
];

pub struct Postgres {
    url: String,
    client: Client,
    statements: HashMap<&'static str, Statement>,
    /// The matches' statements, prepared on first use (dropped with the connection).
    prepared: HashMap<String, Statement>,
    ids: HashMap<String, i64>,
    /// When the next reconnection may be tried, and the wait after that one if it fails.
    retry_at: Instant,
    backoff: Duration,
}

/// The first wait between reconnection attempts, doubled after each failure up to
/// [`MOST_BACKOFF`]: a restart is back within a second, a long outage costs one attempt a
/// half-minute per connection.
const LEAST_BACKOFF: Duration = Duration::from_millis(250);
const MOST_BACKOFF: Duration = Duration::from_secs(30);

/// A connection with its statements prepared, the schema brought up to date.
fn connect(url: &str) -> Result<(Client, HashMap<&'static str, Statement>)> {
    let mut client = Client::connect(url, NoTls)?;
    // The server's notices ("already exists, skipping") are not the relay's to log.
    client.batch_execute("SET client_min_messages TO WARNING")?;
    migrate(&mut client)?;
    let mut statements = HashMap::new();
    for &query in PREPARED {
        statements.insert(query, client.prepare(query)?);
    }
    Ok((client, statements))
}

impl Postgres {
    pub fn open(url: &str) -> Result<Self> {
        let (client, statements) = connect(url)?;
        Ok(Self {
            url: url.to_owned(),
            client,
            statements,
            prepared: HashMap::new(),
            ids: HashMap::new(),
            retry_at: Instant::now(),
            backoff: LEAST_BACKOFF,
        })
    }

    /// Connects again once the server has gone away (restarted, failed over, the network
    /// cut): the blocking client never does by itself, and every call on a closed one fails.
    /// Attempts back off; between them a call fails at once without touching the network.
    fn live(&mut self) -> Result<()> {
        if !self.client.is_closed() {
            return Ok(());
        }
        let now = Instant::now();
        if now < self.retry_at {
            return Err(StoreError::Reconnecting {
                in_ms: (self.retry_at - now).as_millis() as u64,
            });
        }
        match connect(&self.url) {
            Ok((client, statements)) => {
                tracing::info!("PostgreSQL: connected again");
                (self.client, self.statements) = (client, statements);
                self.prepared.clear();
                self.backoff = LEAST_BACKOFF;
                Ok(())
            }
            Err(e) => {
                self.retry_at = now + self.backoff;
                self.backoff = (self.backoff * 2).min(MOST_BACKOFF);
                Err(e)
            }
        }
    }

    fn statement(&self, query: &'static str) -> Statement {
        // Every query passed here is in PREPARED.
        self.statements[query].clone()
    }
}

/// The advisory lock migrations run under: any key of the relay's own, the same in every relay.
const MIGRATION_LOCK: i64 = 0x6d75_7374_6572; // "muster"

/// Brings the schema up to date in one transaction, under an advisory lock, so any number of
/// relays starting together migrate one after the other (`CREATE TABLE IF NOT EXISTS` alone
/// races: two creators collide on the table's row type) and a failed step leaves the store as
/// it was.
pub(super) fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)",
    )?;
    let found: Option<i64> = tx.query_one(sql::VERSION, &[])?.get(0);
    let found = found.unwrap_or(0);
    let known = MIGRATIONS.len() as i64;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (version, step) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.batch_execute(step)?;
        tx.execute(
            sql::MIGRATED,
            &[&(version as i64 + 1), &to_i64(crate::net::unix_ms())],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// The transaction-scoped part of a write: series ids are made on first use.
struct Tx<'a, 'c> {
    tx: &'a mut postgres::Transaction<'c>,
    statements: &'a HashMap<&'static str, Statement>,
    ids: &'a mut HashMap<String, i64>,
}

impl Tx<'_, '_> {
    fn run(&mut self, query: &'static str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        Ok(self.tx.execute(&self.statements[query], params)?)
    }

    fn series(&mut self, name: &str) -> Result<i64> {
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        self.run(sql::PUT_SERIES, &[&name])?;
        let id: i64 = self
            .tx
            .query_one(&self.statements[sql::SERIES_ID], &[&name])?
            .get(0);
        self.ids.insert(name.to_owned(), id);
        Ok(id)
    }
}

impl Postgres {
    /// Runs `body` in a transaction; series ids it made are forgotten if it rolls back.
    fn transaction(&mut self, body: impl FnOnce(&mut Tx) -> Result<()>) -> Result<()> {
        let known = self.ids.clone();
        let mut tx = self.client.transaction()?;
        let result = body(&mut Tx {
            tx: &mut tx,
            statements: &self.statements,
            ids: &mut self.ids,
        });
        match result {
            Ok(()) => Ok(tx.commit()?),
            Err(e) => {
                self.ids = known;
                Err(e)
            }
        }
    }

    fn pairs(&mut self, query: &str) -> Result<Vec<(String, String)>> {
        Ok(self
            .client
            .query(query, &[])?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }
}

/// Reads outside a transaction, with the matches' statements kept prepared.
impl Exec for Postgres {
    fn postgres(&self) -> bool {
        true
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        Prepared {
            client: &mut self.client,
            statements: &mut self.prepared,
        }
        .exec(sql, params)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Rows> {
        Prepared {
            client: &mut self.client,
            statements: &mut self.prepared,
        }
        .rows(sql, params)
    }
}

fn sample_of(row: &postgres::Row) -> (SeriesName, Sample) {
    (
        row.get(0),
        Sample {
            at_ms: to_u64(row.get(1)),
            clients: to_u16(row.get(2)),
            bots: to_u16(row.get(3)),
            max_clients: to_u16(row.get(4)),
            up: row.get(5),
        },
    )
}

impl Store for Postgres {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    fn write(&mut self, batch: &Batch) -> Result<()> {
        self.live()?;
        let now = to_i64(crate::net::unix_ms());
        self.transaction(|tx| {
            if let Some(token) = batch.fence {
                if tx.run(sql::FENCE, &[&to_i64(token)])? == 0 {
                    return Err(StoreError::Fenced { token });
                }
            }
            for (series, s) in &batch.samples {
                let id = tx.series(series)?;
                tx.run(
                    sql::PUT_SAMPLE,
                    &[
                        &id,
                        &to_i64(s.at_ms),
                        &i64::from(s.clients),
                        &i64::from(s.bots),
                        &i64::from(s.max_clients),
                        &s.up,
                    ],
                )?;
            }
            for (addr, record) in &batch.servers {
                tx.run(sql::PUT_SERVER, &[addr, record, &now])?;
            }
            for (addr, record) in &batch.masters {
                tx.run(sql::PUT_MASTER, &[addr, record, &now])?;
            }
            for c in &batch.map_changes {
                let id = tx.series(&c.series)?;
                tx.run(
                    sql::PUT_MAP_CHANGE,
                    &[&id, &to_i64(c.at_ms), &c.map, &c.gametype],
                )?;
            }
            for s in &batch.sessions {
                let server = tx.series(&s.server)?;
                let last = to_i64(s.last_ms);
                let player: i64 = tx
                    .tx
                    .query_one(
                        &tx.statements[sql::PUT_PLAYER],
                        &[&s.key, &s.name, &last, &server],
                    )?
                    .get(0);
                tx.run(
                    sql::PUT_SESSION,
                    &[&player, &server, &to_i64(s.first_ms), &last],
                )?;
            }
            Ok(())
        })
    }

    fn saved(&mut self) -> Result<Saved> {
        self.live()?;
        Ok(Saved {
            servers: self.pairs(sql::SERVERS)?,
            masters: self.pairs(sql::MASTERS)?,
        })
    }

    fn samples(
        &mut self,
        series: Option<&str>,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<(SeriesName, Sample)>> {
        self.live()?;
        let (from, to) = (to_i64(from_ms), to_i64(to_ms));
        let rows = match series {
            Some(series) => self
                .client
                .query(&self.statement(sql::SAMPLES_OF), &[&from, &to, &series])?,
            None => self
                .client
                .query(&self.statement(sql::SAMPLES_ALL), &[&from, &to])?,
        };
        Ok(rows.iter().map(sample_of).collect())
    }

    fn oldest_sample(&mut self) -> Result<Option<u64>> {
        self.live()?;
        let oldest: Option<i64> = self.client.query_one(sql::OLDEST_SAMPLE, &[])?.get(0);
        Ok(oldest.map(to_u64))
    }

    fn chunks(
        &mut self,
        series: &str,
        resolution: Resolution,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<Chunk>> {
        self.live()?;
        let rows = self.client.query(
            &self.statement(sql::CHUNKS),
            &[
                &series,
                &resolution.code(),
                &to_i64(from_ms),
                &to_i64(to_ms),
            ],
        )?;
        Ok(rows
            .iter()
            .map(|r| Chunk {
                series: series.to_owned(),
                resolution,
                start_ms: to_u64(r.get(0)),
                data: r.get(1),
            })
            .collect())
    }

    fn pack(&mut self, chunks: &[Chunk], packed_before: u64) -> Result<()> {
        self.live()?;
        self.transaction(|tx| {
            for c in chunks {
                let id = tx.series(&c.series)?;
                tx.run(
                    sql::PUT_CHUNK,
                    &[&id, &c.resolution.code(), &to_i64(c.start_ms), &c.data],
                )?;
            }
            tx.tx
                .execute(sql::DROP_SAMPLES, &[&to_i64(packed_before)])?;
            Ok(())
        })
    }

    fn expire(&mut self, resolution: Resolution, before_ms: u64) -> Result<u64> {
        self.live()?;
        let start_before = before_ms.saturating_sub(resolution.chunk_ms());
        Ok(self
            .client
            .execute(sql::EXPIRE, &[&resolution.code(), &to_i64(start_before)])?)
    }

    fn expire_sessions(&mut self, before_ms: u64) -> Result<u64> {
        self.live()?;
        Ok(self
            .client
            .execute(sql::EXPIRE_SESSIONS, &[&to_i64(before_ms)])?)
    }

    fn expire_map_changes(&mut self, before_ms: u64) -> Result<u64> {
        self.live()?;
        Ok(self
            .client
            .execute(sql::EXPIRE_MAP_CHANGES, &[&to_i64(before_ms)])?)
    }

    fn map_changes(&mut self, series: &str, from_ms: u64, to_ms: u64) -> Result<Vec<MapChange>> {
        self.live()?;
        let rows = self.client.query(
            &self.statement(sql::MAP_CHANGES),
            &[&series, &to_i64(from_ms), &to_i64(to_ms)],
        )?;
        Ok(rows
            .iter()
            .map(|r| MapChange {
                series: series.to_owned(),
                at_ms: to_u64(r.get(0)),
                map: r.get(1),
                gametype: r.get(2),
            })
            .collect())
    }

    fn find_players(&mut self, key_part: &str, limit: u32, sessions: u32) -> Result<Vec<Seen>> {
        self.live()?;
        let rows = self.client.query(
            &self.statement(sql::FIND_PLAYERS),
            &[&super::like_pattern(key_part, false), &i64::from(limit)],
        )?;
        let stays = self.statement(sql::SESSIONS_OF);
        let mut found = Vec::with_capacity(rows.len());
        for r in rows {
            let id: i64 = r.get(0);
            let key: String = r.get(1);
            let name: String = r.get(2);
            let sessions = self
                .client
                .query(&stays, &[&id, &i64::from(sessions)])?
                .iter()
                .map(|s| Session {
                    key: key.clone(),
                    name: name.clone(),
                    server: s.get(0),
                    first_ms: to_u64(s.get(1)),
                    last_ms: to_u64(s.get(2)),
                })
                .collect();
            found.push(Seen {
                key,
                name,
                last_ms: to_u64(r.get(3)),
                last_server: r.get(4),
                sessions,
            });
        }
        Ok(found)
    }

    fn series_names(&mut self, prefix: &str) -> Result<Vec<String>> {
        self.live()?;
        let rows = self.client.query(
            &self.statement(sql::SERIES_NAMED),
            &[&super::like_pattern(prefix, true)],
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn size_bytes(&mut self) -> Result<u64> {
        self.live()?;
        let size: i64 = self
            .client
            .query_one("SELECT pg_database_size(current_database())", &[])?
            .get(0);
        Ok(to_u64(size))
    }

    fn put_audit(&mut self, entries: &[AuditEntry]) -> Result<()> {
        self.live()?;
        let put = self.statement(sql::PUT_AUDIT);
        let mut tx = self.client.transaction()?;
        for e in entries {
            tx.execute(
                &put,
                &[
                    &to_i64(e.at_ms),
                    &e.client,
                    &e.server,
                    &e.command,
                    &e.outcome,
                    &to_i64(e.round_trip_ms),
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn audit(&mut self, server: Option<&str>, limit: u32) -> Result<Vec<AuditEntry>> {
        self.live()?;
        let limit = i64::from(limit);
        let rows = match server {
            Some(server) => self
                .client
                .query(&self.statement(sql::AUDIT_OF), &[&server, &limit])?,
            None => self
                .client
                .query(&self.statement(sql::AUDIT_ALL), &[&limit])?,
        };
        Ok(rows
            .iter()
            .map(|r| AuditEntry {
                at_ms: to_u64(r.get(0)),
                client: r.get(1),
                server: r.get(2),
                command: r.get(3),
                outcome: r.get(4),
                round_trip_ms: to_u64(r.get(5)),
            })
            .collect())
    }

    fn exec(&mut self) -> Result<&mut dyn super::matches::exec::Exec> {
        self.live()?;
        Ok(self)
    }

    fn transact(
        &mut self,
        body: &mut dyn FnMut(&mut dyn super::matches::exec::Exec) -> Result<()>,
    ) -> Result<()> {
        self.live()?;
        let mut tx = self.client.transaction()?;
        body(&mut Prepared {
            client: &mut tx,
            statements: &mut self.prepared,
        })?;
        Ok(tx.commit()?)
    }
}
