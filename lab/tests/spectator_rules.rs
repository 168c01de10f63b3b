//! The stock spectator rules of a lab server, seen by a `cod::client` over a perfect in-memory
//! link: free-fly on arrival, fire steps through follow targets, `follownext`, ADS back to
//! free-fly, the 800 ms flood control, fog culling, and the idle-spectator kick.

use protocol::cod::fields::EntityField;
use protocol::cod::fields::PlayerStateField;
use std::net::SocketAddr;

use lab::sessions::{SessionConfig, Sessions};
use lab::ServerProfile;
use protocol::cod::client::{Client, ClientConfig, Event, State};
use protocol::cod::fields::Named;
use protocol::cod::server::visibility::view_point;
use protocol::cod::snapshot::Snapshot;
use protocol::cod::watch::commands::ServerCommand;
use protocol::cod::watch::spectator::{BUTTON_ADS, BUTTON_FIRE, PM_SPECTATOR, PSF_FOLLOWING};
use rand::rngs::SmallRng;
use rand::SeedableRng;

const CLIENT: &str = "127.0.0.1:40000";

struct Link {
    now: u64,
    client: Client,
    sessions: Sessions,
    profile: ServerProfile,
    events: Vec<Event>,
}

impl Link {
    fn new(config: SessionConfig) -> Self {
        let mut rng = SmallRng::seed_from_u64(4);
        let mut profile = ServerProfile::generate(0, &mut rng);
        profile.fill(10, &mut rng);
        let sessions = Sessions::new(&profile, config, 0);
        Self {
            now: 0,
            client: Client::new(ClientConfig::default(), 0),
            sessions,
            profile,
            events: Vec::new(),
        }
    }

    fn step(&mut self) {
        self.now += 10;
        self.client.handle_timeout(self.now);
        let from: SocketAddr = CLIENT.parse().unwrap();
        while let Some(datagram) = self.client.poll_transmit() {
            self.sessions
                .handle_datagram(self.now, from, &datagram, &mut self.profile);
        }
        self.sessions.tick(self.now, &mut self.profile);
        while let Some(transmit) = self.sessions.poll_transmit() {
            self.client.handle_datagram(self.now, &transmit.payload);
        }
        self.events
            .extend(std::iter::from_fn(|| self.client.poll_event()));
    }

    fn run_ms(&mut self, ms: u64) {
        for _ in 0..ms / 10 {
            self.step();
        }
    }

    fn active(&mut self) {
        for _ in 0..1000 {
            if self.client.state() == State::Active {
                return;
            }
            self.step();
        }
        panic!("never active: {:?}", self.events);
    }

    fn last_snapshot(&self) -> Snapshot {
        self.events
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::Snapshot(s) => Some((**s).clone()),
                _ => None,
            })
            .expect("a snapshot")
    }

    fn commands(&self) -> Vec<ServerCommand> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ServerCommand { text, .. } => Some(ServerCommand::parse(text)),
                _ => None,
            })
            .collect()
    }
}

fn followed(s: &Snapshot) -> Option<u32> {
    (s.player.get(PlayerStateField::PM_FLAGS) & PSF_FOLLOWING != 0)
        .then(|| s.player.get(PlayerStateField::CLIENT_NUM))
}

#[test]
fn fire_follows_the_next_player_and_ads_returns_to_free_fly() {
    let mut link = Link::new(SessionConfig::default());
    link.active();
    link.run_ms(200);
    let free = link.last_snapshot();
    assert_eq!(followed(&free), None);
    assert_eq!(free.player.get(PlayerStateField::PM_TYPE), PM_SPECTATOR);
    let own = free.player.get(PlayerStateField::CLIENT_NUM);

    link.client.press(BUTTON_FIRE);
    link.run_ms(200);
    let first = followed(&link.last_snapshot()).expect("following after fire");
    assert_ne!(first, own);
    // The followed player's position is its player state; it is never sent as an entity.
    assert!(!link.last_snapshot().entities.contains_key(&(first as u16)));

    link.client.press(BUTTON_FIRE);
    link.run_ms(200);
    let second = followed(&link.last_snapshot()).unwrap();
    assert_ne!(second, first, "fire steps to another player");

    link.client.command("follownext").unwrap();
    link.run_ms(300);
    let third = followed(&link.last_snapshot()).unwrap();
    assert_ne!(third, second);

    link.client.press(BUTTON_ADS);
    link.run_ms(200);
    assert_eq!(followed(&link.last_snapshot()), None, "ADS: free-fly again");
}

#[test]
fn a_second_command_within_800_ms_is_ignored() {
    let mut link = Link::new(SessionConfig::default());
    link.active();
    link.run_ms(1000);
    let scores = |link: &Link| {
        link.commands()
            .iter()
            .filter(|c| matches!(c, ServerCommand::Scores(_)))
            .count()
    };
    let before = scores(&link);
    link.client.command("score").unwrap();
    link.run_ms(300);
    link.client.command("score").unwrap();
    link.run_ms(300);
    assert_eq!(scores(&link), before + 1, "the flooded `score` was dropped");
    link.run_ms(900);
    link.client.command("score").unwrap();
    link.run_ms(300);
    assert_eq!(scores(&link), before + 2);
}

#[test]
fn fog_culls_what_the_view_point_cannot_see() {
    let mut link = Link::new(SessionConfig {
        visibility: 600.0,
        ..SessionConfig::default()
    });
    link.active();
    link.client.press(BUTTON_FIRE);
    link.run_ms(2000);
    let s = link.last_snapshot();
    let eye = view_point(&s.player);
    for e in s.entities.values() {
        let at = e.origin();
        let d =
            ((at[0] - eye[0]).powi(2) + (at[1] - eye[1]).powi(2) + (at[2] - eye[2]).powi(2)).sqrt();
        // The flags (objectives) and obituaries are always sent; everything else is in sight.
        let always = e.get(EntityField::E_TYPE) >= 16 || e.number >= 80;
        assert!(always || d <= 600.0, "entity {} at {d} units", e.number);
    }
    // Names and teams arrive for everyone regardless.
    assert!(s.clients.len() >= 10);
}

#[test]
fn an_idle_spectator_is_warned_then_dropped_but_fire_keeps_it() {
    let mut link = Link::new(SessionConfig {
        inactivity_spectator_ms: 12_000,
        ..SessionConfig::default()
    });
    link.active();
    link.run_ms(13_000);
    assert!(link.commands().iter().any(|c| matches!(c,
        ServerCommand::Announcement(t) if t == "GAME_INACTIVEDROPWARNING")));
    assert_eq!(link.client.state(), State::Disconnected);
    assert!(link
        .events
        .contains(&Event::Disconnected("GAME_DROPPEDFORINACTIVITY".into())));

    let mut busy = Link::new(SessionConfig {
        inactivity_spectator_ms: 12_000,
        ..SessionConfig::default()
    });
    busy.active();
    for _ in 0..30 {
        busy.client.press(BUTTON_FIRE);
        busy.run_ms(500);
    }
    assert_eq!(busy.client.state(), State::Active);
}
