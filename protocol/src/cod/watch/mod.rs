//! What a watcher reads of a match: the server-command vocabulary (`commands`), obituaries,
//! the spectator's input and match model (`spectator`), and demo timelines for playback.

pub mod commands;
pub mod highlights;
pub mod match_log;
pub mod obituary;
pub mod spectator;
pub mod timeline;
