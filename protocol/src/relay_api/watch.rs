//! What a spectator hub sends its viewers, defined once for the relay and the page: a
//! keyframe (the whole delayed match), then shared updates that say only what changed. The
//! binary form is postcard (with the `serde` feature): varints make a moved player about seven
//! bytes, so 32 players stay near 2-3 KB/s per viewer at 20 updates a second.

use alloc::string::String;
use alloc::vec::Vec;

/// Feed items a view keeps (and a keyframe carries).
pub const FEED_KEPT: usize = 40;
/// A player whose position did not change is re-sent only when its sighting is this much newer
/// than the one viewers hold, so a still, visible player costs nothing most frames.
pub const SEEN_RESOLUTION_MS: i32 = 500;

/// A client's team, as clientState `team` numbers it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Team {
    #[default]
    Free,
    Axis,
    Allies,
    Spectator,
}

impl Team {
    pub fn from_wire(team: u32) -> Self {
        match team & 3 {
            1 => Self::Axis,
            2 => Self::Allies,
            3 => Self::Spectator,
            _ => Self::Free,
        }
    }

    /// The side as a page's scoreboard says it, in the reader's language.
    pub fn said(self) -> crate::said::Said {
        crate::said::Said::new(match self {
            Self::Free => "side-free",
            Self::Axis => "side-axis",
            Self::Allies => "side-allies",
            Self::Spectator => "side-spectator",
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Axis => "axis",
            Self::Allies => "allies",
            Self::Spectator => "spectator",
        }
    }
}

/// One client as viewers see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WatchPlayer {
    pub client: u8,
    /// With colour codes.
    pub name: String,
    pub team: Team,
    pub score: i32,
    pub deaths: i32,
    /// [`UNSCORED`] until the server's scoreboard has a row for the player (score and deaths
    /// are not known either then); 0 is a bot.
    pub ping: i32,
    pub alive: bool,
    pub weapon: u8,
    /// World units, truncated as the server snaps them.
    pub origin: [i32; 3],
    /// Facing: 256 steps a turn.
    pub yaw: u8,
    /// Server time of the latest sighting; `None` until first seen.
    pub seen: Option<i32>,
}

/// A vehicle (jeep or tank) as viewers see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WatchVehicle {
    pub number: u16,
    /// The entity's model `index`.
    pub model: u16,
    pub origin: [i32; 3],
    pub yaw: u8,
    pub seen: i32,
}

/// One line of the kill feed, chat or server messages.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
// Externally tagged: postcard cannot read internally tagged enums.
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FeedItem {
    Kill {
        time: i32,
        /// `None` for the world.
        attacker: Option<u8>,
        victim: u8,
        /// The weapon's file name, or the means of death (`MOD_HEAD_SHOT`, ...).
        weapon: String,
    },
    Chat {
        time: i32,
        /// As shown: markers removed, tokens localized, colour codes kept.
        text: String,
        team: bool,
    },
    Message {
        time: i32,
        text: String,
    },
}

/// A player's ping before any scoreboard row for them: their score, deaths and ping are not
/// known yet (a clip that starts mid-match, a player who just joined).
pub const UNSCORED: i32 = -1;

/// The match as the hub knows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchView {
    pub server_time: i32,
    pub header: Header,
    pub axis_score: i32,
    pub allies_score: i32,
    /// By client number.
    pub players: Vec<WatchPlayer>,
    /// By entity number.
    pub vehicles: Vec<WatchVehicle>,
    /// Oldest first, at most [`FEED_KEPT`].
    pub feed: Vec<FeedItem>,
}

/// What changes only with the map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Header {
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    /// Configstring 14: the server time the level started.
    pub level_start: i32,
}

/// A player's change since the previous update.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum PlayerChange {
    /// A new player, or one whose name, team, score, ping or weapon changed: the whole record.
    Full(WatchPlayer),
    /// Only movement: offsets from the record viewers hold.
    Moved {
        client: u8,
        delta: [i32; 3],
        yaw: u8,
        alive: bool,
        /// How long before the update's server time it was seen.
        seen_ago: u32,
    },
}

/// What changed between two views.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Update {
    pub server_time: i32,
    pub header: Option<Header>,
    pub scores: Option<(i32, i32)>,
    pub players: Vec<PlayerChange>,
    pub players_gone: Vec<u8>,
    pub vehicles: Vec<WatchVehicle>,
    pub vehicles_gone: Vec<u16>,
    pub feed: Vec<FeedItem>,
}

/// How the hub's session with the game server stands. Carries no match content, so it is sent
/// at once rather than through the delay.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HubState {
    Connecting,
    Active,
    /// The server refused the session; `reason` is its own text, or what it means when the
    /// relay knows (a password it lacks).
    Refused {
        reason: String,
        retry_ms: u32,
    },
    /// The session ended (server gone, restarted, dropped us); rejoining after `retry_ms`.
    Rejoining {
        reason: String,
        retry_ms: u32,
    },
    /// The hub closed (no viewers, or the relay is shutting down).
    Closed,
}

/// An operator-supplied overview image for a map, with the world coordinates of its top-left
/// (`x0`, `y0`) and bottom-right (`x1`, `y1`) corners.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Overview {
    pub map: String,
    pub url: String,
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

/// The hub's state, its audience and its delay.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HubStatus {
    pub addr: String,
    pub state: HubState,
    pub viewers: u32,
    /// The broadcast delay.
    pub delay_ms: u32,
    /// How long until the delay has filled and the first picture goes out; 0 once it flows.
    pub filling_ms: u32,
    pub overviews: Vec<Overview>,
    /// The relay records demos (`--record-dir`), so its operator may start one here.
    pub recordable: bool,
    /// The demo being recorded.
    pub recording: Option<RecordingStatus>,
    /// Why the last recording stopped on its own (a size limit, a disk error).
    pub record_stopped: Option<String>,
}

/// A demo being recorded by a hub.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RecordingStatus {
    pub file: String,
    pub bytes: u64,
}

/// A message from the hub to a viewer.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum WatchMessage {
    Status(HubStatus),
    /// The whole delayed match. Updates with a `seq` up to this one's are already in it.
    Keyframe {
        seq: u64,
        /// When the newest snapshot in it reached the relay (µs since the Unix epoch).
        relay_us: u64,
        view: MatchView,
    },
    Update {
        seq: u64,
        relay_us: u64,
        update: Update,
    },
    /// Where this viewer now is: at the live edge, or rewound and played at `speed_pct`
    /// percent (0: paused). Sent when it changes; the keyframe and updates that follow are
    /// from there.
    Playing {
        live: bool,
        speed_pct: u16,
    },
}

/// A message from a viewer; anything else closes its socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ViewerMessage {
    /// Send me a fresh keyframe (a tab that slept, a model that looks wrong).
    Keyframe,
    /// Show me the match from this moment of the rewind window (a keyframe's `relay_us`;
    /// clamped to the window), played on at `speed_pct` percent of real time (at most
    /// [`MAX_SPEED_PCT`]; 0 holds it there).
    Seek { relay_us: u64, speed_pct: u16 },
    /// Back to the live edge.
    Live,
}

/// The fastest a rewound viewer may play.
pub const MAX_SPEED_PCT: u16 = 400;

/// Largest message a viewer may send.
pub const MAX_VIEWER_MESSAGE: usize = 64;

fn wrap_delta(a: i32, b: i32) -> i32 {
    b.wrapping_sub(a)
}

/// What viewers holding `old` need to hold `new`. Still players whose sighting is less than
/// [`SEEN_RESOLUTION_MS`] newer are left out; apply the result to `old` (not replace it with
/// `new`) to hold exactly what viewers hold.
pub fn diff(old: &MatchView, new: &MatchView) -> Update {
    let mut update = Update {
        server_time: new.server_time,
        header: (old.header != new.header).then(|| new.header.clone()),
        scores: ((old.axis_score, old.allies_score) != (new.axis_score, new.allies_score))
            .then_some((new.axis_score, new.allies_score)),
        ..Update::default()
    };
    for p in &new.players {
        let Some(before) = old.players.iter().find(|o| o.client == p.client) else {
            update.players.push(PlayerChange::Full(p.clone()));
            continue;
        };
        let identity = (&before.name, before.team, before.score, before.deaths)
            != (&p.name, p.team, p.score, p.deaths)
            || (before.ping, before.weapon) != (p.ping, p.weapon);
        if identity || before.seen.is_none() != p.seen.is_none() {
            update.players.push(PlayerChange::Full(p.clone()));
            continue;
        }
        let moved = (before.origin, before.yaw, before.alive) != (p.origin, p.yaw, p.alive);
        let (Some(then), Some(now)) = (before.seen, p.seen) else {
            continue;
        };
        if moved || now.wrapping_sub(then) >= SEEN_RESOLUTION_MS {
            update.players.push(PlayerChange::Moved {
                client: p.client,
                delta: [0, 1, 2].map(|i| wrap_delta(before.origin[i], p.origin[i])),
                yaw: p.yaw,
                alive: p.alive,
                seen_ago: new.server_time.wrapping_sub(now).max(0) as u32,
            });
        }
    }
    update.players_gone = old
        .players
        .iter()
        .filter(|o| !new.players.iter().any(|p| p.client == o.client))
        .map(|o| o.client)
        .collect();
    for v in &new.vehicles {
        let before = old.vehicles.iter().find(|o| o.number == v.number);
        let changed = before.is_none_or(|b| {
            (b.model, b.origin, b.yaw) != (v.model, v.origin, v.yaw)
                || v.seen.wrapping_sub(b.seen) >= SEEN_RESOLUTION_MS
        });
        if changed {
            update.vehicles.push(v.clone());
        }
    }
    update.vehicles_gone = old
        .vehicles
        .iter()
        .filter(|o| !new.vehicles.iter().any(|v| v.number == o.number))
        .map(|o| o.number)
        .collect();
    update.feed = new_feed(&old.feed, &new.feed).to_vec();
    update
}

/// The items at the end of `new` that `old` does not end with.
fn new_feed<'a>(old: &[FeedItem], new: &'a [FeedItem]) -> &'a [FeedItem] {
    // The longest suffix of `old` that is a prefix of `new` is what both hold.
    for keep in (0..=old.len().min(new.len())).rev() {
        if old[old.len() - keep..] == new[..keep] {
            return &new[keep..];
        }
    }
    new
}

/// Applies an update to the view a viewer holds.
pub fn apply(view: &mut MatchView, update: &Update) {
    view.server_time = update.server_time;
    if let Some(header) = &update.header {
        view.header = header.clone();
    }
    if let Some((axis, allies)) = update.scores {
        view.axis_score = axis;
        view.allies_score = allies;
    }
    view.players
        .retain(|p| !update.players_gone.contains(&p.client));
    for change in &update.players {
        match change {
            PlayerChange::Full(p) => {
                match view.players.binary_search_by_key(&p.client, |x| x.client) {
                    Ok(i) => view.players[i] = p.clone(),
                    Err(i) => view.players.insert(i, p.clone()),
                }
            }
            PlayerChange::Moved {
                client,
                delta,
                yaw,
                alive,
                seen_ago,
            } => {
                if let Some(p) = view.players.iter_mut().find(|p| p.client == *client) {
                    for (axis, d) in p.origin.iter_mut().zip(delta) {
                        *axis = axis.wrapping_add(*d);
                    }
                    p.yaw = *yaw;
                    p.alive = *alive;
                    p.seen = Some(update.server_time.wrapping_sub(*seen_ago as i32));
                }
            }
        }
    }
    view.vehicles
        .retain(|v| !update.vehicles_gone.contains(&v.number));
    for v in &update.vehicles {
        match view.vehicles.binary_search_by_key(&v.number, |x| x.number) {
            Ok(i) => view.vehicles[i] = v.clone(),
            Err(i) => view.vehicles.insert(i, v.clone()),
        }
    }
    view.feed.extend(update.feed.iter().cloned());
    let excess = view.feed.len().saturating_sub(FEED_KEPT);
    view.feed.drain(..excess);
}

/// Why a watch message did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchDecodeError;

impl core::fmt::Display for WatchDecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("not a watch message")
    }
}

impl core::error::Error for WatchDecodeError {}

#[cfg(feature = "serde")]
impl WatchMessage {
    /// The binary form sent to viewers.
    pub fn encode(&self) -> Vec<u8> {
        // Serializing into a growing buffer cannot fail for these plain types.
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, WatchDecodeError> {
        postcard::from_bytes(bytes).map_err(|_| WatchDecodeError)
    }
}

#[cfg(feature = "serde")]
impl ViewerMessage {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// Refuses anything but one whole message within [`MAX_VIEWER_MESSAGE`].
    pub fn decode(bytes: &[u8]) -> Result<Self, WatchDecodeError> {
        if bytes.len() > MAX_VIEWER_MESSAGE {
            return Err(WatchDecodeError);
        }
        match postcard::take_from_bytes::<Self>(bytes) {
            Ok((message, [])) => Ok(message),
            _ => Err(WatchDecodeError),
        }
    }
}

/// Facing in 256 steps a turn, from degrees.
pub fn yaw_byte(degrees: f32) -> u8 {
    let turns = degrees / 360.0;
    let steps = (turns - libm_floor(turns)) * 256.0 + 0.5;
    (steps as u32 & 0xff) as u8
}

/// Degrees from a [`yaw_byte`].
pub fn yaw_degrees(yaw: u8) -> f32 {
    f32::from(yaw) * 360.0 / 256.0
}

/// `floor` without std.
fn libm_floor(x: f32) -> f32 {
    let t = x as i64 as f32;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn player(client: u8, x: i32, seen: i32) -> WatchPlayer {
        WatchPlayer {
            client,
            name: alloc::format!("p{client}"),
            team: Team::Axis,
            alive: true,
            origin: [x, -x, 8],
            seen: Some(seen),
            ..WatchPlayer::default()
        }
    }

    #[test]
    fn diff_then_apply_reaches_the_new_view() {
        let old = MatchView {
            server_time: 1000,
            players: vec![player(1, 10, 1000), player(2, 20, 1000), player(3, 5, 900)],
            feed: vec![FeedItem::Message {
                time: 900,
                text: "a".into(),
            }],
            ..MatchView::default()
        };
        let mut new = old.clone();
        new.server_time = 1050;
        new.players[0].origin = [17, -3, 8];
        new.players[0].seen = Some(1050);
        new.players[1].seen = Some(1050);
        new.players.remove(2);
        new.players.push(player(9, 1, 1050));
        new.axis_score = 4;
        new.feed.push(FeedItem::Kill {
            time: 1040,
            attacker: Some(1),
            victim: 2,
            weapon: "kar98k_mp".into(),
        });
        let update = diff(&old, &new);
        // The still player seen 50 ms later is not re-sent.
        assert!(!update
            .players
            .iter()
            .any(|c| matches!(c, PlayerChange::Moved { client: 2, .. })));
        assert_eq!(update.players_gone, vec![3]);
        assert_eq!(update.feed.len(), 1);
        let mut held = old.clone();
        apply(&mut held, &update);
        let mut expected = new.clone();
        expected.players[1].seen = Some(1000);
        assert_eq!(held, expected);
    }

    #[test]
    fn the_feed_suffix_survives_truncation() {
        let item = |t| FeedItem::Message {
            time: t,
            text: "x".into(),
        };
        let old: Vec<FeedItem> = (0..FEED_KEPT as i32).map(item).collect();
        let mut new = old[2..].to_vec();
        new.extend([item(100), item(101)]);
        assert_eq!(new_feed(&old, &new), &[item(100), item(101)]);
        assert_eq!(new_feed(&[], &new), &new[..]);
    }

    #[test]
    fn yaw_bytes_wrap() {
        assert_eq!(yaw_byte(0.0), 0);
        assert_eq!(yaw_byte(90.0), 64);
        assert_eq!(yaw_byte(-90.0), 192);
        assert_eq!(yaw_byte(359.9), 0);
        assert_eq!(yaw_degrees(128), 180.0);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn messages_round_trip_and_garbage_is_refused() {
        let m = WatchMessage::Update {
            seq: 7,
            relay_us: 1_700_000_000_000_000,
            update: Update {
                server_time: 5,
                players: vec![PlayerChange::Moved {
                    client: 3,
                    delta: [9, -9, 0],
                    yaw: 12,
                    alive: true,
                    seen_ago: 0,
                }],
                ..Update::default()
            },
        };
        let bytes = m.encode();
        assert_eq!(WatchMessage::decode(&bytes), Ok(m));
        let status = WatchMessage::Status(HubStatus {
            addr: "127.0.0.1:28960".into(),
            state: HubState::Refused {
                reason: "EXE_SERVERISFULL".into(),
                retry_ms: 1000,
            },
            viewers: 3,
            delay_ms: 30_000,
            filling_ms: 0,
            overviews: vec![],
            recordable: true,
            recording: Some(RecordingStatus {
                file: "a.dm_3".into(),
                bytes: 9,
            }),
            record_stopped: None,
        });
        assert_eq!(WatchMessage::decode(&status.encode()), Ok(status));
        let kill = WatchMessage::Keyframe {
            seq: 1,
            relay_us: 2,
            view: MatchView {
                feed: vec![FeedItem::Kill {
                    time: 1,
                    attacker: None,
                    victim: 2,
                    weapon: "MOD_FALLING".into(),
                }],
                ..MatchView::default()
            },
        };
        assert_eq!(WatchMessage::decode(&kill.encode()), Ok(kill));
        assert_eq!(
            ViewerMessage::decode(&ViewerMessage::Keyframe.encode()),
            Ok(ViewerMessage::Keyframe)
        );
        assert!(ViewerMessage::decode(&[0, 0]).is_err());
        assert!(ViewerMessage::decode(&[7]).is_err());
        assert!(ViewerMessage::decode(&[0; 100]).is_err());
    }
}
