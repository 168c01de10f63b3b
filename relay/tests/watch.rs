//! Spectator hubs against lab servers on 127.0.0.1: one session however many watch, the
//! broadcast delay, the grace period, map changes and restarts, a lossy link, refusals and bad
//! viewer input. Viewers are WebSocket clients that decode and apply what the page does.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::truth::{placed_as_the_truth, positions};
use common::{start_spectating_relay, wait_listed, Viewer};
use futures_util::SinkExt;
use lab::{Lab, LabConfig};
use protocol::relay_api::watch::{FeedItem, HubState, Team, ViewerMessage, WatchMessage};
use relay::spectate::SpectateConfig;
use tokio_tungstenite::tungstenite::Message;

const LIMIT: Duration = Duration::from_secs(30);

fn watched_lab(players: usize) -> LabConfig {
    LabConfig {
        players: Some(players),
        ..common::lab_config(1, 10)
    }
}

fn hubs(delay_ms: u64) -> SpectateConfig {
    SpectateConfig {
        delay: Duration::from_millis(delay_ms),
        grace: Duration::from_secs(1),
        ..SpectateConfig::default()
    }
}

async fn started(config: LabConfig, spectate: SpectateConfig) -> (Lab, relay::Relay, String) {
    let lab = Lab::start(config).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_spectating_relay(&lab, spectate).await;
    wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    (lab, relay, addr)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_viewer_watches_the_match_with_names_positions_kills_and_scores() {
    let (lab, relay, addr) = started(watched_lab(12), hubs(0)).await;
    let mut viewer = Viewer::open(&relay, &addr).await;
    let roster: BTreeSet<String> = lab.servers[0].snapshot().roster();
    viewer
        .until(LIMIT, |v| {
            let Some(view) = &v.view else { return false };
            let kills = view
                .feed
                .iter()
                .filter(|f| matches!(f, FeedItem::Kill { .. }))
                .count();
            let placed = view.players.iter().filter(|p| p.seen.is_some()).count();
            kills >= 2 && placed >= 10 && view.players.iter().any(|p| p.score != 0)
        })
        .await;
    let view = viewer.view.clone().unwrap();
    assert_eq!(viewer.status.as_ref().unwrap().state, HubState::Active);
    let names: BTreeSet<String> = view
        .players
        .iter()
        .filter(|p| p.team != Team::Spectator)
        .map(|p| p.name.clone())
        .collect();
    assert_eq!(
        names, roster,
        "the names are the server's getstatus players"
    );
    assert!(view
        .players
        .iter()
        .any(|p| p.team == Team::Spectator && p.name == "Muster"));
    assert!(view.players.iter().any(|p| p.team == Team::Axis));
    assert!(view.players.iter().any(|p| p.team == Team::Allies));
    assert_eq!(view.header.map, lab.servers[0].snapshot().mapname);
    assert!(!view.header.hostname.is_empty());
    // Positions move: a later view has moved soldiers.
    let before: BTreeMap<u8, [i32; 3]> =
        view.players.iter().map(|p| (p.client, p.origin)).collect();
    viewer
        .until(LIMIT, |v| {
            v.view
                .as_ref()
                .unwrap()
                .players
                .iter()
                .filter(|p| before.get(&p.client) != Some(&p.origin))
                .count()
                >= 5
        })
        .await;
    // The JSON API says the same.
    let api: serde_json::Value = reqwest::get(format!("http://{}/api/spectate/{addr}", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(api["state"], "active");
    let players = api["match"]["players"].as_array().unwrap();
    assert!(players
        .iter()
        .all(|p| p["client"].is_u64() && p["name"].is_string()));
    assert!(players
        .iter()
        .any(|p| p["last_seen_ms"].is_u64() && p["origin"].is_array()));
    let list: serde_json::Value = reqwest::get(format!("http://{}/api/spectate", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list[0]["addr"], addr);
    assert_eq!(list[0]["viewers"], 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn fifty_viewers_cost_the_server_one_session() {
    let (lab, relay, addr) = started(watched_lab(8), hubs(0)).await;
    let mut viewers = Vec::new();
    for _ in 0..50 {
        viewers.push(Viewer::open(&relay, &addr).await);
    }
    for viewer in &mut viewers {
        viewer.until(LIMIT, |v| v.seq >= 3).await;
    }
    assert_eq!(
        lab.servers[0].connects(),
        1,
        "one connect for fifty viewers"
    );
    let spectators = lab.servers[0]
        .snapshot()
        .players
        .iter()
        .filter(|p| p.spectator)
        .count();
    assert_eq!(spectators, 1);
    // They all hold the same match: stopped at one sequence, their views are equal.
    let target = viewers.iter().map(|v| v.seq).max().unwrap() + 3;
    for viewer in &mut viewers {
        viewer.until(LIMIT, |v| v.seq >= target).await;
        assert_eq!(viewer.seq, target);
    }
    let first = viewers[0].view.clone().unwrap();
    assert!(viewers.iter().all(|v| v.view.as_ref() == Some(&first)));
}

#[tokio::test(flavor = "multi_thread")]
async fn with_a_three_second_delay_nothing_reaches_a_viewer_early() {
    let (lab, relay, addr) = started(watched_lab(8), hubs(3000)).await;
    let opened = tokio::time::Instant::now();
    let mut viewer = Viewer::open(&relay, &addr).await;
    // A session of our own on the same server: when each server time was live.
    let live = std::sync::Arc::new(std::sync::Mutex::new(
        BTreeMap::<i64, tokio::time::Instant>::new(),
    ));
    let seen = live.clone();
    let server = lab.servers[0].addr;
    let direct = tokio::spawn(async move {
        let options = relay::cli::spectate::SpectateOptions {
            name: "Direct".into(),
            duration: Some(Duration::from_secs(9)),
            ..Default::default()
        };
        relay::cli::spectate::spectate(std::net::SocketAddr::V4(server), options, move |line| {
            if let relay::cli::spectate::Line::Snapshot(snapshot) = line {
                let time = i64::from(snapshot.server_time);
                seen.lock()
                    .unwrap()
                    .insert(time, tokio::time::Instant::now());
            }
            Ok(())
        })
        .await
    });
    viewer
        .until(LIMIT, |v| {
            v.status.as_ref().is_some_and(|s| s.filling_ms > 0)
        })
        .await;
    let status = viewer.status.clone().unwrap();
    assert_eq!(status.delay_ms, 3000);
    assert!(status.filling_ms <= 3000);
    viewer.until(LIMIT, |v| v.seq >= 80).await;
    direct.await.unwrap().unwrap();
    let first = viewer.received.first().unwrap().0;
    assert!(
        first - opened >= Duration::from_secs(3),
        "the first picture waited out the delay"
    );
    let live = live.lock().unwrap();
    let mut checked = 0;
    for (at, message) in &viewer.received {
        let WatchMessage::Keyframe { view: v, .. } = message else {
            if let WatchMessage::Update { update, .. } = message {
                let time = i64::from(update.server_time);
                if let Some((_, live_at)) = live.range(..=time).next_back() {
                    assert!(
                        *at + Duration::from_millis(60) >= *live_at + Duration::from_secs(3),
                        "server time {time} reached the viewer {:?} after it was live",
                        at.duration_since(*live_at)
                    );
                    checked += 1;
                }
            }
            continue;
        };
        assert!(v.server_time > 0);
    }
    assert!(
        checked > 40,
        "{checked} updates compared with the live session"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_hub_leaves_after_the_last_viewer_and_the_grace_period() {
    let (lab, relay, addr) = started(watched_lab(6), hubs(0)).await;
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.seq >= 2).await;
    let listed = |lab: &Lab| {
        lab.servers[0]
            .snapshot()
            .players
            .iter()
            .any(|p| p.spectator && p.name == "Muster")
    };
    assert!(listed(&lab));
    let dropped = tokio::time::Instant::now();
    drop(viewer);
    // Gone, with a clean disconnect the server saw...
    let deadline = dropped + LIMIT;
    while !relay.hubs.list().is_empty() || listed(&lab) {
        assert!(tokio::time::Instant::now() < deadline, "the hub stayed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // ...no sooner than its grace period after the last viewer went (the hub can only leave
    // later than that, never earlier, however slow the machine).
    assert!(
        dropped.elapsed() >= Duration::from_secs(1),
        "{:?}",
        dropped.elapsed()
    );
    let api: serde_json::Value = reqwest::get(format!("http://{}/api/spectate", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(api, serde_json::json!([]));
    // A new viewer starts a new hub: a second connect.
    let mut again = Viewer::open(&relay, &addr).await;
    again.until(LIMIT, |v| v.seq >= 1).await;
    assert_eq!(lab.servers[0].connects(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_map_change_and_a_server_restart_are_followed() {
    let config = LabConfig {
        map_time: Some(Duration::from_secs(4)),
        ..watched_lab(6)
    };
    let (lab, relay, addr) = started(config, hubs(0)).await;
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.view.is_some()).await;
    let first_map = viewer.view.as_ref().unwrap().header.map.clone();
    viewer
        .until(LIMIT, |v| v.view.as_ref().unwrap().header.map != first_map)
        .await;
    assert!(viewer
        .view
        .as_ref()
        .unwrap()
        .feed
        .iter()
        .any(|f| matches!(f,
        FeedItem::Message { text, .. } if text.starts_with("Loading "))));
    // The server goes away and comes back on the same port, knowing nothing of us.
    let port = lab.servers[0].addr.port();
    drop(lab);
    viewer
        .until(LIMIT, |v| {
            matches!(v.status.as_ref().unwrap().state, HubState::Rejoining { .. })
        })
        .await;
    let restarted = Lab::start(LabConfig {
        base_port: port,
        ..watched_lab(6)
    })
    .await
    .unwrap();
    viewer
        .until(LIMIT, |v| {
            v.status.as_ref().unwrap().state == HubState::Active
        })
        .await;
    let seq = viewer.seq;
    viewer.until(LIMIT, |v| v.seq >= seq + 20).await;
    assert_eq!(restarted.servers[0].connects(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn over_a_lossy_link_the_viewers_model_converges_to_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.jsonl");
    let config = LabConfig {
        faults: lab::FaultPlan {
            lossy: 1.0,
            loss_rate: 0.2,
            ..lab::FaultPlan::default()
        },
        truth: Some(lab::Truth::create(&path).unwrap()),
        ..watched_lab(10)
    };
    let (_lab, relay, addr) = started(config, hubs(0)).await;
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.seq >= 150).await;
    let view = viewer.view.clone().unwrap();
    let frames = positions(&path);
    let mut exact = 0;
    let mut recent = 0;
    let living: Vec<u8> = frames
        .range(..=view.server_time)
        .next_back()
        .map(|(_, f)| {
            f.iter()
                .filter(|(_, (_, alive))| *alive)
                .map(|(n, _)| *n)
                .collect()
        })
        .unwrap_or_default();
    for (client, seen) in placed_as_the_truth(&view, &frames) {
        exact += 1;
        if living.contains(&client) && view.server_time - seen <= 1000 {
            recent += 1;
        }
    }
    assert!(exact >= 8, "{exact} players placed");
    assert!(
        recent * 10 >= living.len() * 7,
        "{recent} of {} living players seen in the last second",
        living.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_viewer_input_closes_only_that_socket() {
    let (_lab, relay, addr) = started(watched_lab(4), hubs(0)).await;
    let mut good = Viewer::open(&relay, &addr).await;
    good.until(LIMIT, |v| v.seq >= 2).await;
    for bad in [
        Message::Binary(vec![0xff, 0xfe, 0x00].into()),
        Message::Text("{\"type\":\"watch\"}".into()),
        Message::Binary(vec![0u8; 4096].into()),
    ] {
        let mut viewer = Viewer::open(&relay, &addr).await;
        viewer.until(LIMIT, |v| v.status.is_some()).await;
        let _ = viewer.socket.send(bad).await;
        let ended =
            tokio::time::timeout(LIMIT, async { while viewer.next().await.is_some() {} }).await;
        assert!(ended.is_ok(), "the misbehaving viewer was closed");
    }
    // A well-formed request for a keyframe is answered.
    let mut polite = Viewer::open(&relay, &addr).await;
    polite.until(LIMIT, |v| v.seq >= 1).await;
    polite
        .socket
        .send(Message::Binary(ViewerMessage::Keyframe.encode().into()))
        .await
        .unwrap();
    let keyframes = polite.received.len();
    polite
        .until(LIMIT, |v| {
            v.received[keyframes..]
                .iter()
                .any(|(_, m)| matches!(m, WatchMessage::Keyframe { .. }))
        })
        .await;
    let seq = good.seq;
    good.until(LIMIT, |v| v.seq >= seq + 10).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn only_listed_servers_can_be_watched_and_hubs_are_bounded() {
    let config = common::lab_config(2, 10);
    let spectate = SpectateConfig {
        max_hubs: 1,
        ..hubs(0)
    };
    let (lab, relay, addr) = started(config, spectate).await;
    let refused = |target: String| {
        let url = format!("ws://{}/spectate/{target}", relay.addr);
        async move {
            match tokio_tungstenite::connect_async(&url).await {
                Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                    response.status().as_u16()
                }
                other => panic!("{target}: {other:?}"),
            }
        }
    };
    assert_eq!(refused("127.0.0.1:9".into()).await, 404);
    assert_eq!(refused("not-an-address".into()).await, 400);
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.status.is_some()).await;
    assert_eq!(refused(lab.servers[1].addr.to_string()).await, 503);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_server_s_refusal_reaches_the_viewer_in_its_own_words() {
    let lab = Lab::start(watched_lab(4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    lab.servers[0].profile.lock().unwrap().fill_public_slots();
    let relay = start_spectating_relay(&lab, hubs(0)).await;
    wait_listed(&relay, &lab).await;
    let mut viewer = Viewer::open(&relay, &lab.servers[0].addr.to_string()).await;
    viewer
        .until(LIMIT, |v| {
            v.status.as_ref().is_some_and(|s| {
                matches!(&s.state,
                HubState::Refused { reason, .. } if reason == "EXE_SERVERISFULL")
            })
        })
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operator_s_overview_is_served_and_announced() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("foy.png");
    let png = b"\x89PNG\r\n\x1a\nnot really an image".to_vec();
    std::fs::write(&image, &png).unwrap();
    let flag = format!("mp_foy={},-3000,2500,3000,-2500", image.display());
    let spectate = SpectateConfig {
        overviews: vec![relay::spectate::OverviewFile::parse(&flag).unwrap()],
        ..hubs(0)
    };
    let (_lab, relay, addr) = started(watched_lab(4), spectate).await;
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.status.is_some()).await;
    let overviews = viewer.status.clone().unwrap().overviews;
    assert_eq!(overviews.len(), 1);
    assert_eq!(overviews[0].url, "/overview/mp_foy");
    assert_eq!((overviews[0].x0, overviews[0].y1), (-3000.0, -2500.0));
    let response = reqwest::get(format!("http://{}/overview/mp_foy", relay.addr))
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "image/png");
    assert_eq!(response.bytes().await.unwrap().to_vec(), png);
    let missing = reqwest::get(format!("http://{}/overview/mp_carentan", relay.addr))
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}
