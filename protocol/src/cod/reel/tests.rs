use alloc::boxed::Box;
use alloc::format;
use alloc::string::ToString;

use super::*;
use crate::cod::client::Event;

/// Feeds the reel one session event, as the relay's tap does.
trait Feed {
    fn handle(&mut self, event: &Event);
}

impl Feed for Reel {
    fn handle(&mut self, event: &Event) {
        match event {
            Event::Gamestate(g) => self.gamestate(g),
            Event::Configstring { index, value } => self.configstring(*index, value),
            Event::ServerCommand { sequence, text } => self.command(*sequence, text),
            Event::Snapshot(s) => self.snapshot(s),
            _ => {}
        }
    }
}
use crate::cod::demo::{Playback, Records};
use crate::cod::entity::EntityState;
use crate::cod::gamestate::CS_SERVERINFO;

const LIMITS: ReelLimits = ReelLimits {
    span_ms: 60_000,
    keyframe_every_ms: 5_000,
};

fn gamestate(map: &str, commands: i32) -> Event {
    let mut g = Gamestate {
        server_command_sequence: commands,
        client_num: 3,
        checksum_feed: 77,
        ..Gamestate::default()
    };
    g.configstrings
        .insert(CS_SERVERINFO, format!("\\mapname\\{map}\\g_gametype\\tdm"));
    g.configstrings.insert(1000, "before".to_string());
    for n in 1..5 {
        g.baselines.insert(n, EntityState::zero(n));
    }
    Event::Gamestate(Box::new(g))
}

/// Snapshot `n`: four entities walking, one leaving at times.
fn snapshot(n: i32) -> Snapshot {
    let mut s = Snapshot {
        server_time: 1_000 + n * 50,
        ..Snapshot::default()
    };
    for e in 1..5u16 {
        if e == 4 && (n / 40) % 2 == 1 {
            continue;
        }
        let mut entity = EntityState::zero(e);
        entity.set_origin([n as f32 * 2.0 + f32::from(e), f32::from(e) * 100.0, 0.0]);
        s.entities.insert(e, entity);
    }
    s
}

/// A reel fed `count` snapshots, a command every 30 and a configstring change at 250.
fn reel(count: i32) -> (Reel, Vec<Snapshot>) {
    let mut reel = Reel::new(LIMITS);
    reel.handle(&gamestate("mp_foy", 10));
    let mut sent = Vec::new();
    let mut commands = 10;
    for n in 0..count {
        if n % 30 == 0 {
            commands += 1;
            reel.handle(&Event::ServerCommand {
                sequence: commands,
                text: format!("print \"{n}\""),
            });
        }
        if n == 250 {
            commands += 1;
            reel.handle(&Event::ServerCommand {
                sequence: commands,
                text: "d 1000 after".to_string(),
            });
            reel.handle(&Event::Configstring {
                index: 1000,
                value: "after".to_string(),
            });
        }
        let s = snapshot(n);
        reel.handle(&Event::Snapshot(Box::new(s.clone())));
        sent.push(s);
    }
    (reel, sent)
}

/// What the project's demo reader sees in a file: the gamestate and every snapshot.
fn read_back(demo: &[u8]) -> (Gamestate, Vec<Snapshot>, Vec<String>) {
    let mut records = Records::new(demo);
    let mut playback = Playback::new();
    let mut snapshots = Vec::new();
    let mut commands = Vec::new();
    for record in records.by_ref() {
        for heard in playback.read(&record.unwrap()).unwrap() {
            match heard {
                Heard::Said(Said::Snapshot(s)) => snapshots.push(*s),
                Heard::Said(Said::ServerCommand { text, .. }) => commands.push(text),
                Heard::Said(_) => {}
                other => panic!("{other:?}"),
            }
        }
    }
    assert!(records.ended, "the end marker");
    (playback.gamestate().unwrap().clone(), snapshots, commands)
}

fn same(a: &Snapshot, b: &Snapshot) -> bool {
    a.server_time == b.server_time && a.entities == b.entities && a.player == b.player
}

#[test]
fn a_cut_holds_exactly_the_snapshots_of_its_span_as_they_were() {
    let (reel, sent) = reel(400);
    // From between two keyframes, past the configstring change.
    let (from, to) = (1_000 + 263 * 50, 1_000 + 390 * 50);
    let cut = reel.cut(from, to).unwrap();
    let (gamestate, snapshots, commands) = read_back(&cut.demo);
    let wanted: Vec<&Snapshot> = sent
        .iter()
        .filter(|s| s.server_time >= from && s.server_time <= to)
        .collect();
    assert_eq!(snapshots.len(), wanted.len());
    assert!(snapshots.iter().zip(&wanted).all(|(a, b)| same(a, b)));
    assert_eq!(snapshots[0].delta_num, 0, "the first snapshot is whole");
    assert_eq!(cut.snapshots as usize, wanted.len());
    assert_eq!((cut.first_server_time, cut.last_server_time), (from, to));
    assert_eq!(gamestate.configstrings[&1000], "after");
    assert_eq!(gamestate.client_num, 3);
    // The commands of the span, once each, and none before it.
    assert_eq!(
        commands,
        [
            "print \"270\"",
            "print \"300\"",
            "print \"330\"",
            "print \"360\"",
            "print \"390\""
        ]
    );
}

#[test]
fn a_cut_starting_at_a_keyframe_or_the_first_snapshot_reads_back() {
    let (reel, sent) = reel(200);
    for from in [1_000, 1_000 + 100 * 50] {
        let cut = reel.cut(from, from + 2_000).unwrap();
        let (_, snapshots, _) = read_back(&cut.demo);
        assert_eq!(snapshots.len(), 41);
        let at = ((from - 1_000) / 50) as usize;
        assert!(same(&snapshots[0], &sent[at]));
        assert!(same(&snapshots[40], &sent[at + 40]));
    }
}

#[test]
fn a_cut_across_a_map_change_is_its_longest_part_and_outside_the_reel_says_what_it_holds() {
    let (mut reel, _) = reel(100);
    reel.handle(&gamestate("mp_dawnville", 50));
    for n in 100..140 {
        reel.handle(&Event::Snapshot(Box::new(snapshot(n))));
    }
    let before = reel.cut(1_000 + 94 * 50, 1_000 + 102 * 50).unwrap();
    assert_eq!(
        (before.first_server_time, before.last_server_time),
        (1_000 + 94 * 50, 1_000 + 99 * 50)
    );
    let later = reel.cut(1_000 + 90 * 50, 1_000 + 120 * 50).unwrap();
    assert_eq!(
        (later.first_server_time, later.last_server_time),
        (1_000 + 100 * 50, 1_000 + 120 * 50)
    );
    let after = reel.cut(1_000 + 110 * 50, 1_000 + 120 * 50).unwrap();
    let (gamestate, snapshots, _) = read_back(&after.demo);
    assert_eq!(snapshots.len(), 11);
    assert!(gamestate.configstrings[&CS_SERVERINFO].contains("mp_dawnville"));
    assert_eq!(
        reel.cut(90_000, 99_000).unwrap_err(),
        CutError::Outside {
            first: Some(1_000),
            last: Some(1_000 + 139 * 50)
        }
    );
}

/// A server sends the gamestate again when its first went unacknowledged: a clip from the
/// match's first snapshot holds the whole span, not the one snapshot before the resend.
#[test]
fn a_gamestate_sent_again_just_after_the_first_does_not_cut_a_span_short() {
    let mut reel = Reel::new(LIMITS);
    reel.handle(&gamestate("mp_foy", 10));
    reel.handle(&Event::Snapshot(Box::new(snapshot(0))));
    reel.handle(&gamestate("mp_foy", 10));
    for n in 1..60 {
        reel.handle(&Event::Snapshot(Box::new(snapshot(n))));
    }
    let cut = reel.cut(1_000, 1_000 + 50 * 50).unwrap();
    let (_, snapshots, _) = read_back(&cut.demo);
    assert_eq!(snapshots.len(), 50);
    assert_eq!(cut.last_server_time, 1_000 + 50 * 50);
}

#[test]
fn a_reel_keeps_its_span_and_drops_whole_segments() {
    let (mut reel, _) = reel(2_000);
    let (first, last) = reel.span().unwrap();
    assert!(last - first <= LIMITS.span_ms);
    assert!(last - first > LIMITS.span_ms - LIMITS.keyframe_every_ms);
    let bytes = reel.bytes();
    assert!(reel.drop_oldest());
    assert!(reel.bytes() < bytes);
    let (now_first, _) = reel.span().unwrap();
    assert!(reel.cut(now_first, now_first + 500).is_ok());
    while reel.drop_oldest() {}
    assert!(reel.span().is_some(), "the newest segment stays");
}
