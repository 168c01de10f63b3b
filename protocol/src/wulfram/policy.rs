//! The size policy our side enforces on every outgoing packet before it reaches a socket, from
//! the client's limits: an oversized packet is dropped and reported, never truncated; long chat
//! is split; large entity updates go out in several packets.

use alloc::vec::Vec;
use core::ops::Range;

use super::frame::MAX_PAYLOAD;
use super::record::{ModeTable, SizeError, StreamMode, Walker, HEADER};

/// The client's UDP receive buffer: everything, opcode and envelope included.
pub const MAX_DATAGRAM: usize = 3072;
/// Opcode and body of a mode 1/3 record; the envelope adds four bytes.
pub const MAX_SEQUENCED_PAYLOAD: usize = MAX_DATAGRAM - (HEADER - 1);
/// Opcode and body of a TCP frame.
pub const MAX_TCP_PAYLOAD: usize = MAX_PAYLOAD;
/// Entity records in one packet.
pub const MAX_ENTITY_RECORDS: usize = 255;
/// Chat and server messages are split at this many bytes, or an earlier word or line break.
pub const CHAT_SPLIT: usize = 3052;

/// Splits a chat or server message into pieces of at most [`CHAT_SPLIT`] bytes, each ending
/// before the last space or newline that fits (which is dropped), or at the limit when a piece
/// has no break.
pub fn split_chat(text: &[u8]) -> Vec<&[u8]> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.len() > CHAT_SPLIT {
        let window = &rest[..=CHAT_SPLIT];
        match window.iter().rposition(|&b| b == b' ' || b == b'\n') {
            Some(i) if i > 0 => {
                pieces.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            _ => {
                pieces.push(&rest[..CHAT_SPLIT]);
                rest = &rest[CHAT_SPLIT..];
            }
        }
    }
    pieces.push(rest);
    pieces
}

/// Groups entity records (each already encoded) into packets: at most 255 records each, and
/// `overhead` plus their bytes within `limit` (a sequenced payload or a datagram). A record
/// that cannot fit even alone is returned as an error, never cut.
pub fn entity_batches(
    records: &[Vec<u8>],
    overhead: usize,
    limit: usize,
) -> Result<Vec<Range<usize>>, SizeError> {
    let mut batches = Vec::new();
    let mut start = 0;
    let mut size = overhead;
    for (i, record) in records.iter().enumerate() {
        if overhead + record.len() > limit {
            return Err(SizeError::SequencedPayload {
                size: overhead + record.len(),
            });
        }
        if i - start == MAX_ENTITY_RECORDS || size + record.len() > limit {
            batches.push(start..i);
            start = i;
            size = overhead;
        }
        size += record.len();
    }
    if start < records.len() {
        batches.push(start..records.len());
    }
    Ok(batches)
}

/// Checks an outgoing TCP payload (opcode and body).
pub fn check_tcp(body_len: usize) -> Result<(), SizeError> {
    let size = 1 + body_len;
    if size > MAX_TCP_PAYLOAD {
        return Err(SizeError::TcpPayload { size });
    }
    Ok(())
}

/// Checks a whole datagram against the limits, walking its records with `table`: the datagram
/// size, then every mode 1/3 record's payload. Malformed records are not a size matter: the
/// walk stops there and the datagram passes.
pub fn check_datagram(datagram: &[u8], table: &ModeTable) -> Result<(), SizeError> {
    if datagram.len() > MAX_DATAGRAM {
        return Err(SizeError::Datagram {
            size: datagram.len(),
        });
    }
    for record in Walker::new(datagram, table).map_while(Result::ok) {
        let payload = 1 + record.body.len();
        if matches!(record.mode, StreamMode::Latest | StreamMode::Ordered)
            && payload > MAX_SEQUENCED_PAYLOAD
        {
            return Err(SizeError::SequencedPayload { size: payload });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn the_limits_agree() {
        assert_eq!(MAX_SEQUENCED_PAYLOAD, 3068);
        assert_eq!(MAX_TCP_PAYLOAD, 10_240);
    }

    #[test]
    fn chat_splits_at_the_last_break_that_fits() {
        assert_eq!(split_chat(b"short"), [b"short"]);
        let mut text = vec![b'a'; 3000];
        text.push(b' ');
        text.extend(vec![b'b'; 100]);
        let pieces = split_chat(&text);
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].len(), 3000);
        assert_eq!(pieces[1], &[b'b'; 100][..]);
        // No break: a hard cut at 3,052.
        let text = vec![b'x'; 7000];
        let pieces = split_chat(&text);
        assert_eq!(
            pieces.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [3052, 3052, 896]
        );
        // A newline counts, and a break exactly at the limit is used.
        let mut text = vec![b'c'; 3052];
        text.push(b'\n');
        text.push(b'd');
        assert_eq!(split_chat(&text), [&[b'c'; 3052][..], b"d"]);
    }

    #[test]
    fn entity_updates_split_by_count_and_bytes() {
        let records = vec![vec![0u8; 10]; 600];
        let batches = entity_batches(&records, 9, MAX_SEQUENCED_PAYLOAD).unwrap();
        assert_eq!(batches, [0..255, 255..510, 510..600]);
        let big = vec![vec![0u8; 1000]; 7];
        let batches = entity_batches(&big, 9, MAX_SEQUENCED_PAYLOAD).unwrap();
        assert_eq!(batches, [0..3, 3..6, 6..7]);
        assert!(entity_batches(&[vec![0; 4000]], 9, MAX_SEQUENCED_PAYLOAD).is_err());
    }

    #[test]
    fn datagrams_are_checked_record_by_record() {
        let mut table = ModeTable::default();
        table.set(0x1f, StreamMode::Ordered);
        // A length past the datagram's end is malformed, not oversized.
        assert_eq!(check_datagram(&[0x1f, 0, 1, 0x0b, 0xfe, 0], &table), Ok(()));
        let ok =
            super::super::record::emit(0x1f, StreamMode::Ordered, 1, &[1; 100], Default::default())
                .unwrap();
        assert_eq!(check_datagram(&ok, &table), Ok(()));
        assert_eq!(
            check_datagram(&vec![0x40; 3073], &table),
            Err(SizeError::Datagram { size: 3073 })
        );
        assert_eq!(check_tcp(10_239), Ok(()));
        assert_eq!(
            check_tcp(10_240),
            Err(SizeError::TcpPayload { size: 10_241 })
        );
    }
}
