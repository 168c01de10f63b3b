//! Moments against a lab server on 127.0.0.1 whose truth file says what it ran: a moment cut
//! from a watched match is a stock demo that the project's demo reader reads back with exactly
//! the server's snapshots of its span and the server's kills, behind the broadcast delay; it is
//! kept in the store, has a page with card tags and a still, and bad asks are refused.

use crate::common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::truth::{lab_with_truth, placed_as_the_truth, positions, true_kills};
use common::{sqlite_history, wait_listed, Viewer};
use lab::Lab;
use protocol::cod::demo::{Playback, Records};
use protocol::cod::stream::{Heard, Said};
use protocol::cod::watch::timeline::Timeline;
use protocol::relay_api::moments::{MomentCreated, MomentDetail};
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::watch::WatchMessage;
use relay::spectate::SpectateConfig;

const LIMIT: Duration = Duration::from_secs(30);
const DELAY: Duration = Duration::from_secs(2);

fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

async fn post(relay: &relay::Relay, body: serde_json::Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{}/api/moments", relay.addr))
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn get(relay: &relay::Relay, path: &str) -> reqwest::Response {
    reqwest::get(format!("http://{}{path}", relay.addr))
        .await
        .unwrap()
}

/// The server times of every snapshot in a demo, as the demo reader reads them.
fn snapshot_times(demo: &[u8]) -> Vec<i32> {
    let mut playback = Playback::new();
    let mut times = Vec::new();
    let mut records = Records::new(demo);
    for record in records.by_ref() {
        for heard in playback.read(&record.unwrap()).unwrap() {
            match heard {
                Heard::Said(Said::Snapshot(s)) => times.push(s.server_time),
                Heard::Said(_) => {}
                other => panic!("the clip reads back with {other:?}"),
            }
        }
    }
    assert!(records.ended, "the clip ends with the end marker");
    times
}

#[tokio::test(flavor = "multi_thread")]
async fn a_moment_is_the_servers_own_span_as_a_stock_demo_with_a_page_and_a_still() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab_with_truth(&path)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let spectate = SpectateConfig {
        delay: DELAY,
        ..SpectateConfig::default()
    };
    let mut config = common::spectating_config(&lab, spectate);
    config.history = Some(sqlite_history(dir.path()));
    config.moments.moment_per_hour = 3;
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let mut viewer = Viewer::open(&relay, &addr).await;
    // Fifteen seconds of match.
    viewer.until(LIMIT, |v| v.seq >= 300).await;

    // Ten seconds ending two before the live edge.
    let answer = post(
        &relay,
        serde_json::json!({"server": addr, "from": -12, "to": -2}),
    )
    .await;
    assert_eq!(answer.status(), 201);
    let created: MomentCreated = answer.json().await.unwrap();
    assert_eq!(created.url, format!("/m/{}", created.id));
    let window: RewindWindow = get(&relay, &format!("/api/spectate/{addr}/rewind"))
        .await
        .json()
        .await
        .unwrap();
    let detail: MomentDetail = get(&relay, &format!("/api/moments/{}", created.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail.server, addr);
    assert!(
        detail.to_ms * 1000 + DELAY.as_micros() as u64 <= now_us(),
        "the delay holds"
    );
    let span = detail.to_ms - detail.from_ms;
    assert!((9_900..=10_100).contains(&span), "{span} ms");
    assert!(detail.last_server_time <= window.end_server_time);

    // The clip, read back by the demo reader: every snapshot the server sent the relay's
    // session in the span (each one the viewers were shown; the server skips frames when a
    // client's rate is spent), all of them frames the server ran, and no other.
    let demo = get(&relay, &format!("/api/moments/{}.dm_3", created.id))
        .await
        .bytes()
        .await
        .unwrap()
        .to_vec();
    assert_eq!(demo.len() as u64, detail.bytes);
    let times = snapshot_times(&demo);
    assert_eq!(times.len() as u32, detail.snapshots);
    assert_eq!(*times.first().unwrap(), detail.first_server_time);
    assert_eq!(*times.last().unwrap(), detail.last_server_time);
    let frames = positions(&path);
    let ran: BTreeSet<i32> = frames
        .range(detail.first_server_time..=detail.last_server_time)
        .map(|(t, _)| *t)
        .collect();
    let shown: BTreeSet<i32> = times.iter().copied().collect();
    assert_eq!(shown.len(), times.len(), "no snapshot twice");
    assert!(shown.is_subset(&ran), "only frames the server ran");
    let broadcast: BTreeSet<i32> = viewer
        .received
        .iter()
        .filter_map(|(_, m)| match m {
            WatchMessage::Update { update, .. } => Some(update.server_time),
            _ => None,
        })
        .filter(|t| (detail.first_server_time..=detail.last_server_time).contains(t))
        .collect();
    assert_eq!(shown, broadcast, "exactly the snapshots of the span");
    assert!(
        shown.len() * 2 >= ran.len(),
        "{} of {} frames",
        shown.len(),
        ran.len()
    );

    // Its kills are the server's kills of the span, in the clip and in the description.
    let mut timeline = Timeline::open(demo.clone()).unwrap();
    let summary = timeline.summary().clone();
    let truth: Vec<(String, String)> = true_kills(&path)
        .range(detail.first_server_time + 1..=detail.last_server_time)
        .flat_map(|(_, k)| k.clone())
        .collect();
    // A kill just before the span may still ride in its first snapshot (an event entity
    // lives a few frames), as it would in a stock recording started then: from after it on.
    let in_clip: Vec<(String, String)> = summary
        .kills
        .iter()
        .filter(|k| k.server_time > detail.first_server_time)
        .map(|k| (k.attacker.clone().unwrap_or_default(), k.victim.clone()))
        .collect();
    assert!(!truth.is_empty(), "the lab killed nobody in ten seconds");
    assert_eq!(in_clip, truth, "the clip's kills are the server's");
    let described: Vec<(String, String)> = detail
        .kills
        .iter()
        .filter(|k| k.server_time > detail.first_server_time)
        .map(|k| (k.attacker.clone().unwrap_or_default(), k.victim.clone()))
        .collect();
    assert_eq!(described, truth);
    // And where everyone stood is where the server had them.
    timeline.advance_to(summary.duration_ms / 2);
    let placed = placed_as_the_truth(&timeline.view(), &frames);
    assert!(placed.len() >= 8, "{} placed", placed.len());

    // The still: a 512 x 512 PNG.
    let still = get(&relay, &format!("/api/moments/{}.png", created.id)).await;
    assert_eq!(still.headers()["content-type"], "image/png");
    let png = still.bytes().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[16..24], &[0, 0, 2, 0, 0, 0, 2, 0]);

    // The page: a card for chats and forums, the still, the clip; the embed likewise.
    let page = get(&relay, &created.url).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let image = format!(
        "<meta property=\"og:image\" content=\"http://{}/api/moments/{}.png\">",
        relay.addr, created.id
    );
    assert!(html.contains(&image), "{html}");
    assert!(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"));
    assert!(html.contains(&format!("href=\"/api/moments/{}.dm_3\"", created.id)));
    let embed = get(&relay, &format!("{}/embed", created.url)).await;
    assert_eq!(embed.status(), 200);
    assert!(embed
        .text()
        .await
        .unwrap()
        .contains("<body class=\"embed\">"));

    // Past the live edge is clamped to it: nothing newer than the delay, even asked for.
    let answer = post(
        &relay,
        serde_json::json!({"server": addr, "from": -5, "to": 10}),
    )
    .await;
    assert_eq!(answer.status(), 201);
    let ahead: MomentCreated = answer.json().await.unwrap();
    let ahead: MomentDetail = get(&relay, &format!("/api/moments/{}", ahead.id))
        .await
        .json()
        .await
        .unwrap();
    assert!(ahead.to_ms * 1000 + DELAY.as_micros() as u64 <= now_us());

    // Refusals, each with its reason, and nothing kept for them.
    for (body, status, says) in [
        (
            serde_json::json!({"server": "nowhere", "from": -5, "to": 0}),
            400,
            "IPv4",
        ),
        (
            serde_json::json!({"server": addr, "from": -5, "to": -10}),
            400,
            "before it starts",
        ),
        (
            serde_json::json!({"server": addr, "from": -300, "to": 0}),
            400,
            "at most 120",
        ),
        (serde_json::json!({"server": addr}), 400, "expected"),
        (
            serde_json::json!({"server": "127.0.0.1:1", "from": -5, "to": 0}),
            404,
            "no rewind window",
        ),
    ] {
        let answer = post(&relay, body.clone()).await;
        assert_eq!(answer.status(), status, "{body}");
        assert!(answer.text().await.unwrap().contains(says), "{body}");
    }
    for missing in [
        "/api/moments/aaaaaaaaaa",
        "/api/moments/aaaaaaaaaa.png",
        "/m/aaaaaaaaaa",
        "/api/moments/..%2Fx",
        "/m/x",
    ] {
        assert_eq!(get(&relay, missing).await.status(), 404, "{missing}");
    }

    // One address makes at most --moment-per-hour (3 here: two made above).
    let answer = post(
        &relay,
        serde_json::json!({"server": addr, "from": -5, "to": 0}),
    )
    .await;
    assert_eq!(answer.status(), 201);
    let answer = post(
        &relay,
        serde_json::json!({"server": addr, "from": -5, "to": 0}),
    )
    .await;
    assert_eq!(answer.status(), 429);
    assert!(answer.headers().contains_key("retry-after"));
    assert!(answer.text().await.unwrap().contains("--moment-per-hour"));

    // Kept in the store: a relay started afresh on it serves the moment.
    relay.shutdown().await;
    drop(viewer);
    let mut config = common::spectating_config(&lab, SpectateConfig::default());
    config.history = Some(sqlite_history(dir.path()));
    let again = relay::Relay::start(config).await.unwrap();
    let kept = get(&again, &format!("/api/moments/{}.dm_3", created.id)).await;
    assert_eq!(kept.bytes().await.unwrap().to_vec(), demo);
}
