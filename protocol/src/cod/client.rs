//! A protocol-22 client session, sans-IO: from DISCONNECTED through the challenge and connect
//! handshake to a gamestate and the first snapshot (ACTIVE).
//!
//! Inputs: [`Client::handle_datagram`] and [`Client::handle_timeout`], each with the current time
//! in milliseconds. Outputs, drained after every input: [`Client::poll_transmit`] (datagrams for
//! the server) and [`Client::poll_event`]; [`Client::poll_timeout`] says when to call again.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::client_records::{write_client_body, BundleContext};
use super::commands::ServerCommand;
use super::download::{DownloadCommand, DownloadRecord, Transfer};
use super::gamestate::Gamestate;
use super::info::{InfoString, MAX_INFO_STRING};
use super::netchan::{Netchan, Side};
use super::oob::Packet;
use super::playerstate::PlayerState;
use super::reliable::{IncomingCommands, OutgoingCommands};
use super::sequenced::{client_message, decode_body, ClientHeader, ServerHeader};
use super::service::{read_records, Record, World};
use super::snapshot::Snapshot;
use super::usercmd::{bundle_key, default_usercmd, UserCmd};
use super::{xor, PROTOCOL_VERSION};

/// The handshake and session states, numbered as stock numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Disconnected = 0,
    Connecting = 1,
    Challenging = 2,
    Connected = 3,
    Loading = 4,
    Primed = 5,
    Active = 6,
}

impl State {
    /// The stock name, for tools.
    pub fn name(self) -> &'static str {
        match self {
            Self::Disconnected => "DISCONNECTED",
            Self::Connecting => "CONNECTING",
            Self::Challenging => "CHALLENGING",
            Self::Connected => "CONNECTED",
            Self::Loading => "LOADING",
            Self::Primed => "PRIMED",
            Self::Active => "ACTIVE",
        }
    }
}

/// How often `getchallenge` and `connect` are resent.
pub const RESEND_MS: u64 = 3000;
/// A server's connectionless `disconnect` counts only after this much sequenced silence.
pub const DISCONNECT_SILENCE_MS: u64 = 3000;
/// Times the final packet carrying `disconnect` is sent, as stock does, against loss.
const DISCONNECT_COPIES: usize = 3;

/// Who the client says it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    pub qport: u16,
    pub name: String,
    pub rate: u32,
    pub snaps: u32,
    /// `cl_maxpackets`: sequenced packets per second at most.
    pub cl_maxpackets: u32,
    /// Silence after which the session is considered lost.
    pub timeout_ms: u64,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            qport: 0x1234,
            name: "Muster".into(),
            rate: 25000,
            snaps: 20,
            cl_maxpackets: 30,
            timeout_ms: 30_000,
        }
    }
}

/// What the session reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    State(State),
    /// The server is changing map; a new gamestate follows.
    LoadingNewMap {
        mapname: String,
        gametype: String,
    },
    Gamestate(Box<Gamestate>),
    /// A configstring changed after the gamestate (`d`, or `x`/`y`/`z` chunks completed).
    Configstring {
        index: u16,
        value: String,
    },
    ServerCommand {
        sequence: i32,
        text: String,
    },
    Snapshot(Box<Snapshot>),
    Download(DownloadEvent),
    /// The server refused or dropped us, we left, or it went silent; the text says why.
    Disconnected(String),
}

/// Progress of an in-band download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadEvent {
    Progress {
        name: String,
        received: usize,
        total: Option<usize>,
    },
    Complete {
        name: String,
        data: Vec<u8>,
    },
    Failed {
        name: String,
        reason: String,
    },
}

/// One client session with one server.
pub struct Client {
    config: ClientConfig,
    state: State,
    challenge: i32,
    next_send: u64,
    last_heard: u64,
    netchan: Option<Netchan>,
    incoming: IncomingCommands,
    outgoing: OutgoingCommands,
    gamestate: Option<Gamestate>,
    world: World,
    server_message_sequence: u32,
    /// The latest snapshot's server time and when it arrived, for usercmd times.
    clock: Option<(i32, u64)>,
    player: PlayerState,
    /// A configstring arriving in `x`/`y` chunks.
    chunked: Option<(u16, String)>,
    download: Option<(String, Transfer)>,
    /// Buttons the next user command carries, released after it.
    buttons: u8,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
}

impl Client {
    /// Starts connecting: the first `getchallenge` is ready to send.
    pub fn new(config: ClientConfig, now: u64) -> Self {
        let mut client = Self {
            config,
            state: State::Disconnected,
            challenge: 0,
            next_send: now,
            last_heard: now,
            netchan: None,
            incoming: IncomingCommands::default(),
            outgoing: OutgoingCommands::default(),
            gamestate: None,
            world: World::default(),
            server_message_sequence: 0,
            clock: None,
            player: PlayerState::default(),
            chunked: None,
            download: None,
            buttons: 0,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        };
        client.enter(State::Connecting);
        client.handle_timeout(now);
        client
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// The current gamestate, with configstring changes applied.
    pub fn gamestate(&self) -> Option<&Gamestate> {
        self.gamestate.as_ref()
    }

    fn enter(&mut self, state: State) {
        if self.state != state {
            self.state = state;
            self.events.push_back(Event::State(state));
        }
    }

    /// The userinfo `connect` carries.
    pub fn userinfo(&self) -> InfoString {
        let mut info = InfoString::new(MAX_INFO_STRING);
        for (k, v) in [
            ("protocol", PROTOCOL_VERSION.to_string()),
            ("qport", self.config.qport.to_string()),
            ("challenge", self.challenge.to_string()),
            ("name", self.config.name.clone()),
            ("rate", self.config.rate.to_string()),
            ("snaps", self.config.snaps.to_string()),
        ] {
            // Values without backslashes stay far below the limit; a bad name is dropped.
            let _ = info.set(k, &v);
        }
        info
    }

    /// Queues a reliable command for the server.
    pub fn command(&mut self, text: &str) -> Result<i32, super::reliable::ReliableError> {
        self.outgoing.push(text)
    }

    /// Asks the server for a file by its server-relative name.
    pub fn download(&mut self, name: &str) -> Result<(), super::reliable::ReliableError> {
        self.command(&DownloadCommand::Download(name.into()).to_string())?;
        self.download = Some((name.into(), Transfer::default()));
        Ok(())
    }

    /// Holds `buttons` for the next user command only, so pressing again after it is a new
    /// rising edge (a spectator's fire steps to the next follow target).
    pub fn press(&mut self, buttons: u8) {
        self.buttons |= buttons;
    }

    /// Leaves cleanly: a reliable `disconnect`, sent in three copies, then DISCONNECTED.
    pub fn disconnect(&mut self) {
        if self.netchan.is_some() && self.command("disconnect").is_ok() {
            for _ in 0..DISCONNECT_COPIES {
                self.send_packet();
            }
        }
        self.drop_session("disconnected");
    }

    fn packet_interval_ms(&self) -> u64 {
        u64::from(1000 / self.config.cl_maxpackets.clamp(15, 100))
    }

    pub fn handle_timeout(&mut self, now: u64) {
        match self.state {
            State::Connecting | State::Challenging if now >= self.next_send => {
                let packet = if self.state == State::Connecting {
                    Packet::GetChallenge
                } else {
                    Packet::Connect {
                        userinfo: self.userinfo(),
                    }
                };
                self.transmits.push_back(packet.emit());
                self.next_send = now + RESEND_MS;
            }
            State::Connected | State::Loading | State::Primed | State::Active => {
                if now.saturating_sub(self.last_heard) >= self.config.timeout_ms {
                    self.drop_session("server timed out");
                } else if now >= self.next_send {
                    self.send_packet_at(now);
                }
            }
            _ => {}
        }
    }

    fn drop_session(&mut self, why: &str) {
        if self.state == State::Disconnected {
            return;
        }
        self.netchan = None;
        self.download = None;
        self.enter(State::Disconnected);
        self.events.push_back(Event::Disconnected(why.into()));
    }

    pub fn handle_datagram(&mut self, now: u64, datagram: &[u8]) {
        if datagram.starts_with(&[0xff; 4]) {
            self.connectionless(now, datagram);
        } else {
            self.sequenced(now, datagram);
        }
    }

    fn connectionless(&mut self, now: u64, datagram: &[u8]) {
        let Ok(packet) = Packet::parse(datagram) else {
            return;
        };
        match (self.state, packet) {
            (State::Connecting, Packet::ChallengeResponse { challenge, .. }) => {
                self.challenge = challenge;
                self.enter(State::Challenging);
                self.next_send = now;
                self.handle_timeout(now);
            }
            (State::Challenging, Packet::Other { command, .. })
                if command.eq_ignore_ascii_case("connectResponse") =>
            {
                self.netchan = Some(Netchan::new(Side::Client, self.config.qport));
                self.last_heard = now;
                self.enter(State::Connected);
                self.send_packet_at(now);
            }
            (state, Packet::Other { command, rest })
                if state >= State::Connected && command == "loadingnewmap" =>
            {
                let text = String::from_utf8_lossy(&rest);
                let mut lines = text.trim_start_matches('\n').lines();
                let mapname = lines.next().unwrap_or_default().into();
                let gametype = lines.next().unwrap_or_default().into();
                self.events
                    .push_back(Event::LoadingNewMap { mapname, gametype });
                self.enter(State::Connected);
            }
            (state, Packet::Other { command, .. })
                if state >= State::Connected
                    && command == "disconnect"
                    && now.saturating_sub(self.last_heard) >= DISCONNECT_SILENCE_MS =>
            {
                self.drop_session("server disconnected");
            }
            (state, Packet::Error(text)) if state >= State::Connecting => {
                self.drop_session(text.trim());
            }
            // ioquake3-family servers refuse a connect with `print` (stock UO uses `error`);
            // while connecting, a printed text is the server's answer, so it ends the attempt.
            (State::Connecting | State::Challenging, Packet::Print(text)) => {
                self.drop_session(text.trim());
            }
            _ => {}
        }
    }

    fn sequenced(&mut self, now: u64, datagram: &[u8]) {
        let Some(netchan) = self.netchan.as_mut() else {
            return;
        };
        let Ok(Some(delivered)) = netchan.handle_datagram(datagram) else {
            return;
        };
        self.last_heard = now;
        self.server_message_sequence = delivered.sequence;
        let Ok((header, encoded)) = ServerHeader::parse(&delivered.payload) else {
            return;
        };
        let key = xor::server_key(delivered.sequence, self.challenge);
        let command = self
            .outgoing
            .get(header.last_client_command)
            .unwrap_or_default()
            .to_string();
        let _ = self.outgoing.acknowledge(header.last_client_command);
        let Ok(body) = decode_body(encoded, key, command.as_bytes()) else {
            return;
        };
        self.service(now, &body, delivered.sequence);
    }

    /// The service records of one server message.
    fn service(&mut self, now: u64, body: &[u8], sequence: u32) {
        let (records, _stopped) = read_records(body, sequence, &mut self.world);
        for record in records {
            match record {
                Record::ServerCommand { sequence, text } => {
                    match self.incoming.receive(sequence, &text) {
                        Ok(true) => self.server_command(sequence, text),
                        Ok(false) => {}
                        Err(e) => self.drop_session(&e.to_string()),
                    }
                }
                Record::Gamestate(gamestate) => {
                    // The gamestate assigns the command sequence.
                    self.incoming.reset(gamestate.server_command_sequence);
                    self.enter(State::Loading);
                    self.gamestate = Some((*gamestate).clone());
                    self.player = PlayerState::default();
                    self.clock = None;
                    self.events.push_back(Event::Gamestate(gamestate));
                    self.enter(State::Primed);
                }
                Record::Snapshot {
                    snapshot,
                    usable: true,
                } => {
                    self.clock = Some((snapshot.server_time, now));
                    self.player = snapshot.player.clone();
                    self.enter(State::Active);
                    self.events.push_back(Event::Snapshot(snapshot));
                }
                Record::Download(record) => self.download_record(record),
                _ => {}
            }
            if self.state == State::Disconnected {
                return;
            }
        }
    }

    /// Applies engine server commands (configstring changes, `disconnect`) and reports all.
    fn server_command(&mut self, sequence: i32, text: String) {
        let (verb, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        let update = match verb {
            "d" | "x" | "y" | "z" => rest
                .split_once(' ')
                .or(Some((rest, "")))
                .and_then(|(index, value)| Some((index.parse::<u16>().ok()?, value.to_string()))),
            _ => None,
        };
        if let ServerCommand::Disconnect(reason) = ServerCommand::parse(&text) {
            self.events
                .push_back(Event::ServerCommand { sequence, text });
            return self.drop_session(&reason);
        }
        self.events.push_back(Event::ServerCommand {
            sequence,
            text: text.clone(),
        });
        if let Some((index, value)) = update {
            let whole = match verb {
                "d" => Some(value),
                "x" => {
                    self.chunked = Some((index, value));
                    None
                }
                _ => match self.chunked.take() {
                    Some((i, mut acc)) if i == index => {
                        acc.push_str(&value);
                        if verb == "z" {
                            Some(acc)
                        } else {
                            self.chunked = Some((i, acc));
                            None
                        }
                    }
                    _ => None,
                },
            };
            if let Some(value) = whole {
                if let Some(gamestate) = self.gamestate.as_mut() {
                    gamestate.configstrings.insert(index, value.clone());
                }
                self.events.push_back(Event::Configstring { index, value });
            }
        }
    }

    fn download_record(&mut self, record: DownloadRecord) {
        let Some((name, transfer)) = self.download.as_mut() else {
            return;
        };
        let name = name.clone();
        let reply = match record {
            DownloadRecord::Block {
                number,
                total_size,
                data,
            } => match transfer.block(number, total_size, &data) {
                Ok(ack) => Some(ack),
                // Blocks out of order are dropped; the server restarts after its timeout.
                Err(super::download::DownloadError::OutOfOrder { .. }) => None,
                Err(e) => {
                    self.download = None;
                    let _ = self.command(&DownloadCommand::Stop.to_string());
                    self.events
                        .push_back(Event::Download(DownloadEvent::Failed {
                            name,
                            reason: e.to_string(),
                        }));
                    return;
                }
            },
            DownloadRecord::Failure { error } => {
                self.download = None;
                self.events
                    .push_back(Event::Download(DownloadEvent::Failed {
                        name,
                        reason: error,
                    }));
                return;
            }
            DownloadRecord::Redirect { .. } => {
                // Redirects are not followed: ask for the in-band fallback.
                Some(DownloadCommand::Www("fail".into()))
            }
        };
        if let Some(reply) = reply {
            let _ = self.command(&reply.to_string());
        }
        let Some((_, transfer)) = self.download.as_ref() else {
            return;
        };
        if transfer.is_done() {
            if let Some((name, transfer)) = self.download.take() {
                self.events
                    .push_back(Event::Download(DownloadEvent::Complete {
                        name,
                        data: transfer.into_data(),
                    }));
            }
        } else {
            self.events
                .push_back(Event::Download(DownloadEvent::Progress {
                    name,
                    received: transfer.received(),
                    total: transfer.declared(),
                }));
        }
    }

    /// The server generation's low byte, from configstring 1 (`sv_serverid`).
    fn server_id(&self) -> u8 {
        self.gamestate
            .as_ref()
            .and_then(|g| g.configstrings.get(&1))
            .and_then(|cs| InfoString::parse(cs, 8192).ok())
            .and_then(|info| info.get("sv_serverid").and_then(|v| v.parse::<i32>().ok()))
            .unwrap_or(0) as u8
    }

    fn send_packet_at(&mut self, now: u64) {
        let server_time = self.clock.map_or(0, |(time, at)| {
            time.wrapping_add(now.saturating_sub(at) as i32)
        });
        self.next_send = now + self.packet_interval_ms();
        self.send_packet_with(server_time);
    }

    fn send_packet(&mut self) {
        let server_time = self.clock.map_or(0, |(time, _)| time);
        self.send_packet_with(server_time);
    }

    /// One sequenced packet: pending reliable commands, then (once primed) a move bundle of
    /// one user command: moveNoDelta until a snapshot is in hand, then move.
    fn send_packet_with(&mut self, server_time: i32) {
        let header = ClientHeader {
            server_id: self.server_id(),
            message_acknowledge: self.server_message_sequence as i32,
            reliable_acknowledge: self.incoming.sequence(),
        };
        let acked = self
            .incoming
            .get(self.incoming.sequence())
            .unwrap_or_default()
            .as_bytes()
            .to_vec();
        let feed = self.gamestate.as_ref().map_or(0, |g| g.checksum_feed);
        let context = BundleContext {
            key: bundle_key(header.message_acknowledge, feed, &acked),
            base: default_usercmd(&self.player),
        };
        let cmd = UserCmd {
            server_time,
            buttons: context.base.buttons | core::mem::take(&mut self.buttons),
            ..context.base
        };
        let bundle = (self.state >= State::Primed).then(|| {
            (
                self.state != State::Active,
                &context,
                core::slice::from_ref(&cmd),
            )
        });
        let body = write_client_body(self.outgoing.pending(), bundle);
        let logical = client_message(&header, &body, self.challenge, &acked);
        if let Some(netchan) = self.netchan.as_mut() {
            if netchan.transmit(&logical).is_ok() {
                while let Some(datagram) = netchan.poll_transmit() {
                    self.transmits.push_back(datagram);
                }
            }
        }
    }

    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Self::handle_timeout`] next has work.
    pub fn poll_timeout(&self) -> Option<u64> {
        match self.state {
            State::Connecting | State::Challenging => Some(self.next_send),
            State::Disconnected => None,
            _ => Some(self.next_send.min(self.last_heard + self.config.timeout_ms)),
        }
    }
}

#[cfg(test)]
mod tests {
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
                client: Client::new(ClientConfig::default(), 0),
                server: Server::new(ServerConfig::default(), map()),
                frame,
                client_events: Vec::new(),
                server_events: Vec::new(),
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
            while let Some((to, datagram)) = self.server.poll_transmit() {
                assert_eq!(to, CLIENT);
                self.client.handle_datagram(self.now, &datagram);
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
}
