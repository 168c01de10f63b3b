//! UDP records. One datagram holds several records back to back, walked with one shared
//! cursor; how each is wrapped depends on its opcode's stream mode: raw (opcode, body), or
//! latest/ordered (opcode, seq u16, length u16 counting the whole record, body). Mode 2's
//! header is an open question in the spec, so its layout is configurable.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::control::{is_control, Control, Cursor};
use super::policy::{MAX_DATAGRAM, MAX_SEQUENCED_PAYLOAD};
use super::seq;

/// The five-byte header of modes 1 and 3.
pub const HEADER: usize = 5;

/// An opcode's stream mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StreamMode {
    /// No sequence, no acknowledgement.
    Raw = 0,
    /// A newer sequence is delivered and moves the cursor past missing predecessors.
    Latest = 1,
    /// Every record delivered and acknowledged, without duplicate suppression.
    Mode2 = 2,
    /// The exact next sequence, then queued successors.
    Ordered = 3,
}

impl StreamMode {
    pub fn from_number(mode: u32) -> Option<Self> {
        Some(match mode {
            0 => Self::Raw,
            1 => Self::Latest,
            2 => Self::Mode2,
            3 => Self::Ordered,
            _ => return None,
        })
    }

    pub fn is_sequenced(self) -> bool {
        self != Self::Raw
    }
}

/// The layouts mode 2 may have; which one the client used was not recovered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode2Header {
    /// opcode, seq u16, length u16, as modes 1 and 3.
    #[default]
    SeqAndLength,
    /// opcode, seq u16, and the body runs to the end of the datagram.
    SeqOnly,
}

/// The named sequence groups that share one stream.
pub const GROUPS: [(&str, &[u8]); 2] = [
    ("Beacon", &[0x3a, 0x3b]),
    ("Squad", &[0x42, 0x46, 0x49, 0x4a]),
];

/// Per-opcode stream modes and groups, for one direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeTable {
    modes: Vec<StreamMode>,
    pub mode2: Mode2Header,
    groups: Vec<(String, Vec<u8>)>,
}

impl Default for ModeTable {
    /// Every opcode raw, the spec's named groups.
    fn default() -> Self {
        Self {
            modes: alloc::vec![StreamMode::Raw; 256],
            mode2: Mode2Header::default(),
            groups: GROUPS
                .iter()
                .map(|(name, members)| ((*name).into(), members.to_vec()))
                .collect(),
        }
    }
}

impl ModeTable {
    pub fn mode(&self, opcode: u8) -> StreamMode {
        self.modes[usize::from(opcode)]
    }

    pub fn set(&mut self, opcode: u8, mode: StreamMode) {
        self.modes[usize::from(opcode)] = mode;
    }

    /// The (opcode, mode) pairs that are not raw, for a handshake.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        (0..=255u8)
            .filter(|&op| self.mode(op) != StreamMode::Raw)
            .map(|op| (u32::from(op), self.mode(op) as u32))
            .collect()
    }

    pub fn groups(&self) -> &[(String, Vec<u8>)] {
        &self.groups
    }

    /// Replaces the groups (from a peer's handshake); opcodes past 255 are ignored.
    pub fn set_groups(&mut self, groups: &[(String, Vec<u32>)]) {
        self.groups = groups
            .iter()
            .map(|(name, members)| {
                let members = members
                    .iter()
                    .filter_map(|&m| u8::try_from(m).ok())
                    .collect();
                (name.clone(), members)
            })
            .collect();
    }

    /// The table a peer's D_HANDSHAKE announces for its records: the listed modes (others
    /// raw) and groups; mode 2's layout is kept from `self`, since no handshake carries it.
    pub fn announced(&self, handshake: &super::control::Handshake) -> Self {
        let mut table = Self {
            mode2: self.mode2,
            ..Self::default()
        };
        for &(opcode, mode) in &handshake.modes {
            if let (Ok(op), Some(mode)) = (u8::try_from(opcode), StreamMode::from_number(mode)) {
                table.set(op, mode);
            }
        }
        table.set_groups(&handshake.groups);
        table
    }

    /// The stream an opcode's records share: its group's first member, or its own.
    pub fn stream_of(&self, opcode: u8) -> u8 {
        self.groups
            .iter()
            .find(|(_, members)| members.contains(&opcode))
            .and_then(|(_, members)| members.first().copied())
            .unwrap_or(opcode)
    }
}

/// One record of a datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub opcode: u8,
    pub mode: StreamMode,
    pub seq: Option<u16>,
    /// The header's total length, where the mode has one.
    pub length: Option<u16>,
    pub body: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Fewer bytes than the mode's header.
    TruncatedHeader { opcode: u8, at: usize },
    /// A length below the header or past the datagram's end.
    BadLength { opcode: u8, length: u16 },
    /// Sequence 65,535, which no sender produces.
    InvalidSeq { opcode: u8 },
    /// A raw control whose body does not parse.
    BadControl { opcode: u8 },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TruncatedHeader { opcode, at } => {
                write!(f, "record 0x{opcode:02x} at byte {at}: header truncated")
            }
            Self::BadLength { opcode, length } => {
                write!(
                    f,
                    "record 0x{opcode:02x}: length {length} does not fit the datagram"
                )
            }
            Self::InvalidSeq { opcode } => {
                write!(f, "record 0x{opcode:02x}: sequence 65535 is never sent")
            }
            Self::BadControl { opcode } => write!(f, "control 0x{opcode:02x}: body does not parse"),
        }
    }
}

impl core::error::Error for RecordError {}

/// Walks the records of one datagram. After an error that leaves the cursor in place (a bad
/// sequence inside a sound length) walking goes on; otherwise it stops.
pub struct Walker<'a> {
    datagram: &'a [u8],
    at: usize,
    table: &'a ModeTable,
    done: bool,
}

impl<'a> Walker<'a> {
    pub fn new(datagram: &'a [u8], table: &'a ModeTable) -> Self {
        Self {
            datagram,
            at: 0,
            table,
            done: false,
        }
    }

    fn sequenced(
        &mut self,
        opcode: u8,
        mode: StreamMode,
        with_length: bool,
    ) -> Result<Record, RecordError> {
        let start = self.at;
        let header = if with_length { HEADER } else { 3 };
        let head = self
            .datagram
            .get(start..start + header)
            .ok_or(RecordError::TruncatedHeader { opcode, at: start })?;
        let seq = u16::from_be_bytes([head[1], head[2]]);
        let (end, length) = if with_length {
            let length = u16::from_be_bytes([head[3], head[4]]);
            let end = start + usize::from(length);
            if usize::from(length) < HEADER || end > self.datagram.len() {
                return Err(RecordError::BadLength { opcode, length });
            }
            (end, Some(length))
        } else {
            (self.datagram.len(), None)
        };
        self.at = end;
        if !seq::is_valid(seq) {
            return Err(RecordError::InvalidSeq { opcode });
        }
        Ok(Record {
            opcode,
            mode,
            seq: Some(seq),
            length,
            body: self.datagram[start + header..end].to_vec(),
        })
    }

    fn raw(&mut self, opcode: u8) -> Result<Record, RecordError> {
        let body_start = self.at + 1;
        let end = if is_control(opcode) {
            // Controls delimit themselves, so more records may follow them.
            let mut r = Cursor::new(&self.datagram[body_start..]);
            Control::read(opcode, &mut r).map_err(|_| RecordError::BadControl { opcode })?;
            body_start + r.position()
        } else {
            // A raw game record's extent is known only to its opcode's reader: the rest.
            self.datagram.len()
        };
        self.at = end;
        Ok(Record {
            opcode,
            mode: StreamMode::Raw,
            seq: None,
            length: None,
            body: self.datagram[body_start..end].to_vec(),
        })
    }
}

impl Iterator for Walker<'_> {
    type Item = Result<Record, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.at >= self.datagram.len() {
            return None;
        }
        let opcode = self.datagram[self.at];
        let mode = self.table.mode(opcode);
        let result = match (mode, self.table.mode2) {
            (StreamMode::Raw, _) => self.raw(opcode),
            (StreamMode::Mode2, Mode2Header::SeqOnly) => self.sequenced(opcode, mode, false),
            _ => self.sequenced(opcode, mode, true),
        };
        if matches!(&result, Err(e) if !matches!(e, RecordError::InvalidSeq { .. })) {
            self.done = true;
        }
        Some(result)
    }
}

/// Why a record or packet was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// A mode 1/3 payload (opcode and body) over 3,068 bytes.
    SequencedPayload { size: usize },
    /// A datagram over 3,072 bytes.
    Datagram { size: usize },
    /// A TCP payload over 10,240 bytes.
    TcpPayload { size: usize },
    /// More than 255 entity records in one packet.
    EntityRecords { count: usize },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SequencedPayload { size } => {
                write!(
                    f,
                    "sequenced payload of {size} bytes exceeds {MAX_SEQUENCED_PAYLOAD}"
                )
            }
            Self::Datagram { size } => write!(f, "datagram of {size} bytes exceeds {MAX_DATAGRAM}"),
            Self::TcpPayload { size } => write!(
                f,
                "TCP payload of {size} bytes exceeds {}",
                super::frame::MAX_PAYLOAD
            ),
            Self::EntityRecords { count } => write!(f, "{count} entity records exceed 255"),
        }
    }
}

impl core::error::Error for SizeError {}

/// Encodes one record in `mode` (a sequence for sequenced modes). Oversized records are an
/// error, never truncated.
pub fn emit(
    opcode: u8,
    mode: StreamMode,
    seq: u16,
    body: &[u8],
    mode2: Mode2Header,
) -> Result<Vec<u8>, SizeError> {
    let payload = 1 + body.len();
    let mut out = Vec::with_capacity(payload + 4);
    out.push(opcode);
    match (mode, mode2) {
        (StreamMode::Raw, _) => {}
        (StreamMode::Mode2, Mode2Header::SeqOnly) => out.extend_from_slice(&seq.to_be_bytes()),
        _ => {
            if payload > MAX_SEQUENCED_PAYLOAD {
                return Err(SizeError::SequencedPayload { size: payload });
            }
            out.extend_from_slice(&seq.to_be_bytes());
            // Backpatched by the stock sender after the body; known up front here.
            out.extend_from_slice(&((HEADER + body.len()) as u16).to_be_bytes());
        }
    }
    out.extend_from_slice(body);
    if out.len() > MAX_DATAGRAM {
        return Err(SizeError::Datagram { size: out.len() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn table() -> ModeTable {
        let mut t = ModeTable::default();
        t.set(0x19, StreamMode::Ordered);
        t.set(0x35, StreamMode::Latest);
        t
    }

    #[test]
    fn golden_records_from_the_spec() {
        // An empty 0x19 tank resend request is five bytes.
        let tank = emit(0x19, StreamMode::Ordered, 1, &[], Mode2Header::default()).unwrap();
        assert_eq!(tank, [0x19, 0x00, 0x01, 0x00, 0x05]);
        // A 0x35 viewpoint record carrying one i32 is nine.
        let view = emit(
            0x35,
            StreamMode::Latest,
            0x0203,
            &[0, 0, 0, 42],
            Mode2Header::default(),
        )
        .unwrap();
        assert_eq!(view, [0x35, 0x02, 0x03, 0x00, 0x09, 0, 0, 0, 42]);
        let mut datagram = tank.clone();
        datagram.extend_from_slice(&view);
        datagram.extend_from_slice(&[0x02, 1, 0x19, 0, 1]); // a raw D_ACK subtype 1
        datagram.extend_from_slice(&[0x40, 1, 2, 3]); // a raw game record: the rest
        let t = table();
        let records: Vec<Record> = Walker::new(&datagram, &t).map(Result::unwrap).collect();
        assert_eq!(records.len(), 4);
        assert_eq!(
            (records[0].opcode, records[0].seq, records[0].length),
            (0x19, Some(1), Some(5))
        );
        assert_eq!(records[1].body, [0, 0, 0, 42]);
        assert_eq!(
            (records[2].opcode, records[2].body.clone()),
            (0x02, vec![1, 0x19, 0, 1])
        );
        assert_eq!(
            (records[3].opcode, records[3].body.clone()),
            (0x40, vec![1, 2, 3])
        );
    }

    #[test]
    fn sizes_are_enforced_never_truncated() {
        let m = Mode2Header::default();
        assert!(emit(0x30, StreamMode::Ordered, 1, &vec![0; 3067], m).is_ok());
        assert_eq!(
            emit(0x30, StreamMode::Ordered, 1, &vec![0; 3068], m),
            Err(SizeError::SequencedPayload { size: 3069 })
        );
        assert_eq!(
            emit(0x30, StreamMode::Ordered, 1, &vec![0; 3067], m)
                .unwrap()
                .len(),
            3072
        );
        assert!(emit(0x30, StreamMode::Raw, 0, &vec![0; 3071], m).is_ok());
        assert_eq!(
            emit(0x30, StreamMode::Raw, 0, &vec![0; 3072], m),
            Err(SizeError::Datagram { size: 3073 })
        );
    }

    #[test]
    fn bad_headers_stop_the_walk_and_65535_is_refused() {
        let t = table();
        let mut walker = Walker::new(&[0x19, 0, 1, 0, 9, 1], &t);
        assert_eq!(
            walker.next(),
            Some(Err(RecordError::BadLength {
                opcode: 0x19,
                length: 9
            }))
        );
        assert_eq!(walker.next(), None);
        let datagram = [0x19, 0xff, 0xff, 0, 5, 0x19, 0, 2, 0, 5];
        let results: Vec<_> = Walker::new(&datagram, &t).collect();
        assert_eq!(results[0], Err(RecordError::InvalidSeq { opcode: 0x19 }));
        assert_eq!(results[1].as_ref().unwrap().seq, Some(2));
        assert_eq!(
            Walker::new(&[0x19, 0], &t).next(),
            Some(Err(RecordError::TruncatedHeader {
                opcode: 0x19,
                at: 0
            }))
        );
    }

    #[test]
    fn mode2_layout_is_configurable() {
        let mut t = table();
        t.set(0x50, StreamMode::Mode2);
        let five = emit(0x50, StreamMode::Mode2, 3, &[7], Mode2Header::SeqAndLength).unwrap();
        assert_eq!(five, [0x50, 0, 3, 0, 6, 7]);
        t.mode2 = Mode2Header::SeqOnly;
        let three = emit(0x50, StreamMode::Mode2, 3, &[7, 8], Mode2Header::SeqOnly).unwrap();
        assert_eq!(three, [0x50, 0, 3, 7, 8]);
        let record = Walker::new(&three, &t).next().unwrap().unwrap();
        assert_eq!(
            (record.seq, record.length, record.body),
            (Some(3), None, vec![7, 8])
        );
    }

    #[test]
    fn groups_share_a_stream() {
        let t = ModeTable::default();
        assert_eq!(t.stream_of(0x3b), 0x3a);
        assert_eq!(t.stream_of(0x4a), 0x42);
        assert_eq!(t.stream_of(0x47), 0x47, "0x47 is not in the Squad group");
    }

    proptest::proptest! {
        #[test]
        fn any_datagram_walks_without_panicking(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let mut t = table();
            t.set(0x00, StreamMode::Raw);
            for r in Walker::new(&bytes, &t) { let _ = r; }
            t.mode2 = Mode2Header::SeqOnly;
            t.set(bytes.first().copied().unwrap_or(0), StreamMode::Mode2);
            for r in Walker::new(&bytes, &t) { let _ = r; }
        }
    }
}
