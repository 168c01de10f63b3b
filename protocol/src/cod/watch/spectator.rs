//! Watching a match from one spectator slot (SPECTATOR-NOTES §2–§5): the stock spectator's
//! player-state flags, follow cycling by the fire button, and the match model a watcher keeps
//! from the gamestate, snapshots and server commands.
//!
//! A stock server sends a spectator only the entities visible from its view point, but every
//! client's state (name, team) in every snapshot. So the model keeps each player's last sighting
//! and its server time, and a watcher cycles its follow target ([`FollowCycle`]) to see as much
//! of the field as one slot can: each followed player shows what it sees, and itself through
//! the player state (the followed player is never sent as an entity).

use crate::cod::fields::ClientField;
use crate::cod::fields::EntityField;
use crate::cod::fields::PlayerStateField;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::commands::{display_text, ServerCommand};
use super::obituary::{weapon_name, Cause, Obituary, MEANS_OF_DEATH};
use crate::cod::client::{Client, Event, State};
use crate::cod::entity::{EntityState, ET_VEHICLE};
use crate::cod::fields::Named;
use crate::cod::gamestate::Gamestate;
use crate::cod::info::InfoString;
use crate::cod::playerstate::PlayerState;
use crate::cod::snapshot::Snapshot;
use crate::relay_api::watch::{
    yaw_byte, FeedItem, MatchView, Team, WatchPlayer, WatchVehicle, FEED_KEPT, UNSCORED,
};

/// `eType` of a player.
pub const ET_PLAYER: u32 = 1;
/// `eFlags` of a dead player.
pub const EF_DEAD: u32 = 0x1;
/// `pm_type` of a free-flying spectator.
pub const PM_SPECTATOR: u32 = 4;
/// `pm_type` from which a player is dead.
pub const PM_DEAD: u32 = 6;
/// `pm_flags` while following another client.
pub const PSF_FOLLOWING: u32 = 0x40000;
/// `pm_flags` of a client that plays (or lies dead), not one that spectates.
pub const PSF_ACTIVE_PLAYER: u32 = 0x80000;
/// `pm_flags`: some team may be followed (set while following by choice).
pub const PSF_FOLLOWABLE: u32 = 0x100000;
/// `pm_flags`: free-fly is allowed (set while following by choice).
pub const PSF_FREELOOK: u32 = 0x200000;
/// usercmd `buttons`: fire (follow the next client), melee (the previous), ADS (free-fly).
pub const BUTTON_FIRE: u8 = 0x01;
pub const BUTTON_ADS: u8 = 0x10;
pub const BUTTON_MELEE: u8 = 0x20;
/// Client commands within this long of the previous one are ignored (sv_floodProtect).
pub const FLOOD_MS: u64 = 800;

/// Configstrings a watcher reads.
pub use crate::cod::gamestate::CS_SERVERINFO;
pub const CS_AXIS_SCORE: u16 = 5;
pub const CS_ALLIES_SCORE: u16 = 6;
pub const CS_WEAPONS: u16 = 7;
pub const CS_FOG: u16 = 13;
pub const CS_LEVEL_START: u16 = 14;

/// How often a watcher presses fire to step to the next follow target. Buttons are not flood
/// controlled, and each press shows the next snapshot from another player's eyes.
pub const FOLLOW_STEP_MS: u64 = 100;
/// How often a watcher asks for the scoreboard: a spectator gets `b` only when it sends
/// `score` (flood controlled at 800 ms) or its followed player dies.
pub const SCORE_EVERY_MS: u64 = 5000;

/// A watcher's input to its session: fire every [`FOLLOW_STEP_MS`] (released in between, so
/// each press is a rising edge) when it follows, and `score` every [`SCORE_EVERY_MS`].
#[derive(Clone, Debug)]
pub struct SpectatorInput {
    follow: bool,
    next_press: u64,
    next_score: u64,
}

impl SpectatorInput {
    pub fn new(follow: bool) -> Self {
        Self {
            follow,
            next_press: 0,
            next_score: 0,
        }
    }

    /// Gives an active session its input for `now`; call before draining its transmits.
    pub fn drive(&mut self, now: u64, client: &mut Client) {
        if client.state() != State::Active {
            return;
        }
        if self.follow && now >= self.next_press {
            self.next_press = now + FOLLOW_STEP_MS;
            client.press(BUTTON_FIRE);
        }
        if now >= self.next_score {
            self.next_score = now + SCORE_EVERY_MS;
            // A full command queue only delays the next scoreboard.
            let _ = client.command("score");
        }
    }
}

/// The opaque fog distance configstring 13 gives, if fog is on: 7 floats, the 3rd at least 1,
/// the distance the 2nd.
pub fn fog_distance(cs: &str) -> Option<f32> {
    let values: Vec<f32> = cs
        .split_ascii_whitespace()
        .map(|v| v.parse::<f32>())
        .collect::<Result<_, _>>()
        .ok()?;
    (values.len() == 7 && values[2] >= 1.0 && values[1] > 0.0).then_some(values[1])
}

/// The match a watcher has seen: fed with every session event, read as a [`MatchView`].
#[derive(Clone, Debug, Default)]
pub struct MatchModel {
    view: MatchView,
    players: BTreeMap<u8, WatchPlayer>,
    vehicles: BTreeMap<u16, WatchVehicle>,
    weapons: String,
    /// Obituary entities of the previous snapshot: an event counts when it first appears.
    events: BTreeSet<u16>,
    own_client: Option<u8>,
    followed: Option<u8>,
    /// Feed items ever pushed, so a reader can tell which are new.
    pushed: u64,
}

impl MatchModel {
    pub fn new() -> Self {
        Self::default()
    }

    /// The match as it stands.
    pub fn view(&self) -> MatchView {
        let mut view = self.view.clone();
        view.players = self.players.values().cloned().collect();
        view.vehicles = self.vehicles.values().cloned().collect();
        view
    }

    /// The recent feed, oldest first, and how many items were ever pushed to it.
    pub fn feed(&self) -> (&[FeedItem], u64) {
        (&self.view.feed, self.pushed)
    }

    /// A player's name, if the match has shown them.
    pub fn name_of(&self, client: u8) -> Option<&str> {
        self.players.get(&client).map(|p| p.name.as_str())
    }

    /// A player as the match shows them now.
    pub fn player(&self, client: u8) -> Option<&WatchPlayer> {
        self.players.get(&client)
    }

    /// Every client the latest snapshot named, by client number.
    pub fn players(&self) -> impl Iterator<Item = &WatchPlayer> {
        self.players.values()
    }

    /// What changes only with the map: hostname, map, gametype, the level's start.
    pub fn header(&self) -> &crate::relay_api::watch::Header {
        &self.view.header
    }

    /// The team scores (axis, allies) as the server last gave them.
    pub fn team_scores(&self) -> (i32, i32) {
        (self.view.axis_score, self.view.allies_score)
    }

    /// This session's own client number.
    pub fn own_client(&self) -> Option<u8> {
        self.own_client
    }

    /// The client the latest snapshot followed.
    pub fn followed(&self) -> Option<u8> {
        self.followed
    }

    /// Takes one session event.
    pub fn handle(&mut self, event: &Event) {
        match event {
            Event::Gamestate(g) => self.gamestate(g),
            Event::Configstring { index, value } => self.configstring(*index, value),
            Event::ServerCommand { text, .. } => self.command(text),
            Event::Snapshot(s) => self.snapshot(s),
            Event::LoadingNewMap { mapname, gametype } => {
                self.view.header.map = mapname.clone();
                self.view.header.gametype = gametype.clone();
                let text = alloc::format!("Loading {mapname} ({gametype})");
                self.message(text);
            }
            _ => {}
        }
    }

    fn gamestate(&mut self, g: &Gamestate) {
        self.own_client = u8::try_from(g.client_num).ok();
        self.vehicles.clear();
        self.events.clear();
        for player in self.players.values_mut() {
            player.seen = None;
        }
        for (index, value) in &g.configstrings {
            self.configstring(*index, value);
        }
        let text = alloc::format!(
            "Map {} ({})",
            self.view.header.map,
            self.view.header.gametype
        );
        self.message(text);
    }

    fn configstring(&mut self, index: u16, value: &str) {
        let number = || value.trim().parse::<i32>().unwrap_or(0);
        match index {
            CS_SERVERINFO => {
                if let Ok(info) = InfoString::parse(value, 8192) {
                    let get = |k: &str| info.get(k).unwrap_or_default().to_string();
                    self.view.header.hostname = get("sv_hostname");
                    self.view.header.map = get("mapname");
                    self.view.header.gametype = get("g_gametype");
                }
            }
            CS_AXIS_SCORE => self.view.axis_score = number(),
            CS_ALLIES_SCORE => self.view.allies_score = number(),
            CS_WEAPONS => self.weapons = value.into(),
            CS_LEVEL_START => self.view.header.level_start = number(),
            _ => {}
        }
    }

    fn push(&mut self, item: FeedItem) {
        self.pushed += 1;
        self.view.feed.push(item);
        let excess = self.view.feed.len().saturating_sub(FEED_KEPT);
        self.view.feed.drain(..excess);
    }

    fn message(&mut self, text: String) {
        let time = self.view.server_time;
        self.push(FeedItem::Message { time, text });
    }

    fn command(&mut self, text: &str) {
        let time = self.view.server_time;
        match ServerCommand::parse(text) {
            ServerCommand::Scores(scores) => {
                self.view.axis_score = scores.axis;
                self.view.allies_score = scores.allies;
                for row in scores.rows {
                    if let Some(p) = self.players.get_mut(&row.client) {
                        p.score = row.score;
                        p.deaths = row.deaths;
                        p.ping = row.ping;
                    }
                }
            }
            ServerCommand::Chat(t) | ServerCommand::TeamChat(t) => {
                let team = text.starts_with('i');
                self.push(FeedItem::Chat {
                    time,
                    text: display_text(&t),
                    team,
                });
            }
            ServerCommand::Announcement(t)
            | ServerCommand::GameMessage(t)
            | ServerCommand::ScriptMessage(t)
            | ServerCommand::BoldMessage(t) => self.message(display_text(&t)),
            ServerCommand::MapRestart { .. } => self.message("Map restarted".into()),
            _ => {}
        }
    }

    fn snapshot(&mut self, s: &Snapshot) {
        let time = s.server_time;
        self.view.server_time = time;
        // Names and teams arrive for every client in every snapshot.
        self.players.retain(|n, _| s.clients.contains_key(n));
        for (&number, c) in &s.clients {
            // Score, deaths and ping come only with the server's scoreboard (`b`): until its first
            // row for the player they are not known, which a clip that starts mid-match shows.
            let p = self.players.entry(number).or_insert_with(|| WatchPlayer {
                client: number,
                alive: true,
                ping: UNSCORED,
                ..WatchPlayer::default()
            });
            p.name = c.name();
            p.team = Team::from_wire(c.get(ClientField::TEAM));
        }
        self.followed = None;
        self.follow_view(&s.player, time);
        let mut events = BTreeSet::new();
        self.vehicles.retain(|n, _| s.entities.contains_key(n));
        for e in s.entities.values() {
            match e.get(EntityField::E_TYPE) {
                ET_PLAYER if e.number < 64 => self.seen_entity(e, time),
                ET_VEHICLE => {
                    self.vehicles.insert(e.number, vehicle(e, time));
                }
                _ => {
                    if let Some(o) = Obituary::from_entity(e) {
                        events.insert(e.number);
                        if !self.events.contains(&e.number) {
                            self.obituary(o, time);
                        }
                    }
                }
            }
        }
        self.events = events;
    }

    /// While following, the player state is the followed player's own.
    fn follow_view(&mut self, ps: &PlayerState, time: i32) {
        if ps.get(PlayerStateField::PM_FLAGS) & PSF_FOLLOWING == 0 {
            return;
        }
        let number = ps.get(PlayerStateField::CLIENT_NUM) as u8;
        if Some(number) == self.own_client {
            return;
        }
        self.followed = Some(number);
        if let Some(p) = self.players.get_mut(&number) {
            p.origin = ps.origin().map(|v| v as i32);
            p.yaw = yaw_byte(ps.get_f32(PlayerStateField::VIEWANGLES_1));
            p.weapon = ps.get(PlayerStateField::WEAPON) as u8;
            p.alive = ps.get(PlayerStateField::PM_TYPE) < PM_DEAD;
            p.seen = Some(time);
        }
    }

    fn seen_entity(&mut self, e: &EntityState, time: i32) {
        if let Some(p) = self.players.get_mut(&(e.number as u8)) {
            p.origin = e.origin().map(|v| v as i32);
            p.yaw = yaw_byte(e.get_f32(EntityField::APOS_TR_BASE_1));
            p.weapon = e.get(EntityField::WEAPON) as u8;
            p.alive = e.get(EntityField::E_FLAGS) & EF_DEAD == 0;
            p.seen = Some(time);
        }
    }

    fn obituary(&mut self, o: Obituary, time: i32) {
        let weapon = match o.cause {
            Cause::Weapon(w) => weapon_name(&self.weapons, w)
                .map(String::from)
                .unwrap_or_else(|| alloc::format!("weapon {w}")),
            Cause::Means(m) => MEANS_OF_DEATH
                .get(usize::from(m))
                .copied()
                .unwrap_or("MOD_UNKNOWN")
                .into(),
        };
        let victim = o.victim as u8;
        if let Some(p) = self.players.get_mut(&victim) {
            p.alive = false;
        }
        self.push(FeedItem::Kill {
            time,
            attacker: o.attacker.and_then(|a| u8::try_from(a).ok()),
            victim,
            weapon,
        });
    }
}

fn vehicle(e: &EntityState, time: i32) -> WatchVehicle {
    WatchVehicle {
        number: e.number,
        model: e.get(EntityField::INDEX) as u16,
        origin: e.origin().map(|v| v as i32),
        yaw: yaw_byte(e.get_f32(EntityField::APOS_TR_BASE_1)),
        seen: time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::snapshot::ClientState;
    use alloc::boxed::Box;

    fn client(name: &str, team: u32) -> ClientState {
        let mut c = ClientState::default();
        c.set_name(name);
        c.set(ClientField::TEAM, team);
        c
    }

    fn soldier(number: u16, x: f32, dead: bool) -> EntityState {
        let mut e = EntityState::zero(number);
        e.set(EntityField::E_TYPE, ET_PLAYER);
        e.set_origin([x, 2.0, 0.0]);
        e.set(EntityField::E_FLAGS, u32::from(dead));
        e
    }

    fn gamestate() -> Gamestate {
        let mut g = Gamestate {
            server_command_sequence: 0,
            configstrings: BTreeMap::new(),
            baselines: BTreeMap::new(),
            client_num: 0,
            checksum_feed: 0,
        };
        g.configstrings.insert(
            0,
            "\\sv_hostname\\^1Lab\\mapname\\mp_foy\\g_gametype\\tdm".into(),
        );
        g.configstrings
            .insert(7, "bar_mp kar98k_mp m1garand_mp".into());
        g.configstrings.insert(14, "4000".into());
        g
    }

    #[test]
    fn the_model_merges_views_and_reads_the_stock_vocabulary() {
        let mut m = MatchModel::new();
        m.handle(&Event::Gamestate(Box::new(gamestate())));
        let mut s = Snapshot {
            server_time: 5000,
            delta_num: 0,
            flags: 0,
            player: PlayerState::default(),
            entities: BTreeMap::new(),
            clients: BTreeMap::new(),
        };
        s.clients.insert(0, client("Muster", 3));
        s.clients.insert(5, client("^2Ghost", 1));
        s.clients.insert(9, client("Dutch", 2));
        // Following 9: its own state carries its position; 5 is in sight.
        s.player.set(PlayerStateField::PM_FLAGS, PSF_FOLLOWING);
        s.player.set(PlayerStateField::CLIENT_NUM, 9);
        s.player.set_f32(PlayerStateField::ORIGIN_0, 300.0);
        s.player.set_f32(PlayerStateField::VIEWANGLES_1, 90.0);
        s.entities.insert(5, soldier(5, -40.0, false));
        m.handle(&Event::Snapshot(Box::new(s.clone())));
        let view = m.view();
        assert_eq!(view.header.map, "mp_foy");
        assert_eq!(view.header.level_start, 4000);
        assert_eq!(view.players.len(), 3);
        let p9 = &view.players[2];
        assert_eq!(
            (p9.team, p9.origin[0], p9.yaw, p9.seen),
            (Team::Allies, 300, 64, Some(5000))
        );
        assert_eq!(view.players[1].origin, [-40, 2, 0]);
        assert_eq!(view.players[0].seen, None);
        assert_eq!(m.followed(), Some(9));
        // No scoreboard row yet: not known, which is neither a score of 0 nor a bot's ping.
        assert!(view.players.iter().all(|p| p.ping == UNSCORED));

        // A later view that does not see 5 keeps its last sighting; an obituary counts once.
        s.server_time = 5050;
        s.entities.clear();
        let o = Obituary {
            victim: 5,
            attacker: Some(9),
            cause: Cause::Weapon(2),
        };
        s.entities.insert(200, o.to_entity(200));
        m.handle(&Event::Snapshot(Box::new(s.clone())));
        s.server_time = 5100;
        m.handle(&Event::Snapshot(Box::new(s.clone())));
        m.handle(&Event::ServerCommand {
            sequence: 1,
            text: "b 2 3 1 9 4 50 0 0 5 0 0 1 0".into(),
        });
        m.handle(&Event::ServerCommand {
            sequence: 2,
            text: "h \"\x15\x15^8Dutch^7: ^7gg\"".into(),
        });
        let view = m.view();
        let kills: Vec<&FeedItem> = view
            .feed
            .iter()
            .filter(|f| matches!(f, FeedItem::Kill { .. }))
            .collect();
        assert_eq!(
            kills,
            [&FeedItem::Kill {
                time: 5050,
                attacker: Some(9),
                victim: 5,
                weapon: "kar98k_mp".into()
            }]
        );
        assert_eq!(view.players[1].seen, Some(5000));
        assert!(!view.players[1].alive);
        assert_eq!((view.axis_score, view.allies_score), (3, 1));
        assert_eq!((view.players[2].score, view.players[2].ping), (4, 50));
        assert_eq!(view.players[0].ping, UNSCORED, "no row for client 0");
        assert_eq!(
            view.feed.last(),
            Some(&FeedItem::Chat {
                time: 5100,
                text: "^8Dutch^7: ^7gg".into(),
                team: false
            })
        );
        // A client that left is gone.
        s.clients.remove(&5);
        m.handle(&Event::Snapshot(Box::new(s)));
        assert_eq!(m.view().players.len(), 2);
    }

    #[test]
    fn fog_and_follow_presses() {
        assert_eq!(fog_distance("0 1500 1 0.5 0.5 0.6 0"), Some(1500.0));
        assert_eq!(fog_distance("0 1500 0 0.5 0.5 0.6 0"), None);
        assert_eq!(fog_distance("garbage"), None);
        let mut input = SpectatorInput::new(true);
        let mut client = Client::new(crate::cod::client::ClientConfig::default(), 0);
        // Not active yet: nothing is pressed or asked.
        input.drive(0, &mut client);
        assert_eq!(input.next_press, 0);
    }
}
