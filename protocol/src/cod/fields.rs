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

include!(concat!(env!("OUT_DIR"), "/fields.rs"));

/// The wire position of the field named `name` in `table`.
pub fn index_of(table: &[Field], name: &str) -> Option<usize> {
    table.iter().position(|f| f.name == name)
}

/// Implements [`Named`] for a record that keeps its raw words in a `fields` vector.
macro_rules! named_by {
    ($record:ty, $table:expr) => {
        impl $crate::cod::fields::Named for $record {
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

/// Access by the engine's field names to a record held as raw words in one table's order, so
/// games and tools never count table positions. Unknown names read 0 and write nothing.
pub trait Named {
    const TABLE: &'static [Field];

    fn words(&self) -> &[u32];
    fn words_mut(&mut self) -> &mut [u32];

    fn get(&self, name: &str) -> u32 {
        index_of(Self::TABLE, name)
            .and_then(|i| self.words().get(i))
            .copied()
            .unwrap_or(0)
    }

    fn set(&mut self, name: &str, value: u32) {
        if let Some(word) = index_of(Self::TABLE, name).and_then(|i| self.words_mut().get_mut(i)) {
            *word = value;
        }
    }

    fn get_f32(&self, name: &str) -> f32 {
        f32::from_bits(self.get(name))
    }

    fn set_f32(&mut self, name: &str, value: f32) {
        self.set(name, value.to_bits());
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
