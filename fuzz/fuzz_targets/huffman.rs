//! Both Huffman decoders on any input, and both codecs round-tripping any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::cod::huffman::{adaptive, fixed};

fuzz_target!(|data: &[u8]| {
    let _ = adaptive::decompress(data, 1 << 16);
    let _ = fixed::decompress(data, 1 << 15);
    let packed = adaptive::compress(data).expect("fuzz inputs are short");
    assert_eq!(adaptive::decompress(&packed, 1 << 16).as_deref(), Ok(data));
    let body = fixed::decompress(&fixed::compress(data), 1 << 17).expect("round trip");
    assert!(body.starts_with(data));
});
