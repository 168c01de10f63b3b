//! What one lab server is: its settings and its players, generated to differ the way real ones do,
//! and the `infoResponse` / `statusResponse` a stock UO 1.51 server would build from them.

use protocol::cod::info::{InfoString, MAX_BIG_INFO_STRING, MAX_INFO_STRING};
use protocol::cod::oob::{PlayerLine, Status};
use protocol::cod::PROTOCOL_VERSION;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::Rng;

pub const MAPS: &[&str] = &[
    "mp_arnhem",
    "mp_berlin",
    "mp_cassino",
    "mp_foy",
    "mp_italy",
    "mp_kharkov",
    "mp_kursk",
    "mp_ponyri",
    "mp_rhinevalley",
    "mp_sicily",
    "mp_uo_carentan",
    "mp_uo_dawnville",
    "mp_uo_depot",
    "mp_uo_harbor",
    "mp_uo_hurtgen",
    "mp_uo_powcamp",
    "mp_uo_stanjel",
];
const GAMETYPES: &[&str] = &["dm", "tdm", "sd", "re", "bel", "hq", "ctf", "dom", "bas"];
/// `fs_game` values; most servers run the stock game.
const MODS: &[&str] = &["", "", "", "", "awe", "pam_uo", "uo_ext", "codam"];
const TAGS: &[&str] = &[
    "^1[^7EU^1]",
    "^4|^7NA^4|",
    "^3<^7DE^3>",
    "^2{^7UK^2}",
    "^5=^7PL^5=",
    "^6(^7FR^6)",
    "",
];
const TITLES: &[&str] = &[
    "^3Rifles Only",
    "^7Public ^1Tanks & Jeeps",
    "^2Clan Base",
    "^5Old School",
    "^1Hardcore ^7S&D",
    "^7Snipers ^6Paradise",
    "^2Newbies Welcome",
    "^4Vet ^7Squad",
    "^3Midnight ^7Ops",
];
const NAMES: &[&str] = &[
    "^1Sgt.^7Rock",
    "Pvt. Ryan",
    "^2Sniper ^7Joe",
    "^4Blue^7Falcon",
    "Hans",
    "^3Ivan^1Drago",
    "Kilroy",
    "^6Pink^7Panzer",
    "Dutch",
    "^5Frost",
    "Capt. Price",
    "^1K^2r^3a^4u^5t",
    "Mueller",
    "^7Lt. ^3Dan",
    "Tommy",
    "Wolfhound",
    "^2Ghost",
    "Brecourt",
    "^1Red^7Baron",
    "Nightingale",
];

/// One client a lab server reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabPlayer {
    /// The client slot (`clientkick` takes it): the lowest free one at join, kept until leaving.
    pub slot: u8,
    pub name: String,
    pub score: i32,
    /// Milliseconds; bots report 0, as stock shows them.
    pub ping: i32,
    pub bot: bool,
    /// A session watching through the lab's game server; churn leaves it alone.
    pub spectator: bool,
}

/// The settings and players of one lab server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerProfile {
    pub hostname: String,
    pub mapname: String,
    pub gametype: String,
    /// Mod directory; empty for the stock game.
    pub fs_game: String,
    pub password: bool,
    pub punkbuster: bool,
    pub pure: bool,
    pub max_clients: u32,
    pub private_clients: u32,
    pub friendly_fire: u32,
    pub killcam: bool,
    pub jeeps: bool,
    pub tanks: bool,
    pub min_ping: u32,
    pub max_ping: u32,
    pub allow_anonymous: bool,
    pub timeouts_allowed: u32,
    /// 2 for an Internet dedicated server, 0 for a listen server.
    pub dedicated: u32,
    pub players: Vec<LabPlayer>,
    /// Churn leaves the roster alone (scores and pings still move).
    pub fixed_roster: bool,
    /// The players this server usually has: churn moves its count about this, so a fleet's
    /// population is as large after an hour as at start (a soak measures the relay, not a
    /// fleet filling up).
    pub crowd: u32,
    /// Churn steps since the round began; scores start again from zero when a round ends.
    pub round_steps: u32,
}

/// Churn steps in a round: ten minutes at the lab's five-second churn, the lab's map time.
const ROUND_STEPS: u32 = 120;

impl ServerProfile {
    /// A server that differs from its neighbours the way a real fleet does.
    pub fn generate(index: usize, rng: &mut SmallRng) -> Self {
        let tag = TAGS.choose(rng).copied().unwrap_or_default();
        let title = TITLES.choose(rng).copied().unwrap_or_default();
        let max_clients = *[12u32, 16, 20, 24, 32, 40, 64].choose(rng).unwrap_or(&16);
        let mut profile = Self {
            hostname: format!("{tag} {title} ^7#{}", index + 1).trim().to_owned(),
            mapname: MAPS.choose(rng).copied().unwrap_or("mp_foy").to_owned(),
            gametype: GAMETYPES.choose(rng).copied().unwrap_or("tdm").to_owned(),
            fs_game: MODS.choose(rng).copied().unwrap_or_default().to_owned(),
            password: rng.random_bool(0.15),
            punkbuster: rng.random_bool(0.4),
            pure: rng.random_bool(0.7),
            max_clients,
            private_clients: if rng.random_bool(0.2) { 2 } else { 0 },
            friendly_fire: *[0u32, 0, 1, 2, 3].choose(rng).unwrap_or(&0),
            killcam: rng.random_bool(0.6),
            jeeps: rng.random_bool(0.5),
            tanks: rng.random_bool(0.4),
            min_ping: if rng.random_bool(0.1) { 20 } else { 0 },
            max_ping: if rng.random_bool(0.3) { 250 } else { 0 },
            allow_anonymous: rng.random_bool(0.1),
            timeouts_allowed: if rng.random_bool(0.2) { 2 } else { 0 },
            dedicated: if rng.random_bool(0.9) { 2 } else { 0 },
            players: Vec::new(),
            fixed_roster: false,
            crowd: 0,
            round_steps: 0,
        };
        // About a third of a real list is empty; a few servers are full.
        let target = match rng.random_range(0..10) {
            0..=2 => 0,
            3 => profile.public_slots(),
            _ => rng.random_range(1..=profile.public_slots()),
        };
        for _ in 0..target {
            profile.add_player(rng);
        }
        profile.crowd = target;
        profile
    }

    /// Slots open to the public: `sv_maxclients` less the private ones.
    pub fn public_slots(&self) -> u32 {
        self.max_clients - self.private_clients
    }

    /// Fills every public slot with human players (`filler1`, `filler2`...), so a `connect`
    /// meets a full server.
    pub fn fill_public_slots(&mut self) {
        let slots = self.public_slots() as usize;
        let mut n = 0;
        while self.players.len() < slots {
            n += 1;
            let slot = self.free_slot();
            self.join(LabPlayer {
                slot,
                name: format!("filler{n}"),
                score: 0,
                ping: 50,
                bot: false,
                spectator: false,
            });
        }
    }

    fn add_player(&mut self, rng: &mut SmallRng) {
        let bot = rng.random_bool(0.25);
        let base = NAMES.choose(rng).copied().unwrap_or("Player");
        let name = if bot {
            format!("bot{}", self.players.len())
        } else if self.players.iter().any(|p| p.name == base) {
            format!("{base}({})", self.players.len())
        } else {
            base.to_owned()
        };
        let slot = self.free_slot();
        self.join(LabPlayer {
            slot,
            name,
            score: rng.random_range(-2..40),
            ping: if bot { 0 } else { rng.random_range(15..220) },
            bot,
            spectator: false,
        });
    }

    /// Exactly `players` players (a quarter bots), on a server large enough for them and a few
    /// spectators; churn keeps the roster from then on.
    pub fn fill(&mut self, players: usize, rng: &mut SmallRng) {
        self.players.retain(|p| p.spectator);
        self.max_clients = self.max_clients.max(players as u32 + 4).min(64);
        self.private_clients = 0;
        self.password = false;
        while self.players.len() < players.min(60) {
            self.add_player(rng);
        }
        self.fixed_roster = true;
    }

    /// One step of a living server: players join and leave about the server's usual crowd,
    /// scores move and start again each round, pings jitter.
    pub fn churn(&mut self, rng: &mut SmallRng) {
        self.round_steps += 1;
        let round_over = self.round_steps >= ROUND_STEPS;
        if round_over {
            self.round_steps = 0;
        }
        for p in &mut self.players {
            p.score = if round_over {
                0
            } else {
                p.score + rng.random_range(-1..=3)
            };
            if !p.bot {
                p.ping = (p.ping + rng.random_range(-10..=10)).clamp(5, 400);
            }
        }
        if self.fixed_roster {
            return;
        }
        let playing = self.players.iter().filter(|p| !p.spectator).count() as u32;
        // Twice as likely to move toward the crowd as away from it; a server nobody plays on
        // sees an occasional visitor who soon leaves.
        let (join, leave) = match playing.cmp(&self.crowd) {
            _ if self.crowd == 0 && playing == 0 => (1.0 / 20.0, 0.0),
            std::cmp::Ordering::Less => (1.0 / 3.0, 1.0 / 6.0),
            std::cmp::Ordering::Greater => (1.0 / 6.0, 1.0 / 3.0),
            std::cmp::Ordering::Equal => (0.25, 0.25),
        };
        let roll: f64 = rng.random();
        if roll < leave {
            let playing: Vec<usize> = (0..self.players.len())
                .filter(|&i| !self.players[i].spectator)
                .collect();
            if let Some(&leaving) = playing.choose(rng) {
                self.players.remove(leaving);
            }
        } else if roll < leave + join && (self.players.len() as u32) < self.public_slots() {
            self.add_player(rng);
        }
    }

    /// A session joins the player list, as stock lists clients from CONNECTED on; its ping
    /// reads 999 (connecting) until it is active.
    pub fn join_spectator(&mut self, name: &str) {
        let slot = self.free_slot();
        self.join(LabPlayer {
            slot,
            name: name.to_owned(),
            score: 0,
            ping: 999,
            bot: false,
            spectator: true,
        });
    }

    /// The lowest slot nobody holds.
    fn free_slot(&self) -> u8 {
        (0..=u8::MAX)
            .find(|s| !self.players.iter().any(|p| p.slot == *s))
            .unwrap_or(u8::MAX)
    }

    /// Adds a client where its slot puts it: stock lists clients in slot order.
    fn join(&mut self, player: LabPlayer) {
        let at = self.players.partition_point(|p| p.slot < player.slot);
        self.players.insert(at, player);
    }

    /// A session leaves the player list.
    pub fn leave_spectator(&mut self, name: &str) {
        if let Some(i) = self
            .players
            .iter()
            .position(|p| p.spectator && p.name == name)
        {
            self.players.remove(i);
        }
    }

    /// Clients the server counts, bots included.
    /// The names of the players on the field (spectators not counted): what a watcher's
    /// scoreboard should list.
    pub fn roster(&self) -> std::collections::BTreeSet<String> {
        self.players
            .iter()
            .filter(|p| !p.spectator)
            .map(|p| p.name.clone())
            .collect()
    }

    pub fn clients(&self) -> u32 {
        self.players.len() as u32
    }

    /// The `infoResponse` information string, keys in the stock order: the always-present keys,
    /// and the conditional ones only when they apply (a zero or off setting is omitted).
    pub fn info_response(&self, challenge: Option<&str>) -> InfoString {
        let mut info = InfoString::new(MAX_INFO_STRING);
        let mut set = |k: &str, v: &str| {
            // Generated values never hold a backslash and stay far below the limit.
            info.set(k, v).expect("lab info strings are well-formed");
        };
        set("challenge", challenge.unwrap_or(""));
        set("protocol", &PROTOCOL_VERSION.to_string());
        set("hostname", &self.hostname);
        set("mapname", &self.mapname);
        if self.clients() > 0 {
            set("clients", &self.clients().to_string());
        }
        set("sv_maxclients", &self.public_slots().to_string());
        set("gametype", &self.gametype);
        if self.pure {
            set("pure", "1");
        }
        if self.min_ping > 0 {
            set("minPing", &self.min_ping.to_string());
        }
        if self.max_ping > 0 {
            set("maxPing", &self.max_ping.to_string());
        }
        if !self.fs_game.is_empty() {
            set("game", &self.fs_game);
        }
        if self.allow_anonymous {
            set("sv_allowAnonymous", "1");
        }
        if self.password {
            set("pswrd", "1");
        }
        if self.friendly_fire > 0 {
            set("ff", &self.friendly_fire.to_string());
        }
        if self.killcam {
            set("kc", "1");
        }
        set("hw", "1");
        set("mod", bool_str(!self.fs_game.is_empty()));
        if self.timeouts_allowed > 0 {
            set("timeoutsAllowed", &self.timeouts_allowed.to_string());
        }
        if self.jeeps {
            set("jps", "1");
        }
        if self.tanks {
            set("tnk", "1");
        }
        set("pb", bool_str(self.punkbuster));
        info
    }

    /// The `statusResponse` body: the server-info cvars, then `challenge`, `pswrd` and `mod`,
    /// then one line per connected client.
    pub fn status(&self, challenge: Option<&str>) -> Status {
        let mut info = InfoString::new(MAX_BIG_INFO_STRING);
        let mut set = |k: &str, v: &str| {
            info.set(k, v).expect("lab info strings are well-formed");
        };
        set("dedicated", &self.dedicated.to_string());
        if !self.fs_game.is_empty() {
            set("fs_game", &self.fs_game);
        }
        set("g_gametype", &self.gametype);
        set("gamename", "Call of Duty");
        set("mapname", &self.mapname);
        set("protocol", &PROTOCOL_VERSION.to_string());
        set("scr_allow_jeeps", bool_str(self.jeeps));
        set("scr_allow_tanks", bool_str(self.tanks));
        set("scr_friendlyfire", &self.friendly_fire.to_string());
        set("scr_killcam", bool_str(self.killcam));
        set("shortversion", "1.51");
        set("sv_allowAnonymous", bool_str(self.allow_anonymous));
        set("sv_floodProtect", "1");
        set("sv_hostname", &self.hostname);
        set("sv_maxclients", &self.max_clients.to_string());
        set("sv_maxPing", &self.max_ping.to_string());
        set("sv_maxRate", "25000");
        set("sv_minPing", &self.min_ping.to_string());
        set("sv_privateClients", &self.private_clients.to_string());
        set("sv_punkbuster", bool_str(self.punkbuster));
        set("sv_pure", bool_str(self.pure));
        set("g_timeoutsAllowed", &self.timeouts_allowed.to_string());
        set("version", "CoD:UO MP 1.51 build linux-i386");
        set("challenge", challenge.unwrap_or(""));
        set("pswrd", bool_str(self.password));
        set("mod", bool_str(!self.fs_game.is_empty()));
        Status {
            info,
            players: self
                .players
                .iter()
                .map(|p| PlayerLine {
                    score: p.score,
                    ping: p.ping,
                    name: p.name.clone(),
                })
                .collect(),
        }
    }
}

fn bool_str(b: bool) -> &'static str {
    if b {
        "1"
    } else {
        "0"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn info_response_has_every_always_key_in_order() {
        let mut rng = SmallRng::seed_from_u64(7);
        for i in 0..50 {
            let profile = ServerProfile::generate(i, &mut rng);
            let info = profile.info_response(Some("abc"));
            let keys: Vec<&str> = info.iter().map(|(k, _)| k).collect();
            assert_eq!(&keys[..4], ["challenge", "protocol", "hostname", "mapname"]);
            for key in ["gametype", "hw", "pb", "mod"] {
                assert!(keys.contains(&key), "{key} missing from {keys:?}");
            }
            assert_eq!(info.get("challenge"), Some("abc"));
            assert!(profile.clients() <= profile.public_slots());
        }
    }

    #[test]
    fn a_fleet_differs_like_a_real_one() {
        let mut rng = SmallRng::seed_from_u64(1);
        let fleet: Vec<_> = (0..100)
            .map(|i| ServerProfile::generate(i, &mut rng))
            .collect();
        assert!(fleet.iter().any(|p| p.password) && fleet.iter().any(|p| !p.password));
        assert!(fleet.iter().any(|p| p.punkbuster) && fleet.iter().any(|p| !p.punkbuster));
        assert!(fleet.iter().any(|p| p.players.is_empty()));
        assert!(fleet.iter().any(|p| p.clients() == p.public_slots()));
        assert!(fleet.iter().any(|p| p.players.iter().any(|pl| pl.bot)));
        assert!(fleet.iter().any(|p| !p.fs_game.is_empty()));
        assert!(fleet.iter().all(|p| p.hostname.contains('^')));
    }

    #[test]
    fn churn_keeps_counts_in_bounds() {
        let mut rng = SmallRng::seed_from_u64(3);
        for i in 0..20 {
            let mut profile = ServerProfile::generate(i, &mut rng);
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..500 {
                profile.churn(&mut rng);
                assert!(profile.clients() <= profile.public_slots());
                seen.insert(profile.clients());
            }
            assert!(seen.len() > 1, "counts should change over time: {seen:?}");
        }
    }

    /// The fleet's population is stationary from the start: after the equivalent of 3 hours
    /// of churn the players number as many as at start (a walk without a pull toward each
    /// server's crowd drifts to half of every server's slots, a quarter more).
    #[test]
    fn a_fleet_keeps_its_population_and_scores_over_hours() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut fleet: Vec<_> = (0..400)
            .map(|i| ServerProfile::generate(i, &mut rng))
            .collect();
        let total = |fleet: &[ServerProfile]| fleet.iter().map(|p| p.clients()).sum::<u32>();
        let start = f64::from(total(&fleet));
        let mut later = Vec::new();
        for step in 0..2160 {
            for profile in &mut fleet {
                profile.churn(&mut rng);
            }
            if step >= 1000 && step % 10 == 0 {
                later.push(f64::from(total(&fleet)));
            }
        }
        let mean = later.iter().sum::<f64>() / later.len() as f64;
        assert!(
            (mean / start - 1.0).abs() < 0.05,
            "players {start} at start, {mean} on average later"
        );
        let highest = fleet
            .iter()
            .flat_map(|p| &p.players)
            .map(|p| p.score)
            .max()
            .unwrap_or(0);
        assert!(
            highest < 3 * ROUND_STEPS as i32,
            "scores keep rising: {highest}"
        );
    }
}
