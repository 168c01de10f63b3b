//! A small match the lab's sessions watch, told the way a stock UO server tells it: soldiers
//! (players and bots from the server's roster) run, turn, fire, die, respawn and score; a
//! vehicle or two drive a loop; deaths are obituary temp entities, team scores configstrings
//! 5 and 6, the scoreboard a `b` command, chat `h`. Deterministic for a seed; time is the
//! server's.

use protocol::cod::fields::ClientField;
use protocol::cod::fields::EntityField;
use protocol::cod::fields::PlayerStateField;
use std::collections::BTreeMap;

use protocol::cod::entity::{EntityState, ET_VEHICLE};
use protocol::cod::fields::Named;
use protocol::cod::msg::{angle16_decode, angle16_encode};
use protocol::cod::playerstate::PlayerState;
use protocol::cod::server::visibility::SVF_OBJECTIVE;
use protocol::cod::server::{Frame, Map};
use protocol::cod::snapshot::ClientState;
use protocol::cod::watch::obituary::{
    cause_of, Obituary, EV_DEATH, MOD_HEAD_SHOT, MOD_MELEE, MOD_RIFLE_BULLET, SVF_BROADCAST,
};
use protocol::cod::watch::spectator::{
    CS_ALLIES_SCORE, CS_AXIS_SCORE, CS_FOG, CS_LEVEL_START, CS_WEAPONS, EF_DEAD, ET_PLAYER,
    PM_DEAD, PSF_ACTIVE_PLAYER,
};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use crate::profile::ServerProfile;

/// `eType` of a static map entity (the flags and radios the baselines carry).
pub const ET_GENERAL: u32 = 0;
/// The entity event a shot makes.
pub const EV_FIRE_WEAPON: u32 = 26;
/// Teams as clientState `team` has them.
pub const TEAM_FREE: u32 = 0;
pub const TEAM_AXIS: u32 = 1;
pub const TEAM_ALLIES: u32 = 2;
pub const TEAM_SPECTATOR: u32 = 3;
/// A standing soldier's eye height.
pub const VIEW_HEIGHT: f32 = 60.0;
/// Entity numbers of the vehicles, of the map's static entities and of the temp entities.
const FIRST_VEHICLE: u16 = 64;
const FIRST_STATIC: u16 = 80;
const FIRST_TEMP: u16 = 200;
const TEMP_SLOTS: u16 = 32;
/// How long a temp event entity stays in snapshots (Q3's EVENT_VALID_MSEC; UO's lifetime was
/// not traced).
const TEMP_LIFETIME_MS: i32 = 300;
/// Half the side of the square the match is played in.
pub const ARENA: f32 = 1800.0;
const RUN_SPEED: f32 = 190.0;
const RESPAWN_MS: i32 = 3000;
/// A run goes on if its next kill comes within this long (under the spree's 3 s).
const RUN_GAP_MS: i32 = 2500;

/// How fast a match plays. Stock has no figure for it (no demo of a public match was measured):
/// both are the lab's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pace {
    /// About one kill a second across the field whatever its size, between any two foes: a
    /// test sees sprees, long shots and streaks within seconds. Some twenty times the plays of
    /// a public match.
    #[default]
    Busy,
    /// A public server's pace, as far as the lab can tell one: each living soldier kills about
    /// once a minute (a 12-player match makes a kill every five seconds), and a killer shoots
    /// the nearest foe, so a long shot happens where foes are far apart. For benches that
    /// should cost what a real match costs.
    Public,
}

impl Pace {
    /// Kills a second across the field with `alive` soldiers living.
    fn kills_per_s(self, alive: usize) -> f64 {
        match self {
            Self::Busy => 1.0,
            Self::Public => alive as f64 / 60.0,
        }
    }
}
/// Configstring 7: the weapon files of `weapons/mp`, sorted; weapon i is the i-th (1-based).
pub const WEAPON_FILES: &[&str] = &[
    "bar_mp",
    "colt_mp",
    "kar98k_mp",
    "luger_mp",
    "m1carbine_mp",
    "m1garand_mp",
    "mp40_mp",
    "mp44_mp",
    "springfield_mp",
    "thompson_mp",
];
/// The weapons soldiers carry.
const CARRIED: &[&str] = &[
    "kar98k_mp",
    "m1garand_mp",
    "thompson_mp",
    "mp40_mp",
    "bar_mp",
    "springfield_mp",
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

/// A weapon's index: its 1-based place in [`WEAPON_FILES`].
pub fn weapon_index(file: &str) -> u8 {
    WEAPON_FILES
        .iter()
        .position(|w| *w == file)
        .map_or(0, |i| i as u8 + 1)
}

/// An angle as the wire carries it: snapped to a 16-bit angle, so what a client decodes is
/// exactly what the server holds.
pub fn angle(degrees: f32) -> u32 {
    angle16_decode(angle16_encode(degrees)).to_bits()
}

/// The chat colour of a team's names: ^9 axis, ^8 allies.
pub fn team_colour(team: u32) -> &'static str {
    match team {
        TEAM_AXIS => "^9",
        TEAM_ALLIES => "^8",
        _ => "",
    }
}

/// Chat to everyone (`h`, text colour 7) or to a team (`i`, colour 5) as stock's G_Say builds
/// it; `status` is `\x15(\x14GAME_SPECTATOR\x15)`, `\x15(\x14GAME_DEAD\x15)` or empty. The
/// exact wrapper is inferred from the notes.
pub fn chat_command(team_chat: bool, status: &str, team: u32, name: &str, text: &str) -> String {
    let prefix = format!("{status}\x15{}{name}^7: ", team_colour(team));
    let (verb, colour) = if team_chat { ('i', '5') } else { ('h', '7') };
    format!("{verb} \"\x15{prefix}^{colour}{text}\"")
}

/// Of `foes`, the soldier nearest soldier `i`.
fn nearest(soldiers: &[Soldier], i: usize, foes: &[usize]) -> Option<usize> {
    let at = soldiers[i].origin;
    let apart = |j: usize| {
        let o = soldiers[j].origin;
        (o[0] - at[0]).powi(2) + (o[1] - at[1]).powi(2)
    };
    foes.iter()
        .copied()
        .min_by(|&a, &b| apart(a).total_cmp(&apart(b)))
}

/// One soldier on the field.
#[derive(Clone, Debug)]
pub struct Soldier {
    pub number: u8,
    pub name: String,
    pub team: u32,
    pub origin: [f32; 3],
    pub yaw: f32,
    weapon: usize,
    dead_until: Option<i32>,
    events: u32,
    last_event: u32,
    deaths: i32,
}

impl Soldier {
    pub fn alive(&self) -> bool {
        self.dead_until.is_none()
    }
}

#[derive(Clone, Debug)]
struct Vehicle {
    number: u16,
    tank: bool,
    phase: f32,
}

/// An obituary temp entity and when it goes away.
#[derive(Clone, Debug)]
struct TempEntity {
    entity: EntityState,
    until: i32,
}

/// The match on one lab server.
pub struct Match {
    rng: SmallRng,
    soldiers: Vec<Soldier>,
    vehicles: Vec<Vehicle>,
    statics: BTreeMap<u16, EntityState>,
    temps: BTreeMap<u16, TempEntity>,
    next_temp: u16,
    time: i32,
    level_start: i32,
    axis_score: i32,
    allies_score: i32,
    /// A soldier on a run, and until when their next kill keeps it going.
    run: Option<(usize, i32)>,
    pace: Pace,
}

/// What one frame produced for the sessions.
#[derive(Clone, Debug, Default)]
pub struct Step {
    /// Reliable server commands for every client.
    pub commands: Vec<String>,
    /// Configstring changes.
    pub configstrings: Vec<(u16, String)>,
    /// Soldiers who died this frame (spectators following them get a scoreboard).
    pub deaths: Vec<u8>,
    /// This frame's kills: killer and victim client numbers.
    pub kills: Vec<(u8, u8)>,
}

impl Match {
    /// A match on the profile's map starting at server time `time` (server time runs on
    /// across map changes), played at `pace`.
    pub fn new(profile: &ServerProfile, seed: u64, time: i32, pace: Pace) -> Self {
        let mut game = Self {
            rng: SmallRng::seed_from_u64(seed),
            soldiers: Vec::new(),
            vehicles: Vec::new(),
            statics: BTreeMap::new(),
            temps: BTreeMap::new(),
            next_temp: 0,
            time,
            level_start: time,
            axis_score: 0,
            allies_score: 0,
            run: None,
            pace,
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
            e.set(EntityField::E_TYPE, ET_GENERAL);
            e.set(EntityField::INDEX, 40 + i as u32);
            e.set_origin(*at);
            game.statics.insert(number, e);
        }
        // The roster is on the field from the start, so its slots are taken before anyone
        // connects.
        game.sync_roster(profile, &[]);
        game
    }

    /// The gamestate for this map: serverinfo, systeminfo (`sv_pure 0`: the lab validates no
    /// paks), the worldspawn, team scores, weapons, fog (`visibility`, 0 for none), the level
    /// start, and the static entities' baselines.
    pub fn map(&self, profile: &ServerProfile, checksum_feed: i32, visibility: f32) -> Map {
        let mut map = Map {
            checksum_feed,
            ..Map::default()
        };
        let cs = &mut map.configstrings;
        cs.insert(0, profile.status(None).info.to_string());
        cs.insert(1, "\\sv_pure\\0".to_owned());
        cs.insert(2, "cod".to_owned());
        cs.insert(CS_AXIS_SCORE, self.axis_score.to_string());
        cs.insert(CS_ALLIES_SCORE, self.allies_score.to_string());
        cs.insert(CS_WEAPONS, WEAPON_FILES.join(" "));
        if visibility > 0.0 {
            cs.insert(CS_FOG, format!("0 {visibility} 1 0.55 0.55 0.6 0"));
        }
        cs.insert(CS_LEVEL_START, self.level_start.to_string());
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
            let allies = self
                .soldiers
                .iter()
                .filter(|s| s.team == TEAM_ALLIES)
                .count();
            let team = if allies <= self.soldiers.len() / 2 {
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
                weapon: self.rng.random_range(0..CARRIED.len()),
                dead_until: None,
                events: 0,
                last_event: 0,
                deaths: 0,
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
    /// numbers. Scores go into `profile`.
    pub fn step(&mut self, frame_ms: i32, profile: &mut ServerProfile, taken: &[u8]) -> Step {
        self.time += frame_ms;
        self.sync_roster(profile, taken);
        let time = self.time;
        self.temps.retain(|_, t| t.until > time);
        let mut step = Step::default();
        let dt = frame_ms as f32 / 1000.0;
        // The dead lie where they fell until they respawn at their side's spawn.
        for i in 0..self.soldiers.len() {
            if self.soldiers[i]
                .dead_until
                .is_some_and(|until| time >= until)
            {
                let spawn = self.spawn_point(self.soldiers[i].team);
                self.soldiers[i].dead_until = None;
                self.soldiers[i].origin = spawn;
            }
        }
        for s in &mut self.soldiers {
            if !s.alive() {
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
        let alive = self.soldiers.iter().filter(|s| s.alive()).count();
        let chance = self.pace.kills_per_s(alive) * f64::from(frame_ms) / 1000.0;
        if self.rng.random_bool(chance.min(1.0)) {
            self.kill(profile, &mut step);
        }
        // A chat line every few seconds.
        if self.rng.random_bool(f64::from(frame_ms) / 3000.0) {
            if let Some(s) = self.soldiers.choose(&mut self.rng) {
                let line = CHAT.choose(&mut self.rng).copied().unwrap_or("gg");
                let status = if s.alive() {
                    ""
                } else {
                    "\x15(\x14GAME_DEAD\x15)"
                };
                step.commands
                    .push(chat_command(false, status, s.team, &s.name, line));
            }
        }
        for v in &mut self.vehicles {
            v.phase += dt * if v.tank { 0.15 } else { 0.4 };
        }
        step
    }

    fn kill(&mut self, profile: &mut ServerProfile, step: &mut Step) {
        let alive: Vec<usize> = (0..self.soldiers.len())
            .filter(|&i| self.soldiers[i].alive())
            .collect();
        let foes_of = |i: usize| -> Vec<usize> {
            alive
                .iter()
                .copied()
                .filter(|&j| self.soldiers[j].team != self.soldiers[i].team)
                .collect()
        };
        // A soldier on a run kills again, as players do: sprees happen, as on a stock server.
        let running = self
            .run
            .filter(|&(i, until)| self.time <= until && alive.contains(&i))
            .map(|(i, _)| i);
        // The other side of a fight: any foe at the busy pace, the nearest at a public one.
        let (pace, soldiers) = (self.pace, &self.soldiers);
        let opponent = |of: usize, rng: &mut SmallRng| {
            let foes = foes_of(of);
            match pace {
                Pace::Busy => foes.choose(rng).copied(),
                Pace::Public => nearest(soldiers, of, &foes),
            }
        };
        let (killer, victim) = match running {
            Some(killer) => {
                let Some(victim) = opponent(killer, &mut self.rng) else {
                    return;
                };
                (killer, victim)
            }
            None => {
                let Some(&victim) = alive.choose(&mut self.rng) else {
                    return;
                };
                let Some(killer) = opponent(victim, &mut self.rng) else {
                    return;
                };
                (killer, victim)
            }
        };
        let keep_going = if running.is_some() { 0.6 } else { 0.25 };
        self.run = self
            .rng
            .random_bool(keep_going)
            .then_some((killer, self.time + RUN_GAP_MS));
        let means = match self.rng.random_range(0..20) {
            0..=3 => MOD_HEAD_SHOT,
            4 => MOD_MELEE,
            _ => MOD_RIFLE_BULLET,
        };
        let weapon = weapon_index(CARRIED[self.soldiers[killer].weapon]);
        let obituary = Obituary {
            victim: u16::from(self.soldiers[victim].number),
            attacker: Some(u16::from(self.soldiers[killer].number)),
            cause: cause_of(weapon, means),
        };
        let number = FIRST_TEMP + self.next_temp;
        self.next_temp = (self.next_temp + 1) % TEMP_SLOTS;
        self.temps.insert(
            number,
            TempEntity {
                entity: obituary.to_entity(number),
                until: self.time + TEMP_LIFETIME_MS,
            },
        );
        let v = &mut self.soldiers[victim];
        v.dead_until = Some(self.time + RESPAWN_MS);
        v.deaths += 1;
        v.events = v.events.wrapping_add(1);
        v.last_event = EV_DEATH;
        let fallen = v.number;
        let killer_name = self.soldiers[killer].name.clone();
        let killer_team = self.soldiers[killer].team;
        if let Some(p) = profile.players.iter_mut().find(|p| p.name == killer_name) {
            p.score += 1;
        }
        let (index, score) = if killer_team == TEAM_AXIS {
            self.axis_score += 1;
            (CS_AXIS_SCORE, self.axis_score)
        } else {
            self.allies_score += 1;
            (CS_ALLIES_SCORE, self.allies_score)
        };
        step.configstrings.push((index, score.to_string()));
        step.deaths.push(fallen);
        step.kills.push((self.soldiers[killer].number, fallen));
    }

    /// Advances the match's clock by one frame with play standing still (the intermission):
    /// nobody moves or fires, and event entities expire as time passes.
    pub fn hold(&mut self, frame_ms: i32) {
        self.time += frame_ms;
        let time = self.time;
        self.temps.retain(|_, t| t.until > time);
    }

    /// The server time of the latest frame.
    pub fn time(&self) -> i32 {
        self.time
    }

    /// The client numbers the soldiers hold.
    pub fn numbers(&self) -> Vec<u8> {
        self.soldiers.iter().map(|s| s.number).collect()
    }

    pub fn soldiers(&self) -> &[Soldier] {
        &self.soldiers
    }

    /// `b` as stock sends it: count, axis and allies scores, then client, score, ping, deaths
    /// and status icon per client, sorted by score.
    pub fn scores(&self, profile: &ServerProfile, sessions: &[(u8, String)]) -> String {
        let mut rows: Vec<(u8, i32, i32, i32)> = self
            .soldiers
            .iter()
            .map(|s| {
                let (score, ping) = profile
                    .players
                    .iter()
                    .find(|p| p.name == s.name)
                    .map_or((0, 0), |p| (p.score, p.ping));
                (s.number, score, ping, s.deaths)
            })
            .collect();
        rows.extend(sessions.iter().map(|(n, _)| (*n, 0, 5, 0)));
        rows.sort_by_key(|r| std::cmp::Reverse(r.1));
        rows.truncate(64);
        let mut text = format!("b {} {} {}", rows.len(), self.axis_score, self.allies_score);
        for (client, score, ping, deaths) in rows {
            text.push_str(&format!(" {client} {score} {ping} {deaths} 0"));
        }
        text
    }

    /// The player state of a soldier, as a spectator following it receives it.
    pub fn soldier_state(&self, number: u8) -> Option<PlayerState> {
        let s = self.soldiers.iter().find(|s| s.number == number)?;
        let mut ps = PlayerState::default();
        ps.set(PlayerStateField::COMMAND_TIME, self.time as u32);
        ps.set(
            PlayerStateField::PM_TYPE,
            if s.alive() { 0 } else { PM_DEAD },
        );
        ps.set(PlayerStateField::PM_FLAGS, PSF_ACTIVE_PLAYER);
        ps.set(PlayerStateField::CLIENT_NUM, u32::from(number));
        ps.set_origin(s.origin.map(snap));
        ps.set_f32(PlayerStateField::VIEW_HEIGHT_CURRENT, VIEW_HEIGHT);
        ps.set(PlayerStateField::VIEWANGLES_1, angle(s.yaw));
        ps.set(
            PlayerStateField::WEAPON,
            u32::from(weapon_index(CARRIED[s.weapon])),
        );
        Some(ps)
    }

    /// What everyone sees now, before each session's own player state and client state.
    pub fn frame(&self) -> Frame {
        let mut frame = Frame {
            server_time: self.time,
            ..Frame::default()
        };
        frame.entities = self.statics.clone();
        for &number in self.statics.keys() {
            frame.sv_flags.insert(number, SVF_OBJECTIVE);
        }
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
        for (&number, t) in &self.temps {
            frame.entities.insert(number, t.entity.clone());
            frame.sv_flags.insert(number, SVF_BROADCAST);
        }
        frame
    }
}

fn soldier_entity(s: &Soldier, time: i32) -> EntityState {
    let mut e = EntityState::zero(u16::from(s.number));
    e.set(EntityField::E_TYPE, ET_PLAYER);
    e.set(EntityField::CLIENT_NUM, u32::from(s.number));
    e.set(EntityField::POS_TR_TYPE, 1);
    e.set(EntityField::POS_TR_TIME, time as u32);
    // Stock snaps player origins to whole units.
    e.set_origin(s.origin.map(snap));
    e.set(EntityField::APOS_TR_BASE_1, angle(s.yaw));
    e.set(
        EntityField::WEAPON,
        u32::from(weapon_index(CARRIED[s.weapon])),
    );
    let dead = !s.alive();
    e.set(EntityField::E_FLAGS, if dead { EF_DEAD } else { 0 });
    e.set(EntityField::LEGS_ANIM, if dead { 20 } else { 3 });
    e.set(EntityField::TORSO_ANIM, if dead { 20 } else { 5 });
    e.set(EntityField::EVENT_SEQUENCE, s.events & 0xff);
    e.set(EntityField::EVENTS_0, s.last_event);
    e
}

/// A coordinate snapped as stock's `SnapVector` does, through an integer: -0.3 becomes 0, never
/// the -0.0 `f32::trunc` gives, which the wire cannot carry (a whole float goes as an integer).
fn snap(v: f32) -> f32 {
    v as i32 as f32
}

fn vehicle_entity(v: &Vehicle) -> EntityState {
    let mut e = EntityState::zero(v.number);
    let radius = if v.tank { 900.0 } else { 1300.0 };
    let (sin, cos) = v.phase.sin_cos();
    e.set(EntityField::E_TYPE, ET_VEHICLE);
    e.set(EntityField::INDEX, if v.tank { 2 } else { 1 });
    e.set_origin([snap(radius * cos), snap(radius * sin), 0.0]);
    let heading = (v.phase.to_degrees() + 90.0).rem_euclid(360.0);
    e.set(EntityField::APOS_TR_BASE_1, angle(heading));
    e.vehicle = true;
    e
}

/// A clientState with a team and a name.
pub fn client_state(name: &str, team: u32) -> ClientState {
    let mut c = ClientState::default();
    c.set(ClientField::TEAM, team);
    c.set_name(name);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::cod::watch::obituary::ET_OBITUARY;

    #[test]
    fn names_round_trip_through_client_state_words() {
        assert_eq!(client_state("^1Sgt.^7Rock", 1).name(), "^1Sgt.^7Rock");
        let long = "x".repeat(40);
        assert_eq!(client_state(&long, 1).name().len(), 31);
    }

    #[test]
    fn soldiers_move_die_by_obituary_and_score_in_configstrings() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut profile = ServerProfile::generate(0, &mut rng);
        while profile.players.len() < 6 {
            profile.churn(&mut rng);
        }
        let mut game = Match::new(&profile, 9, 0, Pace::Busy);
        let before: i32 = profile.players.iter().map(|p| p.score).sum();
        game.step(50, &mut profile, &[]);
        let first = game.frame();
        let mut steps = Vec::new();
        let mut obituaries = 0;
        for _ in 0..400 {
            steps.push(game.step(50, &mut profile, &[]));
            obituaries += game
                .frame()
                .entities
                .values()
                .filter(|e| e.get(EntityField::E_TYPE) == ET_OBITUARY)
                .count();
        }
        let last = game.frame();
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
        assert!(obituaries > 5, "deaths are obituary entities");
        assert!(steps.iter().any(|s| s
            .configstrings
            .iter()
            .any(|(i, _)| *i == CS_AXIS_SCORE || *i == CS_ALLIES_SCORE)));
        assert!(steps
            .iter()
            .any(|s| s.commands.iter().any(|c| c.starts_with("h \""))));
        let after: i32 = profile.players.iter().map(|p| p.score).sum();
        assert!(after > before, "kills score");
        let b = game.scores(&profile, &[(0, "Muster".into())]);
        assert!(
            b.starts_with(&format!("b {} ", game.numbers().len() + 1)),
            "{b}"
        );
        let ps = game.soldier_state(game.numbers()[0]).unwrap();
        assert_eq!(
            ps.get(PlayerStateField::CLIENT_NUM),
            u32::from(game.numbers()[0])
        );
    }

    /// Ten minutes of a 12-soldier match at `pace`: (kills a second, the mean distance of a
    /// kill, the share of kills over 2,500 units).
    fn ten_minutes(pace: Pace) -> (f64, f32, f64) {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut profile = ServerProfile::generate(0, &mut rng);
        profile.players.truncate(12);
        while profile.players.len() < 12 {
            profile.churn(&mut rng);
        }
        let mut game = Match::new(&profile, 9, 0, pace);
        let (mut kills, mut apart, mut long) = (0usize, 0f32, 0usize);
        let frames = 10 * 60 * 20;
        for _ in 0..frames {
            let step = game.step(50, &mut profile, &[]);
            for (killer, victim) in step.kills {
                // The victim lies where they fell until the respawn.
                let at = |n| {
                    game.soldiers
                        .iter()
                        .find(|s| s.number == n)
                        .map(|s| s.origin)
                };
                let (Some(k), Some(v)) = (at(killer), at(victim)) else {
                    continue;
                };
                let d = ((k[0] - v[0]).powi(2) + (k[1] - v[1]).powi(2)).sqrt();
                kills += 1;
                apart += d;
                long += usize::from(d >= 2500.0);
            }
        }
        let seconds = f64::from(frames) / 20.0;
        (
            kills as f64 / seconds,
            apart / kills.max(1) as f32,
            long as f64 / kills.max(1) as f64,
        )
    }

    #[test]
    fn a_public_pace_kills_about_once_a_soldier_minute_and_at_the_nearest_foe() {
        let (busy_rate, busy_apart, busy_long) = ten_minutes(Pace::Busy);
        let (rate, apart, long) = ten_minutes(Pace::Public);
        // A kill a second whatever the field; at a public pace the living (most of the 12:
        // 3 s a death) kill once a minute each.
        assert!((0.85..1.15).contains(&busy_rate), "{busy_rate}");
        assert!((0.13..0.22).contains(&rate), "{rate}");
        assert!(
            apart < busy_apart * 0.75,
            "the nearest foe: {apart} against {busy_apart}"
        );
        assert!(
            long < busy_long / 2.0,
            "long shots {long} against {busy_long}"
        );
    }
}
