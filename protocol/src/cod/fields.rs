//! The ordered delta descriptor tables, generated at build time from the `.tsv` files in
//! `protocol/data` (copied from the recovered 1.51 binaries' tables): field names and bit modes
//! in wire order.

/// One delta descriptor: `bits` 0 is float mode, -100 angle16, any other value an integer of
/// `|bits|` physical bits (a negative width adds no sign bit on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub bits: i32,
}

/// Descriptor `bits` of float mode.
pub const FLOAT: i32 = 0;
/// Descriptor `bits` of angle16 mode.
pub const ANGLE16: i32 = -100;

/// A field's position in one table, as a typed id: each table has its own (`EntityField`,
/// `PlayerStateField`, ...), generated from its `.tsv`.
pub trait FieldId: Copy {
    fn index(self) -> usize;
}

include!(concat!(env!("OUT_DIR"), "/fields.rs"));

/// The wire position of the field named `name` in `table`.
pub fn index_of(table: &[Field], name: &str) -> Option<usize> {
    table.iter().position(|f| f.name == name)
}

/// Implements [`Named`] for a record that keeps its raw words in a `fields` vector.
macro_rules! named_by {
    ($record:ty, $table:expr, $id:ty) => {
        impl $crate::cod::fields::Named for $record {
            type Id = $id;
            const TABLE: &'static [$crate::cod::fields::Field] = &$table;

            fn words(&self) -> &[u32] {
                &self.fields
            }

            fn words_mut(&mut self) -> &mut [u32] {
                &mut self.fields
            }
        }
    };
}
pub(crate) use named_by;

/// Typed access to a record held as raw words in one table's order, so games and tools never
/// count table positions and a misspelt field does not compile. A record shorter than its
/// table reads 0 and writes nothing past its end.
pub trait Named {
    /// The table's field ids.
    type Id: FieldId;
    const TABLE: &'static [Field];

    fn words(&self) -> &[u32];
    fn words_mut(&mut self) -> &mut [u32];

    fn get(&self, field: Self::Id) -> u32 {
        self.words().get(field.index()).copied().unwrap_or(0)
    }

    fn set(&mut self, field: Self::Id, value: u32) {
        if let Some(word) = self.words_mut().get_mut(field.index()) {
            *word = value;
        }
    }

    fn get_f32(&self, field: Self::Id) -> f32 {
        f32::from_bits(self.get(field))
    }

    fn set_f32(&mut self, field: Self::Id, value: f32) {
        self.set(field, value.to_bits());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_the_spec_s_extents() {
        assert_eq!(ENTITY_FIELDS.len(), 60);
        assert_eq!(VEHICLE_FIELDS.len(), 60);
        assert_eq!(CLIENT_FIELDS.len(), 22);
        assert_eq!(PLAYER_STATE_FIELDS.len(), 114);
        assert_eq!(OBJECTIVE_FIELDS.len(), 6);
        assert_eq!(HUD_FIELDS.len(), 30);
    }

    #[test]
    fn ids_are_the_table_positions_of_their_names() {
        assert_eq!(EntityField::E_TYPE.name(), "eType");
        assert_eq!(EntityField::APOS_TR_BASE_1.name(), "apos.trBase[1]");
        assert_eq!(PlayerStateField::PM_FLAGS.name(), "pm_flags");
        assert_eq!(PlayerStateField::VIEWANGLES_1.name(), "viewangles[1]");
        assert_eq!(HudField::FROM_COLOR_RGBA.name(), "fromColor.rgba");
        for (id, field) in EntityField::ALL.iter().zip(&ENTITY_FIELDS) {
            assert_eq!(id.name(), field.name);
            assert_eq!(index_of(&ENTITY_FIELDS, field.name), Some(id.index()));
        }
        assert_eq!(PlayerStateField::ALL.len(), PLAYER_STATE_FIELDS.len());
        assert_eq!(ClientField::ALL.len(), CLIENT_FIELDS.len());
        assert_eq!(ObjectiveField::ALL.len(), OBJECTIVE_FIELDS.len());
        assert_eq!(HudField::ALL.len(), HUD_FIELDS.len());
    }

    #[test]
    fn rows_match_the_data_files() {
        assert_eq!(
            ENTITY_FIELDS[0],
            Field {
                name: "pos.trTime",
                bits: 32
            }
        );
        assert_eq!(ENTITY_FIELDS[1].bits, FLOAT);
        assert_eq!(ENTITY_FIELDS[6].bits, ANGLE16);
        assert_eq!(PLAYER_STATE_FIELDS[0].name, "commandTime");
        for table in [
            &ENTITY_FIELDS[..],
            &VEHICLE_FIELDS,
            &CLIENT_FIELDS,
            &PLAYER_STATE_FIELDS,
            &OBJECTIVE_FIELDS,
            &HUD_FIELDS,
        ] {
            for field in table {
                assert!(
                    field.bits == ANGLE16 || (-32..=32).contains(&field.bits),
                    "{field:?}"
                );
            }
        }
    }
}
