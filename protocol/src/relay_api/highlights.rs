//! Highlights: the plays a followed match's kills make by a published rule (docs/using.md,
//! "Highlights"), found by `cod::watch::highlights` as the match is told, each cut as a clip
//! (a moment) and listed by `GET /api/highlights`.

use alloc::string::String;
use alloc::vec::Vec;

/// What kind of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HighlightKind {
    /// Three kills by one player, each within the spree's gap of the one before.
    Triple,
    /// Four.
    Quad,
    /// Five or more.
    Rampage,
    /// 5, 10, 15 … kills in one life: one highlight each time a multiple of five is reached.
    Streak,
    /// A kill over the long shot's distance between the two players.
    LongShot,
    /// The first kill of a match, or of a round in a round-based gametype.
    FirstBlood,
    /// The last of a side alive kills the last two or more opponents, and the side wins the
    /// round.
    Clutch,
}

impl HighlightKind {
    pub const ALL: [HighlightKind; 7] = [
        HighlightKind::Triple,
        HighlightKind::Quad,
        HighlightKind::Rampage,
        HighlightKind::Streak,
        HighlightKind::LongShot,
        HighlightKind::FirstBlood,
        HighlightKind::Clutch,
    ];

    /// The name the API and the store use.
    pub fn name(self) -> &'static str {
        match self {
            HighlightKind::Triple => "triple",
            HighlightKind::Quad => "quad",
            HighlightKind::Rampage => "rampage",
            HighlightKind::Streak => "streak",
            HighlightKind::LongShot => "long_shot",
            HighlightKind::FirstBlood => "first_blood",
            HighlightKind::Clutch => "clutch",
        }
    }

    /// The catalogues' message naming the kind (`highlight-long-shot`).
    pub fn message_id(self) -> &'static str {
        match self {
            HighlightKind::Triple => "highlight-triple",
            HighlightKind::Quad => "highlight-quad",
            HighlightKind::Rampage => "highlight-rampage",
            HighlightKind::Streak => "highlight-streak",
            HighlightKind::LongShot => "highlight-long-shot",
            HighlightKind::FirstBlood => "highlight-first-blood",
            HighlightKind::Clutch => "highlight-clutch",
        }
    }

    /// The kind as said in a message the relay sends.
    pub fn said(self) -> crate::said::Said {
        crate::said::Said::new(self.message_id())
    }

    pub fn from_name(name: &str) -> Option<HighlightKind> {
        HighlightKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One kill of a highlight.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HighlightKill {
    pub server_time: i32,
    /// With colour codes.
    pub victim: String,
    /// The weapon's file name (`kar98k_mp`) or the means of death.
    pub weapon: String,
    /// World units between the two players at the kill, when both had been seen then.
    pub distance: Option<u32>,
}

/// A play as the rule finds it in a match, before it is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Play {
    pub kind: HighlightKind,
    /// With colour codes.
    pub player: String,
    pub kills: Vec<HighlightKill>,
    pub score: u32,
    /// The round it was played in (1 the first), in a round-based gametype.
    pub round: Option<u32>,
}

impl Play {
    /// The server time of its first kill.
    pub fn start_server_time(&self) -> i32 {
        self.kills.first().map_or(0, |k| k.server_time)
    }

    /// The server time of its last kill.
    pub fn end_server_time(&self) -> i32 {
        self.kills.last().map_or(0, |k| k.server_time)
    }
}

/// A kept highlight (`GET /api/highlights`, `GET /api/highlights/ID`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Highlight {
    pub id: String,
    /// `ip:port`.
    pub server: String,
    /// The match's id (`/api/matches/ID`), once its record is kept.
    #[cfg_attr(feature = "serde", serde(rename = "match"))]
    pub match_id: Option<u64>,
    pub map: String,
    pub gametype: String,
    pub kind: HighlightKind,
    pub player: String,
    pub kills: Vec<HighlightKill>,
    pub start_server_time: i32,
    pub end_server_time: i32,
    /// When its first kill was (Unix ms, by the relay's clock).
    pub start_ms: u64,
    pub score: u32,
    pub round: Option<u32>,
    /// The best play of its match so far (of a finished match: its play of the match).
    pub play_of_the_match: bool,
    /// The clip's moment id, once cut.
    pub moment: Option<String>,
    /// The clip's page, `/m/ID`.
    pub url: Option<String>,
}
