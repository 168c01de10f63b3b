//! The game side of a lab server, sans-IO: a protocol session server and the match it shows.
//! Sessions join as spectators; the match runs only while someone watches.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use protocol::cod::server::{Server, ServerConfig, ServerEvent};
use protocol::cod::snapshot::Snapshot;
use protocol::cod::tuning;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::SeedableRng;

use crate::game::Match;
use crate::profile::{ServerProfile, MAPS};

/// Stock's default server frame rate.
pub const SV_FPS: i32 = 20;
/// The file every lab server offers for in-band download.
pub const README: &str = "muster-lab/readme.txt";

/// How the sessions of one lab server run.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub seed: u64,
    /// How long a map runs before the next one loads; `None` keeps one map.
    pub map_time_ms: Option<u64>,
}

pub struct Sessions {
    config: SessionConfig,
    server: Server,
    game: Match,
    rng: SmallRng,
    map_started: u64,
    last_frame: u64,
    names: BTreeMap<u8, String>,
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

impl Sessions {
    pub fn new(profile: &ServerProfile, config: SessionConfig, now: u64) -> Self {
        let game = Match::new(profile, config.seed, 0);
        let map = game.map(profile, config.seed as i32);
        let server_config = ServerConfig {
            max_clients: profile.public_slots().min(64) as u8,
            timeout_ms: 30_000,
            seed: config.seed,
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
            last_frame: now,
            names: BTreeMap::new(),
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
        self.events(profile);
    }

    /// Runs the server frames due by `now`: the match, then every message due.
    pub fn tick(&mut self, now: u64, profile: &mut ServerProfile) {
        let frame_ms = u64::from(tuning::server_frame_ms(SV_FPS));
        if let Some(limit) = self.config.map_time_ms {
            if now.saturating_sub(self.map_started) >= limit {
                self.next_map(now, profile);
            }
        }
        // After a stretch with nobody watching, the match resumes rather than catching up.
        if now.saturating_sub(self.last_frame) > 10 * frame_ms {
            self.last_frame = now - frame_ms;
        }
        while now.saturating_sub(self.last_frame) >= frame_ms {
            self.last_frame += frame_ms;
            let taken: Vec<u8> = self.server.sessions().map(|(n, _)| n).collect();
            for command in self.game.step(frame_ms as i32, profile, &taken) {
                self.server.broadcast(&command);
            }
        }
        self.server.reserve(self.game.numbers());
        let sessions: Vec<(u8, String)> = self
            .server
            .sessions()
            .map(|(n, _)| (n, self.name(n)))
            .collect();
        let frame = self.game.frame(&sessions);
        self.server.frame(now, &frame);
        self.events(profile);
    }

    fn name(&self, client: u8) -> String {
        self.names
            .get(&client)
            .cloned()
            .unwrap_or_else(|| "player".into())
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
        profile.mapname = next.to_owned();
        self.game = Match::new(profile, self.config.seed ^ now, self.game.time());
        let map = self.game.map(profile, (self.config.seed ^ now) as i32);
        self.server
            .change_map(now, map, &profile.mapname, &profile.gametype);
        self.server.offer_file(README, readme(profile));
        self.map_started = now;
    }

    fn events(&mut self, profile: &mut ServerProfile) {
        while let Some(event) = self.server.poll_event() {
            match event {
                ServerEvent::Connected { client, userinfo } => {
                    let name = userinfo.get("name").unwrap_or("player").to_owned();
                    profile.leave_spectator(&name);
                    profile.join_spectator(&name);
                    self.server
                        .broadcast(&format!("print \"{name}^7 connected\n\""));
                    self.names.insert(client, name);
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
                    let (verb, rest) = text.split_once(' ').unwrap_or((&text, ""));
                    if verb == "say" || verb == "say_team" {
                        let line = rest.trim().trim_matches('"');
                        let name = self.name(client);
                        self.server.broadcast(&format!("chat \"{name}^7: {line}\""));
                    } else {
                        self.server
                            .command(client, &format!("print \"unknown command {verb}\n\""));
                    }
                }
                ServerEvent::Disconnected { client, .. } => {
                    if let Some(name) = self.names.remove(&client) {
                        profile.leave_spectator(&name);
                    }
                }
                ServerEvent::SnapshotSent {
                    client, snapshot, ..
                } => {
                    if let Some(sent) = self.sent.as_mut() {
                        sent.push((client, snapshot));
                    }
                }
                ServerEvent::Moves { .. } => {}
            }
        }
    }

    pub fn poll_transmit(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.server.poll_transmit()
    }
}
