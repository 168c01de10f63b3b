//! No user-visible English outside the catalogues: every string literal in the page's code and
//! in the relay's HTML pages that reads like words (a capital and lower-case letters, or words
//! with a space between them) is a catalogue id, a technical string (a class, a URL, a cvar,
//! markup), or one of the few names every language writes the same (`not-words.txt`). A new
//! English sentence written straight into a view fails here, naming its file and line.

use std::path::{Path, PathBuf};

/// The code whose strings a visitor reads: the page, the relay's own pages, and what the
/// relay's alerts say (Discord, ntfy, push, a webhook's text; `push.rs` only carries their text).
const SOURCES: &[&str] = &[
    "frontend/src",
    "relay/src/browse/html.rs",
    "relay/src/matches/html.rs",
    "relay/src/moments/page.rs",
    "relay/src/card.rs",
    "relay/src/alerts/rules.rs",
    "relay/src/alerts/message.rs",
    "relay/src/alerts/mod.rs",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .expect("a source folder")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_owned());
    }
}

/// The string literals of one line (escapes kept as written), each with the code before it.
fn literals(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            // A char literal such as '"' is not the start of a string.
            '\'' => {
                let rest: String = chars.clone().take(3).map(|(_, c)| c).collect();
                if rest.starts_with("\"'") || rest.starts_with("\\\"'") {
                    chars.next();
                    chars.next();
                }
            }
            '"' => {
                let mut literal = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            literal.push(c);
                            if let Some((_, next)) = chars.next() {
                                literal.push(next);
                            }
                        }
                        '"' => break,
                        _ => literal.push(c),
                    }
                }
                out.push((line[..at].to_owned(), literal));
            }
            '/' if chars.peek().is_some_and(|(_, c)| *c == '/') => break,
            _ => {}
        }
    }
    out
}

/// Whether the code before a literal makes it an attribute no visitor reads (a class, a
/// relation, a test id…): every attribute but the ones read aloud or shown.
fn in_unread_attribute(before: &str) -> bool {
    let before = before.trim_end();
    let Some(name) = before.strip_suffix('=') else {
        return false;
    };
    let name: String = name
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
        .collect::<String>()
        .chars()
        .rev()
        .collect();
    !name.is_empty()
        && !["aria-label", "title", "placeholder", "alt", "label"].contains(&name.as_str())
}

/// Whether a literal reads like words to a visitor.
fn reads_like_words(literal: &str) -> bool {
    // Format placeholders are filled with data, not words.
    let mut text = String::new();
    let mut depth = 0;
    for c in literal.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let spaced = text.contains(' ');
    let first_lower = text.starts_with(|c: char| c.is_lowercase());
    let technical = text.starts_with(['/', '#', '.', '?', '(', ':'])
        || text.contains('<')
        || text.contains("://")
        || text.contains('=')
        || text.contains('_')
        || text.contains(';')
        // A call: code, not prose.
        || text
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'(')
        // A path, a MIME type, a file, a property: no space, lower case.
        || !spaced && first_lower && text.contains(['/', '.', ':']);
    if technical {
        return false;
    }
    // A catalogue id or a class: lower-case words joined by hyphens.
    if text
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == ' ')
        && !spaced
    {
        return false;
    }
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .collect();
    let capitalised = words.first().is_some_and(|w| {
        let mut cs = w.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
    });
    (spaced && words.len() >= 2) || capitalised
}

#[test]
fn no_english_is_written_outside_the_catalogues() {
    let root = root();
    let allowed: Vec<String> = std::fs::read_to_string(root.join("i18n/not-words.txt"))
        .expect("i18n/not-words.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_owned)
        .collect();
    let mut files = Vec::new();
    for source in SOURCES {
        rust_files(&root.join(source), &mut files);
    }
    assert!(files.len() > 40, "only {} files found", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        // Tests and logs speak to developers, not visitors.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//")
                || code.starts_with("///")
                || code.contains("logging::")
                || code.contains("tracing::")
                || code.contains(".expect(")
            {
                continue;
            }
            for (before, literal) in literals(line) {
                if reads_like_words(&literal)
                    && !in_unread_attribute(&before)
                    && !allowed.contains(&literal)
                {
                    let shown = file.strip_prefix(&root).unwrap_or(file).display();
                    found.push(format!("{shown}:{}: {literal:?}", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "English written outside i18n/catalogues (say it with tr!/words.text, or add a name \
         every language writes alike to i18n/not-words.txt):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_sentence_and_lets_ids_and_markup_pass() {
    assert!(reads_like_words("Share this moment"));
    assert!(reads_like_words("Copied"));
    assert!(!reads_like_words("moment-share"));
    assert!(!reads_like_words("/api/moments"));
    assert!(!reads_like_words("<span class=\\\"c"));
    assert!(reads_like_words("Stop watching {name}"));
    assert!(!reads_like_words("{code} ({servers})"));
    assert!(!reads_like_words("application/json"));
    assert!(!reads_like_words("return import(js)"));
    let found = literals(r#"<p class="num ping">"Hello there"</p> // "not this""#);
    assert_eq!(found.len(), 2);
    assert!(in_unread_attribute(&found[0].0));
    assert_eq!(found[1].1, "Hello there");
    assert!(!in_unread_attribute(&found[1].0));
    assert!(!in_unread_attribute("<input aria-label="));
}
