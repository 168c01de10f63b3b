//! A server's banner as SVG: its name in its own colours, map, mode, players, country and
//! status, at GameTracker's two sizes. Text is laid out by character count (the font is a
//! condensed one, so a glyph is at most ~0.62 em wide): the same input gives the same bytes.

use i18n::Catalogue;

use super::contrast::{muted, readable};
use protocol::browse::escape_markup;
use protocol::cod::text::spans;
use protocol::relay_api::{Reachability, ServerInfo};

/// The two sizes forums and signatures use (GameTracker's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// 560x95: name, map and mode, players, address, country and status.
    Wide,
    /// 350x20: one line, for a signature.
    Small,
}

impl Size {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "560x95" => Some(Self::Wide),
            "350x20" => Some(Self::Small),
            _ => None,
        }
    }

    pub fn pixels(self) -> (u32, u32) {
        match self {
            Self::Wide => (560, 95),
            Self::Small => (350, 20),
        }
    }
}

/// A banner's colours: background, plain text and accent (`#rrggbb`), the owner's or ours.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Colours {
    pub background: String,
    pub text: String,
    pub accent: String,
}

impl Default for Colours {
    fn default() -> Self {
        Self {
            background: "#1d2327".into(),
            text: "#e8e8e8".into(),
            accent: "#7fb2ff".into(),
        }
    }
}

/// Whether `colour` is `#rrggbb`: only such go into a banner.
pub fn is_colour(colour: &str) -> bool {
    super::contrast::channels(colour).is_some()
}

/// The game's `^0`..`^7` as the page draws them (style.css `.c0`..`.c7`); `None` for the
/// default colour, which takes the banner's text colour. Drawn [`readable`] on the banner's
/// background.
pub(crate) fn game_colour(code: u8) -> Option<&'static str> {
    match code {
        0 => Some("#8c8c8c"),
        1 => Some("#ff5c5c"),
        2 => Some("#5cd65c"),
        3 => Some("#ffe14d"),
        4 => Some("#6f8cff"),
        5 => Some("#4de1ff"),
        6 => Some("#ff66ff"),
        _ => None,
    }
}

/// `text` cut to `max` characters, with an ellipsis if it was longer.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The name's `tspan`s in its colours, each readable on `background`, at most `max`
/// characters in all.
fn coloured_name(hostname: &str, max: usize, background: &str) -> String {
    let mut out = String::new();
    let mut left = max;
    let plain: usize = spans(hostname).iter().map(|s| s.text.chars().count()).sum();
    for span in spans(hostname) {
        if left == 0 {
            break;
        }
        let count = span.text.chars().count();
        let text = if plain > max && count >= left {
            cut(&span.text, left)
        } else {
            span.text.chars().take(left).collect()
        };
        left = left.saturating_sub(count);
        match game_colour(span.colour) {
            Some(fill) => out.push_str(&format!(
                "<tspan fill=\"{}\">{}</tspan>",
                readable(fill, background),
                escape_markup(&text)
            )),
            None => out.push_str(&format!("<tspan>{}</tspan>", escape_markup(&text))),
        }
    }
    if out.is_empty() {
        out.push_str("<tspan>(no name)</tspan>");
    }
    out
}

/// What the banner says of the server's state.
/// The server's state (a catalogue id) and its colour.
fn status(server: &ServerInfo) -> (&'static str, &'static str) {
    match server.reachability {
        Reachability::Online => ("banner-online", "#5cd65c"),
        Reachability::Pending => ("banner-asking", "#ffe14d"),
        Reachability::Stale => ("ping-stale", "#ffe14d"),
        Reachability::Malformed => ("ping-bad-reply", "#ff5c5c"),
        Reachability::Unreachable | Reachability::Gone => ("ping-down", "#ff5c5c"),
    }
}

fn mode(server: &ServerInfo) -> String {
    if server.gametype.is_empty() {
        "—".into()
    } else {
        server.gametype.clone()
    }
}

/// The banner of `server` at `size` in `colours`, its words in `words`' language. Every word is
/// drawn readable on the background (see [`super::contrast`]), the owner's colours included.
pub fn banner(server: &ServerInfo, size: Size, colours: &Colours, words: &Catalogue) -> String {
    let (w, h) = size.pixels();
    let players = format!("{}/{}", server.clients, server.max_clients);
    let (state, state_fill) = status(server);
    let state = escape_markup(&words.text(state));
    let players_word = escape_markup(&words.text("banner-players"));
    // A LAN server's banner says so rather than leave the country blank.
    let country = match (&server.country, protocol::geo::not_placed(&server.addr)) {
        (Some(code), _) => code.as_str(),
        (None, Some(_)) => "LAN",
        (None, None) => "--",
    };
    let bg = &colours.background;
    let (fg, accent) = (readable(&colours.text, bg), readable(&colours.accent, bg));
    // The address line and the signature are quieter than the name, never unreadable.
    let (quiet, quieter) = (muted(&colours.text, bg, 0.2), muted(&colours.text, bg, 0.3));
    let state_fill = readable(state_fill, bg);
    let body = match size {
        Size::Wide => format!(
            "<rect x=\"0.5\" y=\"0.5\" width=\"{bw}\" height=\"{bh}\" rx=\"4\" fill=\"{bg}\" stroke=\"{accent}\"/>\
<text x=\"12\" y=\"30\" font-size=\"20\" fill=\"{fg}\">{name}</text>\
<text x=\"12\" y=\"56\" font-size=\"15\" fill=\"{fg}\">{map} · {mode}</text>\
<text x=\"12\" y=\"82\" font-size=\"13\" fill=\"{quiet}\">{addr} · {country} · <tspan fill=\"{state_fill}\">{state}</tspan></text>\
<text x=\"548\" y=\"64\" font-size=\"30\" fill=\"{accent}\" text-anchor=\"end\">{players}</text>\
<text x=\"548\" y=\"82\" font-size=\"11\" fill=\"{quieter}\" text-anchor=\"end\">{players_word} · Muster</text>",
            bw = w - 1,
            bh = h - 1,
            name = coloured_name(&server.hostname, 40, bg),
            map = escape_markup(&cut(&server.map, 28)),
            mode = escape_markup(&cut(&mode(server), 12)),
            addr = escape_markup(&server.addr),
        ),
        Size::Small => format!(
            "<rect width=\"{w}\" height=\"{h}\" fill=\"{bg}\"/>\
<rect x=\"3\" y=\"6\" width=\"8\" height=\"8\" rx=\"4\" fill=\"{state_fill}\"/>\
<text x=\"16\" y=\"14.5\" font-size=\"12\" fill=\"{fg}\">{name}</text>\
<text x=\"{right}\" y=\"14.5\" font-size=\"12\" fill=\"{accent}\" text-anchor=\"end\">{players} · {map}</text>",
            name = coloured_name(&server.hostname, 30, bg),
            right = w - 4,
            map = escape_markup(&cut(&server.map, 14)),
        ),
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
font-family=\"DejaVu Sans Condensed, DejaVu Sans, Arial Narrow, sans-serif\" font-weight=\"bold\">{body}</svg>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ServerInfo {
        let mut s = relay_server("1.2.3.4:28960");
        s.hostname = "^1Red ^7<Clan> & ^2Friends".into();
        s.map = "mp_carentan".into();
        s.gametype = "sd".into();
        s.clients = 12;
        s.max_clients = 24;
        s.country = Some("DE".into());
        s.reachability = Reachability::Online;
        s
    }

    fn relay_server(addr: &str) -> ServerInfo {
        crate::browse::pending_server(addr.parse().unwrap(), Vec::new())
    }

    #[test]
    fn a_banner_draws_the_name_in_its_colours_escaped_and_the_facts() {
        let english = i18n::catalogue(i18n::Lang::En);
        let svg = banner(&server(), Size::Wide, &Colours::default(), english);
        assert!(svg
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"560\" height=\"95\""));
        assert!(svg.contains("<tspan fill=\"#ff5c5c\">Red </tspan><tspan>&lt;Clan&gt; &amp; </tspan><tspan fill=\"#5cd65c\">Friends</tspan>"), "{svg}");
        assert!(svg.contains("mp_carentan · sd"));
        assert!(svg.contains(">12/24<"));
        assert!(svg.contains("1.2.3.4:28960 · DE · <tspan fill=\"#5cd65c\">online</tspan>"));
        let small = banner(&server(), Size::Small, &Colours::default(), english);
        // In the reader's language.
        let german = banner(
            &server(),
            Size::Wide,
            &Colours::default(),
            i18n::catalogue(i18n::Lang::De),
        );
        assert!(german.contains(">Spieler · Muster<"), "{german}");
        assert!(small.contains("width=\"350\" height=\"20\""));
        assert!(small.contains("12/24 · mp_carentan"));
    }

    #[test]
    fn a_long_name_is_cut_with_an_ellipsis_and_colours_are_checked() {
        let mut s = server();
        s.hostname = format!("^3{}", "x".repeat(100));
        let svg = banner(
            &s,
            Size::Wide,
            &Colours::default(),
            i18n::catalogue(i18n::Lang::En),
        );
        assert!(
            svg.contains(&format!("{}…</tspan>", "x".repeat(39))),
            "{svg}"
        );
        assert!(is_colour("#A0b1c2"));
        assert!(!is_colour("red"));
        assert!(!is_colour("#12345\""));
        assert_eq!(Size::parse("560x95"), Some(Size::Wide));
        assert_eq!(Size::parse("1x1"), None);
    }

    use crate::banners::contrast::{ratio, AA};

    /// Every `fill` of a `text` or `tspan` in `svg` (a `tspan` without one takes its text's).
    fn text_fills(svg: &str) -> Vec<String> {
        svg.split('<')
            .filter(|tag| tag.starts_with("text ") || tag.starts_with("tspan "))
            .filter_map(|tag| {
                let at = tag.find("fill=\"")? + 6;
                Some(tag[at..at + 7].to_owned())
            })
            .collect()
    }

    #[test]
    fn every_word_of_a_banner_reads_at_aa_on_any_background_an_owner_chooses() {
        let mut s = server();
        s.hostname = "^0Grey^1Red^2Green^3Yellow^4Blue^5Cyan^6Pink^7White".into();
        let english = i18n::catalogue(i18n::Lang::En);
        let owners = [
            Colours::default(),
            // White, as many forum themes are: the game's yellow and cyan vanish on it.
            Colours {
                background: "#ffffff".into(),
                text: "#333333".into(),
                accent: "#ffe14d".into(),
            },
            // A mid grey that neither black nor white text sets off by much.
            Colours {
                background: "#777777".into(),
                text: "#8c8c8c".into(),
                accent: "#6f8cff".into(),
            },
            Colours {
                background: "#ff5c5c".into(),
                text: "#ff0000".into(),
                accent: "#ff66ff".into(),
            },
        ];
        for colours in owners {
            for (size, texts) in [(Size::Wide, 13), (Size::Small, 9)] {
                let svg = banner(&s, size, &colours, english);
                let fills = text_fills(&svg);
                assert_eq!(fills.len(), texts, "{svg}");
                for fill in fills {
                    let read = ratio(&fill, &colours.background).unwrap();
                    assert!(
                        read >= AA,
                        "{fill} on {} at {read:.2}:1 in {svg}",
                        colours.background
                    );
                }
            }
        }
    }
}
