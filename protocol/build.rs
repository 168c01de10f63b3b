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

/// The ordered delta descriptor tables, one `.tsv` each: (file, constant name).
const FIELD_TABLES: &[(&str, &str)] = &[
    ("entity_fields.tsv", "ENTITY_FIELDS"),
    ("entity_fields_vehicle.tsv", "VEHICLE_FIELDS"),
    ("client_fields.tsv", "CLIENT_FIELDS"),
    ("playerstate_fields.tsv", "PLAYER_STATE_FIELDS"),
    ("objective_fields.tsv", "OBJECTIVE_FIELDS"),
    ("hudelem_fields.tsv", "HUD_FIELDS"),
];

/// Turns the descriptor tables into `const` arrays of `Field`, in wire order, as data.
fn field_tables() {
    let mut out = String::new();
    for (file, name) in FIELD_TABLES {
        let path = format!("data/{file}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("descriptor table");
        let rows: Vec<(String, i32)> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("index") && !l.trim().is_empty())
            .enumerate()
            .map(|(i, line)| {
                let cols: Vec<&str> = line.split('\t').collect();
                assert_eq!(
                    cols[0].parse::<usize>().ok(),
                    Some(i),
                    "{file}: rows in order"
                );
                (cols[1].to_owned(), cols[2].parse().expect("bits"))
            })
            .collect();
        writeln!(out, "/// From `{file}`, in wire order.").unwrap();
        write!(out, "pub const {name}: [Field; {}] = [", rows.len()).unwrap();
        for (field, bits) in rows {
            write!(out, "Field {{ name: {field:?}, bits: {bits} }},").unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("fields.rs");
    std::fs::write(dest, out).unwrap();
}

fn main() {
    field_tables();
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
    // Every code resolves in one table lookup; the decoder relies on it.
    assert!(
        longest <= LOOKUP_BITS as usize,
        "codes fit one lookup ({longest} bits)"
    );

    // Decode table: the next LOOKUP_BITS input bits (first bit lowest) give the symbol whose
    // code they start with, and that code's length.
    let mut table = vec![0u16; 1 << LOOKUP_BITS];
    for (index, entry) in table.iter_mut().enumerate() {
        let mut node = tree.root();
        let mut used = 0u16;
        while let Some((left, right)) = tree.children(node) {
            node = if (index >> used) & 1 == 1 {
                right
            } else {
                left
            };
            used += 1;
        }
        *entry = (used << 9) | tree.symbol(node);
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
        "/// (code length << 9) | symbol, indexed by the next input bits."
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
