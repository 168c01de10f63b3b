//! The adaptive codec of the `connect` tail: a 2-byte big-endian length, then codes from a tree
//! that both sides grow symbol by symbol; an unseen symbol is the NYT code and 8 literal bits.

use alloc::vec::Vec;

use super::tree::{Tree, NYT};
use super::{BitSink, BitSource, HuffmanError};

/// Compresses `data` as stock does: the byte count is `(finalBitOffset + 8) >> 3`, so a stream
/// ending on a byte boundary keeps one extra byte; every padding bit, and that byte, is zero.
pub fn compress(data: &[u8]) -> Result<Vec<u8>, HuffmanError> {
    let len = u16::try_from(data.len()).map_err(|_| HuffmanError::InputTooLong)?;
    let mut tree = Tree::new();
    // The length occupies the first 16 bit positions as two plain big-endian bytes.
    let mut sink = BitSink {
        bytes: len.to_be_bytes().to_vec(),
        bits: 16,
    };
    for &symbol in data {
        if tree.has(symbol) {
            for bit in tree.code_bits(u16::from(symbol)) {
                sink.push(bit);
            }
        } else {
            for bit in tree.code_bits(NYT) {
                sink.push(bit);
            }
            for bit in (0..8).rev() {
                sink.push((symbol >> bit) & 1 == 1);
            }
        }
        tree.add_ref(symbol);
    }
    let mut out = sink.bytes;
    out.resize((sink.bits + 8) >> 3, 0);
    Ok(out)
}

/// Decompresses a tail, refusing a declared length above `limit` or input that runs out.
/// Bytes after the declared length (stock's spare byte) are ignored.
pub fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, HuffmanError> {
    let [high, low, ..] = *data else {
        return Err(HuffmanError::MissingLength);
    };
    let declared = usize::from(u16::from_be_bytes([high, low]));
    if declared > limit {
        return Err(HuffmanError::TooLong { limit });
    }
    let mut tree = Tree::new();
    let mut source = BitSource {
        bytes: data,
        bit: 16,
    };
    let mut out = Vec::with_capacity(declared);
    for _ in 0..declared {
        if source.bit >= data.len() * 8 {
            return Err(HuffmanError::Truncated);
        }
        let mut node = tree.root();
        while let Some((left, right)) = tree.children(node) {
            node = if source.next() { right } else { left };
        }
        let symbol = match tree.symbol(node) {
            NYT => (0..8).fold(0u8, |acc, _| (acc << 1) | u8::from(source.next())),
            symbol => symbol as u8,
        };
        if source.bit > data.len() * 8 {
            return Err(HuffmanError::Truncated);
        }
        out.push(symbol);
        tree.add_ref(symbol);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_connect_tails() {
        // Three new symbols: 16 length bits, then 8, 1+8 and 2+8 code bits = 43 bits, 6 bytes.
        assert_eq!(
            compress(b"abc").unwrap(),
            [0x00, 0x03, 0x86, 0x8c, 0x30, 0x06]
        );
        let userinfo = b"\\protocol\\22";
        let golden = [
            0x00, 0x0c, 0x3a, 0x1c, 0x70, 0x8a, 0x3d, 0x5c, 0x3e, 0xc6, 0x89, 0x4d, 0x81, 0x69,
            0x02,
        ];
        assert_eq!(compress(userinfo).unwrap(), golden);
        assert_eq!(decompress(&golden, 1024).unwrap(), userinfo);
    }

    #[test]
    fn byte_aligned_end_keeps_one_zero_byte() {
        // One symbol: 16 + 8 bits end on a byte boundary, and stock still counts one more byte.
        assert_eq!(compress(b"A").unwrap(), [0x00, 0x01, 0x82, 0x00]);
        assert_eq!(compress(b"").unwrap(), [0x00, 0x00, 0x00]);
        assert_eq!(decompress(&[0x00, 0x00], 10).unwrap(), b"");
    }

    #[test]
    fn hostile_tails_are_refused() {
        assert_eq!(decompress(&[0x00], 10), Err(HuffmanError::MissingLength));
        assert_eq!(
            decompress(&[0x01, 0x00, 0xff], 10),
            Err(HuffmanError::TooLong { limit: 10 })
        );
        assert_eq!(
            decompress(&[0x00, 0x05, 0x82], 10),
            Err(HuffmanError::Truncated)
        );
    }

    proptest::proptest! {
        #[test]
        fn round_trips(data in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let packed = compress(&data).unwrap();
            proptest::prop_assert_eq!(decompress(&packed, 1 << 16).unwrap(), data);
        }

        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = decompress(&data, 1024);
        }
    }
}
