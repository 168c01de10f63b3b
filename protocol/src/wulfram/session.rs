//! One Wulfram II connection's transport, sans-IO, in the same shape as the CoD client:
//! `handle_datagram`/`handle_tcp`/`handle_timeout` in, `poll_transmit`/`poll_event`/
//! `poll_timeout` out. It sends our D_HANDSHAKE first, sequences and resends records per
//! stream, acknowledges what it receives, and enforces the size policy on everything it sends.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::control::{is_control, Ack, Control, Handshake};
use super::frame::{self, FrameError, FrameReader};
use super::policy::{split_chat, MAX_DATAGRAM};
use super::record::{self, ModeTable, SizeError, StreamMode, Walker};
use super::retry::RetryTimer;
use super::stream::{Delivered, InFlight, ReceiveStream, SendError, SendStream};

/// Which transport a packet travelled on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Udp,
    Tcp,
}

/// Bytes for the socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outbound {
    Udp(Vec<u8>),
    Tcp(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    Packet {
        via: Via,
        opcode: u8,
        seq: Option<u16>,
        body: Vec<u8>,
    },
    /// The peer's handshake: its modes now parse its records.
    Handshake(Handshake),
    /// D_ACK subtype 0.
    Time(u32),
    Diagnostic(Vec<u8>),
    /// An outgoing packet over the size policy: dropped, never truncated.
    Dropped {
        opcode: u8,
        error: SizeError,
    },
    /// Incoming bytes that did not parse; the rest of the connection carries on.
    Refused(String),
    /// The connection cannot go on (a broken TCP stream, an ordered backlog).
    Closed(String),
}

/// How our side of a connection is configured.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub connection_id: u32,
    /// The modes and groups of our outgoing records, advertised in our handshake.
    pub outgoing: ModeTable,
}

/// Chat, which our server sends ordered.
pub const CHAT: u8 = 0x1f;

impl Default for SessionConfig {
    /// Our server's policy: transport controls raw, chat ordered.
    fn default() -> Self {
        let mut outgoing = ModeTable::default();
        outgoing.set(CHAT, StreamMode::Ordered);
        Self {
            connection_id: 1,
            outgoing,
        }
    }
}

pub struct Session {
    config: SessionConfig,
    incoming: ModeTable,
    send: BTreeMap<u8, SendStream>,
    recv: BTreeMap<u8, ReceiveStream>,
    timer: RetryTimer,
    epoch: u64,
    /// Encoded UDP records waiting to be packed into datagrams.
    records: VecDeque<Vec<u8>>,
    transmits: VecDeque<Outbound>,
    events: VecDeque<SessionEvent>,
    frames: FrameReader,
    closed: bool,
    /// Ours, resent until the peer answers it with D_ACK subtype 0 carrying its timestamp;
    /// sequenced records wait for that answer, since the peer cannot parse them before.
    handshake: Handshake,
    handshake_sent_at: u64,
    handshake_acknowledged: bool,
}

impl Session {
    /// A session whose handshake is ready to send.
    pub fn new(config: SessionConfig, now: u64) -> Self {
        let mut session = Self {
            config,
            incoming: ModeTable::default(),
            send: BTreeMap::new(),
            recv: BTreeMap::new(),
            timer: RetryTimer::default(),
            epoch: now,
            records: VecDeque::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            frames: FrameReader::new(),
            closed: false,
            handshake: Handshake::default(),
            handshake_sent_at: now,
            handshake_acknowledged: false,
        };
        let groups = session
            .config
            .outgoing
            .groups()
            .iter()
            .map(|(name, members)| {
                (
                    name.clone(),
                    members.iter().map(|&m| u32::from(m)).collect(),
                )
            })
            .collect();
        let handshake = Handshake {
            timestamp: session.timestamp(now),
            connection_id: session.config.connection_id,
            groups,
            modes: session.config.outgoing.pairs(),
        };
        session.handshake = handshake.clone();
        session.control(Control::Handshake(handshake));
        session
    }

    /// Whether the peer has answered our handshake.
    pub fn is_established(&self) -> bool {
        self.handshake_acknowledged
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The retry timeout now in force.
    pub fn retry_timeout_ms(&self) -> u32 {
        self.timer.timeout_ms()
    }

    /// Records in flight on the stream `opcode` belongs to.
    pub fn in_flight(&self, opcode: u8) -> usize {
        let stream = self.config.outgoing.stream_of(opcode);
        self.send.get(&stream).map_or(0, SendStream::in_flight)
    }

    fn timestamp(&self, now: u64) -> u32 {
        now.saturating_sub(self.epoch) as u32
    }

    /// Queues a transport control; ours travel raw.
    fn control(&mut self, control: Control) {
        if let Ok(bytes) = record::emit(
            control.opcode(),
            StreamMode::Raw,
            0,
            &control.body(),
            self.config.outgoing.mode2,
        ) {
            self.records.push_back(bytes);
        }
    }

    fn close(&mut self, why: &str) {
        if !self.closed {
            self.closed = true;
            self.events.push_back(SessionEvent::Closed(why.into()));
        }
    }

    /// Sends a game packet over UDP in its configured stream mode.
    pub fn send(&mut self, now: u64, opcode: u8, body: &[u8]) -> Result<(), SizeError> {
        let mode = self.config.outgoing.mode(opcode);
        // Checked before anything is queued: an oversized packet is reported, not cut.
        if let Err(error) = record::emit(opcode, mode, 0, body, self.config.outgoing.mode2) {
            self.events
                .push_back(SessionEvent::Dropped { opcode, error });
            return Err(error);
        }
        if mode == StreamMode::Raw {
            if let Ok(bytes) = record::emit(opcode, mode, 0, body, self.config.outgoing.mode2) {
                self.records.push_back(bytes);
            }
        } else {
            let stream = self.config.outgoing.stream_of(opcode);
            let pushed = self
                .send
                .entry(stream)
                .or_insert_with(|| SendStream::new(mode))
                .push(opcode, body.to_vec());
            if pushed == Err(SendError::Backlog) {
                self.close("too many ordered records backed up");
            }
        }
        self.pump(now);
        Ok(())
    }

    /// Sends chat or a server message, split at 3,052 bytes or an earlier break.
    pub fn send_chat(&mut self, now: u64, opcode: u8, text: &[u8]) -> Result<(), SizeError> {
        for piece in split_chat(text) {
            self.send(now, opcode, piece)?;
        }
        Ok(())
    }

    /// Sends a packet over TCP (stream modes do not apply there).
    pub fn send_tcp(&mut self, opcode: u8, body: &[u8]) -> Result<(), SizeError> {
        match frame::emit(opcode, body) {
            Ok(bytes) => {
                self.transmits.push_back(Outbound::Tcp(bytes));
                Ok(())
            }
            Err(_) => {
                let error = SizeError::TcpPayload {
                    size: 1 + body.len(),
                };
                self.events
                    .push_back(SessionEvent::Dropped { opcode, error });
                Err(error)
            }
        }
    }

    /// Restarts the numbering of our latest-mode stream for `opcode` at `start` with
    /// D_SET_START; the stream pauses until the peer's subtype 2 acknowledgement.
    pub fn set_start(&mut self, now: u64, opcode: u8, start: u16) {
        let stream = self.config.outgoing.stream_of(opcode);
        let mode = self.config.outgoing.mode(opcode);
        self.send
            .entry(stream)
            .or_insert_with(|| SendStream::new(mode))
            .set_start(now, opcode, start);
        self.control(Control::SetStart { opcode, start });
    }

    /// Gives up on an ordered record: the peer is told to skip it with D_IGNORE.
    pub fn abandon(&mut self, opcode: u8, seq: u16) {
        let stream = self.config.outgoing.stream_of(opcode);
        if let Some(record) = self.send.get_mut(&stream).and_then(|s| s.abandon(seq)) {
            self.queue_in_flight(&record);
        }
    }

    fn queue_in_flight(&mut self, r: &InFlight) {
        if r.abandoned {
            self.control(Control::Ignore {
                opcode: r.opcode,
                seq: r.seq,
            });
            return;
        }
        let mode = self.config.outgoing.mode(r.opcode);
        if let Ok(bytes) = record::emit(r.opcode, mode, r.seq, &r.body, self.config.outgoing.mode2)
        {
            self.records.push_back(bytes);
        }
    }

    /// Admits and resends what each stream has due.
    fn pump(&mut self, now: u64) {
        let timeout = self.timer.timeout_ms();
        if !self.handshake_acknowledged {
            if now.saturating_sub(self.handshake_sent_at) >= u64::from(timeout) {
                self.handshake_sent_at = now;
                self.control(Control::Handshake(self.handshake.clone()));
            }
            return;
        }
        let mut due = Vec::new();
        let mut timeouts = 0;
        let mut starts = Vec::new();
        for stream in self.send.values_mut() {
            let d = stream.due(now, timeout);
            due.extend(d.records);
            timeouts += d.timeouts;
            starts.extend(d.set_start);
        }
        if timeouts > 0 {
            // One feedback per round of timeouts, not one per record.
            self.timer.timed_out();
        }
        for (opcode, start) in starts {
            self.control(Control::SetStart { opcode, start });
        }
        for record in &due {
            self.queue_in_flight(record);
        }
    }

    fn receive_stream(&mut self, opcode: u8) -> &mut ReceiveStream {
        let stream = self.incoming.stream_of(opcode);
        self.recv.entry(stream).or_default()
    }

    /// Takes one UDP datagram from the peer.
    pub fn handle_datagram(&mut self, now: u64, datagram: &[u8]) {
        if datagram.len() > MAX_DATAGRAM {
            self.events.push_back(SessionEvent::Refused(
                SizeError::Datagram {
                    size: datagram.len(),
                }
                .to_string(),
            ));
            return;
        }
        let records: Vec<_> = Walker::new(datagram, &self.incoming).collect();
        for record in records {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    self.events.push_back(SessionEvent::Refused(e.to_string()));
                    continue;
                }
            };
            let (opcode, mode) = (record.opcode, record.mode);
            let received = match record.seq {
                Some(seq) => self
                    .receive_stream(opcode)
                    .receive(mode, opcode, seq, record.body),
                None => super::stream::Received {
                    delivered: alloc::vec![Delivered {
                        opcode,
                        seq: None,
                        body: record.body,
                    }],
                    ..Default::default()
                },
            };
            if received.ack {
                if let Some(seq) = record.seq {
                    self.control(Control::Ack(Ack::Record { opcode, seq }));
                }
            }
            for seq in received.ignored {
                self.control(Control::Ack(Ack::Record { opcode, seq }));
            }
            for delivered in received.delivered {
                self.deliver(now, delivered);
            }
        }
        self.pump(now);
    }

    fn deliver(&mut self, now: u64, d: Delivered) {
        if !is_control(d.opcode) {
            self.events.push_back(SessionEvent::Packet {
                via: Via::Udp,
                opcode: d.opcode,
                seq: d.seq,
                body: d.body,
            });
            return;
        }
        let control = match Control::parse(d.opcode, &d.body) {
            Ok(c) => c,
            Err(e) => {
                self.events.push_back(SessionEvent::Refused(e.to_string()));
                return;
            }
        };
        match control {
            Control::Diagnostic(bytes) => self.events.push_back(SessionEvent::Diagnostic(bytes)),
            Control::Ignore { opcode, seq } => {
                let received = self.receive_stream(opcode).ignore(seq);
                for seq in received.ignored {
                    self.control(Control::Ack(Ack::Record { opcode, seq }));
                }
                for delivered in received.delivered {
                    self.deliver(now, delivered);
                }
            }
            Control::Ack(Ack::Time { timestamp }) => {
                if !self.handshake_acknowledged && timestamp == self.handshake.timestamp {
                    self.handshake_acknowledged = true;
                }
                self.events.push_back(SessionEvent::Time(timestamp))
            }
            Control::Ack(Ack::Record { opcode, seq }) => {
                let stream = self.config.outgoing.stream_of(opcode);
                if let Some(rtt) = self
                    .send
                    .get_mut(&stream)
                    .and_then(|s| s.acknowledge(now, seq))
                {
                    self.timer.sample(rtt);
                }
            }
            Control::Ack(Ack::Start { opcode, seq, .. }) => {
                let stream = self.config.outgoing.stream_of(opcode);
                if let Some(s) = self.send.get_mut(&stream) {
                    s.start_acknowledged(seq);
                }
            }
            Control::Handshake(h) => {
                self.incoming = self.incoming.announced(&h);
                // Answered with its timestamp, so the peer knows we can parse its records.
                self.control(Control::Ack(Ack::Time {
                    timestamp: h.timestamp,
                }));
                self.events.push_back(SessionEvent::Handshake(h));
            }
            Control::SetStart { opcode, start } => {
                self.receive_stream(opcode).set_start(start);
                let timestamp = self.timestamp(now);
                self.control(Control::Ack(Ack::Start {
                    timestamp,
                    opcode,
                    seq: start,
                }));
            }
        }
    }

    /// Takes bytes from the TCP stream, in any chunking.
    pub fn handle_tcp(&mut self, _now: u64, bytes: &[u8]) {
        if self.closed {
            return;
        }
        self.frames.push(bytes);
        while let Some(frame) = self.frames.next_frame() {
            match frame {
                Ok(f) if f.opcode == 0 => match Control::parse(0, &f.body) {
                    Ok(Control::Diagnostic(bytes)) => {
                        self.events.push_back(SessionEvent::Diagnostic(bytes))
                    }
                    _ => self
                        .events
                        .push_back(SessionEvent::Refused("bad diagnostic frame".into())),
                },
                Ok(f) => self.events.push_back(SessionEvent::Packet {
                    via: Via::Tcp,
                    opcode: f.opcode,
                    seq: None,
                    body: f.body,
                }),
                Err(e @ FrameError::ControlOnTcp { .. }) => {
                    self.events.push_back(SessionEvent::Refused(e.to_string()))
                }
                Err(e) => {
                    self.close(&e.to_string());
                    return;
                }
            }
        }
    }

    pub fn handle_timeout(&mut self, now: u64) {
        self.pump(now);
    }

    /// The next bytes to send: queued records packed into datagrams of at most 3,072 bytes,
    /// then TCP frames.
    pub fn poll_transmit(&mut self) -> Option<Outbound> {
        if let Some(first) = self.records.pop_front() {
            let mut datagram = first;
            while let Some(next) = self.records.front() {
                if datagram.len() + next.len() > MAX_DATAGRAM {
                    break;
                }
                if let Some(next) = self.records.pop_front() {
                    datagram.extend_from_slice(&next);
                }
            }
            return Some(Outbound::Udp(datagram));
        }
        self.transmits.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.events.pop_front()
    }

    /// When the next retransmission (of a record, or of our handshake) is due.
    pub fn poll_timeout(&self) -> Option<u64> {
        let timeout = self.timer.timeout_ms();
        if !self.handshake_acknowledged {
            return Some(self.handshake_sent_at + u64::from(timeout));
        }
        self.send.values().filter_map(|s| s.deadline(timeout)).min()
    }
}
