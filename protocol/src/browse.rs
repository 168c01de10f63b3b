//! The server browser's view of the directory: the in-game browser's filters, free-text search,
//! sorting on every column, find-player, and the URL form of a view so it can be shared.
//! Pure functions over [`ServerInfo`], used by the page and tested natively.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::cod::text::strip;
use crate::relay_api::{Reachability, ServerInfo};

/// A yes/no filter that can also be off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tri {
    #[default]
    Any,
    Yes,
    No,
}

impl Tri {
    fn admits(self, value: bool) -> bool {
        match self {
            Self::Any => true,
            Self::Yes => value,
            Self::No => !value,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Any => "any",
            Self::Yes => "yes",
            Self::No => "no",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "yes" | "1" | "true" => Self::Yes,
            "no" | "0" | "false" => Self::No,
            _ => Self::Any,
        }
    }
}

/// A column to sort on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Column {
    Name,
    Map,
    Gametype,
    #[default]
    Players,
    Ping,
    Mod,
    /// Matches this relay followed on the server in the last 24 hours.
    Matches,
}

impl Column {
    pub const ALL: [Column; 7] = [
        Self::Name,
        Self::Map,
        Self::Gametype,
        Self::Players,
        Self::Ping,
        Self::Mod,
        Self::Matches,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Map => "map",
            Self::Gametype => "gametype",
            Self::Players => "players",
            Self::Ping => "ping",
            Self::Mod => "mod",
            Self::Matches => "matches",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// Everything that decides which servers a view shows, and in what order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Case-insensitive, colours ignored; matches server name, map and player names.
    pub text: String,
    pub show_empty: bool,
    pub show_full: bool,
    pub password: Tri,
    pub pure: Tri,
    pub dedicated: Tri,
    pub punkbuster: Tri,
    pub friendly_fire: Tri,
    pub killcam: Tri,
    pub jeeps: Tri,
    pub tanks: Tri,
    /// Runs a mod (`fs_game` set).
    pub modded: Tri,
    /// Empty: every gametype.
    pub gametype: String,
    /// Countries (ISO codes, upper case) to show, `NONE` for servers with none; empty: all.
    pub countries: Vec<String>,
    pub max_ping: Option<u32>,
    pub hide_unreachable: bool,
    /// Also list servers down for so long the relay calls them [`Reachability::Gone`].
    pub show_gone: bool,
    pub sort: Column,
    pub descending: bool,
}

impl Default for View {
    fn default() -> Self {
        Self {
            text: String::new(),
            show_empty: true,
            show_full: true,
            password: Tri::Any,
            pure: Tri::Any,
            dedicated: Tri::Any,
            punkbuster: Tri::Any,
            friendly_fire: Tri::Any,
            killcam: Tri::Any,
            jeeps: Tri::Any,
            tanks: Tri::Any,
            modded: Tri::Any,
            gametype: String::new(),
            countries: Vec::new(),
            max_ping: None,
            hide_unreachable: false,
            show_gone: false,
            sort: Column::Players,
            descending: true,
        }
    }
}

/// Lowercase text without colour codes, for matching. Names are mostly ASCII: those take one
/// pass and one allocation (the page builds 5,000 of these as the list arrives).
pub fn plain_lower(text: &str) -> String {
    if text.is_ascii() {
        let mut lower = strip(text);
        lower.make_ascii_lowercase();
        lower
    } else {
        strip(text).to_lowercase()
    }
}

impl View {
    /// Whether `server` passes every filter. `needle` is [`plain_lower`] of `self.text`,
    /// computed once per pass over the list; `text` is the server's [`search_text`].
    pub fn admits(&self, server: &ServerInfo, needle: &str, text: &str) -> bool {
        let empty = server.clients == 0;
        let full = server.max_clients > 0 && server.clients >= server.max_clients;
        (self.show_empty || !empty)
            && (self.show_full || !full)
            && self.password.admits(server.password)
            && self.pure.admits(server.pure)
            && self.dedicated.admits(server.dedicated.unwrap_or(true))
            && self.punkbuster.admits(server.punkbuster)
            && self.friendly_fire.admits(server.friendly_fire > 0)
            && self.killcam.admits(server.killcam)
            && self.jeeps.admits(server.jeeps)
            && self.tanks.admits(server.tanks)
            && self.modded.admits(!server.game.is_empty())
            && (self.gametype.is_empty() || server.gametype.eq_ignore_ascii_case(&self.gametype))
            && self.admits_country(server.country.as_deref())
            && self
                .max_ping
                .is_none_or(|limit| server.ping_ms.is_some_and(|p| p <= limit))
            && (!self.hide_unreachable || server.reachability == Reachability::Online)
            && (self.show_gone || server.reachability != Reachability::Gone)
            && text_matches(needle, text)
    }

    /// Whether the country filter lets a server with `country` through.
    pub fn admits_country(&self, country: Option<&str>) -> bool {
        let wanted = country.unwrap_or(NO_COUNTRY);
        self.countries.is_empty() || self.countries.iter().any(|c| c == wanted)
    }

    fn compare(
        &self,
        (a, a_text): (&ServerInfo, &str),
        (b, b_text): (&ServerInfo, &str),
    ) -> Ordering {
        let order = match self.sort {
            Column::Name => first_line(a_text).cmp(first_line(b_text)),
            Column::Map => a.map.cmp(&b.map),
            Column::Gametype => a.gametype.cmp(&b.gametype),
            Column::Players => a.clients.cmp(&b.clients),
            // Unknown pings sort after every known one either way round.
            Column::Ping => match (a.ping_ms, b.ping_ms) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => return Ordering::Less,
                (None, Some(_)) => return Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            Column::Mod => a.game.cmp(&b.game),
            Column::Matches => a.matches_today.cmp(&b.matches_today),
        };
        let order = if self.descending {
            order.reverse()
        } else {
            order
        };
        order.then_with(|| a.addr.cmp(&b.addr))
    }

    /// The servers this view shows, in its order.
    pub fn apply<'a>(
        &self,
        servers: impl IntoIterator<Item = &'a ServerInfo>,
    ) -> Vec<&'a ServerInfo> {
        let indexed: Vec<(&ServerInfo, String)> =
            servers.into_iter().map(|s| (s, search_text(s))).collect();
        self.apply_indexed(indexed.iter().map(|(s, t)| (*s, t.as_str())))
    }

    /// [`Self::apply`] over servers whose [`search_text`] the caller keeps, so a keystroke
    /// costs one substring test per server rather than re-reading every name.
    pub fn apply_indexed<'s, 't>(
        &self,
        servers: impl IntoIterator<Item = (&'s ServerInfo, &'t str)>,
    ) -> Vec<&'s ServerInfo> {
        let needle = plain_lower(&self.text);
        let mut shown: Vec<(&'s ServerInfo, &'t str)> = servers
            .into_iter()
            .filter(|(s, text)| self.admits(s, &needle, text))
            .collect();
        shown.sort_by(|a, b| self.compare(*a, *b));
        shown.into_iter().map(|(s, _)| s).collect()
    }

    /// The URL query string for this view: only what differs from the default.
    pub fn to_query(&self) -> String {
        let default = Self::default();
        let mut parts: Vec<String> = Vec::new();
        let mut push = |key: &str, value: String| {
            parts.push(alloc::format!("{key}={}", encode(&value)));
        };
        if !self.text.is_empty() {
            push("q", self.text.clone());
        }
        if !self.show_empty {
            push("empty", "0".into());
        }
        if !self.show_full {
            push("full", "0".into());
        }
        for (key, value) in self.tris() {
            if value != Tri::Any {
                push(key, value.as_str().into());
            }
        }
        if !self.gametype.is_empty() {
            push("gametype", self.gametype.clone());
        }
        if !self.countries.is_empty() {
            push("country", self.countries.join(","));
        }
        if let Some(ping) = self.max_ping {
            push("ping", ping.to_string());
        }
        if self.hide_unreachable {
            push("reachable", "1".into());
        }
        if self.show_gone {
            push("gone", "1".into());
        }
        if self.sort != default.sort || self.descending != default.descending {
            push("sort", self.sort.as_str().into());
            push("order", if self.descending { "desc" } else { "asc" }.into());
        }
        parts.join("&")
    }

    /// How many filters differ from the defaults (the search text and the sort are not
    /// filters): the count the Filters button shows.
    pub fn active_filters(&self) -> usize {
        let switches = [
            !self.show_empty,
            !self.show_full,
            self.hide_unreachable,
            self.show_gone,
            !self.gametype.is_empty(),
            !self.countries.is_empty(),
            self.max_ping.is_some(),
        ];
        let tris = self.tris().into_iter().filter(|(_, t)| *t != Tri::Any);
        switches.into_iter().filter(|on| *on).count() + tris.count()
    }

    /// The Filters button's label: "Filters", or "Filters (2)" with two set.
    pub fn filters_label(&self) -> crate::said::Said {
        match self.active_filters() {
            0 => crate::said::Said::new("filters"),
            n => crate::said::Said::new("filters-set").with("count", n),
        }
    }

    fn tris(&self) -> [(&'static str, Tri); 9] {
        [
            ("password", self.password),
            ("pure", self.pure),
            ("dedicated", self.dedicated),
            ("pb", self.punkbuster),
            ("ff", self.friendly_fire),
            ("killcam", self.killcam),
            ("jeeps", self.jeeps),
            ("tanks", self.tanks),
            ("mod", self.modded),
        ]
    }

    /// Reads a view back from a query string (with or without its `?`); unknown keys and bad
    /// values are ignored, so an old or hand-edited link still opens.
    pub fn from_query(query: &str) -> Self {
        let mut view = Self::default();
        for pair in query.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            match key {
                "q" => view.text = value,
                "empty" => view.show_empty = value != "0",
                "full" => view.show_full = value != "0",
                "password" => view.password = Tri::parse(&value),
                "pure" => view.pure = Tri::parse(&value),
                "dedicated" => view.dedicated = Tri::parse(&value),
                "pb" => view.punkbuster = Tri::parse(&value),
                "ff" => view.friendly_fire = Tri::parse(&value),
                "killcam" => view.killcam = Tri::parse(&value),
                "jeeps" => view.jeeps = Tri::parse(&value),
                "tanks" => view.tanks = Tri::parse(&value),
                "mod" => view.modded = Tri::parse(&value),
                "gametype" => view.gametype = value,
                "country" => {
                    view.countries = value
                        .split(',')
                        .map(str::to_ascii_uppercase)
                        .filter(|c| crate::geo::is_code(c) || c == NO_COUNTRY)
                        .collect();
                }
                "ping" => view.max_ping = value.parse().ok(),
                "reachable" => view.hide_unreachable = value == "1",
                "gone" => view.show_gone = value == "1",
                "sort" => view.sort = Column::parse(&value).unwrap_or(view.sort),
                "order" => view.descending = value != "asc",
                _ => {}
            }
        }
        view
    }
}

/// The country filter's name for servers without a country.
pub const NO_COUNTRY: &str = "NONE";

/// `text` made safe to place in HTML or SVG, as text or inside a quoted attribute.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether a server's [`search_text`] matches a search's [`plain_lower`] text (an empty one
/// matches every server).
pub fn text_matches(needle: &str, text: &str) -> bool {
    needle.is_empty() || text.contains(needle)
}

/// What a text search looks through, lowercase and without colour codes: the server name on
/// the first line, then the map, then each player's name on a line of its own.
pub fn search_text(server: &ServerInfo) -> String {
    let mut text = plain_lower(&server.hostname);
    text.push('\n');
    text.push_str(&server.map.to_lowercase());
    for player in &server.players {
        text.push('\n');
        text.push_str(&plain_lower(&player.name));
    }
    text
}

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or_default()
}

/// A player found on a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sighting {
    pub addr: String,
    /// The player's name with its colour codes.
    pub name: String,
}

/// Every player whose name contains `needle` (case-insensitive, colours ignored), on any server.
pub fn find_player<'a>(
    servers: impl IntoIterator<Item = &'a ServerInfo>,
    needle: &str,
) -> Vec<Sighting> {
    let needle = plain_lower(needle);
    if needle.is_empty() {
        return Vec::new();
    }
    servers
        .into_iter()
        .flat_map(|s| {
            s.players
                .iter()
                .filter(|p| plain_lower(&p.name).contains(&needle))
                .map(|p| Sighting {
                    addr: s.addr.clone(),
                    name: p.name.clone(),
                })
        })
        .collect()
}

/// Percent-encodes everything but unreserved characters.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&alloc::format!("%{b:02X}"));
        }
    }
    out
}

/// Reverses [`encode`] (and `+` for space); malformed escapes are kept as they are.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match core::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the list shows of a server, the same in the page's list and in the relay's first
/// screen and plain list (so the page takes over the relay's rows without a change).
pub mod cells {
    use alloc::format;
    use alloc::string::{String, ToString};

    use crate::relay_api::{MasterState, MasterStatus, Reachability, ServerInfo};
    use crate::said::Said;

    /// The ping cell: the latest round trip, or why there is none.
    pub fn ping(server: &ServerInfo) -> Said {
        match server.reachability {
            Reachability::Unreachable | Reachability::Gone => Said::new("ping-down"),
            Reachability::Malformed => Said::new("ping-bad-reply"),
            // What it said before the relay restarted; not asked again yet.
            Reachability::Stale => Said::new("ping-stale"),
            _ => server.ping_ms.map_or_else(
                || Said::new("not-known"),
                |p| Said::new("ping-ms").with("ms", p),
            ),
        }
    }

    pub fn players(server: &ServerInfo) -> String {
        format!("{}/{}", server.clients, server.max_clients)
    }

    /// Matches followed in the last 24 hours; none is left blank.
    pub fn matches(server: &ServerInfo) -> String {
        match server.matches_today {
            0 => String::new(),
            n => n.to_string(),
        }
    }

    /// "12 s", "3 min": how long ago a server last answered.
    pub fn age(now_ms: u64, then_ms: Option<u64>) -> Said {
        match then_ms {
            None => Said::new("not-known"),
            Some(then) => {
                let seconds = now_ms.saturating_sub(then) / 1000;
                if seconds < 90 {
                    Said::new("age-seconds").with("seconds", seconds)
                } else {
                    Said::new("age-minutes").with("minutes", seconds / 60)
                }
            }
        }
    }

    /// The CSS class of a row: how the server last answered.
    pub fn reachability_class(reachability: Reachability) -> &'static str {
        match reachability {
            Reachability::Online => "online",
            Reachability::Pending => "pending",
            Reachability::Unreachable => "unreachable",
            Reachability::Malformed => "malformed",
            Reachability::Stale => "stale",
            Reachability::Gone => "gone",
        }
    }

    /// The refresh line beside its progress bar.
    pub fn progress(p: &crate::relay_api::Progress) -> Said {
        let state = if p.total == 0 || p.finished >= p.total {
            "progress-refreshed"
        } else {
            "progress-refreshing"
        };
        Said::new(state)
            .with("answered", p.answered)
            .with("total", p.total)
    }

    pub fn summary(total: usize, answering: usize, shown: usize) -> Said {
        Said::new("list-summary")
            .with("total", total)
            .with("answering", answering)
            .with("shown", shown)
    }

    /// The masters in one line, as a phone's first screen has room for: "2 of 3 masters
    /// answering · 24 servers".
    pub fn sources(masters: &[MasterStatus], servers: usize) -> Said {
        let answering = masters
            .iter()
            .filter(|m| matches!(m.state, MasterState::Ok { .. }))
            .count();
        let masters = match masters.len() {
            0 => Said::new("masters-none"),
            1 if answering == 1 => Said::new("master-answering"),
            1 => Said::new("master-not-answering"),
            n => Said::new("masters-answering")
                .with("answering", answering)
                .with("count", n),
        };
        Said::new("sources")
            .with("masters", masters)
            .with("servers", servers)
    }

    /// A master's failure in plain words; the relay's own text stays in the details.
    pub fn plain_error(error: &str) -> Said {
        let error = error.to_ascii_lowercase();
        Said::new(
            if error.contains("resolve")
                || error.contains("lookup")
                || error.contains("ipv4 address")
            {
                "master-error-resolve"
            } else if error.contains("no reply") || error.contains("timed out") {
                "master-error-silent"
            } else if error.contains("refused") || error.contains("unreachable") {
                "master-error-unreachable"
            } else {
                "master-error-unreadable"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::said::Said;

    #[test]
    fn markup_is_escaped_for_text_and_quoted_attributes() {
        assert_eq!(
            super::escape_markup("<b a=\"x\" b='y'>Tom & Jerry</b>"),
            "&lt;b a=&quot;x&quot; b=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/b&gt;"
        );
    }

    #[test]
    fn plain_lower_drops_colours_and_case_in_ascii_and_beyond() {
        for (text, plain) in [
            ("^1Red ^7WHITE", "red white"),
            ("^^1Caret^", "^caret^"),
            ("^7\u{c9}COLE ^2\u{c4}\u{d6}", "\u{e9}cole \u{e4}\u{f6}"),
            ("", ""),
        ] {
            assert_eq!(super::plain_lower(text), plain, "{text:?}");
            assert_eq!(super::plain_lower(text), super::strip(text).to_lowercase());
        }
    }

    #[test]
    fn the_filters_button_counts_what_differs_from_the_defaults() {
        assert_eq!(View::default().filters_label(), Said::new("filters"));
        let view = View::from_query("q=abc&sort=name&order=asc");
        assert_eq!(view.active_filters(), 0, "search and sort are not filters");
        let view = View::from_query("empty=0&pb=yes&ping=80&gametype=sd&reachable=1&tanks=no");
        assert_eq!(
            view.filters_label(),
            Said::new("filters-set").with("count", 6)
        );
    }

    #[test]
    fn the_list_cells_and_the_masters_line_read_plainly() {
        use crate::relay_api::{MasterState, MasterStatus};
        assert_eq!(
            cells::age(100_000, Some(88_000)),
            Said::new("age-seconds").with("seconds", 12)
        );
        assert_eq!(
            cells::age(1_000_000, Some(0)),
            Said::new("age-minutes").with("minutes", 16)
        );
        assert_eq!(cells::age(1, None), Said::new("not-known"));
        let master = |state| MasterStatus {
            addr: "m:20610".into(),
            state,
            polled_ms: None,
            last_list: None,
            own: None,
        };
        let masters = [
            master(MasterState::Ok { servers: 20 }),
            master(MasterState::Failed {
                error: "cannot resolve: failed to lookup address information".into(),
            }),
            master(MasterState::Pending),
        ];
        let sources = |masters: Said, servers: usize| {
            Said::new("sources")
                .with("masters", masters)
                .with("servers", servers)
        };
        assert_eq!(
            cells::sources(&masters, 24),
            sources(
                Said::new("masters-answering")
                    .with("answering", 1)
                    .with("count", 3),
                24
            )
        );
        assert_eq!(
            cells::sources(&masters[..1], 20),
            sources(Said::new("master-answering"), 20)
        );
        assert_eq!(
            cells::sources(&[], 0),
            sources(Said::new("masters-none"), 0)
        );
        assert_eq!(
            cells::plain_error("cannot resolve: failed to lookup address information"),
            Said::new("master-error-resolve")
        );
        assert_eq!(
            cells::plain_error("no reply from 1.2.3.4:20610"),
            Said::new("master-error-silent")
        );
    }

    use super::*;
    use crate::relay_api::Player;
    use alloc::vec;

    fn server(addr: &str, name: &str, clients: u32, max: u32) -> ServerInfo {
        ServerInfo {
            addr: addr.into(),
            hostname: name.into(),
            map: "mp_foy".into(),
            gametype: "tdm".into(),
            game: String::new(),
            protocol: 22,
            clients,
            bots: 0,
            max_clients: max,
            password: false,
            punkbuster: false,
            pure: true,
            friendly_fire: 0,
            killcam: true,
            jeeps: false,
            tanks: false,
            dedicated: Some(true),
            ping_ms: Some(40),
            reachability: Reachability::Online,
            updated_ms: Some(1),
            matches_today: 0,
            country: None,
            sources: vec![],
            players: vec![],
            cvars: vec![],
        }
    }

    fn addrs(shown: &[&ServerInfo]) -> Vec<String> {
        shown.iter().map(|s| s.addr.clone()).collect()
    }

    #[test]
    fn in_game_filters() {
        let mut a = server("1.1.1.1:1", "^1Alpha", 0, 16);
        a.password = true;
        let mut b = server("2.2.2.2:2", "Bravo", 16, 16);
        b.tanks = true;
        b.game = "awe".into();
        let mut c = server("3.3.3.3:3", "Charlie", 5, 16);
        c.ping_ms = Some(300);
        c.gametype = "sd".into();
        let all = [a, b, c];
        let view = |f: fn(&mut View)| {
            let mut v = View::default();
            f(&mut v);
            addrs(&v.apply(&all))
        };
        assert_eq!(view(|v| v.show_empty = false), ["2.2.2.2:2", "3.3.3.3:3"]);
        assert_eq!(view(|v| v.show_full = false), ["3.3.3.3:3", "1.1.1.1:1"]);
        assert_eq!(view(|v| v.password = Tri::No), ["2.2.2.2:2", "3.3.3.3:3"]);
        assert_eq!(view(|v| v.password = Tri::Yes), ["1.1.1.1:1"]);
        assert_eq!(view(|v| v.tanks = Tri::Yes), ["2.2.2.2:2"]);
        assert_eq!(view(|v| v.modded = Tri::No), ["3.3.3.3:3", "1.1.1.1:1"]);
        assert_eq!(view(|v| v.gametype = "SD".into()), ["3.3.3.3:3"]);
        assert_eq!(view(|v| v.max_ping = Some(100)), ["2.2.2.2:2", "1.1.1.1:1"]);
    }

    #[test]
    fn servers_gone_for_long_are_out_of_the_default_view_and_a_filter_brings_them_back() {
        let mut down = server("1.1.1.1:1", "Down an hour", 0, 16);
        down.reachability = Reachability::Unreachable;
        let mut gone = server("2.2.2.2:2", "Down for days", 3, 16);
        gone.reachability = Reachability::Gone;
        let up = server("3.3.3.3:3", "Up", 1, 16);
        let all = [down, gone, up];
        assert_eq!(
            addrs(&View::default().apply(&all)),
            ["3.3.3.3:3", "1.1.1.1:1"]
        );
        let shown = View::from_query("gone=1");
        assert_eq!(shown.to_query(), "gone=1");
        assert_eq!(
            shown.filters_label(),
            Said::new("filters-set").with("count", 1)
        );
        assert_eq!(
            addrs(&shown.apply(&all)),
            ["2.2.2.2:2", "3.3.3.3:3", "1.1.1.1:1"]
        );
        assert_eq!(cells::ping(&all[1]), Said::new("ping-down"));
        assert_eq!(cells::reachability_class(Reachability::Gone), "gone");
    }

    #[test]
    fn text_search_ignores_case_and_colours_and_sees_players() {
        let mut a = server("1.1.1.1:1", "^1Al^7pha", 1, 16);
        a.players.push(Player {
            name: "^2Sniper ^7Joe".into(),
            score: 1,
            ping: 50,
            bot: false,
        });
        let b = server("2.2.2.2:2", "Bravo", 1, 16);
        let all = [a, b];
        let search = |text: &str| {
            let v = View {
                text: text.into(),
                ..View::default()
            };
            addrs(&v.apply(&all))
        };
        assert_eq!(search("ALPHA"), ["1.1.1.1:1"]);
        assert_eq!(search("sniper joe"), ["1.1.1.1:1"]);
        assert_eq!(search("foy").len(), 2);
        assert!(search("zulu").is_empty());
        let found = find_player(&all, "JOE");
        assert_eq!(
            found,
            vec![Sighting {
                addr: "1.1.1.1:1".into(),
                name: "^2Sniper ^7Joe".into()
            }]
        );
        assert!(find_player(&all, "").is_empty());
    }

    #[test]
    fn every_column_sorts_both_ways() {
        let mut a = server("1.1.1.1:1", "Bravo", 3, 16);
        a.ping_ms = None;
        let mut b = server("2.2.2.2:2", "^3alpha", 9, 16);
        b.ping_ms = Some(90);
        b.map = "mp_kursk".into();
        let mut c = server("3.3.3.3:3", "Charlie", 1, 16);
        c.matches_today = 12;
        b.matches_today = 3;
        let all = [a, b, c];
        let sorted = |sort: Column, descending: bool| {
            let v = View {
                sort,
                descending,
                ..View::default()
            };
            addrs(&v.apply(&all))
        };
        assert_eq!(
            sorted(Column::Players, true),
            ["2.2.2.2:2", "1.1.1.1:1", "3.3.3.3:3"]
        );
        assert_eq!(
            sorted(Column::Name, false),
            ["2.2.2.2:2", "1.1.1.1:1", "3.3.3.3:3"]
        );
        assert_eq!(
            sorted(Column::Ping, false),
            ["3.3.3.3:3", "2.2.2.2:2", "1.1.1.1:1"]
        );
        assert_eq!(
            sorted(Column::Ping, true),
            ["2.2.2.2:2", "3.3.3.3:3", "1.1.1.1:1"]
        );
        assert_eq!(sorted(Column::Map, true)[0], "2.2.2.2:2");
        assert_eq!(
            sorted(Column::Matches, true),
            ["3.3.3.3:3", "2.2.2.2:2", "1.1.1.1:1"]
        );
        assert_eq!(cells::matches(&all[0]), "");
        assert_eq!(cells::matches(&all[2]), "12");
        for column in Column::ALL {
            assert_eq!(sorted(column, false).len(), 3);
        }
    }

    #[test]
    fn views_round_trip_through_the_url() {
        let view = View {
            text: "sniper & joe".into(),
            show_empty: false,
            password: Tri::No,
            tanks: Tri::Yes,
            gametype: "sd".into(),
            countries: vec!["DE".into(), NO_COUNTRY.into()],
            max_ping: Some(120),
            hide_unreachable: true,
            sort: Column::Ping,
            descending: false,
            ..View::default()
        };
        let query = view.to_query();
        assert_eq!(
            query,
            "q=sniper%20%26%20joe&empty=0&password=no&tanks=yes&gametype=sd&country=DE%2CNONE&ping=120&reachable=1&sort=ping&order=asc"
        );
        assert_eq!(View::from_query(&query), view);
        assert_eq!(View::from_query(&alloc::format!("?{query}")), view);
        assert_eq!(View::default().to_query(), "");
        assert_eq!(
            View::from_query("bogus=1&ping=x&sort=nope&q=%zz"),
            View {
                text: "%zz".into(),
                ..View::default()
            }
        );
    }

    #[test]
    fn the_country_filter_shows_the_countries_named_and_none_for_servers_without() {
        let mut de = server("1.2.3.4:28960", "a", 1, 8);
        de.country = Some("DE".into());
        let mut fr = server("5.6.7.8:28960", "b", 1, 8);
        fr.country = Some("FR".into());
        let lan = server("192.168.1.2:28960", "c", 1, 8);
        let all = [de, fr, lan];
        let shown = |query: &str| -> Vec<String> {
            let view = View::from_query(query);
            let mut addrs: Vec<String> = view.apply(&all).iter().map(|s| s.addr.clone()).collect();
            addrs.sort();
            addrs
        };
        assert_eq!(shown("").len(), 3);
        assert_eq!(shown("country=de"), ["1.2.3.4:28960"]);
        assert_eq!(
            shown("country=DE,none"),
            ["1.2.3.4:28960", "192.168.1.2:28960"]
        );
        assert_eq!(shown("country=XX1,FR"), ["5.6.7.8:28960"]);
        assert_eq!(
            View::from_query("country=fr").filters_label(),
            Said::new("filters-set").with("count", 1)
        );
    }

    proptest::proptest! {
        #[test]
        fn any_query_string_opens(query in "\\PC{0,80}") {
            let _ = View::from_query(&query);
        }

        #[test]
        fn any_text_round_trips(text in "\\PC{0,40}") {
            let view = View { text, ..View::default() };
            proptest::prop_assert_eq!(View::from_query(&view.to_query()), view);
        }
    }
}
