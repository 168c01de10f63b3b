//! `GET /api/spectate` and `GET /api/spectate/ADDR`: the hubs, and one hub's delayed match as
//! JSON for scripts and tests. Every answer is one of these types, so its shape is the type's.

use protocol::relay_api::watch::{
    yaw_degrees, FeedItem, HubState, MatchView, Team, WatchPlayer, WatchVehicle,
};
use serde::Serialize;

use super::hub::Hub;

/// One hub: its server, state, audience and delay, and with `match` its delayed match.
#[derive(Serialize, utoipa::ToSchema)]
pub struct HubSummary {
    pub addr: String,
    pub state: HubState,
    pub viewers: u32,
    pub delay_ms: u32,
    pub filling_ms: u32,
    /// Until the first picture went out, these three are null.
    pub server_time: Option<i32>,
    pub map: Option<String>,
    pub players: Option<usize>,
    /// Only in `GET /api/spectate/ADDR`, once the first picture went out.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub view: Option<MatchJson>,
}

/// The delayed match: players (with how long ago each was last seen), vehicles and the feed.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MatchJson {
    pub server_time: i32,
    pub hostname: String,
    pub map: String,
    pub gametype: String,
    pub level_start: i32,
    pub axis_score: i32,
    pub allies_score: i32,
    pub players: Vec<PlayerJson>,
    pub vehicles: Vec<VehicleJson>,
    pub feed: Vec<FeedItem>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct PlayerJson {
    pub client: u8,
    pub name: String,
    pub team: Team,
    pub score: i32,
    pub deaths: i32,
    pub ping: i32,
    pub alive: bool,
    pub weapon: u8,
    pub origin: [i32; 3],
    /// Degrees.
    pub yaw: f32,
    /// Null for a player never seen in a snapshot.
    pub last_seen_ms: Option<i32>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct VehicleJson {
    pub number: u16,
    pub model: u16,
    pub origin: [i32; 3],
    /// Degrees.
    pub yaw: f32,
    pub last_seen_ms: i32,
}

/// One line per hub, without its match.
pub fn hub_summary(hub: &Hub) -> HubSummary {
    summary(hub, hub.view().as_ref())
}

/// The hub with its delayed match, once there is one.
pub fn match_json(hub: &Hub) -> HubSummary {
    let view = hub.view();
    HubSummary {
        view: view.as_ref().map(MatchJson::of),
        ..summary(hub, view.as_ref())
    }
}

/// The hub's line, from one copy of its delayed match.
fn summary(hub: &Hub, view: Option<&MatchView>) -> HubSummary {
    let status = hub.status();
    HubSummary {
        addr: status.addr,
        state: status.state,
        viewers: hub.viewers(),
        delay_ms: status.delay_ms,
        filling_ms: status.filling_ms,
        server_time: view.map(|v| v.server_time),
        map: view.map(|v| v.header.map.clone()),
        players: view.map(|v| v.players.len()),
        view: None,
    }
}

impl MatchJson {
    pub fn of(view: &MatchView) -> Self {
        let since = |seen: i32| view.server_time.wrapping_sub(seen).max(0);
        let player = |p: &WatchPlayer| PlayerJson {
            client: p.client,
            name: p.name.clone(),
            team: p.team,
            score: p.score,
            deaths: p.deaths,
            ping: p.ping,
            alive: p.alive,
            weapon: p.weapon,
            origin: p.origin,
            yaw: yaw_degrees(p.yaw),
            last_seen_ms: p.seen.map(since),
        };
        let vehicle = |v: &WatchVehicle| VehicleJson {
            number: v.number,
            model: v.model,
            origin: v.origin,
            yaw: yaw_degrees(v.yaw),
            last_seen_ms: since(v.seen),
        };
        Self {
            server_time: view.server_time,
            hostname: view.header.hostname.clone(),
            map: view.header.map.clone(),
            gametype: view.header.gametype.clone(),
            level_start: view.header.level_start,
            axis_score: view.axis_score,
            allies_score: view.allies_score,
            players: view.players.iter().map(player).collect(),
            vehicles: view.vehicles.iter().map(vehicle).collect(),
            feed: view.feed.clone(),
        }
    }
}
