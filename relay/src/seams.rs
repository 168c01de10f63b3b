//! The narrow seams between capabilities. A capability that needs something another one owns
//! takes one of these traits, never the other's state: the spectator hubs and the bridge ask
//! only whether a server is known, the Wulfram II checker only posts its findings, and the
//! relay's own master only shows its summary (`browse::Directory` implements those); the
//! poller tells the history through [`PollLog`]; a hub offers its session to [`HubTap`]s
//! (the demo recorder is one) and the demos routes reach the hubs through [`RecordingHubs`].

use std::net::SocketAddrV4;
use std::path::PathBuf;
use std::sync::Arc;

use protocol::cod::client::{Client, Event};
use protocol::relay_api::demos::Recording;
use protocol::relay_api::watch::{RecordingStatus, Update};
use protocol::relay_api::{OwnMaster, WulframServer};

use crate::net::ServerAddr;

/// Which game servers the relay has learned of (from a master, the LAN scan or the operator):
/// the only targets a page may cause datagrams to.
pub trait KnownServers: Send + Sync {
    fn knows(&self, addr: ServerAddr) -> bool;
}

/// Where the Wulfram II checker posts what it found, for the feed and `GET /api/wulfram`.
pub trait WulframBoard: Send + Sync {
    /// Records a check of one configured server (added if new).
    fn post(&self, server: WulframServer);
    fn wulfram(&self) -> Vec<WulframServer>;
}

/// Where the relay's own master shows what it holds, on the masters panel.
pub trait OwnMasterBoard: Send + Sync {
    /// `polled_as` is the master's address as the poller asks it.
    fn post_own_master(&self, polled_as: &str, own: OwnMaster);
}

/// Where the matches tell the server list how many matches each server had (browse's directory).
pub trait MatchesToday: Send + Sync {
    /// Matches followed that started in the last 24 hours, by `ip:port`; a server not named
    /// had none.
    fn post_matches_today(&self, counts: std::collections::BTreeMap<String, u32>);
}

/// Where a server's country comes from (`geo::Countries`, an offline database).
pub trait CountryOf: Send + Sync {
    /// The ISO 3166-1 alpha-2 code of the country `ip` is in, if known.
    fn country_of(&self, ip: std::net::Ipv4Addr) -> Option<String>;
}

/// One server's latest record (browse's directory), for banners and owners.
pub trait ServerRecords: Send + Sync {
    /// `addr` is `ip:port`; `None` if the relay does not list it.
    fn record(&self, addr: &str) -> Option<protocol::relay_api::ServerInfo>;
}

/// What proven owners set for their servers (the owners capability keeps it in memory).
pub trait OwnerProfiles: Send + Sync {
    /// The profile of `addr`, while its proof holds.
    fn profile(&self, addr: &str) -> Option<protocol::relay_api::owners::OwnerProfile>;
    /// The servers their owners opted in to being followed (proof holding).
    fn followed(&self) -> Vec<ServerAddr>;
}

/// Where a proven owner's Discord webhook becomes the server's own alerts (up, down, full,
/// each followed match's end, and when opted in its play of the match); alerts implement it.
pub trait ServerWebhooks: Send + Sync {
    /// Replaces `addr`'s owner alerts with ones to `url` (`None` removes them), written in
    /// `lang` (the owner's language as they set it); `full_at` is the player count that makes
    /// it full; `play_of_the_match` adds each match's best. `Err` says why the URL is refused.
    fn set_webhook(
        &self,
        addr: String,
        url: Option<String>,
        full_at: u32,
        lang: i18n::Lang,
        play_of_the_match: bool,
    ) -> futures_util::future::BoxFuture<'static, Result<(), String>>;
}

/// Proving a server's ownership with its rcon password: one command through the admin
/// console (its spacing, lockouts and audit), the password used once and never kept.
pub trait ProveOwner: Send + Sync {
    fn prove(
        &self,
        client: crate::edge::limits::ClientKey,
        target: std::net::SocketAddrV4,
        password: String,
    ) -> futures_util::future::BoxFuture<'_, Proof>;
}

/// How a proof went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    Proven,
    /// The server said the password is wrong, or has none set (nothing can prove it then).
    Refused(String),
    /// The relay did not send it or had no answer: (HTTP status, why).
    NotAsked(u16, String),
}

/// A fixed set of servers, for tests and tools that have no directory.
impl KnownServers for Vec<SocketAddrV4> {
    fn knows(&self, addr: ServerAddr) -> bool {
        self.contains(&addr.0)
    }
}

pub type Known = Arc<dyn KnownServers>;

/// What the poller tells the history: every poll's outcome, and records that changed without
/// one. Implementations must not block: the poller calls them inline.
pub trait PollLog: Send + Sync {
    /// A server answered; this is its new record.
    fn answered(&self, server: &protocol::relay_api::ServerInfo);
    /// A server did not answer after every retry, or answered only garbage.
    fn unanswered(&self, addr: &str, at_ms: u64);
    /// A server's record changed without a poll (newly listed, another source).
    fn listed(&self, server: &protocol::relay_api::ServerInfo);
    /// A master poll's outcome.
    fn master(&self, status: &protocol::relay_api::MasterStatus);
}

/// Where the admin console keeps its audit beside its own log file: the history store
/// (`history::writer::Log` implements it). Must not block.
pub trait AuditLog: Send + Sync {
    fn audit(&self, entry: crate::store::AuditEntry);
}

/// Where a followed match's parts are written (`history::writer::Log` implements it). Must
/// not block.
pub trait MatchLog: Send + Sync {
    fn part(&self, part: crate::store::matches::MatchPart);
}

/// Where the plays a followed match's tap finds go (`highlights::Plays` implements it). Must
/// not block: the tap runs in the hub's loop.
pub trait PlaysFound: Send + Sync {
    fn found(&self, play: FoundPlay);
    /// The match is over (a new map, a restart, its intermission): no play of it will come.
    fn match_over(&self, server: ServerAddr, map: String, level_start: i32);
}

/// What the highlights' keeper tells alerts: a play has its clip, and a match's play of the
/// match is known (the match is over and its plays are all cut). Must not block.
pub trait HighlightsTold: Send + Sync {
    fn clipped(&self, highlight: protocol::relay_api::highlights::Highlight);
    fn play_of_the_match(&self, highlight: protocol::relay_api::highlights::Highlight);
}

/// A play as its match's tap found it, with where and when.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundPlay {
    pub server: ServerAddr,
    pub map: String,
    pub level_start: i32,
    pub gametype: String,
    pub play: protocol::relay_api::highlights::Play,
    /// The best of its match so far.
    pub best: bool,
    /// Its first and last kills by the relay's clock (Unix ms).
    pub start_ms: u64,
    pub end_ms: u64,
    /// When the session first saw the match (Unix ms): its clip starts no earlier, so a play
    /// at a match's start is not cut across the map change before it.
    pub match_seen_ms: u64,
}

/// What highlights ask of moments: a span of a match cut from this relay's reel, read back,
/// described and kept as a moment, as a viewer's share is. The moment's id, or why not.
pub trait MomentCutting: Send + Sync {
    fn cut_moment(
        &self,
        server: ServerAddr,
        from_ms: u64,
        to_ms: u64,
    ) -> futures_util::future::BoxFuture<'static, Result<String, String>>;
    /// The live edge of the server's reel here (Unix µs): nothing later can be cut yet.
    fn edge_us(&self, server: ServerAddr) -> Option<u64>;
}

/// Something that follows a hub's game session turn by turn: the demo recorder today, match
/// statistics and the rewind window next. The hub's task owns its taps and calls them on the
/// relay holding the game slot only (a cluster's mirrors run no session), so a tap writes
/// once per match. Taps run inline in the hub's loop and must not block.
pub trait HubTap: Send {
    /// Once a turn, before the session's new events are read (so a session that ended has
    /// been seen), and once more after the goodbye. `client` is `None` between sessions.
    fn turn(&mut self, _hub: &dyn HubFace, _client: Option<&mut Client>) {}
    /// Each event the session decoded, in order, with the relay's clock when it arrived.
    fn event(&mut self, _hub: &dyn HubFace, _relay_us: u64, _event: &Event) {}
    /// Each change of the match as it leaves the broadcast delay (what viewers are shown).
    fn released(&mut self, _hub: &dyn HubFace, _released: &Released<'_>) {}
}

/// A change of the match as it left the broadcast delay, and the message viewers got for it.
pub struct Released<'a> {
    /// Its update sequence.
    pub seq: u64,
    /// When its newest snapshot reached the relay (µs since the Unix epoch).
    pub relay_us: u64,
    pub update: &'a Update,
    /// The message viewers were sent, encoded once: the update, or the whole match when
    /// `keyframe` (the first picture, or the first after a takeover: what came before it
    /// does not lead to it).
    pub message: &'a axum::body::Bytes,
    pub keyframe: bool,
}

/// A stretch of a match as the broadcast sent it: the messages in order, and the last one's
/// sequence and time.
#[derive(Clone, Debug, Default)]
pub struct Moment {
    pub frames: Vec<axum::body::Bytes>,
    pub seq: u64,
    pub relay_us: u64,
    /// It reaches the newest moment released: what follows is live.
    pub live: bool,
}

/// What a viewer's socket asks of the rewind windows (`rewind::Rewinds`), and what the
/// holder of a cluster's game slot cuts for the other relays.
pub trait Rewinding: Clipping + Send + Sync {
    /// The moment `relay_us` of the server's window (clamped to it): a keyframe and the
    /// updates after it up to then. `None`: no window for the server.
    fn seek(&self, server: ServerAddr, relay_us: u64) -> Option<Moment>;
    /// The updates after `seq` up to `until_us`, at most `max` (an empty moment keeps `seq`).
    /// `None`: `seq` has left the window.
    fn play(&self, server: ServerAddr, seq: u64, until_us: u64, max: usize) -> Option<Moment>;
}

/// A stretch of a match cut as a stock demo (`rewind::Rewinds`), for a moment. (Serialized
/// without its demo between a cluster's relays, which send the demo's bytes beside it.)
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Clip {
    /// The whole `.dm_3`.
    #[serde(skip)]
    pub demo: Vec<u8>,
    /// The span asked for, clamped to the window and the live edge (µs since the Unix epoch).
    pub from_us: u64,
    pub to_us: u64,
    pub first_server_time: i32,
    pub last_server_time: i32,
    pub snapshots: u32,
    pub kills: Vec<protocol::relay_api::rewind::RewindKill>,
}

/// Why no clip was cut.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ClipRefused {
    /// No window for that server here.
    NoWindow,
    /// This relay mirrors the server: the relay holding its slot keeps the game's messages.
    Mirrored,
    /// The span is backwards, empty or too long; the text says which.
    Span(String),
    /// Nothing kept in the span; the text says what is.
    Outside(String),
}

/// What moments ask of the rewind windows.
pub trait Clipping: Send + Sync {
    /// A stock demo of the server's match from `from` to `to` (each seconds from the live
    /// edge, or Unix ms), never past the live edge, so the delay holds.
    fn clip(
        &self,
        server: ServerAddr,
        from: protocol::relay_api::moments::MomentTime,
        to: protocol::relay_api::moments::MomentTime,
    ) -> Result<Clip, ClipRefused>;
    /// The live edge of the server's window here (µs since the Unix epoch).
    fn edge_us(&self, server: ServerAddr) -> Option<u64>;
}

/// Makes a hub's taps when its session task starts.
pub type TapMaker = Arc<dyn Fn(ServerAddr) -> Box<dyn HubTap> + Send + Sync>;

/// What a tap may read and change of its hub.
pub trait HubFace {
    fn server(&self) -> ServerAddr;
    /// Whether the operator asked for a recording.
    fn record_wanted(&self) -> bool;
    /// Starts or stops the recording request (a recording that failed stops it).
    fn set_recording(&self, on: bool);
    /// A recording began: an earlier one's failure is no longer shown.
    fn recording_began(&self);
    /// The file being written (never served until it is finished) and what viewers see of
    /// it, and why it stopped if it stopped itself. Viewers see a growing size at most once a
    /// second; a new file or a stop at once.
    fn show_recording(&self, file: Option<(PathBuf, RecordingStatus)>, stopped: Option<String>);
    /// The name of the demo file being written, if any: a match's record links to its demo.
    fn recording_file(&self) -> Option<String>;
    /// In a cluster: the fencing token of the hub lease this relay holds or last held, so
    /// what the hub's session writes is refused once another relay has taken the slot over.
    fn lease_token(&self) -> Option<u64>;
    /// The released match as one message, as a joining viewer gets it (encoded once per
    /// update however many ask).
    fn keyframe(&self) -> Option<axum::body::Bytes>;
}

/// Why a hub could not be joined or started.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("not a server in the directory")]
    Unknown,
    #[error("every spectator slot of this relay is in use")]
    Full,
}

impl axum::response::IntoResponse for JoinError {
    /// 404 for a server the directory does not list, 503 when every hub slot is taken.
    fn into_response(self) -> axum::response::Response {
        let status = match self {
            Self::Unknown => axum::http::StatusCode::NOT_FOUND,
            Self::Full => axum::http::StatusCode::SERVICE_UNAVAILABLE,
        };
        (status, self.to_string()).into_response()
    }
}

/// What the matches capability asks of the spectator hubs: to follow a server's matches with
/// nobody watching (`--follow`, `--follow-busy`).
pub trait FollowHubs: Send + Sync {
    fn follow(self: Arc<Self>, server: ServerAddr) -> Result<(), JoinError>;
    /// Stops following; the hub retires once nobody watches it either.
    fn unfollow(&self, server: ServerAddr);
    /// Why the server turned the hub's spectator away (refused it, or kicked it), if it did.
    fn turned_away(&self, server: ServerAddr) -> Option<String>;
    /// Whether the operator gave the server's password.
    fn has_password(&self, server: ServerAddr) -> bool;
}

/// A listed server's slots, as the directory last heard them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    pub addr: ServerAddr,
    pub humans: u32,
    /// Bots included, and this relay's own spectator when it is in.
    pub clients: u32,
    pub max_clients: u32,
    pub password: bool,
}

/// The servers answering now (or at the refresh before, one being lost), for choosing which
/// to follow (`browse::Directory`).
pub trait ServerSlots: Send + Sync {
    fn slots(&self) -> Vec<Slots>;
}

/// What the demos capability asks of the spectator hubs.
pub trait RecordingHubs: Send + Sync {
    /// Records a server the directory knows, starting its hub if need be (it stays joined
    /// while the recording runs, watched or not).
    fn record(self: Arc<Self>, server: ServerAddr) -> Result<(), JoinError>;
    /// Stops a recording; false when no hub watches the server.
    fn stop_recording(&self, server: ServerAddr) -> bool;
    /// The demo files hubs are writing now, which are not to be served yet.
    fn recording_paths(&self) -> Vec<PathBuf>;
    /// The recordings running now, as viewers see them.
    fn recordings(&self) -> Vec<Recording>;
}

/// A listed server as alerts judge it (`browse::Directory`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerState {
    pub info: protocol::relay_api::alerts::AlertServer,
    /// Whether it answers: `None` while that is not known (not yet asked, stale after a
    /// restart, answering garbage).
    pub up: Option<bool>,
    /// Its players' names (bots included), with colours.
    pub names: Vec<String>,
}

/// The servers as alerts judge them, once a refresh.
pub trait ServerStates: Send + Sync {
    fn states(&self) -> Vec<ServerState>;
    /// Changes whenever the directory does: a look at an unchanged one is skipped.
    fn seq(&self) -> u64;
}
