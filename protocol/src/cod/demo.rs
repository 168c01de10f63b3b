//! Stock demo files (`demos/NAME.dm_3`, demo protocol 3): records of `i32 sequence`, `i32
//! length`, then the server message as the client held it after the netchan: a 4-byte clear
//! prefix (read back as `reliableAcknowledge`) and the body still Huffman-compressed, with the
//! XOR already removed. Two `-1` longs end the file. All integers little-endian.
//!
//! The first record is synthesized by `record` from the gamestate as it stands
//! ([`first_payload`]); [`Records`] reads a file back, and [`Playback`] reads its records as
//! the client session reads live messages ([`ServerStream`]), so `cod::service` decodes both.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::gamestate::CS_SERVERINFO;
use super::gamestate::{Gamestate, SVC_EOF};
use super::huffman::{fixed, HuffmanError};
use super::info::InfoString;
use super::msg::MsgWriter;
use super::sequenced::SERVER_HEADER_LEN;
use super::stream::{Heard, ServerStream};
use super::MAX_MSGLEN;

/// The demo protocol in the extension: `.dm_3`, not the network protocol 22.
pub const DEMO_PROTOCOL: u32 = 3;
pub const EXTENSION: &str = "dm_3";
/// `seq = -1`, `len = -1`: CL_StopRecord_f's end of file.
pub const END_MARKER: [u8; 8] = [0xff; 8];
/// Bytes of a record's sequence and length.
const RECORD_HEADER_LEN: usize = 8;

/// Frames one record.
pub fn frame(sequence: i32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(RECORD_HEADER_LEN + payload.len());
    out.extend_from_slice(&sequence.to_le_bytes());
    out.extend_from_slice(&(payload.len() as i32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The synthesized first record's payload (CL_Record_f): the client's reliable sequence in
/// clear, then compressed: `svc_gamestate` with the command sequence, every configstring as it
/// stands, every baseline from a zero state, `svc_EOF`, the client number and checksum feed,
/// and the outer `svc_EOF`.
pub fn first_payload(
    gamestate: &Gamestate,
    reliable_sequence: i32,
    server_command_sequence: i32,
) -> Vec<u8> {
    let current = Gamestate {
        server_command_sequence,
        ..gamestate.clone()
    };
    let mut w = MsgWriter::new();
    current.write(&mut w);
    w.write_byte(SVC_EOF);
    let mut payload = reliable_sequence.to_le_bytes().to_vec();
    payload.extend(fixed::compress(&w.into_bytes()));
    payload
}

/// The map a gamestate is for (`mapname` in configstring 0), for file names.
pub fn map_name(gamestate: &Gamestate) -> String {
    gamestate
        .configstrings
        .get(&CS_SERVERINFO)
        .and_then(|cs| InfoString::parse(cs, 8192).ok())
        .and_then(|info| info.get("mapname").map(String::from))
        .unwrap_or_default()
}

/// Why a demo file could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemoError {
    /// The file ends inside the record starting at `offset`.
    Truncated { offset: usize },
    /// A length that is neither the end marker nor a message (4 to 32,768 bytes).
    BadLength { offset: usize, length: i32 },
    /// The record's body does not decompress.
    Body { offset: usize, error: HuffmanError },
    /// Not one record before the end.
    Empty,
    /// The first record is not a gamestate, so nothing after it can be read.
    NoGamestate,
}

impl fmt::Display for DemoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated { offset } => {
                write!(f, "the file ends inside the record at byte {offset}")
            }
            Self::BadLength { offset, length } => write!(
                f,
                "the record at byte {offset} has length {length}: not a demo record"
            ),
            Self::Body { offset, error } => {
                write!(
                    f,
                    "the record at byte {offset} does not decompress: {error}"
                )
            }
            Self::Empty => f.write_str("no records: not a demo, or an empty one"),
            Self::NoGamestate => f.write_str("the first record holds no gamestate"),
        }
    }
}

impl core::error::Error for DemoError {}

/// One record of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoRecord<'a> {
    /// Where the record starts in the file.
    pub offset: usize,
    /// The server message's netchan sequence (snapshot deltas count back from it).
    pub sequence: i32,
    /// The clear prefix and the compressed body.
    pub payload: &'a [u8],
}

impl DemoRecord<'_> {
    /// The clear prefix: the client's reliable sequence for the synthesized record, the
    /// server's `reliableAcknowledge` for live ones.
    pub fn reliable_acknowledge(&self) -> i32 {
        let p = self.payload;
        i32::from_le_bytes([p[0], p[1], p[2], p[3]])
    }

    /// The decompressed message body, bounded as a live one is.
    pub fn body(&self) -> Result<Vec<u8>, DemoError> {
        fixed::decompress(&self.payload[SERVER_HEADER_LEN..], MAX_MSGLEN).map_err(|error| {
            DemoError::Body {
                offset: self.offset,
                error,
            }
        })
    }
}

/// The records of a demo file, in order, up to the end marker or the end of the file; an error
/// ends them.
#[derive(Clone, Debug)]
pub struct Records<'a> {
    data: &'a [u8],
    at: usize,
    done: bool,
    /// The end marker was read (a file cut off at a record boundary has none).
    pub ended: bool,
}

impl<'a> Records<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            at: 0,
            done: false,
            ended: false,
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<DemoRecord<'a>, DemoError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let offset = self.at;
        let rest = &self.data[offset..];
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        let long = |at: usize| -> Option<i32> {
            Some(i32::from_le_bytes(rest.get(at..at + 4)?.try_into().ok()?))
        };
        let (Some(sequence), Some(length)) = (long(0), long(4)) else {
            self.done = true;
            return Some(Err(DemoError::Truncated { offset }));
        };
        if length == -1 {
            self.done = true;
            self.ended = true;
            return None;
        }
        if !(SERVER_HEADER_LEN as i32..=MAX_MSGLEN as i32).contains(&length) {
            self.done = true;
            return Some(Err(DemoError::BadLength { offset, length }));
        }
        let end = RECORD_HEADER_LEN + length as usize;
        let Some(payload) = rest.get(RECORD_HEADER_LEN..end) else {
            self.done = true;
            return Some(Err(DemoError::Truncated { offset }));
        };
        self.at += end;
        Some(Ok(DemoRecord {
            offset,
            sequence,
            payload,
        }))
    }
}

/// Reads records as the client reads live messages: one stream, commands taken leniently
/// (stock playback skips the ones a recording missed).
#[derive(Clone, Debug)]
pub struct Playback {
    stream: ServerStream,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            stream: ServerStream::lenient(),
        }
    }
}

impl Playback {
    pub fn new() -> Self {
        Self::default()
    }

    /// What one record's message says.
    pub fn read(&mut self, record: &DemoRecord<'_>) -> Result<Vec<Heard>, DemoError> {
        let body = record.body()?;
        Ok(self.stream.read(&body, record.sequence as u32))
    }

    /// See [`ServerStream::retain_history`].
    pub fn retain_history(&mut self, keep: impl Fn(u32) -> bool) {
        self.stream.retain_history(keep);
    }

    /// The gamestate as it stands, with configstring changes applied.
    pub fn gamestate(&self) -> Option<&Gamestate> {
        self.stream.gamestate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::stream::Said;
    use alloc::vec;

    fn gamestate() -> Gamestate {
        let mut g = Gamestate {
            server_command_sequence: 3,
            client_num: 5,
            checksum_feed: 0x1234,
            ..Gamestate::default()
        };
        g.configstrings
            .insert(0, "\\mapname\\mp_foy\\g_gametype\\tdm".into());
        g
    }

    #[test]
    fn golden_first_record() {
        // CL_Record_f's order, built by hand: reliable sequence 9 in clear; compressed:
        // svc_gamestate, command sequence 7, configstring 0, svc_EOF, clientNum, checksumFeed,
        // svc_EOF.
        let mut body = vec![2, 7, 0, 0, 0, 3, 0, 0];
        body.extend_from_slice(b"\\mapname\\mp_foy\\g_gametype\\tdm\0");
        body.extend_from_slice(&[8, 5, 0, 0, 0, 0x34, 0x12, 0, 0, 8]);
        let mut golden = vec![0x2a, 0, 0, 0];
        let compressed = fixed::compress(&body);
        golden.extend_from_slice(&((4 + compressed.len()) as i32).to_le_bytes());
        golden.extend_from_slice(&[9, 0, 0, 0]);
        golden.extend_from_slice(&compressed);
        assert_eq!(frame(42, &first_payload(&gamestate(), 9, 7)), golden);
    }

    #[test]
    fn a_file_reads_back_to_its_messages() {
        let mut file = frame(42, &first_payload(&gamestate(), 9, 7));
        file.extend(END_MARKER);
        let mut records = Records::new(&file);
        let first = records.next().unwrap().unwrap();
        assert_eq!((first.offset, first.sequence), (0, 42));
        assert_eq!(first.reliable_acknowledge(), 9);
        assert!(records.next().is_none());
        assert!(records.ended);
        let heard = Playback::new().read(&first).unwrap();
        let Heard::Said(Said::Gamestate(g)) = &heard[0] else {
            panic!("{heard:?}")
        };
        assert_eq!(
            **g,
            Gamestate {
                server_command_sequence: 7,
                ..gamestate()
            }
        );
        assert_eq!(map_name(g), "mp_foy");
    }

    #[test]
    fn malformed_files_say_where() {
        let record = frame(1, &first_payload(&gamestate(), 0, 0));
        let errors = |file: &[u8]| -> Vec<DemoError> {
            Records::new(file).filter_map(Result::err).collect()
        };
        assert_eq!(
            errors(&record[..record.len() - 1]),
            [DemoError::Truncated { offset: 0 }]
        );
        assert_eq!(errors(&record[..6]), [DemoError::Truncated { offset: 0 }]);
        let mut bad = record.clone();
        bad.extend_from_slice(&[0, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(
            errors(&bad),
            [DemoError::BadLength {
                offset: record.len(),
                length: 2
            }]
        );
        let mut huge = vec![0; 4];
        huge.extend_from_slice(&0x10_0000i32.to_le_bytes());
        assert_eq!(
            errors(&huge),
            [DemoError::BadLength {
                offset: 0,
                length: 0x10_0000
            }]
        );
        // A file cut at a record boundary ends there, as stock playback ends at a short read.
        let mut records = Records::new(&record);
        assert!(records.next().unwrap().is_ok());
        assert!(records.next().is_none());
        assert!(!records.ended);
    }

    proptest::proptest! {
        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let mut playback = Playback::new();
            for record in Records::new(&bytes).flatten() {
                let _ = playback.read(&record);
            }
        }
    }
}
