//! The protocol crate's layers, checked from its sources: the codecs (the flat files of `cod/`,
//! named after the spec's pipeline) never import a session (`client/`, `server/`) or the match
//! model (`watch/`), which are built on them.

use std::path::Path;

/// The session and match-model modules, as a codec file could name them.
const ABOVE: [&str; 6] = [
    "super::client",
    "super::server",
    "super::watch",
    "cod::client",
    "cod::server",
    "cod::watch",
];

/// What a file names of the layers above, its tests left out.
fn names_above(text: &str) -> Vec<&'static str> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    ABOVE
        .into_iter()
        .filter(|m| {
            code.match_indices(m).any(|(at, _)| {
                let next = code[at + m.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

#[test]
fn the_check_sees_an_import_from_above() {
    assert_eq!(names_above("use super::client::Event;"), ["super::client"]);
    assert_eq!(
        names_above("use crate::cod::watch::{a, b};"),
        ["cod::watch"]
    );
    assert!(names_above("use super::client_records::X;").is_empty());
    assert!(names_above("x\n#[cfg(test)]\nmod tests { use super::client::Event; }").is_empty());
}

#[test]
fn codecs_never_import_sessions_or_the_match_model() {
    let cod = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cod");
    let mut codecs = 0;
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&cod).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name == "mod.rs" {
            continue;
        }
        codecs += 1;
        let above = names_above(&std::fs::read_to_string(&path).unwrap());
        if !above.is_empty() {
            wrong.push(format!("{name}: {above:?}"));
        }
    }
    assert!(codecs > 20, "found only {codecs} codec files");
    assert!(
        wrong.is_empty(),
        "codecs import the layers above them: {wrong:?}"
    );
}
