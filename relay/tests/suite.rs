//! Every integration test of the relay but the page's, one module per capability, in one
//! binary: each file was a binary of its own, and building 28 copies of the shared helpers and
//! linking 28 relays cost the test build about a minute on two cores. nextest still runs every
//! test in a process of its own; `cargo xtask test -E 'test(/^cluster::/)'` picks one file's.

mod common;

mod alerts;
mod banners;
mod bridge;
mod cluster;
mod countries;
mod deb;
mod demo;
mod directory;
mod doctor;
mod edge;
mod feed;
mod highlights;
mod history;
mod interop;
mod master;
mod matches;
mod moments;
mod notify;
mod openapi;
mod owners;
mod passworded;
mod proxy;
mod query;
mod rcon;
mod rewind;
mod schemathesis;
mod spectate;
mod tune;
mod upgrade;
mod watch;
mod wire;
mod wulfram;
