//! One hub's rewind window: what viewers were shown over the last minutes, as segments that
//! each begin with a keyframe (the whole match, a few seconds apart) followed by the updates
//! after it. Any moment is one keyframe and the few seconds of updates after it. The bytes are
//! the ones the broadcast sent (shared, never copied per viewer); the oldest segment goes first
//! when the window is longer than its span or bigger than its budget, the hub's or the relay's.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::Bytes;
use protocol::relay_api::rewind::{RewindKill, RewindWindow};

use crate::seams::Moment;

/// What a window may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How far back it reaches (µs).
    pub span_us: u64,
    /// A new keyframe when the segment so far is this old (µs).
    pub keyframe_every_us: u64,
    /// The most one hub's window may hold, in bytes.
    pub hub_bytes: usize,
    /// The most every window of the relay may hold together, in bytes.
    pub total_bytes: usize,
}

/// A message as the broadcast sent it.
#[derive(Clone, Debug)]
pub struct Step {
    pub seq: u64,
    pub relay_us: u64,
    pub server_time: i32,
    pub bytes: Bytes,
}

/// What a step costs beside its bytes (its fields and the deque's slot), counted against the
/// budgets so a window of tiny updates is not under-counted.
const STEP_OVERHEAD: usize = std::mem::size_of::<Step>();

struct Segment {
    keyframe: Step,
    steps: Vec<Step>,
    kills: Vec<RewindKill>,
    bytes: usize,
}

impl Segment {
    fn last(&self) -> &Step {
        self.steps.last().unwrap_or(&self.keyframe)
    }
}

/// What one hub's window and reel hold together, and what every hub's hold: each counts its
/// bytes into both and drops its oldest seconds while either is over its limit.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    pub total: Arc<AtomicUsize>,
    pub hub: Arc<AtomicUsize>,
}

impl Budget {
    /// A new hub's budget within the relay's `total`.
    pub fn of_hub(total: Arc<AtomicUsize>) -> Self {
        Self {
            total,
            hub: Arc::default(),
        }
    }

    pub fn grow(&self, bytes: usize) {
        self.hub.fetch_add(bytes, Ordering::Relaxed);
        self.total.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn shrink(&self, bytes: usize) {
        self.hub.fetch_sub(bytes, Ordering::Relaxed);
        self.total.fetch_sub(bytes, Ordering::Relaxed);
    }

    pub fn over(&self, limits: &Limits) -> bool {
        self.hub.load(Ordering::Relaxed) > limits.hub_bytes
            || self.total.load(Ordering::Relaxed) > limits.total_bytes
    }

    /// The hub's window and reel together.
    pub fn hub_bytes(&self) -> usize {
        self.hub.load(Ordering::Relaxed)
    }
}

pub struct Window {
    segments: VecDeque<Segment>,
    bytes: usize,
    limits: Limits,
    budget: Budget,
}

fn kill_cost(k: &RewindKill) -> usize {
    std::mem::size_of::<RewindKill>()
        + k.attacker.as_ref().map_or(0, String::len)
        + k.victim.len()
        + k.weapon.len()
}

impl Window {
    pub fn new(limits: Limits, budget: Budget) -> Self {
        Self {
            segments: VecDeque::new(),
            bytes: 0,
            limits,
            budget,
        }
    }

    /// Whether the next step should start a segment (the first, or the current one is old).
    pub fn wants_keyframe(&self, relay_us: u64) -> bool {
        self.segments.back().is_none_or(|s| {
            relay_us.saturating_sub(s.keyframe.relay_us) >= self.limits.keyframe_every_us
        })
    }

    /// Starts a segment at `keyframe`: the whole match after the step of the same sequence.
    /// A keyframe numbered before the window's end is a new hub's (its sequence starts
    /// again): what was held no longer leads anywhere, so it goes.
    pub fn keyframe(&mut self, keyframe: Step) {
        if self.end().is_some_and(|end| keyframe.seq < end.seq) {
            let gone: usize = self.segments.drain(..).map(|s| s.bytes).sum();
            self.shrink(gone);
        }
        let bytes = keyframe.bytes.len() + STEP_OVERHEAD;
        self.segments.push_back(Segment {
            keyframe,
            steps: Vec::new(),
            kills: Vec::new(),
            bytes,
        });
        self.grow(bytes);
    }

    /// Adds an update to the current segment (nothing before the first keyframe can be
    /// shown, so it is not kept), with the kills it carries.
    pub fn update(&mut self, step: Step, kills: Vec<RewindKill>) {
        let Some(segment) = self.segments.back_mut() else {
            return;
        };
        let bytes = step.bytes.len() + STEP_OVERHEAD + kills.iter().map(kill_cost).sum::<usize>();
        segment.steps.push(step);
        segment.kills.extend(kills);
        segment.bytes += bytes;
        self.grow(bytes);
    }

    fn grow(&mut self, bytes: usize) {
        self.bytes += bytes;
        self.budget.grow(bytes);
        self.trim();
    }

    /// Drops the oldest segments while the window reaches further back than its span (a
    /// segment goes once the one after it starts early enough), or is over either budget.
    /// The newest segment always stays: it is the live edge.
    fn trim(&mut self) {
        let newest = self.segments.back().map_or(0, |s| s.last().relay_us);
        let from = newest.saturating_sub(self.limits.span_us);
        while self.segments.len() > 1 {
            let too_old = self.segments[1].keyframe.relay_us <= from;
            let too_big = self.budget.over(&self.limits);
            if !too_old && !too_big {
                break;
            }
            if let Some(gone) = self.segments.pop_front() {
                self.shrink(gone.bytes);
            }
        }
    }

    fn shrink(&mut self, bytes: usize) {
        self.bytes -= bytes;
        self.budget.shrink(bytes);
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The moment `relay_us` (clamped to the window): its segment's keyframe and the updates
    /// up to it.
    pub fn seek(&self, relay_us: u64) -> Option<Moment> {
        let first = self.segments.front()?;
        let at = relay_us.max(first.keyframe.relay_us);
        let index = self
            .segments
            .partition_point(|s| s.keyframe.relay_us <= at)
            .saturating_sub(1);
        let segment = &self.segments[index];
        let mut frames = vec![segment.keyframe.bytes.clone()];
        let mut last = &segment.keyframe;
        for step in segment.steps.iter().take_while(|s| s.relay_us <= at) {
            frames.push(step.bytes.clone());
            last = step;
        }
        let live = index + 1 == self.segments.len() && last.seq == segment.last().seq;
        Some(Moment {
            frames,
            seq: last.seq,
            relay_us: last.relay_us,
            live,
        })
    }

    /// The updates after sequence `seq` up to `until_us`, at most `max`; `None` when `seq` has
    /// left the window (the viewer seeks again).
    pub fn after(&self, seq: u64, until_us: u64, max: usize) -> Option<Moment> {
        let index = self
            .segments
            .partition_point(|s| s.keyframe.seq <= seq)
            .checked_sub(1)?;
        let end = self.end()?;
        let mut moment = Moment {
            seq,
            relay_us: 0,
            ..Moment::default()
        };
        let steps = self
            .segments
            .range(index..)
            .flat_map(|s| s.steps.iter())
            .skip_while(|s| s.seq <= seq)
            .take_while(|s| s.relay_us <= until_us)
            .take(max);
        for step in steps {
            moment.frames.push(step.bytes.clone());
            moment.seq = step.seq;
            moment.relay_us = step.relay_us;
        }
        moment.live = moment.seq >= end.seq;
        Some(moment)
    }

    /// The newest moment held (the live edge).
    pub fn end(&self) -> Option<&Step> {
        self.segments.back().map(Segment::last)
    }

    /// The server time shown at `relay_us`: the last step at or before it (the first step's
    /// when before the window).
    pub fn server_time_at(&self, relay_us: u64) -> Option<i32> {
        let first = &self.segments.front()?.keyframe;
        let steps = self
            .segments
            .iter()
            .flat_map(|s| std::iter::once(&s.keyframe).chain(&s.steps));
        Some(
            steps
                .take_while(|s| s.relay_us <= relay_us)
                .last()
                .unwrap_or(first)
                .server_time,
        )
    }

    /// The kills released from `from_us` to `to_us`, both included.
    pub fn kills_between(&self, from_us: u64, to_us: u64) -> Vec<RewindKill> {
        let kills = self.segments.iter().flat_map(|s| s.kills.iter());
        kills
            .filter(|k| (from_us..=to_us).contains(&k.relay_us))
            .cloned()
            .collect()
    }

    /// What the API shows of the window.
    pub fn summary(&self) -> Option<RewindWindow> {
        let first = &self.segments.front()?.keyframe;
        let end = self.end()?;
        Some(RewindWindow {
            start_us: first.relay_us,
            start_server_time: first.server_time,
            end_us: end.relay_us,
            end_server_time: end.server_time,
            keyframes: self.segments.len() as u32,
            bytes: self.bytes as u64,
            reel_bytes: self.budget.hub_bytes().saturating_sub(self.bytes) as u64,
            kills: self
                .segments
                .iter()
                .flat_map(|s| s.kills.iter().cloned())
                .collect(),
        })
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        self.budget.shrink(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000;

    fn limits() -> Limits {
        Limits {
            span_us: 60 * SECOND,
            keyframe_every_us: 5 * SECOND,
            hub_bytes: 1 << 20,
            total_bytes: 1 << 20,
        }
    }

    fn step(seq: u64, size: usize) -> Step {
        Step {
            seq,
            // 20 updates a second.
            relay_us: seq * SECOND / 20,
            server_time: (seq * 50) as i32,
            bytes: Bytes::from(vec![seq as u8; size]),
        }
    }

    /// A window fed as the tap feeds it: each update, and a keyframe after it when due.
    fn fed(window: &mut Window, seqs: std::ops::RangeInclusive<u64>) {
        for seq in seqs {
            window.update(step(seq, 10), Vec::new());
            if window.wants_keyframe(step(seq, 0).relay_us) {
                window.keyframe(step(seq, 100));
            }
        }
    }

    #[test]
    fn a_seek_is_one_keyframe_and_the_updates_after_it_up_to_the_moment() {
        let total = Arc::new(AtomicUsize::new(0));
        let mut window = Window::new(limits(), Budget::of_hub(total.clone()));
        fed(&mut window, 1..=400);
        // Keyframes at seq 1, 101, 201, 301 (every 5 s at 20 a second).
        assert_eq!(window.summary().unwrap().keyframes, 4);
        let at = window.seek(step(250, 0).relay_us).unwrap();
        assert_eq!(at.seq, 250);
        assert_eq!(
            at.frames.len(),
            1 + 49,
            "keyframe 201 and updates 202..=250"
        );
        assert_eq!(at.frames[0], step(201, 100).bytes);
        assert_eq!(at.frames[1], step(202, 10).bytes);
        assert_eq!(at.frames.last().unwrap(), &step(250, 10).bytes);
        // Before the window: its start; after it: the live edge.
        assert_eq!(window.seek(0).unwrap().seq, 1);
        assert_eq!(window.seek(u64::MAX).unwrap().seq, 400);
        // Playing on from 250 crosses into the next segment's updates, never its keyframe.
        let next = window.after(250, step(305, 0).relay_us, 1000).unwrap();
        let sent: Vec<Bytes> = (251..=305).map(|seq| step(seq, 10).bytes).collect();
        assert_eq!(next.frames, sent);
        assert_eq!((next.seq, next.live), (305, false));
        let to_live = window.after(305, u64::MAX, 1000).unwrap();
        assert_eq!(
            (to_live.frames.len(), to_live.seq, to_live.live),
            (95, 400, true)
        );
        let none = window.after(400, u64::MAX, 10).unwrap();
        assert_eq!((none.frames.len(), none.seq, none.live), (0, 400, true));
        assert!(window.seek(u64::MAX).unwrap().live);
        assert!(!window.seek(step(250, 0).relay_us).unwrap().live);
        assert_eq!(total.load(Ordering::Relaxed), window.bytes());
    }

    #[test]
    fn a_new_hub_s_numbering_starts_the_window_again() {
        let total = Arc::new(AtomicUsize::new(0));
        let mut window = Window::new(limits(), Budget::of_hub(total.clone()));
        fed(&mut window, 1..=300);
        assert_eq!(window.summary().unwrap().keyframes, 3);
        // A hub gone and back within the grace: its sequence starts at 1 again.
        let mut again = step(1, 100);
        again.relay_us += 3600 * SECOND;
        window.keyframe(again);
        let summary = window.summary().unwrap();
        assert_eq!(
            (summary.keyframes, summary.start_us),
            (1, 3600 * SECOND + SECOND / 20)
        );
        assert_eq!(total.load(Ordering::Relaxed), window.bytes());
    }

    #[test]
    fn the_window_keeps_its_span_and_forgets_what_is_older() {
        let mut window = Window::new(limits(), Budget::default());
        // 200 s of updates into a 60 s window.
        fed(&mut window, 1..=4000);
        let summary = window.summary().unwrap();
        let span = summary.end_us - summary.start_us;
        assert!(span >= 60 * SECOND, "{span}");
        assert!(span < 65 * SECOND, "{span}");
        // A viewer whose place was forgotten is told so, and seeks again.
        assert!(window.after(5, u64::MAX, 10).is_none());
    }

    #[test]
    fn a_hub_over_its_budget_and_a_relay_over_its_total_drop_their_oldest() {
        let total = Arc::new(AtomicUsize::new(0));
        let small = Limits {
            hub_bytes: 20_000,
            ..limits()
        };
        let mut window = Window::new(small, Budget::of_hub(total.clone()));
        fed(&mut window, 1..=1000);
        assert!(window.bytes() <= 20_000, "{}", window.bytes());
        assert!(window.summary().unwrap().keyframes >= 2);
        // Two windows sharing a total of 30,000 bytes stay under it together.
        let shared = Limits {
            total_bytes: 30_000,
            ..small
        };
        let total = Arc::new(AtomicUsize::new(0));
        let mut a = Window::new(shared, Budget::of_hub(total.clone()));
        let mut b = Window::new(shared, Budget::of_hub(total.clone()));
        for seq in 1..=1000 {
            for w in [&mut a, &mut b] {
                w.update(step(seq, 10), Vec::new());
                if w.wants_keyframe(step(seq, 0).relay_us) {
                    w.keyframe(step(seq, 100));
                }
            }
        }
        let newest = a.segments.back().unwrap().bytes + b.segments.back().unwrap().bytes;
        assert!(total.load(Ordering::Relaxed) <= 30_000 + newest);
        drop(a);
        assert_eq!(total.load(Ordering::Relaxed), b.bytes());
    }
}
