//! A small match the lab's sessions watch: soldiers (players and bots from the server's roster)
//! run, turn, fire, die, respawn and score; a vehicle or two drive a loop; kills, chat and score
//! changes go out as server commands. Deterministic for a seed; time is the server's.

use std::collections::BTreeMap;

use protocol::cod::entity::{EntityState, ET_VEHICLE};
use protocol::cod::fields::Named;
use protocol::cod::msg::{angle16_decode, angle16_encode};
use protocol::cod::playerstate::PlayerState;
use protocol::cod::server::{Frame, Map};
use protocol::cod::snapshot::ClientState;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use crate::profile::ServerProfile;

/// `eType` of a player entity.
pub const ET_PLAYER: u32 = 1;
/// `eType` of a static map entity (the flags and radios the baselines carry).
pub const ET_GENERAL: u32 = 0;
/// `eFlags` bit of a dead player.
pub const EF_DEAD: u32 = 1;
/// The entity event a shot makes.
pub const EV_FIRE_WEAPON: u32 = 26;
/// `pm_type` of a free spectator.
pub const PM_SPECTATOR: u32 = 3;
/// Teams as clientState `team` has them.
pub const TEAM_ALLIES: u32 = 1;
pub const TEAM_AXIS: u32 = 2;
pub const TEAM_SPECTATOR: u32 = 3;
/// Entity numbers of the vehicles and of the map's static entities.
const FIRST_VEHICLE: u16 = 64;
const FIRST_STATIC: u16 = 80;
/// Half the side of the square the match is played in.
const ARENA: f32 = 1800.0;
const RUN_SPEED: f32 = 190.0;
const RESPAWN_MS: i32 = 3000;
const WEAPONS: &[(&str, u32)] = &[
    ("kar98k_mp", 11),
    ("m1garand_mp", 7),
    ("thompson_mp", 9),
    ("mp40_mp", 13),
    ("bar_mp", 5),
    ("springfield_mp", 8),
];
const CHAT: &[&str] = &[
    "gg",
    "need a medic at the bridge",
    "^3nice shot!",
    "tank on the left flank",
    "lol",
    "brb",
    "who has the flag?",
];

/// An angle as the wire carries it: snapped to a 16-bit angle, so what a client decodes is
/// exactly what the server holds.
fn angle(degrees: f32) -> u32 {
    angle16_decode(angle16_encode(degrees)).to_bits()
}

/// One soldier on the field.
#[derive(Clone, Debug)]
struct Soldier {
    number: u8,
    name: String,
    team: u32,
    origin: [f32; 3],
    yaw: f32,
    weapon: usize,
    dead_until: Option<i32>,
    events: u32,
    last_event: u32,
}

#[derive(Clone, Debug)]
struct Vehicle {
    number: u16,
    tank: bool,
    phase: f32,
}

/// The match on one lab server.
pub struct Match {
    rng: SmallRng,
    soldiers: Vec<Soldier>,
    vehicles: Vec<Vehicle>,
    statics: BTreeMap<u16, EntityState>,
    time: i32,
}

/// Server commands a step produced, in order.
pub type Commands = Vec<String>;

impl Match {
    /// A match on the profile's map starting at server time `time` (server time runs on
    /// across map changes).
    pub fn new(profile: &ServerProfile, seed: u64, time: i32) -> Self {
        let mut game = Self {
            rng: SmallRng::seed_from_u64(seed),
            soldiers: Vec::new(),
            vehicles: Vec::new(),
            statics: BTreeMap::new(),
            time,
        };
        let (jeep, tank) = (profile.jeeps || !profile.tanks, profile.tanks);
        for (i, is_tank) in [(0, false), (1, true)] {
            if (is_tank && tank) || (!is_tank && jeep) {
                game.vehicles.push(Vehicle {
                    number: FIRST_VEHICLE + i,
                    tank: is_tank,
                    phase: i as f32 * 3.0,
                });
            }
        }
        for (i, at) in [[-1500.0f32, 0.0, 0.0], [1500.0, 0.0, 0.0]]
            .iter()
            .enumerate()
        {
            let number = FIRST_STATIC + i as u16;
            let mut e = EntityState::zero(number);
            e.set("eType", ET_GENERAL);
            e.set("index", 40 + i as u32);
            e.set_origin(*at);
            game.statics.insert(number, e);
        }
        game
    }

    /// The gamestate for this map: serverinfo, systeminfo (`sv_pure 0`: the lab validates no
    /// paks) and the static entities' baselines.
    pub fn map(&self, profile: &ServerProfile, checksum_feed: i32) -> Map {
        let mut map = Map {
            checksum_feed,
            ..Map::default()
        };
        map.configstrings
            .insert(0, profile.status(None).info.to_string());
        map.configstrings.insert(1, "\\sv_pure\\0".to_owned());
        map.configstrings
            .insert(2, format!("{} {}", profile.mapname, profile.gametype));
        map.baselines = self.statics.clone();
        map
    }

    /// Keeps the soldiers in step with the roster: bots and players (not sessions) play.
    fn sync_roster(&mut self, profile: &ServerProfile, taken: &[u8]) {
        let names: Vec<&str> = profile
            .players
            .iter()
            .filter(|p| !p.spectator)
            .map(|p| p.name.as_str())
            .collect();
        self.soldiers.retain(|s| names.contains(&s.name.as_str()));
        for name in names {
            if self.soldiers.iter().any(|s| s.name == name) {
                continue;
            }
            let Some(number) = (0..64u8)
                .rev()
                .find(|n| !taken.contains(n) && !self.soldiers.iter().any(|s| s.number == *n))
            else {
                continue;
            };
            let team = if self
                .soldiers
                .iter()
                .filter(|s| s.team == TEAM_ALLIES)
                .count()
                <= self.soldiers.len() / 2
            {
                TEAM_ALLIES
            } else {
                TEAM_AXIS
            };
            let soldier = Soldier {
                number,
                name: name.to_owned(),
                team,
                origin: self.spawn_point(team),
                yaw: self.rng.random_range(0.0..360.0),
                weapon: self.rng.random_range(0..WEAPONS.len()),
                dead_until: None,
                events: 0,
                last_event: 0,
            };
            self.soldiers.push(soldier);
        }
    }

    fn spawn_point(&mut self, team: u32) -> [f32; 3] {
        let side = if team == TEAM_ALLIES { -1.0 } else { 1.0 };
        [
            side * self.rng.random_range(800.0..ARENA),
            self.rng.random_range(-ARENA..ARENA),
            0.0,
        ]
    }

    /// Advances the match by one server frame of `frame_ms`. `taken` are the sessions' client
    /// numbers. Returns the server commands the frame produced; scores go into `profile`.
    pub fn step(&mut self, frame_ms: i32, profile: &mut ServerProfile, taken: &[u8]) -> Commands {
        self.time += frame_ms;
        self.sync_roster(profile, taken);
        let mut commands = Commands::new();
        let dt = frame_ms as f32 / 1000.0;
        for s in &mut self.soldiers {
            if let Some(until) = s.dead_until {
                if self.time >= until {
                    s.dead_until = None;
                }
                continue;
            }
            s.yaw = (s.yaw + self.rng.random_range(-25.0..25.0f32)).rem_euclid(360.0);
            let (sin, cos) = s.yaw.to_radians().sin_cos();
            for (axis, step) in [cos, sin].into_iter().enumerate() {
                let next = s.origin[axis] + step * RUN_SPEED * dt;
                if next.abs() > ARENA {
                    s.yaw = (s.yaw + 180.0).rem_euclid(360.0);
                } else {
                    s.origin[axis] = next;
                }
            }
            if self.rng.random_bool(0.15) {
                s.events = s.events.wrapping_add(1);
                s.last_event = EV_FIRE_WEAPON;
            }
        }
        // About one kill a second across the field.
        if self.rng.random_bool(f64::from(frame_ms) / 1000.0) {
            self.kill(profile, &mut commands);
        }
        if self.rng.random_bool(f64::from(frame_ms) / 8000.0) {
            if let Some(s) = self.soldiers.choose(&mut self.rng) {
                let line = CHAT.choose(&mut self.rng).copied().unwrap_or("gg");
                commands.push(format!("chat \"{}^7: {line}\"", s.name));
            }
        }
        for v in &mut self.vehicles {
            v.phase += dt * if v.tank { 0.15 } else { 0.4 };
        }
        commands
    }

    fn kill(&mut self, profile: &mut ServerProfile, commands: &mut Commands) {
        let alive: Vec<usize> = (0..self.soldiers.len())
            .filter(|&i| self.soldiers[i].dead_until.is_none())
            .collect();
        let Some(&victim) = alive.choose(&mut self.rng) else {
            return;
        };
        let foes: Vec<usize> = alive
            .iter()
            .copied()
            .filter(|&i| self.soldiers[i].team != self.soldiers[victim].team)
            .collect();
        let Some(&killer) = foes.choose(&mut self.rng) else {
            return;
        };
        self.soldiers[victim].dead_until = Some(self.time + RESPAWN_MS);
        let team = self.soldiers[victim].team;
        let spawn = self.spawn_point(team);
        self.soldiers[victim].origin = spawn;
        let weapon = WEAPONS[self.soldiers[killer].weapon].0;
        let (k, v) = (&self.soldiers[killer].name, &self.soldiers[victim].name);
        commands.push(format!("print \"{k}^7 killed {v}^7 ({weapon})\n\""));
        if let Some(p) = profile.players.iter_mut().find(|p| p.name == *k) {
            p.score += 1;
        }
        commands.push(scores(profile, &self.soldiers));
    }

    /// The server time of the latest frame.
    pub fn time(&self) -> i32 {
        self.time
    }

    /// The client numbers the soldiers hold.
    pub fn numbers(&self) -> Vec<u8> {
        self.soldiers.iter().map(|s| s.number).collect()
    }

    /// What everyone sees now; each session gets a spectator's player state.
    pub fn frame(&self, sessions: &[(u8, String)]) -> Frame {
        let mut frame = Frame {
            server_time: self.time,
            ..Frame::default()
        };
        frame.entities = self.statics.clone();
        for s in &self.soldiers {
            frame
                .entities
                .insert(u16::from(s.number), soldier_entity(s, self.time));
            frame
                .clients
                .insert(s.number, client_state(&s.name, s.team));
        }
        for v in &self.vehicles {
            frame.entities.insert(v.number, vehicle_entity(v));
        }
        for (number, name) in sessions {
            frame
                .clients
                .insert(*number, client_state(name, TEAM_SPECTATOR));
            frame.players.insert(*number, spectator(*number, self.time));
        }
        frame
    }
}

/// `scores` as Q3 sends it: the count, then client number, score and ping per soldier.
fn scores(profile: &ServerProfile, soldiers: &[Soldier]) -> String {
    let mut text = format!("scores {}", soldiers.len());
    for s in soldiers {
        let (score, ping) = profile
            .players
            .iter()
            .find(|p| p.name == s.name)
            .map_or((0, 0), |p| (p.score, p.ping));
        text.push_str(&format!(" {} {score} {ping}", s.number));
    }
    text
}

fn soldier_entity(s: &Soldier, time: i32) -> EntityState {
    let mut e = EntityState::zero(u16::from(s.number));
    e.set("eType", ET_PLAYER);
    e.set("clientNum", u32::from(s.number));
    e.set("pos.trType", 1);
    e.set("pos.trTime", time as u32);
    e.set_origin(s.origin);
    e.set("apos.trBase[1]", angle(s.yaw));
    e.set("weapon", WEAPONS[s.weapon].1);
    let dead = s.dead_until.is_some();
    e.set("eFlags", if dead { EF_DEAD } else { 0 });
    e.set("legsAnim", if dead { 20 } else { 3 });
    e.set("torsoAnim", if dead { 20 } else { 5 });
    e.set("eventSequence", s.events & 0xff);
    e.set("events[0]", s.last_event);
    e
}

fn vehicle_entity(v: &Vehicle) -> EntityState {
    let mut e = EntityState::zero(v.number);
    let radius = if v.tank { 900.0 } else { 1300.0 };
    let (sin, cos) = v.phase.sin_cos();
    e.set("eType", ET_VEHICLE);
    e.set("index", if v.tank { 2 } else { 1 });
    e.set_origin([radius * cos, radius * sin, 0.0]);
    let heading = (v.phase.to_degrees() + 90.0).rem_euclid(360.0);
    e.set("apos.trBase[1]", angle(heading));
    e.vehicle = true;
    e
}

/// A clientState with a team and a name.
pub fn client_state(name: &str, team: u32) -> ClientState {
    let mut c = ClientState::default();
    c.set("team", team);
    c.set_name(name);
    c
}

/// A free spectator circling the field, looking at its middle.
fn spectator(number: u8, time: i32) -> PlayerState {
    let mut ps = PlayerState::default();
    let orbit = time as f32 / 20_000.0;
    let (sin, cos) = orbit.sin_cos();
    ps.set("commandTime", time as u32);
    ps.set("pm_type", PM_SPECTATOR);
    ps.set("clientNum", u32::from(number));
    ps.set_f32("origin[0]", 2400.0 * cos);
    ps.set_f32("origin[1]", 2400.0 * sin);
    ps.set_f32("origin[2]", 600.0);
    let yaw = (orbit.to_degrees() + 180.0).rem_euclid(360.0);
    ps.set("viewangles[1]", angle(yaw));
    ps.set("viewangles[0]", angle(12.0));
    ps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_client_state_words() {
        assert_eq!(client_state("^1Sgt.^7Rock", 1).name(), "^1Sgt.^7Rock");
        let long = "x".repeat(40);
        assert_eq!(client_state(&long, 1).name().len(), 31);
    }

    #[test]
    fn soldiers_move_fire_die_and_score() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut profile = ServerProfile::generate(0, &mut rng);
        while profile.players.len() < 6 {
            profile.churn(&mut rng);
        }
        let mut game = Match::new(&profile, 9, 0);
        let before: i32 = profile.players.iter().map(|p| p.score).sum();
        let first = {
            game.step(50, &mut profile, &[]);
            game.frame(&[])
        };
        let mut commands = Vec::new();
        for _ in 0..400 {
            commands.extend(game.step(50, &mut profile, &[]));
        }
        let last = game.frame(&[(0, "Muster".into())]);
        assert!(
            first.entities.values().any(|e| e.vehicle),
            "a vehicle drives"
        );
        let moved = first
            .entities
            .iter()
            .filter(|(n, e)| last.entities.get(n) != Some(e))
            .count();
        assert!(moved >= 6, "soldiers and vehicles move");
        assert!(commands
            .iter()
            .any(|c| c.starts_with("print ") && c.contains("killed")));
        assert!(commands.iter().any(|c| c.starts_with("scores ")));
        let after: i32 = profile.players.iter().map(|p| p.score).sum();
        assert!(after > before, "kills score");
        assert!(last.players.contains_key(&0));
        assert_eq!(last.clients[&0].name(), "Muster");
    }
}
