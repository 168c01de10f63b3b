//! The player-state delta: the 114-field main table (player-state codec), then stats, ammo,
//! clips, objectives and the archival and current HUD arrays, in that fixed order.

use alloc::vec;
use alloc::vec::Vec;

use super::delta::{read_field, write_field, Codec};
use super::fields::{Named, PlayerStateField, HUD_FIELDS, OBJECTIVE_FIELDS, PLAYER_STATE_FIELDS};
use super::msg::{MsgError, MsgReader, MsgWriter};

pub const STATS: usize = 6;
/// Ammo and clips: four groups of sixteen.
pub const AMMO_GROUPS: usize = 4;
pub const GROUP: usize = 16;
pub const OBJECTIVES: usize = 16;
/// HUD elements per array (a 6-bit count).
pub const HUD_ELEMENTS: usize = 63;
/// Index of `type` in the HUD table: an element with type 0 is unused.
const HUD_TYPE: usize = 1;

/// One objective: a 3-bit state and six descriptor fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Objective {
    pub state: u8,
    pub fields: [u32; 6],
}

/// A player state, as raw words per table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerState {
    pub fields: Vec<u32>,
    pub stats: [i32; STATS],
    pub ammo: [i32; AMMO_GROUPS * GROUP],
    pub clips: [i32; AMMO_GROUPS * GROUP],
    pub objectives: Vec<Objective>,
    /// Leading elements with a nonzero type are sent; the rest are cleared on reading.
    pub hud_archival: Vec<[u32; 30]>,
    pub hud_current: Vec<[u32; 30]>,
}

impl Default for PlayerState {
    /// The all-zero state a full snapshot deltas from.
    fn default() -> Self {
        Self {
            fields: vec![0; PLAYER_STATE_FIELDS.len()],
            stats: [0; STATS],
            ammo: [0; AMMO_GROUPS * GROUP],
            clips: [0; AMMO_GROUPS * GROUP],
            objectives: vec![Objective::default(); OBJECTIVES],
            hud_archival: vec![[0; 30]; HUD_ELEMENTS],
            hud_current: vec![[0; 30]; HUD_ELEMENTS],
        }
    }
}

super::fields::named_by!(
    PlayerState,
    PLAYER_STATE_FIELDS,
    super::fields::PlayerStateField
);

/// `origin`, the player's position.
const ORIGIN: [PlayerStateField; 3] = [
    PlayerStateField::ORIGIN_0,
    PlayerStateField::ORIGIN_1,
    PlayerStateField::ORIGIN_2,
];

impl PlayerState {
    /// `origin`: where the player stands.
    pub fn origin(&self) -> [f32; 3] {
        ORIGIN.map(|f| self.get_f32(f))
    }

    pub fn set_origin(&mut self, origin: [f32; 3]) {
        for (field, v) in ORIGIN.into_iter().zip(origin) {
            self.set_f32(field, v);
        }
    }
}

fn write_stat(w: &mut MsgWriter, index: usize, value: i32) {
    match index {
        3 => w.write_bits(value as u32, 6),
        5 => w.write_byte(value as u8),
        _ => w.write_short(value as i16),
    }
}

fn read_stat(r: &mut MsgReader<'_>, index: usize) -> Result<i32, MsgError> {
    Ok(match index {
        3 => r.read_bits(6)? as i32,
        5 => i32::from(r.read_byte()?),
        _ => i32::from(r.read_short()?),
    })
}

/// One group of sixteen shorts: presence bit, 16-bit mask (a short), then the changed values.
fn write_group(w: &mut MsgWriter, old: &[i32], new: &[i32]) {
    let mask = (0..GROUP)
        .filter(|&i| old[i] != new[i])
        .fold(0u16, |m, i| m | 1 << i);
    w.write_bit(mask != 0);
    if mask != 0 {
        w.write_short(mask as i16);
        for i in (0..GROUP).filter(|i| mask & 1 << i != 0) {
            w.write_short(new[i] as i16);
        }
    }
}

fn read_group(r: &mut MsgReader<'_>, values: &mut [i32]) -> Result<(), MsgError> {
    if r.read_bit()? {
        let mask = r.read_short()? as u16;
        for (i, value) in values.iter_mut().enumerate().take(GROUP) {
            if mask & 1 << i != 0 {
                *value = i32::from(r.read_short()?);
            }
        }
    }
    Ok(())
}

/// Elements with a nonzero type, counted from the start.
fn active(hud: &[[u32; 30]]) -> usize {
    hud.iter()
        .take(HUD_ELEMENTS)
        .take_while(|e| e[HUD_TYPE] != 0)
        .count()
}

fn write_hud(w: &mut MsgWriter, old: &[[u32; 30]], new: &[[u32; 30]]) {
    let count = active(new);
    w.write_bits(count as u32, 6);
    for (i, element) in new.iter().enumerate().take(count) {
        let base = old.get(i).copied().unwrap_or([0; 30]);
        let last = (0..HUD_FIELDS.len())
            .rev()
            .find(|&f| base[f] != element[f])
            .unwrap_or(0);
        w.write_bits(last as u32, 5);
        for (f, field) in HUD_FIELDS.iter().enumerate().take(last + 1) {
            write_field(w, Codec::Generic, field, base[f], element[f]);
        }
    }
}

fn read_hud(r: &mut MsgReader<'_>, hud: &mut Vec<[u32; 30]>) -> Result<(), MsgError> {
    let count = (r.read_bits(6)? as usize).min(HUD_ELEMENTS);
    hud.resize(HUD_ELEMENTS, [0; 30]);
    for element in hud.iter_mut().take(count) {
        // A last index past the table's 30 fields is refused as the hardened builds do.
        let last = r.read_bits(5)? as usize;
        if last >= HUD_FIELDS.len() {
            return Err(MsgError::Overrun);
        }
        for (f, field) in HUD_FIELDS.iter().enumerate().take(last + 1) {
            element[f] = read_field(r, Codec::Generic, field, element[f])?;
        }
    }
    for element in hud.iter_mut().skip(count) {
        *element = [0; 30];
    }
    Ok(())
}

/// Writes `new` against `old`.
pub fn write_player_state(w: &mut MsgWriter, old: &PlayerState, new: &PlayerState) {
    let last = (0..PLAYER_STATE_FIELDS.len())
        .rev()
        .find(|&i| old.fields.get(i) != new.fields.get(i))
        .map_or(0, |i| i + 1);
    w.write_byte(last as u8);
    for (i, field) in PLAYER_STATE_FIELDS.iter().enumerate().take(last) {
        let before = old.fields.get(i).copied().unwrap_or(0);
        let after = new.fields.get(i).copied().unwrap_or(0);
        write_field(w, Codec::PlayerState, field, before, after);
    }
    let stat_mask = (0..STATS)
        .filter(|&i| old.stats[i] != new.stats[i])
        .fold(0u32, |m, i| m | 1 << i);
    w.write_bit(stat_mask != 0);
    if stat_mask != 0 {
        w.write_bits(stat_mask, 6);
        for i in (0..STATS).filter(|i| stat_mask & 1 << i != 0) {
            write_stat(w, i, new.stats[i]);
        }
    }
    w.write_bit(old.ammo != new.ammo);
    if old.ammo != new.ammo {
        for g in 0..AMMO_GROUPS {
            let range = g * GROUP..(g + 1) * GROUP;
            write_group(w, &old.ammo[range.clone()], &new.ammo[range]);
        }
    }
    for g in 0..AMMO_GROUPS {
        let range = g * GROUP..(g + 1) * GROUP;
        write_group(w, &old.clips[range.clone()], &new.clips[range]);
    }
    w.write_bit(old.objectives != new.objectives);
    if old.objectives != new.objectives {
        for i in 0..OBJECTIVES {
            let before = old.objectives.get(i).cloned().unwrap_or_default();
            let after = new.objectives.get(i).cloned().unwrap_or_default();
            w.write_bits(u32::from(after.state), 3);
            let changed = before.fields != after.fields;
            w.write_bit(changed);
            if changed {
                for (f, field) in OBJECTIVE_FIELDS.iter().enumerate() {
                    write_field(w, Codec::Generic, field, before.fields[f], after.fields[f]);
                }
            }
        }
    }
    let hud_changed = old.hud_archival != new.hud_archival || old.hud_current != new.hud_current;
    w.write_bit(hud_changed);
    if hud_changed {
        write_hud(w, &old.hud_archival, &new.hud_archival);
        write_hud(w, &old.hud_current, &new.hud_current);
    }
}

/// Reads a player state against `old`. A main-table `lastChanged` beyond 114 is refused, as
/// the hardened builds refuse it.
pub fn read_player_state(
    r: &mut MsgReader<'_>,
    old: &PlayerState,
) -> Result<PlayerState, MsgError> {
    let mut ps = old.clone();
    ps.fields.resize(PLAYER_STATE_FIELDS.len(), 0);
    let last = usize::from(r.read_byte()?);
    if last > PLAYER_STATE_FIELDS.len() {
        return Err(MsgError::Overrun);
    }
    for (i, field) in PLAYER_STATE_FIELDS.iter().enumerate().take(last) {
        ps.fields[i] = read_field(r, Codec::PlayerState, field, ps.fields[i])?;
    }
    if r.read_bit()? {
        let mask = r.read_bits(6)?;
        for i in (0..STATS).filter(|i| mask & 1 << i != 0) {
            ps.stats[i] = read_stat(r, i)?;
        }
    }
    if r.read_bit()? {
        for g in 0..AMMO_GROUPS {
            read_group(r, &mut ps.ammo[g * GROUP..(g + 1) * GROUP])?;
        }
    }
    for g in 0..AMMO_GROUPS {
        read_group(r, &mut ps.clips[g * GROUP..(g + 1) * GROUP])?;
    }
    ps.objectives.resize(OBJECTIVES, Objective::default());
    if r.read_bit()? {
        for objective in ps.objectives.iter_mut() {
            objective.state = r.read_bits(3)? as u8;
            if r.read_bit()? {
                for (f, field) in OBJECTIVE_FIELDS.iter().enumerate() {
                    objective.fields[f] =
                        read_field(r, Codec::Generic, field, objective.fields[f])?;
                }
            }
        }
    }
    if r.read_bit()? {
        read_hud(r, &mut ps.hud_archival)?;
        read_hud(r, &mut ps.hud_current)?;
    }
    Ok(ps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::delta::normalize;

    fn normalized(mut ps: PlayerState) -> PlayerState {
        for (value, field) in ps.fields.iter_mut().zip(PLAYER_STATE_FIELDS.iter()) {
            *value = normalize(Codec::PlayerState, field, *value);
        }
        ps.stats[3] &= 0x3f;
        ps.stats[5] &= 0xff;
        for i in [0, 1, 2, 4] {
            ps.stats[i] = i32::from(ps.stats[i] as i16);
        }
        for v in ps.ammo.iter_mut().chain(ps.clips.iter_mut()) {
            *v = i32::from(*v as i16);
        }
        for objective in &mut ps.objectives {
            objective.state &= 7;
            for (value, field) in objective.fields.iter_mut().zip(OBJECTIVE_FIELDS.iter()) {
                *value = normalize(Codec::Generic, field, *value);
            }
        }
        for hud in [&mut ps.hud_archival, &mut ps.hud_current] {
            for element in hud.iter_mut() {
                for (value, field) in element.iter_mut().zip(HUD_FIELDS.iter()) {
                    *value = normalize(Codec::Generic, field, *value);
                }
            }
            let count = active(hud);
            for element in hud.iter_mut().skip(count) {
                *element = [0; 30];
            }
        }
        ps
    }

    #[test]
    fn golden_unchanged_state() {
        // lastChanged 0 (a byte), then stats, ammo, four clip groups, objectives, HUD: 8 zero bits.
        let ps = PlayerState::default();
        let mut w = MsgWriter::new();
        write_player_state(&mut w, &ps, &ps);
        assert_eq!(w.into_bytes(), [0, 0]);
    }

    #[test]
    fn golden_one_stat() {
        let old = PlayerState::default();
        let mut new = PlayerState::default();
        new.stats[0] = 100;
        let mut w = MsgWriter::new();
        write_player_state(&mut w, &old, &new);
        // Byte 0 lastChanged; bit byte: stats bit 1, mask 000001, then the short 100; the
        // remaining 7 bits (ammo, 4 clips, objectives, HUD) finish the bit byte... which is
        // full after 7 bits, so the last bit opens another.
        assert_eq!(w.into_bytes(), [0, 0b0000_0011, 100, 0, 0]);
    }

    #[test]
    fn a_rich_state_round_trips() {
        let old = PlayerState::default();
        let mut new = PlayerState::default();
        new.fields[0] = 123_456;
        new.fields[1] = 10.5f32.to_bits();
        new.stats = [100, -5, 3, 40, -2, 200];
        new.ammo[17] = 30;
        new.clips[3] = -1;
        new.objectives[2] = Objective {
            state: 5,
            fields: [1.0f32.to_bits(), 0, 0, 77, 3, 2],
        };
        new.hud_archival[0][HUD_TYPE] = 2;
        new.hud_archival[0][3] = 100;
        new.hud_current[0][HUD_TYPE] = 1;
        new.hud_current[1][HUD_TYPE] = 3;
        new.hud_current[1][0] = 0xffee_ddcc;
        let new = normalized(new);
        let mut w = MsgWriter::new();
        write_player_state(&mut w, &old, &new);
        let bytes = w.into_bytes();
        let back = read_player_state(&mut MsgReader::new(&bytes), &old).unwrap();
        assert_eq!(back, new);
        // And a delta from that state to itself is the unchanged record.
        let mut w = MsgWriter::new();
        write_player_state(&mut w, &new, &new);
        assert_eq!(w.into_bytes(), [0, 0]);
    }

    proptest::proptest! {
        #[test]
        fn random_states_round_trip(
            fields in proptest::collection::vec(proptest::num::u32::ANY, 114),
            stats in proptest::array::uniform6(proptest::num::i32::ANY),
            ammo in proptest::collection::vec(proptest::num::i32::ANY, 64),
            hud_types in proptest::collection::vec(0u32..16, 0..8),
        ) {
            let mut new = PlayerState { fields, stats, ..PlayerState::default() };
            new.ammo.copy_from_slice(&ammo);
            for (i, t) in hud_types.iter().enumerate() {
                new.hud_current[i][HUD_TYPE] = *t;
                new.hud_current[i][4] = *t * 7;
            }
            let new = normalized(new);
            let old = PlayerState::default();
            let mut w = MsgWriter::new();
            write_player_state(&mut w, &old, &new);
            let bytes = w.into_bytes();
            let back = read_player_state(&mut MsgReader::new(&bytes), &old).unwrap();
            proptest::prop_assert_eq!(back, new);
        }

        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..128)) {
            let _ = read_player_state(&mut MsgReader::new(&bytes), &PlayerState::default());
        }
    }
}
