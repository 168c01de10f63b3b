//! A session's recent past, kept so that a stock `.dm_3` of any span of it can be cut (a
//! moment): each snapshot re-encoded as a delta from the one before it, with the server
//! commands that came with it, and every few seconds a keyframe (the gamestate as it stood and
//! the snapshot whole). A cut decodes from one keyframe up to its start and writes its first
//! snapshot whole, so the file stands alone: a synthesized gamestate record, as `record`
//! writes, a full snapshot, then deltas, then the end marker.
//!
//! Sans-IO: fed what the session read, in order (its gamestate, configstring changes, commands
//! and snapshots); its owner bounds it by time here and by bytes
//! with [`Reel::drop_oldest`]. The messages are our encoding of what the server sent, not its
//! bytes: the server deltas against whichever snapshot the client last acknowledged, which a
//! file starting mid-match may not hold.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use super::demo::{first_payload, frame, END_MARKER};
use super::gamestate::{Gamestate, SVC_EOF};
use super::huffman::fixed;
use super::msg::MsgWriter;
use super::service::SVC_SERVER_COMMAND;
use super::snapshot::Snapshot;
use super::stream::{Heard, Said, ServerStream};
use super::MAX_MSGLEN;

/// How much a reel keeps and how often it keeps a snapshot whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReelLimits {
    /// Server milliseconds kept behind the newest snapshot.
    pub span_ms: i32,
    /// Server milliseconds between keyframes: a cut decodes at most this much before its start.
    pub keyframe_every_ms: i32,
}

/// Where a cut can start: the gamestate as it stood before a snapshot, and that snapshot whole.
#[derive(Clone, Debug)]
struct Key {
    /// With `server_command_sequence` the last command before this message's.
    gamestate: Arc<Gamestate>,
    /// The message compressed, its snapshot whole.
    full: Vec<u8>,
}

/// One server message as the reel keeps it.
#[derive(Clone, Debug)]
struct Frame {
    sequence: i32,
    server_time: i32,
    /// Which gamestate (map) this message belongs to: a cut stops where it changes.
    map: u32,
    /// The message compressed, its snapshot a delta from the frame before; empty for the
    /// first of a map, which only its key can show.
    delta: Vec<u8>,
    key: Option<Key>,
}

impl Frame {
    fn bytes(&self) -> usize {
        self.delta.len() + self.key.as_ref().map_or(0, |k| k.full.len())
    }
}

/// A cut demo and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The whole `.dm_3` file.
    pub demo: Vec<u8>,
    pub first_server_time: i32,
    pub last_server_time: i32,
    pub snapshots: u32,
}

/// Why no demo could be cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutError {
    /// The reel holds no snapshot between the span's ends (it has not come yet, or is gone).
    Outside {
        first: Option<i32>,
        last: Option<i32>,
    },
    /// The reel's own messages did not decode (a fault of this code, never of the input).
    Undecodable,
}

impl fmt::Display for CutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outside {
                first: Some(first),
                last: Some(last),
            } => write!(
                f,
                "nothing kept in that span: the reel holds server times {first} to {last}"
            ),
            Self::Outside { .. } => f.write_str("nothing kept yet: the reel is empty"),
            Self::Undecodable => f.write_str("the reel's messages did not decode"),
        }
    }
}

impl core::error::Error for CutError {}

/// Where a cut starts: the gamestate as it stood before its first message, that message's
/// commands, and its snapshot.
struct Start {
    gamestate: Gamestate,
    commands: Vec<(i32, String)>,
    snapshot: Snapshot,
}

/// A session's recent messages, as a demo can be cut from them.
#[derive(Clone, Debug)]
pub struct Reel {
    limits: ReelLimits,
    frames: VecDeque<Frame>,
    gamestate: Option<Arc<Gamestate>>,
    map: u32,
    /// The last command taken, before `pending`.
    command_sequence: i32,
    /// Commands since the last snapshot: they ride in its message.
    pending: Vec<(i32, String)>,
    previous: Option<Snapshot>,
    next_sequence: i32,
    last_key_time: Option<i32>,
    bytes: usize,
}

/// A message's body: its commands, the snapshot against `base` (whole when `None`), the end.
fn message(
    commands: &[(i32, String)],
    snapshot: &Snapshot,
    base: Option<&Snapshot>,
    gamestate: &Gamestate,
) -> Vec<u8> {
    let mut w = MsgWriter::new();
    for (sequence, text) in commands {
        w.write_byte(SVC_SERVER_COMMAND);
        w.write_long(*sequence);
        w.write_string(text.as_bytes());
    }
    let snapshot = Snapshot {
        delta_num: 1,
        ..snapshot.clone()
    };
    snapshot.write(&mut w, base, &gamestate.baselines);
    w.write_byte(SVC_EOF);
    fixed::compress(&w.into_bytes())
}

/// A record's payload: the clear `reliableAcknowledge` (nothing was acknowledged: 0), then
/// the compressed body.
fn payload(compressed: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + compressed.len());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(compressed);
    out
}

impl Reel {
    pub fn new(limits: ReelLimits) -> Self {
        Self {
            limits,
            frames: VecDeque::new(),
            gamestate: None,
            map: 0,
            command_sequence: 0,
            pending: Vec::new(),
            previous: None,
            next_sequence: 1,
            last_key_time: None,
            bytes: 0,
        }
    }

    /// A new gamestate (a map, or a new session): what follows starts a new stretch.
    pub fn gamestate(&mut self, gamestate: &Gamestate) {
        self.command_sequence = gamestate.server_command_sequence;
        self.gamestate = Some(Arc::new(gamestate.clone()));
        self.map = self.map.wrapping_add(1);
        self.pending.clear();
        self.previous = None;
        self.last_key_time = None;
    }

    /// A configstring changed after the gamestate.
    pub fn configstring(&mut self, index: u16, value: &str) {
        if let Some(gamestate) = self.gamestate.as_mut() {
            Arc::make_mut(gamestate)
                .configstrings
                .insert(index, value.into());
        }
    }

    /// A new server command: it rides in the next snapshot's message.
    pub fn command(&mut self, sequence: i32, text: &str) {
        self.pending.push((sequence, text.into()));
    }

    /// A usable snapshot, in the order the session read them.
    pub fn snapshot(&mut self, snapshot: &Snapshot) {
        let Some(gamestate) = self.gamestate.clone() else {
            return;
        };
        let time = snapshot.server_time;
        let delta = match &self.previous {
            Some(previous) => message(&self.pending, snapshot, Some(previous), &gamestate),
            None => Vec::new(),
        };
        let due = self
            .last_key_time
            .is_none_or(|at| time.wrapping_sub(at) >= self.limits.keyframe_every_ms);
        let key = (due || delta.is_empty()).then(|| {
            self.last_key_time = Some(time);
            let mut before = gamestate.clone();
            Arc::make_mut(&mut before).server_command_sequence = self.command_sequence;
            Key {
                full: message(&self.pending, snapshot, None, &gamestate),
                gamestate: before,
            }
        });
        let frame = Frame {
            sequence: self.next_sequence,
            server_time: time,
            map: self.map,
            delta,
            key,
        };
        self.next_sequence = self.next_sequence.wrapping_add(1);
        if let Some((last, _)) = self.pending.last() {
            self.command_sequence = *last;
        }
        self.pending.clear();
        self.previous = Some(snapshot.clone());
        self.bytes += frame.bytes();
        self.frames.push_back(frame);
        while self
            .frames
            .front()
            .is_some_and(|f| time.wrapping_sub(f.server_time) > self.limits.span_ms)
        {
            if !self.drop_oldest() {
                break;
            }
        }
    }

    /// Drops the oldest keyframe and what only it leads to; false when that would leave
    /// nothing (the newest segment stays).
    pub fn drop_oldest(&mut self) -> bool {
        let next_key = self.frames.iter().skip(1).position(|f| f.key.is_some());
        let Some(next_key) = next_key else {
            return false;
        };
        for frame in self.frames.drain(..=next_key) {
            self.bytes -= frame.bytes();
        }
        true
    }

    /// The bytes the kept messages take.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The server times of the first and last snapshots kept.
    pub fn span(&self) -> Option<(i32, i32)> {
        Some((
            self.frames.front()?.server_time,
            self.frames.back()?.server_time,
        ))
    }

    /// A stock demo of the snapshots from server time `from` to `to`, both included, stopping
    /// early at a map change.
    pub fn cut(&self, from: i32, to: i32) -> Result<Cut, CutError> {
        let outside = || CutError::Outside {
            first: self.frames.front().map(|f| f.server_time),
            last: self.frames.back().map(|f| f.server_time),
        };
        let first = self
            .frames
            .iter()
            .position(|f| f.server_time >= from && f.server_time <= to)
            .ok_or_else(outside)?;
        let start = self.longest_part(first, to);
        let key_at = (0..=start)
            .rev()
            .find(|&i| self.frames[i].key.is_some())
            .ok_or(CutError::Undecodable)?;
        let Start {
            gamestate,
            commands,
            snapshot: first,
        } = self.decode(key_at, start)?;
        let first_frame = &self.frames[start];
        let mut demo = frame(
            first_frame.sequence.wrapping_sub(1),
            &first_payload(&gamestate, 0, gamestate.server_command_sequence),
        );
        demo.extend(frame(
            first_frame.sequence,
            &payload(&message(&commands, &first, None, &gamestate)),
        ));
        let mut cut = Cut {
            demo: Vec::new(),
            first_server_time: first.server_time,
            last_server_time: first.server_time,
            snapshots: 1,
        };
        for f in self.frames.iter().skip(start + 1) {
            if f.server_time > to || f.map != first_frame.map || f.delta.is_empty() {
                break;
            }
            demo.extend(frame(f.sequence, &payload(&f.delta)));
            cut.last_server_time = f.server_time;
            cut.snapshots += 1;
        }
        demo.extend_from_slice(&END_MARKER);
        cut.demo = demo;
        Ok(cut)
    }

    /// Where the cut of a span starting at frame `first` starts: a file holds one gamestate, so
    /// a span across a map change (or the same map's gamestate sent again, as a server does
    /// when its first was not acknowledged) is cut to its longest part, the later on a tie.
    fn longest_part(&self, first: usize, to: i32) -> usize {
        let mut best = (first, 0usize);
        let mut part = (first, 0usize);
        for (i, f) in self.frames.iter().enumerate().skip(first) {
            if f.server_time > to {
                break;
            }
            if f.map != self.frames[part.0].map {
                part = (i, 0);
            }
            part.1 += 1;
            if part.1 >= best.1 {
                best = part;
            }
        }
        best.0
    }

    /// Reads the reel from the keyframe at `key_at` to frame `start`: the gamestate as it stood
    /// before `start`'s message, that message's commands, and its snapshot.
    fn decode(&self, key_at: usize, start: usize) -> Result<Start, CutError> {
        let key = self.frames[key_at]
            .key
            .as_ref()
            .ok_or(CutError::Undecodable)?;
        let mut stream = ServerStream::lenient();
        let mut w = MsgWriter::new();
        key.gamestate.write(&mut w);
        w.write_byte(SVC_EOF);
        let sequence = self.frames[key_at].sequence;
        stream.read(&w.into_bytes(), sequence.wrapping_sub(1) as u32);
        for i in key_at..=start {
            let f = &self.frames[i];
            let compressed = if i == key_at { &key.full } else { &f.delta };
            let body =
                fixed::decompress(compressed, MAX_MSGLEN).map_err(|_| CutError::Undecodable)?;
            let before = stream.gamestate().cloned().map(|mut g| {
                g.server_command_sequence = stream.incoming().sequence();
                g
            });
            let heard = stream.read(&body, f.sequence as u32);
            if i < start {
                continue;
            }
            let mut commands = Vec::new();
            let mut snapshot = None;
            for h in heard {
                match h {
                    Heard::Said(Said::ServerCommand { sequence, text }) => {
                        commands.push((sequence, text))
                    }
                    Heard::Said(Said::Snapshot(s)) => snapshot = Some(*s),
                    _ => {}
                }
            }
            return match (before, snapshot) {
                (Some(gamestate), Some(snapshot)) => Ok(Start {
                    gamestate,
                    commands,
                    snapshot,
                }),
                _ => Err(CutError::Undecodable),
            };
        }
        Err(CutError::Undecodable)
    }
}

#[cfg(test)]
mod tests;
