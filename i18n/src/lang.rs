//! Which language a visitor reads: their choice if they made one, else the first of their
//! browser's languages Muster speaks, else English.

use unic_langid::LanguageIdentifier;

/// A language Muster speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    En,
    De,
    Pl,
    Ru,
    Fr,
    Nl,
}

/// A tag naming no language Muster speaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLang(pub String);

impl core::fmt::Display for UnknownLang {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "no language {:?}; these are spoken here: ", self.0)?;
        for (i, lang) in Lang::ALL.into_iter().enumerate() {
            let comma = if i == 0 { "" } else { ", " };
            write!(f, "{comma}{}", lang.tag())?;
        }
        Ok(())
    }
}

impl Lang {
    /// Every language, in the order the header's chooser lists them.
    pub const ALL: [Lang; 6] = [Lang::En, Lang::De, Lang::Pl, Lang::Ru, Lang::Fr, Lang::Nl];

    /// The BCP 47 tag: `lang=` attributes, the chooser's cookie, `Intl` formatters.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Pl => "pl",
            Lang::Ru => "ru",
            Lang::Fr => "fr",
            Lang::Nl => "nl",
        }
    }

    /// The language's name in itself, as the chooser shows it (a visitor who cannot read the
    /// current language still finds their own).
    pub fn endonym(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "Deutsch",
            Lang::Pl => "Polski",
            Lang::Ru => "Русский",
            Lang::Fr => "Français",
            Lang::Nl => "Nederlands",
        }
    }

    /// The language a tag names, by its primary subtag (`de-AT` is German); None for one
    /// Muster does not speak.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let id: LanguageIdentifier = tag.trim().parse().ok()?;
        Lang::ALL
            .into_iter()
            .find(|l| id.language.as_str().eq_ignore_ascii_case(l.tag()))
    }

    /// The language a tag names, or the refusal a visitor reads when Muster does not speak it
    /// (the API's `lang=`, the chooser's `to=`, a banner's `lang=` all refuse alike).
    pub fn parse(tag: &str) -> Result<Lang, UnknownLang> {
        Lang::from_tag(tag).ok_or_else(|| UnknownLang(tag.to_owned()))
    }

    /// The first of `wanted` (most wanted first, as `navigator.languages` lists them) that
    /// Muster speaks; English when none is.
    pub fn first_of<'a>(wanted: impl IntoIterator<Item = &'a str>) -> Lang {
        wanted
            .into_iter()
            .find_map(Lang::from_tag)
            .unwrap_or(Lang::En)
    }

    /// The language an HTTP `Accept-Language` header asks for, by its weights (RFC 9110
    /// §12.5.4: `q=0` is "not this one"; fluent-langneg's parser drops the weights).
    pub fn from_accept_language(header: &str) -> Lang {
        let mut wanted: Vec<(u16, &str)> = header
            .split(',')
            .filter_map(|item| {
                let mut parts = item.split(';');
                let tag = parts.next()?.trim();
                let weight = parts
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .find_map(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                // Thousandths, as the RFC allows no finer.
                let weight = (weight.clamp(0.0, 1.0) * 1000.0).round() as u16;
                (weight > 0 && !tag.is_empty()).then_some((weight, tag))
            })
            .collect();
        // Stable: of equal weights, the one listed first.
        wanted.sort_by_key(|w| std::cmp::Reverse(w.0));
        Lang::first_of(wanted.into_iter().map(|(_, tag)| tag))
    }

    /// The catalogue's text, as the crate embeds it.
    pub(crate) fn source(self) -> &'static str {
        match self {
            Lang::En => include_str!("../catalogues/en.ftl"),
            Lang::De => include_str!("../catalogues/de.ftl"),
            Lang::Pl => include_str!("../catalogues/pl.ftl"),
            Lang::Ru => include_str!("../catalogues/ru.ftl"),
            Lang::Fr => include_str!("../catalogues/fr.ftl"),
            Lang::Nl => include_str!("../catalogues/nl.ftl"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lang;

    #[test]
    fn a_visitor_s_languages_pick_the_first_spoken_here() {
        assert_eq!(Lang::first_of(["es-ES", "de-AT", "en"]), Lang::De);
        assert_eq!(Lang::first_of(["pt-BR"]), Lang::En);
        assert_eq!(Lang::first_of(["RU"]), Lang::Ru);
        assert_eq!(Lang::first_of(["not a tag!", "nl-BE"]), Lang::Nl);
    }

    #[test]
    fn accept_language_is_read_by_its_weights() {
        assert_eq!(
            Lang::from_accept_language("en;q=0.5, pl-PL;q=0.9, de;q=0.1"),
            Lang::Pl
        );
        assert_eq!(Lang::from_accept_language("fr-CH, fr;q=0.9"), Lang::Fr);
        assert_eq!(Lang::from_accept_language("ja, zh;q=0.8"), Lang::En);
        assert_eq!(Lang::from_accept_language(""), Lang::En);
        assert_eq!(Lang::from_accept_language(";;q=,,"), Lang::En);
        assert_eq!(Lang::from_accept_language("de;q=0, ru;q=0.2"), Lang::Ru);
    }
}
