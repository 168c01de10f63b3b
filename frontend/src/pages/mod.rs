//! The pages, one file or folder each: the server browser at `/` (with its side panels, a wasm
//! of their own), the watch view, the demo player, the tuning page and the admin console.

pub mod admin;
pub mod browser;
pub mod playback;
pub mod tuning;
pub mod watch;
