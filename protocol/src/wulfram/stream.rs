//! Per-stream sequencing, one direction each: what a receiver delivers and acknowledges in
//! modes 1, 2 and 3, and what a sender keeps in flight and resends.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

use super::record::StreamMode;
use super::seq::{self, Position};

/// Ordered records waiting beyond the sender's window before the session is given up.
pub const MAX_BACKLOG: usize = 1024;

/// A record handed to the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub opcode: u8,
    pub seq: Option<u16>,
    pub body: Vec<u8>,
}

/// What one received record caused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Received {
    pub delivered: Vec<Delivered>,
    /// Acknowledge this record (D_ACK subtype 1).
    pub ack: bool,
    /// D_IGNORE markers applied, each acknowledged with subtype 1.
    pub ignored: Vec<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Queued {
    Record(u8, Vec<u8>),
    Ignore,
}

/// The receive side of one stream.
#[derive(Clone, Debug, Default)]
pub struct ReceiveStream {
    /// The last sequence delivered (or skipped); the stream starts expecting 1.
    last: u16,
    queued: BTreeMap<u16, Queued>,
}

impl ReceiveStream {
    pub fn new() -> Self {
        Self {
            last: seq::prev(seq::FIRST),
            queued: BTreeMap::new(),
        }
    }

    /// The next sequence expected.
    pub fn expected(&self) -> u16 {
        seq::next(self.last)
    }

    /// Delivers queued successors (records and ignore markers) from the cursor on.
    fn drain(&mut self, out: &mut Received) {
        while let Some(next) = self.queued.remove(&seq::next(self.last)) {
            self.last = seq::next(self.last);
            match next {
                Queued::Record(opcode, body) => out.delivered.push(Delivered {
                    opcode,
                    seq: Some(self.last),
                    body,
                }),
                Queued::Ignore => out.ignored.push(self.last),
            }
        }
    }

    /// Takes one record of `mode`.
    pub fn receive(&mut self, mode: StreamMode, opcode: u8, seq: u16, body: Vec<u8>) -> Received {
        let mut out = Received::default();
        let record = Delivered {
            opcode,
            seq: Some(seq),
            body,
        };
        match (mode, seq::position(self.last, seq)) {
            (_, Position::Invalid) => {}
            (StreamMode::Raw, _) => out.delivered.push(Delivered {
                seq: None,
                ..record
            }),
            (StreamMode::Mode2, _) => {
                out.delivered.push(record);
                out.ack = true;
            }
            (StreamMode::Latest, Position::Next | Position::Ahead(_)) => {
                // Newer: delivered, and the cursor moves past any missing predecessors.
                self.last = seq;
                out.delivered.push(record);
                out.ack = true;
            }
            (StreamMode::Latest, _) => {}
            (StreamMode::Ordered, Position::Next) => {
                self.last = seq;
                out.delivered.push(record);
                out.ack = true;
                self.drain(&mut out);
            }
            (StreamMode::Ordered, Position::Ahead(_)) => {
                // Queued and acknowledged; a second copy leaves the first in place.
                self.queued
                    .entry(seq)
                    .or_insert(Queued::Record(record.opcode, record.body));
                out.ack = true;
            }
            (StreamMode::Ordered, Position::Stale) => out.ack = true,
            // Past the window: not acknowledged, so the sender tries again later.
            (StreamMode::Ordered, Position::Beyond) => {}
        }
        out
    }

    /// D_IGNORE for this (ordered) stream: skip `seq`. A future one waits as a marker until it
    /// fills the next expected position.
    pub fn ignore(&mut self, seq: u16) -> Received {
        let mut out = Received::default();
        match seq::position(self.last, seq) {
            Position::Next => {
                self.last = seq;
                out.ignored.push(seq);
                self.drain(&mut out);
            }
            Position::Ahead(_) => {
                self.queued.insert(seq, Queued::Ignore);
            }
            Position::Stale => out.ignored.push(seq),
            Position::Beyond | Position::Invalid => {}
        }
        out
    }

    /// D_SET_START for a mode 1 stream: `start` becomes the next expected.
    pub fn set_start(&mut self, start: u16) {
        self.last = seq::prev(start);
        self.queued.clear();
    }
}

/// What a stream has to send now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Due {
    pub records: Vec<InFlight>,
    /// Records (or a pending D_SET_START) whose timeout passed.
    pub timeouts: usize,
    /// Send D_SET_START (opcode, start): the latest stream restarted its numbering.
    pub set_start: Option<(u8, u16)>,
}

/// A record in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    pub opcode: u8,
    pub seq: u16,
    pub body: Vec<u8>,
    pub sent_at: u64,
    pub retries: u32,
    /// Given up on: resent as D_IGNORE until the receiver acknowledges the skip.
    pub abandoned: bool,
}

/// Why a record was not queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendError {
    /// Too many ordered records backed up: the session should be dropped, not the record.
    Backlog,
}

impl core::fmt::Display for SendError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Backlog => f.write_str("too many ordered records are waiting to be sent"),
        }
    }
}

impl core::error::Error for SendError {}

/// The send side of one stream.
#[derive(Clone, Debug)]
pub struct SendStream {
    mode: StreamMode,
    next_seq: u16,
    in_flight: VecDeque<InFlight>,
    backlog: VecDeque<(u8, Vec<u8>)>,
    /// Set after D_SET_START until its subtype 2 acknowledgement.
    paused_at: Option<u16>,
    paused_since: u64,
    /// The opcode D_SET_START names.
    start_opcode: u8,
}

impl SendStream {
    pub fn new(mode: StreamMode) -> Self {
        Self {
            mode,
            next_seq: seq::FIRST,
            in_flight: VecDeque::new(),
            backlog: VecDeque::new(),
            paused_at: None,
            paused_since: 0,
            start_opcode: 0,
        }
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Queues a record. A latest stream keeps only the newest waiting records.
    pub fn push(&mut self, opcode: u8, body: Vec<u8>) -> Result<(), SendError> {
        if self.backlog.len() >= MAX_BACKLOG {
            if self.mode == StreamMode::Latest {
                self.backlog.pop_front();
            } else {
                return Err(SendError::Backlog);
            }
        }
        self.backlog.push_back((opcode, body));
        Ok(())
    }

    /// Records to transmit now: newly admitted ones (at most fifteen in flight) and resends of
    /// those whose `timeout_ms` has passed.
    ///
    /// An ordered stream resends the same record. A latest stream rebuilds instead: a resend
    /// of an old sequence could sit behind the receiver's cursor forever (stale records are not
    /// acknowledged in mode 1), so it drops what timed out, keeps the newest body, and restarts
    /// its numbering with D_SET_START, pausing until the subtype 2 acknowledgement.
    pub fn due(&mut self, now: u64, timeout_ms: u32) -> Due {
        let mut out = Due::default();
        let expired = |sent_at: u64| now.saturating_sub(sent_at) >= u64::from(timeout_ms);
        if let Some(start) = self.paused_at {
            if expired(self.paused_since) {
                self.paused_since = now;
                out.timeouts += 1;
                out.set_start = Some((self.start_opcode, start));
            }
            return out;
        }
        if self.mode == StreamMode::Latest && self.in_flight.iter().any(|r| expired(r.sent_at)) {
            out.timeouts += 1;
            if let Some(newest) = self.in_flight.pop_back() {
                if self.backlog.is_empty() {
                    self.backlog.push_front((newest.opcode, newest.body));
                }
                self.start_opcode = newest.opcode;
            }
            self.in_flight.clear();
            self.paused_at = Some(self.next_seq);
            self.paused_since = now;
            out.set_start = Some((self.start_opcode, self.next_seq));
            return out;
        }
        for record in &mut self.in_flight {
            if expired(record.sent_at) {
                record.sent_at = now;
                record.retries += 1;
                out.timeouts += 1;
                out.records.push(record.clone());
            }
        }
        while self.in_flight.len() < seq::MAX_IN_FLIGHT {
            let Some((opcode, body)) = self.backlog.pop_front() else {
                break;
            };
            let record = InFlight {
                opcode,
                seq: self.next_seq,
                body,
                sent_at: now,
                retries: 0,
                abandoned: false,
            };
            self.next_seq = seq::next(self.next_seq);
            out.records.push(record.clone());
            self.in_flight.push_back(record);
        }
        out
    }

    /// When the oldest record in flight times out.
    pub fn deadline(&self, timeout_ms: u32) -> Option<u64> {
        if self.paused_at.is_some() {
            return Some(self.paused_since + u64::from(timeout_ms));
        }
        self.in_flight
            .iter()
            .map(|r| r.sent_at + u64::from(timeout_ms))
            .min()
    }

    /// D_ACK subtype 1 for `seq`: retires it (in a latest stream, everything up to it, which
    /// the receiver has moved past). Returns the round trip of a record sent only once.
    pub fn acknowledge(&mut self, now: u64, seq: u16) -> Option<u32> {
        let index = self.in_flight.iter().position(|r| r.seq == seq)?;
        let record = self.in_flight.remove(index)?;
        if self.mode == StreamMode::Latest {
            // Keep only records newer than the acknowledged one.
            self.in_flight
                .retain(|r| u32::from(seq::ahead(r.seq, seq)) > seq::MODULUS / 2);
        }
        (record.retries == 0).then(|| now.saturating_sub(record.sent_at) as u32)
    }

    /// Gives up on an ordered record: from now on it is sent as D_IGNORE (at once, then on
    /// each timeout) until the receiver's subtype 1 acknowledgement retires it.
    pub fn abandon(&mut self, seq: u16) -> Option<InFlight> {
        let record = self.in_flight.iter_mut().find(|r| r.seq == seq)?;
        record.abandoned = true;
        record.body.clear();
        Some(record.clone())
    }

    /// Restarts a latest stream's numbering at `start` (sent as D_SET_START for `opcode`);
    /// sending pauses until the matching subtype 2 acknowledgement.
    pub fn set_start(&mut self, now: u64, opcode: u8, start: u16) {
        self.next_seq = start;
        self.in_flight.clear();
        self.paused_at = Some(start);
        self.paused_since = now;
        self.start_opcode = opcode;
    }

    /// D_ACK subtype 2: unpauses the stream if it names the pending start.
    pub fn start_acknowledged(&mut self, seq: u16) -> bool {
        if self.paused_at == Some(seq) {
            self.paused_at = None;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn bodies(r: &Received) -> Vec<u16> {
        r.delivered.iter().filter_map(|d| d.seq).collect()
    }

    #[test]
    fn ordered_delivers_the_next_then_queued_successors() {
        let mut s = ReceiveStream::new();
        let r = s.receive(StreamMode::Ordered, 0x1f, 2, vec![2]);
        assert!(r.ack && r.delivered.is_empty(), "queued and acknowledged");
        let r = s.receive(StreamMode::Ordered, 0x1f, 2, vec![99]);
        assert!(r.ack, "a duplicate is acknowledged");
        let r = s.receive(StreamMode::Ordered, 0x1f, 1, vec![1]);
        assert_eq!(bodies(&r), [1, 2]);
        assert_eq!(r.delivered[1].body, [2], "the first copy is kept");
        let r = s.receive(StreamMode::Ordered, 0x1f, 1, vec![1]);
        assert!(
            r.ack && r.delivered.is_empty(),
            "stale: acknowledged and dropped"
        );
        let r = s.receive(StreamMode::Ordered, 0x1f, 8, vec![]);
        assert!(!r.ack, "past the window of five");
        assert_eq!(s.expected(), 3);
    }

    #[test]
    fn latest_skips_missing_predecessors_and_ignores_older() {
        let mut s = ReceiveStream::new();
        assert_eq!(bodies(&s.receive(StreamMode::Latest, 0x35, 4, vec![])), [4]);
        let r = s.receive(StreamMode::Latest, 0x35, 2, vec![]);
        assert!(!r.ack && r.delivered.is_empty());
        assert_eq!(s.expected(), 5);
        s.set_start(100);
        assert_eq!(
            bodies(&s.receive(StreamMode::Latest, 0x35, 100, vec![])),
            [100]
        );
    }

    #[test]
    fn mode2_delivers_everything_and_65535_nothing() {
        let mut s = ReceiveStream::new();
        assert_eq!(bodies(&s.receive(StreamMode::Mode2, 0x50, 7, vec![])), [7]);
        assert_eq!(bodies(&s.receive(StreamMode::Mode2, 0x50, 7, vec![])), [7]);
        let r = s.receive(StreamMode::Ordered, 0x1f, 65_535, vec![]);
        assert_eq!(r, Received::default());
    }

    #[test]
    fn an_ignore_marker_waits_for_its_turn() {
        let mut s = ReceiveStream::new();
        assert!(
            s.ignore(2).ignored.is_empty(),
            "a future ignore is only stored"
        );
        s.receive(StreamMode::Ordered, 0x1f, 3, vec![3]);
        let r = s.receive(StreamMode::Ordered, 0x1f, 1, vec![1]);
        assert_eq!(bodies(&r), [1, 3]);
        assert_eq!(r.ignored, [2]);
        let r = s.ignore(4);
        assert_eq!(r.ignored, [4]);
        assert_eq!(s.expected(), 5);
    }

    #[test]
    fn wrap_from_65534_to_0() {
        let mut s = ReceiveStream::new();
        s.set_start(65_534);
        assert_eq!(
            bodies(&s.receive(StreamMode::Ordered, 0x1f, 0, vec![])),
            [0u16; 0]
        );
        let r = s.receive(StreamMode::Ordered, 0x1f, 65_534, vec![]);
        assert_eq!(bodies(&r), [65_534, 0]);
    }

    #[test]
    fn at_most_fifteen_in_flight_and_resends_after_the_timeout() {
        let mut s = SendStream::new(StreamMode::Ordered);
        for i in 0..20u8 {
            s.push(0x1f, vec![i]).unwrap();
        }
        let first = s.due(0, 500);
        assert_eq!((first.records.len(), first.timeouts), (15, 0));
        assert_eq!(first.records[0].seq, 1);
        assert_eq!(s.acknowledge(80, 1), Some(80));
        let next = s.due(100, 500);
        assert_eq!(next.records.iter().map(|r| r.seq).collect::<Vec<_>>(), [16]);
        let resent = s.due(500, 500);
        assert_eq!(
            (resent.records.len(), resent.timeouts),
            (14, 14),
            "2..=15 timed out; 16 not yet"
        );
        assert_eq!(
            s.acknowledge(600, 2),
            None,
            "no sample from a resent record"
        );
        assert_eq!(s.in_flight(), 14);
    }

    #[test]
    fn a_latest_ack_retires_everything_before_it() {
        let mut s = SendStream::new(StreamMode::Latest);
        for i in 0..5u8 {
            s.push(0x35, vec![i]).unwrap();
        }
        s.due(0, 500);
        s.acknowledge(10, 4);
        assert_eq!(s.in_flight(), 1, "only 5 remains");
        s.set_start(15, 0x35, 300);
        s.push(0x35, vec![9]).unwrap();
        assert!(
            s.due(20, 500).records.is_empty(),
            "paused until the start is acknowledged"
        );
        assert_eq!(
            s.due(515, 500).set_start,
            Some((0x35, 300)),
            "the start is resent"
        );
        assert!(!s.start_acknowledged(299));
        assert!(s.start_acknowledged(300));
        assert_eq!(s.due(530, 500).records[0].seq, 300);
    }

    #[test]
    fn a_latest_timeout_rebuilds_the_newest_under_a_new_start() {
        let mut s = SendStream::new(StreamMode::Latest);
        for i in 0..3u8 {
            s.push(0x35, vec![i]).unwrap();
        }
        s.due(0, 500);
        let due = s.due(500, 500);
        assert_eq!(due.set_start, Some((0x35, 4)));
        assert!(due.records.is_empty() && s.is_paused());
        assert!(s.start_acknowledged(4));
        let resumed = s.due(510, 500);
        assert_eq!(resumed.records.len(), 1);
        assert_eq!(
            (resumed.records[0].seq, resumed.records[0].body.clone()),
            (4, vec![2])
        );
    }

    #[test]
    fn an_ordered_backlog_overflow_is_an_error() {
        let mut s = SendStream::new(StreamMode::Ordered);
        for _ in 0..MAX_BACKLOG {
            s.push(0x1f, vec![]).unwrap();
        }
        assert_eq!(s.push(0x1f, vec![]), Err(SendError::Backlog));
        let mut latest = SendStream::new(StreamMode::Latest);
        for _ in 0..MAX_BACKLOG + 5 {
            latest.push(0x35, vec![]).unwrap();
        }
    }
}
