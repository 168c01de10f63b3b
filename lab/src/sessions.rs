//! The game side of a lab server, sans-IO: a protocol session server, the match it shows, and
//! the stock spectator rules for the sessions watching it (SPECTATOR-NOTES §2): free-fly, follow
//! cycling by fire and melee or `follownext`/`followprev`, ADS back to free-fly, a scoreboard
//! when the followed player dies, and the idle-spectator kick. Sessions join as spectators; the
//! match runs only while someone watches.

use crate::sync::Locked;
use protocol::cod::fields::PlayerStateField;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use protocol::cod::fields::Named;
use protocol::cod::msg::angle16_decode;
use protocol::cod::playerstate::PlayerState;
use protocol::cod::server::{Server, ServerConfig, ServerEvent};
use protocol::cod::snapshot::Snapshot;
use protocol::cod::tuning;
use protocol::cod::usercmd::UserCmd;
use protocol::cod::watch::match_log::PM_INTERMISSION;
use protocol::cod::watch::spectator::{
    BUTTON_ADS, BUTTON_FIRE, BUTTON_MELEE, PM_SPECTATOR, PSF_FOLLOWABLE, PSF_FOLLOWING,
    PSF_FREELOOK,
};
use protocol::Transmit;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;

use crate::game::{angle, chat_command, client_state, Match, Pace, ARENA, TEAM_SPECTATOR};
use crate::profile::{ServerProfile, MAPS};

/// Stock's default server frame rate.
pub const SV_FPS: i32 = 20;
/// The file every lab server offers for in-band download.
pub const README: &str = "muster-lab/readme.txt";
/// A free-flying spectator's speed with freelook allowed.
const SPECTATOR_SPEED: f32 = 400.0;
/// Where a new spectator floats: behind the allied edge of the field, looking across it.
const SPECTATOR_SPAWN: [f32; 3] = [0.0, -(ARENA + 400.0), 400.0];
/// The warning comes this long before the idle kick.
const INACTIVITY_WARNING_MS: u64 = 10_000;
/// The default fog: a foggy stock map lets one see about this far (the lab's guess; per-map
/// values were not traced).
pub const DEFAULT_VISIBILITY: f32 = 1500.0;

/// Where the lab writes the true match, one JSON line per server frame; shared by a fleet.
#[derive(Clone)]
pub struct Truth(Arc<Mutex<std::io::BufWriter<std::fs::File>>>);

impl Truth {
    pub fn create(path: &std::path::Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
        Ok(Self(Arc::new(Mutex::new(std::io::BufWriter::new(file)))))
    }

    fn write(&self, line: &str) {
        let mut out = self.0.locked();
        // A full disk loses truth lines, never the match.
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

impl std::fmt::Debug for Truth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Truth")
    }
}

/// How the sessions of one lab server run.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub seed: u64,
    /// How long a map runs before the next one loads; `None` keeps one map.
    pub map_time_ms: Option<u64>,
    /// How long the intermission after a map's time lasts, before the next map loads.
    pub intermission_ms: u64,
    /// The opaque fog distance (configstring 13); 0 for a clear map.
    pub visibility: f32,
    /// `g_inactivityspectator` in ms; 0 never kicks.
    pub inactivity_spectator_ms: u64,
    /// Where to write the true match, and this server's name in it.
    pub truth: Option<Truth>,
    pub label: String,
    /// Counts every accepted `connect`.
    pub connects: Arc<AtomicU64>,
    /// Counts every datagram a session's slot took from another port of its address.
    pub translated_ports: Arc<AtomicU64>,
    /// How fast the match plays.
    pub pace: Pace,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            map_time_ms: None,
            intermission_ms: 0,
            visibility: DEFAULT_VISIBILITY,
            inactivity_spectator_ms: 0,
            truth: None,
            label: String::new(),
            connects: Arc::default(),
            translated_ports: Arc::default(),
            pace: Pace::default(),
        }
    }
}

/// How a spectator watches.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Free {
        origin: [f32; 3],
        yaw: f32,
    },
    /// Following this client (the game's archiveClient).
    Follow(u8),
}

impl Mode {
    /// Where a spectator arrives, and returns to when its target is gone or the map changes.
    const ARRIVAL: Self = Self::Free {
        origin: SPECTATOR_SPAWN,
        yaw: 90.0,
    };
}

/// One spectating session.
#[derive(Clone, Debug)]
struct Watcher {
    name: String,
    mode: Mode,
    /// The previous user command's buttons, for rising edges.
    buttons: u8,
    last_command_time: Option<i32>,
    active_at: u64,
    warned: bool,
}

impl Watcher {
    fn new(name: String, now: u64) -> Self {
        Self {
            name,
            mode: Mode::ARRIVAL,
            buttons: 0,
            last_command_time: None,
            active_at: now,
            warned: false,
        }
    }
}

/// Cmd_FollowCycle_f: from the current target (or 0), the next valid one in `dir`, wrapping.
fn cycle(current: Option<u8>, dir: i32, targets: &[u8]) -> Option<u8> {
    let start = i32::from(current.unwrap_or(0));
    (1..=64)
        .map(|step| (start + dir * step).rem_euclid(64) as u8)
        .find(|n| targets.contains(n))
}

pub struct Sessions {
    config: SessionConfig,
    server: Server,
    game: Match,
    rng: SmallRng,
    map_started: u64,
    /// The map's time is up: play stands still until the next map loads.
    intermission: bool,
    last_frame: u64,
    watchers: BTreeMap<u8, Watcher>,
    private_clients: u8,
    /// Snapshots sent, kept for tests that compare them with what a client decoded.
    sent: Option<Vec<(u8, Box<Snapshot>)>>,
}

/// The readme a lab server offers: a few blocks of text about itself.
pub fn readme(profile: &ServerProfile) -> Vec<u8> {
    let mut text = format!(
        "{}\nmap {} gametype {}\n\nThis is a Muster lab server: a loopback stand-in for a UO 1.51 server.\n",
        profile.hostname, profile.mapname, profile.gametype
    );
    for line in 0..120 {
        text.push_str(&format!(
            "line {line:03}: every byte of this file travels in svc_download blocks\n"
        ));
    }
    text.into_bytes()
}

/// The password of the lab's passworded servers (those whose `pswrd` is 1).
pub const LAB_PASSWORD: &str = "lab";

/// What a level's spawn runs before any client sees it: stock `SV_SpawnServer` (and a map
/// restart) runs three 100 ms frames to let the level settle, and server time runs on through
/// them, so no client ever sees a snapshot at server time 0 (the first level's first is at 300).
const SPAWN_WARMUP_MS: i32 = 3 * 100;

impl Sessions {
    pub fn new(profile: &ServerProfile, config: SessionConfig, now: u64) -> Self {
        let game = Match::new(profile, config.seed, SPAWN_WARMUP_MS, config.pace);
        let map = game.map(profile, config.seed as i32, config.visibility);
        let server_config = ServerConfig {
            max_clients: profile.public_slots().min(64) as u8,
            timeout_ms: ServerConfig::default().timeout_ms,
            seed: config.seed,
            password: profile.password.then(|| LAB_PASSWORD.into()),
        };
        let mut server = Server::new(server_config, map);
        server.reserve(game.numbers());
        server.offer_file(README, readme(profile));
        Self {
            rng: SmallRng::seed_from_u64(config.seed ^ 0x5e55),
            config,
            server,
            game,
            map_started: now,
            intermission: false,
            last_frame: now,
            watchers: BTreeMap::new(),
            private_clients: profile.private_clients.min(64) as u8,
            sent: None,
        }
    }

    /// The current map's gamestate content.
    pub fn map(&self) -> &protocol::cod::server::Map {
        self.server.map()
    }

    /// Keeps every snapshot sent from now on (see [`Self::take_sent`]).
    pub fn record_snapshots(&mut self) {
        self.sent = Some(Vec::new());
    }

    pub fn take_sent(&mut self) -> Vec<(u8, Box<Snapshot>)> {
        self.sent.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Whether anyone is connected (the match runs only then).
    pub fn is_active(&self) -> bool {
        self.server.sessions().next().is_some()
    }

    /// Takes a `getchallenge`, a `connect` or a sequenced datagram.
    pub fn handle_datagram(
        &mut self,
        now: u64,
        from: SocketAddr,
        datagram: &[u8],
        profile: &mut ServerProfile,
    ) {
        self.server.handle_datagram(now, from, datagram);
        self.events(now, profile);
    }

    /// Runs the server frames due by `now`: the match, then every message due.
    pub fn tick(&mut self, now: u64, profile: &mut ServerProfile) {
        let frame_ms = u64::from(tuning::server_frame_ms(SV_FPS));
        if let Some(limit) = self.config.map_time_ms {
            let ran = now.saturating_sub(self.map_started);
            if ran >= limit + self.config.intermission_ms {
                self.next_map(now, profile);
            } else if ran >= limit && !self.intermission {
                self.begin_intermission(profile);
            }
        }
        // After a stretch with nobody watching, the match resumes rather than catching up.
        if now.saturating_sub(self.last_frame) > 10 * frame_ms {
            self.last_frame = now - frame_ms;
        }
        while now.saturating_sub(self.last_frame) >= frame_ms {
            self.last_frame += frame_ms;
            if self.intermission {
                self.game.hold(frame_ms as i32);
                continue;
            }
            let taken: Vec<u8> = self.watchers.keys().copied().collect();
            let step = self.game.step(frame_ms as i32, profile, &taken);
            for command in step.commands {
                self.server.broadcast(&command);
            }
            for (index, value) in step.configstrings {
                self.server.set_configstring(index, &value);
            }
            for victim in step.deaths {
                self.scoreboard_to_followers(victim, profile);
            }
            self.write_truth(&step.kills);
        }
        self.server.reserve(self.game.numbers());
        self.idle_kick(now);
        let mut frame = self.game.frame();
        let targets = self.game.numbers();
        for (&number, w) in &mut self.watchers {
            if let Mode::Follow(target) = w.mode {
                if !targets.contains(&target) {
                    w.mode = Mode::ARRIVAL;
                }
            }
            frame
                .clients
                .insert(number, client_state(&w.name, TEAM_SPECTATOR));
            let state = if self.intermission {
                intermission_state(&self.game, number)
            } else {
                spectator_state(&self.game, number, w.mode)
            };
            frame.players.insert(number, state);
        }
        self.server.frame(now, &frame);
        self.events(now, profile);
    }

    fn write_truth(&self, kills: &[(u8, u8)]) {
        let Some(truth) = &self.config.truth else {
            return;
        };
        let soldiers: Vec<serde_json::Value> = self
            .game
            .soldiers()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "client": s.number,
                    "name": s.name,
                    "team": s.team,
                    "origin": s.origin,
                    "alive": s.alive(),
                })
            })
            .collect();
        let kills: Vec<serde_json::Value> = kills
            .iter()
            .map(|(killer, victim)| serde_json::json!({"killer": killer, "victim": victim}))
            .collect();
        let line = serde_json::json!({
            "server": self.config.label,
            "server_time": self.game.time(),
            "soldiers": soldiers,
            "kills": kills,
        });
        truth.write(&line.to_string());
    }

    fn sessions_list(&self) -> Vec<(u8, String)> {
        self.watchers
            .iter()
            .map(|(&n, w)| (n, w.name.clone()))
            .collect()
    }

    /// The map's time is up: as stock's gametype scripts end a map, every client goes to the
    /// intermission (spectators stop following) and is sent the final scoreboard.
    fn begin_intermission(&mut self, profile: &ServerProfile) {
        self.intermission = true;
        let scores = self.game.scores(profile, &self.sessions_list());
        let watchers: Vec<u8> = self.watchers.keys().copied().collect();
        for client in watchers {
            self.server.command(client, &scores);
        }
    }

    fn scoreboard_to_followers(&mut self, victim: u8, profile: &ServerProfile) {
        let followers: Vec<u8> = self
            .watchers
            .iter()
            .filter(|(_, w)| w.mode == Mode::Follow(victim))
            .map(|(&n, _)| n)
            .collect();
        if followers.is_empty() {
            return;
        }
        let scores = self.game.scores(profile, &self.sessions_list());
        for client in followers {
            self.server.command(client, &scores);
        }
    }

    /// g_inactivityspectator: a warning 10 s before, then the drop. Private slots are exempt.
    fn idle_kick(&mut self, now: u64) {
        let limit = self.config.inactivity_spectator_ms;
        if limit == 0 {
            return;
        }
        let mut kicked = Vec::new();
        for (&number, w) in &mut self.watchers {
            if number < self.private_clients {
                continue;
            }
            let idle = now.saturating_sub(w.active_at);
            if idle >= limit {
                kicked.push(number);
            } else if idle + INACTIVITY_WARNING_MS >= limit && !w.warned {
                w.warned = true;
                self.server
                    .command(number, "c \"GAME_INACTIVEDROPWARNING\"");
            }
        }
        for number in kicked {
            // The drop reason's stock text was not traced.
            self.server.drop_client(number, "GAME_DROPPEDFORINACTIVITY");
        }
    }

    fn next_map(&mut self, now: u64, profile: &mut ServerProfile) {
        let next = MAPS
            .iter()
            .filter(|m| **m != profile.mapname)
            .copied()
            .collect::<Vec<_>>()
            .choose(&mut self.rng)
            .copied()
            .unwrap_or("mp_foy");
        self.load_map(now, profile, next);
    }

    /// Loads `name` now (time up, or an operator's `map`): a new gamestate to every client.
    pub fn load_map(&mut self, now: u64, profile: &mut ServerProfile, name: &str) {
        profile.mapname = name.to_owned();
        // A new level starts every score at zero, as stock's gametype scripts do.
        for player in &mut profile.players {
            player.score = 0;
        }
        self.game = Match::new(
            profile,
            self.config.seed ^ now,
            self.game.time() + SPAWN_WARMUP_MS,
            self.config.pace,
        );
        let map = self.game.map(
            profile,
            (self.config.seed ^ now) as i32,
            self.config.visibility,
        );
        self.server
            .change_map(now, map, &profile.mapname, &profile.gametype);
        self.server.offer_file(README, readme(profile));
        self.map_started = now;
        self.intermission = false;
        for w in self.watchers.values_mut() {
            w.mode = Mode::ARRIVAL;
        }
    }

    /// An operator's `say`: every client reads it in its chat, as stock sends it.
    pub fn say(&mut self, text: &str) {
        self.server.broadcast(&format!("h \"\x15console: {text}\""));
    }

    /// SpectatorThink for one user command.
    fn think(&mut self, now: u64, client: u8, cmd: &UserCmd) {
        let targets = self.game.numbers();
        let game = &self.game;
        let Some(w) = self.watchers.get_mut(&client) else {
            return;
        };
        let pressed = cmd.buttons & !w.buttons;
        let current = match w.mode {
            Mode::Follow(n) => Some(n),
            Mode::Free { .. } => None,
        };
        if pressed & BUTTON_FIRE != 0 {
            if let Some(next) = cycle(current, 1, &targets) {
                w.mode = Mode::Follow(next);
            }
        } else if pressed & BUTTON_MELEE != 0 {
            if let Some(next) = cycle(current, -1, &targets) {
                w.mode = Mode::Follow(next);
            }
        }
        if (cmd.buttons ^ w.buttons) & BUTTON_ADS != 0 {
            if let Some(ps) = current.and_then(|n| game.soldier_state(n)) {
                // Free-fly from the target's eye, 40 units back and 10 up.
                let yaw = ps.get_f32(PlayerStateField::VIEWANGLES_1);
                let (sin, cos) = yaw.to_radians().sin_cos();
                let eye = ps.origin();
                let origin = [
                    eye[0] - 40.0 * cos,
                    eye[1] - 40.0 * sin,
                    eye[2] + crate::game::VIEW_HEIGHT + 10.0,
                ];
                w.mode = Mode::Free { origin, yaw };
            }
        }
        w.buttons = cmd.buttons;
        if cmd.forward != 0 || cmd.right != 0 || cmd.up != 0 || cmd.buttons & BUTTON_FIRE != 0 {
            w.active_at = now;
            w.warned = false;
        }
        let dt = w
            .last_command_time
            .map_or(0, |t| cmd.server_time.wrapping_sub(t).clamp(0, 100));
        w.last_command_time = Some(cmd.server_time);
        if let Mode::Free { origin, yaw } = &mut w.mode {
            *yaw = angle16_decode(cmd.angles[1] as u16).rem_euclid(360.0);
            let (sin, cos) = yaw.to_radians().sin_cos();
            let step = SPECTATOR_SPEED * dt as f32 / 1000.0;
            let forward = f32::from(cmd.forward) / 127.0;
            let right = f32::from(cmd.right) / 127.0;
            origin[0] += step * (forward * cos + right * sin);
            origin[1] += step * (forward * sin - right * cos);
            origin[2] += step * f32::from(cmd.up) / 127.0;
        }
    }

    fn name(&self, client: u8) -> String {
        self.watchers
            .get(&client)
            .map_or_else(|| "player".into(), |w| w.name.clone())
    }

    fn events(&mut self, now: u64, profile: &mut ServerProfile) {
        while let Some(event) = self.server.poll_event() {
            match event {
                ServerEvent::Connected { client, userinfo } => {
                    self.config.connects.fetch_add(1, Ordering::Relaxed);
                    let name = userinfo.get("name").unwrap_or("player").to_owned();
                    profile.leave_spectator(&name);
                    profile.join_spectator(&name);
                    // The connect notice's stock wording was not traced.
                    self.server
                        .broadcast(&format!("e \"\x15{name}^7 \x14GAME_CONNECTED\""));
                    self.watchers.insert(client, Watcher::new(name, now));
                }
                ServerEvent::PortTranslated { .. } => {
                    self.config.translated_ports.fetch_add(1, Ordering::Relaxed);
                }
                ServerEvent::Active { client } => {
                    let name = self.name(client);
                    if let Some(p) = profile
                        .players
                        .iter_mut()
                        .find(|p| p.spectator && p.name == name)
                    {
                        // Loopback: the round trip is well under a frame.
                        p.ping = 5;
                    }
                }
                ServerEvent::Command { client, text } => {
                    self.client_command(client, &text, profile)
                }
                ServerEvent::Disconnected { client, reason } => {
                    if let Some(w) = self.watchers.remove(&client) {
                        profile.leave_spectator(&w.name);
                        let why = match reason.as_str() {
                            "disconnected" => "GAME_DISCONNECTED",
                            "timed out" => "EXE_TIMEDOUT",
                            other => other,
                        };
                        self.server
                            .broadcast(&format!("e \"\x15{}^7 \x14{why}\"", w.name));
                    }
                }
                ServerEvent::SnapshotSent {
                    client, snapshot, ..
                } => {
                    if let Some(sent) = self.sent.as_mut() {
                        sent.push((client, snapshot));
                    }
                }
                ServerEvent::Moves { client, commands } => {
                    for cmd in &commands {
                        self.think(now, client, cmd);
                    }
                }
            }
        }
    }

    /// ClientCommand for a spectator: chat, the scoreboard and follow cycling.
    fn client_command(&mut self, client: u8, text: &str, profile: &ServerProfile) {
        let (verb, rest) = text.split_once(' ').unwrap_or((text, ""));
        let name = self.name(client);
        match verb {
            "say" | "say_team" => {
                let line = rest.trim().trim_matches('"');
                let spectator = "\x15(\x14GAME_SPECTATOR\x15)";
                let team_chat = verb == "say_team";
                let command = chat_command(team_chat, spectator, TEAM_SPECTATOR, &name, line);
                if team_chat {
                    // A spectator's team is the other spectators.
                    let spectators: Vec<u8> = self.watchers.keys().copied().collect();
                    for n in spectators {
                        self.server.command(n, &command);
                    }
                } else {
                    self.server.broadcast(&command);
                }
            }
            "score" => {
                let scores = self.game.scores(profile, &self.sessions_list());
                self.server.command(client, &scores);
            }
            "follownext" | "followprev" => {
                let dir = if verb == "follownext" { 1 } else { -1 };
                let targets = self.game.numbers();
                if let Some(w) = self.watchers.get_mut(&client) {
                    let current = match w.mode {
                        Mode::Follow(n) => Some(n),
                        Mode::Free { .. } => None,
                    };
                    if let Some(next) = cycle(current, dir, &targets) {
                        w.mode = Mode::Follow(next);
                    }
                }
            }
            // The stock reply to an unknown command was not traced.
            _ => self.server.command(
                client,
                &format!("e \"\x14GAME_UNKNOWNCLIENTCOMMAND\x15 {verb}\""),
            ),
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.server.poll_transmit()
    }
}

/// A spectator's player state: the followed soldier's own (flagged as followed), or its own
/// free-fly camera.
/// A client's own state at intermission: at the spectators' spawn, following nobody.
fn intermission_state(game: &Match, number: u8) -> PlayerState {
    let mut ps = spectator_state(game, number, Mode::ARRIVAL);
    ps.set(PlayerStateField::PM_TYPE, PM_INTERMISSION);
    ps.set(PlayerStateField::PM_FLAGS, 0);
    ps
}

fn spectator_state(game: &Match, number: u8, mode: Mode) -> PlayerState {
    if let Mode::Follow(target) = mode {
        if let Some(mut ps) = game.soldier_state(target) {
            ps.set(
                PlayerStateField::PM_FLAGS,
                PSF_FOLLOWING | PSF_FOLLOWABLE | PSF_FREELOOK,
            );
            return ps;
        }
    }
    let (origin, yaw) = match mode {
        Mode::Free { origin, yaw } => (origin, yaw),
        Mode::Follow(_) => (SPECTATOR_SPAWN, 90.0),
    };
    let mut ps = PlayerState::default();
    ps.set(PlayerStateField::COMMAND_TIME, game.time() as u32);
    ps.set(PlayerStateField::PM_TYPE, PM_SPECTATOR);
    ps.set(PlayerStateField::PM_FLAGS, PSF_FOLLOWABLE);
    ps.set(PlayerStateField::SPEED, SPECTATOR_SPEED as u32);
    ps.set(PlayerStateField::CLIENT_NUM, u32::from(number));
    ps.set_origin(origin);
    ps.set(PlayerStateField::VIEWANGLES_1, angle(yaw));
    ps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_cycling_wraps_and_skips_what_cannot_be_followed() {
        let targets = [3, 40, 63];
        assert_eq!(cycle(None, 1, &targets), Some(3));
        assert_eq!(cycle(Some(3), 1, &targets), Some(40));
        assert_eq!(cycle(Some(63), 1, &targets), Some(3));
        assert_eq!(cycle(Some(3), -1, &targets), Some(63));
        assert_eq!(cycle(Some(3), 1, &[]), None);
    }
}
