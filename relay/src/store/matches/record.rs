//! One match as stored: its names and weapons once each, and what happened by server time,
//! kept as [`super::packing`] lays it out (a column per field, deflated). A match is
//! written in parts as it is followed; parts of the same match (a relay that restarted, a
//! session that rejoined, a hub that failed over) merge into one record, each kill once.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use protocol::relay_api::matches::KillKind;
use protocol::relay_api::watch::Team;
use serde::{Deserialize, Serialize};

use crate::store::name_key;

/// A name or weapon, by its index in the record's tables.
pub type Id = u32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Names as the server showed them, colours kept.
    pub names: Vec<String>,
    /// Weapon file names, or means of death.
    pub weapons: Vec<String>,
    /// In server time order; one per (time, victim).
    pub kills: Vec<Kill>,
    pub roster: Vec<Roster>,
    /// Spans of server time each name was seen in the match, merged.
    pub stays: Vec<Stay>,
    /// The team scores as they changed: (server time, axis, allies).
    pub team_scores: Vec<(i32, i32, i32)>,
    /// The latest scoreboard the server gave.
    pub board: Option<Board>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kill {
    pub t: i32,
    pub attacker: Option<Id>,
    pub victim: Id,
    pub weapon: Id,
    pub kind: KillKind,
    pub attacker_team: Team,
    pub victim_team: Team,
    pub attacker_at: Option<[i32; 3]>,
    pub victim_at: Option<[i32; 3]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Change {
    Joined(Team),
    Left,
    Team(Team),
    /// Took this name (the change is filed under the name left).
    RenamedTo(Id),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roster {
    pub t: i32,
    pub name: Id,
    pub change: Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stay {
    pub name: Id,
    pub from: i32,
    pub to: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    pub t: i32,
    pub axis: i32,
    pub allies: i32,
    /// (name, team, score, deaths), as the server ordered them.
    pub rows: Vec<(Id, Team, i32, i32)>,
}

/// A stored record that does not decode.
#[derive(Debug, thiserror::Error)]
#[error("a stored match record does not decode: {0}")]
pub struct Corrupt(pub String);

impl Record {
    pub fn encode(&self) -> Vec<u8> {
        super::packing::pack(self)
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, Corrupt> {
        super::packing::unpack(bytes)
    }

    /// The index of a name, added if new.
    pub fn name(&mut self, name: &str) -> Id {
        intern(&mut self.names, name)
    }

    pub fn weapon(&mut self, weapon: &str) -> Id {
        intern(&mut self.weapons, weapon)
    }

    pub fn is_empty(&self) -> bool {
        self.kills.is_empty()
            && self.roster.is_empty()
            && self.stays.is_empty()
            && self.team_scores.is_empty()
            && self.board.is_none()
    }

    /// Takes in another part of the same match: a kill, a roster change or a team score
    /// already held (same time and who) is not added twice, stays join where they touch, and
    /// the later scoreboard wins.
    pub fn merge(&mut self, other: &Record) {
        let names: Vec<Id> = other.names.iter().map(|n| self.name(n)).collect();
        let weapons: Vec<Id> = other.weapons.iter().map(|w| self.weapon(w)).collect();
        let name = |id: Id| names[id as usize];
        let held: BTreeSet<(i32, Id)> = self.kills.iter().map(|k| (k.t, k.victim)).collect();
        for k in &other.kills {
            if held.contains(&(k.t, name(k.victim))) {
                continue;
            }
            self.kills.push(Kill {
                attacker: k.attacker.map(name),
                victim: name(k.victim),
                weapon: weapons[k.weapon as usize],
                ..k.clone()
            });
        }
        self.kills.sort_by_key(|k| (k.t, k.victim));
        let held: BTreeSet<(i32, Id, Change)> = self
            .roster
            .iter()
            .map(|r| (r.t, r.name, r.change))
            .collect();
        for r in &other.roster {
            let change = match r.change {
                Change::RenamedTo(to) => Change::RenamedTo(name(to)),
                c => c,
            };
            if !held.contains(&(r.t, name(r.name), change)) {
                self.roster.push(Roster {
                    t: r.t,
                    name: name(r.name),
                    change,
                });
            }
        }
        self.roster.sort_by_key(|r| (r.t, r.name));
        self.stays.extend(other.stays.iter().map(|s| Stay {
            name: name(s.name),
            ..*s
        }));
        self.stays = union(&self.stays);
        self.team_scores.extend(other.team_scores.iter().copied());
        self.team_scores.sort();
        self.team_scores.dedup_by_key(|s| s.0);
        if let Some(board) = &other.board {
            if self.board.as_ref().is_none_or(|b| b.t <= board.t) {
                self.board = Some(Board {
                    rows: board
                        .rows
                        .iter()
                        .map(|&(n, team, score, deaths)| (name(n), team, score, deaths))
                        .collect(),
                    ..board.clone()
                });
            }
        }
    }

    /// Whether teams play: a kill or a scoreboard row on a side.
    pub fn teams(&self) -> bool {
        let sided = |t: &Team| matches!(t, Team::Axis | Team::Allies);
        self.kills
            .iter()
            .any(|k| sided(&k.victim_team) || sided(&k.attacker_team))
            || self
                .board
                .iter()
                .flat_map(|b| &b.rows)
                .any(|(_, team, ..)| sided(team))
    }

    /// Each name's figures, by name key (colours and case put aside), as a finished match's
    /// result when `finished`.
    pub fn figures(&self, finished: bool) -> BTreeMap<String, Figures> {
        let mut out: BTreeMap<String, Figures> = BTreeMap::new();
        let key = |id: Id| name_key(&self.names[id as usize]);
        let names = &self.names;
        fn entry<'a>(
            out: &'a mut BTreeMap<String, Figures>,
            names: &[String],
            id: Id,
        ) -> &'a mut Figures {
            let figures = out.entry(name_key(&names[id as usize])).or_default();
            if figures.name.is_empty() {
                figures.name = names[id as usize].clone();
            }
            figures
        }
        for k in &self.kills {
            let victim = entry(&mut out, names, k.victim);
            victim.deaths += 1;
            if k.kind == KillKind::Suicide {
                victim.suicides += 1;
            }
            victim.team = k.victim_team;
            let Some(attacker) = k.attacker else { continue };
            let figures = entry(&mut out, names, attacker);
            match k.kind {
                KillKind::Kill => {
                    figures.kills += 1;
                    *figures
                        .weapons
                        .entry(self.weapons[k.weapon as usize].clone())
                        .or_default() += 1;
                }
                KillKind::TeamKill => figures.team_kills += 1,
                KillKind::Suicide | KillKind::World => {}
            }
            figures.team = k.attacker_team;
        }
        let mut spans: HashMap<String, Vec<Stay>> = HashMap::new();
        for s in &self.stays {
            entry(&mut out, names, s.name);
            spans
                .entry(key(s.name))
                .or_default()
                .push(Stay { name: 0, ..*s });
        }
        for (k, stays) in spans {
            if let Some(f) = out.get_mut(&k) {
                f.time_ms = union(&stays)
                    .iter()
                    .map(|s| u64::try_from(s.to - s.from).unwrap_or(0))
                    .sum();
            }
        }
        if let Some(board) = &self.board {
            for &(id, team, score, _) in &board.rows {
                if team == Team::Spectator && !out.contains_key(&key(id)) {
                    continue;
                }
                let f = entry(&mut out, names, id);
                f.score = Some(score);
                f.team = team;
            }
        }
        if finished {
            let placing = self.placing();
            for (k, f) in &mut out {
                f.outcome = placing.get(k).copied();
            }
        }
        out
    }

    /// Each name's place in a finished match, best first (1), equal scores sharing it: by
    /// side in a team game (the side with more points), by score otherwise. Names on no
    /// side in a team game, and names without a scoreboard row, have none.
    pub fn placing(&self) -> BTreeMap<String, u32> {
        let Some(board) = &self.board else {
            return BTreeMap::new();
        };
        let key = |id: Id| name_key(&self.names[id as usize]);
        let mut out = BTreeMap::new();
        if self.teams() {
            let rank = |us: i32, them: i32| if us >= them { 1 } else { 2 };
            for &(id, team, ..) in &board.rows {
                let place = match team {
                    Team::Axis => rank(board.axis, board.allies),
                    Team::Allies => rank(board.allies, board.axis),
                    _ => continue,
                };
                out.insert(key(id), place);
            }
        } else {
            for &(id, team, score, _) in &board.rows {
                if team == Team::Spectator {
                    continue;
                }
                let better = board
                    .rows
                    .iter()
                    .filter(|r| r.1 != Team::Spectator && r.2 > score)
                    .count();
                out.insert(key(id), better as u32 + 1);
            }
        }
        out
    }
}

/// One name's figures in one match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// As last shown.
    pub name: String,
    pub team: Team,
    pub kills: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub time_ms: u64,
    pub score: Option<i32>,
    pub weapons: BTreeMap<String, u32>,
    /// The place in a finished match (1 is first).
    pub outcome: Option<u32>,
}

fn intern(table: &mut Vec<String>, item: &str) -> Id {
    match table.iter().position(|n| n == item) {
        Some(i) => i as Id,
        None => {
            table.push(item.to_owned());
            (table.len() - 1) as Id
        }
    }
}

/// Stays joined where they overlap or touch, per name, in order.
fn union(stays: &[Stay]) -> Vec<Stay> {
    let mut sorted = stays.to_vec();
    sorted.sort_by_key(|s| (s.name, s.from));
    let mut out: Vec<Stay> = Vec::with_capacity(sorted.len());
    for s in sorted {
        match out.last_mut() {
            Some(last) if last.name == s.name && s.from <= last.to => last.to = last.to.max(s.to),
            _ => out.push(s),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kill(record: &mut Record, t: i32, attacker: &str, victim: &str) {
        let (attacker, victim, weapon) = (
            record.name(attacker),
            record.name(victim),
            record.weapon("kar98k_mp"),
        );
        record.kills.push(Kill {
            t,
            attacker: Some(attacker),
            victim,
            weapon,
            kind: KillKind::Kill,
            attacker_team: Team::Axis,
            victim_team: Team::Allies,
            attacker_at: Some([100, -200, 30]),
            victim_at: Some([-1500, 2048, 0]),
        });
    }

    #[test]
    fn parts_of_one_match_merge_each_kill_once() {
        let mut first = Record::default();
        kill(&mut first, 1000, "^1Ann", "Bob");
        kill(&mut first, 2000, "Bob", "^1Ann");
        let ann = first.name("^1Ann");
        first.stays.push(Stay {
            name: ann,
            from: 0,
            to: 2500,
        });
        // The second part saw the last kill again (a rejoin) and one more; names in another order.
        let mut second = Record::default();
        kill(&mut second, 2000, "Bob", "^1Ann");
        kill(&mut second, 3000, "Bob", "Cat");
        let ann = second.name("^1Ann");
        second.stays.push(Stay {
            name: ann,
            from: 2500,
            to: 4000,
        });
        first.merge(&second);
        assert_eq!(first.kills.len(), 3);
        assert_eq!(first.names, ["^1Ann", "Bob", "Cat"]);
        assert_eq!(
            first.stays,
            [Stay {
                name: 0,
                from: 0,
                to: 4000
            }]
        );
        let figures = first.figures(false);
        assert_eq!(figures["bob"].kills, 2);
        assert_eq!(figures["ann"].deaths, 1);
        assert_eq!(figures["ann"].time_ms, 4000);
        assert_eq!(figures["bob"].weapons["kar98k_mp"], 2);
        // Merging the same part again changes nothing.
        let again = first.clone();
        first.merge(&second);
        assert_eq!(first, again);
        assert_eq!(Record::decode(&first.encode()).unwrap(), first);
    }

    #[test]
    fn a_kill_packs_small() {
        // Positions anywhere on a map 6000 units across, as a busy server's kills are.
        let mut seed = 22u32;
        let mut spot = || {
            let mut v = [0; 3];
            for (i, c) in v.iter_mut().enumerate() {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                *c = (seed % if i == 2 { 300 } else { 6000 }) as i32 - 3000 * i32::from(i < 2);
            }
            v
        };
        let mut record = Record::default();
        for i in 0..1000 {
            kill(&mut record, i * 1500, &format!("p{}", i % 20), "victim");
            let k = record.kills.last_mut().unwrap();
            k.attacker_at = Some(spot());
            k.victim_at = Some(spot());
        }
        let per_kill = record.encode().len() / 1000;
        assert!(per_kill <= 11, "{per_kill} bytes a kill");
        assert_eq!(Record::decode(&record.encode()).unwrap(), record);
    }

    #[test]
    fn places_go_by_side_in_team_games_and_by_score_otherwise() {
        let mut record = Record::default();
        kill(&mut record, 1, "a", "b");
        let (a, b) = (record.name("a"), record.name("b"));
        record.board = Some(Board {
            t: 10,
            axis: 5,
            allies: 3,
            rows: vec![(a, Team::Axis, 4, 0), (b, Team::Allies, 9, 1)],
        });
        let placing = record.placing();
        assert_eq!((placing["a"], placing["b"]), (1, 2));
        record.kills.clear();
        record.board = Some(Board {
            t: 10,
            axis: 0,
            allies: 0,
            rows: vec![(a, Team::Free, 4, 0), (b, Team::Free, 9, 1)],
        });
        let placing = record.placing();
        assert_eq!((placing["a"], placing["b"]), (2, 1));
    }
}
