//! The page feed, defined once for the relay and the page: a compact summary of every server
//! first (only what the list shows), the players index next (names, for search, Find player and
//! the watch list), then one message per tick with what changed; a server's players and cvars
//! come only to the page that opens it.
//!
//! The binary form is postcard. A keyframe and the players index are laid out column by column
//! (`columns`) and deflated: the relay builds them about once a second for every page that
//! joins, so compressing costs it once, and at 5,000 servers the list is about 57 KB instead of
//! 440 KB. Updates are small and go as they are.

use alloc::string::String;
use alloc::vec::Vec;

use super::{MasterState, MasterStatus, Player, Progress, Reachability, ServerInfo, WulframServer};

/// Flag bits of a [`Summary`].
pub const PASSWORD: u16 = 1;
pub const PUNKBUSTER: u16 = 1 << 1;
pub const PURE: u16 = 1 << 2;
pub const KILLCAM: u16 = 1 << 3;
pub const JEEPS: u16 = 1 << 4;
pub const TANKS: u16 = 1 << 5;
/// The server publishes `dedicated`; [`DEDICATED`] says its value.
pub const DEDICATED_KNOWN: u16 = 1 << 6;
pub const DEDICATED: u16 = 1 << 7;
/// The largest keyframe a page inflates.
pub const MAX_KEYFRAME: usize = 64 << 20;

/// One server as the list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Summary {
    /// The server's id in this feed: later messages name it by this.
    pub id: u32,
    pub addr: String,
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    pub game: String,
    pub protocol: u32,
    pub clients: u32,
    pub bots: u32,
    pub max_clients: u32,
    pub flags: u16,
    pub friendly_fire: u32,
    pub ping_ms: Option<u32>,
    pub reachability: Reachability,
    /// Unix time of the latest answer, in ms.
    pub updated_ms: Option<u64>,
    pub matches_today: u32,
    /// [`ServerInfo::country`], empty for none.
    pub country: String,
}

impl Summary {
    pub fn of(id: u32, s: &ServerInfo) -> Self {
        let flag = |on: bool, bit: u16| if on { bit } else { 0 };
        Self {
            id,
            addr: s.addr.clone(),
            hostname: s.hostname.clone(),
            map: s.map.clone(),
            gametype: s.gametype.clone(),
            game: s.game.clone(),
            protocol: s.protocol,
            clients: s.clients,
            bots: s.bots,
            max_clients: s.max_clients,
            flags: flag(s.password, PASSWORD)
                | flag(s.punkbuster, PUNKBUSTER)
                | flag(s.pure, PURE)
                | flag(s.killcam, KILLCAM)
                | flag(s.jeeps, JEEPS)
                | flag(s.tanks, TANKS)
                | flag(s.dedicated.is_some(), DEDICATED_KNOWN)
                | flag(s.dedicated == Some(true), DEDICATED),
            friendly_fire: s.friendly_fire,
            ping_ms: s.ping_ms,
            reachability: s.reachability,
            updated_ms: s.updated_ms,
            matches_today: s.matches_today,
            country: s.country.clone().unwrap_or_default(),
        }
    }

    /// The server as the page's browse model takes it: the summary, the players index's names,
    /// and no cvars (they come with the detail).
    pub fn to_server(&self, players: &[IndexedPlayer]) -> ServerInfo {
        let has = |bit: u16| self.flags & bit != 0;
        ServerInfo {
            addr: self.addr.clone(),
            hostname: self.hostname.clone(),
            map: self.map.clone(),
            gametype: self.gametype.clone(),
            game: self.game.clone(),
            protocol: self.protocol,
            clients: self.clients,
            bots: self.bots,
            max_clients: self.max_clients,
            password: has(PASSWORD),
            punkbuster: has(PUNKBUSTER),
            pure: has(PURE),
            friendly_fire: self.friendly_fire,
            killcam: has(KILLCAM),
            jeeps: has(JEEPS),
            tanks: has(TANKS),
            dedicated: has(DEDICATED_KNOWN).then(|| has(DEDICATED)),
            ping_ms: self.ping_ms,
            reachability: self.reachability,
            updated_ms: self.updated_ms,
            matches_today: self.matches_today,
            country: (!self.country.is_empty()).then(|| self.country.clone()),
            sources: Vec::new(),
            players: players
                .iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    score: 0,
                    ping: if p.bot { 0 } else { -1 },
                    bot: p.bot,
                })
                .collect(),
            cvars: Vec::new(),
        }
    }
}

/// One changed field of a [`Summary`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Field {
    Hostname(String),
    Map(String),
    Gametype(String),
    Game(String),
    Protocol(u32),
    Clients(u32),
    Bots(u32),
    MaxClients(u32),
    Flags(u16),
    FriendlyFire(u32),
    Ping(Option<u32>),
    Reachability(Reachability),
    Seen(Option<u64>),
    MatchesToday(u32),
    Country(String),
}

/// A ping that moved less than this (and less than a tenth) is not news.
pub const PING_STEP_MS: u32 = 5;

fn ping_moved(old: Option<u32>, new: Option<u32>) -> bool {
    match (old, new) {
        (Some(a), Some(b)) => {
            let d = a.abs_diff(b);
            d >= PING_STEP_MS && d * 10 >= a.max(1)
        }
        (a, b) => a != b,
    }
}

impl Summary {
    /// The fields that changed from `self` to `new`: what viewers of `self` need.
    pub fn diff(&self, new: &Summary) -> Vec<Field> {
        let mut fields = Vec::new();
        let mut text = |a: &String, b: &String, f: fn(String) -> Field| {
            if a != b {
                fields.push(f(b.clone()));
            }
        };
        text(&self.hostname, &new.hostname, Field::Hostname);
        text(&self.map, &new.map, Field::Map);
        text(&self.gametype, &new.gametype, Field::Gametype);
        text(&self.game, &new.game, Field::Game);
        text(&self.country, &new.country, Field::Country);
        let mut number = |a: u32, b: u32, f: fn(u32) -> Field| {
            if a != b {
                fields.push(f(b));
            }
        };
        number(self.protocol, new.protocol, Field::Protocol);
        number(self.clients, new.clients, Field::Clients);
        number(self.bots, new.bots, Field::Bots);
        number(self.max_clients, new.max_clients, Field::MaxClients);
        number(self.friendly_fire, new.friendly_fire, Field::FriendlyFire);
        number(self.matches_today, new.matches_today, Field::MatchesToday);
        if self.flags != new.flags {
            fields.push(Field::Flags(new.flags));
        }
        if ping_moved(self.ping_ms, new.ping_ms) {
            fields.push(Field::Ping(new.ping_ms));
        }
        if self.reachability != new.reachability {
            fields.push(Field::Reachability(new.reachability));
        }
        if self.updated_ms != new.updated_ms {
            fields.push(Field::Seen(new.updated_ms));
        }
        fields
    }

    pub fn apply(&mut self, fields: &[Field]) {
        for field in fields {
            match field.clone() {
                Field::Hostname(v) => self.hostname = v,
                Field::Map(v) => self.map = v,
                Field::Gametype(v) => self.gametype = v,
                Field::Game(v) => self.game = v,
                Field::Protocol(v) => self.protocol = v,
                Field::Clients(v) => self.clients = v,
                Field::Bots(v) => self.bots = v,
                Field::MaxClients(v) => self.max_clients = v,
                Field::Flags(v) => self.flags = v,
                Field::FriendlyFire(v) => self.friendly_fire = v,
                Field::Ping(v) => self.ping_ms = v,
                Field::Reachability(v) => self.reachability = v,
                Field::Seen(v) => self.updated_ms = v,
                Field::MatchesToday(v) => self.matches_today = v,
                Field::Country(v) => self.country = v,
            }
        }
    }
}

/// What changed in one known server's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Change {
    pub id: u32,
    pub fields: Vec<Field>,
}

/// What changed in one server's players: positions (in the list the page holds) to remove,
/// highest first, then names to add at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayersChange {
    pub id: u32,
    pub removed: Vec<u16>,
    pub added: Vec<IndexedPlayer>,
}

impl PlayersChange {
    /// From the list `old` pages hold to `new` (order within the list does not matter).
    pub fn between(id: u32, old: &[IndexedPlayer], new: &[IndexedPlayer]) -> Self {
        let mut unmatched: Vec<&IndexedPlayer> = new.iter().collect();
        let mut removed = Vec::new();
        for (i, p) in old.iter().enumerate() {
            match unmatched.iter().position(|n| *n == p) {
                Some(at) => {
                    unmatched.remove(at);
                }
                None => removed.push(i as u16),
            }
        }
        removed.reverse();
        Self {
            id,
            removed,
            added: unmatched.into_iter().cloned().collect(),
        }
    }

    pub fn apply(&self, players: &mut Vec<IndexedPlayer>) {
        for &i in &self.removed {
            if usize::from(i) < players.len() {
                players.remove(usize::from(i));
            }
        }
        players.extend(self.added.iter().cloned());
    }
}

/// A player as the index has it: enough to find them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IndexedPlayer {
    pub name: String,
    pub bot: bool,
}

/// One server's players in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ServerPlayers {
    /// The [`Summary::id`].
    pub id: u32,
    pub players: Vec<IndexedPlayer>,
}

impl ServerPlayers {
    pub fn of(id: u32, s: &ServerInfo) -> Self {
        Self {
            id,
            players: s
                .players
                .iter()
                .map(|p| IndexedPlayer {
                    name: p.name.clone(),
                    bot: p.bot,
                })
                .collect(),
        }
    }
}

/// A master's state as the feed carries it (the JSON API's flattened, tagged form is not one a
/// binary format can read).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FeedMaster {
    pub addr: String,
    /// `None` while pending, then the servers listed or the error.
    pub outcome: Option<Result<u32, String>>,
    pub polled_ms: Option<u64>,
    pub own: Option<super::OwnMaster>,
    pub last_list: Option<u32>,
}

impl From<&MasterStatus> for FeedMaster {
    fn from(m: &MasterStatus) -> Self {
        Self {
            addr: m.addr.clone(),
            outcome: match &m.state {
                MasterState::Pending => None,
                MasterState::Ok { servers } => Some(Ok(*servers)),
                MasterState::Failed { error } => Some(Err(error.clone())),
            },
            polled_ms: m.polled_ms,
            own: m.own,
            last_list: m.last_list,
        }
    }
}

impl From<&FeedMaster> for MasterStatus {
    fn from(m: &FeedMaster) -> Self {
        Self {
            addr: m.addr.clone(),
            state: match &m.outcome {
                None => MasterState::Pending,
                Some(Ok(servers)) => MasterState::Ok { servers: *servers },
                Some(Err(error)) => MasterState::Failed {
                    error: error.clone(),
                },
            },
            polled_ms: m.polled_ms,
            own: m.own,
            last_list: m.last_list,
        }
    }
}

/// The masters as the feed carries them.
pub fn feed_masters(masters: &[MasterStatus]) -> Vec<FeedMaster> {
    masters.iter().map(FeedMaster::from).collect()
}

/// The masters as the page shows them.
pub fn page_masters(masters: &[FeedMaster]) -> Vec<MasterStatus> {
    masters.iter().map(MasterStatus::from).collect()
}

/// A message from the relay to a page.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FeedMessage {
    /// The list: sent first, and again to a page that fell behind. Ticks up to `seq` are in it.
    Keyframe {
        seq: u64,
        #[cfg_attr(feature = "serde", serde(with = "super::columns::summaries"))]
        servers: Vec<Summary>,
        masters: Vec<FeedMaster>,
        progress: Progress,
        wulfram: Vec<WulframServer>,
    },
    /// Every server's players, right after a keyframe.
    Players {
        seq: u64,
        #[cfg_attr(feature = "serde", serde(with = "super::columns::players"))]
        servers: Vec<ServerPlayers>,
    },
    /// What changed in one tick.
    Changes {
        seq: u64,
        /// Servers new to the list, whole.
        added: Vec<Summary>,
        /// What changed in the others.
        changed: Vec<Change>,
        players: Vec<PlayersChange>,
        masters: Option<Vec<FeedMaster>>,
        progress: Option<Progress>,
        wulfram: Option<Vec<WulframServer>>,
    },
    /// The whole record of the server this page shows in detail, now and on each change.
    Detail { server: ServerInfo },
}

/// The list as a page holds it, built from the feed's list messages (keyframe, players index,
/// changes); the page and the relay's tests share it.
#[derive(Clone, Debug, Default)]
pub struct FeedList {
    /// The latest tick applied.
    pub seq: u64,
    pub summaries: alloc::collections::BTreeMap<u32, Summary>,
    pub players: alloc::collections::BTreeMap<u32, Vec<IndexedPlayer>>,
}

/// Which servers a message touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Touched {
    /// The whole list was replaced.
    All,
    Some(Vec<u32>),
}

impl FeedList {
    /// Takes a keyframe's list as it is, without a copy (the page's 5,000 summaries).
    pub fn replace(&mut self, seq: u64, servers: Vec<Summary>) {
        self.seq = seq;
        self.summaries = servers.into_iter().map(|s| (s.id, s)).collect();
        let summaries = &self.summaries;
        self.players.retain(|id, _| summaries.contains_key(id));
    }

    /// Applies a list message. `None`: a tick already applied, or a message that is not about
    /// the list (the masters, progress and Wulfram servers a `Changes` carries are the caller's).
    pub fn apply(&mut self, message: &FeedMessage) -> Option<Touched> {
        match message {
            FeedMessage::Keyframe { seq, servers, .. } => {
                self.replace(*seq, servers.clone());
                Some(Touched::All)
            }
            FeedMessage::Players { servers, .. } => {
                self.players = servers.iter().map(|s| (s.id, s.players.clone())).collect();
                Some(Touched::Some(servers.iter().map(|s| s.id).collect()))
            }
            FeedMessage::Changes {
                seq,
                added,
                changed,
                players,
                ..
            } => {
                if *seq <= self.seq {
                    return None;
                }
                self.seq = *seq;
                let mut touched: Vec<u32> = added.iter().map(|s| s.id).collect();
                for s in added {
                    self.summaries.insert(s.id, s.clone());
                }
                for c in changed {
                    if let Some(s) = self.summaries.get_mut(&c.id) {
                        s.apply(&c.fields);
                        touched.push(c.id);
                    }
                }
                for p in players {
                    p.apply(self.players.entry(p.id).or_default());
                    touched.push(p.id);
                }
                Some(Touched::Some(touched))
            }
            FeedMessage::Detail { .. } => None,
        }
    }

    /// The browse model's record of one server: its summary and its players' names.
    pub fn server(&self, id: u32) -> Option<ServerInfo> {
        let players = self.players.get(&id).map_or(&[][..], Vec::as_slice);
        Some(self.summaries.get(&id)?.to_server(players))
    }

    /// Every server's record.
    pub fn servers(&self) -> impl Iterator<Item = ServerInfo> + '_ {
        self.summaries.keys().filter_map(|&id| self.server(id))
    }
}

/// Why a feed message did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeedDecodeError;

impl core::fmt::Display for FeedDecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("not a feed message")
    }
}

impl core::error::Error for FeedDecodeError {}

/// The first byte of an encoded message: whether the postcard that follows is deflated.
#[cfg(feature = "serde")]
const PLAIN: u8 = 0;
#[cfg(feature = "serde")]
const DEFLATED: u8 = 1;

#[cfg(feature = "serde")]
impl FeedMessage {
    /// The binary form: a keyframe deflated, anything else plain.
    pub fn encode(&self) -> Vec<u8> {
        let body = postcard::to_allocvec(self).unwrap_or_default();
        let mut out = Vec::with_capacity(body.len() / 4 + 1);
        if matches!(self, Self::Keyframe { .. } | Self::Players { .. }) {
            out.push(DEFLATED);
            out.extend(miniz_oxide::deflate::compress_to_vec(&body, 6));
        } else {
            out.push(PLAIN);
            out.extend(body);
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, FeedDecodeError> {
        match Body::of(bytes)? {
            Body::Plain(body) => Self::from_postcard(body),
            Body::Deflated(packed) => {
                let body = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, MAX_KEYFRAME)
                    .map_err(|_| FeedDecodeError)?;
                Self::from_postcard(&body)
            }
        }
    }

    /// A message from its postcard, once inflated if it was ([`Body`]).
    pub fn from_postcard(body: &[u8]) -> Result<Self, FeedDecodeError> {
        postcard::from_bytes(body).map_err(|_| FeedDecodeError)
    }
}

/// An encoded message's postcard, as it came: a page inflates a deflated one (raw DEFLATE,
/// RFC 1951) with the browser's own `DecompressionStream`, which is faster than wasm and costs
/// its download nothing.
#[cfg(feature = "serde")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    Plain(&'a [u8]),
    Deflated(&'a [u8]),
}

#[cfg(feature = "serde")]
impl<'a> Body<'a> {
    pub fn of(bytes: &'a [u8]) -> Result<Self, FeedDecodeError> {
        match bytes.split_first() {
            Some((&PLAIN, body)) => Ok(Self::Plain(body)),
            Some((&DEFLATED, packed)) => Ok(Self::Deflated(packed)),
            _ => Err(FeedDecodeError),
        }
    }
}

/// The most bytes of an encoded message one WebSocket message carries: a longer one (a
/// keyframe, a players index, a tick where a whole fleet answered) goes out in parts. A
/// WebSocket library keeps a write buffer per socket as large as the largest message it sent,
/// so at a thousand pages a 70 KB keyframe in one piece costs the relay 70 MB it never gets
/// back; in parts it costs 16 MB.
pub const PART_BYTES: usize = 16 * 1024;
/// The first byte of a part: the first of a message, one in the middle, the last.
const FIRST: u8 = 2;
const MORE: u8 = 3;
const LAST: u8 = 4;

/// An encoded message (from [`FeedMessage::encode`], whose first byte is never a part's) as the
/// WebSocket messages that carry it: itself if short, else parts of at most [`PART_BYTES`] each
/// behind a byte that says which.
pub fn parts(encoded: Vec<u8>) -> Vec<Vec<u8>> {
    if encoded.len() <= PART_BYTES {
        return alloc::vec![encoded];
    }
    let count = encoded.len().div_ceil(PART_BYTES);
    encoded
        .chunks(PART_BYTES)
        .enumerate()
        .map(|(i, chunk)| {
            let mut part = Vec::with_capacity(chunk.len() + 1);
            part.push(match i {
                0 => FIRST,
                i if i + 1 == count => LAST,
                _ => MORE,
            });
            part.extend_from_slice(chunk);
            part
        })
        .collect()
}

/// Joins parts back into messages, on the page and in the relay's tests.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    /// The parts of an unfinished message, joined; `None` between messages.
    pending: Option<Vec<u8>>,
}

impl Parts {
    /// One WebSocket message in; a whole encoded message out once its last part is in. A part
    /// out of order (a middle or last with no first) or a message past [`MAX_KEYFRAME`] is an
    /// error, and what was pending is dropped: the relay's next keyframe starts afresh.
    pub fn push(&mut self, bytes: &[u8]) -> Option<Result<Vec<u8>, FeedDecodeError>> {
        let (&tag, rest) = bytes.split_first()?;
        match tag {
            FIRST => {
                self.pending = Some(rest.to_vec());
                None
            }
            MORE | LAST => {
                let Some(pending) = self.pending.as_mut() else {
                    return Some(Err(FeedDecodeError));
                };
                if pending.len() + rest.len() > MAX_KEYFRAME {
                    self.pending = None;
                    return Some(Err(FeedDecodeError));
                }
                pending.extend_from_slice(rest);
                match tag {
                    LAST => self.pending.take().map(Ok),
                    _ => None,
                }
            }
            _ => {
                self.pending = None;
                Some(Ok(bytes.to_vec()))
            }
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;
    use alloc::vec;

    fn server(i: u32) -> ServerInfo {
        ServerInfo {
            addr: alloc::format!("10.0.{}.{}:28960", i / 256, i % 256),
            hostname: alloc::format!("^1Lab ^7server #{i}"),
            map: "mp_foy".into(),
            gametype: "sd".into(),
            game: String::new(),
            protocol: 22,
            clients: 3,
            bots: 1,
            max_clients: 20,
            password: i.is_multiple_of(2),
            punkbuster: true,
            pure: false,
            friendly_fire: 1,
            killcam: true,
            jeeps: false,
            tanks: true,
            dedicated: Some(true),
            ping_ms: Some(40),
            reachability: Reachability::Online,
            updated_ms: Some(1_700_000_000_000),
            matches_today: 0,
            country: None,
            sources: vec!["lan".into()],
            players: vec![Player {
                name: "^2Ghost".into(),
                score: 4,
                ping: 50,
                bot: false,
            }],
            cvars: vec![("sv_hostname".into(), "x".into())],
        }
    }

    #[test]
    fn changes_carry_only_what_moved_and_apply_back() {
        let a = Summary::of(1, &server(1));
        let mut b = a.clone();
        b.clients = 9;
        b.updated_ms = Some(5);
        b.ping_ms = Some(42);
        // Two milliseconds of jitter is not news; the count and the answer are.
        assert_eq!(a.diff(&b), [Field::Clients(9), Field::Seen(Some(5))]);
        b.ping_ms = Some(90);
        let fields = a.diff(&b);
        let mut held = a.clone();
        held.apply(&fields);
        assert_eq!(held, b);
        let p = |n: &str| IndexedPlayer {
            name: n.into(),
            bot: false,
        };
        let old = vec![p("a"), p("b"), p("c"), p("b")];
        let new = vec![p("b"), p("d"), p("c")];
        let change = PlayersChange::between(1, &old, &new);
        assert_eq!(change.removed, [3, 0]);
        let mut held = old.clone();
        change.apply(&mut held);
        held.sort_by(|x, y| x.name.cmp(&y.name));
        let mut want = new.clone();
        want.sort_by(|x, y| x.name.cmp(&y.name));
        assert_eq!(held, want);
    }

    #[test]
    fn a_summary_keeps_what_the_list_shows() {
        let s = server(3);
        let back = Summary::of(3, &s).to_server(&ServerPlayers::of(3, &s).players);
        assert_eq!(back.hostname, s.hostname);
        assert_eq!(
            (
                back.password,
                back.punkbuster,
                back.pure,
                back.killcam,
                back.jeeps,
                back.tanks
            ),
            (false, true, false, true, false, true)
        );
        assert_eq!(back.dedicated, Some(true));
        assert_eq!(back.players[0].name, "^2Ghost");
        let mut unknown = s.clone();
        unknown.dedicated = None;
        assert_eq!(Summary::of(0, &unknown).to_server(&[]).dedicated, None);
    }

    #[test]
    fn keyframes_deflate_and_everything_round_trips() {
        let servers: Vec<Summary> = (0..2000).map(|i| Summary::of(i, &server(i))).collect();
        let keyframe = FeedMessage::Keyframe {
            seq: 9,
            servers,
            masters: feed_masters(&[
                MasterStatus {
                    addr: "master.cod.pm:20610".into(),
                    state: MasterState::Failed {
                        error: "no answer".into(),
                    },
                    polled_ms: Some(5),
                    own: None,
                    // A master that failed after a good list keeps it on the page.
                    last_list: Some(1999),
                },
                MasterStatus {
                    addr: "127.0.0.1:20611".into(),
                    state: MasterState::Ok { servers: 2000 },
                    polled_ms: None,
                    own: Some(super::super::OwnMaster {
                        registered: 2000,
                        ..Default::default()
                    }),
                    last_list: Some(2000),
                },
            ]),
            progress: Progress::default(),
            wulfram: vec![],
        };
        let bytes = keyframe.encode();
        assert_eq!(bytes[0], DEFLATED);
        assert!(bytes.len() < 40_000, "{} bytes", bytes.len());
        assert_eq!(FeedMessage::decode(&bytes), Ok(keyframe.clone()));
        // As a page reads it: the body, inflated as raw DEFLATE by whoever inflates, then
        // the postcard.
        let Ok(Body::Deflated(packed)) = Body::of(&bytes) else {
            panic!("a keyframe's body is deflated");
        };
        let body = miniz_oxide::inflate::decompress_to_vec(packed).unwrap();
        assert_eq!(FeedMessage::from_postcard(&body), Ok(keyframe));
        let detail = FeedMessage::Detail { server: server(1) };
        let bytes = detail.encode();
        assert_eq!(Body::of(&bytes), Ok(Body::Plain(&bytes[1..])));
        assert_eq!(FeedMessage::from_postcard(&bytes[1..]), Ok(detail.clone()));
        assert_eq!(FeedMessage::decode(&bytes), Ok(detail));
        assert!(Body::of(&[FIRST, 0]).is_err());
        assert!(Body::of(&[]).is_err());
        assert!(FeedMessage::decode(&[FIRST, 0]).is_err());
        assert!(FeedMessage::decode(&[DEFLATED, 1, 2, 3]).is_err());
        assert!(FeedMessage::decode(&[]).is_err());
    }

    #[test]
    fn a_long_message_goes_in_parts_and_joins_back_whole() {
        let encoded: Vec<u8> = (0..PART_BYTES * 2 + 5).map(|i| (i % 251) as u8).collect();
        let sent = parts(encoded.clone());
        assert_eq!(
            sent.iter().map(|p| (p[0], p.len())).collect::<Vec<_>>(),
            [(FIRST, PART_BYTES + 1), (MORE, PART_BYTES + 1), (LAST, 6)]
        );
        let mut joined = Parts::default();
        assert_eq!(joined.push(&sent[0]), None);
        assert_eq!(joined.push(&sent[1]), None);
        assert_eq!(joined.push(&sent[2]), Some(Ok(encoded.clone())));
        // A short message is itself, and passes straight through.
        let short = FeedMessage::Detail { server: server(1) }.encode();
        assert_eq!(parts(short.clone()), core::slice::from_ref(&short));
        assert_eq!(joined.push(&short), Some(Ok(short.clone())));
        // A first part starts afresh; a last part without a first is refused.
        assert_eq!(joined.push(&sent[0]), None);
        assert_eq!(joined.push(&sent[0]), None);
        assert_eq!(
            joined.push(&sent[2]),
            Some(Ok(parts_joined(&sent[0], &sent[2])))
        );
        assert_eq!(joined.push(&sent[2]), Some(Err(FeedDecodeError)));
        assert_eq!(joined.push(&[]), None);
    }

    fn parts_joined(first: &[u8], last: &[u8]) -> Vec<u8> {
        [&first[1..], &last[1..]].concat()
    }
}
