//! History: every poll kept (samples, then 5-minute and hourly min/avg/max for a year and for
//! ever), map changes, where each name was seen, and the directory persisted so a restarted
//! relay serves its last list at once. Storage is [`crate::store`]; this capability turns the
//! poller's outcomes into writes ([`writer`]), answers ([`query`]) and charts ([`chart`]).
//! Routes: `GET /api/servers/{addr}/history[.svg]`, `GET /api/history[.svg]`,
//! `GET /api/players`.

pub(crate) mod chart;
pub(crate) mod query;
mod scrape;
mod writer;

pub use chart::server as server_chart;
pub use query::{seen, server_history as query_server_history};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use protocol::relay_api::history::{PlayerSeen, Population, ServerHistory};
use protocol::relay_api::{ApiError, MasterStatus, ServerInfo};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::browse::Directory;
use crate::http::tag;
use crate::net::unix_ms;
use crate::store::compact::Retention;
use crate::store::worker::Workers;
use crate::store::{Result, StoreArgs, DAY_MS};
use crate::sync::Locked;

/// Where history lives and how long each resolution is kept.
#[derive(clap::Args, Debug, Clone)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Keep no history and persist nothing: a restart starts from an empty list.
    #[arg(long)]
    pub no_history: bool,
    /// Days every sample is kept.
    #[arg(long, default_value_t = 7, value_name = "DAYS")]
    pub history_raw_days: u64,
    /// Days 5-minute min/avg/max buckets are kept.
    #[arg(long = "history-5min-days", default_value_t = 400, value_name = "DAYS")]
    pub history_five_minutes_days: u64,
    /// Days hourly buckets are kept; 0 keeps them for ever.
    #[arg(long, default_value_t = 0, value_name = "DAYS")]
    pub history_hourly_days: u64,
    /// Days each player session (one stay on one server) is kept; names keep their last
    /// sighting for ever. 0 keeps sessions for ever.
    #[arg(long, default_value_t = 90, value_name = "DAYS")]
    pub history_sessions_days: u64,
    /// Days map changes are kept (charts mark them up to the 7-day range). 0: for ever.
    #[arg(long, default_value_t = 30, value_name = "DAYS")]
    pub history_map_days: u64,
    /// Days a followed match is kept with its kills; each name's figures and ratings are kept
    /// for ever. 0: matches for ever.
    #[arg(long, default_value_t = 365, value_name = "DAYS")]
    pub history_matches_days: u64,
    /// A name whose figures are not kept nor shown (its kills stay in the matches' records,
    /// where the page names it); matched without colours and case. Repeat for more.
    #[arg(long = "stats-exclude", value_name = "NAME")]
    pub stats_exclude: Vec<String>,
}

impl HistoryArgs {
    pub fn config(&self) -> Option<HistoryConfig> {
        let days = |d: u64| (d > 0).then_some(d * DAY_MS);
        (!self.no_history).then(|| HistoryConfig {
            store: self.store.clone(),
            retention: Retention {
                raw_ms: days(self.history_raw_days.max(1)),
                five_minutes_ms: days(self.history_five_minutes_days.max(1)),
                hour_ms: days(self.history_hourly_days),
                sessions_ms: days(self.history_sessions_days),
                map_changes_ms: days(self.history_map_days),
                matches_ms: days(self.history_matches_days),
            },
            hidden_names: self
                .stats_exclude
                .iter()
                .map(|n| crate::store::name_key(n))
                .collect(),
        })
    }
}

#[derive(Clone, Debug)]
pub struct HistoryConfig {
    pub store: StoreArgs,
    pub retention: Retention,
    /// Name keys given no figures (`--stats-exclude`).
    pub hidden_names: Vec<String>,
}

/// Connections that answer pages.
const READERS: usize = 3;
/// How long a chart or answer is served from the cache.
const CACHE_FOR: Duration = Duration::from_secs(30);
const CACHE_ENTRIES: usize = 4096;

/// The running history: the writer's log (for the poller) and the readers (for the API).
pub struct History {
    pub log: Arc<writer::Log>,
    readers: Workers,
    /// Where the store is (the file, or the PostgreSQL host and database; no password).
    location: String,
    /// Held while the relay runs on an embedded store: no restore or second relay under it.
    _lock: Option<crate::store::backup::DataDirLock>,
    directory: Arc<Directory>,
    /// Encoded answers by request, shared by every page that asks within [`CACHE_FOR`].
    cache: Mutex<HashMap<String, (Instant, Bytes)>>,
}

impl History {
    /// Opens the store (running its migrations), puts the persisted directory back, and
    /// starts the writer and the readers. The totals are tallied once per `refresh`.
    pub async fn start(
        config: HistoryConfig,
        directory: Arc<Directory>,
        refresh: std::time::Duration,
        fence: Option<Arc<crate::store::Fence>>,
        metrics: crate::metrics::StoreMetrics,
    ) -> Result<Arc<Self>> {
        let store = config.store.clone();
        // Connections are made off the runtime (PostgreSQL's client blocks).
        let (lock, writer, readers, saved) = tokio::task::spawn_blocking(move || {
            let lock = match store.database {
                None => Some(crate::store::backup::lock_data_dir(&store.data_dir)?),
                Some(_) => None,
            };
            let mut writer = store.open()?;
            let saved = writer.saved()?;
            let readers = (0..READERS)
                .map(|_| store.open())
                .collect::<Result<Vec<_>>>()?;
            Ok::<_, crate::store::StoreError>((lock, writer, readers, saved))
        })
        .await
        .map_err(|_| crate::store::StoreError::Stopped)??;
        let servers: Vec<ServerInfo> = saved
            .servers
            .iter()
            .filter_map(|(addr, json)| match serde_json::from_str(json) {
                Ok(server) => Some(server),
                Err(e) => {
                    tracing::warn!("persisted record of {addr} unreadable, skipped: {e}");
                    None
                }
            })
            .collect();
        let masters: Vec<MasterStatus> = saved
            .masters
            .iter()
            .filter_map(|(_, json)| serde_json::from_str(json).ok())
            .collect();
        let location = config.store.describe();
        tracing::info!(
            "history in {location} ({}): {} servers restored",
            writer.backend(),
            servers.len()
        );
        let log = writer::start(
            writer,
            &servers,
            writer::Settings {
                retention: config.retention,
                hidden_names: config.hidden_names,
                refresh,
            },
            fence,
            metrics,
        );
        directory.restore(servers, masters);
        Ok(Arc::new(Self {
            log,
            readers: Workers::start(readers, "history-reader"),
            location,
            _lock: lock,
            directory,
            cache: Mutex::new(HashMap::new()),
        }))
    }

    /// A cached answer, or `make`'s: its body, and whether it holds any point. Only one that
    /// does is cached for the next pages; an empty one is cheap to make again, and caching it
    /// would hide a new relay's first samples for [`CACHE_FOR`].
    async fn cached<F>(&self, key: String, make: F) -> Result<Option<Bytes>>
    where
        F: FnOnce(&mut dyn crate::store::Store, u64) -> Result<Option<(String, bool)>>
            + Send
            + 'static,
    {
        {
            let cache = self.cache.locked();
            if let Some((at, body)) = cache.get(&key) {
                if at.elapsed() < CACHE_FOR {
                    return Ok(Some(body.clone()));
                }
            }
        }
        let now = unix_ms();
        let Some((body, points)) = self.readers.run(move |store| make(store, now)).await? else {
            return Ok(None);
        };
        // Shared, not copied, by every page served from the cache.
        let body = Bytes::from(body);
        if !points {
            return Ok(Some(body));
        }
        let mut cache = self.cache.locked();
        if cache.len() >= CACHE_ENTRIES {
            cache.retain(|_, (at, _)| at.elapsed() < CACHE_FOR);
            if cache.len() >= CACHE_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(key, (Instant::now(), body.clone()));
        Ok(Some(body))
    }

    /// The connections that answer pages, for the capabilities that read what the history's
    /// writer keeps (matches).
    pub fn readers(&self) -> Workers {
        self.readers.clone()
    }

    /// Where names like `name` were seen, the ones playing now first.
    pub async fn players(&self, name: &str) -> Result<Vec<PlayerSeen>> {
        let wanted = name.to_owned();
        let seen = self
            .readers
            .run(move |store| query::seen(store, &wanted))
            .await?;
        // Read in place, under the directory's lock: no copy of 2,000 records per request.
        Ok(self
            .directory
            .with_servers(|servers| query::sightings(seen, name, servers)))
    }
}

/// The ranges a history answers, as the description names them (the handler reads the text
/// itself, so a wrong one is refused naming these).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
enum HistoryRange {
    #[schema(rename = "1h")]
    Hour,
    #[schema(rename = "6h")]
    SixHours,
    #[schema(rename = "24h")]
    Day,
    #[schema(rename = "7d")]
    Week,
    #[schema(rename = "30d")]
    Month,
    #[schema(rename = "1y")]
    Year,
}

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct RangeQuery {
    /// How far back (`24h` by default).
    #[param(value_type = Option<HistoryRange>, inline)]
    range: Option<String>,
    /// The viewer's zone, minutes east of UTC (charts only; clamped to ±14 h).
    tz: Option<i32>,
}

impl RangeQuery {
    fn range(&self) -> String {
        self.range.clone().unwrap_or_else(|| "24h".into())
    }

    fn tz(&self) -> i32 {
        self.tz.unwrap_or(0).clamp(-14 * 60, 14 * 60)
    }
}

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct NameQuery {
    /// A player's name, colour codes and case ignored (1 to 64 characters).
    #[param(example = "Fury")]
    name: String,
}

fn answer(result: Result<Option<Bytes>>, content_type: &'static str) -> Response {
    match result {
        Ok(Some(body)) => (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, "max-age=30"),
            ],
            body,
        )
            .into_response(),
        Ok(None) => (
            StatusCode::BAD_REQUEST,
            "range must be one of 1h, 6h, 24h, 7d, 30d, 1y",
        )
            .into_response(),
        Err(e) => {
            tracing::warn!("history: {e}");
            (StatusCode::SERVICE_UNAVAILABLE, "history is unavailable").into_response()
        }
    }
}

const JSON: &str = "application/json";
const SVG: &str = "image/svg+xml";

/// The history routes.
pub fn routes(history: Arc<History>) -> Router {
    Router::from(api()).with_state(history)
}

fn api() -> OpenApiRouter<Arc<History>> {
    OpenApiRouter::new()
        .routes(routes!(server_json))
        .routes(routes!(server_svg))
        .routes(routes!(population_json))
        .routes(routes!(population_svg))
        .routes(routes!(players))
        .routes(routes!(store_status))
}

/// The history's part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// Only servers the directory knows have history worth asking for.
fn known(history: &History, addr: &str) -> Option<Response> {
    let known = addr
        .parse()
        .is_ok_and(|addr| history.directory.contains(addr));
    (!known).then(|| (StatusCode::NOT_FOUND, "no such server").into_response())
}

/// How an answer is sent: the API's JSON, or a chart.
#[derive(Clone, Copy)]
enum Form {
    Json,
    Svg,
}

impl Form {
    fn content_type(self) -> &'static str {
        match self {
            Self::Json => JSON,
            Self::Svg => SVG,
        }
    }

    /// The answer in this form (`draw` makes the chart).
    fn render<T: serde::Serialize>(self, answer: &T, draw: impl FnOnce(&T) -> String) -> String {
        match self {
            Self::Json => serde_json::to_string(answer).unwrap_or_default(),
            Self::Svg => draw(answer),
        }
    }
}

async fn server_history(h: Arc<History>, addr: String, q: RangeQuery, form: Form) -> Response {
    if let Some(missing) = known(&h, &addr) {
        return missing;
    }
    let (range, tz) = (q.range(), q.tz());
    let key = format!("server {} {addr} {range} {tz}", form.content_type());
    let made = h.cached(key, move |store, now| {
        Ok(query::server_history(store, &addr, &range, now)?.map(|r| {
            (
                form.render(&r, |r| chart::server(r, tz)),
                !r.points.is_empty(),
            )
        }))
    });
    answer(made.await, form.content_type())
}

async fn population(h: Arc<History>, q: RangeQuery, form: Form) -> Response {
    let (range, tz) = (q.range(), q.tz());
    let key = format!("population {} {range} {tz}", form.content_type());
    let made = h.cached(key, move |store, now| {
        Ok(query::population(store, &range, now)?.map(|r| {
            (
                form.render(&r, |r| chart::sparkline(r, tz)),
                !r.total.is_empty(),
            )
        }))
    });
    answer(made.await, form.content_type())
}

/// A server's players over time: the average, low and high of each step of the range.
#[utoipa::path(get, path = "/api/servers/{addr}/history", tag = tag::HISTORY,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960"), RangeQuery),
    responses(
        (status = 200, description = "The server's history", body = ServerHistory),
        (status = 404, description = "No server the relay knows", body = ApiError),
        (status = 400, description = "A range or zone it cannot read", body = ApiError),
        (status = 503, description = "The history store cannot be read", body = ApiError),
    ))]
async fn server_json(
    State(h): State<Arc<History>>,
    Path(addr): Path<String>,
    Query(q): Query<RangeQuery>,
) -> Response {
    server_history(h, addr, q, Form::Json).await
}

/// The same as a chart.
#[utoipa::path(get, path = "/api/servers/{addr}/history.svg", tag = tag::HISTORY,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960"), RangeQuery),
    responses(
        (status = 200, description = "The chart", content_type = "image/svg+xml", body = String),
        (status = 404, description = "No server the relay knows", body = ApiError),
        (status = 400, description = "A range or zone it cannot read", body = ApiError),
        (status = 503, description = "The history store cannot be read", body = ApiError),
    ))]
async fn server_svg(
    State(h): State<Arc<History>>,
    Path(addr): Path<String>,
    Query(q): Query<RangeQuery>,
) -> Response {
    server_history(h, addr, q, Form::Svg).await
}

/// Players and servers across every server, over time.
#[utoipa::path(get, path = "/api/history", tag = tag::HISTORY,
    params(RangeQuery),
    responses(
        (status = 200, description = "The population", body = Population),
        (status = 400, description = "A range or zone it cannot read", body = ApiError),
        (status = 503, description = "The history store cannot be read", body = ApiError),
    ))]
async fn population_json(State(h): State<Arc<History>>, Query(q): Query<RangeQuery>) -> Response {
    population(h, q, Form::Json).await
}

/// The same as a sparkline.
#[utoipa::path(get, path = "/api/history.svg", tag = tag::HISTORY,
    params(RangeQuery),
    responses(
        (status = 200, description = "The sparkline", content_type = "image/svg+xml", body = String),
        (status = 400, description = "A range or zone it cannot read", body = ApiError),
        (status = 503, description = "The history store cannot be read", body = ApiError),
    ))]
async fn population_svg(State(h): State<Arc<History>>, Query(q): Query<RangeQuery>) -> Response {
    population(h, q, Form::Svg).await
}

/// `GET /api/history/store`.
#[derive(serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct StoreStatus {
    pub backend: String,
    pub location: String,
    /// The database's size; absent while it cannot be read.
    pub size_bytes: Option<u64>,
    /// `ok`, or `failing` while writes do not reach the database (they are held meanwhile).
    pub writes: String,
    /// Unix ms of the first failed write of the outage now.
    pub failing_since_ms: Option<u64>,
    /// Why the last write or read failed, while they fail.
    pub error: Option<String>,
    /// Samples an outage held past the writer's bound, dropped oldest first.
    pub lost_samples: u64,
    pub dropped_records: u64,
    pub fenced_batches: u64,
}

/// The store as an operator checks it: which backend, where, its size, whether writes reach
/// it (and since when they do not), what outages lost, records dropped, and (in a cluster)
/// batches refused for a stale fencing token. `503` while the store fails, with the same body.
#[utoipa::path(get, path = "/api/history/store", tag = tag::HISTORY,
    responses(
        (status = 200, description = "The store is healthy", body = StoreStatus),
        (status = 503, description = "The store fails; the same record says how", body = StoreStatus),
    ))]
async fn store_status(State(h): State<Arc<History>>) -> Response {
    use std::sync::atomic::Ordering::Relaxed;
    let size = h.readers.run(|store| store.size_bytes()).await;
    let health = &h.log.health;
    let failing_since_ms = Some(health.failing_since_ms.load(Relaxed)).filter(|&ms| ms != 0);
    let error = match &size {
        Err(e) => Some(e.to_string()),
        Ok(_) => health.last_error.locked().clone(),
    };
    let healthy = size.is_ok() && failing_since_ms.is_none();
    let status = StoreStatus {
        backend: h.readers.backend().to_owned(),
        location: h.location.clone(),
        size_bytes: size.ok(),
        writes: if failing_since_ms.is_some() {
            "failing"
        } else {
            "ok"
        }
        .to_owned(),
        failing_since_ms,
        error,
        lost_samples: health.lost_samples.load(Relaxed),
        dropped_records: h.log.dropped.load(Relaxed),
        fenced_batches: h.log.fenced.load(Relaxed),
    };
    let code = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(status)).into_response()
}

/// A name: where it plays now, if it does, and where it was seen.
#[utoipa::path(get, path = "/api/players", tag = tag::HISTORY,
    params(NameQuery),
    responses(
        (status = 200, description = "Every player by that name", body = Vec<PlayerSeen>),
        (status = 400, description = "No name, or one too long", body = ApiError),
        (status = 503, description = "The history store cannot be read", body = ApiError),
    ))]
async fn players(State(h): State<Arc<History>>, Query(q): Query<NameQuery>) -> Response {
    if q.name.trim().is_empty() || q.name.len() > 64 {
        return (StatusCode::BAD_REQUEST, "name must be 1 to 64 characters").into_response();
    }
    match h.players(&q.name).await {
        Ok(found) => Json(found).into_response(),
        Err(e) => {
            tracing::warn!("players: {e}");
            (StatusCode::SERVICE_UNAVAILABLE, "history is unavailable").into_response()
        }
    }
}

/// Starts the history when the relay keeps one (`None`: it remembers nothing across
/// restarts): the persisted directory is put back first, so call it before the poller starts.
/// Returns the history and its routes.
pub async fn start(
    config: Option<HistoryConfig>,
    directory: Arc<Directory>,
    refresh: std::time::Duration,
    fence: Option<Arc<crate::store::Fence>>,
    metrics: crate::metrics::StoreMetrics,
) -> Result<Option<(Arc<History>, Router)>> {
    let Some(config) = config else {
        return Ok(None);
    };
    let history = History::start(config, directory, refresh, fence, metrics).await?;
    let router = routes(history.clone());
    Ok(Some((history, router)))
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;
    use crate::http::oneshot::{call, get};

    async fn history() -> (tempfile::TempDir, Router) {
        let dir = tempfile::tempdir().unwrap();
        let directory = Arc::new(Directory::new(&[]));
        let addr = "10.0.0.7:28960".parse().unwrap();
        directory.upsert(crate::browse::poller::pending_server(
            addr,
            vec!["operator".into()],
        ));
        let config = HistoryConfig {
            store: StoreArgs {
                data_dir: dir.path().to_owned(),
                database: None,
            },
            retention: Retention::default(),
            hidden_names: Vec::new(),
        };
        let history = History::start(
            config,
            directory,
            Duration::from_secs(20),
            None,
            Default::default(),
        )
        .await
        .unwrap();
        (dir, routes(history))
    }

    #[tokio::test]
    async fn the_routes_answer_and_refuse_with_reasons() {
        let (_dir, app) = history().await;
        let (status, body) = call(&app, get("/api/servers/10.0.0.7:28960/history?range=7d")).await;
        assert_eq!(status, StatusCode::OK);
        let answer: protocol::relay_api::history::ServerHistory =
            serde_json::from_str(&body).unwrap();
        assert_eq!((answer.step_ms, answer.points.len()), (1_800_000, 0));
        let (status, body) = call(&app, get("/api/servers/10.0.0.7:28960/history.svg")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.starts_with("<svg"), "{body}");
        // A server the directory does not know, a range the API does not offer, a blank name.
        let unknown = call(&app, get("/api/servers/10.9.9.9:28960/history")).await;
        assert_eq!(unknown.0, StatusCode::NOT_FOUND);
        let range = call(&app, get("/api/history?range=2d")).await;
        assert_eq!(range.0, StatusCode::BAD_REQUEST);
        assert!(range.1.contains("24h"), "{}", range.1);
        assert_eq!(
            call(&app, get("/api/players?name=%20")).await.0,
            StatusCode::BAD_REQUEST
        );
        let (status, body) = call(&app, get("/api/players?name=bob")).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "[]"));
        let (status, body) = call(&app, get("/api/history/store")).await;
        assert_eq!(status, StatusCode::OK);
        let store: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(store["backend"], "sqlite");
        assert!(store["size_bytes"].as_u64().unwrap() > 0);
    }
}
