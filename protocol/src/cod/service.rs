//! The service records of one decoded server message, read in order up to `svc_EOF`, with the
//! world they need: the gamestate's baselines and the snapshot history. The client session and
//! the dissector both read server messages through here.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::download::{DownloadError, DownloadRecord, SVC_DOWNLOAD};
use super::entity::EntityState;
use super::gamestate::{Gamestate, GamestateError, SVC_EOF, SVC_GAMESTATE};
use super::msg::{MsgError, MsgReader};
use super::snapshot::{Base, History, Snapshot, SnapshotError, SVC_SNAPSHOT};

pub const SVC_NOP: u8 = 1;
pub const SVC_SERVER_COMMAND: u8 = 5;

/// The names of the service opcodes, by value.
pub const SERVICE_NAMES: [&str; 9] = [
    "svc_bad",
    "svc_nop",
    "svc_gamestate",
    "svc_configstring",
    "svc_baseline",
    "svc_serverCommand",
    "svc_download",
    "svc_snapshot",
    "svc_EOF",
];

/// One service record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    Nop,
    ServerCommand {
        sequence: i32,
        text: String,
    },
    Gamestate(Box<Gamestate>),
    /// `usable` is false when the delta base has aged out of the history: the snapshot was read
    /// to stay in step with the stream and must be dropped.
    Snapshot {
        snapshot: Box<Snapshot>,
        usable: bool,
    },
    Download(DownloadRecord),
    Eof,
}

/// Why a message's records stopped before `svc_EOF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceError {
    Msg(MsgError),
    Gamestate(GamestateError),
    Snapshot(SnapshotError),
    Download(DownloadError),
    /// A snapshot before any gamestate.
    NoGamestate,
    UnknownOpcode(u8),
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Msg(e) => write!(f, "{e}"),
            Self::Gamestate(e) => write!(f, "{e}"),
            Self::Snapshot(e) => write!(f, "{e}"),
            Self::Download(e) => write!(f, "{e}"),
            Self::NoGamestate => f.write_str("snapshot before any gamestate"),
            Self::UnknownOpcode(op) => write!(f, "opcode {op} is not a server service"),
        }
    }
}

impl core::error::Error for ServiceError {}

/// What later messages are read against.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Present once a gamestate has arrived.
    pub baselines: Option<BTreeMap<u16, EntityState>>,
    pub history: History,
}

/// Runs a sub-reader from the record's opcode on, then moves `r` past what it consumed: the
/// next opcode is read at the byte cursor, after any bit bytes the record used.
fn nested<'a, T, E>(
    body: &'a [u8],
    r: &mut MsgReader<'a>,
    read: impl FnOnce(&mut MsgReader<'a>) -> Result<T, E>,
) -> Result<T, E> {
    let start = r.position() - 1;
    let mut from_opcode = MsgReader::new(&body[start..]);
    let value = read(&mut from_opcode)?;
    let consumed = start + from_opcode.position();
    *r = MsgReader::new(body);
    let _ = r.read_data(consumed);
    Ok(value)
}

/// Reads the records of `body`, the decompressed body of server message `sequence`, updating
/// `world`. Returns the records read and, if they stopped early, why.
pub fn read_records(
    body: &[u8],
    sequence: u32,
    world: &mut World,
) -> (Vec<Record>, Option<ServiceError>) {
    let mut r = MsgReader::new(body);
    let mut records = Vec::new();
    loop {
        let opcode = match r.read_byte() {
            Ok(op) => op,
            Err(e) => return (records, Some(ServiceError::Msg(e))),
        };
        let record = match opcode {
            SVC_NOP => Ok(Record::Nop),
            SVC_SERVER_COMMAND => r
                .read_long()
                .and_then(|sequence| {
                    Ok(Record::ServerCommand {
                        sequence,
                        text: r.read_string()?,
                    })
                })
                .map_err(ServiceError::Msg),
            SVC_GAMESTATE => nested(body, &mut r, Gamestate::read)
                .map(|g| {
                    world.baselines = Some(g.baselines.clone());
                    world.history = History::new();
                    Record::Gamestate(Box::new(g))
                })
                .map_err(ServiceError::Gamestate),
            SVC_SNAPSHOT => match &world.baselines {
                None => Err(ServiceError::NoGamestate),
                Some(baselines) => {
                    let delta = body.get(r.position() + 4).copied().unwrap_or(0);
                    let (base, usable) = match world.history.base(sequence, delta) {
                        Base::Full => (None, true),
                        Base::Delta(s) => (Some(s.clone()), true),
                        Base::Unusable => (None, false),
                    };
                    nested(body, &mut r, |r| {
                        Snapshot::read(r, base.as_ref(), baselines)
                    })
                    .map(|snapshot| {
                        if usable {
                            world.history.store(sequence, snapshot.clone());
                        }
                        Record::Snapshot {
                            snapshot: Box::new(snapshot),
                            usable,
                        }
                    })
                    .map_err(ServiceError::Snapshot)
                }
            },
            SVC_DOWNLOAD => DownloadRecord::read(&mut r)
                .map(Record::Download)
                .map_err(ServiceError::Download),
            SVC_EOF => {
                records.push(Record::Eof);
                return (records, None);
            }
            other => Err(ServiceError::UnknownOpcode(other)),
        };
        match record {
            Ok(record) => records.push(record),
            Err(e) => return (records, Some(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::msg::MsgWriter;

    #[test]
    fn records_after_a_snapshot_are_read_at_the_byte_cursor() {
        let mut world = World::default();
        let mut gamestate = Gamestate::default();
        gamestate.baselines.insert(7, EntityState::zero(7));
        let mut w = MsgWriter::new();
        w.write_byte(SVC_SERVER_COMMAND);
        w.write_long(1);
        w.write_string(b"cs 0 x");
        gamestate.write(&mut w);
        w.write_byte(SVC_EOF);
        let (records, error) = read_records(&w.into_bytes(), 1, &mut world);
        assert_eq!(error, None);
        assert!(matches!(records[1], Record::Gamestate(_)));
        assert_eq!(records[2], Record::Eof);

        let mut snapshot = Snapshot {
            server_time: 50,
            ..Snapshot::default()
        };
        snapshot.entities.insert(7, EntityState::zero(7));
        let mut w = MsgWriter::new();
        snapshot.write(&mut w, None, &gamestate.baselines);
        DownloadRecord::Block {
            number: 0,
            total_size: Some(2),
            data: b"ab".to_vec(),
        }
        .write(&mut w);
        w.write_byte(SVC_NOP);
        w.write_byte(SVC_EOF);
        let (records, error) = read_records(&w.into_bytes(), 2, &mut world);
        assert_eq!(error, None, "{records:?}");
        assert_eq!(
            records[0],
            Record::Snapshot {
                snapshot: Box::new(snapshot),
                usable: true
            }
        );
        assert!(matches!(
            records[1],
            Record::Download(DownloadRecord::Block { number: 0, .. })
        ));
        assert_eq!(records[2..], [Record::Nop, Record::Eof]);
    }

    #[test]
    fn a_snapshot_needs_a_gamestate() {
        let mut w = MsgWriter::new();
        Snapshot::default().write(&mut w, None, &BTreeMap::new());
        let (records, error) = read_records(&w.into_bytes(), 1, &mut World::default());
        assert!(records.is_empty());
        assert_eq!(error, Some(ServiceError::NoGamestate));
        let (_, error) = read_records(&[9], 1, &mut World::default());
        assert_eq!(error, Some(ServiceError::UnknownOpcode(9)));
    }
}
