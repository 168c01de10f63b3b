//! Storage: what the relay keeps across restarts (the directory, masters' lists) and the
//! history (samples, min/avg/max buckets, map changes, player sessions), behind one small
//! trait with two backends: SQLite, a file in `--data-dir` with nothing to install, and
//! PostgreSQL with `--database postgres://...`. Migrations run forward at start-up on both.
//!
//! Samples land in a plain table as polls are written (batched, a second at a time); the
//! compactor ([`compact`]) packs each finished hour into its day's chunk of each series, folds
//! it into the period's 5-minute and hourly chunks, and drops what is past its retention.

pub mod alerts;
pub mod backup;
pub(crate) mod compact;
pub mod highlights;
pub mod matches;
pub mod moments;
pub mod owners;
pub(crate) mod pack;
mod postgres;
pub mod sitemap;
mod sqlite;
#[cfg(test)]
mod suite;
mod suite_support;
pub(crate) mod worker;

use std::path::PathBuf;

pub use pack::{fold, pack_buckets, pack_samples, Bucket, Sample};
/// For the PostgreSQL tests, here and in `relay/tests`.
pub use suite_support::postgres_database;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] ::postgres::Error),
    #[error("stored history is corrupt: {0}")]
    Corrupt(&'static str),
    #[error("the database is at schema version {found}; this relay knows up to {known} (a newer relay wrote it)")]
    TooNew { found: i64, known: i64 },
    #[error("cannot create the data directory {path}: {error}")]
    DataDir { path: String, error: std::io::Error },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("a relay (process {pid}) is using {dir}: stop it first")]
    InUse { dir: String, pid: String },
    #[error("{path} is not a Muster store: {why}")]
    NotAStore { path: String, why: String },
    #[error("{path} exists; name a new file (nothing was overwritten)")]
    Exists { path: String },
    #[error("the store's threads have stopped")]
    Stopped,
    /// The database went away; the backend connects again, backing off between attempts.
    #[error("the database went away; connecting again (next attempt in {in_ms} ms)")]
    Reconnecting { in_ms: u64 },
    #[error("--database must be a postgres:// or postgresql:// URL")]
    Url,
    /// A write carried a fencing token older than one already written: its writer's lease
    /// has passed to another relay, so the write is refused whole.
    #[error("write refused: fencing token {token} is stale (a newer lease holder has written)")]
    Fenced { token: u64 },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// How finely a chunk holds a series.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resolution {
    /// Every sample; a chunk is a day.
    Raw,
    /// 5-minute buckets; a chunk is four weeks.
    FiveMinutes,
    /// Hourly buckets; a chunk is four weeks.
    Hour,
}

pub const HOUR_MS: u64 = 3_600_000;
pub const DAY_MS: u64 = 24 * HOUR_MS;
/// The period of a bucket chunk: four weeks.
pub const PERIOD_MS: u64 = 28 * DAY_MS;

impl Resolution {
    /// As stored.
    pub fn code(self) -> i64 {
        match self {
            Self::Raw => 0,
            Self::FiveMinutes => 1,
            Self::Hour => 2,
        }
    }

    /// The time one chunk covers. Long chunks keep rows few and full: a row per server per
    /// day, or per four weeks, packs tighter than a row per hour, and a year's chart reads
    /// 14 rows.
    pub fn chunk_ms(self) -> u64 {
        match self {
            Self::Raw => DAY_MS,
            Self::FiveMinutes | Self::Hour => PERIOD_MS,
        }
    }

    /// The start of the chunk holding `t_ms` (periods are aligned to the Unix epoch).
    pub fn chunk_start(self, t_ms: u64) -> u64 {
        t_ms - t_ms % self.chunk_ms()
    }

    /// The bucket width (samples have none).
    pub fn step_ms(self) -> Option<u64> {
        match self {
            Self::Raw => None,
            Self::FiveMinutes => Some(300_000),
            Self::Hour => Some(HOUR_MS),
        }
    }
}

/// A series: one server (`ip:port`) or a total ([`TOTAL`], or [`gametype_series`]).
pub type SeriesName = String;

/// The series of every server's humans added up.
pub const TOTAL: &str = "total";

/// The series of one gametype's humans added up.
pub fn gametype_series(gametype: &str) -> String {
    format!("gametype:{gametype}")
}

/// A stored chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub series: SeriesName,
    pub resolution: Resolution,
    pub start_ms: u64,
    pub data: Vec<u8>,
}

/// A server's map or gametype changed (the first answer counts as a change).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MapChange {
    #[serde(skip)]
    pub series: SeriesName,
    pub at_ms: u64,
    pub map: String,
    pub gametype: String,
}

/// One stay of one name on one server, as BattleMetrics keeps them: written with each batch
/// while it lasts, keyed by when it began. (Stored without the name, which the player's row
/// holds as last seen: a stay costs some 25 bytes.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The name without colour codes, lower-case: what searches match.
    pub key: String,
    /// The name as the server showed it, colours kept.
    pub name: String,
    pub server: SeriesName,
    pub first_ms: u64,
    pub last_ms: u64,
}

/// What one write carries, committed as one transaction.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub samples: Vec<(SeriesName, Sample)>,
    /// Directory records (`ip:port`, the server's JSON) that changed.
    pub servers: Vec<(String, String)>,
    /// Master statuses (as configured, the JSON) that changed.
    pub masters: Vec<(String, String)>,
    pub map_changes: Vec<MapChange>,
    pub sessions: Vec<Session>,
    /// In a cluster: the poller lease's revision the writer held. The write goes through only
    /// if no greater token was written before (the fence row keeps the greatest).
    pub fence: Option<u64>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
            && self.servers.is_empty()
            && self.masters.is_empty()
            && self.map_changes.is_empty()
            && self.sessions.is_empty()
    }
}

/// One admin console command as the audit keeps it: who, where, what and how it ended; never
/// a password. Also one line of the audit log file, as JSON.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AuditEntry {
    pub at_ms: u64,
    /// The client: an IPv4 address or an IPv6 /64.
    pub client: String,
    pub server: String,
    pub command: String,
    /// `output`, `bad_password`, `no_password`, or the refusal (`locked`, `no_reply`, ...).
    pub outcome: String,
    pub round_trip_ms: u64,
}

/// In a cluster: whether this relay holds the poller's lease, and the lease's latest revision,
/// the fencing token every history write carries. Outside a cluster there is none.
#[derive(Debug, Default)]
pub struct Fence {
    token: std::sync::atomic::AtomicU64,
    holding: std::sync::atomic::AtomicBool,
}

impl Fence {
    /// The lease was won or renewed at `token`.
    pub fn hold(&self, token: u64) {
        use std::sync::atomic::Ordering;
        self.token.fetch_max(token, Ordering::AcqRel);
        self.holding.store(true, Ordering::Release);
    }

    /// The lease was lost; the token is kept, so what was queued is still written with it and
    /// refused by the database if a newer holder has written since.
    pub fn release(&self) {
        self.holding
            .store(false, std::sync::atomic::Ordering::Release);
    }

    pub fn holding(&self) -> bool {
        self.holding.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn token(&self) -> Option<u64> {
        let token = self.token.load(std::sync::atomic::Ordering::Acquire);
        (token > 0).then_some(token)
    }
}

/// The persisted directory, as the relay loads it at start-up.
#[derive(Clone, Debug, Default)]
pub struct Saved {
    pub servers: Vec<(String, String)>,
    pub masters: Vec<(String, String)>,
}

/// A name seen before, with its latest stays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub key: String,
    pub name: String,
    pub last_ms: u64,
    pub last_server: SeriesName,
    /// Newest first.
    pub sessions: Vec<Session>,
}

/// The one storage trait: each backend is a connection; the relay holds one for writing (on
/// its own thread) and a few for reading.
pub trait Store: Send {
    fn backend(&self) -> &'static str;
    /// Commits a batch in one transaction.
    fn write(&mut self, batch: &Batch) -> Result<()>;
    /// The persisted directory.
    fn saved(&mut self) -> Result<Saved>;
    /// Unpacked samples in `[from_ms, to_ms)`, of one series or of all, in time order.
    fn samples(
        &mut self,
        series: Option<&str>,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<(SeriesName, Sample)>>;
    /// The oldest unpacked sample's time.
    fn oldest_sample(&mut self) -> Result<Option<u64>>;
    /// Chunks of one series starting in `[from_ms, to_ms)`, in time order.
    fn chunks(
        &mut self,
        series: &str,
        resolution: Resolution,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<Chunk>>;
    /// Stores chunks (replacing any at the same start) and drops the samples before
    /// `packed_before`, in one transaction.
    fn pack(&mut self, chunks: &[Chunk], packed_before: u64) -> Result<()>;
    /// Drops chunks of `resolution` that end before `before_ms`; returns how many.
    fn expire(&mut self, resolution: Resolution, before_ms: u64) -> Result<u64>;
    /// Drops sessions that ended before `before_ms` (names stay with their last sighting).
    fn expire_sessions(&mut self, before_ms: u64) -> Result<u64>;
    /// Drops map changes before `before_ms`.
    fn expire_map_changes(&mut self, before_ms: u64) -> Result<u64>;
    fn map_changes(&mut self, series: &str, from_ms: u64, to_ms: u64) -> Result<Vec<MapChange>>;
    /// Names whose key contains `key_part`, most recently seen first, each with up to
    /// `sessions` stays.
    fn find_players(&mut self, key_part: &str, limit: u32, sessions: u32) -> Result<Vec<Seen>>;
    /// Every series whose name starts with `prefix`.
    fn series_names(&mut self, prefix: &str) -> Result<Vec<String>>;
    /// Bytes the database takes.
    fn size_bytes(&mut self) -> Result<u64>;
    /// Appends admin console audit entries. Never fenced: each relay records its own admins'
    /// commands, lease or not.
    fn put_audit(&mut self, entries: &[AuditEntry]) -> Result<()>;
    /// Audit entries of one server (or of all), newest first, at most `limit`.
    fn audit(&mut self, server: Option<&str>, limit: u32) -> Result<Vec<AuditEntry>>;
    /// The connection, for what both backends run alike (the matches' tables).
    fn exec(&mut self) -> Result<&mut dyn matches::exec::Exec>;
    /// Runs `body` in one transaction, committed if it succeeds.
    fn transact(
        &mut self,
        body: &mut dyn FnMut(&mut dyn matches::exec::Exec) -> Result<()>,
    ) -> Result<()>;
}

/// Where the history lives (flattened into `muster serve`, `muster history`, `muster seen`).
#[derive(clap::Args, Debug, Clone)]
pub struct StoreArgs {
    /// Where the embedded SQLite database (`muster.db`) lives.
    #[arg(long, env = "MUSTER_DATA_DIR", default_value = "muster-data")]
    pub data_dir: PathBuf,
    /// Keep history in PostgreSQL instead, as postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "MUSTER_DATABASE", value_name = "URL")]
    pub database: Option<String>,
}

impl StoreArgs {
    /// Opens one connection, running the migrations.
    pub fn open(&self) -> Result<Box<dyn Store>> {
        match &self.database {
            Some(url) => {
                if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
                    return Err(StoreError::Url);
                }
                Ok(Box::new(postgres::Postgres::open(url)?))
            }
            None => {
                std::fs::create_dir_all(&self.data_dir).map_err(|error| StoreError::DataDir {
                    path: self.data_dir.display().to_string(),
                    error,
                })?;
                Ok(Box::new(sqlite::Sqlite::open(
                    &self.data_dir.join("muster.db"),
                )?))
            }
        }
    }

    /// The store's schema version and the newest this relay knows, without migrating (for
    /// `muster doctor`); `None` when there is no store yet. Waits at most `within` for a
    /// PostgreSQL connection.
    pub fn schema_version(&self, within: std::time::Duration) -> Result<(Option<i64>, i64)> {
        match &self.database {
            Some(url) => {
                let mut config: ::postgres::Config = url.parse()?;
                config.connect_timeout(within);
                let mut client = config.connect(::postgres::NoTls)?;
                let known = postgres::VERSIONS as i64;
                let exists: bool = client
                    .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])?
                    .get(0);
                if !exists {
                    return Ok((None, known));
                }
                let found: Option<i64> = client.query_one(sql::VERSION, &[])?.get(0);
                Ok((found, known))
            }
            None => {
                let file = self.data_dir.join(backup::FILE);
                if !file.exists() {
                    return Ok((None, sqlite::VERSIONS));
                }
                Ok((Some(backup::check(&file)?.schema_version), sqlite::VERSIONS))
            }
        }
    }

    /// Where it is, for messages.
    pub fn describe(&self) -> String {
        match &self.database {
            Some(url) => url.split('@').next_back().unwrap_or(url).to_owned(),
            None => self.data_dir.join("muster.db").display().to_string(),
        }
    }
}

/// The match key of a name: colour codes removed, lower-case, trimmed (as the page matches).
pub fn name_key(name: &str) -> String {
    protocol::browse::plain_lower(name).trim().to_owned()
}

/// The SQL both backends share; parameters are `$N`, which SQLite also binds by position.
mod sql {
    pub const CHUNKS: &str =
        "SELECT c.start_ms, c.data FROM chunks c JOIN series s ON s.id = c.series \
         WHERE s.name = $1 AND c.resolution = $2 AND c.start_ms >= $3 AND c.start_ms < $4 \
         ORDER BY c.start_ms";
    pub const PUT_CHUNK: &str = "INSERT INTO chunks (series, resolution, start_ms, data) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (series, resolution, start_ms) DO UPDATE SET data = excluded.data";
    pub const DROP_SAMPLES: &str = "DELETE FROM samples WHERE at_ms < $1";
    pub const EXPIRE: &str = "DELETE FROM chunks WHERE resolution = $1 AND start_ms < $2";
    pub const EXPIRE_SESSIONS: &str = "DELETE FROM sessions WHERE last_ms < $1";
    pub const EXPIRE_MAP_CHANGES: &str = "DELETE FROM map_changes WHERE at_ms < $1";
    pub const SAMPLES_OF: &str = "SELECT s.name, m.at_ms, m.clients, m.bots, m.max_clients, m.up \
         FROM samples m JOIN series s ON s.id = m.series \
         WHERE m.at_ms >= $1 AND m.at_ms < $2 AND s.name = $3 ORDER BY m.at_ms";
    pub const SAMPLES_ALL: &str = "SELECT s.name, m.at_ms, m.clients, m.bots, m.max_clients, m.up \
         FROM samples m JOIN series s ON s.id = m.series \
         WHERE m.at_ms >= $1 AND m.at_ms < $2 ORDER BY m.at_ms";
    pub const OLDEST_SAMPLE: &str = "SELECT MIN(at_ms) FROM samples";
    pub const PUT_SAMPLE: &str =
        "INSERT INTO samples (series, at_ms, clients, bots, max_clients, up) \
         VALUES ($1, $2, $3, $4, $5, $6)";
    /// Raises the fence to the token, or changes nothing when a greater one is there.
    pub const FENCE: &str = "INSERT INTO fence (name, token) VALUES ('poller', $1) \
         ON CONFLICT (name) DO UPDATE SET token = excluded.token WHERE fence.token <= excluded.token";
    pub const PUT_SERVER: &str =
        "INSERT INTO directory (addr, record, saved_ms) VALUES ($1, $2, $3) \
         ON CONFLICT (addr) DO UPDATE SET record = excluded.record, saved_ms = excluded.saved_ms";
    pub const PUT_MASTER: &str =
        "INSERT INTO masters (addr, record, saved_ms) VALUES ($1, $2, $3) \
         ON CONFLICT (addr) DO UPDATE SET record = excluded.record, saved_ms = excluded.saved_ms";
    pub const SERVERS: &str = "SELECT addr, record FROM directory ORDER BY addr";
    pub const MASTERS: &str = "SELECT addr, record FROM masters ORDER BY addr";
    pub const PUT_MAP_CHANGE: &str = "INSERT INTO map_changes (series, at_ms, map, gametype) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (series, at_ms) DO UPDATE SET map = excluded.map, gametype = excluded.gametype";
    pub const MAP_CHANGES: &str =
        "SELECT c.at_ms, c.map, c.gametype FROM map_changes c JOIN series s ON s.id = c.series \
         WHERE s.name = $1 AND c.at_ms >= $2 AND c.at_ms < $3 ORDER BY c.at_ms";
    /// Upserts a name (a later sighting wins) and returns its id, in one round trip.
    pub const PUT_PLAYER: &str = "INSERT INTO players (key, name, last_ms, last_series) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (key) DO UPDATE SET \
         name = CASE WHEN excluded.last_ms >= players.last_ms THEN excluded.name ELSE players.name END, \
         last_series = CASE WHEN excluded.last_ms >= players.last_ms THEN excluded.last_series ELSE players.last_series END, \
         last_ms = CASE WHEN excluded.last_ms >= players.last_ms THEN excluded.last_ms ELSE players.last_ms END \
         RETURNING id";
    pub const PUT_SESSION: &str =
        "INSERT INTO sessions (player, series, first_ms, last_ms) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (player, series, first_ms) DO UPDATE SET last_ms = excluded.last_ms";
    pub const FIND_PLAYERS: &str = "SELECT p.id, p.key, p.name, p.last_ms, s.name FROM players p JOIN series s ON s.id = p.last_series \
         WHERE p.key LIKE $1 ESCAPE '\\' ORDER BY p.last_ms DESC LIMIT $2";
    pub const SESSIONS_OF: &str =
        "SELECT s.name, x.first_ms, x.last_ms FROM sessions x JOIN series s ON s.id = x.series \
         WHERE x.player = $1 ORDER BY x.last_ms DESC LIMIT $2";
    pub const SERIES_NAMED: &str =
        "SELECT name FROM series WHERE name LIKE $1 ESCAPE '\\' ORDER BY name";
    pub const SERIES_ID: &str = "SELECT id FROM series WHERE name = $1";
    pub const PUT_SERIES: &str =
        "INSERT INTO series (name) VALUES ($1) ON CONFLICT (name) DO NOTHING";
    pub const PUT_AUDIT: &str = "INSERT INTO rcon_audit \
         (at_ms, client, server, command, outcome, round_trip_ms) VALUES ($1, $2, $3, $4, $5, $6)";
    pub const AUDIT_OF: &str = "SELECT at_ms, client, server, command, outcome, round_trip_ms \
         FROM rcon_audit WHERE server = $1 ORDER BY at_ms DESC LIMIT $2";
    pub const AUDIT_ALL: &str = "SELECT at_ms, client, server, command, outcome, round_trip_ms \
         FROM rcon_audit ORDER BY at_ms DESC LIMIT $1";
    pub const VERSION: &str = "SELECT MAX(version) FROM schema_migrations";
    pub const MIGRATED: &str =
        "INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)";
}

/// A LIKE pattern matching text that contains `part` (`%` before it too unless `prefix`).
fn like_pattern(part: &str, prefix: bool) -> String {
    let mut pattern = String::from(if prefix { "" } else { "%" });
    for c in part.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn to_u16(v: i64) -> u16 {
    u16::try_from(v).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_without_colours_and_case() {
        assert_eq!(name_key("^1Big^7Bob"), "bigbob");
        assert_eq!(name_key(" ^2Ann "), "ann");
        assert_eq!(name_key("ÉLAN"), "élan");
        assert_eq!(like_pattern("a_b%", false), "%a\\_b\\%%");
        assert_eq!(like_pattern("g:", true), "g:%");
    }
}
