//! The pages, one file or folder each: the server browser at `/` (with its side panels, a wasm
//! of their own), the watch view, the demo player, the tuning page, the admin console, and the
//! match and player pages.

pub mod admin;
pub mod browser;
pub mod playback;
pub mod results;
pub mod tuning;
pub mod watch;
