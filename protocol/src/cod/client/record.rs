//! Recording the session as stock `record` does: a `.dm_3` whose first record is synthesized
//! from the gamestate, then each server message as it was read, from the first full snapshot.

use alloc::string::String;
use alloc::vec::Vec;

use super::{Client, State};
use crate::cod::demo;

/// A recording in progress (CL_Record_f's state).
#[derive(Clone, Copy, Debug)]
pub(super) struct Recording {
    /// Nothing is written until a full (non-delta) snapshot arrives: `clc.demoWaiting`.
    pub(super) waiting: bool,
    /// A gamestate arrived: this file ends and the next map's begins.
    pub(super) new_map: bool,
}

/// What a recording hands its driver, in order: a file begins (named for its map), bytes to
/// append to it, and its end (after the end marker's bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DemoOutput {
    Begin { map: String },
    Data(Vec<u8>),
    End,
}

/// Why a recording could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Stock needs `CA_ACTIVE`: a gamestate and a snapshot.
    NotActive,
    AlreadyRecording,
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NotActive => "not active on a server yet",
            Self::AlreadyRecording => "already recording",
        })
    }
}

impl core::error::Error for RecordError {}

impl Client {
    /// Starts recording a demo, as `record` does: the first record is synthesized from the
    /// gamestate as it stands, then nothing is written until a full snapshot arrives (asked
    /// for with `moveNoDelta`). A new map ends the file and begins the next.
    pub fn record(&mut self) -> Result<(), RecordError> {
        if self.demo.is_some() {
            return Err(RecordError::AlreadyRecording);
        }
        if self.state != State::Active {
            return Err(RecordError::NotActive);
        }
        self.begin_demo();
        Ok(())
    }

    pub(super) fn begin_demo(&mut self) {
        let Some(gamestate) = self.stream.gamestate() else {
            return;
        };
        let payload = demo::first_payload(
            gamestate,
            self.outgoing.sequence(),
            self.stream.incoming().sequence(),
        );
        let map = demo::map_name(gamestate);
        self.demo_out.push_back(DemoOutput::Begin { map });
        self.demo_out.push_back(DemoOutput::Data(demo::frame(
            self.server_message_sequence as i32,
            &payload,
        )));
        self.demo = Some(Recording {
            waiting: true,
            new_map: false,
        });
    }

    /// Ends the recording with the end marker.
    pub fn stop_recording(&mut self) {
        if self.demo.take().is_some() {
            self.demo_out
                .push_back(DemoOutput::Data(demo::END_MARKER.to_vec()));
            self.demo_out.push_back(DemoOutput::End);
        }
    }

    pub fn is_recording(&self) -> bool {
        self.demo.is_some()
    }

    /// What the recording wrote, in order.
    pub fn poll_demo(&mut self) -> Option<DemoOutput> {
        self.demo_out.pop_front()
    }

    /// Records message `sequence` (after it was read, as retail does) once the wait is over.
    pub(super) fn write_demo(&mut self, sequence: u32, clear: &[u8]) {
        let Some(demo) = self.demo else { return };
        if demo.new_map {
            self.stop_recording();
            self.begin_demo();
        } else if !demo.waiting {
            self.demo_out
                .push_back(DemoOutput::Data(demo::frame(sequence as i32, clear)));
        }
    }
}
