//! Demos against the lab on 127.0.0.1: a recording reads back to the messages the live
//! session heard, its kills and players are the lab's own (the truth file), `muster record`,
//! `muster demo info` and `muster wire demo` agree, and the relay's hubs record on the
//! operator's request only, within their size limit, serving only finished files.

use crate::common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::truth::{lab_with_truth, recorded_session, soldiers, true_kills};
use lab::{Lab, LabConfig};
use protocol::cod::client::Event;
use protocol::cod::demo::{Playback, Records, END_MARKER};
use protocol::cod::stream::Heard;
use protocol::cod::watch::timeline::Timeline;
use relay::cli::spectate::{event_lines, Line};
use relay::demos::RecordConfig;
use relay::spectate::SpectateConfig;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);

/// Every session event as `muster spectate --json` prints it, from each of a demo's records.
fn played_events(file: &[u8]) -> Vec<Vec<Line>> {
    let mut playback = Playback::new();
    Records::new(file)
        .map(|r| r.unwrap())
        .map(|r| {
            playback
                .read(&r)
                .unwrap()
                .into_iter()
                .filter_map(|h| match h {
                    Heard::Said(said) => Some(event_lines(&Event::from(said))),
                    _ => None,
                })
                .flatten()
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recording_reads_back_to_what_the_session_heard_and_its_kills_are_the_lab_s() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab_with_truth(&truth)).await.unwrap();
    let out = dir.path().join("lab.dm_3");
    let options = recorded_session(dir.path(), 8);
    let mut live = Vec::new();
    let recorder =
        relay::cli::spectate::spectate(SocketAddr::V4(lab.servers[0].addr), options, |line| {
            live.push(line);
            Ok(())
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(recorder.written().len(), 1);
    let file = std::fs::read(&out).unwrap();
    assert!(file.ends_with(&END_MARKER));
    assert_eq!(recorder.written()[0].bytes, file.len() as u64);

    // The first record is the gamestate as the session held it; from the first recorded
    // snapshot on, playback hears exactly what the live session heard.
    let records = played_events(&file);
    assert!(matches!(records[0][0], Line::Gamestate { .. }));
    assert!(records[0][1..]
        .iter()
        .all(|e| matches!(e, Line::Configstring { .. })));
    let played: Vec<&Line> = records[1..].iter().flatten().collect();
    let first = played[0];
    let from = live
        .iter()
        .position(|e| e == first)
        .expect("the first snapshot was live");
    let heard: Vec<&Line> = live[from..]
        .iter()
        .filter(|e| !matches!(e, Line::State { .. } | Line::Disconnect { .. }))
        .collect();
    assert_eq!(played.len(), heard.len());
    assert_eq!(played, heard);

    // Kills and players: the lab's truth, in time.
    let timeline = Timeline::open(file).unwrap();
    let summary = timeline.summary();
    assert!(summary.duration_ms > 6000, "{summary:?}");
    assert!(summary.kills.len() >= 2, "{:?}", summary.kills);
    let kills = true_kills(&truth);
    for k in &summary.kills {
        let pair = (k.attacker.clone().unwrap(), k.victim.clone());
        let seen = kills
            .range(k.server_time - 500..=k.server_time)
            .any(|(_, ks)| ks.contains(&pair));
        assert!(seen, "{k:?} is not a kill the lab made");
    }
    let window = summary.first_server_time + 100..summary.last_server_time - 100;
    let made = kills.range(window).map(|(_, k)| k.len()).sum::<usize>();
    assert!(
        summary.kills.len() >= made,
        "{} kills shown of {made}",
        summary.kills.len()
    );
    let roster = soldiers(&truth);
    let shown: std::collections::BTreeSet<String> = summary.players.iter().cloned().collect();
    assert!(roster.is_subset(&shown), "{roster:?} vs {shown:?}");
}

fn muster_json(args: &[&str]) -> Value {
    let output = common::run_muster(args, "");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn muster_record_demo_info_and_wire_demo_agree() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab_with_truth(&truth)).await.unwrap();
    let out = dir.path().join("cli.dm_3");
    let server = lab.servers[0].addr.to_string();
    let (out_s, server_s) = (out.display().to_string(), server.clone());
    let recorded = tokio::task::spawn_blocking(move || {
        muster_json(&[
            "record",
            &server_s,
            "--out",
            &out_s,
            "--duration",
            "5",
            "--json",
        ])
    })
    .await
    .unwrap();
    let demos = recorded["demos"].as_array().unwrap();
    assert_eq!(demos.len(), 1);
    assert_eq!(demos[0]["path"], out.display().to_string());
    assert_eq!(demos[0]["map"], lab.servers[0].snapshot().mapname);
    assert_eq!(demos[0]["bytes"], std::fs::metadata(&out).unwrap().len());

    let info = muster_json(&["demo", "info", &out.display().to_string(), "--json"]);
    assert_eq!(info["maps"][0], lab.servers[0].snapshot().mapname);
    assert_eq!(info["records"], demos[0]["records"]);
    assert_eq!(info["ended"], true);
    let roster = soldiers(&truth);
    let players: std::collections::BTreeSet<String> = info["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect();
    assert!(roster.is_subset(&players));

    let output = common::run_muster(&["wire", "demo", &out.display().to_string()], "");
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, info["records"].as_u64().unwrap() + 1);
    assert_eq!(lines.last().unwrap()["end"], "end marker");
    assert_eq!(lines[0]["commands"][0]["type"], "svc_gamestate");
    assert!(lines.iter().all(|l| l.get("error").is_none()));
    let snapshots = lines
        .iter()
        .flat_map(|l| l["commands"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["type"] == "svc_snapshot")
        .count();
    assert_eq!(snapshots as u64, info["snapshots"].as_u64().unwrap());

    // A damaged file is refused with where it broke; one cut short plays what it holds.
    let bad = dir.path().join("bad.dm_3");
    std::fs::write(&bad, b"not a demo at all").unwrap();
    let output = common::run_muster(&["demo", "info", &bad.display().to_string()], "");
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("not a demo record"), "{error}");
    let cut = dir.path().join("cut.dm_3");
    let whole = std::fs::read(&out).unwrap();
    // Cut inside the payload of the record that holds the file's middle: a cut that fell on a
    // record boundary (as half the length once did) is a whole file without its end marker.
    let middle = protocol::cod::demo::Records::new(&whole)
        .map_while(Result::ok)
        .filter(|r| r.offset <= whole.len() / 2 && r.payload.len() >= 2)
        .last()
        .expect("a record before the middle");
    // Its 8-byte header (sequence, length), then half its payload.
    let inside = middle.offset + 8 + middle.payload.len() / 2;
    std::fs::write(&cut, &whole[..inside]).unwrap();
    let info = muster_json(&["demo", "info", &cut.display().to_string(), "--json"]);
    assert_eq!(info["ended"], false);
    assert!(info["problem"]
        .as_str()
        .unwrap()
        .contains("ends inside the record"));
    assert!(info["snapshots"].as_u64().unwrap() > 10);
}

async fn request(
    method: reqwest::Method,
    relay: &relay::Relay,
    path: &str,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request =
        reqwest::Client::new().request(method, format!("http://{}{path}", relay.addr));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn demos(relay: &relay::Relay) -> Value {
    request(reqwest::Method::GET, relay, "/api/demos", None)
        .await
        .json()
        .await
        .unwrap()
}

/// One lab server with a fixed roster of 8, for the relay's recordings.
async fn recorded_lab() -> Lab {
    Lab::start(LabConfig {
        players: Some(8),
        ..common::lab_config(1, 10)
    })
    .await
    .unwrap()
}

async fn recording_relay(lab: &Lab, dir: &Path, max_bytes: u64) -> relay::Relay {
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        operator_token: Some("operator-secret".into()),
        recording: Some(RecordConfig {
            dir: dir.into(),
            max_bytes,
        }),
        ..common::spectating_config(
            lab,
            SpectateConfig {
                delay: Duration::ZERO,
                ..SpectateConfig::default()
            },
        )
    })
    .await
    .unwrap();
    common::wait_listed(&relay, lab).await;
    relay
}

async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !done().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} never happened"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_records_a_hub_and_the_finished_demo_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let lab = recorded_lab().await;
    let relay = recording_relay(&lab, dir.path(), 50_000_000).await;
    let addr = lab.servers[0].addr.to_string();
    let path = format!("/api/spectate/{addr}/record");
    use reqwest::{Method, StatusCode};
    assert_eq!(
        request(Method::POST, &relay, &path, None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        request(Method::POST, &relay, &path, Some("guess"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        request(
            Method::POST,
            &relay,
            "/api/spectate/127.0.0.1:9/record",
            Some("operator-secret")
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    assert!(
        relay.hubs.list().is_empty(),
        "a refused request starts nothing"
    );
    assert_eq!(
        request(Method::POST, &relay, &path, Some("operator-secret"))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    // Recording keeps the hub joined with nobody watching; the file in progress is not served.
    until("a file is being written", async || {
        demos(&relay).await["recording"][0]["bytes"]
            .as_u64()
            .unwrap_or(0)
            > 5_000
    })
    .await;
    let listed = demos(&relay).await;
    assert_eq!(listed["demos"], serde_json::json!([]));
    let busy = listed["recording"][0]["file"].as_str().unwrap().to_owned();
    assert_eq!(
        request(Method::GET, &relay, &format!("/demos/{busy}"), None)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // Stopped once what is on disk covers some seconds of the match.
    until("the file in progress covers 3 s of the match", async || {
        let on_disk = std::fs::read(dir.path().join(&busy)).unwrap_or_default();
        Timeline::open(on_disk).is_ok_and(|t| t.summary().duration_ms > 3000)
    })
    .await;
    assert_eq!(
        request(Method::DELETE, &relay, &path, Some("operator-secret"))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    until("the demo is finished", async || {
        demos(&relay).await["demos"]
            .as_array()
            .is_some_and(|d| d.len() == 1)
    })
    .await;
    let listed = demos(&relay).await;
    let demo = &listed["demos"][0];
    assert_eq!(demo["name"], busy);
    assert_eq!(demo["map"], lab.servers[0].snapshot().mapname);
    let served = request(Method::GET, &relay, demo["url"].as_str().unwrap(), None)
        .await
        .bytes()
        .await
        .unwrap();
    let on_disk = std::fs::read(dir.path().join(&busy)).unwrap();
    assert_eq!(served[..], on_disk[..]);
    assert!(on_disk.ends_with(&END_MARKER));
    let timeline = Timeline::open(on_disk).unwrap();
    assert!(
        timeline.summary().duration_ms > 2500,
        "{:?}",
        timeline.summary()
    );
    for bad in ["..%2Fx.dm_3", "x.txt", "nothing.dm_3"] {
        assert_eq!(
            request(Method::GET, &relay, &format!("/demos/{bad}"), None)
                .await
                .status(),
            StatusCode::NOT_FOUND
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recording_stops_itself_at_its_size_limit_with_a_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let lab = recorded_lab().await;
    let limit = 20_000;
    let relay = recording_relay(&lab, dir.path(), limit).await;
    let hub = relay.hubs.record(lab.servers[0].addr).unwrap();
    until("the recording stops at its limit", async || {
        hub.status().record_stopped.is_some()
    })
    .await;
    assert!(!hub.record_wanted());
    assert!(hub.status().record_stopped.unwrap().contains("limit"));
    let files: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let file = std::fs::read(&files[0]).unwrap();
    assert!(
        file.len() as u64 <= limit && file.len() as u64 > limit / 2,
        "{}",
        file.len()
    );
    assert!(file.ends_with(&END_MARKER));
    let timeline = Timeline::open(file).unwrap();
    assert!(timeline.summary().ended && timeline.summary().problem.is_none());
}
