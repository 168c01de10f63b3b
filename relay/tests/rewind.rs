//! The rewind window against a lab server on 127.0.0.1: what it holds is what the server ran
//! (kills and positions by the lab's truth file), a viewer goes back to a past moment and
//! plays on from it at its own speed while another stays live, and nothing newer than the
//! broadcast delay reaches either.

use crate::common;

use std::time::Duration;

use common::truth::{lab_with_truth, placed_as_the_truth, positions, true_kills};
use common::{start_spectating_relay, wait_listed, Viewer};
use lab::Lab;
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::watch::{ViewerMessage, WatchMessage};
use relay::spectate::SpectateConfig;

const LIMIT: Duration = Duration::from_secs(30);
const DELAY: Duration = Duration::from_secs(2);

fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

async fn window(relay: &relay::Relay, addr: &str) -> RewindWindow {
    let url = format!("http://{}/api/spectate/{addr}/rewind", relay.addr);
    let answer = reqwest::get(url).await.unwrap();
    assert_eq!(answer.status(), 200);
    answer.json().await.unwrap()
}

/// Every keyframe and update received after index `from` was released at least the delay
/// before it arrived.
fn none_early(viewer: &Viewer, from: usize, delay: Duration) {
    for (at, message) in &viewer.received[from..] {
        let relay_us = match message {
            WatchMessage::Keyframe { relay_us, .. } | WatchMessage::Update { relay_us, .. } => {
                *relay_us
            }
            _ => continue,
        };
        let arrived_us = now_us() - at.elapsed().as_micros() as u64;
        assert!(
            arrived_us >= relay_us + delay.as_micros() as u64,
            "a message {} ms early",
            (relay_us + delay.as_micros() as u64 - arrived_us) / 1000
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_viewer_goes_back_to_a_past_moment_and_sees_what_the_server_ran_then() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab_with_truth(&path)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let spectate = SpectateConfig {
        delay: DELAY,
        ..SpectateConfig::default()
    };
    let relay = start_spectating_relay(&lab, spectate).await;
    wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let mut live = Viewer::open(&relay, &addr).await;
    // Twelve seconds of match: more than two keyframes' worth.
    live.until(LIMIT, |v| v.seq >= 240).await;

    // The window: behind the delay, and its kills are the server's of that span.
    let held = window(&relay, &addr).await;
    assert!(
        held.end_us + DELAY.as_micros() as u64 <= now_us(),
        "the delay holds"
    );
    assert!(held.end_us - held.start_us >= 8_000_000, "{held:?}");
    assert!(held.keyframes >= 2, "{held:?}");
    let inner = held.start_server_time + 1000..=held.end_server_time - 1000;
    let truth: Vec<(String, String)> = true_kills(&path)
        .range(inner.clone())
        .flat_map(|(_, k)| k.clone())
        .collect();
    let shown: Vec<(String, String)> = held
        .kills
        .iter()
        .filter(|k| inner.contains(&k.server_time))
        .map(|k| (k.attacker.clone().unwrap_or_default(), k.victim.clone()))
        .collect();
    assert!(!truth.is_empty(), "the lab killed nobody in {inner:?}");
    assert_eq!(shown, truth, "the window's kills are the server's");

    // A second viewer goes back six seconds and holds there (paused).
    let mut back = Viewer::open(&relay, &addr).await;
    back.until(LIMIT, |v| v.view.is_some()).await;
    let from = back.received.len();
    let target = held.end_us - 6_000_000;
    back.say(ViewerMessage::Seek {
        relay_us: target,
        speed_pct: 0,
    })
    .await;
    back.until(LIMIT, |v| v.playing == Some((false, 0))).await;
    // The keyframe and the updates up to the moment follow the word at once.
    let settle = tokio::time::Instant::now() + Duration::from_millis(500);
    while let Ok(Some(_)) = tokio::time::timeout_at(settle, back.next()).await {}
    let at = back.view.clone().unwrap();
    // What came after the relay's word (live updates may precede it).
    let from = from
        + back.received[from..]
            .iter()
            .position(|(_, m)| matches!(m, WatchMessage::Playing { .. }))
            .unwrap()
        + 1;
    let sent: Vec<u64> = back.received[from..]
        .iter()
        .filter_map(|(_, m)| match m {
            WatchMessage::Keyframe { relay_us, .. } | WatchMessage::Update { relay_us, .. } => {
                Some(*relay_us)
            }
            _ => None,
        })
        .collect();
    assert!(
        matches!(back.received[from].1, WatchMessage::Keyframe { .. }),
        "a seek starts from a keyframe"
    );
    assert!(
        sent.len() <= 1 + 5 * 25,
        "one keyframe and at most 5 s of updates"
    );
    assert!(*sent.last().unwrap() <= target);
    assert!(
        *sent.last().unwrap() + 200_000 >= target,
        "it reached the moment"
    );
    // What it shows is what the server ran then.
    let frames = positions(&path);
    let placed = placed_as_the_truth(&at, &frames);
    assert!(placed.len() >= 8, "{} players placed", placed.len());
    assert!(at.server_time < live.view.as_ref().unwrap().server_time - 4000);
    // Paused: nothing more of the match comes while the live viewer moves on.
    let seq = back.seq;
    let live_seq = live.seq;
    live.until(LIMIT, |v| v.seq >= live_seq + 20).await;
    let quiet = tokio::time::Instant::now() + Duration::from_millis(300);
    while let Ok(Some(_)) = tokio::time::timeout_at(quiet, back.next()).await {}
    assert_eq!(back.seq, seq, "a paused viewer is sent no updates");

    // Played at twice the speed it catches up with the live edge and is live again.
    let from = back.received.len();
    back.say(ViewerMessage::Seek {
        relay_us: target,
        speed_pct: 200,
    })
    .await;
    back.until(LIMIT, |v| v.playing == Some((true, 100))).await;
    back.until(LIMIT, |v| v.seq > seq).await;
    let live_seq = back.seq;
    back.until(LIMIT, |v| v.seq >= live_seq + 20).await;
    none_early(&back, from, DELAY);
    none_early(&live, 0, DELAY);

    // Going back again, then asking for live, comes back at once with a fresh keyframe.
    back.say(ViewerMessage::Seek {
        relay_us: held.start_us,
        speed_pct: 100,
    })
    .await;
    back.until(LIMIT, |v| v.playing == Some((false, 100))).await;
    back.say(ViewerMessage::Live).await;
    back.until(LIMIT, |v| v.playing == Some((true, 100))).await;
    let from = back.received.len();
    back.until(LIMIT, |v| v.received.len() > from).await;
    assert!(matches!(
        back.received[from].1,
        WatchMessage::Keyframe { .. }
    ));
    // A speed past the limit is bad input: that socket closes, the other stays.
    back.say(ViewerMessage::Seek {
        relay_us: held.start_us,
        speed_pct: 10_000,
    })
    .await;
    let closed = tokio::time::timeout(LIMIT, async { while back.next().await.is_some() {} }).await;
    assert!(closed.is_ok(), "the socket closed");
    let live_seq = live.seq;
    live.until(LIMIT, |v| v.seq >= live_seq + 5).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_window_is_dropped_with_its_hub_and_none_is_kept_when_rewinding_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab_with_truth(&path)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let spectate = SpectateConfig {
        delay: Duration::ZERO,
        grace: Duration::from_millis(500),
        ..SpectateConfig::default()
    };
    let relay = start_spectating_relay(&lab, spectate.clone()).await;
    wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let url = format!("http://{}/api/spectate/{addr}/rewind", relay.addr);
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 404);
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.seq >= 40).await;
    let held = window(&relay, &addr).await;
    assert!(held.bytes > 0);
    drop(viewer);
    // The hub leaves after its grace period, and its window with it.
    let deadline = tokio::time::Instant::now() + LIMIT;
    while reqwest::get(&url).await.unwrap().status() != 404 {
        assert!(tokio::time::Instant::now() < deadline, "the window stayed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // With --rewind-minutes 0 a viewer's seek changes nothing and the route says why.
    let off = relay::ServeConfig {
        rewind: None,
        ..common::spectating_config(&lab, spectate)
    };
    let relay = relay::Relay::start(off).await.unwrap();
    wait_listed(&relay, &lab).await;
    let url = format!("http://{}/api/spectate/{addr}/rewind", relay.addr);
    let answer = reqwest::get(&url).await.unwrap();
    assert_eq!(answer.status(), 404);
    assert!(answer.text().await.unwrap().contains("--rewind-minutes 0"));
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer.until(LIMIT, |v| v.seq >= 10).await;
    viewer
        .say(ViewerMessage::Seek {
            relay_us: 0,
            speed_pct: 100,
        })
        .await;
    let seq = viewer.seq;
    viewer.until(LIMIT, |v| v.seq >= seq + 10).await;
    assert_eq!(viewer.playing, None, "still live");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_32_player_match_s_window_fits_the_hub_s_budget() {
    let config = lab::LabConfig {
        players: Some(32),
        ..common::lab_config(1, 10)
    };
    let lab = Lab::start(config).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let spectate = SpectateConfig {
        delay: Duration::ZERO,
        ..SpectateConfig::default()
    };
    let relay = start_spectating_relay(&lab, spectate).await;
    wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let mut viewer = Viewer::open(&relay, &addr).await;
    viewer
        .until(LIMIT, |v| {
            v.view.as_ref().is_some_and(|m| m.players.len() >= 32)
        })
        .await;
    let seq = viewer.seq;
    // Twenty seconds of a full match.
    viewer
        .until(Duration::from_secs(60), |v| v.seq >= seq + 400)
        .await;
    let held = window(&relay, &addr).await;
    let span_s = (held.end_us - held.start_us) as f64 / 1e6;
    // The window and the reel moments are cut from share the hub's budget.
    assert!(held.reel_bytes > 0, "the session's relay keeps a reel");
    let per_minute = (held.bytes + held.reel_bytes) as f64 / span_s * 60.0;
    let default = relay::rewind::RewindArgs::default();
    let full = per_minute * f64::from(default.rewind_minutes);
    eprintln!(
        "rewind window, 32 players: {} bytes and a reel of {} over {span_s:.1} s in {} keyframes: \
         {:.0} KB a minute, {:.1} MB for {} minutes",
        held.bytes,
        held.reel_bytes,
        held.keyframes,
        per_minute / 1e3,
        full / 1e6,
        default.rewind_minutes
    );
    assert!(
        full <= f64::from(default.rewind_hub_mb) * 1e6,
        "{:.1} MB for a full window, over the {} MB budget",
        full / 1e6,
        default.rewind_hub_mb
    );
}
