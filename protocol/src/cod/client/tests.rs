//! The client against the protocol server on a perfect in-memory link.

use super::*;
use crate::cod::entity::EntityState;
use crate::cod::server::{Frame, Map, Server, ServerConfig, ServerEvent};
use alloc::vec;
use core::net::{IpAddr, Ipv4Addr, SocketAddr};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 50000);

/// A client and a protocol server on a perfect link, advanced in 10 ms steps.
struct Link {
    now: u64,
    client: Client,
    server: Server,
    frame: Frame,
    client_events: Vec<Event>,
    server_events: Vec<ServerEvent>,
    server_datagrams: Vec<Vec<u8>>,
}

fn map() -> Map {
    let mut map = Map {
        checksum_feed: 0x0bad_cafe,
        server_id: 0x31,
        ..Map::default()
    };
    map.configstrings
        .insert(0, "\\mapname\\mp_lab\\g_gametype\\tdm".into());
    let mut flag = EntityState::zero(70);
    flag.fields[11] = 3;
    map.baselines.insert(70, flag);
    map
}

impl Link {
    fn new() -> Self {
        Self::with(ClientConfig::default(), ServerConfig::default())
    }

    fn with(client: ClientConfig, server: ServerConfig) -> Self {
        let mut frame = Frame {
            server_time: 1000,
            ..Frame::default()
        };
        let mut e = EntityState::zero(70);
        e.fields[11] = 3;
        e.fields[1] = 128.0f32.to_bits();
        frame.entities.insert(70, e);
        Self {
            now: 0,
            client: Client::new(client, 0),
            server: Server::new(server, map()),
            frame,
            client_events: Vec::new(),
            server_events: Vec::new(),
            server_datagrams: Vec::new(),
        }
    }

    fn step(&mut self) {
        self.now += 10;
        // The world moves every 50 ms server frame.
        if self.now.is_multiple_of(50) {
            self.frame.server_time += 50;
            if let Some(e) = self.frame.entities.get_mut(&70) {
                e.fields[1] = (f32::from_bits(e.fields[1]) + 1.0).to_bits();
            }
            self.server.frame(self.now, &self.frame);
        }
        self.client.handle_timeout(self.now);
        while let Some(datagram) = self.client.poll_transmit() {
            self.server.handle_datagram(self.now, CLIENT, &datagram);
        }
        while let Some(transmit) = self.server.poll_transmit() {
            assert_eq!(transmit.to, CLIENT);
            self.client.handle_datagram(self.now, &transmit.payload);
            self.server_datagrams.push(transmit.payload);
        }
        self.client_events
            .extend(core::iter::from_fn(|| self.client.poll_event()));
        self.server_events
            .extend(core::iter::from_fn(|| self.server.poll_event()));
    }

    fn run_until(&mut self, what: &str, done: impl Fn(&Self) -> bool) {
        for _ in 0..2000 {
            if done(self) {
                return;
            }
            self.step();
        }
        panic!("{what} did not happen: {:?}", self.client_events);
    }

    fn states(&self) -> Vec<State> {
        self.client_events
            .iter()
            .filter_map(|e| match e {
                Event::State(s) => Some(*s),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn challenge_and_connect_are_resent_every_3000_ms() {
    let mut client = Client::new(ClientConfig::default(), 0);
    assert_eq!(client.poll_transmit().unwrap(), Packet::GetChallenge.emit());
    assert_eq!(client.poll_transmit(), None);
    assert_eq!(client.poll_timeout(), Some(3000));
    client.handle_timeout(2999);
    assert_eq!(client.poll_transmit(), None);
    client.handle_timeout(3000);
    assert_eq!(client.poll_transmit().unwrap(), Packet::GetChallenge.emit());
    client.handle_datagram(
        3100,
        &Packet::ChallengeResponse {
            challenge: -424_242,
            extra: vec![],
        }
        .emit(),
    );
    let connect = Packet::parse(&client.poll_transmit().unwrap()).unwrap();
    let Packet::Connect { userinfo } = connect else {
        panic!("{connect:?}")
    };
    assert_eq!(userinfo.get("protocol"), Some("22"));
    assert_eq!(userinfo.get("challenge"), Some("-424242"));
    assert_eq!(userinfo.get("qport"), Some("4660"));
    assert_eq!(userinfo.get("snaps"), Some("20"));
    assert_eq!(client.poll_timeout(), Some(6100));
}

#[test]
fn a_passworded_server_lets_in_the_client_that_sends_its_password_and_no_other() {
    let server = || ServerConfig {
        password: Some("clan match".into()),
        ..ServerConfig::default()
    };
    let with = |password: Option<&str>| ClientConfig {
        password: password.map(crate::secret::Secret::new),
        ..ClientConfig::default()
    };
    let mut link = Link::with(with(Some("clan match")), server());
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    for wrong in [None, Some("guess")] {
        let mut link = Link::with(with(wrong), server());
        link.run_until("refused", |l| {
            l.client_events.iter().any(
                |e| matches!(e, Event::Disconnected(why) if why.contains("GAME_INVALIDPASSWORD")),
            )
        });
        assert_ne!(link.client.state(), State::Active);
    }
}

#[test]
fn a_session_goes_active_and_decodes_what_the_server_sent() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    assert_eq!(
        link.states(),
        [
            State::Connecting,
            State::Challenging,
            State::Connected,
            State::Loading,
            State::Primed,
            State::Active
        ]
    );
    let gamestate = link.client.gamestate().unwrap().clone();
    assert_eq!(gamestate.checksum_feed, 0x0bad_cafe);
    assert_eq!(gamestate.baselines, link.server.map().baselines);
    assert!(gamestate.configstrings[&1].contains("sv_serverid\\49"));
    assert!(link
        .server_events
        .iter()
        .any(|e| matches!(e, ServerEvent::Active { client: 0 })));

    // Commands both ways, a configstring change, and delta snapshots.
    link.server.broadcast("print \"hello\"");
    link.server.set_configstring(5, "changed");
    link.client.command("say hi").unwrap();
    link.run_until("three snapshots", |l| {
        l.client_events
            .iter()
            .filter(|e| matches!(e, Event::Snapshot(s) if s.delta_num > 0))
            .count()
            >= 3
    });
    link.run_until("the chat", |l| {
        l.server_events.iter().any(|e| {
            *e == ServerEvent::Command {
                client: 0,
                text: "say hi".into(),
            }
        })
    });
    assert!(link.client_events.iter().any(|e| matches!(
        e,
        Event::ServerCommand { text, .. } if text == "print \"hello\""
    )));
    assert!(link.client_events.contains(&Event::Configstring {
        index: 5,
        value: "changed".into()
    }));
    assert_eq!(
        link.client.gamestate().unwrap().configstrings[&5],
        "changed"
    );
    // Every snapshot decoded equals the one the server sent.
    let sent: Vec<&Snapshot> = link
        .server_events
        .iter()
        .filter_map(|e| match e {
            ServerEvent::SnapshotSent { snapshot, .. } => Some(&**snapshot),
            _ => None,
        })
        .collect();
    let decoded: Vec<&Snapshot> = link
        .client_events
        .iter()
        .filter_map(|e| match e {
            Event::Snapshot(s) => Some(&**s),
            _ => None,
        })
        .collect();
    assert_eq!(sent, decoded);
    // User commands arrive with the client's running server time.
    for _ in 0..20 {
        link.step();
    }
    let times: Vec<i32> = link
        .server_events
        .iter()
        .filter_map(|e| match e {
            ServerEvent::Moves { commands, .. } => Some(commands[0].server_time),
            _ => None,
        })
        .filter(|&t| t > 0)
        .collect();
    assert!(
        times.len() > 5 && times.windows(2).all(|w| w[0] <= w[1]),
        "{times:?}"
    );
}

#[test]
fn a_map_change_brings_a_new_gamestate() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.client_events.clear();
    let mut next = map();
    next.configstrings.insert(0, "\\mapname\\mp_second".into());
    link.server.change_map(link.now, next, "mp_second", "sd");
    link.run_until("ACTIVE again", |l| {
        l.client_events.contains(&Event::State(State::Active))
    });
    assert_eq!(
        link.client_events[0],
        Event::LoadingNewMap {
            mapname: "mp_second".into(),
            gametype: "sd".into()
        }
    );
    assert_eq!(
        link.states(),
        [
            State::Connected,
            State::Loading,
            State::Primed,
            State::Active
        ]
    );
    let gamestate = link.client.gamestate().unwrap();
    assert!(gamestate.configstrings[&1].contains("sv_serverid\\65"));
    assert_eq!(gamestate.configstrings[&0], "\\mapname\\mp_second");
}

#[test]
fn a_file_downloads_in_band() {
    let mut link = Link::new();
    let data: Vec<u8> = (0..9000u32).map(|i| (i * 7) as u8).collect();
    link.server.offer_file("lab/readme.txt", data.clone());
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.client.download("lab/readme.txt").unwrap();
    link.run_until("the file", |l| {
        l.client_events
            .iter()
            .any(|e| matches!(e, Event::Download(DownloadEvent::Complete { .. })))
    });
    let complete = link.client_events.iter().find_map(|e| match e {
        Event::Download(DownloadEvent::Complete { name, data }) => Some((name, data)),
        _ => None,
    });
    assert_eq!(complete, Some((&"lab/readme.txt".to_string(), &data)));
    link.client.download("nothing/here").unwrap();
    link.run_until("the failure", |l| {
        l.client_events
            .iter()
            .any(|e| matches!(e, Event::Download(DownloadEvent::Failed { .. })))
    });
}

#[test]
fn leaving_and_being_dropped() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.client.disconnect();
    link.step();
    assert!(link.server_events.contains(&ServerEvent::Disconnected {
        client: 0,
        reason: "disconnected".into()
    }));
    assert_eq!(link.client.state(), State::Disconnected);

    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.server.drop_client(0, "EXE_KICKED");
    link.step();
    assert_eq!(link.client.state(), State::Disconnected);
    assert!(link
        .client_events
        .contains(&Event::Disconnected("EXE_KICKED".into())));
}

#[test]
fn silence_ends_the_session() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    let now = link.now + 30_000;
    link.client.handle_timeout(now);
    assert_eq!(link.client.state(), State::Disconnected);
}

#[test]
fn a_refusal_disconnects() {
    let mut client = Client::new(ClientConfig::default(), 0);
    client.handle_datagram(5, &Packet::Error("EXE_SERVERISFULL".into()).emit());
    assert_eq!(client.state(), State::Disconnected);
    let events: Vec<Event> = core::iter::from_fn(|| client.poll_event()).collect();
    assert!(events.contains(&Event::Disconnected("EXE_SERVERISFULL".into())));
}

#[test]
fn a_printed_refusal_keeps_the_server_s_words() {
    // What OpenArena (ioquake3) answers a protocol-22 connect.
    let mut client = Client::new(ClientConfig::default(), 0);
    client.handle_datagram(
        5,
        &Packet::ChallengeResponse {
            challenge: 9,
            extra: vec![],
        }
        .emit(),
    );
    client.handle_datagram(
        9,
        b"\xff\xff\xff\xffprint\nServer uses protocol version 71 (yours is 22).\n",
    );
    assert_eq!(client.state(), State::Disconnected);
    let events: Vec<Event> = core::iter::from_fn(|| client.poll_event()).collect();
    assert_eq!(
        events.last(),
        Some(&Event::Disconnected(
            "Server uses protocol version 71 (yours is 22).".into()
        ))
    );
}

#[test]
fn a_press_rides_one_user_command() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.server_events.clear();
    link.client.press(0x01);
    link.run_until("two moves", |l| {
        l.server_events
            .iter()
            .filter(|e| matches!(e, ServerEvent::Moves { .. }))
            .count()
            >= 2
    });
    let buttons: Vec<u8> = link
        .server_events
        .iter()
        .filter_map(|e| match e {
            ServerEvent::Moves { commands, .. } => Some(commands[0].buttons),
            _ => None,
        })
        .collect();
    assert_eq!(&buttons[..2], &[1, 0]);
}

#[test]
fn the_stock_w_command_ends_the_session_with_its_reason() {
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.server.drop_client(0, "EXE_SERVERCOMMANDOVERFLOW");
    link.step();
    assert!(link
        .client_events
        .contains(&Event::Disconnected("EXE_SERVERCOMMANDOVERFLOW".into())));
}

fn demo_files(client: &mut Client) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut open = false;
    while let Some(out) = client.poll_demo() {
        match out {
            DemoOutput::Begin { map } => {
                assert!(!open, "a file begins inside another");
                files.push((map, Vec::new()));
                open = true;
            }
            DemoOutput::Data(bytes) => files.last_mut().unwrap().1.extend(bytes),
            DemoOutput::End => open = false,
        }
    }
    assert!(!open, "the last file was not ended");
    files
}

#[test]
fn a_recording_holds_each_message_as_received_and_plays_back_to_the_same_events() {
    use crate::cod::demo::{Playback, Records, END_MARKER};
    use crate::cod::stream::{Heard, Said};
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.server.set_configstring(20, "before");
    link.run_until("the configstring", |l| {
        l.client
            .gamestate()
            .unwrap()
            .configstrings
            .contains_key(&20)
    });
    let mut live_gamestate = link.client.gamestate().unwrap().clone();
    live_gamestate.server_command_sequence = link.client.stream.incoming().sequence();
    let started = link.client_events.len();
    link.client.record().unwrap();
    assert_eq!(link.client.record(), Err(RecordError::AlreadyRecording));
    for _ in 0..60 {
        link.step();
    }
    link.server.broadcast("e \"hello\"");
    link.server.set_configstring(21, "during");
    for _ in 0..60 {
        link.step();
    }
    link.client.stop_recording();
    let files = demo_files(&mut link.client);
    assert_eq!(files.len(), 1);
    let (map, file) = &files[0];
    assert_eq!(map, "mp_lab");
    assert!(file.ends_with(&END_MARKER));
    let mut records = Records::new(file);
    let records: Vec<_> = records.by_ref().collect::<Result<_, _>>().unwrap();
    assert!(records.len() > 20, "{}", records.len());

    // The synthesized first record is the gamestate as it stood, configstrings applied.
    let mut playback = Playback::new();
    let first = playback.read(&records[0]).unwrap();
    assert_eq!(
        first[0],
        Heard::Said(Said::Gamestate(Box::new(live_gamestate)))
    );
    assert_eq!(records[0].reliable_acknowledge(), 0);

    // Every later record is the server's datagram after the netchan: its sequence, the
    // clear prefix, the body with the XOR removed and still compressed.
    for r in &records[1..] {
        let datagram = link
            .server_datagrams
            .iter()
            .find(|d| d[..4] == r.sequence.to_le_bytes())
            .unwrap();
        let mut wire = r.payload.to_vec();
        xor::apply(
            &mut wire[SERVER_HEADER_LEN..],
            xor::server_key(r.sequence as u32, link.client.challenge),
            b"",
        );
        assert_eq!(wire, datagram[4..]);
    }

    // Playback hears what the live session heard from the first recorded message on, and
    // that message is a full snapshot (asked for with moveNoDelta).
    let played: Vec<Event> = records[1..]
        .iter()
        .flat_map(|r| playback.read(r).unwrap())
        .filter_map(|h| match h {
            Heard::Said(said) => Some(Event::from(said)),
            _ => None,
        })
        .collect();
    let Event::Snapshot(s) = &played[0] else {
        panic!("{:?}", played[0])
    };
    assert_eq!(s.delta_num, 0);
    let from = link.client_events[started..]
        .iter()
        .position(|e| e == &played[0])
        .unwrap();
    let live: Vec<Event> = link.client_events[started + from..]
        .iter()
        .filter(|e| !matches!(e, Event::State(_)))
        .cloned()
        .collect();
    assert_eq!(played, live);
    assert!(played.contains(&Event::Configstring {
        index: 21,
        value: "during".into()
    }));
    assert!(played
        .iter()
        .any(|e| matches!(e, Event::ServerCommand { text, .. } if text == "e \"hello\"")));
}

#[test]
fn a_recording_makes_one_file_per_map() {
    let mut link = Link::new();
    assert_eq!(link.client.record(), Err(RecordError::NotActive));
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.client.record().unwrap();
    for _ in 0..30 {
        link.step();
    }
    let mut next = map();
    next.configstrings
        .insert(0, "\\mapname\\mp_two\\g_gametype\\dm".into());
    link.server.change_map(link.now, next, "mp_two", "dm");
    link.run_until("the new map", |l| {
        l.client_events
            .iter()
            .filter(|e| **e == Event::State(State::Active))
            .count()
            == 2
    });
    for _ in 0..30 {
        link.step();
    }
    link.client.disconnect();
    let files = demo_files(&mut link.client);
    let maps: Vec<&str> = files.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(maps, ["mp_lab", "mp_two"]);
    for (map, file) in &files {
        let timeline = crate::cod::watch::timeline::Timeline::open(file.clone()).unwrap();
        assert_eq!(timeline.summary().maps, core::slice::from_ref(map));
        assert!(timeline.summary().ended);
        assert!(timeline.summary().snapshots > 3, "{:?}", timeline.summary());
    }
}

#[test]
fn a_recorded_timeline_seeks_to_the_same_view_as_playing_through() {
    use crate::cod::watch::timeline::{Timeline, CHECKPOINT_MS};
    let mut link = Link::new();
    link.run_until("ACTIVE", |l| l.client.state() == State::Active);
    link.client.record().unwrap();
    for _ in 0..2000 {
        link.step();
    }
    link.client.stop_recording();
    let (_, file) = demo_files(&mut link.client).remove(0);
    let file_bytes = file.clone();
    let mut timeline = Timeline::open(file.clone()).unwrap();
    let summary = timeline.summary().clone();
    assert!(
        (19_000..=20_000).contains(&summary.duration_ms),
        "{summary:?}"
    );
    assert_eq!(
        summary.last_server_time - summary.first_server_time,
        summary.duration_ms as i32
    );
    assert!(timeline.checkpoints() >= 4);
    // Playing straight through, noting the view at every moment.
    let mut played = Timeline::open(file).unwrap();
    let mut views = Vec::new();
    for at in (0..summary.duration_ms).step_by(250) {
        played.advance_to(at);
        views.push((at, played.view()));
    }
    assert!(played.advance_to(summary.duration_ms));
    assert!(played.finished());
    // Seeking anywhere, backwards and forwards, lands on the same view at the right time.
    for &i in &[60usize, 3, 75, 20, 21, 0, 40] {
        let (at, view) = &views[i];
        timeline.seek(*at);
        assert_eq!(&timeline.view(), view, "at {at}");
        assert!(timeline.position() <= *at && at - timeline.position() < 50);
        assert_eq!(
            timeline.view().server_time,
            summary.first_server_time + timeline.position() as i32
        );
        // A still's one pass that stops at that moment sees the same match.
        let still = crate::cod::watch::timeline::still_of(&file_bytes, view.server_time).unwrap();
        assert_eq!(&still.view, view, "still at {at}");
        assert_eq!(
            (still.hostname.as_str(), still.gametype.as_str()),
            (summary.hostname.as_str(), summary.gametype.as_str())
        );
        assert_eq!(still.map.as_ref(), summary.maps.first());
    }
    assert!(CHECKPOINT_MS < summary.duration_ms);
    let before = crate::cod::watch::timeline::still_of(&file_bytes, i32::MIN).unwrap();
    assert_eq!(
        before.view, views[0].1,
        "before the first snapshot: the first"
    );
}
