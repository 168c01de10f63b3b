//! Muster's wire protocols, sans-IO: every parser takes bytes and returns a typed result, every
//! builder returns bytes. No sockets, no clocks, no global state; the same code runs in the relay,
//! the lab and the browser (wasm32).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
// The schema derives (`openapi`, the relay's alone) expand to std's `vec!` and `format!`.
#[cfg(any(feature = "std", test))]
#[cfg_attr(feature = "openapi", macro_use)]
extern crate std;

pub mod bridge;
pub mod browse;
pub mod cod;
pub mod geo;
pub mod relay_api;
pub mod said;
pub mod secret;
pub mod sim;
pub mod watching;
pub mod wulfram;

/// A datagram for the socket and where it goes: what an endpoint that talks to many peers (a
/// server, a master, the relay's query engine) yields from `poll_transmit`. A session with one
/// peer (`cod::client`, `cod::netchan`, `wulfram::session`) yields the bytes alone, since its
/// socket is connected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    pub to: core::net::SocketAddr,
    pub payload: alloc::vec::Vec<u8>,
}
