//! Any bytes as the replies to one rcon command: split into datagrams at every 0xfe byte, each
//! read as a connectionless packet; the `print` texts joined, the output read as a `status`
//! table, and a table that reads renders to text that reads as a table again. Each datagram is
//! also read as an rcon request, as a server reads one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::oob::Packet;
use protocol::cod::rcon::{Outcome, Reply, Request, StatusTable};

fuzz_target!(|data: &[u8]| {
    let mut reply = Reply::new();
    for (i, part) in data.split(|&b| b == 0xfe).enumerate() {
        let mut datagram = vec![0xff; 4];
        datagram.extend_from_slice(part);
        if let Ok(Packet::Print(text)) = Packet::parse(&datagram) {
            reply.push(i as u64 * 10, &text);
        }
        let _ = Request::parse(&datagram);
    }
    let _ = reply.done_at_ms();
    if let Outcome::Output(text) = reply.finish() {
        if let Some(table) = StatusTable::parse(&text) {
            let again = StatusTable::parse(&table.render());
            assert!(again.is_some(), "a rendered table reads back");
        }
    }
});
