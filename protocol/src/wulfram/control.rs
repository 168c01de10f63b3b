//! The transport controls, opcodes 0x00-0x04: diagnostic, D_IGNORE, D_ACK (three subtypes),
//! D_HANDSHAKE and D_SET_START. These are bodies; they travel in whatever stream mode the
//! handshake gave them.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

pub const DIAGNOSTIC: u8 = 0x00;
pub const D_IGNORE: u8 = 0x01;
pub const D_ACK: u8 = 0x02;
pub const D_HANDSHAKE: u8 = 0x03;
pub const D_SET_START: u8 = 0x04;

/// Whether `opcode` is a transport control.
pub fn is_control(opcode: u8) -> bool {
    opcode <= D_SET_START
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlError {
    Truncated,
    UnknownAckSubtype(u8),
    NotAControl(u8),
    /// A handshake count larger than the bytes left could hold.
    BadCount(u32),
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => f.write_str("control body truncated"),
            Self::UnknownAckSubtype(s) => write!(f, "D_ACK subtype {s} is not 0, 1 or 2"),
            Self::NotAControl(op) => write!(f, "opcode 0x{op:02x} is not a transport control"),
            Self::BadCount(n) => write!(f, "handshake count {n} exceeds the body"),
        }
    }
}

impl core::error::Error for ControlError {}

/// The three D_ACK forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ack {
    /// Subtype 0: a timestamp.
    Time { timestamp: u32 },
    /// Subtype 1: one record of one stream.
    Record { opcode: u8, seq: u16 },
    /// Subtype 2: answers D_SET_START; unpauses the sender's mode 1 stream.
    Start {
        timestamp: u32,
        opcode: u8,
        seq: u16,
    },
}

/// D_HANDSHAKE: the named groups and the modes the peer should expect for our records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handshake {
    pub timestamp: u32,
    pub connection_id: u32,
    pub groups: Vec<(String, Vec<u32>)>,
    /// (opcode, mode) pairs.
    pub modes: Vec<(u32, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    Diagnostic(Vec<u8>),
    Ignore { opcode: u8, seq: u16 },
    Ack(Ack),
    Handshake(Handshake),
    SetStart { opcode: u8, start: u16 },
}

/// A big-endian reader over one body.
pub struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub fn position(&self) -> usize {
        self.at
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ControlError> {
        let out = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or(ControlError::Truncated)?;
        self.at += n;
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, ControlError> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, ControlError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, ControlError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A string: u16 length counting the NUL, then that many bytes; the last is forced to
    /// NUL as the receiver does, so it is dropped here.
    pub fn string(&mut self) -> Result<String, ControlError> {
        let len = usize::from(self.u16()?);
        let bytes = self.take(len)?;
        let text = bytes.get(..len.saturating_sub(1)).unwrap_or_default();
        Ok(text
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| char::from(b))
            .collect())
    }

    /// A count of items of at least `item` bytes each, refused if the body cannot hold them.
    fn count(&mut self, item: usize) -> Result<usize, ControlError> {
        let n = self.u32()?;
        if (n as usize).saturating_mul(item) > self.remaining() {
            return Err(ControlError::BadCount(n));
        }
        Ok(n as usize)
    }
}

fn put_string(out: &mut Vec<u8>, text: &str) {
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(c).unwrap_or(b'?'))
        .collect();
    let len = (bytes.len() + 1).min(usize::from(u16::MAX));
    out.extend_from_slice(&(len as u16).to_be_bytes());
    out.extend_from_slice(&bytes[..len - 1]);
    out.push(0);
}

impl Control {
    pub fn opcode(&self) -> u8 {
        match self {
            Self::Diagnostic(_) => DIAGNOSTIC,
            Self::Ignore { .. } => D_IGNORE,
            Self::Ack(_) => D_ACK,
            Self::Handshake(_) => D_HANDSHAKE,
            Self::SetStart { .. } => D_SET_START,
        }
    }

    /// The body (after the opcode).
    pub fn body(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Self::Diagnostic(bytes) => {
                let n = bytes.len().min(255);
                out.push(n as u8);
                out.extend_from_slice(&bytes[..n]);
            }
            Self::Ignore { opcode, seq } => {
                out.push(*opcode);
                out.extend_from_slice(&seq.to_be_bytes());
            }
            Self::Ack(Ack::Time { timestamp }) => {
                out.push(0);
                out.extend_from_slice(&timestamp.to_be_bytes());
            }
            Self::Ack(Ack::Record { opcode, seq }) => {
                out.push(1);
                out.push(*opcode);
                out.extend_from_slice(&seq.to_be_bytes());
            }
            Self::Ack(Ack::Start {
                timestamp,
                opcode,
                seq,
            }) => {
                out.push(2);
                out.extend_from_slice(&timestamp.to_be_bytes());
                out.push(*opcode);
                out.extend_from_slice(&seq.to_be_bytes());
            }
            Self::Handshake(h) => {
                out.extend_from_slice(&h.timestamp.to_be_bytes());
                out.extend_from_slice(&h.connection_id.to_be_bytes());
                out.extend_from_slice(&(h.groups.len() as u32).to_be_bytes());
                for (name, members) in &h.groups {
                    put_string(&mut out, name);
                    out.extend_from_slice(&(members.len() as u32).to_be_bytes());
                    for m in members {
                        out.extend_from_slice(&m.to_be_bytes());
                    }
                }
                out.extend_from_slice(&(h.modes.len() as u32).to_be_bytes());
                for (opcode, mode) in &h.modes {
                    out.extend_from_slice(&opcode.to_be_bytes());
                    out.extend_from_slice(&mode.to_be_bytes());
                }
            }
            Self::SetStart { opcode, start } => {
                out.push(*opcode);
                out.extend_from_slice(&start.to_be_bytes());
            }
        }
        out
    }

    /// Reads a control body from the cursor (it may be followed by other records).
    pub fn read(opcode: u8, r: &mut Cursor<'_>) -> Result<Self, ControlError> {
        Ok(match opcode {
            DIAGNOSTIC => {
                let n = usize::from(r.u8()?);
                Self::Diagnostic(r.take(n)?.to_vec())
            }
            D_IGNORE => Self::Ignore {
                opcode: r.u8()?,
                seq: r.u16()?,
            },
            D_ACK => Self::Ack(match r.u8()? {
                0 => Ack::Time {
                    timestamp: r.u32()?,
                },
                1 => Ack::Record {
                    opcode: r.u8()?,
                    seq: r.u16()?,
                },
                2 => Ack::Start {
                    timestamp: r.u32()?,
                    opcode: r.u8()?,
                    seq: r.u16()?,
                },
                other => return Err(ControlError::UnknownAckSubtype(other)),
            }),
            D_HANDSHAKE => {
                let timestamp = r.u32()?;
                let connection_id = r.u32()?;
                let mut groups = Vec::new();
                for _ in 0..r.count(6)? {
                    let name = r.string()?;
                    let members = (0..r.count(4)?)
                        .map(|_| r.u32())
                        .collect::<Result<Vec<_>, _>>()?;
                    groups.push((name, members));
                }
                let modes = (0..r.count(8)?)
                    .map(|_| Ok((r.u32()?, r.u32()?)))
                    .collect::<Result<Vec<_>, ControlError>>()?;
                Self::Handshake(Handshake {
                    timestamp,
                    connection_id,
                    groups,
                    modes,
                })
            }
            D_SET_START => Self::SetStart {
                opcode: r.u8()?,
                start: r.u16()?,
            },
            other => return Err(ControlError::NotAControl(other)),
        })
    }

    /// Parses a whole body.
    pub fn parse(opcode: u8, body: &[u8]) -> Result<Self, ControlError> {
        Self::read(opcode, &mut Cursor::new(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn golden_control_bodies() {
        assert_eq!(
            Control::Ignore {
                opcode: 0x1f,
                seq: 0x0102
            }
            .body(),
            [0x1f, 1, 2]
        );
        assert_eq!(
            Control::Ack(Ack::Time { timestamp: 5 }).body(),
            [0, 0, 0, 0, 5]
        );
        assert_eq!(
            Control::Ack(Ack::Record {
                opcode: 0x1f,
                seq: 7
            })
            .body(),
            [1, 0x1f, 0, 7]
        );
        assert_eq!(
            Control::Ack(Ack::Start {
                timestamp: 1,
                opcode: 0x30,
                seq: 9
            })
            .body(),
            [2, 0, 0, 0, 1, 0x30, 0, 9]
        );
        assert_eq!(
            Control::SetStart {
                opcode: 0x30,
                start: 1
            }
            .body(),
            [0x30, 0, 1]
        );
        assert_eq!(Control::Diagnostic(vec![7, 8]).body(), [2, 7, 8]);
        let handshake = Control::Handshake(Handshake {
            timestamp: 1,
            connection_id: 2,
            groups: vec![("Beacon".into(), vec![0x3a, 0x3b])],
            modes: vec![(0x1f, 3)],
        });
        let body = handshake.body();
        let mut expected = vec![0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 7];
        expected.extend_from_slice(b"Beacon\0");
        expected.extend_from_slice(&[0, 0, 0, 2, 0, 0, 0, 0x3a, 0, 0, 0, 0x3b]);
        expected.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0x1f, 0, 0, 0, 3]);
        assert_eq!(body, expected);
        assert_eq!(Control::parse(D_HANDSHAKE, &body), Ok(handshake));
    }

    #[test]
    fn hostile_bodies_are_refused() {
        assert_eq!(
            Control::parse(D_ACK, &[3]),
            Err(ControlError::UnknownAckSubtype(3))
        );
        assert_eq!(
            Control::parse(D_IGNORE, &[1, 2]),
            Err(ControlError::Truncated)
        );
        assert_eq!(
            Control::parse(
                D_HANDSHAKE,
                &[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]
            ),
            Err(ControlError::BadCount(u32::MAX))
        );
        assert_eq!(Control::parse(9, &[]), Err(ControlError::NotAControl(9)));
    }

    proptest::proptest! {
        #[test]
        fn any_body_never_panics(op in 0u8..6, body in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = Control::parse(op, &body);
        }
    }
}
