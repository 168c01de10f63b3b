//! Information strings: `\key\value\key\value`, the id-style text form of server and user info.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Storage limit of an ordinary info string (userinfo, `infoResponse`), terminator included.
pub const MAX_INFO_STRING: usize = 1024;
/// Storage limit of a big info string (`statusResponse` settings line, configstrings).
pub const MAX_BIG_INFO_STRING: usize = 8192;

/// Why an info string or one of its pairs was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoError {
    /// The encoded string would not fit its storage limit.
    TooLong { limit: usize },
    /// A key or value holds a backslash, newline or NUL, which would break the framing.
    ForbiddenChar(char),
    /// A key is empty.
    EmptyKey,
    /// The string ends with a key that has no value.
    MissingValue,
}

impl fmt::Display for InfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong { limit } => write!(f, "info string longer than {limit} bytes"),
            Self::ForbiddenChar(c) => write!(f, "info key or value contains {c:?}"),
            Self::EmptyKey => f.write_str("info string has an empty key"),
            Self::MissingValue => f.write_str("info string ends with a key and no value"),
        }
    }
}

impl core::error::Error for InfoError {}

/// An ordered list of key/value pairs. Lookups ignore ASCII case, as the engine's do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoString {
    pairs: Vec<(String, String)>,
    limit: usize,
}

fn check(text: &str) -> Result<(), InfoError> {
    match text.chars().find(|c| matches!(c, '\\' | '\n' | '\0')) {
        Some(c) => Err(InfoError::ForbiddenChar(c)),
        None => Ok(()),
    }
}

/// Bytes a text takes on the wire: one per character, as game text is Latin-1.
fn wire_len(text: &str) -> usize {
    text.chars().count()
}

impl InfoString {
    /// An empty info string bounded by `limit` bytes ([`MAX_INFO_STRING`] or [`MAX_BIG_INFO_STRING`]).
    pub fn new(limit: usize) -> Self {
        Self {
            pairs: Vec::new(),
            limit,
        }
    }

    /// Parses `\k\v\k\v` (the leading backslash is optional; one trailing backslash is tolerated).
    pub fn parse(text: &str, limit: usize) -> Result<Self, InfoError> {
        // Measured as it is written back: one byte per character (game text is Latin-1), with
        // the leading backslash the canonical form always has.
        let written = wire_len(text) + usize::from(!text.starts_with('\\'));
        if written >= limit {
            return Err(InfoError::TooLong { limit });
        }
        if text.contains(['\n', '\0']) {
            return Err(InfoError::ForbiddenChar(if text.contains('\n') {
                '\n'
            } else {
                '\0'
            }));
        }
        let body = text.strip_prefix('\\').unwrap_or(text);
        let mut parts: Vec<&str> = body.split('\\').collect();
        if parts.len() % 2 == 1 {
            // An odd part is either one trailing backslash (tolerated) or a key with no value.
            if parts.pop() != Some("") {
                return Err(InfoError::MissingValue);
            }
        }
        let mut info = Self::new(limit);
        for pair in parts.chunks_exact(2) {
            if pair[0].is_empty() {
                return Err(InfoError::EmptyKey);
            }
            info.pairs.push((pair[0].into(), pair[1].into()));
        }
        Ok(info)
    }

    /// The first value stored under `key`, compared without ASCII case.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key` to `value`: like the engine, an existing key is removed and the pair appended.
    /// Refused (and nothing changed) if it would break the framing or overflow the limit.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), InfoError> {
        if key.is_empty() {
            return Err(InfoError::EmptyKey);
        }
        check(key)?;
        check(value)?;
        let kept: usize = self
            .pairs
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case(key))
            .map(|(k, v)| wire_len(k) + wire_len(v) + 2)
            .sum();
        if kept + wire_len(key) + wire_len(value) + 2 >= self.limit {
            return Err(InfoError::TooLong { limit: self.limit });
        }
        self.pairs.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
        self.pairs.push((key.into(), value.into()));
        Ok(())
    }

    /// The pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl fmt::Display for InfoString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.pairs {
            write!(f, "\\{k}\\{v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn the_limit_counts_wire_bytes_in_the_canonical_form() {
        // 1,023 bytes without the leading backslash would be 1,024 written back: refused.
        let unprefixed = alloc::format!("k\\{}", "v".repeat(1021));
        assert_eq!(
            InfoString::parse(&unprefixed, 1024),
            Err(InfoError::TooLong { limit: 1024 })
        );
        assert!(InfoString::parse(&alloc::format!("\\{unprefixed}")[..1023], 1024).is_ok());
        // Latin-1 characters are one byte each, however Rust stores them.
        let latin = alloc::format!("\\k\\{}", "\u{ff}".repeat(1000));
        assert!(InfoString::parse(&latin, 1024).is_ok());
    }

    #[test]
    fn parses_in_order_and_looks_up_without_case() {
        let info = InfoString::parse(
            "\\challenge\\xxx\\protocol\\22\\hostname\\^1Red",
            MAX_INFO_STRING,
        )
        .unwrap();
        assert_eq!(info.len(), 3);
        assert_eq!(info.get("PROTOCOL"), Some("22"));
        assert_eq!(info.get("hostname"), Some("^1Red"));
        assert_eq!(
            info.to_string(),
            "\\challenge\\xxx\\protocol\\22\\hostname\\^1Red"
        );
    }

    #[test]
    fn empty_values_and_optional_backslashes() {
        let info = InfoString::parse("challenge\\\\protocol\\22\\", MAX_INFO_STRING).unwrap();
        assert_eq!(info.get("challenge"), Some(""));
        assert_eq!(info.to_string(), "\\challenge\\\\protocol\\22");
        assert!(InfoString::parse("", MAX_INFO_STRING).unwrap().is_empty());
        assert!(InfoString::parse("\\", MAX_INFO_STRING).unwrap().is_empty());
    }

    #[test]
    fn malformed_strings_are_refused() {
        let limit = MAX_INFO_STRING;
        assert_eq!(
            InfoString::parse("\\a\\1\\b", limit),
            Err(InfoError::MissingValue)
        );
        assert_eq!(
            InfoString::parse("\\a\\1\\\\2", limit),
            Err(InfoError::EmptyKey)
        );
        assert_eq!(
            InfoString::parse("\\a\\1\n", limit),
            Err(InfoError::ForbiddenChar('\n'))
        );
        let long = "\\k\\".to_string() + &"v".repeat(limit);
        assert_eq!(
            InfoString::parse(&long, limit),
            Err(InfoError::TooLong { limit })
        );
    }

    #[test]
    fn set_replaces_and_appends_like_the_engine() {
        let mut info = InfoString::new(MAX_INFO_STRING);
        info.set("a", "1").unwrap();
        info.set("b", "2").unwrap();
        info.set("A", "3").unwrap();
        assert_eq!(info.to_string(), "\\b\\2\\A\\3");
        assert_eq!(info.set("c", "x\\y"), Err(InfoError::ForbiddenChar('\\')));
        assert_eq!(info.set("", "x"), Err(InfoError::EmptyKey));
        let mut small = InfoString::new(16);
        small.set("key", "value").unwrap();
        assert_eq!(
            small.set("more", "values"),
            Err(InfoError::TooLong { limit: 16 })
        );
        assert_eq!(small.to_string(), "\\key\\value");
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,200}") {
            let _ = InfoString::parse(&s, MAX_INFO_STRING);
        }

        #[test]
        fn set_pairs_round_trip(pairs in proptest::collection::vec(("[a-z_]{1,8}", "[ -\\[\\]-~]{0,12}"), 0..20)) {
            let mut info = InfoString::new(MAX_BIG_INFO_STRING);
            for (k, v) in &pairs {
                info.set(k, v).unwrap();
            }
            let again = InfoString::parse(&info.to_string(), MAX_BIG_INFO_STRING).unwrap();
            proptest::prop_assert_eq!(again, info);
        }
    }
}
