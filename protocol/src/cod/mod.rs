//! Call of Duty: United Offensive 1.51, network protocol 22.

pub mod client;
pub mod client_records;
pub mod delta;
pub mod demo;
pub mod download;
pub mod entity;
pub mod fields;
pub mod gamestate;
pub mod huffman;
pub mod info;
pub mod master;
pub mod master_server;
pub mod msg;
pub mod netchan;
pub mod oob;
pub mod playerstate;
pub mod rcon;
pub mod reel;
pub mod reliable;
pub mod sequenced;
pub mod server;
pub mod service;
pub mod snapshot;
pub mod stream;
pub mod text;
pub mod tuning;
pub mod usercmd;
pub mod watch;
pub mod xor;

/// The protocol number UO 1.51 advertises and requires.
pub const PROTOCOL_VERSION: u32 = 22;
/// Default game server port; LAN discovery probes this and the next three.
pub const DEFAULT_SERVER_PORT: u16 = 28960;
/// Legacy master-server port.
pub const MASTER_PORT: u16 = 20610;
/// Largest logical message (and so the largest datagram a parser here accepts).
pub const MAX_MSGLEN: usize = 32_768;
