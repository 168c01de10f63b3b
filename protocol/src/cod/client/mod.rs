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

use crate::cod::client_records::{write_client_body, BundleContext};
use crate::cod::download::{DownloadCommand, DownloadRecord, Transfer};
use crate::cod::gamestate::Gamestate;
use crate::cod::huffman::fixed;
use crate::cod::info::{InfoString, MAX_INFO_STRING};
use crate::cod::netchan::{Netchan, Side};
use crate::cod::oob::Packet;
use crate::cod::playerstate::PlayerState;
use crate::cod::reliable::OutgoingCommands;
use crate::cod::sequenced::{client_message, ClientHeader, ServerHeader, SERVER_HEADER_LEN};
use crate::cod::snapshot::Snapshot;
use crate::cod::stream::{Heard, Said, ServerStream};
use crate::cod::usercmd::{bundle_key, default_usercmd, UserCmd};

mod join;
mod record;

use crate::cod::{xor, MAX_MSGLEN, PROTOCOL_VERSION};
pub use join::JoinAnswer;
use record::Recording;
pub use record::{DemoOutput, RecordError};

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
    /// The server's `g_password`, sent as the `password` userinfo key as the stock client sends
    /// its `password` cvar; `None` for a server without one.
    pub password: Option<crate::secret::Secret>,
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
            password: None,
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

impl From<Said> for Event {
    fn from(said: Said) -> Self {
        match said {
            Said::Gamestate(gamestate) => Self::Gamestate(gamestate),
            Said::Configstring { index, value } => Self::Configstring { index, value },
            Said::ServerCommand { sequence, text } => Self::ServerCommand { sequence, text },
            Said::Snapshot(snapshot) => Self::Snapshot(snapshot),
        }
    }
}

/// One client session with one server.
#[derive(Clone)]
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
        if let Some(password) = &self.config.password {
            // A password holding a backslash cannot travel in an info string at all; the
            // server then refuses the connect, which says why.
            let _ = info.set("password", password.expose());
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

    /// The service records of one server message.
    fn service(&mut self, now: u64, body: &[u8], sequence: u32) {
        for heard in self.stream.read(body, sequence) {
            match heard {
                Heard::Said(said) => {
                    let event = Event::from(said);
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
mod tests;
