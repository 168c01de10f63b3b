//! `muster spectate` joins a lab server over UDP on 127.0.0.1 and follows its match: the
//! handshake, the gamestate, server commands, snapshots with the lab's soldiers, an in-band
//! download, a map change and a clean disconnect.

use crate::common;

use std::collections::BTreeSet;
use std::time::Duration;

use lab::sessions::{readme, README};
use lab::Lab;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn spectate_follows_a_lab_match() {
    let mut config = common::lab_config(1, 10);
    config.map_time = Some(Duration::from_secs(3));
    // Room for a spectator: a generated server may be full.
    config.players = Some(8);
    let lab = Lab::start(config).await.unwrap();
    let server = lab.servers[0].clone();
    let before = server.snapshot();
    let dir = tempfile::tempdir().unwrap();
    let addr = server.addr.to_string();
    let dir_arg = dir.path().display().to_string();
    let output = tokio::task::spawn_blocking(move || {
        common::run_muster(
            &[
                "spectate",
                &addr,
                "--json",
                "--duration",
                "7",
                "--name",
                "Watcher",
                "--download",
                README,
                "--download-dir",
                &dir_arg,
            ],
            "",
        )
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let types: BTreeSet<&str> = lines.iter().filter_map(|l| l["type"].as_str()).collect();
    for wanted in [
        "state",
        "gamestate",
        "configstring",
        "server_command",
        "snapshot",
        "download",
        "loadingnewmap",
        "disconnect",
    ] {
        assert!(types.contains(wanted), "no {wanted} in {types:?}");
    }
    let states: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "state")
        .filter_map(|l| l["state"].as_str())
        .collect();
    assert_eq!(
        states[..6],
        [
            "CONNECTING",
            "CHALLENGING",
            "CONNECTED",
            "LOADING",
            "PRIMED",
            "ACTIVE"
        ]
    );
    assert_eq!(states.last(), Some(&"DISCONNECTED"));
    assert_eq!(lines.last().unwrap()["reason"], "disconnected");

    // The soldiers on the field are the server's roster, at real positions.
    let roster: BTreeSet<String> = before.roster();
    let snapshots: Vec<&Value> = lines.iter().filter(|l| l["type"] == "snapshot").collect();
    assert!(snapshots.len() > 60, "{} snapshots in 7 s", snapshots.len());
    let last = snapshots.last().unwrap();
    let seen: BTreeSet<String> = last["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["team"] != "spectator")
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, roster);
    assert!(last["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "Watcher" && p["team"] == "spectator"));
    // Cycling the follow target shows the vehicles from some soldier's eyes.
    assert!(snapshots.iter().any(|s| s["entities"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "vehicle" && e["origin"].is_array())));
    assert!(snapshots.iter().any(|s| s["view"]["following"] == true));
    assert!(snapshots.iter().any(|s| s["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["followed"] == true && p["origin"].is_array())));
    let times: Vec<i64> = snapshots
        .iter()
        .map(|s| s["server_time"].as_i64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "server time runs on");

    // Deaths arrive as obituary events, the scoreboard as `b`; the download matches the
    // server's file.
    assert!(snapshots
        .iter()
        .any(|s| !s["obituaries"].as_array().unwrap().is_empty()));
    assert!(lines
        .iter()
        .any(|l| l["type"] == "server_command" && l["command"] == "scores"));
    let saved = std::fs::read(dir.path().join("readme.txt")).unwrap();
    assert_eq!(saved, readme(&before));

    // The session left cleanly: the server no longer lists the spectator.
    let after = server.snapshot();
    assert!(after.players.iter().all(|p| p.name != "Watcher"));
    assert_ne!(after.mapname, before.mapname, "the map rotated");
}

#[tokio::test(flavor = "multi_thread")]
async fn spectate_reports_a_server_that_never_answers() {
    // A bound socket nobody reads: the client keeps asking for a challenge until --duration.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let output = tokio::task::spawn_blocking(move || {
        common::run_muster(&["spectate", &addr, "--duration", "1"], "")
    })
    .await
    .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with("state CONNECTING"), "{text}");
    assert!(
        text.trim_end().ends_with("disconnected: disconnected"),
        "{text}"
    );
}
