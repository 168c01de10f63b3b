//! Reliable commands: 64-entry rings in each direction, repeated until acknowledged.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Commands either side keeps in flight.
pub const RING: usize = 64;

/// Why a reliable command was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReliableError {
    /// Sending one more would overwrite a command the peer has not acknowledged.
    Overflow,
    /// The peer acknowledged a command that was never sent.
    FutureAcknowledge { acknowledged: i32, sent: i32 },
    /// A received command skips sequences: reliable-command synchronization is lost.
    Gap { expected: i32, received: i32 },
}

impl fmt::Display for ReliableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Overflow => write!(f, "more than {RING} unacknowledged reliable commands"),
            Self::FutureAcknowledge { acknowledged, sent } => write!(
                f,
                "peer acknowledged command {acknowledged} but only {sent} were sent"
            ),
            Self::Gap { expected, received } => write!(
                f,
                "reliable command {received} arrived while {expected} was expected"
            ),
        }
    }
}

impl core::error::Error for ReliableError {}

/// Whether `sequence` (from the peer: any value) is one of the latest [`RING`] up to `latest`.
fn in_ring(latest: i32, sequence: i32) -> bool {
    let behind = i64::from(latest) - i64::from(sequence);
    sequence > 0 && (0..RING as i64).contains(&behind)
}

fn slot(sequence: i32) -> usize {
    (sequence as u32 as usize) % RING
}

/// Commands this side sends, kept until the peer acknowledges them.
#[derive(Clone, Debug)]
pub struct OutgoingCommands {
    sequence: i32,
    acknowledged: i32,
    ring: Vec<String>,
}

impl Default for OutgoingCommands {
    fn default() -> Self {
        Self {
            sequence: 0,
            acknowledged: 0,
            ring: alloc::vec![String::new(); RING],
        }
    }
}

impl OutgoingCommands {
    /// Queues a command; its sequence is the previous one plus one.
    pub fn push(&mut self, text: &str) -> Result<i32, ReliableError> {
        if self.sequence.wrapping_sub(self.acknowledged) >= RING as i32 {
            return Err(ReliableError::Overflow);
        }
        self.sequence = self.sequence.wrapping_add(1);
        self.ring[slot(self.sequence)] = text.into();
        Ok(self.sequence)
    }

    /// Records the peer's acknowledgement; an older one than already seen changes nothing.
    pub fn acknowledge(&mut self, acknowledged: i32) -> Result<(), ReliableError> {
        if acknowledged > self.sequence {
            return Err(ReliableError::FutureAcknowledge {
                acknowledged,
                sent: self.sequence,
            });
        }
        self.acknowledged = self.acknowledged.max(acknowledged);
        Ok(())
    }

    /// The commands to repeat in the next message: every one after the acknowledgement.
    pub fn pending(&self) -> impl Iterator<Item = (i32, &str)> {
        (self.acknowledged + 1..=self.sequence).map(|s| (s, self.ring[slot(s)].as_str()))
    }

    /// The text of a command still in the ring.
    pub fn get(&self, sequence: i32) -> Option<&str> {
        in_ring(self.sequence, sequence).then(|| self.ring[slot(sequence)].as_str())
    }

    pub fn sequence(&self) -> i32 {
        self.sequence
    }

    pub fn acknowledged(&self) -> i32 {
        self.acknowledged
    }
}

/// Commands received from the peer, accepted strictly in order.
#[derive(Clone, Debug)]
pub struct IncomingCommands {
    sequence: i32,
    ring: Vec<String>,
    /// The latest command as the stock server stores it for the XOR key stream: written over the
    /// previous one with its NUL, the rest of the old text left in place.
    storage: Vec<u8>,
}

impl Default for IncomingCommands {
    fn default() -> Self {
        Self {
            sequence: 0,
            ring: alloc::vec![String::new(); RING],
            storage: Vec::new(),
        }
    }
}

impl IncomingCommands {
    /// Starts counting from `sequence` (a gamestate assigns it).
    pub fn reset(&mut self, sequence: i32) {
        self.sequence = sequence;
    }

    /// Takes one received command: `Ok(true)` if new, `Ok(false)` for a repeat.
    pub fn receive(&mut self, sequence: i32, text: &str) -> Result<bool, ReliableError> {
        if sequence <= self.sequence {
            return Ok(false);
        }
        let expected = self.sequence.wrapping_add(1);
        if sequence != expected {
            return Err(ReliableError::Gap {
                expected,
                received: sequence,
            });
        }
        self.sequence = sequence;
        self.ring[slot(sequence)] = text.into();
        let bytes = text.as_bytes();
        if self.storage.len() < bytes.len() + 1 {
            self.storage.resize(bytes.len() + 1, 0);
        }
        self.storage[..bytes.len()].copy_from_slice(bytes);
        self.storage[bytes.len()] = 0;
        Ok(true)
    }

    /// The latest sequence received.
    pub fn sequence(&self) -> i32 {
        self.sequence
    }

    /// The text of a received command still in the ring.
    pub fn get(&self, sequence: i32) -> Option<&str> {
        in_ring(self.sequence, sequence).then(|| self.ring[slot(sequence)].as_str())
    }

    /// The latest command's storage, stale bytes included (the server-to-client XOR input).
    pub fn storage(&self) -> &[u8] {
        &self.storage
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn outgoing_repeats_until_acknowledged_and_bounds_the_window() {
        let mut out = OutgoingCommands::default();
        assert_eq!(out.push("userinfo x"), Ok(1));
        assert_eq!(out.push("say hi"), Ok(2));
        assert_eq!(
            out.pending().collect::<Vec<_>>(),
            vec![(1, "userinfo x"), (2, "say hi")]
        );
        out.acknowledge(1).unwrap();
        out.acknowledge(0).unwrap();
        assert_eq!(out.pending().collect::<Vec<_>>(), vec![(2, "say hi")]);
        assert_eq!(
            out.acknowledge(3),
            Err(ReliableError::FutureAcknowledge {
                acknowledged: 3,
                sent: 2
            })
        );
        for i in 0..63 {
            out.push(&alloc::format!("c{i}")).unwrap();
        }
        assert_eq!(out.push("one too many"), Err(ReliableError::Overflow));
        assert_eq!(out.get(65), Some("c62"));
        assert_eq!(out.get(1), None);
    }

    #[test]
    fn incoming_ignores_repeats_and_rejects_gaps() {
        let mut incoming = IncomingCommands::default();
        assert_eq!(incoming.receive(1, "cs 1 x"), Ok(true));
        assert_eq!(incoming.receive(1, "cs 1 x"), Ok(false));
        assert_eq!(
            incoming.receive(3, "print"),
            Err(ReliableError::Gap {
                expected: 2,
                received: 3
            })
        );
        assert_eq!(incoming.sequence(), 1);
        assert_eq!(incoming.get(1), Some("cs 1 x"));
    }

    #[test]
    fn any_sequence_from_a_peer_is_looked_up_safely() {
        let mut out = OutgoingCommands::default();
        out.push("a").unwrap();
        let mut incoming = IncomingCommands::default();
        incoming.receive(1, "a").unwrap();
        for hostile in [i32::MIN, -1, 0, 2, i32::MAX] {
            assert_eq!(out.get(hostile), None);
            assert_eq!(incoming.get(hostile), None);
        }
        assert_eq!(out.get(1), Some("a"));
    }

    #[test]
    fn storage_keeps_stale_bytes_like_stock() {
        let mut incoming = IncomingCommands::default();
        incoming.receive(1, "abc").unwrap();
        incoming.receive(2, "").unwrap();
        assert_eq!(incoming.storage(), b"\0bc\0");
    }
}
