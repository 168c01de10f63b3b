//! The sequenced payload pipeline: a clear logical prefix, then the body fixed-Huffman
//! compressed and XOR-transformed. Netchan framing goes around the result.

use alloc::vec::Vec;
use core::fmt;

use super::huffman::{fixed, HuffmanError};
use super::{xor, MAX_MSGLEN};

/// Bytes of the client-to-server clear prefix.
pub const CLIENT_HEADER_LEN: usize = 9;
/// Bytes of the server-to-client clear prefix.
pub const SERVER_HEADER_LEN: usize = 4;

/// Why a logical message could not be opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequencedError {
    /// Shorter than its clear prefix.
    TooShort,
    /// The body does not decompress.
    Huffman(HuffmanError),
}

impl fmt::Display for SequencedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort => f.write_str("logical message shorter than its clear prefix"),
            Self::Huffman(e) => write!(f, "body: {e}"),
        }
    }
}

impl core::error::Error for SequencedError {}

/// The client's clear prefix: the server generation and its two acknowledgements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientHeader {
    pub server_id: u8,
    /// Latest server netchan sequence received.
    pub message_acknowledge: i32,
    /// Latest reliable server command received.
    pub reliable_acknowledge: i32,
}

impl ClientHeader {
    pub fn parse(logical: &[u8]) -> Result<(Self, &[u8]), SequencedError> {
        let prefix = logical
            .get(..CLIENT_HEADER_LEN)
            .ok_or(SequencedError::TooShort)?;
        let long = |at: usize| {
            i32::from_le_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]])
        };
        let header = Self {
            server_id: prefix[0],
            message_acknowledge: long(1),
            reliable_acknowledge: long(5),
        };
        Ok((header, &logical[CLIENT_HEADER_LEN..]))
    }

    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.server_id);
        out.extend_from_slice(&self.message_acknowledge.to_le_bytes());
        out.extend_from_slice(&self.reliable_acknowledge.to_le_bytes());
    }

    /// The XOR key this prefix selects.
    pub fn key(&self, challenge: i32) -> u8 {
        xor::client_key(self.server_id, challenge, self.message_acknowledge)
    }
}

/// The server's clear prefix: the latest client command it executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerHeader {
    pub last_client_command: i32,
}

impl ServerHeader {
    pub fn parse(logical: &[u8]) -> Result<(Self, &[u8]), SequencedError> {
        let prefix = logical
            .get(..SERVER_HEADER_LEN)
            .ok_or(SequencedError::TooShort)?;
        let header = Self {
            last_client_command: i32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]),
        };
        Ok((header, &logical[SERVER_HEADER_LEN..]))
    }

    pub fn emit(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.last_client_command.to_le_bytes());
    }
}

/// Fixed-Huffman compresses a body, then XOR-transforms the result.
pub fn encode_body(body: &[u8], key: u8, command: &[u8]) -> Vec<u8> {
    let mut encoded = fixed::compress(body);
    xor::apply(&mut encoded, key, command);
    encoded
}

/// Reverses [`encode_body`]; the decompressed body is bounded to 32,768 bytes.
pub fn decode_body(encoded: &[u8], key: u8, command: &[u8]) -> Result<Vec<u8>, SequencedError> {
    let mut compressed = encoded.to_vec();
    xor::apply(&mut compressed, key, command);
    fixed::decompress(&compressed, MAX_MSGLEN).map_err(SequencedError::Huffman)
}

/// A whole client-to-server logical message. `server_command` is the text of the server
/// command that `header.reliable_acknowledge` names.
pub fn client_message(
    header: &ClientHeader,
    body: &[u8],
    challenge: i32,
    server_command: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(CLIENT_HEADER_LEN + body.len());
    header.emit(&mut out);
    out.extend(encode_body(body, header.key(challenge), server_command));
    out
}

/// A whole server-to-client logical message for netchan `sequence`. `client_command` is the
/// server's storage of the client command that `header.last_client_command` names.
pub fn server_message(
    header: &ServerHeader,
    body: &[u8],
    sequence: u32,
    challenge: i32,
    client_command: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(SERVER_HEADER_LEN + body.len());
    header.emit(&mut out);
    out.extend(encode_body(
        body,
        xor::server_key(sequence, challenge),
        client_command,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::netchan::{Netchan, Side};
    use alloc::vec::Vec;

    const CHALLENGE: i32 = 0x1234_5678;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    // Golden datagrams computed independently: ioquake3's fixed-tree writer (q3huff2) and the
    // spec's XOR loop, framed by hand.
    #[test]
    fn golden_client_to_server_datagram_both_ways() {
        let header = ClientHeader {
            server_id: 0x21,
            message_acknowledge: 258,
            reliable_acknowledge: 3,
        };
        let command = b"cs 0 \"\\sv_hostname\\Lab\"";
        let body = b"\x02\x05\x00\x00\x00say hi\x00\x03";
        let golden = hex("010000002143210201000003000000f0d6cb1199064010528b");

        let mut client = Netchan::new(Side::Client, 0x4321);
        client
            .transmit(&client_message(&header, body, CHALLENGE, command))
            .unwrap();
        assert_eq!(client.poll_transmit().unwrap(), golden);

        let mut server = Netchan::new(Side::Server, 0x4321);
        let delivered = server.handle_datagram(&golden).unwrap().unwrap();
        let (parsed, rest) = ClientHeader::parse(&delivered.payload).unwrap();
        assert_eq!(parsed, header);
        let decoded = decode_body(rest, parsed.key(CHALLENGE), command).unwrap();
        assert!(decoded.starts_with(body), "{decoded:?}");
    }

    #[test]
    fn golden_server_to_client_datagram_both_ways() {
        let header = ServerHeader {
            last_client_command: 7,
        };
        let body = b"\x05\x04\x00\x00\x00print \"hello\"\x00\x08";
        let golden = hex("05000000070000001f6ddf148c457f08a1056e4d3fab3cad9c");
        let mut server = Netchan::new(Side::Server, 1);
        for _ in 0..4 {
            server.transmit(b"").unwrap();
            server.poll_transmit();
        }
        let sequence = server.outgoing_sequence();
        let logical = server_message(&header, body, sequence, CHALLENGE, b"say hi");
        server.transmit(&logical).unwrap();
        assert_eq!(server.poll_transmit().unwrap(), golden);

        let mut client = Netchan::new(Side::Client, 1);
        let delivered = client.handle_datagram(&golden).unwrap().unwrap();
        assert_eq!(delivered.dropped, 4);
        let (parsed, rest) = ServerHeader::parse(&delivered.payload).unwrap();
        assert_eq!(parsed, header);
        let key = xor::server_key(delivered.sequence, CHALLENGE);
        let decoded = decode_body(rest, key, b"say hi").unwrap();
        assert!(decoded.starts_with(body));
    }

    #[test]
    fn short_prefixes_are_refused() {
        assert_eq!(ClientHeader::parse(&[0; 8]), Err(SequencedError::TooShort));
        assert_eq!(ServerHeader::parse(&[0; 3]), Err(SequencedError::TooShort));
    }

    proptest::proptest! {
        #[test]
        fn pipeline_round_trips(
            body in proptest::collection::vec(proptest::num::u8::ANY, 0..3000),
            command in "[ -~]{0,40}",
            challenge in proptest::num::i32::ANY,
            server_id in proptest::num::u8::ANY,
        ) {
            let header = ClientHeader { server_id, message_acknowledge: 9, reliable_acknowledge: 2 };
            let mut client = Netchan::new(Side::Client, 5);
            client.transmit(&client_message(&header, &body, challenge, command.as_bytes())).unwrap();
            let mut server = Netchan::new(Side::Server, 5);
            let mut delivered = None;
            while let Some(datagram) = client.poll_transmit() {
                delivered = server.handle_datagram(&datagram).unwrap();
            }
            let delivered = delivered.unwrap();
            let (parsed, rest) = ClientHeader::parse(&delivered.payload).unwrap();
            let decoded = decode_body(rest, parsed.key(challenge), command.as_bytes()).unwrap();
            proptest::prop_assert!(decoded.starts_with(&body));
        }
    }
}
