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

/// The ordered delta descriptor tables, one `.tsv` each: (file, constant name, the typed field
/// id a record held in that order is read with). The vehicle table has the entity table's
/// members in another wire order, and entities are held in the entity table's order, so it
/// needs no id of its own.
const FIELD_TABLES: &[(&str, &str, Option<&str>)] = &[
    ("entity_fields.tsv", "ENTITY_FIELDS", Some("EntityField")),
    ("entity_fields_vehicle.tsv", "VEHICLE_FIELDS", None),
    ("client_fields.tsv", "CLIENT_FIELDS", Some("ClientField")),
    (
        "playerstate_fields.tsv",
        "PLAYER_STATE_FIELDS",
        Some("PlayerStateField"),
    ),
    (
        "objective_fields.tsv",
        "OBJECTIVE_FIELDS",
        Some("ObjectiveField"),
    ),
    ("hudelem_fields.tsv", "HUD_FIELDS", Some("HudField")),
];

/// The constant an engine field name becomes: `apos.trBase[1]` is `APOS_TR_BASE_1`, `eType`
/// `E_TYPE`.
fn const_name(field: &str) -> String {
    let mut out = String::new();
    let mut after_lower = false;
    for c in field.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && after_lower {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
            after_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            after_lower = false;
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// A typed id per table: one constant per field, so a misspelt or foreign field is a compile
/// error, and reading one is an index, not a search.
fn field_id(out: &mut String, file: &str, table: &str, id: &str, rows: &[(String, i32)]) {
    writeln!(
        out,
        "/// A field of `{file}` ([`{table}`]), by its position in wire order."
    )
    .unwrap();
    writeln!(
        out,
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\npub struct {id}(u8);"
    )
    .unwrap();
    writeln!(out, "impl {id} {{").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (index, (field, _)) in rows.iter().enumerate() {
        let name = const_name(field);
        assert!(seen.insert(name.clone()), "{file}: {name} twice");
        writeln!(
            out,
            "    /// `{field}`.\n    pub const {name}: Self = Self({index});"
        )
        .unwrap();
    }
    writeln!(
        out,
        "    /// Every field, in wire order.\n    pub const ALL: [Self; {n}] = {{ let mut all = [Self(0); {n}]; let mut i = 0; while i < {n} {{ all[i] = Self(i as u8); i += 1; }} all }};",
        n = rows.len()
    )
    .unwrap();
    writeln!(
        out,
        "    /// The engine's name for it.\n    pub const fn name(self) -> &'static str {{ {table}[self.0 as usize].name }}"
    )
    .unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(
        out,
        "impl FieldId for {id} {{ fn index(self) -> usize {{ usize::from(self.0) }} }}"
    )
    .unwrap();
}

/// Turns the descriptor tables into `const` arrays of `Field`, in wire order, as data, and a
/// typed id per table.
fn field_tables() {
    let mut out = String::new();
    for (file, name, id) in FIELD_TABLES {
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
        for (field, bits) in &rows {
            write!(out, "Field {{ name: {field:?}, bits: {bits} }},").unwrap();
        }
        writeln!(out, "];").unwrap();
        if let Some(id) = id {
            field_id(&mut out, file, name, id, &rows);
        }
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
