//! Arbitrary datagrams thrown at both ends of a session: a server and a client that have
//! completed the handshake with each other. Neither may panic, whatever arrives.
#![no_main]

use core::net::SocketAddr;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use protocol::cod::client::{Client, ClientConfig};
use protocol::cod::server::{Frame, Map, Server, ServerConfig};

/// Both ends after a genuine handshake, so fuzzed bytes reach the sequenced paths too. Made
/// once and cloned for each input: replaying the handshake per input cost most of the time.
fn prepared() -> &'static (Server, Client) {
    static PREPARED: OnceLock<(Server, Client)> = OnceLock::new();
    PREPARED.get_or_init(|| {
        let from = peer();
        let mut server = Server::new(ServerConfig::default(), Map::default());
        let mut client = Client::new(ClientConfig::default(), 0);
        for now in (0..400).step_by(10) {
            client.handle_timeout(now);
            while let Some(d) = client.poll_transmit() {
                server.handle_datagram(now, from, &d);
            }
            server.frame(now, &Frame::default());
            while let Some(transmit) = server.poll_transmit() {
                client.handle_datagram(now, &transmit.payload);
            }
        }
        (server, client)
    })
}

fn peer() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 5000))
}

fuzz_target!(|data: &[u8]| {
    let from = peer();
    let (mut server, mut client) = prepared().clone();
    // Then the input: one-byte lengths, each followed by a datagram for both ends.
    let mut rest = data;
    let mut now = 400;
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len).min(tail.len());
        let (datagram, tail) = tail.split_at(len);
        server.handle_datagram(now, from, datagram);
        client.handle_datagram(now, datagram);
        server.frame(now, &Frame::default());
        client.handle_timeout(now);
        while server.poll_transmit().is_some() {}
        while client.poll_transmit().is_some() {}
        while server.poll_event().is_some() {}
        while client.poll_event().is_some() {}
        now += 10;
        rest = tail;
    }
});
