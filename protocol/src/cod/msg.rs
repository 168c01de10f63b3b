//! Message cursors: a byte cursor and a bit cursor that interleave as stock's do.
//!
//! The first bit of a new bit byte allocates that byte at the byte cursor. Byte, short, long,
//! string and raw operations always use the byte cursor; if one happens while a bit byte is only
//! partly filled, later bit operations finish that earlier byte before jumping to the byte cursor.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Storage limit of an ordinary in-band string, terminator included.
pub const MAX_STRING_CHARS: usize = 1024;
/// Storage limit of a big string (configstrings), terminator included.
pub const MAX_BIG_STRING_CHARS: usize = 8192;

/// Why a message could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgError {
    /// A read needed bytes past the end of the message.
    Overrun,
    /// A string ran past its storage limit before its NUL.
    StringTooLong { limit: usize },
}

impl fmt::Display for MsgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Overrun => f.write_str("read past the end of the message"),
            Self::StringTooLong { limit } => write!(f, "string longer than {limit} bytes"),
        }
    }
}

impl core::error::Error for MsgError {}

/// The engine's character sanitizer: 0x92 becomes an apostrophe, other bytes above 0x7F a
/// period; big strings and lines also turn `%` into a period.
pub fn clean_char(byte: u8, percent: bool) -> u8 {
    match byte {
        0x92 => b'\'',
        0x80.. => b'.',
        b'%' if percent => b'.',
        other => other,
    }
}

/// `trunc(degrees * 65536 / 360)`, low 16 bits.
pub fn angle16_encode(degrees: f32) -> u16 {
    ((degrees * (65536.0 / 360.0)) as i64 & 0xffff) as u16
}

/// `int16(encoded) * 360 / 65536`.
pub fn angle16_decode(encoded: u16) -> f32 {
    f32::from(encoded as i16) * (360.0 / 65536.0)
}

/// Builds a message.
#[derive(Clone, Debug, Default)]
pub struct MsgWriter {
    data: Vec<u8>,
    /// Index of the partly filled bit byte and how many of its bits are used (8: none open).
    bit_byte: usize,
    bits_used: u8,
}

impl MsgWriter {
    pub fn new() -> Self {
        Self {
            data: Vec::new(),
            bit_byte: 0,
            bits_used: 8,
        }
    }

    /// Writes the low `count` bits of `value` (0..=32), least significant first.
    pub fn write_bits(&mut self, value: u32, count: u32) {
        for i in 0..count.min(32) {
            if self.bits_used == 8 {
                self.bit_byte = self.data.len();
                self.data.push(0);
                self.bits_used = 0;
            }
            if (value >> i) & 1 == 1 {
                self.data[self.bit_byte] |= 1 << self.bits_used;
            }
            self.bits_used += 1;
        }
    }

    pub fn write_bit(&mut self, bit: bool) {
        self.write_bits(u32::from(bit), 1);
    }

    pub fn write_byte(&mut self, value: u8) {
        self.data.push(value);
    }

    pub fn write_short(&mut self, value: i16) {
        self.data.extend_from_slice(&value.to_le_bytes());
    }

    pub fn write_long(&mut self, value: i32) {
        self.data.extend_from_slice(&value.to_le_bytes());
    }

    pub fn write_data(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
    }

    fn write_limited(&mut self, text: &[u8], limit: usize, percent: bool) {
        // Stock sends a text that does not fit as an empty string.
        if text.len() < limit {
            self.data
                .extend(text.iter().map(|&b| clean_char(b, percent)));
        }
        self.data.push(0);
    }

    /// A NUL-terminated string of at most 1,023 bytes, cleaned.
    pub fn write_string(&mut self, text: &[u8]) {
        self.write_limited(text, MAX_STRING_CHARS, false);
    }

    /// A NUL-terminated big string of at most 8,191 bytes, cleaned.
    pub fn write_big_string(&mut self, text: &[u8]) {
        self.write_limited(text, MAX_BIG_STRING_CHARS, true);
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }
}

/// Reads a message written by [`MsgWriter`] or a stock peer.
#[derive(Clone, Debug)]
pub struct MsgReader<'a> {
    data: &'a [u8],
    byte: usize,
    bit_byte: usize,
    bits_used: u8,
}

impl<'a> MsgReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            byte: 0,
            bit_byte: 0,
            bits_used: 8,
        }
    }

    /// Reads `count` bits (0..=32), least significant first.
    pub fn read_bits(&mut self, count: u32) -> Result<u32, MsgError> {
        let mut value = 0u32;
        for i in 0..count.min(32) {
            if self.bits_used == 8 {
                if self.byte >= self.data.len() {
                    return Err(MsgError::Overrun);
                }
                self.bit_byte = self.byte;
                self.byte += 1;
                self.bits_used = 0;
            }
            value |= u32::from((self.data[self.bit_byte] >> self.bits_used) & 1) << i;
            self.bits_used += 1;
        }
        Ok(value)
    }

    pub fn read_bit(&mut self) -> Result<bool, MsgError> {
        Ok(self.read_bits(1)? == 1)
    }

    pub fn read_byte(&mut self) -> Result<u8, MsgError> {
        let value = *self.data.get(self.byte).ok_or(MsgError::Overrun)?;
        self.byte += 1;
        Ok(value)
    }

    pub fn read_data(&mut self, len: usize) -> Result<&'a [u8], MsgError> {
        let end = self.byte.checked_add(len).ok_or(MsgError::Overrun)?;
        let bytes = self.data.get(self.byte..end).ok_or(MsgError::Overrun)?;
        self.byte = end;
        Ok(bytes)
    }

    pub fn read_short(&mut self) -> Result<i16, MsgError> {
        let bytes = self.read_data(2)?;
        Ok(i16::from_le_bytes([bytes[0], bytes[1]]))
    }

    pub fn read_long(&mut self) -> Result<i32, MsgError> {
        let bytes = self.read_data(4)?;
        Ok(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn read_limited(
        &mut self,
        limit: usize,
        percent: bool,
        stop_at_newline: bool,
    ) -> Result<String, MsgError> {
        let mut text = String::new();
        loop {
            let byte = self.read_byte()?;
            if byte == 0 || (stop_at_newline && byte == b'\n') {
                return Ok(text);
            }
            if text.len() + 1 >= limit {
                return Err(MsgError::StringTooLong { limit });
            }
            text.push(char::from(clean_char(byte, percent)));
        }
    }

    /// A NUL-terminated string, cleaned; more than 1,023 bytes is an error.
    pub fn read_string(&mut self) -> Result<String, MsgError> {
        self.read_limited(MAX_STRING_CHARS, false, false)
    }

    /// A NUL-terminated big string, cleaned; more than 8,191 bytes is an error.
    pub fn read_big_string(&mut self) -> Result<String, MsgError> {
        self.read_limited(MAX_BIG_STRING_CHARS, true, false)
    }

    /// A line: stops at newline or NUL.
    pub fn read_string_line(&mut self) -> Result<String, MsgError> {
        self.read_limited(MAX_STRING_CHARS, true, true)
    }

    /// The byte cursor: bytes consumed by byte operations and bit bytes allocated.
    pub fn position(&self) -> usize {
        self.byte
    }

    /// Bytes the byte cursor has not reached.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_interleaving() {
        // 3 bits open a bit byte at 0; a byte and a short go to 1..4; 6 more bits fill the
        // first bit byte (5 of them) and open a new one at 4.
        let mut w = MsgWriter::new();
        w.write_bits(0b101, 3);
        w.write_byte(0xaa);
        w.write_short(-2);
        w.write_bits(0b110011, 6);
        w.write_long(0x01020304);
        let bytes = [
            0b1001_1101,
            0xaa,
            0xfe,
            0xff,
            0b0000_0001,
            0x04,
            0x03,
            0x02,
            0x01,
        ];
        assert_eq!(w.into_bytes(), bytes);
        let mut r = MsgReader::new(&bytes);
        assert_eq!(r.read_bits(3), Ok(0b101));
        assert_eq!(r.read_byte(), Ok(0xaa));
        assert_eq!(r.read_short(), Ok(-2));
        assert_eq!(r.read_bits(6), Ok(0b110011));
        assert_eq!(r.read_long(), Ok(0x01020304));
        assert_eq!(r.read_byte(), Err(MsgError::Overrun));
        // The second bit byte still has 7 unread bits; then the message is spent.
        assert_eq!(r.read_bits(7), Ok(0));
        assert_eq!(r.read_bits(1), Err(MsgError::Overrun));
    }

    #[test]
    fn strings_are_cleaned_bounded_and_terminated() {
        let mut w = MsgWriter::new();
        w.write_string(b"say \x92hi\x92 100%\xff");
        w.write_big_string(b"100%");
        w.write_string(&[b'x'; MAX_STRING_CHARS]);
        let bytes = w.into_bytes();
        assert_eq!(&bytes[..], b"say 'hi' 100%.\x00100.\x00\x00");
        let mut r = MsgReader::new(&bytes);
        assert_eq!(r.read_string().unwrap(), "say 'hi' 100%.");
        assert_eq!(r.read_string().unwrap(), "100.");
        assert_eq!(r.read_string().unwrap(), "");
        let long = [b'y'; MAX_STRING_CHARS];
        assert_eq!(
            MsgReader::new(&long).read_string(),
            Err(MsgError::StringTooLong {
                limit: MAX_STRING_CHARS
            })
        );
        assert_eq!(MsgReader::new(b"abc").read_string(), Err(MsgError::Overrun));
        assert_eq!(
            MsgReader::new(b"line one\nline two")
                .read_string_line()
                .unwrap(),
            "line one"
        );
    }

    #[test]
    fn angle16_follows_the_spec() {
        assert_eq!(angle16_encode(90.0), 16384);
        assert_eq!(angle16_encode(-90.0), 49152);
        assert_eq!(angle16_encode(359.99), 65534);
        assert_eq!(angle16_decode(49152), -90.0);
        assert_eq!(angle16_decode(16384), 90.0);
    }

    proptest::proptest! {
        #[test]
        fn mixed_operations_round_trip(ops in proptest::collection::vec((0u8..4, proptest::num::u32::ANY, 1u32..=32), 0..64)) {
            let mut w = MsgWriter::new();
            for &(kind, value, bits) in &ops {
                match kind {
                    0 => w.write_bits(value, bits),
                    1 => w.write_byte(value as u8),
                    2 => w.write_short(value as i16),
                    _ => w.write_long(value as i32),
                }
            }
            let bytes = w.into_bytes();
            let mut r = MsgReader::new(&bytes);
            for &(kind, value, bits) in &ops {
                match kind {
                    0 => {
                        let mask = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
                        proptest::prop_assert_eq!(r.read_bits(bits).unwrap(), value & mask);
                    }
                    1 => proptest::prop_assert_eq!(r.read_byte().unwrap(), value as u8),
                    2 => proptest::prop_assert_eq!(r.read_short().unwrap(), value as i16),
                    _ => proptest::prop_assert_eq!(r.read_long().unwrap(), value as i32),
                }
            }
        }
    }
}
