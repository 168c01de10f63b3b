//! Game text: byte strings on the wire, `^N` colour codes inside them.
//!
//! The game's strings are 8-bit and carry no declared encoding. They are mapped byte-for-char
//! (ISO-8859-1) so that every byte survives a round trip through a Rust `String` unchanged.

use alloc::string::String;
use alloc::vec::Vec;

/// The colour escape character.
pub const COLOUR_ESCAPE: char = '^';
/// The colour text has before any code: white.
pub const DEFAULT_COLOUR: u8 = 7;

/// Decodes wire bytes into text, one char per byte.
pub fn decode(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Encodes text to wire bytes; a char outside one byte becomes `?`, as the engine's sanitizer would.
pub fn encode_into(text: &str, out: &mut Vec<u8>) {
    out.extend(
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
    );
}

/// Encodes text to wire bytes (see [`encode_into`]).
pub fn encode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    encode_into(text, &mut out);
    out
}

/// The colour a code character selects, by the engine's rule `(c - '0') & 7`: `^0`..`^7` are
/// black, red, green, yellow, blue, cyan, magenta, white; every other character wraps onto them.
pub fn colour_index(code: char) -> u8 {
    ((u32::from(code).wrapping_sub(u32::from('0'))) & 7) as u8
}

/// A run of text drawn in one colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub colour: u8,
    pub text: String,
}

/// Walks `text` the way the engine does: `^` followed by any character other than `^` (and
/// other than the end of the string) is a colour code; anything else is literal.
fn walk(text: &str, mut on_code: impl FnMut(char), mut on_char: impl FnMut(char)) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            (COLOUR_ESCAPE, Some(&next)) if next != COLOUR_ESCAPE && next != '\0' => {
                on_code(next);
                chars.next();
            }
            _ => on_char(c),
        }
    }
}

/// Splits coloured text into spans; empty spans are dropped.
pub fn spans(text: &str) -> Vec<Span> {
    let spans = core::cell::RefCell::new(Vec::<Span>::new());
    let colour = core::cell::Cell::new(DEFAULT_COLOUR);
    walk(
        text,
        |code| colour.set(colour_index(code)),
        |c| {
            let mut spans = spans.borrow_mut();
            match spans.last_mut() {
                Some(last) if last.colour == colour.get() => last.text.push(c),
                _ => spans.push(Span {
                    colour: colour.get(),
                    text: String::from(c),
                }),
            }
        },
    );
    spans.into_inner()
}

/// The text with every colour code removed.
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    walk(text, |_| {}, |c| out.push(c));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn span(colour: u8, text: &str) -> Span {
        Span {
            colour,
            text: text.into(),
        }
    }

    #[test]
    fn strips_codes_like_the_engine() {
        assert_eq!(strip("^1Red^7 and ^2green"), "Red and green");
        assert_eq!(strip("^^1x"), "^x");
        assert_eq!(strip("trailing^"), "trailing^");
        assert_eq!(strip("^a^Zletters"), "letters");
        assert_eq!(strip(""), "");
    }

    #[test]
    fn spans_carry_colours() {
        assert_eq!(
            spans("^1[^7UO^1] ^3Server"),
            vec![
                span(1, "["),
                span(7, "UO"),
                span(1, "] "),
                span(3, "Server")
            ]
        );
        assert_eq!(spans("plain"), vec![span(7, "plain")]);
        assert_eq!(spans("^1^2x"), vec![span(2, "x")]);
        assert_eq!(spans("^8a^9b"), vec![span(0, "a"), span(1, "b")]);
    }

    #[test]
    fn bytes_round_trip_through_text() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(encode(&decode(&bytes)), bytes);
        assert_eq!(encode("é€"), vec![0xe9, b'?']);
    }

    proptest::proptest! {
        #[test]
        fn spans_join_to_the_stripped_text(s in ".{0,64}") {
            let joined: String = spans(&s).into_iter().map(|s| s.text).collect();
            proptest::prop_assert_eq!(joined, strip(&s));
        }
    }
}
