//! Any datagram given to the connectionless parser: an error at worst, and what parses
//! re-emits to bytes that parse to the same packet.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::oob::Packet;

fuzz_target!(|data: &[u8]| {
    if let Ok(packet) = Packet::parse(data) {
        let again = Packet::parse(&packet.emit());
        if !matches!(packet, Packet::Other { .. }) {
            assert_eq!(again, Ok(packet));
        }
    }
});
