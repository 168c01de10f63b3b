//! History answers: a server's population over a range, the population of every server
//! together, and where a name was seen.

use alloc::string::String;
use alloc::vec::Vec;

/// The ranges a chart offers, with the bucket width each is drawn at (at most about 500
/// points: 24 h at 5 minutes, 7 d at 30 minutes, 30 d at 2 hours, a year at a day).
pub const RANGES: &[(&str, u64, u64)] = &[
    ("1h", 3_600_000, 60_000),
    ("6h", 6 * 3_600_000, 60_000),
    ("24h", 24 * 3_600_000, 300_000),
    ("7d", 7 * 86_400_000, 1_800_000),
    ("30d", 30 * 86_400_000, 7_200_000),
    ("1y", 365 * 86_400_000, 86_400_000),
];

/// A range's span and bucket width, by name.
pub fn range(name: &str) -> Option<(u64, u64)> {
    RANGES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, span, step)| (*span, *step))
}

/// One bucket of a chart: humans min, average and max over the polls answered in it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Point {
    /// Start of the bucket (ms since the Unix epoch).
    pub t: u64,
    pub min: u16,
    /// One decimal.
    pub avg: f32,
    pub max: u16,
    /// The most slots the server offered in the bucket.
    pub slots: u16,
}

/// A map or gametype change.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MapMark {
    pub t: u64,
    pub map: String,
    pub gametype: String,
}

/// `GET /api/servers/ADDR/history?range=`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ServerHistory {
    pub addr: String,
    pub range: String,
    pub from_ms: u64,
    pub to_ms: u64,
    pub step_ms: u64,
    /// Buckets with at least one answered poll, in time order.
    pub points: Vec<Point>,
    /// Spans (start, end) where every poll went unanswered: downtime, never zero players.
    pub downtime: Vec<(u64, u64)>,
    pub map_changes: Vec<MapMark>,
    /// Average humans by UTC weekday (Monday first) and hour over the last 4 weeks; `None`
    /// where nothing was polled.
    pub week: Vec<Vec<Option<f32>>>,
}

/// `GET /api/history?range=`: every server's humans added up, and by gametype.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Population {
    pub range: String,
    pub from_ms: u64,
    pub to_ms: u64,
    pub step_ms: u64,
    pub total: Vec<Point>,
    pub gametypes: Vec<(String, Vec<Point>)>,
}

/// A server as a sighting names it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeenServer {
    pub addr: String,
    /// With colours; the address when the directory no longer knows it.
    pub hostname: String,
}

/// One stay of a name on a server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Stay {
    pub server: SeenServer,
    pub name: String,
    pub first_ms: u64,
    pub last_ms: u64,
}

/// `GET /api/players?name=`: one name, where it plays now (if it does) and where it was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerSeen {
    /// As last seen, colours kept.
    pub name: String,
    /// The server it is on now, from the latest poll.
    pub online: Option<SeenServer>,
    pub last_seen_ms: u64,
    pub last_server: SeenServer,
    /// Newest first.
    pub stays: Vec<Stay>,
}
