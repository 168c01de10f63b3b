//! Any datagrams at the replacement master, from a handful of addresses: heartbeats, info
//! answers to its challenges, list requests and garbage, in any order and with time passing.
//! Nothing may panic, and the master never holds more servers than its limit.
#![no_main]

use core::net::{Ipv4Addr, SocketAddrV4};

use libfuzzer_sys::fuzz_target;
use protocol::cod::master_server::{MasterConfig, MasterServer};

fuzz_target!(|data: &[u8]| {
    let config = MasterConfig {
        max_servers: 8,
        // Reach the paths past the address check with documentation addresses.
        allow_private: true,
        ..MasterConfig::default()
    };
    let mut master = MasterServer::new(config);
    let mut challenge = 7u32;
    let mut next = || {
        challenge = challenge.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        challenge
    };
    // Each datagram: a byte for its sender (one of 16 hosts, 2 ports), a byte of length.
    let mut rest = data;
    let mut now = 0u64;
    while let [who, len, tail @ ..] = rest {
        let len = usize::from(*len).min(tail.len());
        let (datagram, tail) = tail.split_at(len);
        let from = SocketAddrV4::new(
            Ipv4Addr::new(203, 0, 113, who & 0x0f),
            28960 + u16::from(who >> 7),
        );
        master.handle_datagram(now, from, datagram, &mut next);
        now += u64::from(who & 0x70) * 100;
        master.handle_timeout(now);
        while master.poll_transmit().is_some() {}
        while master.poll_event().is_some() {}
        assert!(master.servers().count() <= 8);
        rest = tail;
    }
});
