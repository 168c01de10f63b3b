//! The netchan: sequenced datagrams, the client's qport, and 1,300-byte fragments.
//!
//! Sans-IO: [`Netchan::handle_datagram`] takes what arrived, [`Netchan::transmit`] queues a
//! logical message, and [`Netchan::poll_transmit`] hands out the datagrams to send.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use super::MAX_MSGLEN;

/// A fragment of exactly this size means more follow.
pub const FRAGMENT_SIZE: usize = 1300;
/// Sequence bit 31 marks a fragment.
pub const FRAGMENT_BIT: u32 = 0x8000_0000;
/// The last sequence that does not collide with the fragment bit.
pub const MAX_SEQUENCE: u32 = 0x7fff_ffff;

/// Which end of the channel this is. A client's datagrams carry its qport; a server's do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// Why a datagram or a message was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetchanError {
    /// Shorter than its header.
    TooShort,
    /// The connectionless marker: not a netchan datagram.
    Connectionless,
    /// Not newer than the last accepted sequence (old or duplicate).
    Stale { sequence: u32, last: u32 },
    /// A fragment that does not start where the message so far ends.
    FragmentOutOfOrder { expected: usize, start: usize },
    /// A fragment whose declared length is longer than the datagram or 1,300 bytes.
    BadFragmentLength { length: usize },
    /// Reassembly would exceed 32,768 bytes.
    MessageTooLong,
    /// The client's qport is not the one this channel belongs to.
    QportMismatch { expected: u16, received: u16 },
    /// The next outgoing sequence would cross 0x7fffffff, where stock's fragment bit collides.
    SequenceExhausted,
}

impl fmt::Display for NetchanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort => f.write_str("datagram shorter than its netchan header"),
            Self::Connectionless => f.write_str("connectionless datagram, not netchan"),
            Self::Stale { sequence, last } => {
                write!(f, "sequence {sequence} is not newer than {last}")
            }
            Self::FragmentOutOfOrder { expected, start } => {
                write!(f, "fragment starts at {start}, expected {expected}")
            }
            Self::BadFragmentLength { length } => write!(f, "bad fragment length {length}"),
            Self::MessageTooLong => write!(f, "message longer than {MAX_MSGLEN} bytes"),
            Self::QportMismatch { expected, received } => {
                write!(f, "qport {received}, expected {expected}")
            }
            Self::SequenceExhausted => f.write_str("sequence space exhausted; reconnect"),
        }
    }
}

impl core::error::Error for NetchanError {}

/// A parsed netchan header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub sequence: u32,
    /// Present on client-to-server datagrams.
    pub qport: Option<u16>,
    /// (start, length) of a fragment.
    pub fragment: Option<(u16, u16)>,
}

impl Header {
    /// Parses the header of a datagram sent by `sender`; returns it and the bytes after it.
    pub fn parse(datagram: &[u8], sender: Side) -> Result<(Self, &[u8]), NetchanError> {
        let raw = datagram
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(NetchanError::TooShort)?;
        if raw == u32::MAX {
            return Err(NetchanError::Connectionless);
        }
        let mut at = 4;
        let u16_at = |at: &mut usize| {
            let b = datagram.get(*at..*at + 2).ok_or(NetchanError::TooShort)?;
            *at += 2;
            Ok(u16::from_le_bytes([b[0], b[1]]))
        };
        let qport = match sender {
            Side::Client => Some(u16_at(&mut at)?),
            Side::Server => None,
        };
        let fragment = if raw & FRAGMENT_BIT != 0 {
            Some((u16_at(&mut at)?, u16_at(&mut at)?))
        } else {
            None
        };
        let header = Self {
            sequence: raw & !FRAGMENT_BIT,
            qport,
            fragment,
        };
        Ok((header, &datagram[at..]))
    }

    /// Appends this header's bytes.
    pub fn emit(&self, out: &mut Vec<u8>) {
        let flag = if self.fragment.is_some() {
            FRAGMENT_BIT
        } else {
            0
        };
        out.extend_from_slice(&(self.sequence | flag).to_le_bytes());
        if let Some(qport) = self.qport {
            out.extend_from_slice(&qport.to_le_bytes());
        }
        if let Some((start, length)) = self.fragment {
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&length.to_le_bytes());
        }
    }
}

/// A whole logical message, delivered in sequence order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub sequence: u32,
    /// Sequences skipped since the previous delivered one.
    pub dropped: u32,
    pub payload: Vec<u8>,
}

/// One end of a netchan.
#[derive(Clone, Debug)]
pub struct Netchan {
    side: Side,
    qport: u16,
    outgoing_sequence: u32,
    incoming_sequence: u32,
    fragment_sequence: u32,
    fragment_buffer: Vec<u8>,
    transmits: VecDeque<Vec<u8>>,
}

impl Netchan {
    /// A channel for `side`; `qport` is the client's (sent by a client, checked by a server).
    pub fn new(side: Side, qport: u16) -> Self {
        Self {
            side,
            qport,
            outgoing_sequence: 1,
            incoming_sequence: 0,
            fragment_sequence: 0,
            fragment_buffer: Vec::new(),
            transmits: VecDeque::new(),
        }
    }

    /// The sequence the next transmitted message will carry.
    pub fn outgoing_sequence(&self) -> u32 {
        self.outgoing_sequence
    }

    /// The latest sequence delivered.
    pub fn incoming_sequence(&self) -> u32 {
        self.incoming_sequence
    }

    fn header(&self, fragment: Option<(u16, u16)>) -> Header {
        Header {
            sequence: self.outgoing_sequence,
            qport: (self.side == Side::Client).then_some(self.qport),
            fragment,
        }
    }

    /// Queues one logical message: one datagram, or 1,300-byte fragments when it is 1,300 bytes
    /// or longer (a final zero-length fragment when its size is a multiple of 1,300).
    /// Returns the sequence it was sent under.
    pub fn transmit(&mut self, payload: &[u8]) -> Result<u32, NetchanError> {
        if payload.len() > MAX_MSGLEN {
            return Err(NetchanError::MessageTooLong);
        }
        if self.outgoing_sequence > MAX_SEQUENCE {
            return Err(NetchanError::SequenceExhausted);
        }
        if payload.len() < FRAGMENT_SIZE {
            let mut datagram = Vec::with_capacity(payload.len() + 6);
            self.header(None).emit(&mut datagram);
            datagram.extend_from_slice(payload);
            self.transmits.push_back(datagram);
        } else {
            let mut start = 0;
            loop {
                let length = (payload.len() - start).min(FRAGMENT_SIZE);
                let mut datagram = Vec::with_capacity(length + 10);
                self.header(Some((start as u16, length as u16)))
                    .emit(&mut datagram);
                datagram.extend_from_slice(&payload[start..start + length]);
                self.transmits.push_back(datagram);
                start += length;
                if length < FRAGMENT_SIZE {
                    break;
                }
            }
        }
        let sequence = self.outgoing_sequence;
        self.outgoing_sequence += 1;
        Ok(sequence)
    }

    /// The next datagram to send, if any.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    /// Takes one datagram from the peer. A complete message comes back as `Some`; a fragment
    /// that leaves the message incomplete as `None`.
    pub fn handle_datagram(&mut self, datagram: &[u8]) -> Result<Option<Delivered>, NetchanError> {
        let sender = match self.side {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
        };
        let (header, body) = Header::parse(datagram, sender)?;
        if let Some(received) = header.qport {
            if received != self.qport {
                return Err(NetchanError::QportMismatch {
                    expected: self.qport,
                    received,
                });
            }
        }
        if header.sequence <= self.incoming_sequence {
            return Err(NetchanError::Stale {
                sequence: header.sequence,
                last: self.incoming_sequence,
            });
        }
        let payload = match header.fragment {
            None => body.to_vec(),
            Some((start, length)) => {
                let (start, length) = (usize::from(start), usize::from(length));
                if length > FRAGMENT_SIZE || length > body.len() {
                    return Err(NetchanError::BadFragmentLength { length });
                }
                if header.sequence != self.fragment_sequence {
                    self.fragment_sequence = header.sequence;
                    self.fragment_buffer.clear();
                }
                if start != self.fragment_buffer.len() {
                    return Err(NetchanError::FragmentOutOfOrder {
                        expected: self.fragment_buffer.len(),
                        start,
                    });
                }
                if self.fragment_buffer.len() + length > MAX_MSGLEN {
                    self.fragment_buffer.clear();
                    return Err(NetchanError::MessageTooLong);
                }
                self.fragment_buffer.extend_from_slice(&body[..length]);
                if length == FRAGMENT_SIZE {
                    return Ok(None);
                }
                core::mem::take(&mut self.fragment_buffer)
            }
        };
        let dropped = header.sequence - self.incoming_sequence - 1;
        self.incoming_sequence = header.sequence;
        Ok(Some(Delivered {
            sequence: header.sequence,
            dropped,
            payload,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn drain(chan: &mut Netchan) -> Vec<Vec<u8>> {
        core::iter::from_fn(|| chan.poll_transmit()).collect()
    }

    #[test]
    fn golden_unfragmented_headers_both_ways() {
        let mut client = Netchan::new(Side::Client, 0x1234);
        assert_eq!(client.transmit(b"hi"), Ok(1));
        assert_eq!(
            drain(&mut client),
            vec![vec![1, 0, 0, 0, 0x34, 0x12, b'h', b'i']]
        );
        let mut server = Netchan::new(Side::Server, 0x1234);
        server.transmit(b"ok").unwrap();
        server.transmit(b"").unwrap();
        assert_eq!(
            drain(&mut server),
            vec![vec![1, 0, 0, 0, b'o', b'k'], vec![2, 0, 0, 0]]
        );
        let delivered = server
            .handle_datagram(&[1, 0, 0, 0, 0x34, 0x12, b'h', b'i'])
            .unwrap();
        assert_eq!(
            delivered,
            Some(Delivered {
                sequence: 1,
                dropped: 0,
                payload: b"hi".to_vec()
            })
        );
        assert_eq!(
            client.handle_datagram(&[2, 0, 0, 0, b'o', b'k']).unwrap(),
            Some(Delivered {
                sequence: 2,
                dropped: 1,
                payload: b"ok".to_vec()
            })
        );
    }

    #[test]
    fn golden_fragments_with_the_zero_length_terminator() {
        let message: Vec<u8> = (0..2600).map(|i| i as u8).collect();
        let mut server = Netchan::new(Side::Server, 7);
        server.transmit(&message).unwrap();
        let datagrams = drain(&mut server);
        assert_eq!(datagrams.len(), 3);
        assert_eq!(datagrams[0][..8], [1, 0, 0, 0x80, 0, 0, 0x14, 0x05]);
        assert_eq!(datagrams[1][..8], [1, 0, 0, 0x80, 0x14, 0x05, 0x14, 0x05]);
        assert_eq!(datagrams[2], [1, 0, 0, 0x80, 0x28, 0x0a, 0, 0]);
        assert_eq!(datagrams[0].len(), 1308);
        let mut client = Netchan::new(Side::Client, 7);
        assert_eq!(client.handle_datagram(&datagrams[0]), Ok(None));
        assert_eq!(client.handle_datagram(&datagrams[1]), Ok(None));
        let whole = client.handle_datagram(&datagrams[2]).unwrap().unwrap();
        assert_eq!(whole.payload, message);

        let mut c = Netchan::new(Side::Client, 9);
        c.transmit(&[0xab; 1300]).unwrap();
        let d = drain(&mut c);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0][..10], [1, 0, 0, 0x80, 9, 0, 0, 0, 0x14, 0x05]);
        assert_eq!(d[1], [1, 0, 0, 0x80, 9, 0, 0x14, 0x05, 0, 0]);
    }

    #[test]
    fn stale_out_of_order_and_hostile_datagrams_are_refused() {
        let mut client = Netchan::new(Side::Client, 1);
        client.handle_datagram(&[5, 0, 0, 0]).unwrap();
        assert_eq!(
            client.handle_datagram(&[5, 0, 0, 0]),
            Err(NetchanError::Stale {
                sequence: 5,
                last: 5
            })
        );
        assert_eq!(
            client.handle_datagram(&[6, 0, 0]),
            Err(NetchanError::TooShort)
        );
        assert_eq!(
            client.handle_datagram(&[0xff; 8]),
            Err(NetchanError::Connectionless)
        );
        assert_eq!(
            client.handle_datagram(&[6, 0, 0, 0x80, 0x14, 0x05, 1, 0, 0]),
            Err(NetchanError::FragmentOutOfOrder {
                expected: 0,
                start: 1300
            })
        );
        assert_eq!(
            client.handle_datagram(&[6, 0, 0, 0x80, 0, 0, 9, 0, 1]),
            Err(NetchanError::BadFragmentLength { length: 9 })
        );
        let mut server = Netchan::new(Side::Server, 1);
        assert_eq!(
            server.handle_datagram(&[1, 0, 0, 0, 2, 0]),
            Err(NetchanError::QportMismatch {
                expected: 1,
                received: 2
            })
        );
    }

    #[test]
    fn reassembly_is_bounded() {
        let mut client = Netchan::new(Side::Client, 1);
        let mut fragment = vec![1, 0, 0, 0x80, 0, 0, 0x14, 0x05];
        fragment.extend_from_slice(&[0; 1300]);
        let mut start = 0u16;
        let mut result = Ok(None);
        while result == Ok(None) {
            fragment[4..6].copy_from_slice(&start.to_le_bytes());
            result = client.handle_datagram(&fragment);
            start = start.wrapping_add(1300);
        }
        assert_eq!(result, Err(NetchanError::MessageTooLong));
    }

    #[test]
    fn refuses_to_cross_the_fragment_bit() {
        let mut chan = Netchan::new(Side::Server, 0);
        chan.outgoing_sequence = MAX_SEQUENCE;
        assert_eq!(chan.transmit(b"last"), Ok(MAX_SEQUENCE));
        assert_eq!(chan.transmit(b"next"), Err(NetchanError::SequenceExhausted));
    }

    proptest::proptest! {
        /// Any pattern of loss, duplication and reordering delivers only whole, correct
        /// messages, each at most once and in increasing sequence order.
        #[test]
        fn lossy_links_never_deliver_a_wrong_message(
            sizes in proptest::collection::vec(0usize..5000, 1..12),
            schedule in proptest::collection::vec((0usize..64, 0u8..4), 0..120),
        ) {
            let mut sender = Netchan::new(Side::Server, 3);
            let mut messages = Vec::new();
            let mut wire = Vec::new();
            for (n, size) in sizes.iter().enumerate() {
                let message: Vec<u8> = (0..*size).map(|i| (i * 7 + n) as u8).collect();
                let sequence = sender.transmit(&message).unwrap();
                messages.push((sequence, message));
                wire.extend(drain(&mut sender));
            }
            let mut receiver = Netchan::new(Side::Client, 3);
            let mut last = 0;
            // The schedule picks datagrams (any order, repeats allowed, some never).
            for (pick, _) in schedule {
                if wire.is_empty() { break; }
                let datagram = &wire[pick % wire.len()];
                if let Ok(Some(delivered)) = receiver.handle_datagram(datagram) {
                    proptest::prop_assert!(delivered.sequence > last);
                    last = delivered.sequence;
                    let expected = &messages.iter().find(|(s, _)| *s == delivered.sequence).unwrap().1;
                    proptest::prop_assert_eq!(&delivered.payload, expected);
                }
            }
        }

        #[test]
        fn handle_never_panics(datagram in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = Netchan::new(Side::Client, 0).handle_datagram(&datagram);
            let _ = Netchan::new(Side::Server, 0).handle_datagram(&datagram);
        }
    }
}
