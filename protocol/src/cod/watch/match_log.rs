//! A followed match told as [`MatchEvent`]s: the spectator's session events, through the same
//! [`MatchModel`] the hubs keep, become when a match began (its key: map and level start),
//! each death with both players' names, teams and last-seen positions, who came, went or
//! changed sides, each scoreboard the server sent, and why the match ended. No server plugin:
//! only what a stock server sends any spectator (SPECTATOR-NOTES §3–§5).
//!
//! A match begins at the first active snapshot after a gamestate or a level restart, so its
//! key carries the level start the server gave it. It ends at a new map, a `map_restart` (or a
//! level start that changes), or the end of the session ([`MatchLog::session_ended`]), which
//! leaves it unfinished for a later session of the same match to continue. Intermission is
//! noted when the player state says so and ends the match as finished when the next map comes.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

use super::commands::ServerCommand;
use super::spectator::{MatchModel, CS_LEVEL_START};
use crate::cod::client::Event;
use crate::cod::fields::{Named, PlayerStateField};
use crate::cod::snapshot::{Snapshot, SNAPFLAG_NOT_ACTIVE};
use crate::relay_api::matches::{
    KillKind, MatchEnd, MatchEvent, MatchKey, MatchKill, MatchScores, MatchStart, RosterChange,
    ScoreRow, FRESH_MS,
};
use crate::relay_api::watch::{FeedItem, Team};

/// `pm_type` at intermission: `PM_TYPE_INTERMISSION` in the UO reconstruction's `pmType_t`
/// (between spectator, 4, and dead, 6). That a spectator's own state shows it at the end of a
/// match, as Q3 moves every client to intermission, is not yet seen from a stock server.
pub const PM_INTERMISSION: u32 = 5;

/// Turns one session's events into the match events of the matches it saw.
#[derive(Debug, Default)]
pub struct MatchLog {
    model: MatchModel,
    /// The match being told, once begun.
    current: Option<MatchKey>,
    /// A gamestate or restart came: the next active snapshot begins a match.
    beginning: bool,
    /// The match reached intermission (it ends finished).
    intermission: bool,
    /// Each client's name and team as last told, to tell changes (and name the departed).
    roster: BTreeMap<u8, (String, Team)>,
    server_time: i32,
    out: VecDeque<MatchEvent>,
}

impl MatchLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// The model behind the log, as a watcher would see the match.
    pub fn model(&self) -> &MatchModel {
        &self.model
    }

    /// The match being told, if one has begun.
    pub fn current(&self) -> Option<&MatchKey> {
        self.current.as_ref()
    }

    /// Takes one session event.
    pub fn handle(&mut self, event: &Event) {
        let pushed = self.model.feed().1;
        let level_start = self.model.header().level_start;
        self.model.handle(event);
        match event {
            Event::Gamestate(_) => {
                self.end(MatchEnd::MapChange);
                self.roster.clear();
                self.beginning = true;
            }
            Event::LoadingNewMap { .. } => self.end(MatchEnd::MapChange),
            Event::Configstring { index, .. }
                if *index == CS_LEVEL_START && self.model.header().level_start != level_start =>
            {
                self.restart();
            }
            Event::ServerCommand { text, .. } => match ServerCommand::parse(text) {
                ServerCommand::MapRestart { .. } => self.restart(),
                ServerCommand::Scores(_) if self.current.is_some() => self.scores(),
                _ => {}
            },
            Event::Snapshot(s) if s.flags & SNAPFLAG_NOT_ACTIVE == 0 => {
                self.snapshot(s, pushed);
            }
            _ => {}
        }
    }

    /// The session ended: the match in course is told as unfinished (or finished, if it had
    /// reached intermission), and the next session's gamestate begins again.
    pub fn session_ended(&mut self) {
        self.end(MatchEnd::SessionLost);
        self.roster.clear();
        self.beginning = false;
    }

    /// The next match event, oldest first.
    pub fn poll_event(&mut self) -> Option<MatchEvent> {
        self.out.pop_front()
    }

    /// A new match on the same map: it names everyone present anew.
    fn restart(&mut self) {
        self.end(MatchEnd::MapRestart);
        self.roster.clear();
        self.beginning = true;
    }

    fn end(&mut self, why: MatchEnd) {
        if self.current.take().is_some() {
            let why = if self.intermission {
                MatchEnd::Intermission
            } else {
                why
            };
            self.out.push_back(MatchEvent::Ended {
                server_time: self.server_time,
                why,
            });
        }
        self.intermission = false;
    }

    fn snapshot(&mut self, s: &Snapshot, pushed: u64) {
        self.server_time = s.server_time;
        if self.beginning {
            self.beginning = false;
            self.begin(s.server_time);
        }
        if self.current.is_none() {
            return;
        }
        self.kills(pushed);
        self.roster_changes(s.server_time);
        if s.player.get(PlayerStateField::PM_TYPE) == PM_INTERMISSION {
            self.intermission = true;
        }
    }

    fn begin(&mut self, server_time: i32) {
        let header = self.model.header();
        let key = MatchKey {
            map: header.map.clone(),
            level_start: header.level_start,
        };
        self.out.push_back(MatchEvent::Began(MatchStart {
            key: key.clone(),
            gametype: header.gametype.clone(),
            hostname: header.hostname.clone(),
            joined_at: server_time,
        }));
        self.current = Some(key);
    }

    /// The deaths the model added since it had pushed `before` feed items.
    fn kills(&mut self, before: u64) {
        let (feed, pushed) = self.model.feed();
        let new = (pushed - before).min(feed.len() as u64) as usize;
        let mut kills = Vec::new();
        for item in &feed[feed.len() - new..] {
            let FeedItem::Kill {
                time,
                attacker,
                victim,
                weapon,
            } = item
            else {
                continue;
            };
            let (victim_name, victim_team, victim_origin) = self.who(*victim, *time);
            let attacker = attacker.map(|a| (a, self.who(a, *time)));
            let kind = match &attacker {
                None => KillKind::World,
                Some((a, _)) if a == victim => KillKind::Suicide,
                Some((_, (_, team, _)))
                    if *team == victim_team && matches!(team, Team::Axis | Team::Allies) =>
                {
                    KillKind::TeamKill
                }
                Some(_) => KillKind::Kill,
            };
            let (attacker, attacker_team, attacker_origin) = match attacker {
                Some((_, (name, team, origin))) => (Some(name), team, origin),
                None => (None, Team::Free, None),
            };
            kills.push(MatchEvent::Kill(MatchKill {
                server_time: *time,
                attacker,
                attacker_team,
                victim: victim_name,
                victim_team,
                weapon: weapon.clone(),
                kind,
                attacker_origin,
                victim_origin,
            }));
        }
        self.out.extend(kills);
    }

    /// A client's name, team and (if seen within [`FRESH_MS`] of `time`) position; one that
    /// left in the same snapshot is named as it was.
    fn who(&self, client: u8, time: i32) -> (String, Team, Option<[i32; 3]>) {
        match self.model.player(client) {
            Some(p) => {
                let fresh = p
                    .seen
                    .is_some_and(|seen| time.wrapping_sub(seen) <= FRESH_MS);
                (p.name.clone(), p.team, fresh.then_some(p.origin))
            }
            None => match self.roster.get(&client) {
                Some((name, team)) => (name.clone(), *team, None),
                None => (alloc::format!("#{client}"), Team::Free, None),
            },
        }
    }

    fn roster_changes(&mut self, server_time: i32) {
        let own = self.model.own_client();
        let now: BTreeMap<u8, (String, Team)> = self
            .model
            .players()
            .filter(|p| Some(p.client) != own)
            .map(|p| (p.client, (p.name.clone(), p.team)))
            .collect();
        let mut changes = Vec::new();
        for (client, (name, _)) in &self.roster {
            if !now.contains_key(client) {
                changes.push(RosterChange::Left { name: name.clone() });
            }
        }
        for (client, (name, team)) in &now {
            match self.roster.get(client) {
                None => changes.push(RosterChange::Joined {
                    name: name.clone(),
                    team: *team,
                }),
                Some((was, _)) if was != name => changes.push(RosterChange::Renamed {
                    from: was.clone(),
                    to: name.clone(),
                }),
                Some((_, was)) if was != team => changes.push(RosterChange::Team {
                    name: name.clone(),
                    team: *team,
                }),
                Some(_) => {}
            }
        }
        self.roster = now;
        self.out
            .extend(changes.into_iter().map(|change| MatchEvent::Roster {
                server_time,
                change,
            }));
    }

    fn scores(&mut self) {
        let own = self.model.own_client();
        let (axis, allies) = self.model.team_scores();
        let players = self
            .model
            .players()
            .filter(|p| Some(p.client) != own && p.team != Team::Spectator)
            .map(|p| ScoreRow {
                name: p.name.clone(),
                team: p.team,
                score: p.score,
                deaths: p.deaths,
            })
            .collect();
        self.out.push_back(MatchEvent::Scores(MatchScores {
            server_time: self.server_time,
            axis,
            allies,
            players,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::entity::EntityState;
    use crate::cod::fields::{ClientField, EntityField};
    use crate::cod::gamestate::Gamestate;
    use crate::cod::playerstate::PlayerState;
    use crate::cod::snapshot::ClientState;
    use crate::cod::watch::obituary::{Cause, Obituary};
    use crate::cod::watch::spectator::{ET_PLAYER, PSF_FOLLOWING};
    use alloc::boxed::Box;
    use alloc::string::ToString;

    /// A snapshot at `time` naming `clients` (number, name, team), following `followed` at
    /// x = 300, with `obituaries` as temp entities (numbered by the second) and soldier 5 in
    /// sight at x = -40.
    fn snapshot(
        time: i32,
        clients: &[(u8, &str, u32)],
        followed: u8,
        obituaries: &[Obituary],
    ) -> Event {
        let mut s = Snapshot {
            server_time: time,
            delta_num: 0,
            flags: 0,
            player: PlayerState::default(),
            entities: BTreeMap::new(),
            clients: BTreeMap::new(),
        };
        for &(number, name, team) in clients {
            let mut c = ClientState::default();
            c.set_name(name);
            c.set(ClientField::TEAM, team);
            s.clients.insert(number, c);
        }
        s.player.set(PlayerStateField::PM_FLAGS, PSF_FOLLOWING);
        s.player
            .set(PlayerStateField::CLIENT_NUM, u32::from(followed));
        s.player.set_f32(PlayerStateField::ORIGIN_0, 300.0);
        let mut soldier = EntityState::zero(5);
        soldier.set(EntityField::E_TYPE, ET_PLAYER);
        soldier.set_origin([-40.0, 2.0, 0.0]);
        s.entities.insert(5, soldier);
        // A temp entity lives a few snapshots; its number is taken again later.
        for (i, o) in obituaries.iter().enumerate() {
            let number = 100 + (time / 1000) as u16 * 10 + i as u16;
            s.entities.insert(number, o.to_entity(number));
        }
        Event::Snapshot(Box::new(s))
    }

    fn gamestate(map: &str, level_start: i32) -> Event {
        let mut configstrings = BTreeMap::new();
        configstrings.insert(
            0,
            alloc::format!("\\sv_hostname\\Lab\\mapname\\{map}\\g_gametype\\tdm"),
        );
        configstrings.insert(7, "bar_mp kar98k_mp m1garand_mp".to_string());
        configstrings.insert(14, level_start.to_string());
        Event::Gamestate(Box::new(Gamestate {
            server_command_sequence: 0,
            configstrings,
            baselines: BTreeMap::new(),
            client_num: 0,
            checksum_feed: 0,
        }))
    }

    fn drain(log: &mut MatchLog) -> Vec<MatchEvent> {
        core::iter::from_fn(|| log.poll_event()).collect()
    }

    fn death(victim: u16, attacker: Option<u16>, cause: Cause) -> Obituary {
        Obituary {
            victim,
            attacker,
            cause,
        }
    }

    const ROSTER: [(u8, &str, u32); 4] = [
        (0, "Muster", 3),
        (5, "^2Ghost", 1),
        (7, "Pal", 2),
        (9, "Dutch", 2),
    ];

    #[test]
    fn a_match_is_told_from_its_start_through_its_deaths_to_its_restart() {
        let mut log = MatchLog::new();
        log.handle(&gamestate("mp_foy", 4000));
        assert_eq!(drain(&mut log), []);
        log.handle(&snapshot(5000, &ROSTER, 9, &[]));
        let key = MatchKey {
            map: "mp_foy".into(),
            level_start: 4000,
        };
        let joined = |name: &str, team| MatchEvent::Roster {
            server_time: 5000,
            change: RosterChange::Joined {
                name: name.into(),
                team,
            },
        };
        assert_eq!(
            drain(&mut log),
            [
                MatchEvent::Began(MatchStart {
                    key: key.clone(),
                    gametype: "tdm".into(),
                    hostname: "Lab".into(),
                    joined_at: 5000,
                }),
                joined("^2Ghost", Team::Axis),
                joined("Pal", Team::Allies),
                joined("Dutch", Team::Allies),
            ]
        );

        // A kill by the followed player of one in sight: both positions are fresh.
        log.handle(&snapshot(
            5050,
            &ROSTER,
            9,
            &[death(5, Some(9), Cause::Weapon(2))],
        ));
        let [MatchEvent::Kill(kill)] = &drain(&mut log)[..] else {
            panic!("one kill");
        };
        assert_eq!(
            kill,
            &MatchKill {
                server_time: 5050,
                attacker: Some("Dutch".into()),
                attacker_team: Team::Allies,
                victim: "^2Ghost".into(),
                victim_team: Team::Axis,
                weapon: "kar98k_mp".into(),
                kind: KillKind::Kill,
                attacker_origin: Some([300, 0, 0]),
                victim_origin: Some([-40, 2, 0]),
            }
        );

        // A team kill of one never seen, a fall, a suicide; Ghost changes sides.
        let mut moved = ROSTER;
        moved[1].2 = 2;
        let deaths = [
            death(7, Some(9), Cause::Weapon(3)),
            death(5, None, Cause::Means(20)),
            death(9, Some(9), Cause::Means(21)),
        ];
        log.handle(&snapshot(7000, &moved, 9, &deaths));
        let told = drain(&mut log);
        let kinds: Vec<(KillKind, &str, Option<[i32; 3]>)> = told
            .iter()
            .filter_map(|e| match e {
                MatchEvent::Kill(k) => Some((k.kind, k.weapon.as_str(), k.victim_origin)),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (KillKind::TeamKill, "m1garand_mp", None),
                (KillKind::World, "MOD_FALLING", Some([-40, 2, 0])),
                (KillKind::Suicide, "MOD_SUICIDE", Some([300, 0, 0])),
            ]
        );
        assert_eq!(
            told.last(),
            Some(&MatchEvent::Roster {
                server_time: 7000,
                change: RosterChange::Team {
                    name: "^2Ghost".into(),
                    team: Team::Allies
                }
            })
        );
        // The same obituary in the next snapshot is the same death.
        log.handle(&snapshot(7050, &moved, 9, &deaths));
        assert_eq!(drain(&mut log), []);

        // The scoreboard, as `b` gives it (client, score, ping, deaths, ...).
        log.handle(&Event::ServerCommand {
            sequence: 1,
            text: "b 2 3 1 9 4 50 0 0 5 0 0 1 0".into(),
        });
        let [MatchEvent::Scores(scores)] = &drain(&mut log)[..] else {
            panic!("the scoreboard");
        };
        assert_eq!(
            (scores.axis, scores.allies, scores.server_time),
            (3, 1, 7050)
        );
        let dutch = scores.players.iter().find(|r| r.name == "Dutch").unwrap();
        assert_eq!((dutch.score, dutch.team), (4, Team::Allies));
        assert!(scores.players.iter().all(|r| r.name != "Muster"));

        // map_restart: a new level start, a new match; Pal has left.
        log.handle(&Event::Configstring {
            index: CS_LEVEL_START,
            value: "9000".into(),
        });
        log.handle(&Event::ServerCommand {
            sequence: 2,
            text: "B".into(),
        });
        let without_pal: Vec<(u8, &str, u32)> =
            moved.iter().copied().filter(|c| c.0 != 7).collect();
        log.handle(&snapshot(9100, &without_pal, 9, &[]));
        let told = drain(&mut log);
        assert_eq!(
            told[0],
            MatchEvent::Ended {
                server_time: 7050,
                why: MatchEnd::MapRestart
            }
        );
        let MatchEvent::Began(start) = &told[1] else {
            panic!("{told:?}");
        };
        assert_eq!(start.key.level_start, 9000);
        // A new match names everyone anew.
        assert_eq!(told.len(), 2 + 2);
        assert_eq!(log.current().map(|k| k.level_start), Some(9000));
    }

    #[test]
    fn intermission_finishes_a_match_and_a_lost_session_leaves_one_unfinished() {
        let mut log = MatchLog::new();
        log.handle(&gamestate("mp_foy", 4000));
        log.handle(&snapshot(5000, &ROSTER, 9, &[]));
        let Event::Snapshot(mut s) = snapshot(6000, &ROSTER, 9, &[]) else {
            unreachable!()
        };
        s.player.set(PlayerStateField::PM_TYPE, PM_INTERMISSION);
        log.handle(&Event::Snapshot(s));
        drain(&mut log);
        // The next map ends it as finished.
        log.handle(&Event::LoadingNewMap {
            mapname: "mp_uo_harbor".into(),
            gametype: "sd".into(),
        });
        log.handle(&gamestate("mp_uo_harbor", 20_000));
        assert_eq!(
            drain(&mut log),
            [MatchEvent::Ended {
                server_time: 6000,
                why: MatchEnd::Intermission
            }]
        );
        log.handle(&snapshot(21_000, &ROSTER, 9, &[]));
        assert!(matches!(drain(&mut log)[0], MatchEvent::Began(_)));
        // The session is lost mid-match: unfinished; a snapshot before a new gamestate tells
        // nothing.
        log.session_ended();
        assert_eq!(
            drain(&mut log),
            [MatchEvent::Ended {
                server_time: 21_000,
                why: MatchEnd::SessionLost
            }]
        );
        log.handle(&snapshot(
            22_000,
            &ROSTER,
            9,
            &[death(5, Some(9), Cause::Weapon(2))],
        ));
        assert_eq!(drain(&mut log), []);
        // Rejoined: the same key, so the record continues.
        log.handle(&gamestate("mp_uo_harbor", 20_000));
        log.handle(&snapshot(23_000, &ROSTER, 9, &[]));
        let MatchEvent::Began(start) = &drain(&mut log)[0] else {
            panic!("began again");
        };
        assert_eq!((start.key.level_start, start.joined_at), (20_000, 23_000));
    }
}
