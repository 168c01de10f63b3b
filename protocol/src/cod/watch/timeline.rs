//! A demo laid out for playback with seeking, which the stock player cannot do: one pass
//! decodes every record (through [`Playback`] and the hubs' [`MatchModel`]), noting each
//! record's place in time, the kills and the players, and keeping a position every
//! [`CHECKPOINT_MS`]. A seek starts from the nearest kept position before it and reads forward,
//! so it never reads more than that span of the match.
//!
//! Time here is the demo's own clock: the snapshot server time run forward from the first
//! snapshot, where a jump back (a new map) or a gap over [`MAX_GAP_MS`] counts nothing.

use alloc::collections::BTreeSet;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;

use super::spectator::MatchModel;
use crate::cod::client::Event;
use crate::cod::demo::{map_name, DemoError, DemoRecord, Playback, Records};
use crate::cod::snapshot::SNAPFLAG_NOT_ACTIVE;
use crate::cod::stream::{Heard, Said};
use crate::relay_api::watch::{FeedItem, MatchView};

/// How much of the match lies between kept positions.
pub const CHECKPOINT_MS: u32 = 5000;
/// A forward jump in server time longer than this is a discontinuity, not time that passed.
pub const MAX_GAP_MS: i32 = 60_000;

/// One kill, for the kill list that jumps to it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DemoKill {
    /// Demo time.
    pub at_ms: u32,
    pub server_time: i32,
    /// `None` for the world.
    pub attacker: Option<String>,
    pub victim: String,
    pub weapon: String,
}

/// What a demo holds, from the one decoding pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DemoSummary {
    /// Every map the demo shows, in order (a stock client's recording can cross map changes).
    pub maps: Vec<String>,
    pub hostname: String,
    pub gametype: String,
    pub bytes: u32,
    pub records: u32,
    pub snapshots: u32,
    pub first_server_time: i32,
    pub last_server_time: i32,
    pub duration_ms: u32,
    /// Every name seen, in order of first sighting.
    pub players: Vec<String>,
    pub kills: Vec<DemoKill>,
    /// The file ends with the end marker (one cut off ends at its last whole record).
    pub ended: bool,
    /// Why reading stopped before the end, if it did; what came before still plays.
    pub problem: Option<String>,
}

/// One record's bytes and where it falls in time.
#[derive(Clone, Debug)]
struct Span {
    sequence: i32,
    bytes: Range<usize>,
    offset: usize,
    /// Demo time of the latest snapshot at or before this record.
    at_ms: u32,
}

impl Span {
    fn record<'a>(&self, data: &'a [u8]) -> DemoRecord<'a> {
        DemoRecord {
            offset: self.offset,
            sequence: self.sequence,
            payload: &data[self.bytes.clone()],
        }
    }
}

/// A playback position: the next record to read and the state after the ones before it.
#[derive(Clone, Debug)]
struct Cursor {
    next: usize,
    playback: Playback,
    model: MatchModel,
    at_ms: u32,
}

impl Cursor {
    fn new() -> Self {
        Self {
            next: 0,
            playback: Playback::new(),
            model: MatchModel::new(),
            at_ms: 0,
        }
    }
}

/// A decoded demo, ready to play from any moment.
#[derive(Clone, Debug)]
pub struct Timeline {
    data: Vec<u8>,
    spans: Vec<Span>,
    checkpoints: Vec<Cursor>,
    summary: DemoSummary,
    cursor: Cursor,
}

/// The state one decoding pass carries beyond the cursor.
#[derive(Default)]
struct Pass {
    clock: Option<i32>,
    at_ms: u32,
    names: BTreeSet<String>,
    /// For each record with a delta snapshot: its index and the message its base is.
    bases: Vec<(usize, u32)>,
}

impl Timeline {
    /// Decodes `data`; a file that holds no gamestate, or no record at all, is refused.
    pub fn open(data: Vec<u8>) -> Result<Self, DemoError> {
        let mut summary = DemoSummary {
            bytes: data.len() as u32,
            ..DemoSummary::default()
        };
        let mut spans = Vec::new();
        let mut records = Records::new(&data);
        let mut failed = None;
        for record in records.by_ref() {
            match record {
                Ok(r) => {
                    let start = r.payload.as_ptr() as usize - data.as_ptr() as usize;
                    spans.push(Span {
                        sequence: r.sequence,
                        bytes: start..start + r.payload.len(),
                        offset: r.offset,
                        at_ms: 0,
                    });
                }
                Err(e) => {
                    summary.problem = Some(e.to_string());
                    failed = Some(e);
                }
            }
        }
        summary.ended = records.ended;
        if spans.is_empty() {
            return Err(failed.unwrap_or(DemoError::Empty));
        }
        let mut timeline = Self {
            data,
            spans,
            checkpoints: Vec::new(),
            summary,
            cursor: Cursor::new(),
        };
        timeline.first_pass()?;
        Ok(timeline)
    }

    fn record(&self, index: usize) -> DemoRecord<'_> {
        self.spans[index].record(&self.data)
    }

    fn first_pass(&mut self) -> Result<(), DemoError> {
        let mut pass = Pass::default();
        let mut cursor = Cursor::new();
        let mut next_checkpoint = 0;
        for index in 0..self.spans.len() {
            let heard = match cursor.playback.read(&self.record(index)) {
                Ok(heard) => heard,
                Err(e) if index == 0 => return Err(e),
                Err(e) => {
                    self.summary.problem = Some(e.to_string());
                    self.spans.truncate(index);
                    break;
                }
            };
            if index == 0
                && !heard
                    .iter()
                    .any(|h| matches!(h, Heard::Said(Said::Gamestate(_))))
            {
                return Err(DemoError::NoGamestate);
            }
            let pushed = cursor.model.feed().1;
            let snapshot = self.take(&mut cursor, heard, index, &mut pass);
            self.kills(&cursor.model, pushed, pass.at_ms);
            self.spans[index].at_ms = pass.at_ms;
            cursor.at_ms = pass.at_ms;
            cursor.next = index + 1;
            if snapshot && pass.at_ms >= next_checkpoint {
                next_checkpoint = pass.at_ms + CHECKPOINT_MS;
                self.checkpoints.push(cursor.clone());
            }
        }
        self.summary.records = self.spans.len() as u32;
        self.summary.duration_ms = pass.at_ms;
        self.trim_checkpoints(&pass.bases);
        self.cursor = self.checkpoints.first().cloned().unwrap_or(cursor);
        Ok(())
    }

    /// Feeds one record's events to the model and the summary; true if it held a snapshot.
    fn take(
        &mut self,
        cursor: &mut Cursor,
        heard: Vec<Heard>,
        index: usize,
        pass: &mut Pass,
    ) -> bool {
        let mut snapshot = false;
        for h in heard {
            let Heard::Said(said) = h else { continue };
            let event = Event::from(said);
            match &event {
                Event::Gamestate(g) => {
                    self.summary.maps.push(map_name(g));
                }
                Event::Snapshot(s) => {
                    if s.flags & SNAPFLAG_NOT_ACTIVE != 0 {
                        continue;
                    }
                    snapshot = true;
                    self.summary.snapshots += 1;
                    if s.delta_num != 0 {
                        let base = (self.spans[index].sequence as u32)
                            .wrapping_sub(u32::from(s.delta_num));
                        pass.bases.push((index, base));
                    }
                    let step = pass.clock.map_or(0, |t| s.server_time.wrapping_sub(t));
                    if (0..=MAX_GAP_MS).contains(&step) {
                        pass.at_ms += step as u32;
                    }
                    pass.clock = Some(s.server_time);
                    if self.summary.snapshots == 1 {
                        self.summary.first_server_time = s.server_time;
                    }
                    self.summary.last_server_time = s.server_time;
                }
                _ => {}
            }
            cursor.model.handle(&event);
            if let Event::Snapshot(s) = &event {
                for c in s.clients.values() {
                    let name = c.name();
                    if pass.names.insert(name.clone()) {
                        self.summary.players.push(name);
                    }
                }
            }
        }
        if snapshot && self.summary.snapshots == 1 {
            let view = cursor.model.view();
            self.summary.hostname = view.header.hostname;
            self.summary.gametype = view.header.gametype;
        }
        snapshot
    }

    /// Notes the kills the model added since it had pushed `before` feed items.
    fn kills(&mut self, model: &MatchModel, before: u64, at_ms: u32) {
        let (feed, pushed) = model.feed();
        let new = (pushed - before).min(feed.len() as u64) as usize;
        for item in &feed[feed.len() - new..] {
            if let FeedItem::Kill {
                time,
                attacker,
                victim,
                weapon,
            } = item
            {
                let name = |c: u8| {
                    model
                        .name_of(c)
                        .map_or_else(|| alloc::format!("#{c}"), String::from)
                };
                self.summary.kills.push(DemoKill {
                    at_ms,
                    server_time: *time,
                    attacker: attacker.map(name),
                    victim: name(*victim),
                    weapon: weapon.clone(),
                });
            }
        }
    }

    /// A kept position needs only the history snapshots later records delta from.
    fn trim_checkpoints(&mut self, bases: &[(usize, u32)]) {
        for checkpoint in &mut self.checkpoints {
            let needed: BTreeSet<u32> = bases
                .iter()
                .filter(|(index, _)| *index >= checkpoint.next)
                .take_while(|(index, _)| *index < checkpoint.next + crate::cod::snapshot::HISTORY)
                .map(|(_, base)| *base)
                .collect();
            checkpoint.playback.retain_history(|s| needed.contains(&s));
        }
    }

    pub fn summary(&self) -> &DemoSummary {
        &self.summary
    }

    /// Demo time of the snapshot shown.
    pub fn position(&self) -> u32 {
        self.cursor.at_ms
    }

    /// Demo time of the last snapshot.
    pub fn duration(&self) -> u32 {
        self.summary.duration_ms
    }

    /// The match as the latest snapshot read shows it.
    pub fn view(&self) -> MatchView {
        self.cursor.model.view()
    }

    /// Plays forward to demo time `at_ms` (a time before the position seeks): reads every
    /// record up to the last snapshot at or before it. True if the view changed.
    pub fn advance_to(&mut self, at_ms: u32) -> bool {
        if at_ms < self.cursor.at_ms {
            self.seek(at_ms);
            return true;
        }
        let mut changed = false;
        while let Some(span) = self.spans.get(self.cursor.next) {
            if span.at_ms > at_ms {
                break;
            }
            let at = span.at_ms;
            if let Ok(heard) = self.cursor.playback.read(&span.record(&self.data)) {
                for h in heard {
                    if let Heard::Said(said) = h {
                        if matches!(&said, Said::Snapshot(s) if s.flags & SNAPFLAG_NOT_ACTIVE != 0)
                        {
                            continue;
                        }
                        self.cursor.model.handle(&Event::from(said));
                    }
                }
            }
            self.cursor.next += 1;
            self.cursor.at_ms = at;
            changed = true;
        }
        changed
    }

    /// Jumps to demo time `at_ms`: from the last kept position at or before it, forward.
    pub fn seek(&mut self, at_ms: u32) {
        self.cursor = match self.checkpoints.iter().rposition(|c| c.at_ms <= at_ms) {
            Some(from) => self.checkpoints[from].clone(),
            // Before the first kept position, or a demo with none (no snapshot it could keep):
            // from the first record. Never a cursor past `at_ms`, which would seek again.
            None => Cursor::new(),
        };
        self.advance_to(at_ms);
    }

    /// Whether every record has been played.
    pub fn finished(&self) -> bool {
        self.cursor.next >= self.spans.len()
    }

    /// Positions kept for seeking.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }
}

/// What a still of a demo needs: its hostname, gametype and first map, and the match as it
/// stood at a moment.
#[derive(Clone, Debug, PartialEq)]
pub struct StillOf {
    pub hostname: String,
    pub gametype: String,
    pub map: Option<String>,
    pub view: MatchView,
}

/// The match in `data` as it stood at its last snapshot at or before server time `at` (or at
/// its first, if that comes later), read in one pass that stops there. A clip just cut needs
/// this once: [`Timeline::open`] decodes the whole file and keeps a position every
/// [`CHECKPOINT_MS`] for seeking, which a highlight's still never does (in a relay cutting
/// clips, that layout was a fifth of its CPU). Refused as `open` refuses: no record, or a first
/// record without the gamestate; a bad record later ends the read there.
pub fn still_of(data: &[u8], at: i32) -> Result<StillOf, DemoError> {
    let mut playback = Playback::new();
    let mut model = MatchModel::new();
    let (mut map, mut header) = (None, None);
    for (index, record) in Records::new(data).enumerate() {
        let heard = match record.and_then(|r| playback.read(&r)) {
            Ok(heard) => heard,
            Err(e) if index == 0 => return Err(e),
            Err(_) => break,
        };
        if index == 0
            && !heard
                .iter()
                .any(|h| matches!(h, Heard::Said(Said::Gamestate(_))))
        {
            return Err(DemoError::NoGamestate);
        }
        let active =
            |said: &Said| matches!(said, Said::Snapshot(s) if s.flags & SNAPFLAG_NOT_ACTIVE == 0);
        let past = heard
            .iter()
            .any(|h| matches!(h, Heard::Said(s) if active(s) && matches!(s, Said::Snapshot(s) if s.server_time > at)));
        if past && header.is_some() {
            break;
        }
        for h in heard {
            let Heard::Said(said) = h else { continue };
            if matches!(&said, Said::Snapshot(_)) && !active(&said) {
                continue;
            }
            let event = Event::from(said);
            if let Event::Gamestate(g) = &event {
                map.get_or_insert_with(|| map_name(g));
            }
            let snapshot = matches!(event, Event::Snapshot(_));
            model.handle(&event);
            if snapshot && header.is_none() {
                let view = model.view();
                header = Some((view.header.hostname, view.header.gametype));
            }
        }
    }
    let (hostname, gametype) = header.unwrap_or_default();
    Ok(StillOf {
        hostname,
        gametype,
        map,
        view: model.view(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the demo fuzz target (it hung): a file whose records keep no position to seek
    /// from left the cursor at the end, so every seek back sought again, without end.
    #[test]
    fn a_seek_before_every_kept_position_plays_from_the_start() {
        let data = include_bytes!("../../../tests/fixtures/demo-without-a-kept-position.dm_3");
        let mut timeline = Timeline::open(data.to_vec()).unwrap();
        let end = timeline.duration();
        assert!(end > 0);
        for at in [end / 2, 0, end, end / 3] {
            timeline.seek(at);
            assert!(timeline.position() <= at);
        }
        timeline.advance_to(u32::MAX);
        assert!(timeline.finished());
    }
}
