//! One client's session on the server: its netchan, reliable commands both ways, the gamestate,
//! snapshots delta-coded against what the client acknowledged, paced by `snaps` and `rate`.

use alloc::collections::VecDeque;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::net::SocketAddr;

use super::upload::Upload;
use super::{Frame, Map, ServerEvent};
use crate::cod::client_records::{read_client_body, BundleContext, ClientRecord};
use crate::cod::download::{DownloadCommand, DownloadRecord};
use crate::cod::gamestate::{Gamestate, SVC_EOF};
use crate::cod::info::InfoString;
use crate::cod::msg::MsgWriter;
use crate::cod::netchan::{Netchan, Side};
use crate::cod::playerstate::PlayerState;
use crate::cod::reliable::{IncomingCommands, OutgoingCommands};
use crate::cod::sequenced::{decode_body, server_message, ClientHeader, ServerHeader};
use crate::cod::service::SVC_SERVER_COMMAND;
use crate::cod::snapshot::{
    Base, History, Snapshot, MAX_DELTA_DISTANCE, SNAPFLAG_RATE_DELAYED, SNAPFLAG_SERVERCOUNT,
};
use crate::cod::tuning;
use crate::cod::usercmd::{bundle_key, default_usercmd, UserCmd};
use crate::cod::watch::spectator::FLOOD_MS;

/// Server-side connection states, numbered as stock numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SlotState {
    /// Connected; no gamestate sent yet.
    Connected = 2,
    /// The gamestate is sent; waiting for the first valid user-command bundle.
    Primed = 3,
    Active = 4,
}

#[derive(Clone)]
pub struct Slot {
    pub number: u8,
    pub addr: SocketAddr,
    pub qport: u16,
    pub challenge: i32,
    pub userinfo: InfoString,
    pub state: SlotState,
    netchan: Netchan,
    commands_out: OutgoingCommands,
    commands_in: IncomingCommands,
    /// The message that carried the latest gamestate.
    gamestate_sequence: u32,
    message_acknowledge: i32,
    /// The acknowledged message the next snapshot deltas from; none asks for a full one.
    delta_base: Option<u32>,
    sent: History,
    next_message: u64,
    rate_delayed: bool,
    pub last_heard: u64,
    pub connected_at: u64,
    rate: u32,
    snapshot_interval_ms: u32,
    player: PlayerState,
    upload: Option<Upload>,
    download_records: VecDeque<DownloadRecord>,
    /// When the latest client command arrived, for sv_floodProtect.
    last_command_at: Option<u64>,
}

/// What handling one client message asks of the server.
pub enum Outcome {
    Continue,
    Drop(String),
}

impl Slot {
    pub fn new(
        number: u8,
        addr: SocketAddr,
        challenge: i32,
        userinfo: InfoString,
        now: u64,
    ) -> Self {
        let qport = userinfo
            .get("qport")
            .and_then(|q| q.parse().ok())
            .unwrap_or(0);
        let mut slot = Self {
            number,
            addr,
            qport,
            challenge,
            userinfo: InfoString::new(0),
            state: SlotState::Connected,
            netchan: Netchan::new(Side::Server, qport),
            commands_out: OutgoingCommands::default(),
            commands_in: IncomingCommands::default(),
            gamestate_sequence: 0,
            message_acknowledge: 0,
            delta_base: None,
            sent: History::new(),
            next_message: now,
            rate_delayed: false,
            last_heard: now,
            connected_at: now,
            rate: 5000,
            snapshot_interval_ms: 50,
            player: PlayerState::default(),
            upload: None,
            download_records: VecDeque::new(),
            last_command_at: None,
        };
        slot.set_userinfo(userinfo);
        slot
    }

    /// Applies `rate` and `snaps` as stock does: absent keys give 5,000 bytes/s and 50 ms.
    fn set_userinfo(&mut self, userinfo: InfoString) {
        let int = |key: &str| userinfo.get(key).and_then(|v| v.parse::<i32>().ok());
        self.rate = int("rate").map_or(5000, |r| r.clamp(1000, 90_000) as u32);
        self.snapshot_interval_ms = int("snaps").map_or(50, tuning::snapshot_interval_ms);
        self.userinfo = userinfo;
    }

    /// Queues a reliable server command; an overflow drops the client.
    pub fn command(&mut self, text: &str) -> Result<(), String> {
        self.commands_out
            .push(text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn transmit(&mut self, body: &[u8], out: &mut VecDeque<(SocketAddr, Vec<u8>)>) -> u32 {
        let header = ServerHeader {
            last_client_command: self.commands_in.sequence(),
        };
        let sequence = self.netchan.outgoing_sequence();
        let logical = server_message(
            &header,
            body,
            sequence,
            self.challenge,
            self.commands_in.storage(),
        );
        if self.netchan.transmit(&logical).is_ok() {
            while let Some(datagram) = self.netchan.poll_transmit() {
                out.push_back((self.addr, datagram));
            }
        }
        sequence
    }

    fn write_commands(&self, w: &mut MsgWriter) {
        for (sequence, text) in self.commands_out.pending() {
            w.write_byte(SVC_SERVER_COMMAND);
            w.write_long(sequence);
            w.write_string(text.as_bytes());
        }
    }

    /// Sends the map's gamestate, after every unacknowledged command so the client holds their
    /// text (the usercmd and XOR keys hash it).
    pub fn send_gamestate(
        &mut self,
        now: u64,
        map: &Map,
        out: &mut VecDeque<(SocketAddr, Vec<u8>)>,
    ) {
        let mut w = MsgWriter::new();
        self.write_commands(&mut w);
        Gamestate {
            server_command_sequence: self.commands_out.sequence(),
            configstrings: map.configstrings.clone(),
            baselines: map.baselines.clone(),
            client_num: i32::from(self.number),
            checksum_feed: map.checksum_feed,
        }
        .write(&mut w);
        w.write_byte(SVC_EOF);
        self.gamestate_sequence = self.transmit(&w.into_bytes(), out);
        self.state = SlotState::Primed;
        self.delta_base = None;
        self.sent = History::new();
        self.player = PlayerState::default();
        self.next_message = now;
    }

    /// Handles one sequenced datagram from this client.
    pub fn handle_datagram(
        &mut self,
        now: u64,
        datagram: &[u8],
        map: &Map,
        files: &[(String, Arc<Vec<u8>>)],
        out: &mut VecDeque<(SocketAddr, Vec<u8>)>,
        events: &mut VecDeque<ServerEvent>,
    ) -> Outcome {
        let Ok(Some(delivered)) = self.netchan.handle_datagram(datagram) else {
            return Outcome::Continue;
        };
        let Ok((header, encoded)) = ClientHeader::parse(&delivered.payload) else {
            return Outcome::Continue;
        };
        self.last_heard = now;
        let acked_text = self
            .commands_out
            .get(header.reliable_acknowledge)
            .unwrap_or_default()
            .to_string();
        if self
            .commands_out
            .acknowledge(header.reliable_acknowledge)
            .is_err()
        {
            return Outcome::Continue;
        }
        self.message_acknowledge = header.message_acknowledge;
        if header.server_id != map.server_id {
            // A stale generation: the first packet after connect, or a lost gamestate (the
            // client has seen later messages but still names the old map).
            if self.state == SlotState::Connected
                || header.message_acknowledge as u32 > self.gamestate_sequence
            {
                self.send_gamestate(now, map, out);
            }
            return Outcome::Continue;
        }
        let Ok(body) = decode_body(encoded, header.key(self.challenge), acked_text.as_bytes())
        else {
            return Outcome::Continue;
        };
        let context = BundleContext {
            key: bundle_key(
                header.message_acknowledge,
                map.checksum_feed,
                acked_text.as_bytes(),
            ),
            base: default_usercmd(&self.player),
        };
        let (records, _) = read_client_body(&body, Some(&context));
        for record in records {
            match record {
                ClientRecord::Command { sequence, text } => {
                    match self.commands_in.receive(sequence, &text) {
                        Ok(true) => {
                            if let Outcome::Drop(why) =
                                self.execute(now, &text, map, files, out, events)
                            {
                                return Outcome::Drop(why);
                            }
                        }
                        Ok(false) => {}
                        Err(e) => return Outcome::Drop(e.to_string()),
                    }
                }
                ClientRecord::Move { no_delta, commands } => {
                    self.moved(no_delta, commands, events);
                }
                ClientRecord::Unread { .. } | ClientRecord::Eof => {}
            }
        }
        Outcome::Continue
    }

    fn moved(
        &mut self,
        no_delta: bool,
        commands: Vec<UserCmd>,
        events: &mut VecDeque<ServerEvent>,
    ) {
        if self.state == SlotState::Primed {
            self.state = SlotState::Active;
            events.push_back(ServerEvent::Active {
                client: self.number,
            });
        }
        self.delta_base = (!no_delta).then_some(self.message_acknowledge as u32);
        events.push_back(ServerEvent::Moves {
            client: self.number,
            commands,
        });
    }

    /// Runs one new client command: the engine's own, or hands it to the game.
    fn execute(
        &mut self,
        now: u64,
        text: &str,
        map: &Map,
        files: &[(String, Arc<Vec<u8>>)],
        out: &mut VecDeque<(SocketAddr, Vec<u8>)>,
        events: &mut VecDeque<ServerEvent>,
    ) -> Outcome {
        let verb = text.split_whitespace().next().unwrap_or("");
        if verb == "disconnect" {
            return Outcome::Drop("disconnected".into());
        }
        if verb == "userinfo" {
            let info = text[verb.len()..].trim().trim_matches('"');
            if let Ok(info) = InfoString::parse(info, crate::cod::info::MAX_INFO_STRING) {
                self.set_userinfo(info);
            }
            return Outcome::Continue;
        }
        match DownloadCommand::parse(text) {
            Some(DownloadCommand::Download(name)) => {
                self.upload = None;
                match files.iter().find(|(n, _)| *n == name) {
                    Some((_, data)) => self.upload = Some(Upload::new(data.clone(), now)),
                    None => self.download_records.push_back(DownloadRecord::Failure {
                        error: alloc::format!("File not found: {name}"),
                    }),
                }
            }
            Some(DownloadCommand::NextBlock(n)) => {
                if self.upload.as_mut().is_some_and(|u| u.acknowledge(n)) {
                    self.upload = None;
                }
            }
            Some(DownloadCommand::Retransmit(_)) => {
                if let Some(upload) = self.upload.as_mut() {
                    upload.restart();
                }
            }
            Some(DownloadCommand::Stop) => self.upload = None,
            Some(DownloadCommand::Done) => self.send_gamestate(now, map, out),
            // No redirects are offered, so there is nothing to acknowledge.
            Some(DownloadCommand::Www(_)) => {}
            None => {
                // sv_floodProtect: once active, a game command within 800 ms of the previous
                // command is ignored; every command restarts the window.
                let exempt = ["team ", "score ", "mr "]
                    .iter()
                    .any(|p| text.starts_with(p));
                let flooding = self.state == SlotState::Active
                    && self
                        .last_command_at
                        .is_some_and(|at| now.saturating_sub(at) < FLOOD_MS);
                self.last_command_at = Some(now);
                if exempt || !flooding {
                    events.push_back(ServerEvent::Command {
                        client: self.number,
                        text: text.into(),
                    });
                }
            }
        }
        Outcome::Continue
    }

    /// Sends this client its next message if one is due: pending commands, a snapshot once
    /// active, a download block, EOF. Returns the snapshot sent, if any.
    pub fn send_due(
        &mut self,
        now: u64,
        frame: &Frame,
        map: &Map,
        out: &mut VecDeque<(SocketAddr, Vec<u8>)>,
    ) -> Option<(u32, Snapshot)> {
        if self.state == SlotState::Connected || now < self.next_message {
            return None;
        }
        if let Some(player) = frame.players.get(&self.number) {
            self.player = player.clone();
        }
        let mut w = MsgWriter::new();
        self.write_commands(&mut w);
        let sequence = self.netchan.outgoing_sequence();
        let mut sent = None;
        if self.state == SlotState::Active {
            let mut flags = if map.restart_toggle {
                SNAPFLAG_SERVERCOUNT
            } else {
                0
            };
            if self.rate_delayed {
                flags |= SNAPFLAG_RATE_DELAYED;
            }
            let mut snapshot = Snapshot {
                server_time: frame.server_time,
                delta_num: 0,
                flags,
                player: self.player.clone(),
                entities: super::visibility::visible_entities(
                    &frame.entities,
                    &frame.sv_flags,
                    &map.configstrings,
                    &self.player,
                ),
                clients: frame.clients.clone(),
            };
            let base = self.delta_base.and_then(|base| {
                let distance = sequence.checked_sub(base)?;
                if distance == 0 || distance > u32::from(MAX_DELTA_DISTANCE) {
                    return None;
                }
                match self.sent.base(sequence, distance as u8) {
                    Base::Delta(s) => Some((distance as u8, s.clone())),
                    _ => None,
                }
            });
            if let Some((distance, _)) = &base {
                snapshot.delta_num = *distance;
            }
            snapshot.write(&mut w, base.as_ref().map(|(_, s)| s), &map.baselines);
            self.sent.store(sequence, snapshot.clone());
            sent = Some((sequence, snapshot));
        }
        while let Some(record) = self.download_records.pop_front() {
            record.write(&mut w);
        }
        if let Some(record) = self.upload.as_mut().and_then(|u| u.next_record(now)) {
            record.write(&mut w);
        }
        w.write_byte(SVC_EOF);
        let body = w.into_bytes();
        let size = body.len() as u32;
        self.transmit(&body, out);
        // The byte scheduler: the next message waits for `snaps` and for the rate to carry
        // this one; the server frame quantizes it.
        let interval = self.snapshot_interval_ms;
        let delay = tuning::rate_delay_ms(size, self.rate);
        self.rate_delayed = delay > interval;
        self.next_message = now + u64::from(interval.max(delay));
        sent
    }

    /// Sends one last message carrying `disconnect "reason"`.
    pub fn farewell(&mut self, reason: &str, out: &mut VecDeque<(SocketAddr, Vec<u8>)>) {
        let _ = self.command(&alloc::format!("w \"{reason}\""));
        let mut w = MsgWriter::new();
        self.write_commands(&mut w);
        w.write_byte(SVC_EOF);
        self.transmit(&w.into_bytes(), out);
    }
}
