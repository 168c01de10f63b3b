//! How a [`Record`] is kept on disk. A match's kills are most of its bytes, so they are laid out
//! a column at a time (every kill's time, then every attacker, ..., every victim's height) and
//! the whole deflated: a column holds like values, so the times (kept as steps from the kill
//! before) and the small tables' ids shrink to a few bits, and positions to little more than
//! what they say.
//!
//! Records written before (schema 4) are plain postcard; they still read, and are packed anew
//! when their match is written again. A packed record starts with bytes that would begin a
//! plain record of two million names, which no record shorter than that could hold.

use std::io::{Read, Write};

use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;
use protocol::relay_api::matches::KillKind;
use protocol::relay_api::watch::Team;
use serde::{Deserialize, Serialize};

use super::record::{Board, Corrupt, Id, Kill, Record, Roster, Stay};

/// The packing's mark and version.
const MAGIC: [u8; 4] = [0xFF, 0xFF, 0x7F, 2];
/// A record larger than this unpacked is not one the relay wrote.
const MOST: u64 = 64 << 20;

#[derive(Default, Serialize, Deserialize)]
struct Columns {
    names: Vec<String>,
    weapons: Vec<String>,
    /// Each kill's server time less the one before's.
    step: Vec<i32>,
    /// The attacker's id plus one; 0 when the world killed.
    attacker: Vec<Id>,
    victim: Vec<Id>,
    weapon: Vec<Id>,
    /// The kind, both sides, and which positions are known, in a byte ([`what`]).
    what: Vec<u8>,
    /// x, y and z of the positions known, attacker's then victim's.
    at: [Vec<i32>; 6],
    roster: Vec<Roster>,
    stays: Vec<Stay>,
    team_scores: Vec<(i32, i32, i32)>,
    board: Option<Board>,
}

fn kind_code(kind: KillKind) -> u8 {
    match kind {
        KillKind::Kill => 0,
        KillKind::TeamKill => 1,
        KillKind::Suicide => 2,
        KillKind::World => 3,
    }
}

fn kind_of(code: u8) -> KillKind {
    [
        KillKind::Kill,
        KillKind::TeamKill,
        KillKind::Suicide,
        KillKind::World,
    ][usize::from(code & 3)]
}

fn team_code(team: Team) -> u8 {
    match team {
        Team::Free => 0,
        Team::Axis => 1,
        Team::Allies => 2,
        Team::Spectator => 3,
    }
}

fn team_of(code: u8) -> Team {
    [Team::Free, Team::Axis, Team::Allies, Team::Spectator][usize::from(code & 3)]
}

/// A kill's kind (bits 0-1), attacker's side (2-3), victim's side (4-5), and whether the
/// attacker's (6) and victim's (7) positions are known.
fn what(k: &Kill) -> u8 {
    kind_code(k.kind)
        | team_code(k.attacker_team) << 2
        | team_code(k.victim_team) << 4
        | u8::from(k.attacker_at.is_some()) << 6
        | u8::from(k.victim_at.is_some()) << 7
}

pub fn pack(record: &Record) -> Vec<u8> {
    let mut c = Columns {
        names: record.names.clone(),
        weapons: record.weapons.clone(),
        roster: record.roster.clone(),
        stays: record.stays.clone(),
        team_scores: record.team_scores.clone(),
        board: record.board.clone(),
        ..Columns::default()
    };
    let mut before = 0i32;
    for k in &record.kills {
        c.step.push(k.t.wrapping_sub(before));
        before = k.t;
        c.attacker.push(k.attacker.map_or(0, |a| a + 1));
        c.victim.push(k.victim);
        c.weapon.push(k.weapon);
        c.what.push(what(k));
        for (at, columns) in [(k.attacker_at, 0), (k.victim_at, 3)] {
            for (i, v) in at.iter().flatten().enumerate() {
                c.at[columns + i].push(*v);
            }
        }
    }
    // Plain data always serialises, and writing to a Vec does not fail.
    let plain = postcard::to_allocvec(&c).unwrap_or_default();
    let mut out = DeflateEncoder::new(MAGIC.to_vec(), Compression::best());
    let _ = out.write_all(&plain);
    out.finish().unwrap_or_default()
}

pub fn unpack(bytes: &[u8]) -> Result<Record, Corrupt> {
    let Some(packed) = bytes.strip_prefix(&MAGIC) else {
        return postcard::from_bytes(bytes).map_err(|e| Corrupt(e.to_string()));
    };
    let mut plain = Vec::new();
    DeflateDecoder::new(packed)
        .take(MOST)
        .read_to_end(&mut plain)
        .map_err(|e| Corrupt(e.to_string()))?;
    let c: Columns = postcard::from_bytes(&plain).map_err(|e| Corrupt(e.to_string()))?;
    let n = c.step.len();
    let short = |len: usize| len != n;
    if [
        c.attacker.len(),
        c.victim.len(),
        c.weapon.len(),
        c.what.len(),
    ]
    .into_iter()
    .any(short)
    {
        return Err(Corrupt("the kill columns differ in length".into()));
    }
    let mut at = c.at.map(Vec::into_iter);
    let mut take = |from: usize| -> Result<[i32; 3], Corrupt> {
        let mut one = [0; 3];
        for (i, v) in one.iter_mut().enumerate() {
            *v = at[from + i]
                .next()
                .ok_or_else(|| Corrupt("a position column ends early".into()))?;
        }
        Ok(one)
    };
    let mut t = 0i32;
    let mut kills = Vec::with_capacity(n);
    for i in 0..n {
        t = t.wrapping_add(c.step[i]);
        let w = c.what[i];
        kills.push(Kill {
            t,
            attacker: c.attacker[i].checked_sub(1),
            victim: c.victim[i],
            weapon: c.weapon[i],
            kind: kind_of(w),
            attacker_team: team_of(w >> 2),
            victim_team: team_of(w >> 4),
            attacker_at: (w & 1 << 6 != 0).then(|| take(0)).transpose()?,
            victim_at: (w & 1 << 7 != 0).then(|| take(3)).transpose()?,
        });
    }
    Ok(Record {
        names: c.names,
        weapons: c.weapons,
        kills,
        roster: c.roster,
        stays: c.stays,
        team_scores: c.team_scores,
        board: c.board,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kill(t: i32, attacker: Option<Id>, victim: Id, kind: KillKind, at: bool) -> Kill {
        Kill {
            t,
            attacker,
            victim,
            weapon: (t % 3) as Id,
            kind,
            attacker_team: Team::Axis,
            victim_team: if at { Team::Allies } else { Team::Free },
            attacker_at: at.then_some([t, -t, 40]),
            victim_at: Some([-1200, 3000, -8]),
        }
    }

    fn record() -> Record {
        Record {
            names: vec!["^1one".into(), "two".into(), "three".into()],
            weapons: vec!["kar98k_mp".into(), "MOD_FALLING".into(), "mp44_mp".into()],
            kills: vec![
                kill(-5, None, 0, KillKind::World, false),
                kill(1000, Some(1), 0, KillKind::Kill, true),
                kill(1000, Some(2), 1, KillKind::TeamKill, true),
                kill(i32::MAX, Some(2), 2, KillKind::Suicide, false),
            ],
            stays: vec![Stay {
                name: 1,
                from: 0,
                to: 9000,
            }],
            team_scores: vec![(1000, 1, 0)],
            board: Some(Board {
                t: 9000,
                axis: 1,
                allies: 0,
                rows: vec![(1, Team::Axis, 1, 0)],
            }),
            ..Record::default()
        }
    }

    #[test]
    fn a_record_reads_back_whole_packed_and_plain() {
        let record = record();
        let packed = pack(&record);
        assert!(packed.starts_with(&MAGIC));
        assert_eq!(unpack(&packed).unwrap(), record);
        // As schema 4 wrote it.
        assert_eq!(
            unpack(&postcard::to_allocvec(&record).unwrap()).unwrap(),
            record
        );
        assert_eq!(
            unpack(&pack(&Record::default())).unwrap(),
            Record::default()
        );
    }

    #[test]
    fn a_damaged_record_is_refused_without_a_panic() {
        let packed = pack(&record());
        for cut in 0..packed.len() {
            let _ = unpack(&packed[..cut]);
        }
        let mut flipped = packed.clone();
        for i in MAGIC.len()..flipped.len() {
            flipped[i] ^= 0x5A;
            let _ = unpack(&flipped);
        }
        assert!(unpack(&packed[..packed.len() / 2]).is_err());
    }
}
