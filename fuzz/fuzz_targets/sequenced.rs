//! Any logical message opened as either direction's clear prefix and encoded body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::sequenced::{decode_body, ClientHeader, ServerHeader};

fuzz_target!(|data: &[u8]| {
    if let Ok((header, rest)) = ClientHeader::parse(data) {
        let _ = decode_body(rest, header.key(0x5eed), b"cs 1 x");
    }
    if let Ok((_, rest)) = ServerHeader::parse(data) {
        let _ = decode_body(rest, 7, b"");
    }
});
