//! A protocol-22 client session, sans-IO: from DISCONNECTED through the challenge and connect
//! handshake to a gamestate and the first snapshot (ACTIVE).
//!
//! Inputs: [`Client::handle_datagram`] and [`Client::handle_timeout`], each with the current time
//! in milliseconds. Outputs, drained after every input: [`Client::poll_transmit`] (datagrams for
//! the server) and [`Client::poll_event`]; [`Client::poll_timeout`] says when to call again.

use alloc::collections::VecDeque;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::gamestate::Gamestate;
use super::info::{InfoString, MAX_INFO_STRING};
use super::msg::MsgWriter;
use super::netchan::{Netchan, Side};
use super::oob::Packet;
use super::reliable::{IncomingCommands, OutgoingCommands};
use super::sequenced::{client_message, decode_body, ClientHeader, ServerHeader};
use super::service::{read_records, Record, World};
use super::snapshot::Snapshot;
use super::usercmd::{bundle_key, write_usercmd, UserCmd};
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

/// How often `getchallenge` and `connect` are resent.
pub const RESEND_MS: u64 = 3000;

/// Who the client says it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    pub qport: u16,
    pub name: String,
    pub rate: u32,
    pub snaps: u32,
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
            timeout_ms: 30_000,
        }
    }
}

/// What the session reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    State(State),
    Gamestate(alloc::boxed::Box<Gamestate>),
    ServerCommand {
        sequence: i32,
        text: String,
    },
    Snapshot(alloc::boxed::Box<Snapshot>),
    /// The server refused or dropped us, or went silent; the text says why.
    Disconnected(String),
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
            State::Connected | State::Loading | State::Primed | State::Active
                if now.saturating_sub(self.last_heard) >= self.config.timeout_ms =>
            {
                self.drop_session("server timed out");
            }
            _ => {}
        }
    }

    fn drop_session(&mut self, why: &str) {
        self.netchan = None;
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
                self.send_packet();
            }
            (State::Connecting | State::Challenging, Packet::Error(text)) => {
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
        self.service(&body, delivered.sequence);
        if self.state >= State::Connected {
            self.send_packet();
        }
    }

    /// The service records of one server message.
    fn service(&mut self, body: &[u8], sequence: u32) {
        let (records, _stopped) = read_records(body, sequence, &mut self.world);
        for record in records {
            match record {
                Record::ServerCommand { sequence, text } => {
                    match self.incoming.receive(sequence, &text) {
                        Ok(true) => self
                            .events
                            .push_back(Event::ServerCommand { sequence, text }),
                        Ok(false) => {}
                        Err(e) => {
                            self.drop_session(&e.to_string());
                            return;
                        }
                    }
                }
                Record::Gamestate(gamestate) => {
                    // The gamestate assigns the command sequence.
                    self.incoming.reset(gamestate.server_command_sequence);
                    self.enter(State::Loading);
                    self.gamestate = Some((*gamestate).clone());
                    self.events.push_back(Event::Gamestate(gamestate));
                    self.enter(State::Primed);
                }
                Record::Snapshot {
                    snapshot,
                    usable: true,
                } => {
                    self.enter(State::Active);
                    self.events.push_back(Event::Snapshot(snapshot));
                }
                _ => {}
            }
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

    /// One sequenced packet: pending reliable commands, then (once primed) a move bundle.
    fn send_packet(&mut self) {
        let header = ClientHeader {
            server_id: self.server_id(),
            message_acknowledge: self.server_message_sequence as i32,
            reliable_acknowledge: self.incoming.sequence(),
        };
        let mut w = MsgWriter::new();
        for (sequence, text) in self.outgoing.pending() {
            w.write_bits(2, 2);
            w.write_long(sequence);
            w.write_string(text.as_bytes());
        }
        if self.state >= State::Primed {
            let feed = self.gamestate.as_ref().map_or(0, |g| g.checksum_feed);
            let acked = self
                .incoming
                .get(self.incoming.sequence())
                .unwrap_or_default()
                .as_bytes()
                .to_vec();
            let key = bundle_key(header.message_acknowledge, feed, &acked);
            // moveNoDelta until a snapshot is in hand, then move.
            let selector = if self.state == State::Active { 0 } else { 1 };
            w.write_bits(selector, 2);
            w.write_byte(1);
            let base = UserCmd::default();
            let cmd = UserCmd {
                server_time: 0,
                ..base
            };
            write_usercmd(&mut w, key, &base, &cmd);
        }
        w.write_bits(3, 2);
        let body = w.into_bytes();
        let command = self
            .incoming
            .get(header.reliable_acknowledge)
            .unwrap_or_default()
            .as_bytes()
            .to_vec();
        let logical = client_message(&header, &body, self.challenge, &command);
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
            _ => Some(self.last_heard + self.config.timeout_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::gamestate::SVC_EOF;
    use crate::cod::reliable::IncomingCommands as ServerIncoming;
    use crate::cod::sequenced::server_message;
    use crate::cod::service::SVC_SERVER_COMMAND;
    use alloc::vec;

    /// Plays the server's side of the handshake with the protocol pieces.
    struct Server {
        challenge: i32,
        netchan: Netchan,
        client_commands: ServerIncoming,
    }

    impl Server {
        fn message(&mut self, body: &[u8]) -> Vec<u8> {
            let header = ServerHeader {
                last_client_command: self.client_commands.sequence(),
            };
            let seq = self.netchan.outgoing_sequence();
            let logical = server_message(
                &header,
                body,
                seq,
                self.challenge,
                self.client_commands.storage(),
            );
            self.netchan.transmit(&logical).unwrap();
            self.netchan.poll_transmit().unwrap()
        }

        /// Decodes a client packet; returns its header and body.
        fn receive(&mut self, datagram: &[u8], server_command: &[u8]) -> (ClientHeader, Vec<u8>) {
            let delivered = self.netchan.handle_datagram(datagram).unwrap().unwrap();
            let (header, encoded) = ClientHeader::parse(&delivered.payload).unwrap();
            let body = decode_body(encoded, header.key(self.challenge), server_command).unwrap();
            (header, body)
        }
    }

    fn drain_states(client: &mut Client) -> Vec<State> {
        core::iter::from_fn(|| client.poll_event())
            .filter_map(|e| match e {
                Event::State(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn handshake_gamestate_and_first_snapshot() {
        let mut client = Client::new(ClientConfig::default(), 0);
        assert_eq!(client.poll_transmit().unwrap(), Packet::GetChallenge.emit());
        assert_eq!(client.poll_transmit(), None);
        // Resent every 3,000 ms.
        assert_eq!(client.poll_timeout(), Some(3000));
        client.handle_timeout(3000);
        assert_eq!(client.poll_transmit().unwrap(), Packet::GetChallenge.emit());

        let challenge = -424_242;
        client.handle_datagram(
            3100,
            &Packet::ChallengeResponse {
                challenge,
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

        let mut server = Server {
            challenge,
            netchan: Netchan::new(Side::Server, 0x1234),
            client_commands: ServerIncoming::default(),
        };
        let mut response = vec![0xff; 4];
        response.extend_from_slice(b"connectResponse");
        client.handle_datagram(3200, &response);
        let first = client.poll_transmit().expect("a first sequenced packet");
        let (header, body) = server.receive(&first, b"");
        assert_eq!(header.message_acknowledge, 0);
        assert_eq!(body[0] & 3, 3, "just EOF before the gamestate");

        // The gamestate: one configstring, a server command before it.
        let mut gamestate = Gamestate {
            server_command_sequence: 1,
            client_num: 0,
            checksum_feed: 1234,
            ..Gamestate::default()
        };
        gamestate
            .configstrings
            .insert(1, "\\sv_serverid\\33".into());
        let mut w = MsgWriter::new();
        gamestate.write(&mut w);
        w.write_byte(SVC_EOF);
        let datagram = server.message(&w.into_bytes());
        client.handle_datagram(3300, &datagram);
        assert_eq!(
            drain_states(&mut client),
            [
                State::Connecting,
                State::Challenging,
                State::Connected,
                State::Loading,
                State::Primed
            ]
        );
        let moved = client.poll_transmit().expect("a move bundle");
        let (header, body) = server.receive(&moved, b"");
        assert_eq!(header.server_id, 33);
        assert_eq!(header.reliable_acknowledge, 1);
        assert_eq!(body[0] & 3, 1, "moveNoDelta until a snapshot arrives");

        // A server command, then a full snapshot: ACTIVE.
        let mut w = MsgWriter::new();
        w.write_byte(SVC_SERVER_COMMAND);
        w.write_long(2);
        w.write_string(b"print \"hello\"");
        let snapshot = Snapshot {
            server_time: 10_000,
            ..Snapshot::default()
        };
        snapshot.write(&mut w, None, &gamestate.baselines);
        let datagram = server.message(&w.into_bytes());
        client.handle_datagram(3400, &datagram);
        let events: Vec<Event> = core::iter::from_fn(|| client.poll_event()).collect();
        assert!(events.contains(&Event::ServerCommand {
            sequence: 2,
            text: "print \"hello\"".into()
        }));
        assert!(events.contains(&Event::State(State::Active)));
        assert!(events.contains(&Event::Snapshot(alloc::boxed::Box::new(snapshot))));
        let moved = client.poll_transmit().expect("a move bundle");
        let (header, body) = server.receive(&moved, b"print \"hello\"");
        assert_eq!(header.reliable_acknowledge, 2);
        assert_eq!(body[0] & 3, 0, "move once a snapshot is in hand");

        // Silence ends the session.
        client.handle_timeout(3400 + 30_000);
        assert_eq!(client.state(), State::Disconnected);
    }

    #[test]
    fn a_refusal_disconnects() {
        let mut client = Client::new(ClientConfig::default(), 0);
        client.handle_datagram(5, &Packet::Error("EXE_SERVERISFULL".into()).emit());
        assert_eq!(client.state(), State::Disconnected);
        let events: Vec<Event> = core::iter::from_fn(|| client.poll_event()).collect();
        assert!(events.contains(&Event::Disconnected("EXE_SERVERISFULL".into())));
    }
}
