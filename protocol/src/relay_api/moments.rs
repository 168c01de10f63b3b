//! Moments: a stretch of a watched match cut as its own stock `.dm_3`, kept by the relay and
//! shared as a link (`/m/ID`). `POST /api/moments` makes one, `GET /api/moments/ID` describes
//! it, `GET /api/moments/ID.dm_3` and `.png` are the clip and its still.

use alloc::string::String;
use alloc::vec::Vec;

use super::rewind::RewindKill;

/// Seconds before the live edge a shared moment starts by default (Twitch clips look back).
pub const DEFAULT_BEFORE_S: f64 = 20.0;
/// Seconds after the chosen moment a shared clip runs by default.
pub const DEFAULT_AFTER_S: f64 = 10.0;
/// The longest clip, in seconds.
pub const MAX_SPAN_S: f64 = 120.0;
/// A time over this is Unix milliseconds; under it, seconds from the live edge.
pub const UNIX_MS_FROM: f64 = 1e12;

/// `POST /api/moments`: the server and the span, each end in seconds from the live edge
/// (negative: before it) or in Unix milliseconds when over 10^12.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MomentAsk {
    pub server: String,
    pub from: f64,
    pub to: f64,
}

/// A span's end as the relay reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MomentTime {
    /// Seconds from the live edge.
    FromEdge(f64),
    UnixMs(u64),
}

impl MomentTime {
    pub fn of(value: f64) -> Self {
        if value > UNIX_MS_FROM {
            Self::UnixMs(value as u64)
        } else {
            Self::FromEdge(value)
        }
    }

    /// Microseconds since the Unix epoch, with the live edge at `edge_us`.
    pub fn unix_us(self, edge_us: u64) -> u64 {
        match self {
            Self::UnixMs(ms) => ms.saturating_mul(1000),
            Self::FromEdge(s) => (edge_us as i64 + (s * 1e6) as i64).max(0) as u64,
        }
    }
}

/// `201` to `POST /api/moments`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MomentCreated {
    pub id: String,
    /// The page to share, `/m/ID`.
    pub url: String,
}

/// `GET /api/moments/ID`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MomentDetail {
    pub id: String,
    pub server: String,
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    /// Unix milliseconds it was made.
    pub created_ms: u64,
    /// The span in the relay's clock (Unix milliseconds) and the server's.
    pub from_ms: u64,
    pub to_ms: u64,
    pub first_server_time: i32,
    pub last_server_time: i32,
    pub snapshots: u32,
    /// The clip's size.
    pub bytes: u64,
    /// The server time the still shows.
    pub still_server_time: i32,
    /// The kills in the span, with the names as they were.
    pub kills: Vec<RewindKill>,
    /// The whole match's demo on this relay at this moment, when one was recorded.
    pub match_demo: Option<String>,
}

impl MomentDetail {
    pub fn page(&self) -> String {
        alloc::format!("/m/{}", self.id)
    }

    pub fn demo(&self) -> String {
        alloc::format!("/api/moments/{}.dm_3", self.id)
    }

    pub fn still(&self) -> String {
        alloc::format!("/api/moments/{}.png", self.id)
    }

    /// Seconds the clip plays.
    pub fn seconds(&self) -> f64 {
        f64::from(self.last_server_time.saturating_sub(self.first_server_time)) / 1000.0
    }

    /// One line for a card: the kills, or the map.
    pub fn headline(&self) -> crate::said::Said {
        use crate::said::Said;
        // Whole seconds, rounded (core has no `f64::round`).
        let seconds = (self.seconds() + 0.5) as i64;
        match self.kills.as_slice() {
            [] => Said::new("moment-headline-none")
                .with("seconds", seconds)
                .with("map", self.map.as_str()),
            [k] => Said::new("moment-headline-kill")
                .with(
                    "attacker",
                    k.attacker
                        .as_deref()
                        .map_or_else(|| Said::new("the-world").into(), crate::said::Word::from),
                )
                .with("victim", k.victim.as_str())
                .with("weapon", k.weapon.as_str()),
            kills => Said::new("moment-headline-kills")
                .with("count", kills.len())
                .with("seconds", seconds)
                .with("map", self.map.as_str()),
        }
    }
}

/// A moment's id: the name a clip is known by in every relay of a site, `[a-z0-9]{10}`.
pub fn is_moment_id(id: &str) -> bool {
    id.len() == 10
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}
