//! Fixed-Huffman throughput over a file of buffers (each a u32 little-endian length, then the
//! bytes), for `cargo xtask bench wire`. Prints one JSON object: MB/s of uncompressed bytes.

use std::time::Instant;

use protocol::cod::huffman::fixed;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: huffman_throughput FILE [ROUNDS]");
    let rounds: usize = std::env::args()
        .nth(2)
        .map_or(20, |r| r.parse().expect("rounds"));
    let data = std::fs::read(&path).expect("read buffers");
    let mut buffers = Vec::new();
    let mut at = 0;
    while at + 4 <= data.len() {
        let len = u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        buffers.push(&data[at + 4..at + 4 + len]);
        at += 4 + len;
    }
    let total: usize = buffers.iter().map(|b| b.len()).sum::<usize>() * rounds;
    let packed: Vec<Vec<u8>> = buffers.iter().map(|b| fixed::compress(b)).collect();

    let start = Instant::now();
    let mut sink = 0usize;
    for _ in 0..rounds {
        for buffer in &buffers {
            sink += fixed::compress(buffer).len();
        }
    }
    let encode = start.elapsed().as_secs_f64();

    let start = Instant::now();
    for _ in 0..rounds {
        for (buffer, packed) in buffers.iter().zip(&packed) {
            let body = fixed::decompress(packed, 1 << 16).expect("own output decodes");
            assert!(body.len() >= buffer.len());
            sink += body.len();
        }
    }
    let decode = start.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    let mb = total as f64 / 1e6;
    println!(
        "{{\"impl\":\"muster\",\"buffers\":{},\"rounds\":{rounds},\"encode_mb_s\":{:.2},\"decode_mb_s\":{:.2}}}",
        buffers.len(),
        mb / encode,
        mb / decode
    );
}
