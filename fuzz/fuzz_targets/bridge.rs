//! Any datagrams through a bridge session's checks, both ways: what a page sends (to a server
//! and to a master) and what the target answers. Nothing may panic, and a datagram refused by
//! the checks is never counted as sent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::bridge::{Egress, TargetKind};

fuzz_target!(|data: &[u8]| {
    for kind in [TargetKind::Server, TargetKind::Master] {
        let mut egress = Egress::new(kind, 4242);
        // One-byte lengths; the top bit of each says which way the datagram goes.
        let mut rest = data;
        while let Some((&head, tail)) = rest.split_first() {
            let len = usize::from(head & 0x7f).min(tail.len()) * 4;
            let len = len.min(tail.len());
            let (datagram, tail) = tail.split_at(len);
            if head & 0x80 == 0 {
                let _ = egress.outbound(datagram);
            } else {
                egress.inbound(datagram);
            }
            rest = tail;
        }
    }
});
