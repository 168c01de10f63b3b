//! The query engine: one engine for the relay and the CLI, carrying thousands of queries in
//! flight over a few UDP sockets.

pub mod batch;
pub mod driver;
pub mod engine;

pub mod results;

pub use driver::collect;
pub use engine::{EngineConfig, Event, MasterReply, Outcome, ServerReply};
