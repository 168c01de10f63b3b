//! The legacy master query: `getservers 22 full empty` and its binary `getserversResponse` lists.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::net::{Ipv4Addr, SocketAddrV4};

use super::oob::MARKER;

/// The response command; the first token of a list packet starts with it.
pub const RESPONSE_COMMAND: &[u8] = b"getserversResponse";
/// Addresses one list packet may carry, as the stock client parses them.
pub const MAX_ADDRESSES_PER_PACKET: usize = 256;
/// Bytes of one address record: backslash, IPv4, port (network order).
pub const RECORD_LEN: usize = 7;
/// Bytes a header may skip before its first record (`\n\0` and similar variants).
const MAX_HEADER_SLACK: usize = 8;

/// How a list packet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ListEnd {
    /// `\EOT`: this packet is complete; more may follow.
    Eot,
    /// `\EOF`: the whole list is complete.
    Eof,
    /// The datagram ended after a whole record with no terminator.
    Unterminated,
}

/// Why a list packet was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MasterError {
    /// The datagram does not begin with the marker and `getserversResponse`.
    NotAList,
    /// No record follows the header.
    MissingRecords,
    /// A record does not start with a backslash.
    BadRecord { offset: usize },
    /// A record is cut short by the end of the datagram.
    Truncated { offset: usize },
    /// More addresses than one packet may carry.
    TooManyAddresses,
}

impl fmt::Display for MasterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAList => f.write_str("not a getserversResponse packet"),
            Self::MissingRecords => f.write_str("getserversResponse has no address records"),
            Self::BadRecord { offset } => write!(f, "expected '\\' at byte {offset}"),
            Self::Truncated { offset } => write!(f, "address record at byte {offset} is cut short"),
            Self::TooManyAddresses => write!(
                f,
                "more than {MAX_ADDRESSES_PER_PACKET} addresses in one packet"
            ),
        }
    }
}

impl core::error::Error for MasterError {}

/// `getservers <protocol> [keyword ...]`: `full` and `empty` widen the list, `demo` marks a demo client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetServers {
    pub protocol: u32,
    pub keywords: Vec<String>,
}

impl GetServers {
    /// What a stock UO 1.51 client asks: every protocol-22 server, full and empty ones included.
    pub fn full_and_empty() -> Self {
        Self {
            protocol: super::PROTOCOL_VERSION,
            keywords: ["full", "empty"].into_iter().map(String::from).collect(),
        }
    }

    fn has(&self, keyword: &str) -> bool {
        self.keywords
            .iter()
            .any(|k| k.eq_ignore_ascii_case(keyword))
    }

    pub fn wants_full(&self) -> bool {
        self.has("full")
    }

    pub fn wants_empty(&self) -> bool {
        self.has("empty")
    }
}

/// One parsed list packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerList {
    pub servers: Vec<SocketAddrV4>,
    pub end: ListEnd,
}

impl ServerList {
    /// Parses a whole datagram (marker included).
    pub fn parse(datagram: &[u8]) -> Result<Self, MasterError> {
        let body = datagram
            .strip_prefix(&MARKER)
            .ok_or(MasterError::NotAList)?;
        let head = body
            .get(..RESPONSE_COMMAND.len())
            .ok_or(MasterError::NotAList)?;
        if !head.eq_ignore_ascii_case(RESPONSE_COMMAND) {
            return Err(MasterError::NotAList);
        }
        let start = MARKER.len() + RESPONSE_COMMAND.len();
        let first = datagram[start..]
            .iter()
            .take(MAX_HEADER_SLACK)
            .position(|&b| b == b'\\')
            .ok_or(MasterError::MissingRecords)?;
        Self::parse_records(datagram, start + first)
    }

    fn parse_records(datagram: &[u8], mut at: usize) -> Result<Self, MasterError> {
        let mut servers = Vec::new();
        while at < datagram.len() {
            if datagram[at] != b'\\' {
                return Err(MasterError::BadRecord { offset: at });
            }
            match datagram.get(at + 1..at + 4) {
                Some(b"EOT") => return Ok(Self::ended(servers, ListEnd::Eot)),
                Some(b"EOF") => return Ok(Self::ended(servers, ListEnd::Eof)),
                _ => {}
            }
            let record = datagram
                .get(at..at + RECORD_LEN)
                .ok_or(MasterError::Truncated { offset: at })?;
            if servers.len() == MAX_ADDRESSES_PER_PACKET {
                return Err(MasterError::TooManyAddresses);
            }
            let ip = Ipv4Addr::new(record[1], record[2], record[3], record[4]);
            let port = u16::from_be_bytes([record[5], record[6]]);
            servers.push(SocketAddrV4::new(ip, port));
            at += RECORD_LEN;
        }
        Ok(Self::ended(servers, ListEnd::Unterminated))
    }

    fn ended(servers: Vec<SocketAddrV4>, end: ListEnd) -> Self {
        Self { servers, end }
    }

    /// This packet's datagram: header, records, then the terminator its `end` names.
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            MARKER.len() + RESPONSE_COMMAND.len() + (self.servers.len() + 1) * RECORD_LEN,
        );
        out.extend_from_slice(&MARKER);
        out.extend_from_slice(RESPONSE_COMMAND);
        for addr in &self.servers {
            out.push(b'\\');
            out.extend_from_slice(&addr.ip().octets());
            out.extend_from_slice(&addr.port().to_be_bytes());
        }
        match self.end {
            ListEnd::Eot => out.extend_from_slice(b"\\EOT\0\0\0"),
            ListEnd::Eof => out.extend_from_slice(b"\\EOF\0\0\0"),
            ListEnd::Unterminated => {}
        }
        out
    }

    /// Splits `servers` into list packets of at most `per_packet` addresses (clamped to
    /// 1..=256). Every packet but the last ends `\EOT\0\0\0`; the last ends with `last`:
    /// `\EOT` as the stock master sends it (peers such as QStat stop at it), or `\EOF` as
    /// dpmaster's extended lists mark the whole list complete.
    pub fn emit_packets(
        servers: &[SocketAddrV4],
        per_packet: usize,
        last: ListEnd,
    ) -> Vec<Vec<u8>> {
        let per_packet = per_packet.clamp(1, MAX_ADDRESSES_PER_PACKET);
        let mut chunks: Vec<&[SocketAddrV4]> = servers.chunks(per_packet).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        let final_index = chunks.len() - 1;
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, chunk)| {
                let end = if i == final_index { last } else { ListEnd::Eot };
                Self::ended(chunk.to_vec(), end).emit()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn addr(a: u8, b: u8, c: u8, d: u8, port: u16) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::new(a, b, c, d), port)
    }

    #[test]
    fn golden_single_packet_both_ways() {
        let servers = [addr(127, 0, 0, 1, 28960), addr(10, 1, 2, 3, 28961)];
        let golden: &[u8] = b"\xff\xff\xff\xffgetserversResponse\\\x7f\x00\x00\x01\x71\x20\\\x0a\x01\x02\x03\x71\x21\\EOF\0\0\0";
        let packets = ServerList::emit_packets(&servers, 256, ListEnd::Eof);
        assert_eq!(packets, vec![golden.to_vec()]);
        assert_eq!(
            ServerList::parse(golden),
            Ok(ServerList {
                servers: servers.to_vec(),
                end: ListEnd::Eof
            })
        );
    }

    #[test]
    fn many_packets_end_eot_then_eof() {
        let servers: Vec<_> = (0..5).map(|i| addr(127, 0, 0, 1, 30000 + i)).collect();
        let packets = ServerList::emit_packets(&servers, 2, ListEnd::Eof);
        assert_eq!(packets.len(), 3);
        let parsed: Vec<_> = packets
            .iter()
            .map(|p| ServerList::parse(p).unwrap())
            .collect();
        assert_eq!(
            parsed.iter().map(|l| l.end).collect::<Vec<_>>(),
            [ListEnd::Eot, ListEnd::Eot, ListEnd::Eof]
        );
        let all: Vec<_> = parsed.into_iter().flat_map(|l| l.servers).collect();
        assert_eq!(all, servers);
        assert_eq!(
            ServerList::emit_packets(&[], 10, ListEnd::Eof),
            vec![b"\xff\xff\xff\xffgetserversResponse\\EOF\0\0\0".to_vec()]
        );
    }

    #[test]
    fn header_variants_and_missing_terminator() {
        let newline =
            b"\xff\xff\xff\xffgetserversResponse\n\0\\\x7f\x00\x00\x01\x71\x20\\EOT\0\0\0";
        assert_eq!(
            ServerList::parse(newline),
            Ok(ServerList {
                servers: vec![addr(127, 0, 0, 1, 28960)],
                end: ListEnd::Eot
            })
        );
        let bare = b"\xff\xff\xff\xffgetserversresponse\\\x7f\x00\x00\x01\x71\x20";
        assert_eq!(ServerList::parse(bare).unwrap().end, ListEnd::Unterminated);
    }

    #[test]
    fn malformed_lists_are_refused() {
        let p = |b: &[u8]| ServerList::parse(b);
        assert_eq!(p(b"\xff\xff\xff\xffgetservers"), Err(MasterError::NotAList));
        assert_eq!(p(b"getserversResponse\\EOF"), Err(MasterError::NotAList));
        assert_eq!(
            p(b"\xff\xff\xff\xffgetserversResponse"),
            Err(MasterError::MissingRecords)
        );
        assert_eq!(
            p(b"\xff\xff\xff\xffgetserversResponse\\\x7f\x00\x00\x01\x71"),
            Err(MasterError::Truncated { offset: 22 })
        );
        assert_eq!(
            p(b"\xff\xff\xff\xffgetserversResponse\\\x7f\x00\x00\x01\x71\x20X"),
            Err(MasterError::BadRecord { offset: 29 })
        );
        let mut flood = b"\xff\xff\xff\xffgetserversResponse".to_vec();
        for _ in 0..=MAX_ADDRESSES_PER_PACKET {
            flood.extend_from_slice(b"\\\x7f\x00\x00\x01\x71\x20");
        }
        assert_eq!(p(&flood), Err(MasterError::TooManyAddresses));
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(tail in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let mut datagram = b"\xff\xff\xff\xffgetserversResponse".to_vec();
            datagram.extend(tail);
            let _ = ServerList::parse(&datagram);
        }

        #[test]
        fn packets_round_trip(ports in proptest::collection::vec(1u16.., 0..600), per in 1usize..300) {
            let servers: Vec<_> = ports.iter().map(|&p| addr(192, 0, 2, (p % 200) as u8, p)).collect();
            let mut all = Vec::new();
            for packet in ServerList::emit_packets(&servers, per, ListEnd::Eot) {
                all.extend(ServerList::parse(&packet).unwrap().servers);
            }
            proptest::prop_assert_eq!(all, servers);
        }
    }
}
