//! The delta field codecs: one field at a time, against a base value. Values are the raw 32-bit
//! words of the in-memory records (floats as their bit patterns).
//!
//! Wire layout of an integer of `|bits|` bits: the low `|bits| & 7` bits through the bit cursor,
//! then the remaining `|bits| >> 3` bytes, low byte first, through the byte cursor. A compact
//! float is `value + 4096` in 13 bits (5 bits, then a byte); raw floats and angle16 shorts go
//! through the byte cursor whole.

use super::fields::{Field, ANGLE16, FLOAT};
use super::msg::{angle16_decode, angle16_encode, MsgError, MsgReader, MsgWriter};

/// The bias and width of a compact float.
const COMPACT_BIAS: i32 = 4096;
const COMPACT_BITS: u32 = 13;

/// Which of the two field codecs a table uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Entities, clients, objectives, HUD elements: a changed value first says zero or not.
    Generic,
    /// The player-state main table: integers and floats carry no zero/nonzero bit (angle16
    /// keeps it), and float mode directly selects compact versus raw.
    PlayerState,
}

fn mask(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    }
}

/// Writes an integer of `width` bits in the split layout.
pub fn write_int(w: &mut MsgWriter, value: u32, width: u32) {
    let low = width & 7;
    w.write_bits(value & mask(low), low);
    for byte in 0..(width >> 3) {
        w.write_byte((value >> (low + 8 * byte)) as u8);
    }
}

/// Reads an integer of `width` bits in the split layout.
pub fn read_int(r: &mut MsgReader<'_>, width: u32) -> Result<u32, MsgError> {
    let low = width & 7;
    let mut value = r.read_bits(low)?;
    for byte in 0..(width >> 3) {
        value |= u32::from(r.read_byte()?) << (low + 8 * byte);
    }
    Ok(value)
}

/// A negative descriptor width reads back sign-extended, as the engine's bit reader does.
fn extend(value: u32, bits: i32) -> u32 {
    let width = bits.unsigned_abs();
    if bits < 0 && width < 32 && value & (1 << (width - 1)) != 0 {
        value | !mask(width)
    } else {
        value
    }
}

/// The compact form of a float, when it has one: an integer in -4096..4095.
fn compact(value: f32) -> Option<u32> {
    let truncated = value as i32;
    // Widened, so a float near the int range's edge reads as out of range, not overflow.
    let biased = i64::from(truncated) + i64::from(COMPACT_BIAS);
    (truncated as f32 == value && (0..8192).contains(&biased)).then_some(biased as u32)
}

fn write_float_value(w: &mut MsgWriter, new: u32) {
    match compact(f32::from_bits(new)) {
        Some(biased) => {
            w.write_bit(false);
            write_int(w, biased, COMPACT_BITS);
        }
        None => {
            w.write_bit(true);
            w.write_long(new as i32);
        }
    }
}

fn read_float_value(r: &mut MsgReader<'_>) -> Result<u32, MsgError> {
    if r.read_bit()? {
        Ok(r.read_long()? as u32)
    } else {
        let biased = read_int(r, COMPACT_BITS)? as i32;
        Ok(((biased - COMPACT_BIAS) as f32).to_bits())
    }
}

/// Writes one field: a changed bit, then (if changed) its value in the codec's form.
pub fn write_field(w: &mut MsgWriter, codec: Codec, field: &Field, old: u32, new: u32) {
    if old == new {
        w.write_bit(false);
        return;
    }
    w.write_bit(true);
    match (field.bits, codec) {
        (FLOAT, Codec::Generic) => {
            // The float is compared, so -0.0 is sent as zero.
            let zero = f32::from_bits(new) == 0.0;
            w.write_bit(!zero);
            if !zero {
                write_float_value(w, new);
            }
        }
        (FLOAT, Codec::PlayerState) => write_float_value(w, new),
        (ANGLE16, _) => {
            // The raw word is tested, so -0.0 is sent as a nonzero angle of 0.
            w.write_bit(new != 0);
            if new != 0 {
                w.write_short(angle16_encode(f32::from_bits(new)) as i16);
            }
        }
        (bits, Codec::Generic) => {
            w.write_bit(new != 0);
            if new != 0 {
                write_int(w, new, bits.unsigned_abs());
            }
        }
        (bits, Codec::PlayerState) => write_int(w, new, bits.unsigned_abs()),
    }
}

/// Reads one field written by [`write_field`]; an unchanged field is `old`.
pub fn read_field(
    r: &mut MsgReader<'_>,
    codec: Codec,
    field: &Field,
    old: u32,
) -> Result<u32, MsgError> {
    if !r.read_bit()? {
        return Ok(old);
    }
    Ok(match (field.bits, codec) {
        (FLOAT, Codec::Generic) => {
            if r.read_bit()? {
                read_float_value(r)?
            } else {
                0
            }
        }
        (FLOAT, Codec::PlayerState) => read_float_value(r)?,
        (ANGLE16, _) => {
            if r.read_bit()? {
                angle16_decode(r.read_short()? as u16).to_bits()
            } else {
                0
            }
        }
        (bits, Codec::Generic) => {
            if r.read_bit()? {
                extend(read_int(r, bits.unsigned_abs())?, bits)
            } else {
                0
            }
        }
        (bits, Codec::PlayerState) => extend(read_int(r, bits.unsigned_abs())?, bits),
    })
}

/// The value a field holds once it has crossed the wire: integers cut to their width (and
/// sign-extended for negative widths), angles quantized to angle16, -0.0 as zero where stock
/// sends it so. Tests compare decoded records against this.
pub fn normalize(codec: Codec, field: &Field, value: u32) -> u32 {
    let mut w = MsgWriter::new();
    write_field(&mut w, codec, field, !value, value);
    let bytes = w.into_bytes();
    let mut r = MsgReader::new(&bytes);
    read_field(&mut r, codec, field, !value).unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_at_the_int_range_edge_go_raw() {
        assert_eq!(compact(2_147_483_648.0), None);
        assert_eq!(compact(-2_147_483_648.0), None);
        assert_eq!(compact(4095.0), Some(8191));
        assert_eq!(compact(-4096.0), Some(0));
    }
    use crate::cod::fields::{ENTITY_FIELDS, PLAYER_STATE_FIELDS};

    fn field(bits: i32) -> Field {
        Field { name: "f", bits }
    }

    fn written(codec: Codec, bits: i32, old: u32, new: u32) -> alloc::vec::Vec<u8> {
        let mut w = MsgWriter::new();
        write_field(&mut w, codec, &field(bits), old, new);
        w.into_bytes()
    }

    #[test]
    fn golden_generic_fields() {
        // Unchanged: one 0 bit.
        assert_eq!(written(Codec::Generic, 8, 5, 5), [0b0]);
        // Changed to zero: 1 then 0.
        assert_eq!(written(Codec::Generic, 8, 5, 0), [0b01]);
        // 8-bit 0xab: bits 1,1 then no low bits, then the byte through the byte cursor.
        assert_eq!(written(Codec::Generic, 8, 0, 0xab), [0b11, 0xab]);
        // 10-bit 0x2f5: bits 1,1, the low 2 bits (01), then the byte 0xbd.
        assert_eq!(written(Codec::Generic, 10, 0, 0x2f5), [0b0111, 0xbd]);
        // Float 3.0: 1,1, compact 0, then 4099 = 0x1003: low 5 bits 00011, byte 0x80.
        assert_eq!(
            written(Codec::Generic, FLOAT, 0, 3.0f32.to_bits()),
            [0b0001_1011, 0x80]
        );
        // Float 0.5 is not an integer: 1,1,1 then the raw long.
        let mut raw = alloc::vec![0b111u8];
        raw.extend_from_slice(&0.5f32.to_bits().to_le_bytes());
        assert_eq!(written(Codec::Generic, FLOAT, 0, 0.5f32.to_bits()), raw);
        // -0.0 compares equal to zero: sent as zero.
        assert_eq!(
            written(Codec::Generic, FLOAT, 1, (-0.0f32).to_bits()),
            [0b01]
        );
        // Angle 90 degrees: 1,1 then the short 16384.
        assert_eq!(
            written(Codec::Generic, ANGLE16, 0, 90.0f32.to_bits()),
            [0b11, 0x00, 0x40]
        );
    }

    #[test]
    fn golden_player_state_fields() {
        // No zero bit for integers: 1 then the byte.
        assert_eq!(written(Codec::PlayerState, 8, 0, 0x7f), [0b1, 0x7f]);
        // Float mode: 1, compact selector 0, then 13 bits.
        assert_eq!(
            written(Codec::PlayerState, FLOAT, 0, 3.0f32.to_bits()),
            [0b0000_1101, 0x80]
        );
        // Angle16 keeps its zero bit.
        assert_eq!(written(Codec::PlayerState, ANGLE16, 1, 0), [0b01]);
    }

    #[test]
    fn negative_widths_sign_extend() {
        let f = field(-8);
        assert_eq!(
            normalize(Codec::Generic, &f, (-3i32) as u32),
            (-3i32) as u32
        );
        assert_eq!(normalize(Codec::Generic, &field(8), 0x1ff), 0xff);
    }

    proptest::proptest! {
        #[test]
        fn every_table_field_round_trips(index in 0usize..60, old in proptest::num::u32::ANY, new in proptest::num::u32::ANY, player in proptest::bool::ANY) {
            let (codec, field) = if player {
                (Codec::PlayerState, PLAYER_STATE_FIELDS[index])
            } else {
                (Codec::Generic, ENTITY_FIELDS[index])
            };
            // Values as they exist after a first crossing: then the codec is exact.
            let new = normalize(codec, &field, new);
            let old = normalize(codec, &field, old);
            let mut w = MsgWriter::new();
            write_field(&mut w, codec, &field, old, new);
            let bytes = w.into_bytes();
            let mut r = MsgReader::new(&bytes);
            let back = read_field(&mut r, codec, &field, old).unwrap();
            // NaN patterns compare by bits; -0.0 in float mode reads back as 0.
            proptest::prop_assert_eq!(back, new, "{:?}", field);
        }

        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..16), index in 0usize..114) {
            let mut r = MsgReader::new(&bytes);
            let _ = read_field(&mut r, Codec::PlayerState, &PLAYER_STATE_FIELDS[index], 0);
            let mut r = MsgReader::new(&bytes);
            let _ = read_field(&mut r, Codec::Generic, &ENTITY_FIELDS[index % 60], 0);
        }
    }
}
