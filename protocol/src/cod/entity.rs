//! Entity records: a 10-bit number, the normal/vehicle table selector, the removal bit, the
//! changed bit, then `lastChanged` and the field deltas through it.

use alloc::vec::Vec;
use core::fmt;

use super::delta::{read_field, write_field, Codec};
use super::fields::{EntityField, Field, Named, ENTITY_FIELDS, VEHICLE_FIELDS};
use super::msg::{MsgError, MsgReader, MsgWriter};

/// Bits of an entity number.
pub const ENTITY_NUMBER_BITS: u32 = 10;
/// The number that ends an entity stream (also `ENTITYNUM_NONE`).
pub const ENTITY_NUMBER_NONE: u16 = 1023;
/// Fields in each entity table.
pub const ENTITY_FIELD_COUNT: usize = 60;
/// The `eType` of a vehicle, which the writer sends with the vehicle table.
pub const ET_VEHICLE: u32 = 12;

/// Why an entity record was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityError {
    Msg(MsgError),
}

impl fmt::Display for EntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Msg(e) => write!(f, "entity record: {e}"),
        }
    }
}

impl core::error::Error for EntityError {}

impl From<MsgError> for EntityError {
    fn from(e: MsgError) -> Self {
        Self::Msg(e)
    }
}

/// One entity's state: its number, which table it was last sent with, and the raw words of its
/// fields in the normal table's order (the vehicle table sends the same fields in another order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityState {
    pub number: u16,
    pub vehicle: bool,
    pub fields: Vec<u32>,
}

/// For each table, the position in [`EntityState::fields`] of each wire field: worked out once
/// at compile time, since every entity record of every snapshot needs it.
const NORMAL_SLOTS: [usize; ENTITY_FIELD_COUNT] = slots_of(&ENTITY_FIELDS);
const VEHICLE_SLOTS: [usize; ENTITY_FIELD_COUNT] = slots_of(&VEHICLE_FIELDS);

fn slots(vehicle: bool) -> &'static [usize; ENTITY_FIELD_COUNT] {
    if vehicle {
        &VEHICLE_SLOTS
    } else {
        &NORMAL_SLOTS
    }
}

/// Where each of `table`'s fields sits in the normal table (its own position if absent there).
const fn slots_of(table: &[Field; ENTITY_FIELD_COUNT]) -> [usize; ENTITY_FIELD_COUNT] {
    let mut slots = [0; ENTITY_FIELD_COUNT];
    let mut wire = 0;
    while wire < ENTITY_FIELD_COUNT {
        slots[wire] = wire;
        let mut slot = 0;
        while slot < ENTITY_FIELD_COUNT {
            if same_name(ENTITY_FIELDS[slot].name, table[wire].name) {
                slots[wire] = slot;
                break;
            }
            slot += 1;
        }
        wire += 1;
    }
    slots
}

const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

super::fields::named_by!(EntityState, ENTITY_FIELDS, super::fields::EntityField);

/// `pos.trBase`, the entity's position.
const POS_TR_BASE: [EntityField; 3] = [
    EntityField::POS_TR_BASE_0,
    EntityField::POS_TR_BASE_1,
    EntityField::POS_TR_BASE_2,
];

impl EntityState {
    /// `pos.trBase`: where the entity is.
    pub fn origin(&self) -> [f32; 3] {
        POS_TR_BASE.map(|f| self.get_f32(f))
    }

    pub fn set_origin(&mut self, origin: [f32; 3]) {
        for (field, v) in POS_TR_BASE.into_iter().zip(origin) {
            self.set_f32(field, v);
        }
    }

    /// The all-zero state new entities delta from.
    pub fn zero(number: u16) -> Self {
        Self {
            number,
            vehicle: false,
            fields: alloc::vec![0; ENTITY_FIELD_COUNT],
        }
    }

    fn table(vehicle: bool) -> &'static [Field; ENTITY_FIELD_COUNT] {
        if vehicle {
            &VEHICLE_FIELDS
        } else {
            &ENTITY_FIELDS
        }
    }

    /// Whether the writer sends this state with the vehicle table (`eType` is a vehicle).
    pub fn is_vehicle(&self) -> bool {
        self.get(EntityField::E_TYPE) == ET_VEHICLE
    }
}

/// Writes the record for `new` against `old` (`None` removes the entity). An unchanged entity
/// writes only its header unless `force` asks for the record anyway.
pub fn write_entity(w: &mut MsgWriter, old: &EntityState, new: Option<&EntityState>, force: bool) {
    let Some(new) = new else {
        w.write_bits(u32::from(old.number), ENTITY_NUMBER_BITS);
        // Removal records carry the table selector, always 0.
        w.write_bit(false);
        w.write_bit(true);
        return;
    };
    let vehicle = new.is_vehicle();
    let table = EntityState::table(vehicle);
    let slots = slots(vehicle);
    let value =
        |state: &EntityState, wire: usize| state.fields.get(slots[wire]).copied().unwrap_or(0);
    let last_changed = (0..ENTITY_FIELD_COUNT)
        .rev()
        .find(|&i| value(old, i) != value(new, i))
        .map_or(0, |i| i + 1);
    if last_changed == 0 && !force {
        return;
    }
    w.write_bits(u32::from(new.number), ENTITY_NUMBER_BITS);
    w.write_bit(vehicle);
    w.write_bit(false);
    if last_changed == 0 {
        w.write_bit(false);
        return;
    }
    w.write_bit(true);
    w.write_byte(last_changed as u8);
    for (i, field) in table.iter().enumerate().take(last_changed) {
        write_field(w, Codec::Generic, field, value(old, i), value(new, i));
    }
}

/// Reads the rest of a record whose `number` the caller has read: `None` if it removes the
/// entity. A `lastChanged` beyond the table is clamped to it, as stock does.
pub fn read_entity(
    r: &mut MsgReader<'_>,
    number: u16,
    old: &EntityState,
) -> Result<Option<EntityState>, EntityError> {
    let vehicle = r.read_bit()?;
    if r.read_bit()? {
        return Ok(None);
    }
    if !r.read_bit()? {
        // Unchanged: the whole base is copied, number included (stock behaviour).
        return Ok(Some(old.clone()));
    }
    let last_changed = usize::from(r.read_byte()?).min(ENTITY_FIELD_COUNT);
    let table = EntityState::table(vehicle);
    let slots = slots(vehicle);
    let mut fields = old.fields.clone();
    fields.resize(ENTITY_FIELD_COUNT, 0);
    for (i, field) in table.iter().enumerate().take(last_changed) {
        fields[slots[i]] = read_field(r, Codec::Generic, field, fields[slots[i]])?;
    }
    Ok(Some(EntityState {
        number,
        vehicle,
        fields,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cod::delta::normalize;

    fn normalized(mut state: EntityState) -> EntityState {
        let vehicle = state.is_vehicle();
        let table = EntityState::table(vehicle);
        for (wire, &slot) in slots(vehicle).iter().enumerate() {
            state.fields[slot] = normalize(Codec::Generic, &table[wire], state.fields[slot]);
        }
        state.vehicle = vehicle;
        state
    }

    #[test]
    fn golden_records() {
        // Entity 5 whose first field (pos.trTime, 32 bits) became 0x01020304.
        let old = EntityState::zero(5);
        let mut new = EntityState::zero(5);
        new.fields[0] = 0x0102_0304;
        let mut w = MsgWriter::new();
        write_entity(&mut w, &old, Some(&new), false);
        // Bits: number 5 (10 bits), vehicle 0, remove 0, changed 1, then the field's changed
        // and nonzero bits, all in the first two bit bytes; lastChanged (1) and the field's four
        // bytes go through the byte cursor after them.
        assert_eq!(
            w.into_bytes(),
            [0b0000_0101, 0b0111_0000, 1, 0x04, 0x03, 0x02, 0x01]
        );
        // Removal: number, selector 0, remove 1.
        let mut w = MsgWriter::new();
        write_entity(&mut w, &old, None, false);
        assert_eq!(w.into_bytes(), [0b0000_0101, 0b0000_1000]);
        // Unchanged and not forced: nothing.
        let mut w = MsgWriter::new();
        write_entity(&mut w, &old, Some(&old), false);
        assert!(w.into_bytes().is_empty());
    }

    #[test]
    fn records_read_back() {
        let old = EntityState::zero(9);
        let mut new = EntityState::zero(9);
        new.fields[1] = 12.0f32.to_bits();
        new.fields[6] = 45.0f32.to_bits();
        let mut w = MsgWriter::new();
        write_entity(&mut w, &old, Some(&new), false);
        let bytes = w.into_bytes();
        let mut r = MsgReader::new(&bytes);
        let number = r.read_bits(ENTITY_NUMBER_BITS).unwrap() as u16;
        assert_eq!(number, 9);
        let back = read_entity(&mut r, number, &old).unwrap().unwrap();
        assert_eq!(back, normalized(new));
    }

    proptest::proptest! {
        #[test]
        fn any_state_round_trips(words in proptest::collection::vec(proptest::num::u32::ANY, ENTITY_FIELD_COUNT), vehicle in proptest::bool::ANY) {
            let mut new = EntityState { number: 77, vehicle: false, fields: words };
            let e_type = new.get(EntityField::E_TYPE);
            new.set(EntityField::E_TYPE, if vehicle { ET_VEHICLE } else { e_type % 12 });
            let new = normalized(new);
            let old = EntityState::zero(77);
            let mut w = MsgWriter::new();
            write_entity(&mut w, &old, Some(&new), true);
            let bytes = w.into_bytes();
            let mut r = MsgReader::new(&bytes);
            let number = r.read_bits(ENTITY_NUMBER_BITS).unwrap() as u16;
            let back = read_entity(&mut r, number, &old).unwrap().unwrap();
            proptest::prop_assert_eq!(back, new);
        }
    }
}
