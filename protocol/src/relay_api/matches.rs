//! Matches as the relay remembers them: what a followed match's session tells, in order
//! (`cod::watch::match_log` turns a spectator's events into these), from which the store keeps
//! a record of each match and each name's figures. Names keep their colour codes here; the
//! figures match them as history does (without colours, case-blind).

use alloc::string::String;
use alloc::vec::Vec;

use super::watch::Team;

/// What makes a match itself: its map and the server time its level started
/// (configstring 14), which a `map_restart` or a new map changes and a rejoin does not. A relay
/// that loses its session, or restarts, and joins the same match again finds the same key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchKey {
    pub map: String,
    pub level_start: i32,
}

/// A match begins (or is joined in its course: `joined_at` is later than `level_start`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchStart {
    pub key: MatchKey,
    pub gametype: String,
    pub hostname: String,
    /// Server time of the first snapshot seen of it.
    pub joined_at: i32,
}

/// How a death counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum KillKind {
    /// By an opponent.
    Kill,
    /// By a team-mate (both on the same side of a team gametype).
    TeamKill,
    /// By oneself.
    Suicide,
    /// By the world (a fall, drowning, a trigger): no attacker.
    World,
}

/// One death, with where both stood when last seen (`None` when the spectator had not seen
/// that player within [`FRESH_MS`] of it).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchKill {
    pub server_time: i32,
    pub attacker: Option<String>,
    pub attacker_team: Team,
    pub victim: String,
    pub victim_team: Team,
    /// The weapon's file name (`kar98k_mp`) or the means of death (`MOD_HEAD_SHOT`).
    pub weapon: String,
    pub kind: KillKind,
    pub attacker_origin: Option<[i32; 3]>,
    pub victim_origin: Option<[i32; 3]>,
}

/// A position older than this at a kill is not where the player stood.
pub const FRESH_MS: i32 = 1000;

/// Who came, went or changed sides.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RosterChange {
    Joined {
        name: String,
        team: Team,
    },
    Left {
        name: String,
    },
    Team {
        name: String,
        team: Team,
    },
    /// A renamed client (the same slot, a new name).
    Renamed {
        from: String,
        to: String,
    },
}

/// One row of the stock scoreboard (`b`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScoreRow {
    pub name: String,
    pub team: Team,
    pub score: i32,
    pub deaths: i32,
}

/// The scoreboard as the server last gave it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MatchScores {
    pub server_time: i32,
    pub axis: i32,
    pub allies: i32,
    pub players: Vec<ScoreRow>,
}

/// Why a match's record ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MatchEnd {
    /// The server loaded another map (or the same one anew).
    MapChange,
    /// `map_restart`: the same map from its start, a new match.
    MapRestart,
    /// The match reached its intermission: finished, with its final scoreboard.
    Intermission,
    /// The session ended before the match did (the server went away, the relay left or
    /// stopped): the record is unfinished, and a later session of the same match continues it.
    SessionLost,
}

/// What a followed match's session tells, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MatchEvent {
    Began(MatchStart),
    Kill(MatchKill),
    Roster {
        server_time: i32,
        change: RosterChange,
    },
    Scores(MatchScores),
    Ended {
        server_time: i32,
        why: MatchEnd,
    },
}
