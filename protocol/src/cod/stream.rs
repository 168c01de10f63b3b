//! What a receiver of server messages keeps between them: the gamestate with configstring
//! changes applied, the snapshot history and baselines, and the reliable server commands taken
//! in order. The client session reads live messages through it and demo playback reads
//! recorded ones, so both see a server message the same way.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::download::DownloadRecord;
use super::gamestate::Gamestate;
use super::oob::tokenize;
use super::reliable::{IncomingCommands, ReliableError};
use super::service::{read_records, Record, ServiceError, World};
use super::snapshot::Snapshot;

/// What a server message says that a session passes on as it is (the client turns each into
/// its `Event`; this codec knows nothing of sessions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    Gamestate(Box<Gamestate>),
    /// A configstring changed after the gamestate (`d`, or `x`/`y`/`z` chunks completed).
    Configstring {
        index: u16,
        value: String,
    },
    ServerCommand {
        sequence: i32,
        text: String,
    },
    Snapshot(Box<Snapshot>),
}

/// One thing a server message said, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A gamestate, a new server command (followed by the configstring it completes, if any)
    /// or a usable snapshot.
    Said(Said),
    /// The server dropped the session with a `disconnect` command, whose reason this is.
    Disconnect(String),
    Download(DownloadRecord),
    /// A delta snapshot whose base aged out of the history: read, but not shown.
    Unusable,
    /// The reliable commands broke their order (live sessions only).
    Commands(ReliableError),
    /// The message's records stopped early.
    Stopped(ServiceError),
}

/// The receiving side of a server stream.
#[derive(Clone, Debug, Default)]
pub struct ServerStream {
    incoming: IncomingCommands,
    gamestate: Option<Gamestate>,
    world: World,
    /// A configstring arriving in `x`/`y` chunks.
    chunked: Option<(u16, String)>,
    /// Accept a command after a gap, as stock playback does (a recording misses the commands
    /// its client received while it waited for a full snapshot).
    lenient: bool,
}

impl ServerStream {
    /// A stream for demo playback: command gaps are skipped, not errors.
    pub fn lenient() -> Self {
        Self {
            lenient: true,
            ..Self::default()
        }
    }

    /// The current gamestate, with configstring changes applied.
    pub fn gamestate(&self) -> Option<&Gamestate> {
        self.gamestate.as_ref()
    }

    pub fn incoming(&self) -> &IncomingCommands {
        &self.incoming
    }

    /// Forgets the history snapshots `keep` refuses (a kept playback position needs only the
    /// bases the messages after it use).
    pub fn retain_history(&mut self, keep: impl Fn(u32) -> bool) {
        self.world.history.retain(keep);
    }

    /// Reads the decompressed body of server message `sequence`.
    pub fn read(&mut self, body: &[u8], sequence: u32) -> Vec<Heard> {
        let (records, stopped) = read_records(body, sequence, &mut self.world);
        let mut heard = Vec::new();
        for record in records {
            match record {
                Record::ServerCommand { sequence, text } => {
                    self.command(sequence, text, &mut heard)
                }
                Record::Gamestate(gamestate) => {
                    // The gamestate assigns the command sequence.
                    self.incoming.reset(gamestate.server_command_sequence);
                    self.chunked = None;
                    self.gamestate = Some((*gamestate).clone());
                    heard.push(Heard::Said(Said::Gamestate(gamestate)));
                }
                Record::Snapshot {
                    snapshot,
                    usable: true,
                } => heard.push(Heard::Said(Said::Snapshot(snapshot))),
                Record::Snapshot { usable: false, .. } => heard.push(Heard::Unusable),
                Record::Download(record) => heard.push(Heard::Download(record)),
                Record::Nop | Record::Eof => {}
            }
        }
        if let Some(e) = stopped {
            heard.push(Heard::Stopped(e));
        }
        heard
    }

    fn command(&mut self, sequence: i32, text: String, heard: &mut Vec<Heard>) {
        let fresh = match self.incoming.receive(sequence, &text) {
            Err(ReliableError::Gap { .. }) if self.lenient => {
                self.incoming.reset(sequence.wrapping_sub(1));
                self.incoming.receive(sequence, &text)
            }
            other => other,
        };
        match fresh {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => return heard.push(Heard::Commands(e)),
        }
        if let Some(reason) = text.strip_prefix('w').map(disconnect_reason) {
            heard.push(Heard::Said(Said::ServerCommand { sequence, text }));
            return heard.push(Heard::Disconnect(reason));
        }
        let update = self.configstring(&text);
        heard.push(Heard::Said(Said::ServerCommand { sequence, text }));
        if let Some((index, value)) = update {
            if let Some(gamestate) = self.gamestate.as_mut() {
                gamestate.configstrings.insert(index, value.clone());
            }
            heard.push(Heard::Said(Said::Configstring { index, value }));
        }
    }

    /// The configstring a command completes: `d` whole, or `x`, `y`… `z` in chunks.
    fn configstring(&mut self, text: &str) -> Option<(u16, String)> {
        let (verb, rest) = text.split_once(' ').unwrap_or((text, ""));
        if !matches!(verb, "d" | "x" | "y" | "z") {
            return None;
        }
        let (index, value) = rest.split_once(' ').unwrap_or((rest, ""));
        let index = index.parse::<u16>().ok()?;
        let value = value.to_string();
        match verb {
            "d" => Some((index, value)),
            "x" => {
                self.chunked = Some((index, value));
                None
            }
            _ => match self.chunked.take() {
                Some((i, mut acc)) if i == index => {
                    acc.push_str(&value);
                    if verb == "z" {
                        Some((index, acc))
                    } else {
                        self.chunked = Some((i, acc));
                        None
                    }
                }
                _ => None,
            },
        }
    }
}

/// The reason a `w` (disconnect) command gives, from the text after its letter: the one server
/// command the stream acts on itself (it ends the session).
pub fn disconnect_reason(rest: &str) -> String {
    tokenize(rest.trim_start_matches(' '))
        .into_iter()
        .next()
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "EXE_SERVER_DISCONNECTED".into())
}
