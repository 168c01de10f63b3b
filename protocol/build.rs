//! Derives the fixed body-compression tables from the seed, with the same adaptive tree the
//! crate uses at run time (`src/cod/huffman/tree.rs`): the tree stock builds at start-up,
//! built once here instead of in every process.

extern crate alloc;

#[allow(dead_code)]
#[path = "src/cod/huffman/tree.rs"]
mod tree;

use std::fmt::Write as _;

/// Bits resolved by one lookup of the decode table.
const LOOKUP_BITS: u32 = 12;

fn main() {
    let seed_path = "data/huffman_seed.txt";
    println!("cargo:rerun-if-changed={seed_path}");
    println!("cargo:rerun-if-changed=src/cod/huffman/tree.rs");
    let seed: Vec<u32> = std::fs::read_to_string(seed_path)
        .expect("seed file")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.trim().parse().expect("seed counts are integers"))
        .collect();
    assert_eq!(seed.len(), 256, "one count per byte symbol");

    let mut tree = tree::Tree::new();
    for (symbol, &count) in seed.iter().enumerate() {
        for _ in 0..count {
            tree.add_ref(symbol as u8);
        }
    }

    let codes: Vec<Vec<bool>> = (0..256).map(|s| tree.code_bits(s)).collect();
    let longest = codes.iter().map(Vec::len).max().unwrap_or(0);
    assert!(longest <= 32, "codes fit a u32 ({longest} bits)");

    // The tree in breadth-first order from the root: internal nodes hold child indices, leaves
    // hold LEAF | symbol.
    let mut order = vec![tree.root()];
    let mut nodes: Vec<[u16; 2]> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        if let Some((l, r)) = tree.children(order[i]) {
            order.push(l);
            order.push(r);
        }
        i += 1;
    }
    let index_of = |n: u16| order.iter().position(|&m| m == n).unwrap() as u16;
    for &n in &order {
        nodes.push(match tree.children(n) {
            Some((l, r)) => [index_of(l), index_of(r)],
            None => [0x8000 | tree.symbol(n), 0x8000 | tree.symbol(n)],
        });
    }

    // Decode table: the next LOOKUP_BITS input bits (first bit lowest) give either a symbol
    // and its code length, or the node reached when the code is longer.
    let mut table = vec![0u16; 1 << LOOKUP_BITS];
    for (index, entry) in table.iter_mut().enumerate() {
        let mut node = 0usize;
        let mut used = 0u32;
        while nodes[node][0] & 0x8000 == 0 && used < LOOKUP_BITS {
            let bit = (index >> used) & 1;
            node = usize::from(nodes[node][bit]);
            used += 1;
        }
        *entry = if nodes[node][0] & 0x8000 != 0 {
            ((used as u16) << 9) | (nodes[node][0] & 0x1ff)
        } else {
            0x8000 | node as u16
        };
    }

    let mut out = String::new();
    writeln!(out, "/// Bits one decode-table lookup resolves.").unwrap();
    writeln!(out, "pub const LOOKUP_BITS: u32 = {LOOKUP_BITS};").unwrap();
    writeln!(out, "/// Longest code in the tree.").unwrap();
    writeln!(out, "pub const LONGEST_CODE: u32 = {longest};").unwrap();
    writeln!(out, "/// Code of each byte, first bit lowest.").unwrap();
    write!(out, "pub const CODES: [u32; 256] = [").unwrap();
    for code in &codes {
        let bits = code
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << i));
        write!(out, "{bits:#x},").unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "/// Code length of each byte.").unwrap();
    write!(out, "pub const LENGTHS: [u8; 256] = [").unwrap();
    for code in &codes {
        write!(out, "{},", code.len()).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "/// The tree, breadth-first: [left, right], or LEAF | symbol twice."
    )
    .unwrap();
    write!(out, "pub const NODES: [[u16; 2]; {}] = [", nodes.len()).unwrap();
    for [l, r] in &nodes {
        write!(out, "[{l},{r}],").unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "/// (length << 9) | symbol, or LEAF | node index for longer codes."
    )
    .unwrap();
    write!(out, "pub const TABLE: [u16; {}] = [", table.len()).unwrap();
    for entry in &table {
        write!(out, "{entry},").unwrap();
    }
    writeln!(out, "];").unwrap();
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("fixed_huffman.rs");
    std::fs::write(dest, out).unwrap();
}
