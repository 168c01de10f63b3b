//! One language's messages, parsed once and shared: the relay's threads and the page read the
//! same bundle.

use std::borrow::Cow;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

use crate::Lang;

/// A value a message is given (`{ $count }`): numbers choose a plural form.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg<'a> {
    Number(f64),
    Text(Cow<'a, str>),
}

macro_rules! number_args {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg<'_> {
            fn from(n: $t) -> Self {
                Arg::Number(n as f64)
            }
        }
    )*};
}
number_args!(i32, i64, u8, u16, u32, u64, usize, f32, f64);

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(s))
    }
}

impl From<String> for Arg<'_> {
    fn from(s: String) -> Self {
        Arg::Text(Cow::Owned(s))
    }
}

/// One language's messages over English's: a message the language lacks is said in English.
pub struct Catalogue {
    lang: Lang,
    own: FluentBundle<FluentResource>,
    english: Option<&'static Catalogue>,
}

/// The catalogue of `lang`, parsed on first use and kept for the life of the process (it never
/// changes: the catalogues are compiled in).
pub fn catalogue(lang: Lang) -> &'static Catalogue {
    static PARSED: [OnceLock<Catalogue>; 6] = [const { OnceLock::new() }; 6];
    let index = Lang::ALL
        .iter()
        .position(|l| *l == lang)
        .expect("every language is in Lang::ALL");
    PARSED[index].get_or_init(|| Catalogue::parse(lang))
}

impl Catalogue {
    fn parse(lang: Lang) -> Catalogue {
        let resource = FluentResource::try_new(lang.source().to_owned())
            // A syntax error in a catalogue is a build's bug, caught by tests/catalogues.rs;
            // the messages around it still parse, and are used.
            .unwrap_or_else(|(partial, _errors)| partial);
        let id = lang.tag().parse().expect("every Lang tag parses");
        let mut own = FluentBundle::new_concurrent(vec![id]);
        // Our languages all run left to right: no isolation marks around placeables, which
        // would end up in titles, attributes and the messages sent to Discord.
        own.set_use_isolating(false);
        // A message defined twice keeps its first (the tests reject both).
        let _ = own.add_resource(resource);
        Catalogue {
            lang,
            own,
            english: (lang != Lang::En).then(|| catalogue(Lang::En)),
        }
    }

    /// The language these messages are in.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message `id` with no arguments.
    pub fn text(&self, id: &str) -> String {
        self.with(id, &[])
    }

    /// The message `id` with its arguments. A message missing here is said in English; one
    /// missing in English too is its id, so a mistake shows on the page rather than a blank.
    pub fn with(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        let (bundle, message) = match (self.own.get_message(id), self.english) {
            (Some(m), _) => (&self.own, m),
            (None, Some(english)) => return english.with(id, args),
            (None, None) => return id.to_owned(),
        };
        let Some(pattern) = message.value() else {
            return id.to_owned();
        };
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            let value = match value {
                Arg::Number(n) => FluentValue::from(*n),
                Arg::Text(s) => FluentValue::from(s.to_string()),
            };
            fluent_args.set(name.to_string(), value);
        }
        let mut errors = Vec::new();
        bundle
            .format_pattern(pattern, Some(&fluent_args), &mut errors)
            .into_owned()
    }

    /// What the shared code decided to say (a list's cell, a match's result), in this
    /// language: its arguments that are messages themselves said first.
    pub fn say(&self, said: &protocol::said::Said) -> String {
        use protocol::said::Word;
        let args: Vec<(&str, Arg<'_>)> = said
            .args
            .iter()
            .map(|(name, word)| {
                let value = match word {
                    Word::Number(n) => Arg::Number(*n as f64),
                    Word::Text(t) => Arg::Text(Cow::Borrowed(t.as_str())),
                    Word::Said(inner) => Arg::Text(Cow::Owned(self.say(inner))),
                };
                (*name, value)
            })
            .collect();
        self.with(said.id, &args)
    }
}

impl Catalogue {
    /// A time in ms since the Unix epoch, to the minute in UTC, as this language writes a date
    /// (`2026-12-05 03:20 UTC`, `05.12.2026, 03:20 UTC`). Computed here rather than by the
    /// browser's `Intl`, so the relay's first screen and the page that takes its place say the
    /// same, to the letter.
    pub fn date_time_utc(&self, ms: u64) -> String {
        let minutes = ms / 60_000;
        let (year, month, day) = civil_from_days((minutes / 1440) as i64);
        let two = |n: u64| format!("{n:02}");
        self.with(
            "date-time-utc",
            &[
                ("year", Arg::Text(Cow::Owned(year.to_string()))),
                ("month", Arg::Text(Cow::Owned(two(month)))),
                ("day", Arg::Text(Cow::Owned(two(day)))),
                ("hour", Arg::Text(Cow::Owned(two(minutes / 60 % 24)))),
                ("minute", Arg::Text(Cow::Owned(two(minutes % 60)))),
            ],
        )
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u64, u64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use crate::{catalogue, Lang};

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        // 2026-12-05 03:20 UTC.
        let ms = 1_796_440_800_000;
        assert_eq!(
            catalogue(Lang::En).date_time_utc(ms),
            "2026-12-05 03:20 UTC"
        );
        assert_eq!(
            catalogue(Lang::De).date_time_utc(ms),
            "05.12.2026, 03:20 UTC"
        );
        assert_eq!(catalogue(Lang::En).date_time_utc(0), "1970-01-01 00:00 UTC");
        // A leap day.
        assert_eq!(
            catalogue(Lang::En).date_time_utc(951_782_400_000),
            "2000-02-29 00:00 UTC"
        );
    }
}
