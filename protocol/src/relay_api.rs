//! The messages between the relay and the page: one definition, serialized as JSON by both
//! (with the `serde` feature).

pub mod alerts;
pub mod bridge;
#[cfg(feature = "serde")]
mod columns;
pub mod demos;
pub mod feed;
pub mod highlights;
pub mod history;
pub mod matches;
pub mod moments;
pub mod owners;
pub mod proxy;
pub mod rcon;
pub mod rewind;
pub mod watch;

use alloc::string::String;
use alloc::vec::Vec;

/// What every refusal under `/api/` answers (any 4xx or 5xx): why, in English, naming the
/// parameter at fault where there is one (`limit: "0" is not from 1 to 200`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiError {
    pub error: String,
    /// The path asked for, when no route serves it.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub path: Option<String>,
}

#[cfg(feature = "serde")]
impl ApiError {
    /// What a refusal's body says to a reader: its `error`, or the body itself when it is not
    /// the shared shape.
    pub fn said(body: &str) -> String {
        serde_json::from_str::<ApiError>(body).map_or_else(|_| body.into(), |e| e.error)
    }
}

/// Whether the relay can currently reach a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Reachability {
    /// Listed, not yet answered.
    Pending,
    /// Answered the latest refresh.
    Online,
    /// Did not answer the latest two refreshes (or the first) after every retry.
    Unreachable,
    /// Answered the latest refresh only with replies that do not parse.
    Malformed,
    /// What it last answered, kept: before the relay restarted and not asked again yet, or
    /// before the one refresh it has just missed.
    Stale,
    /// Has not answered for longer than the operator's `hide-down-after`: kept (history and
    /// a filter still show it) but out of the default list.
    Gone,
}

/// One player as `getstatus` reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Player {
    /// The name with its colour codes.
    pub name: String,
    pub score: i32,
    pub ping: i32,
    /// Bots report ping 0, as stock servers show them.
    pub bot: bool,
}

/// Everything the relay knows about one game server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ServerInfo {
    /// `ip:port`.
    pub addr: String,
    /// `hostname` with its colour codes.
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    /// The mod directory (`fs_game`); empty for the stock game.
    pub game: String,
    pub protocol: u32,
    /// Clients the server counts, bots included.
    pub clients: u32,
    pub bots: u32,
    pub max_clients: u32,
    pub password: bool,
    pub punkbuster: bool,
    pub pure: bool,
    /// `ff`: 0 off, otherwise the friendly-fire mode.
    pub friendly_fire: u32,
    pub killcam: bool,
    pub jeeps: bool,
    pub tanks: bool,
    /// From the status `dedicated` cvar when the server publishes it.
    pub dedicated: Option<bool>,
    /// Round-trip time of the latest `getinfo`, in milliseconds.
    pub ping_ms: Option<u32>,
    pub reachability: Reachability,
    /// Unix time of the latest answer, in milliseconds.
    pub updated_ms: Option<u64>,
    /// Matches this relay followed on the server that started in the last 24 hours.
    #[cfg_attr(feature = "serde", serde(default))]
    pub matches_today: u32,
    /// ISO 3166-1 alpha-2 code of the country the server's address is in, from the relay's
    /// offline database; `None` for private and loopback addresses, unknown ones, or no database.
    #[cfg_attr(feature = "serde", serde(default))]
    pub country: Option<String>,
    /// What listed this server: master addresses, `lan`, or `operator`.
    pub sources: Vec<String>,
    pub players: Vec<Player>,
    /// Every `statusResponse` setting, in the server's order.
    pub cvars: Vec<(String, String)>,
}

/// `GET /api/countries`: the database servers' countries come from, and the credit its
/// licence asks for (the page shows it beside countries).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CountryDatabase {
    /// The database's own type name; `None` without one (no server has a country).
    pub database: Option<String>,
    /// Unix time the database was built.
    pub built: Option<u64>,
    pub attribution: Option<String>,
    pub attribution_url: Option<String>,
}

/// How the latest poll of one master went.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "state", rename_all = "snake_case"))]
pub enum MasterState {
    Pending,
    Ok { servers: u32 },
    Failed { error: String },
}

/// A master server from the relay's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MasterStatus {
    /// As configured: `host:port`.
    pub addr: String,
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub state: MasterState,
    /// Unix time of the latest poll, in milliseconds.
    pub polled_ms: Option<u64>,
    /// Servers in its latest good list. When a poll fails they stay listed (stale) rather
    /// than leaving the page.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub last_list: Option<u32>,
    /// Set on the master this relay runs itself: what it holds.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub own: Option<OwnMaster>,
}

/// The relay's own master (`--master-listen`), as the masters panel shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OwnMaster {
    /// Servers verified and listed, and those hidden by a flatline.
    pub registered: u32,
    pub flatlined: u32,
    pub heartbeats: u64,
    /// Datagrams dropped, every kind together (`GET /api/master` has them by kind).
    pub dropped: u64,
}

/// A message the relay pushes to a page over the WebSocket.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum RelayMessage {
    /// The whole directory: sent first, and again whenever a page fell behind.
    Directory {
        servers: Vec<ServerInfo>,
        masters: Vec<MasterStatus>,
        progress: Progress,
        #[cfg_attr(feature = "serde", serde(default))]
        wulfram: Vec<WulframServer>,
    },
    /// One server added or changed.
    Server { server: ServerInfo },
    /// The masters' states changed.
    Masters { masters: Vec<MasterStatus> },
    /// How the current refresh of every server is going.
    Progress { progress: Progress },
    /// The configured Wulfram II servers changed state.
    Wulfram { servers: Vec<WulframServer> },
}

/// A Wulfram II server the relay's operator configured: the relay proxies sessions to it and
/// checks it by connecting to its TCP port.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WulframServer {
    /// The operator's name for it; pages open `/wulfram/NAME`.
    pub name: String,
    pub addr: String,
    pub reachability: Reachability,
    /// The TCP connect time of the latest check.
    pub rtt_ms: Option<u32>,
    /// When it was last checked (ms since the Unix epoch).
    pub checked_ms: Option<u64>,
}

/// The current refresh: servers queried, answered, and finished either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Progress {
    pub total: u32,
    pub answered: u32,
    pub finished: u32,
}

/// A message a page sends the relay. It can only say what it looks at; it never names an
/// address the relay does not already know, and never causes a packet to an unknown host.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum PageMessage {
    /// The server the page shows in detail (refreshed more often), or none.
    Watch { addr: Option<String> },
}

impl ServerInfo {
    /// A server's record from its `infoResponse` and `statusResponse`, answered in `rtt_ms`
    /// at `updated_ms`: the relay's poller and the page's Refresh now build it the same way.
    pub fn from_answers(
        addr: String,
        info: &crate::cod::info::InfoString,
        status: &crate::cod::oob::Status,
        rtt_ms: u32,
        updated_ms: u64,
        sources: Vec<String>,
    ) -> Self {
        let either = |info_key: &str, status_key: &str| {
            String::from(
                info.get(info_key)
                    .or_else(|| status.info.get(status_key))
                    .unwrap_or_default(),
            )
        };
        let number = |key: &str| info.get(key).and_then(|v| v.parse().ok());
        let flag = |key: &str| info.get(key).is_some_and(|v| v != "0");
        let players: Vec<Player> = status
            .players
            .iter()
            .map(|p| Player {
                name: p.name.clone(),
                score: p.score,
                ping: p.ping,
                bot: p.ping == 0,
            })
            .collect();
        ServerInfo {
            addr,
            hostname: either("hostname", "sv_hostname"),
            map: either("mapname", "mapname"),
            gametype: either("gametype", "g_gametype"),
            game: either("game", "fs_game"),
            protocol: number("protocol").unwrap_or(0),
            clients: number("clients").unwrap_or(players.len() as u32),
            bots: players.iter().filter(|p| p.bot).count() as u32,
            max_clients: number("sv_maxclients").unwrap_or(0),
            password: flag("pswrd"),
            punkbuster: flag("pb"),
            pure: flag("pure"),
            friendly_fire: number("ff").unwrap_or(0),
            killcam: flag("kc"),
            jeeps: flag("jps"),
            tanks: flag("tnk"),
            dedicated: status.info.get("dedicated").map(|v| v != "0"),
            ping_ms: Some(rtt_ms),
            reachability: Reachability::Online,
            updated_ms: Some(updated_ms),
            matches_today: 0,
            country: None,
            sources,
            players,
            cvars: status
                .info
                .iter()
                .map(|(k, v)| (String::from(k), String::from(v)))
                .collect(),
        }
    }
}
