//! `GET /api/spectate` and `GET /api/spectate/ADDR`: the hubs, and one hub's delayed match as
//! JSON for scripts and tests.

use protocol::relay_api::watch::{yaw_degrees, MatchView};
use serde_json::{json, Value};

use super::hub::Hub;

/// One line per hub: its server, state, audience and delay.
pub fn hub_summary(hub: &Hub) -> Value {
    let status = hub.status();
    let view = hub.view();
    json!({
        "addr": status.addr,
        "state": status.state,
        "viewers": hub.viewers(),
        "delay_ms": status.delay_ms,
        "filling_ms": status.filling_ms,
        "server_time": view.as_ref().map(|v| v.server_time),
        "map": view.as_ref().map(|v| v.header.map.clone()),
        "players": view.as_ref().map(|v| v.players.len()),
    })
}

/// The delayed match: players (with how long ago each was last seen), vehicles and the feed.
pub fn match_json(hub: &Hub) -> Value {
    let mut value = hub_summary(hub);
    let Some(view) = hub.view() else {
        return value;
    };
    value["match"] = view_json(&view);
    value
}

pub fn view_json(view: &MatchView) -> Value {
    let players: Vec<Value> = view
        .players
        .iter()
        .map(|p| {
            json!({
                "client": p.client,
                "name": p.name,
                "team": p.team,
                "score": p.score,
                "deaths": p.deaths,
                "ping": p.ping,
                "alive": p.alive,
                "weapon": p.weapon,
                "origin": p.origin,
                "yaw": yaw_degrees(p.yaw),
                "last_seen_ms": p.seen.map(|t| view.server_time.wrapping_sub(t).max(0)),
            })
        })
        .collect();
    let vehicles: Vec<Value> = view
        .vehicles
        .iter()
        .map(|v| {
            json!({
                "number": v.number,
                "model": v.model,
                "origin": v.origin,
                "yaw": yaw_degrees(v.yaw),
                "last_seen_ms": view.server_time.wrapping_sub(v.seen).max(0),
            })
        })
        .collect();
    json!({
        "server_time": view.server_time,
        "hostname": view.header.hostname,
        "map": view.header.map,
        "gametype": view.header.gametype,
        "level_start": view.header.level_start,
        "axis_score": view.axis_score,
        "allies_score": view.allies_score,
        "players": players,
        "vehicles": vehicles,
        "feed": view.feed,
    })
}
