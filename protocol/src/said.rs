//! Words the reader's language says: what the shared code (the list's cells, a match's result)
//! decides to say, as a catalogue message's id and its arguments, never as English. The page and
//! the relay each say it with their visitor's catalogue (the `muster-i18n` crate), so both draw
//! the same words in the same language, and this crate stays free of any language.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// A message to say: its id in the catalogues and its named arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Said {
    pub id: &'static str,
    pub args: Vec<(&'static str, Word)>,
}

/// One argument: a number (it chooses the plural form), text said as it is (a map's name), or
/// another message said first (a part of a sentence).
#[derive(Clone, Debug, PartialEq)]
pub enum Word {
    Number(i64),
    Text(String),
    Said(Box<Said>),
}

impl Said {
    /// The message `id` with no arguments yet.
    pub fn new(id: &'static str) -> Said {
        Said {
            id,
            args: Vec::new(),
        }
    }

    /// With the argument `name`.
    pub fn with(mut self, name: &'static str, value: impl Into<Word>) -> Said {
        self.args.push((name, value.into()));
        self
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl From<$t> for Word {
            fn from(n: $t) -> Word {
                Word::Number(n as i64)
            }
        }
    )*};
}
numbers!(i32, i64, u8, u16, u32, u64, usize);

impl From<String> for Word {
    fn from(s: String) -> Word {
        Word::Text(s)
    }
}

impl From<&str> for Word {
    fn from(s: &str) -> Word {
        Word::Text(String::from(s))
    }
}

impl From<Said> for Word {
    fn from(s: Said) -> Word {
        Word::Said(Box::new(s))
    }
}

/// How long ago something was, `secs` seconds before now, as people say it: "just now",
/// "5 min ago", "3 h ago", "2 days ago" (the page's and the alerts' words alike).
pub fn ago(secs: u64) -> Said {
    match secs {
        0..60 => Said::new("ago-now"),
        60..3600 => Said::new("ago-minutes").with("count", secs / 60),
        3600..86_400 => Said::new("ago-hours").with("count", secs / 3600),
        _ => Said::new("ago-days").with("count", secs / 86_400),
    }
}
