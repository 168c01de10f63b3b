//! A stream of datagrams (split at every 0xfe byte) into both ends of a netchan:
//! errors at worst, and deliveries only in rising sequence order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::netchan::{Netchan, Side};

fuzz_target!(|data: &[u8]| {
    for side in [Side::Client, Side::Server] {
        let mut chan = Netchan::new(side, 0);
        let mut last = 0;
        for datagram in data.split(|&b| b == 0xfe) {
            if let Ok(Some(delivered)) = chan.handle_datagram(datagram) {
                assert!(delivered.sequence > last);
                assert!(delivered.payload.len() <= protocol::cod::MAX_MSGLEN);
                last = delivered.sequence;
            }
        }
    }
});
