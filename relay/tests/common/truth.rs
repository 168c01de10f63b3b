//! The lab's truth file (`--truth`): one JSON line per server frame of a watched server, with
//! its soldiers and the kills of that frame; what the tests judge a spectator's account by.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lab::LabConfig;
use relay::cli::spectate::SpectateOptions;
use relay::demos::RecordTarget;
use serde_json::Value;

/// A spectator session of `seconds`, recorded as `dir/lab.dm_3` (a later map adds `-MAP`).
pub fn recorded_session(dir: &Path, seconds: u64) -> SpectateOptions {
    SpectateOptions {
        duration: Some(std::time::Duration::from_secs(seconds)),
        record: Some(RecordTarget {
            dir: dir.into(),
            server: "lab".into(),
            out: Some(dir.join("lab.dm_3")),
            max_bytes: 50_000_000,
        }),
        ..SpectateOptions::default()
    }
}

/// One server with ten players, writing its truth to `truth`.
pub fn lab_with_truth(truth: &Path) -> LabConfig {
    LabConfig {
        players: Some(10),
        truth: Some(lab::Truth::create(truth).unwrap()),
        ..super::lab_config(1, 10)
    }
}

/// The truth file's kills: server time to (killer, victim) names.
pub fn true_kills(path: &Path) -> BTreeMap<i32, Vec<(String, String)>> {
    let mut kills = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let names: BTreeMap<u64, String> = v["soldiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["client"].as_u64().unwrap(),
                    s["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        for k in v["kills"].as_array().into_iter().flatten() {
            let name = |key: &str| names[&k[key].as_u64().unwrap()].clone();
            kills
                .entry(v["server_time"].as_i64().unwrap() as i32)
                .or_insert_with(Vec::new)
                .push((name("killer"), name("victim")));
        }
    }
    kills
}

pub fn soldiers(path: &Path) -> BTreeSet<String> {
    let line = std::fs::read_to_string(path).unwrap();
    let v: Value = serde_json::from_str(line.lines().last().unwrap()).unwrap();
    v["soldiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Reads the lab's truth file: server time to each soldier's (origin, alive).
pub fn positions(path: &Path) -> BTreeMap<i32, BTreeMap<u8, ([f64; 3], bool)>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut frames = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let soldiers = v["soldiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let o = &s["origin"];
                (
                    s["client"].as_u64().unwrap() as u8,
                    (
                        [0, 1, 2].map(|i| o[i].as_f64().unwrap()),
                        s["alive"].as_bool().unwrap(),
                    ),
                )
            })
            .collect();
        frames.insert(v["server_time"].as_i64().unwrap() as i32, soldiers);
    }
    frames
}

/// Each placed soldier of `view` (client, server time seen), checked against the truth at the
/// time it was seen: within a unit of the server's position (the wire rounds to whole units).
pub fn placed_as_the_truth(
    view: &protocol::relay_api::watch::MatchView,
    frames: &BTreeMap<i32, BTreeMap<u8, ([f64; 3], bool)>>,
) -> Vec<(u8, i32)> {
    use protocol::relay_api::watch::Team;
    let mut placed = Vec::new();
    for p in view.players.iter().filter(|p| p.team != Team::Spectator) {
        let Some(seen) = p.seen else { continue };
        let Some((origin, _)) = frames.get(&seen).and_then(|f| f.get(&p.client)) else {
            panic!(
                "player {} seen at {seen}, a time the server never ran",
                p.client
            )
        };
        let error = (0..2)
            .map(|i| (origin[i] - f64::from(p.origin[i])).abs())
            .fold(0.0, f64::max);
        assert!(
            error <= 1.0,
            "player {} is {error} units off what the server had",
            p.client
        );
        placed.push((p.client, seen));
    }
    placed
}
