//! Spectating: `muster spectate` on the command line, and in the relay the hubs that join a
//! server once and fan the delayed match out to any number of viewers.

pub mod api;
pub mod cli;
pub mod delay;
pub mod hub;
pub mod recording;
pub mod viewer;

pub use cli::{event_json, event_text, snapshot_json, spectate, SpectateOptions};
pub use hub::{Hubs, JoinError, OverviewFile, RecordConfig, SpectateConfig};
