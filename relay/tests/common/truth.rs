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
