//! `svc_snapshot`: server time, delta distance, flags, the player state, then the entity and
//! client merge streams; and the 32-frame history that decides whether a delta is usable.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::fmt;

use super::delta::{read_field, write_field, Codec};
use super::entity::{
    read_entity, write_entity, EntityError, EntityState, ENTITY_NUMBER_BITS, ENTITY_NUMBER_NONE,
};
use super::fields::{ClientField, Named, CLIENT_FIELDS};
use super::msg::{MsgError, MsgReader, MsgWriter};
use super::playerstate::{read_player_state, write_player_state, PlayerState};

pub const SVC_SNAPSHOT: u8 = 7;
/// Frames of snapshot history.
pub const HISTORY: usize = 32;
/// The largest delta distance a server uses (`32 - 4`).
pub const MAX_DELTA_DISTANCE: u8 = 28;
/// Bits of a client number.
pub const CLIENT_NUMBER_BITS: u32 = 6;

/// Snapshot flag bits.
pub const SNAPFLAG_RATE_DELAYED: u8 = 1;
pub const SNAPFLAG_NOT_ACTIVE: u8 = 2;
pub const SNAPFLAG_SERVERCOUNT: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    Msg(MsgError),
    Entity(EntityError),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Msg(e) => write!(f, "snapshot: {e}"),
            Self::Entity(e) => write!(f, "snapshot: {e}"),
        }
    }
}

impl core::error::Error for SnapshotError {}

impl From<MsgError> for SnapshotError {
    fn from(e: MsgError) -> Self {
        Self::Msg(e)
    }
}

impl From<EntityError> for SnapshotError {
    fn from(e: EntityError) -> Self {
        Self::Entity(e)
    }
}

/// One client's shared state (22 fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientState {
    pub fields: Vec<u32>,
}

impl Default for ClientState {
    fn default() -> Self {
        Self {
            fields: alloc::vec![0; CLIENT_FIELDS.len()],
        }
    }
}

super::fields::named_by!(ClientState, CLIENT_FIELDS, super::fields::ClientField);

/// The `name[k]` fields: four name bytes each, little-endian, 32 bytes in all.
const NAME_WORDS: [ClientField; 8] = [
    ClientField::NAME_0,
    ClientField::NAME_4,
    ClientField::NAME_8,
    ClientField::NAME_12,
    ClientField::NAME_16,
    ClientField::NAME_20,
    ClientField::NAME_24,
    ClientField::NAME_28,
];

impl ClientState {
    /// The player's name, up to its NUL.
    pub fn name(&self) -> alloc::string::String {
        NAME_WORDS
            .iter()
            .flat_map(|&n| self.get(n).to_le_bytes())
            .take_while(|&b| b != 0)
            .map(char::from)
            .collect()
    }

    /// Stores a name; at most 31 bytes fit before the terminating NUL.
    pub fn set_name(&mut self, name: &str) {
        let mut bytes = [0u8; 32];
        for (slot, b) in bytes.iter_mut().zip(name.bytes().take(31)) {
            *slot = b;
        }
        for (i, n) in NAME_WORDS.iter().enumerate() {
            let word = [
                bytes[i * 4],
                bytes[i * 4 + 1],
                bytes[i * 4 + 2],
                bytes[i * 4 + 3],
            ];
            self.set(*n, u32::from_le_bytes(word));
        }
    }
}

/// A whole snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub server_time: i32,
    /// 0 for a full snapshot; otherwise this message's sequence minus its base's.
    pub delta_num: u8,
    pub flags: u8,
    pub player: PlayerState,
    pub entities: BTreeMap<u16, EntityState>,
    pub clients: BTreeMap<u8, ClientState>,
}

fn write_client(w: &mut MsgWriter, number: u8, old: &ClientState, new: Option<&ClientState>) {
    let Some(new) = new else {
        w.write_bit(true);
        w.write_bits(u32::from(number), CLIENT_NUMBER_BITS);
        w.write_bit(true);
        return;
    };
    let last = (0..CLIENT_FIELDS.len())
        .rev()
        .find(|&i| old.fields.get(i) != new.fields.get(i))
        .map_or(0, |i| i + 1);
    w.write_bit(true);
    w.write_bits(u32::from(number), CLIENT_NUMBER_BITS);
    w.write_bit(false);
    w.write_bit(last > 0);
    if last > 0 {
        w.write_byte(last as u8);
        for (i, field) in CLIENT_FIELDS.iter().enumerate().take(last) {
            let before = old.fields.get(i).copied().unwrap_or(0);
            let after = new.fields.get(i).copied().unwrap_or(0);
            write_field(w, Codec::Generic, field, before, after);
        }
    }
}

fn read_client(r: &mut MsgReader<'_>, old: &ClientState) -> Result<Option<ClientState>, MsgError> {
    if r.read_bit()? {
        return Ok(None);
    }
    if !r.read_bit()? {
        return Ok(Some(old.clone()));
    }
    // A lastChanged beyond the table is clamped to it, as stock does.
    let last = usize::from(r.read_byte()?).min(CLIENT_FIELDS.len());
    let mut client = old.clone();
    client.fields.resize(CLIENT_FIELDS.len(), 0);
    for (i, field) in CLIENT_FIELDS.iter().enumerate().take(last) {
        client.fields[i] = read_field(r, Codec::Generic, field, client.fields[i])?;
    }
    Ok(Some(client))
}

impl Snapshot {
    /// Writes `svc_snapshot` for this snapshot against `base` (none: a full snapshot, with new
    /// entities from their `baselines`).
    pub fn write(
        &self,
        w: &mut MsgWriter,
        base: Option<&Snapshot>,
        baselines: &BTreeMap<u16, EntityState>,
    ) {
        let empty = Snapshot::default();
        let old = base.unwrap_or(&empty);
        w.write_byte(SVC_SNAPSHOT);
        w.write_long(self.server_time);
        w.write_byte(if base.is_some() { self.delta_num } else { 0 });
        w.write_byte(self.flags);
        write_player_state(w, &old.player, &self.player);
        let numbers: alloc::collections::BTreeSet<u16> = old
            .entities
            .keys()
            .chain(self.entities.keys())
            .copied()
            .collect();
        for number in numbers {
            match (old.entities.get(&number), self.entities.get(&number)) {
                (Some(before), Some(after)) => write_entity(w, before, Some(after), false),
                (None, Some(after)) => {
                    let from = baselines
                        .get(&number)
                        .cloned()
                        .unwrap_or_else(|| EntityState::zero(number));
                    write_entity(w, &from, Some(after), true);
                }
                (Some(before), None) => write_entity(w, before, None, false),
                (None, None) => {}
            }
        }
        w.write_bits(u32::from(ENTITY_NUMBER_NONE), ENTITY_NUMBER_BITS);
        let numbers: alloc::collections::BTreeSet<u8> = old
            .clients
            .keys()
            .chain(self.clients.keys())
            .copied()
            .collect();
        let zero = ClientState::default();
        for number in numbers {
            match (old.clients.get(&number), self.clients.get(&number)) {
                (Some(before), Some(after)) if before == after => {}
                (Some(before), after) => write_client(w, number, before, after),
                (None, Some(after)) => write_client(w, number, &zero, Some(after)),
                (None, None) => {}
            }
        }
        w.write_bit(false);
    }

    /// Reads a snapshot from its opcode on, against `base` (none for a full snapshot or an
    /// unusable delta, whose result the caller then discards) and the gamestate's baselines.
    pub fn read(
        r: &mut MsgReader<'_>,
        base: Option<&Snapshot>,
        baselines: &BTreeMap<u16, EntityState>,
    ) -> Result<Self, SnapshotError> {
        let empty = Snapshot::default();
        let old = base.unwrap_or(&empty);
        if r.read_byte()? != SVC_SNAPSHOT {
            return Err(SnapshotError::Msg(MsgError::Overrun));
        }
        let mut snapshot = Snapshot {
            server_time: r.read_long()?,
            delta_num: r.read_byte()?,
            flags: r.read_byte()?,
            ..Snapshot::default()
        };
        snapshot.player = read_player_state(r, &old.player)?;
        // Entities not named keep their old state; named ones delta from it, or from their
        // baseline when new.
        snapshot.entities = old.entities.clone();
        loop {
            let number = r.read_bits(ENTITY_NUMBER_BITS)? as u16;
            if number == ENTITY_NUMBER_NONE {
                break;
            }
            let from = old
                .entities
                .get(&number)
                .or_else(|| baselines.get(&number))
                .cloned()
                .unwrap_or_else(|| EntityState::zero(number));
            match read_entity(r, number, &from)? {
                Some(mut entity) => {
                    entity.number = number;
                    snapshot.entities.insert(number, entity);
                }
                None => {
                    snapshot.entities.remove(&number);
                }
            }
        }
        snapshot.clients = old.clients.clone();
        while r.read_bit()? {
            let number = r.read_bits(CLIENT_NUMBER_BITS)? as u8;
            let from = old.clients.get(&number).cloned().unwrap_or_default();
            match read_client(r, &from)? {
                Some(client) => {
                    snapshot.clients.insert(number, client);
                }
                None => {
                    snapshot.clients.remove(&number);
                }
            }
        }
        Ok(snapshot)
    }
}

/// What a snapshot deltas from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base<'a> {
    /// A full snapshot (or a base at or before sequence 0, which stock treats as full).
    Full,
    Delta(&'a Snapshot),
    /// The slot no longer holds that message: the snapshot is read, to stay in step with the
    /// stream, and then dropped.
    Unusable,
}

/// The client's 32-frame history: which received message each slot holds.
#[derive(Clone, Debug, Default)]
pub struct History {
    slots: Vec<Option<(u32, Snapshot)>>,
}

impl History {
    pub fn new() -> Self {
        Self {
            slots: alloc::vec![None; HISTORY],
        }
    }

    /// Remembers the snapshot of message `sequence`.
    pub fn store(&mut self, sequence: u32, snapshot: Snapshot) {
        if self.slots.len() != HISTORY {
            self.slots = alloc::vec![None; HISTORY];
        }
        self.slots[sequence as usize % HISTORY] = Some((sequence, snapshot));
    }

    /// Forgets the snapshots of the messages `keep` refuses.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        for slot in &mut self.slots {
            if slot.as_ref().is_some_and(|(sequence, _)| !keep(*sequence)) {
                *slot = None;
            }
        }
    }

    /// The base a snapshot of message `sequence` with `delta_num` deltas from.
    pub fn base(&self, sequence: u32, delta_num: u8) -> Base<'_> {
        if delta_num == 0 || i64::from(sequence) - i64::from(delta_num) <= 0 {
            return Base::Full;
        }
        let wanted = sequence.wrapping_sub(u32::from(delta_num));
        match self.slots.get(wanted as usize % HISTORY) {
            Some(Some((held, snapshot))) if *held == wanted => Base::Delta(snapshot),
            _ => Base::Unusable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(number: u16, time: u32, origin: f32) -> EntityState {
        let mut e = EntityState::zero(number);
        e.fields[0] = time;
        e.fields[1] = origin.to_bits();
        e.fields[11] = 1;
        e
    }

    fn client(team: u32) -> ClientState {
        let mut c = ClientState::default();
        c.fields[0] = team;
        c
    }

    fn round_trip(
        snapshot: &Snapshot,
        base: Option<&Snapshot>,
        baselines: &BTreeMap<u16, EntityState>,
    ) -> Snapshot {
        let mut w = MsgWriter::new();
        snapshot.write(&mut w, base, baselines);
        let bytes = w.into_bytes();
        Snapshot::read(&mut MsgReader::new(&bytes), base, baselines).unwrap()
    }

    #[test]
    fn full_then_delta_snapshots_rebuild_the_world() {
        let mut baselines = BTreeMap::new();
        baselines.insert(40, entity(40, 0, 5.0));
        let mut first = Snapshot {
            server_time: 1000,
            ..Snapshot::default()
        };
        first.player.fields[0] = 1000;
        first.entities.insert(40, entity(40, 900, 5.0));
        first.entities.insert(41, entity(41, 900, -3.0));
        first.clients.insert(0, client(1));
        first.clients.insert(5, client(2));
        let back = round_trip(&first, None, &baselines);
        assert_eq!(back, first);

        // Next frame: 40 moves, 41 leaves, 42 arrives, client 5 leaves, client 7 joins.
        let mut second = first.clone();
        second.server_time = 1050;
        second.delta_num = 1;
        second.player.fields[0] = 1050;
        second.entities.insert(40, entity(40, 950, 6.0));
        second.entities.remove(&41);
        second.entities.insert(42, entity(42, 950, 1.0));
        second.clients.remove(&5);
        second.clients.insert(7, client(3));
        let back = round_trip(&second, Some(&first), &baselines);
        assert_eq!(back, second);
    }

    #[test]
    fn golden_empty_full_snapshot() {
        let snapshot = Snapshot {
            server_time: 7,
            ..Snapshot::default()
        };
        let mut w = MsgWriter::new();
        snapshot.write(&mut w, None, &BTreeMap::new());
        // Opcode, time, delta 0, flags 0, player lastChanged 0, then bits: eight zero
        // player-state group bits, the 10-bit 1023 terminator and the client terminator.
        assert_eq!(
            w.into_bytes(),
            [7, 7, 0, 0, 0, 0, 0, 0, 0, 0b1111_1111, 0b0000_0011]
        );
    }

    #[test]
    fn history_says_which_deltas_are_usable() {
        let mut history = History::new();
        history.store(10, Snapshot::default());
        assert!(matches!(history.base(12, 2), Base::Delta(_)));
        assert_eq!(history.base(12, 0), Base::Full);
        assert_eq!(history.base(12, 1), Base::Unusable);
        history.store(42, Snapshot::default());
        assert_eq!(history.base(44, 34), Base::Unusable, "slot 10 now holds 42");
        assert_eq!(
            history.base(3, 5),
            Base::Full,
            "a base at or before 0 is full"
        );
    }

    proptest::proptest! {
        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let mut data = alloc::vec![SVC_SNAPSHOT];
            data.extend(bytes);
            let _ = Snapshot::read(&mut MsgReader::new(&data), None, &BTreeMap::new());
        }
    }
}
