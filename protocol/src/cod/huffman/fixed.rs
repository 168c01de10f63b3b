//! The fixed body tree: every sequenced message body is coded with the tree stock builds from
//! the 256-entry seed. Codes go root-to-leaf into rising bit positions; the stream has no length
//! of its own, so its byte extent bounds decoding.

use alloc::vec::Vec;

use super::HuffmanError;

mod tables {
    include!(concat!(env!("OUT_DIR"), "/fixed_huffman.rs"));
}

pub use tables::LONGEST_CODE;
use tables::{CODES, LENGTHS, LOOKUP_BITS, TABLE};

const NYT: u16 = 256;

/// The code of `symbol`: (bits, first bit lowest; length).
pub fn code(symbol: u8) -> (u32, u32) {
    (
        CODES[usize::from(symbol)],
        u32::from(LENGTHS[usize::from(symbol)]),
    )
}

/// Compresses a body; unused high bits of the last byte are zero and no byte is added.
pub fn compress(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut acc: u64 = 0;
    let mut filled = 0u32;
    for &symbol in body {
        let (bits, len) = code(symbol);
        acc |= u64::from(bits) << filled;
        filled += len;
        while filled >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            filled -= 8;
        }
    }
    if filled > 0 {
        out.push(acc as u8);
    }
    out
}

/// Decompresses a body as stock does: symbols are decoded while input bits remain (a code that
/// runs past the end reads zeros), so padding may yield a trailing junk byte that the
/// EOF-driven command parser never reaches. Output beyond `limit` bytes is refused.
pub fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, HuffmanError> {
    // Eight zero bytes past the end let every window be one fixed-size load.
    let mut padded = Vec::with_capacity(data.len() + 8);
    padded.extend_from_slice(data);
    padded.extend_from_slice(&[0; 8]);
    let load = |bit: usize| {
        let start = bit >> 3;
        let bytes = padded
            .get(start..start + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .unwrap_or([0; 8]);
        u64::from_le_bytes(bytes) >> (bit & 7)
    };
    let total = data.len() * 8;
    let mut out = Vec::with_capacity(data.len() * 3);
    let mut bit = 0usize;
    while bit < total {
        // One load holds at least 56 bits; every code fits one lookup (the build checks it),
        // so codes are decoded from it while a lookup's worth remains.
        let mut bits = load(bit);
        let mut available = 56u32;
        while available >= LOOKUP_BITS && bit < total {
            if out.len() == limit {
                return Err(HuffmanError::TooLong { limit });
            }
            let entry = TABLE[(bits & ((1 << LOOKUP_BITS) - 1)) as usize];
            let length = u32::from(entry >> 9);
            let symbol = entry & 0x1ff;
            if symbol == NYT {
                return Err(HuffmanError::UnexpectedNyt);
            }
            out.push(symbol as u8);
            bit += length as usize;
            bits >>= length;
            available -= length;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::tree::Tree;
    use super::*;
    use alloc::vec;

    fn seed() -> Vec<u32> {
        include_str!("../../../data/huffman_seed.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }

    #[test]
    fn seed_is_the_stock_table() {
        let seed = seed();
        assert_eq!(seed.len(), 256);
        assert_eq!(seed.iter().sum::<u32>(), 1_053_340);
    }

    #[test]
    fn compiled_tables_equal_a_tree_built_now_from_the_seed() {
        let mut tree = Tree::new();
        for (symbol, count) in seed().into_iter().enumerate() {
            for _ in 0..count {
                tree.add_ref(symbol as u8);
            }
        }
        for symbol in 0..=255u8 {
            let bits = tree.code_bits(u16::from(symbol));
            let (code, len) = code(symbol);
            assert_eq!(len as usize, bits.len(), "length of {symbol}");
            for (i, bit) in bits.into_iter().enumerate() {
                assert_eq!((code >> i) & 1 == 1, bit, "bit {i} of {symbol}");
            }
        }
    }

    #[test]
    fn golden_bodies() {
        // Compared byte for byte with ioquake3's fixed-tree writer (q3huff2).
        assert_eq!(
            compress(b"hello world hello"),
            [
                0x1c, 0x0c, 0x13, 0x73, 0xf6, 0xce, 0x98, 0x3d, 0xc2, 0xbc, 0x74, 0x73, 0x30, 0x4c,
                0xcc, 0x59
            ]
        );
        assert_eq!(compress(b""), Vec::<u8>::new());
    }

    #[test]
    fn padding_may_add_junk_after_the_body() {
        for body in [&b"hello world hello"[..], b"\x00", b"\x05\x08", &[0xff; 40]] {
            let out = decompress(&compress(body), 1 << 16).unwrap();
            assert!(out.starts_with(body));
            assert!(out.len() - body.len() <= 7, "{body:?} -> {out:?}");
        }
    }

    #[test]
    fn output_is_bounded() {
        let packed = compress(&[0u8; 100]);
        assert_eq!(
            decompress(&packed, 50),
            Err(HuffmanError::TooLong { limit: 50 })
        );
        assert_eq!(decompress(&[], 10), Ok(vec![]));
    }

    proptest::proptest! {
        #[test]
        fn round_trips(body in proptest::collection::vec(proptest::num::u8::ANY, 0..2000)) {
            let out = decompress(&compress(&body), 1 << 16).unwrap();
            proptest::prop_assert!(out.starts_with(&body));
        }

        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = decompress(&data, 1 << 15);
        }
    }
}
