//! Highlights: the plays in a followed match's kills, by the rule docs/using.md publishes
//! ("Highlights"), applied exactly as written there. A [`PlayFinder`] is told the match's
//! events as [`MatchLog`](super::match_log::MatchLog) tells them, and the server time as
//! snapshots pass (a spree ends when its gap has passed without a kill); it yields each
//! [`Play`] once it is certain, and the best so far is the match's play of the match.
//!
//! Only kills by an opponent count (team kills, suicides and the world's kills never do), and
//! a name given no figures (`--stats-exclude`) is never highlighted. Names are one player
//! whatever their colours and case, as history matches them.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

use crate::browse::plain_lower;
use crate::relay_api::highlights::{HighlightKill, HighlightKind, Play};
use crate::relay_api::matches::{round_based, KillKind, MatchEvent, MatchKill, RosterChange};
use crate::relay_api::watch::Team;

/// A spree's kills are each at most this long after the one before (server time).
pub const SPREE_GAP_MS: i32 = 3000;
/// The fewest kills a spree is a highlight with (a double counts in the figures only).
pub const SPREE_LEAST: usize = 3;
/// A streak is highlighted at each multiple of this many kills in one life.
pub const STREAK_EVERY: usize = 5;
/// A long shot is a kill over at least this many world units between the two players.
pub const LONG_SHOT_UNITS: u32 = 2500;
/// The match's first blood is known only when its session saw the level start: it joined
/// within this long of it (no kill is possible before the players have spawned).
pub const FIRST_BLOOD_JOIN_MS: i32 = 5000;

/// A name's key: without colours and case, trimmed, as history keys names.
pub fn key(name: &str) -> String {
    String::from(plain_lower(name).trim())
}

/// A play's score, by the published formula: the kind's base, 10 a kill, and 1 for each 250
/// units of its longest kill.
pub fn score(kind: HighlightKind, kills: &[HighlightKill]) -> u32 {
    let n = kills.len() as u32;
    let base = match kind {
        HighlightKind::FirstBlood => 10,
        HighlightKind::LongShot => 20,
        HighlightKind::Triple => 40,
        HighlightKind::Quad => 70,
        HighlightKind::Rampage => 100 + 30 * n.saturating_sub(5),
        // A streak's base is 10 for each kill of the life so far ([`streak_score`]).
        HighlightKind::Streak => 0,
        HighlightKind::Clutch => 30 * n,
    };
    let longest = kills.iter().filter_map(|k| k.distance).max().unwrap_or(0);
    base + 10 * n + longest / 250
}

/// A streak's score: its kills' score and 10 for each kill of the life so far (a streak of 10
/// scores more than one of 5).
pub fn streak_score(reached: usize, kills: &[HighlightKill]) -> u32 {
    score(HighlightKind::Streak, kills) + 10 * reached as u32
}

/// The kind a spree of `n` kills is, if it is a highlight.
pub fn spree_kind(n: usize) -> Option<HighlightKind> {
    match n {
        0..=2 => None,
        3 => Some(HighlightKind::Triple),
        4 => Some(HighlightKind::Quad),
        _ => Some(HighlightKind::Rampage),
    }
}

/// Finds the plays of one session's matches.
#[derive(Debug, Default)]
pub struct PlayFinder {
    /// Name keys never highlighted.
    excluded: BTreeSet<String>,
    round_based: bool,
    /// The match's first opponent kill is its first blood (the session saw it from the start).
    first_blood_due: bool,
    /// Each player's spree in course and kills in this life, by name key.
    players: BTreeMap<String, Player>,
    round: Round,
    /// The team scores last told, to see a round won.
    scores: Option<(i32, i32)>,
    /// The best score of the match so far.
    best: u32,
    /// Long shots of the snapshot in course, one play per player: two kills a player makes at
    /// one server time (one snapshot's obituaries) are one moment, one long shot of both.
    long_shots: Vec<Play>,
    found: VecDeque<Found>,
}

/// What the finder yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub play: Play,
    /// The best of its match so far (ties go to the earlier).
    pub best: bool,
}

#[derive(Debug, Default)]
struct Player {
    name: String,
    team: Team,
    spree: Vec<HighlightKill>,
    life: Vec<HighlightKill>,
}

/// The round in course, in a round-based gametype: who has died in it and the clutch that
/// may be being played.
#[derive(Debug, Default)]
struct Round {
    number: u32,
    dead: BTreeSet<String>,
    clutch: Option<Clutch>,
}

#[derive(Debug)]
struct Clutch {
    player: String,
    team: Team,
    /// The opponents alive when the player became the last of the side.
    opponents: usize,
    kills: Vec<HighlightKill>,
}

impl PlayFinder {
    /// `excluded`: names never highlighted (any colours and case).
    pub fn new<'a>(excluded: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            excluded: excluded.into_iter().map(key).collect(),
            ..Self::default()
        }
    }

    /// The next play found, oldest first.
    pub fn poll(&mut self) -> Option<Found> {
        self.found.pop_front()
    }

    /// The server time has reached `server_time`: sprees whose gap has passed are over.
    pub fn elapse(&mut self, server_time: i32) {
        if self
            .long_shots
            .iter()
            .any(|p| p.start_server_time() != server_time)
        {
            self.end_long_shots();
        }
        let over: Vec<String> = self
            .players
            .iter()
            .filter(|(_, p)| {
                p.spree
                    .last()
                    .is_some_and(|k| server_time.wrapping_sub(k.server_time) > SPREE_GAP_MS)
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in over {
            self.end_spree(&key);
        }
    }

    /// One event of the match, in order.
    pub fn told(&mut self, event: &MatchEvent) {
        match event {
            MatchEvent::Began(start) => {
                self.finish();
                self.players.clear();
                self.round = Round {
                    number: 1,
                    ..Round::default()
                };
                self.best = 0;
                self.round_based = round_based(&start.gametype);
                self.first_blood_due = start.key.level_start > 0
                    && start.joined_at.wrapping_sub(start.key.level_start) <= FIRST_BLOOD_JOIN_MS;
                // Seen from its start, a match's scores are nil; joined in its course, they
                // are known from the first scoreboard.
                self.scores = self.first_blood_due.then_some((0, 0));
            }
            MatchEvent::Kill(kill) => self.kill(kill),
            MatchEvent::Roster { change, .. } => self.roster(change),
            MatchEvent::Scores(scores) => {
                for row in &scores.players {
                    self.player(&row.name).team = row.team;
                }
                let now = (scores.axis, scores.allies);
                let won = match self.scores {
                    Some((axis, allies)) if now.0 > axis && now.1 <= allies => Some(Team::Axis),
                    Some((axis, allies)) if now.1 > allies && now.0 <= axis => Some(Team::Allies),
                    _ => None,
                };
                self.scores = Some(now);
                if let (Some(winner), true) = (won, self.round_based) {
                    self.round_won(winner);
                }
            }
            MatchEvent::Ended { .. } => self.finish(),
        }
    }

    fn player(&mut self, name: &str) -> &mut Player {
        let p = self.players.entry(key(name)).or_default();
        if p.name.is_empty() {
            p.name = String::from(name);
        }
        p
    }

    fn roster(&mut self, change: &RosterChange) {
        match change {
            RosterChange::Joined { name, team } | RosterChange::Team { name, team } => {
                let key = key(name);
                let was = self.players.get(&key).map(|p| p.team);
                self.player(name).team = *team;
                if was.is_some_and(|was| was != *team) {
                    // A change of side ends the life (and counts as a death in the round).
                    self.died(&key);
                }
            }
            RosterChange::Left { name } => {
                // Their run ends with them: the kills were made.
                let gone = key(name);
                self.end_spree(&gone);
                self.died(&gone);
                self.players.remove(&gone);
            }
            RosterChange::Renamed { from, to } => {
                let from = key(from);
                if let Some(mut p) = self.players.remove(&from) {
                    p.name = to.clone();
                    self.players.insert(key(to), p);
                }
            }
        }
    }

    fn kill(&mut self, k: &MatchKill) {
        let victim = key(&k.victim);
        if self.round_based {
            // A death or a kill by someone already dead this round: a round began that no
            // team score told (a drawn round, or a scoreboard not seen).
            let attacker_dead = k
                .attacker
                .as_deref()
                .is_some_and(|a| self.round.dead.contains(&key(a)));
            if attacker_dead || self.round.dead.contains(&victim) {
                self.new_round(false);
            }
        }
        self.player(&k.victim).team = k.victim_team;
        let attacker = match (&k.attacker, k.kind) {
            (Some(a), KillKind::Kill) => Some(a.as_str()),
            _ => None,
        };
        let play_kill = HighlightKill {
            server_time: k.server_time,
            victim: k.victim.clone(),
            weapon: k.weapon.clone(),
            distance: match (k.attacker_origin, k.victim_origin) {
                (Some(a), Some(v)) => Some(distance(a, v)),
                _ => None,
            },
        };
        if let Some(name) = attacker {
            let key = key(name);
            if !self.excluded.contains(&key) {
                self.scored(&key, name, k, &play_kill);
            }
        }
        self.died(&victim);
        if self.round_based {
            self.after_death(attacker, play_kill);
        }
    }

    /// An opponent kill by `name`: its spree, its life, a long shot, first blood.
    fn scored(&mut self, key: &str, name: &str, k: &MatchKill, kill: &HighlightKill) {
        let gap_passed = self
            .players
            .get(key)
            .and_then(|p| p.spree.last())
            .is_some_and(|last| k.server_time.wrapping_sub(last.server_time) > SPREE_GAP_MS);
        if gap_passed {
            self.end_spree(key);
        }
        let round = self.round_based.then_some(self.round.number);
        let p = self.player(name);
        p.team = k.attacker_team;
        p.spree.push(kill.clone());
        p.life.push(kill.clone());
        let streak = p
            .life
            .len()
            .is_multiple_of(STREAK_EVERY)
            .then(|| p.life[p.life.len() - STREAK_EVERY..].to_vec());
        let player = p.name.clone();
        if let Some(kills) = streak {
            let reached = self.player(name).life.len();
            let score = streak_score(reached, &kills);
            self.found(Play {
                kind: HighlightKind::Streak,
                player: player.clone(),
                kills,
                score,
                round,
            });
        }
        if kill.distance.is_some_and(|d| d >= LONG_SHOT_UNITS) {
            self.long_shot(player.clone(), kill, round);
        }
        if self.first_blood_due {
            self.first_blood_due = false;
            self.play(HighlightKind::FirstBlood, player, vec_of(kill), round);
        }
    }

    /// A player's life is over: their streak ends (their spree goes on to its gap: a kill
    /// that lands as its maker dies still counts), and in a round they are out of it.
    fn died(&mut self, dead: &str) {
        if let Some(p) = self.players.get_mut(dead) {
            p.life.clear();
        }
        if self.round_based {
            self.round.dead.insert(String::from(dead));
            if self
                .round
                .clutch
                .as_ref()
                .is_some_and(|c| key(&c.player) == dead)
            {
                self.round.clutch = None;
            }
        }
    }

    /// In a round: the clutch being played takes the kill, or a side is down to its last.
    fn after_death(&mut self, attacker: Option<&str>, kill: HighlightKill) {
        if let Some(c) = self.round.clutch.as_mut() {
            if attacker.is_some_and(|a| key(a) == key(&c.player)) {
                c.kills.push(kill);
            }
            return;
        }
        for (side, foe) in [(Team::Axis, Team::Allies), (Team::Allies, Team::Axis)] {
            let alive = self.alive(side);
            let foes = self.alive(foe).len();
            if let ([last], true) = (alive.as_slice(), foes >= 2) {
                let (name, excluded) = match self.players.get(last) {
                    Some(p) => (p.name.clone(), self.excluded.contains(last)),
                    None => continue,
                };
                if !excluded {
                    self.round.clutch = Some(Clutch {
                        player: name,
                        team: side,
                        opponents: foes,
                        kills: Vec::new(),
                    });
                }
                return;
            }
        }
    }

    /// The name keys of a side not dead this round.
    fn alive(&self, team: Team) -> Vec<String> {
        self.players
            .iter()
            .filter(|(key, p)| p.team == team && !self.round.dead.contains(*key))
            .map(|(key, _)| key.clone())
            .collect()
    }

    fn round_won(&mut self, winner: Team) {
        if let Some(c) = self.round.clutch.take() {
            let all_theirs = c.kills.len() == c.opponents && c.opponents >= 2;
            if c.team == winner && all_theirs && self.alive(foe_of(winner)).is_empty() {
                let round = Some(self.round.number);
                self.play(HighlightKind::Clutch, c.player, c.kills, round);
            }
        }
        self.new_round(true);
    }

    /// A new round: everyone alive again. Its first blood is known only when a round won
    /// told its start.
    fn new_round(&mut self, told: bool) {
        self.round.dead.clear();
        self.round.clutch = None;
        self.round.number += 1;
        for p in self.players.values_mut() {
            p.life.clear();
        }
        self.first_blood_due = told;
    }

    fn end_spree(&mut self, key: &str) {
        let Some(p) = self.players.get_mut(key) else {
            return;
        };
        let kills = core::mem::take(&mut p.spree);
        let name = p.name.clone();
        if let Some(kind) = spree_kind(kills.len()) {
            let round = self.round_based.then_some(self.round.number);
            self.play(kind, name, kills, round);
        }
    }

    /// A long shot: joined to the player's long shot of the same server time, if any.
    fn long_shot(&mut self, player: String, kill: &HighlightKill, round: Option<u32>) {
        if self
            .long_shots
            .iter()
            .any(|p| p.start_server_time() != kill.server_time)
        {
            self.end_long_shots();
        }
        let same = |p: &&mut Play| key(&p.player) == key(&player);
        match self.long_shots.iter_mut().find(same) {
            Some(play) => {
                play.kills.push(kill.clone());
                play.score = score(HighlightKind::LongShot, &play.kills);
            }
            None => self.long_shots.push(Play {
                kind: HighlightKind::LongShot,
                player,
                kills: vec_of(kill),
                score: score(HighlightKind::LongShot, core::slice::from_ref(kill)),
                round,
            }),
        }
    }

    /// The snapshot's long shots are whole: they are found.
    fn end_long_shots(&mut self) {
        for play in core::mem::take(&mut self.long_shots) {
            self.found(play);
        }
    }

    /// The match is over (or another begins): every spree in course ends.
    fn finish(&mut self) {
        self.end_long_shots();
        let keys: Vec<String> = self.players.keys().cloned().collect();
        for key in keys {
            self.end_spree(&key);
        }
        self.first_blood_due = false;
    }

    fn play(
        &mut self,
        kind: HighlightKind,
        player: String,
        kills: Vec<HighlightKill>,
        round: Option<u32>,
    ) {
        let score = score(kind, &kills);
        self.found(Play {
            kind,
            player,
            kills,
            score,
            round,
        });
    }

    fn found(&mut self, play: Play) {
        let best = play.score > self.best;
        if best {
            self.best = play.score;
        }
        self.found.push_back(Found { play, best });
    }
}

fn foe_of(team: Team) -> Team {
    match team {
        Team::Axis => Team::Allies,
        Team::Allies => Team::Axis,
        other => other,
    }
}

fn vec_of(kill: &HighlightKill) -> Vec<HighlightKill> {
    alloc::vec![kill.clone()]
}

/// World units between two positions, rounded down.
pub fn distance(a: [i32; 3], b: [i32; 3]) -> u32 {
    let square: u64 = (0..3)
        .map(|i| (i64::from(a[i]) - i64::from(b[i])).unsigned_abs().pow(2))
        .sum();
    u32::try_from(square.isqrt()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relay_api::matches::{MatchKey, MatchScores, MatchStart};
    use alloc::string::ToString;

    fn began(gametype: &str, joined_after_start: i32) -> MatchEvent {
        MatchEvent::Began(MatchStart {
            key: MatchKey {
                map: "mp_foy".to_string(),
                level_start: 10_000,
            },
            gametype: gametype.to_string(),
            hostname: "lab".to_string(),
            joined_at: 10_000 + joined_after_start,
        })
    }

    fn team_of(name: &str) -> Team {
        if name.starts_with('a') {
            Team::Axis
        } else {
            Team::Allies
        }
    }

    /// `attacker` kills `victim` at `t`, both standing `apart` units from each other.
    fn kill(t: i32, attacker: &str, victim: &str, apart: i32) -> MatchEvent {
        let kind = if attacker == victim {
            KillKind::Suicide
        } else if team_of(attacker) == team_of(victim) {
            KillKind::TeamKill
        } else {
            KillKind::Kill
        };
        MatchEvent::Kill(MatchKill {
            server_time: t,
            attacker: Some(attacker.to_string()),
            attacker_team: team_of(attacker),
            victim: victim.to_string(),
            victim_team: team_of(victim),
            weapon: "kar98k_mp".to_string(),
            kind,
            attacker_origin: Some([0, 0, 0]),
            victim_origin: Some([apart, 0, 0]),
        })
    }

    fn joined(names: &[&str]) -> Vec<MatchEvent> {
        names
            .iter()
            .map(|n| MatchEvent::Roster {
                server_time: 0,
                change: RosterChange::Joined {
                    name: n.to_string(),
                    team: team_of(n),
                },
            })
            .collect()
    }

    fn scores(t: i32, axis: i32, allies: i32) -> MatchEvent {
        MatchEvent::Scores(MatchScores {
            server_time: t,
            axis,
            allies,
            players: Vec::new(),
        })
    }

    fn run(finder: &mut PlayFinder, events: &[MatchEvent]) -> Vec<Found> {
        let mut last = None;
        for e in events {
            if let MatchEvent::Kill(k) = e {
                finder.elapse(k.server_time);
                last = Some(k.server_time);
            }
            finder.told(e);
        }
        // The next snapshot, a moment on: the last one's long shots are whole.
        if let Some(t) = last {
            finder.elapse(t + 1);
        }
        core::iter::from_fn(|| finder.poll()).collect()
    }

    fn kinds(found: &[Found]) -> Vec<(HighlightKind, &str, usize)> {
        found
            .iter()
            .map(|f| (f.play.kind, f.play.player.as_str(), f.play.kills.len()))
            .collect()
    }

    #[test]
    fn a_spree_is_kills_each_within_three_seconds_and_three_make_a_triple() {
        let mut finder = PlayFinder::new([]);
        let mut events = alloc::vec![began("dm", 60_000)];
        events.extend([
            kill(20_000, "a.one", "b.one", 100),
            kill(23_000, "a.one", "b.two", 100),
            // A team kill neither counts nor breaks the run.
            kill(24_000, "a.one", "a.two", 100),
            kill(26_000, "a.one", "b.three", 100),
            // 3,001 ms after: a new run, of one.
            kill(29_001, "a.one", "b.four", 100),
        ]);
        let found = run(&mut finder, &events);
        assert_eq!(kinds(&found), [(HighlightKind::Triple, "a.one", 3)]);
        assert_eq!(found[0].play.score, 40 + 30);
        assert!(found[0].best);
        assert_eq!(
            (
                found[0].play.start_server_time(),
                found[0].play.end_server_time()
            ),
            (20_000, 26_000)
        );
        // The run of one ends with its gap; a double is no highlight either.
        for t in [31_000, 33_000] {
            finder.told(&kill(t, "b.five", "a.three", 100));
        }
        finder.elapse(40_000);
        assert_eq!(finder.poll(), None);
    }

    #[test]
    fn four_make_a_quad_and_five_or_more_a_rampage_and_the_match_s_end_ends_a_run() {
        let mut finder = PlayFinder::new([]);
        let mut events = alloc::vec![began("dm", 60_000)];
        events.extend((0..4).map(|i| kill(20_000 + i * 1000, "a.one", "b.one", 100)));
        events.extend((0..6).map(|i| kill(40_000 + i * 2000, "b.two", "a.two", 100)));
        events.push(MatchEvent::Ended {
            server_time: 60_000,
            why: crate::relay_api::matches::MatchEnd::Intermission,
        });
        let found = run(&mut finder, &events);
        assert_eq!(
            kinds(&found),
            [
                (HighlightKind::Quad, "a.one", 4),
                // Six kills in one life are a streak at the fifth, then the rampage.
                (HighlightKind::Streak, "b.two", 5),
                (HighlightKind::Rampage, "b.two", 6),
            ]
        );
        assert_eq!(found[0].play.score, 70 + 40);
        assert_eq!(found[1].play.score, 50 + 50);
        assert_eq!(found[2].play.score, 100 + 30 + 60);
        assert_eq!(
            found.iter().map(|f| f.best).collect::<Vec<_>>(),
            [true, false, true],
            "the best so far is the play of the match"
        );
    }

    #[test]
    fn a_streak_is_each_five_kills_in_one_life_and_a_death_starts_again() {
        let mut finder = PlayFinder::new([]);
        let mut events = alloc::vec![began("tdm", 60_000)];
        // Ten seconds apart: no spree, a streak.
        events.extend((0..4).map(|i| kill(20_000 + i * 10_000, "a.one", "b.one", 100)));
        events.push(kill(65_000, "b.one", "a.one", 100));
        events.extend((0..10).map(|i| kill(70_000 + i * 10_000, "a.one", "b.one", 100)));
        let found = run(&mut finder, &events);
        assert_eq!(
            kinds(&found),
            [
                (HighlightKind::Streak, "a.one", 5),
                (HighlightKind::Streak, "a.one", 5)
            ]
        );
        assert_eq!(found[0].play.start_server_time(), 70_000);
        assert_eq!(found[1].play.start_server_time(), 120_000);
        assert_eq!(
            (found[0].play.score, found[1].play.score),
            (50 + 50, 50 + 100)
        );
    }

    #[test]
    fn a_long_shot_is_two_thousand_five_hundred_units_or_more() {
        let mut finder = PlayFinder::new([]);
        let found = run(
            &mut finder,
            &[
                began("tdm", 60_000),
                kill(20_000, "a.one", "b.one", 2499),
                kill(40_000, "a.one", "b.one", 2500),
                kill(60_000, "b.one", "a.one", 5000),
            ],
        );
        assert_eq!(
            kinds(&found),
            [
                (HighlightKind::LongShot, "a.one", 1),
                (HighlightKind::LongShot, "b.one", 1)
            ]
        );
        assert_eq!(found[0].play.kills[0].distance, Some(2500));
        assert_eq!(found[0].play.score, 20 + 10 + 10);
        assert_eq!(found[1].play.score, 20 + 10 + 20);
        // Two long shots of one player at one server time (one snapshot) are one play of both;
        // another player's at that time is theirs.
        let mut finder = PlayFinder::new([]);
        let found = run(
            &mut finder,
            &[
                began("tdm", 60_000),
                kill(20_000, "a.one", "b.one", 3000),
                kill(20_000, "b.two", "a.two", 2600),
                kill(20_000, "a.one", "b.three", 4000),
                kill(20_050, "a.one", "b.four", 2600),
            ],
        );
        assert_eq!(
            kinds(&found),
            [
                (HighlightKind::LongShot, "a.one", 2),
                (HighlightKind::LongShot, "b.two", 1),
                (HighlightKind::LongShot, "a.one", 1)
            ]
        );
        assert_eq!(found[0].play.score, 20 + 2 * 10 + 4000 / 250);
        assert_eq!(distance([0, 0, 0], [3, 4, 0]), 5);
        assert_eq!(
            distance([-2_000_000_000, 0, 0], [2_000_000_000, 0, 0]),
            4_000_000_000
        );
    }

    #[test]
    fn first_blood_only_when_the_session_saw_the_match_begin() {
        let mut seen = PlayFinder::new([]);
        let found = run(
            &mut seen,
            &[
                began("tdm", 4_000),
                kill(20_000, "a.one", "a.two", 100),
                kill(21_000, "b.one", "a.one", 100),
                kill(22_000, "a.two", "b.one", 100),
            ],
        );
        assert_eq!(kinds(&found), [(HighlightKind::FirstBlood, "b.one", 1)]);
        assert_eq!(found[0].play.round, None);
        let mut late = PlayFinder::new([]);
        let found = run(
            &mut late,
            &[began("tdm", 5_001), kill(30_000, "b.one", "a.one", 100)],
        );
        assert!(
            found.is_empty(),
            "joined late: who drew first blood is not known"
        );
    }

    #[test]
    fn a_round_s_first_blood_and_a_clutch_the_side_wins() {
        let mut finder = PlayFinder::new([]);
        let mut events = alloc::vec![began("sd", 1_000)];
        events.extend(joined(&[
            "a.one", "a.two", "a.three", "b.one", "b.two", "b.three",
        ]));
        events.extend([
            kill(20_000, "b.one", "a.one", 100),
            kill(30_000, "b.two", "a.two", 100),
            // a.three is the last of the axis against three.
            kill(40_000, "a.three", "b.one", 100),
            kill(50_000, "a.three", "b.two", 100),
            kill(60_000, "a.three", "b.three", 100),
            scores(62_000, 1, 0),
            // Round 2: its first blood.
            kill(90_000, "b.three", "a.three", 100),
        ]);
        let found = run(&mut finder, &events);
        assert_eq!(
            kinds(&found),
            [
                (HighlightKind::FirstBlood, "b.one", 1),
                (HighlightKind::Clutch, "a.three", 3),
                (HighlightKind::FirstBlood, "b.three", 1),
            ]
        );
        assert_eq!(found[1].play.score, 90 + 30);
        assert_eq!(found[1].play.round, Some(1));
        assert_eq!(found[2].play.round, Some(2));
    }

    #[test]
    fn no_clutch_when_an_opponent_dies_otherwise_or_the_side_loses() {
        let setup = || {
            let mut events = alloc::vec![began("sd", 60_000)];
            events.extend(joined(&["a.one", "a.two", "b.one", "b.two"]));
            // Joined in its course: the scores are known from the first scoreboard.
            events.push(scores(10_000, 0, 0));
            events.push(kill(20_000, "b.one", "a.one", 100));
            events
        };
        // An opponent falls by their own hand: not all of the last were killed by the player.
        let mut events = setup();
        events.extend([
            kill(30_000, "b.one", "b.one", 0),
            kill(40_000, "a.two", "b.two", 100),
            scores(41_000, 1, 0),
        ]);
        assert!(run(&mut PlayFinder::new([]), &events).is_empty());
        // The side loses the round.
        let mut events = setup();
        events.extend([kill(40_000, "a.two", "b.two", 100), scores(41_000, 0, 1)]);
        assert!(run(&mut PlayFinder::new([]), &events).is_empty());
        // The same, won: a clutch of two.
        let mut events = setup();
        events.extend([
            kill(40_000, "a.two", "b.two", 100),
            kill(45_000, "a.two", "b.one", 100),
            scores(46_000, 1, 0),
        ]);
        let found = run(&mut PlayFinder::new([]), &events);
        assert_eq!(kinds(&found), [(HighlightKind::Clutch, "a.two", 2)]);
    }

    #[test]
    fn a_dead_player_killing_again_tells_a_round_no_score_told() {
        let mut finder = PlayFinder::new([]);
        let mut events = alloc::vec![began("sd", 60_000)];
        events.extend(joined(&["a.one", "b.one"]));
        events.extend([
            kill(20_000, "a.one", "b.one", 100),
            // A drawn round later b.one is alive again: a new round, whose clutch state and
            // dead are fresh (and whose first blood is not known).
            kill(80_000, "b.one", "a.one", 100),
        ]);
        assert!(run(&mut finder, &events).is_empty());
        assert_eq!(finder.round.number, 2);
    }

    #[test]
    fn an_excluded_name_is_never_highlighted_in_any_colours() {
        let mut finder = PlayFinder::new(["A.One"]);
        let mut events = alloc::vec![began("dm", 1_000)];
        events.extend((0..5).map(|i| kill(20_000 + i * 1000, "^1a.^7one", "b.one", 3000)));
        assert!(run(&mut finder, &events).is_empty());
    }
}
