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
use super::download::{DownloadCommand, DownloadRecord, Transfer};
use super::gamestate::Gamestate;
use super::huffman::fixed;
use super::info::{InfoString, MAX_INFO_STRING};
use super::netchan::{Netchan, Side};
use super::oob::Packet;
use super::playerstate::PlayerState;
use super::reliable::OutgoingCommands;
use super::sequenced::{client_message, ClientHeader, ServerHeader, SERVER_HEADER_LEN};
use super::snapshot::Snapshot;
use super::stream::{Heard, ServerStream};
use super::usercmd::{bundle_key, default_usercmd, UserCmd};
use super::{demo, xor, MAX_MSGLEN, PROTOCOL_VERSION};

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
    outgoing: OutgoingCommands,
    stream: ServerStream,
    server_message_sequence: u32,
    /// The latest snapshot's server time and when it arrived, for usercmd times.
    clock: Option<(i32, u64)>,
    player: PlayerState,
    download: Option<(String, Transfer)>,
    /// Buttons the next user command carries, released after it.
    buttons: u8,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
    /// The demo being recorded, and what it wrote that the driver has not taken.
    demo: Option<Recording>,
    demo_out: VecDeque<DemoOutput>,
}

/// A recording in progress (CL_Record_f's state).
#[derive(Clone, Copy, Debug)]
struct Recording {
    /// Nothing is written until a full (non-delta) snapshot arrives: `clc.demoWaiting`.
    waiting: bool,
    /// A gamestate arrived: this file ends and the next map's begins.
    new_map: bool,
}

/// What a recording hands its driver, in order: a file begins (named for its map), bytes to
/// append to it, and its end (after the end marker's bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DemoOutput {
    Begin { map: String },
    Data(Vec<u8>),
    End,
}

/// Why a recording could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Stock needs `CA_ACTIVE`: a gamestate and a snapshot.
    NotActive,
    AlreadyRecording,
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NotActive => "not active on a server yet",
            Self::AlreadyRecording => "already recording",
        })
    }
}

impl core::error::Error for RecordError {}

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
            outgoing: OutgoingCommands::default(),
            stream: ServerStream::default(),
            server_message_sequence: 0,
            clock: None,
            player: PlayerState::default(),
            download: None,
            buttons: 0,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            demo: None,
            demo_out: VecDeque::new(),
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
        self.stream.gamestate()
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
        self.stop_recording();
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
        let Ok((header, _)) = ServerHeader::parse(&delivered.payload) else {
            return;
        };
        let key = xor::server_key(delivered.sequence, self.challenge);
        let command = self
            .outgoing
            .get(header.last_client_command)
            .unwrap_or_default()
            .to_string();
        let _ = self.outgoing.acknowledge(header.last_client_command);
        // The payload as a demo stores it: the clear prefix, then the body still compressed.
        let mut clear = delivered.payload;
        xor::apply(&mut clear[SERVER_HEADER_LEN..], key, command.as_bytes());
        let Ok(body) = fixed::decompress(&clear[SERVER_HEADER_LEN..], MAX_MSGLEN) else {
            return;
        };
        self.service(now, &body, delivered.sequence);
        self.write_demo(delivered.sequence, &clear);
    }

    /// Starts recording a demo, as `record` does: the first record is synthesized from the
    /// gamestate as it stands, then nothing is written until a full snapshot arrives (asked
    /// for with `moveNoDelta`). A new map ends the file and begins the next.
    pub fn record(&mut self) -> Result<(), RecordError> {
        if self.demo.is_some() {
            return Err(RecordError::AlreadyRecording);
        }
        if self.state != State::Active {
            return Err(RecordError::NotActive);
        }
        self.begin_demo();
        Ok(())
    }

    fn begin_demo(&mut self) {
        let Some(gamestate) = self.stream.gamestate() else {
            return;
        };
        let payload = demo::first_payload(
            gamestate,
            self.outgoing.sequence(),
            self.stream.incoming().sequence(),
        );
        let map = demo::map_name(gamestate);
        self.demo_out.push_back(DemoOutput::Begin { map });
        self.demo_out.push_back(DemoOutput::Data(demo::frame(
            self.server_message_sequence as i32,
            &payload,
        )));
        self.demo = Some(Recording {
            waiting: true,
            new_map: false,
        });
    }

    /// Ends the recording with the end marker.
    pub fn stop_recording(&mut self) {
        if self.demo.take().is_some() {
            self.demo_out
                .push_back(DemoOutput::Data(demo::END_MARKER.to_vec()));
            self.demo_out.push_back(DemoOutput::End);
        }
    }

    pub fn is_recording(&self) -> bool {
        self.demo.is_some()
    }

    /// What the recording wrote, in order.
    pub fn poll_demo(&mut self) -> Option<DemoOutput> {
        self.demo_out.pop_front()
    }

    /// Records message `sequence` (after it was read, as retail does) once the wait is over.
    fn write_demo(&mut self, sequence: u32, clear: &[u8]) {
        let Some(demo) = self.demo else { return };
        if demo.new_map {
            self.stop_recording();
            self.begin_demo();
        } else if !demo.waiting {
            self.demo_out
                .push_back(DemoOutput::Data(demo::frame(sequence as i32, clear)));
        }
    }

    /// The service records of one server message.
    fn service(&mut self, now: u64, body: &[u8], sequence: u32) {
        for heard in self.stream.read(body, sequence) {
            match heard {
                Heard::Event(event) => {
                    match &event {
                        Event::Gamestate(_) => {
                            self.enter(State::Loading);
                            self.player = PlayerState::default();
                            self.clock = None;
                            if let Some(demo) = self.demo.as_mut() {
                                demo.new_map = true;
                            }
                        }
                        Event::Snapshot(snapshot) => {
                            self.clock = Some((snapshot.server_time, now));
                            self.player = snapshot.player.clone();
                            if let Some(demo) = self.demo.as_mut() {
                                demo.waiting &= snapshot.delta_num != 0;
                            }
                            self.enter(State::Active);
                        }
                        _ => {}
                    }
                    let primed = matches!(event, Event::Gamestate(_));
                    self.events.push_back(event);
                    if primed {
                        self.enter(State::Primed);
                    }
                }
                Heard::Disconnect(reason) => self.drop_session(&reason),
                Heard::Commands(e) => self.drop_session(&e.to_string()),
                Heard::Download(record) => self.download_record(record),
                Heard::Unusable | Heard::Stopped(_) => {}
            }
            if self.state == State::Disconnected {
                return;
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
        self.stream
            .gamestate()
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
            reliable_acknowledge: self.stream.incoming().sequence(),
        };
        let incoming = self.stream.incoming();
        let acked = incoming
            .get(incoming.sequence())
            .unwrap_or_default()
            .as_bytes()
            .to_vec();
        let feed = self.stream.gamestate().map_or(0, |g| g.checksum_feed);
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
                self.state != State::Active || self.demo.is_some_and(|d| d.waiting),
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
            while let Some((to, datagram)) = self.server.poll_transmit() {
                assert_eq!(to, CLIENT);
                self.client.handle_datagram(self.now, &datagram);
                self.server_datagrams.push(datagram);
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
        use crate::cod::stream::Heard;
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
            Heard::Event(Event::Gamestate(Box::new(live_gamestate)))
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
                Heard::Event(e) => Some(e),
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
            let timeline = crate::cod::timeline::Timeline::open(file.clone()).unwrap();
            assert_eq!(timeline.summary().maps, core::slice::from_ref(map));
            assert!(timeline.summary().ended);
            assert!(timeline.summary().snapshots > 3, "{:?}", timeline.summary());
        }
    }

    #[test]
    fn a_recorded_timeline_seeks_to_the_same_view_as_playing_through() {
        use crate::cod::timeline::{Timeline, CHECKPOINT_MS};
        let mut link = Link::new();
        link.run_until("ACTIVE", |l| l.client.state() == State::Active);
        link.client.record().unwrap();
        for _ in 0..2000 {
            link.step();
        }
        link.client.stop_recording();
        let (_, file) = demo_files(&mut link.client).remove(0);
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
        }
        assert!(CHECKPOINT_MS < summary.duration_ms);
    }
}
