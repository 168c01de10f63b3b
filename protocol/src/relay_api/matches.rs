//! Matches as the relay remembers them: what a followed match's session tells, in order
//! (`cod::watch::match_log` turns a spectator's events into these), from which the store keeps
//! a record of each match and each name's figures. Names keep their colour codes here; the
//! figures match them as history does (without colours, case-blind).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::watch::Team;
use crate::said::Said;

/// What makes a match itself: its map and the server time its level started
/// (configstring 14), which a `map_restart` or a new map changes and a rejoin does not. A relay
/// that loses its session, or restarts, and joins the same match again finds the same key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchKey {
    pub map: String,
    pub level_start: i32,
}

/// A match begins (or is joined in its course: `joined_at` is later than `level_start`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScoreRow {
    pub name: String,
    pub team: Team,
    pub score: i32,
    pub deaths: i32,
}

/// The scoreboard as the server last gave it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchScores {
    pub server_time: i32,
    pub axis: i32,
    pub allies: i32,
    pub players: Vec<ScoreRow>,
}

/// Why a match's record ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// A stored match, as lists show it (`GET /api/matches`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchSummary {
    pub id: u64,
    /// `ip:port`.
    pub server: String,
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    /// When the level started (Unix ms, from the relay's clock and the server's level start).
    pub start_ms: u64,
    /// When the match ended, or was last seen while unfinished.
    pub end_ms: u64,
    /// `None` while it is followed; [`MatchEnd::SessionLost`] marks an unfinished record.
    pub ended: Option<MatchEnd>,
    pub kills: u32,
    pub players: u32,
    /// The team scores at the end, in team gametypes.
    pub axis: Option<i32>,
    pub allies: Option<i32>,
    /// `axis`, `allies`, `draw`, or the best name in free-for-all; once finished.
    pub winner: Option<String>,
    /// The demo of the match, when it was recorded (a file under `/demos/`).
    pub demo: Option<String>,
}

/// One name in one match.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchPlayer {
    pub name: String,
    pub team: Team,
    /// The stock scoreboard's score, when the server gave one with the name on it.
    pub score: Option<i32>,
    pub kills: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub time_ms: u64,
    /// 1 for the winners of a finished match.
    pub place: Option<u32>,
}

/// A stored match whole (`GET /api/matches/ID`): kills carry the server's time (ms), which
/// `level_start` is on the same clock as.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchDetail {
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub summary: MatchSummary,
    pub level_start: i32,
    /// Every name in the match, best first.
    pub scoreboard: Vec<MatchPlayer>,
    /// Every death, in order.
    pub kill_feed: Vec<MatchKill>,
    /// Team scores as they changed: (server time, axis, allies).
    pub team_scores: Vec<(i32, i32, i32)>,
    /// The rounds of a round-based gametype (empty for others).
    pub rounds: Vec<MatchRound>,
}

/// One round won, in a round-based gametype (`sd`, `re`, `bas`), where a team's score is its
/// rounds: told by the score that rose. A drawn round moves no score and is not seen.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchRound {
    pub number: u32,
    pub winner: Team,
    /// When the score rose (the scoreboard's time, within a few seconds of the round's end).
    pub server_time: i32,
    pub axis: i32,
    pub allies: i32,
}

impl KillKind {
    /// As a page says it, in the reader's language.
    pub fn said(self) -> Said {
        Said::new(match self {
            Self::Kill => "kill-kind-kill",
            Self::TeamKill => "kill-kind-team",
            Self::Suicide => "kill-kind-suicide",
            Self::World => "kill-kind-world",
        })
    }

    /// Its name in the API and the logs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Kill => "kill",
            Self::TeamKill => "team kill",
            Self::Suicide => "suicide",
            Self::World => "world",
        }
    }
}

impl MatchSummary {
    /// How the match ended, as a page says it.
    pub fn ended_text(&self) -> Said {
        Said::new(match self.ended {
            None => "match-followed",
            Some(MatchEnd::Intermission) => "match-finished",
            Some(MatchEnd::MapChange) => "match-ended-map-change",
            Some(MatchEnd::MapRestart) => "match-ended-map-restart",
            Some(MatchEnd::SessionLost) => "match-unfinished",
        })
    }

    /// `Axis 3 – 2 Allies`, `won by NAME`, or nothing yet.
    pub fn result(&self) -> Said {
        match (self.axis, self.allies, &self.winner) {
            (Some(axis), Some(allies), _) => Said::new("match-result-teams")
                .with("axis", axis)
                .with("allies", allies),
            (_, _, Some(winner)) => {
                Said::new("match-result-winner").with("name", crate::cod::text::strip(winner))
            }
            _ => Said::new("nothing"),
        }
    }
}

/// The gametypes `matches` were played in, most played first (then by name): the board a
/// list of matches is shown beside.
pub fn most_played(matches: &[MatchSummary]) -> Vec<String> {
    let mut played: BTreeMap<&str, usize> = BTreeMap::new();
    for m in matches {
        *played.entry(m.gametype.as_str()).or_default() += 1;
    }
    let mut order: Vec<(&str, usize)> = played.into_iter().collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    order.into_iter().map(|(g, _)| String::from(g)).collect()
}

/// Time on a side: `m:ss`, or hours and minutes.
pub fn played(ms: u64) -> Said {
    let secs = ms / 1000;
    if secs >= 3600 {
        Said::new("played-hours")
            .with("hours", secs / 3600)
            .with("minutes", alloc::format!("{:02}", secs / 60 % 60))
    } else {
        Said::new("played-clock").with("clock", alloc::format!("{}:{:02}", secs / 60, secs % 60))
    }
}

/// A path segment with everything but letters, digits and `-_.~` percent-encoded.
pub fn segment(text: &str) -> String {
    use core::fmt::Write;
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// A kill's moment in the match's demo: the demo player finds the kill by its server time and
/// starts 3 s before it.
pub fn moment(demo: &str, server_time: i32) -> String {
    alloc::format!("/playback/#/demo/{}?t={server_time}", segment(demo))
}

/// The demo player on a match's demo.
pub fn demo_link(demo: &str) -> String {
    alloc::format!("/playback/#/demo/{}", segment(demo))
}

impl MatchDetail {
    /// A server time as the match's clock, `m:ss` since the level started.
    pub fn clock(&self, server_time: i32) -> String {
        let secs = (server_time - self.level_start).max(0) / 1000;
        alloc::format!("{}:{:02}", secs / 60, secs % 60)
    }

    /// Who killed whom how often (killer, victim), team kills among them.
    pub fn matrix(&self) -> BTreeMap<(&str, &str), u32> {
        let mut matrix = BTreeMap::new();
        for k in &self.kill_feed {
            if let (Some(a), KillKind::Kill | KillKind::TeamKill) = (&k.attacker, k.kind) {
                *matrix.entry((a.as_str(), k.victim.as_str())).or_default() += 1;
            }
        }
        matrix
    }

    /// Kills by weapon, most first.
    pub fn weapons(&self) -> Vec<(&str, u32)> {
        let mut weapons: BTreeMap<&str, u32> = BTreeMap::new();
        for k in self.kill_feed.iter().filter(|k| k.kind == KillKind::Kill) {
            *weapons.entry(k.weapon.as_str()).or_default() += 1;
        }
        let mut weapons: Vec<(&str, u32)> = weapons.into_iter().collect();
        weapons.sort_by_key(|(w, n)| (core::cmp::Reverse(*n), *w));
        weapons
    }
}

/// Whether a gametype is played in rounds whose wins are its team score.
pub fn round_based(gametype: &str) -> bool {
    matches!(gametype, "sd" | "re" | "bas")
}

/// The rounds told by team scores as they changed (server time, axis, allies): each rise of
/// one side's score is a round it won. A fall (a reset) starts counting again from there.
pub fn rounds(team_scores: &[(i32, i32, i32)]) -> Vec<MatchRound> {
    let mut rounds = Vec::new();
    let mut last = (0, 0);
    for &(server_time, axis, allies) in team_scores {
        if axis < last.0 || allies < last.1 {
            last = (axis.min(last.0), allies.min(last.1));
        }
        for (won, winner) in [
            (axis.saturating_sub(last.0), Team::Axis),
            (allies.saturating_sub(last.1), Team::Allies),
        ] {
            for _ in 0..won.max(0) {
                rounds.push(MatchRound {
                    number: rounds.len() as u32 + 1,
                    winner,
                    server_time,
                    axis,
                    allies,
                });
            }
        }
        last = (axis, allies);
    }
    rounds
}

#[cfg(test)]
mod round_tests {
    use super::*;

    #[test]
    fn each_rise_of_a_side_is_a_round_it_won() {
        let told = rounds(&[
            (0, 0, 0),
            (1000, 0, 0),
            (60_000, 1, 0),
            (61_000, 1, 0),
            (130_000, 1, 1),
            (200_000, 2, 1),
        ]);
        let won: Vec<(u32, Team, i32)> = told
            .iter()
            .map(|r| (r.number, r.winner, r.server_time))
            .collect();
        assert_eq!(
            won,
            [
                (1, Team::Axis, 60_000),
                (2, Team::Allies, 130_000),
                (3, Team::Axis, 200_000)
            ]
        );
        assert_eq!((told[2].axis, told[2].allies), (2, 1));
        // A scoreboard missed between two rounds still counts both.
        assert_eq!(rounds(&[(5, 0, 0), (9, 2, 0)]).len(), 2);
        assert!(rounds(&[]).is_empty());
    }
}

/// A rating, as the Weng-Lin model (a Bayesian TrueSkill-like model) keeps it: `mu` is the
/// estimate, `sigma` its uncertainty; lists rank by `mu - 3 sigma`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rating {
    pub gametype: String,
    pub mu: f64,
    pub sigma: f64,
    pub matches: u32,
}

/// A rating after one match.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingPoint {
    pub at_ms: u64,
    pub match_id: u64,
    pub gametype: String,
    pub mu: f64,
    pub sigma: f64,
}

/// Figures added up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Totals {
    pub kills: u64,
    pub deaths: u64,
    pub suicides: u64,
    pub team_kills: u64,
    pub time_ms: u64,
    pub matches: u64,
    pub wins: u64,
    pub losses: u64,
}

/// A count by what (a weapon, a map, a server).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Count {
    pub what: String,
    pub count: u64,
}

/// One match of a player's, as their page lists it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayedMatch {
    #[cfg_attr(feature = "serde", serde(rename = "match"))]
    pub summary: MatchSummary,
    pub kills: u32,
    pub deaths: u32,
    pub score: Option<i32>,
    pub place: Option<u32>,
}

/// A name's record (`GET /api/players/NAME/stats`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayerStats {
    /// The name without colours, lower-case: what matches it.
    pub key: String,
    /// As last shown.
    pub name: String,
    pub totals: Totals,
    pub weapons: Vec<Count>,
    pub maps: Vec<Count>,
    pub servers: Vec<Count>,
    pub ratings: Vec<Rating>,
    /// Oldest first.
    pub rating_history: Vec<RatingPoint>,
    /// Newest first.
    pub recent: Vec<PlayedMatch>,
    /// Where the name was last seen (history's last sighting).
    pub last_seen_ms: Option<u64>,
    pub last_server: Option<String>,
}

/// One row of a leaderboard (`GET /api/leaderboard`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeaderRow {
    pub rank: u32,
    pub key: String,
    pub name: String,
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub totals: Totals,
    /// The gametype's rating, when the board is of one gametype.
    pub rating: Option<Rating>,
}

#[cfg(test)]
mod list_tests {
    use super::*;

    #[test]
    fn the_most_played_gametype_comes_first_and_ties_go_by_name() {
        let of = |gametype: &str| MatchSummary {
            id: 1,
            server: String::new(),
            hostname: String::new(),
            map: String::new(),
            gametype: gametype.into(),
            start_ms: 0,
            end_ms: 0,
            ended: None,
            kills: 0,
            players: 0,
            axis: None,
            allies: None,
            winner: None,
            demo: None,
        };
        let list = ["sd", "tdm", "dm", "tdm", "sd", "tdm", "ctf", "ctf"].map(of);
        assert_eq!(most_played(&list), ["tdm", "ctf", "sd", "dm"]);
        assert!(most_played(&[]).is_empty());
    }
}
