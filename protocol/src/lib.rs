//! Muster's wire protocols, sans-IO: every parser takes bytes and returns a typed result, every
//! builder returns bytes. No sockets, no clocks, no global state; the same code runs in the relay,
//! the lab and the browser (wasm32).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

pub mod bridge;
pub mod browse;
pub mod cod;
pub mod relay_api;
pub mod watching;
pub mod wulfram;
