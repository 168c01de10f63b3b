//! The demo player: a recording of a lab match played with seeking and the kill list.

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_recorded_lab_demo_plays_in_the_page_with_seeking_and_the_kill_list() {
    let dir = tempfile::tempdir().unwrap();
    let lab = one_match_lab().await;
    let relay = relay::Relay::start(relay::ServeConfig {
        operator_token: Some("operator-secret".into()),
        recording: Some(relay::demos::RecordConfig {
            dir: dir.path().into(),
            max_bytes: 50_000_000,
        }),
        ..common::spectating_config(
            &lab,
            relay::spectate::SpectateConfig {
                delay: Duration::ZERO,
                ..Default::default()
            },
        )
    })
    .await
    .unwrap();
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let (_driver, client) = open_page(&relay, 1400, 900).await;

    // The operator records from the watch view: the page asks for the token once.
    client
        .goto(&format!("http://{}/#/watch/{addr}", relay.addr))
        .await
        .unwrap();
    eventually("the Record button shows", async || {
        (count(&client, "[data-testid=record]").await == 1)
            .then_some(())
            .ok_or_else(|| "no button".to_owned())
    })
    .await;
    click(&client, "[data-testid=record]").await;
    client.send_alert_text("operator-secret").await.unwrap();
    client.accept_alert().await.unwrap();
    let hub = format!("http://{}/api/spectate/{addr}", relay.addr);
    eventually("the recording shows", async || {
        let state = text_of(&client, "[data-testid=record-state]").await?;
        if state.contains(".dm_3") {
            return Ok(());
        }
        // The relay's own word tells a request that never came from a status never shown.
        let said = match reqwest::get(&hub).await {
            Ok(r) => r.text().await.unwrap_or_default(),
            Err(e) => e.to_string(),
        };
        let said: String = said.chars().take(600).collect();
        Err(format!("record state {state:?}; the relay says {said}"))
    })
    .await;
    screenshot(&client, "watch-recording.png").await;
    tokio::time::sleep(Duration::from_secs(8)).await;
    click(&client, "[data-testid=record]").await;
    eventually("the recording stops", async || {
        let label = text_of(&client, "[data-testid=record]").await?;
        (label == "Record").then_some(()).ok_or(label)
    })
    .await;

    // The truth: the same file, decoded natively by the same protocol crate.
    let listed: serde_json::Value = eventually("the demo is listed", async || {
        let v: serde_json::Value = reqwest::get(format!("http://{}/api/demos", relay.addr))
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        (v["demos"].as_array().map_or(0, Vec::len) == 1)
            .then_some(v)
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    let name = listed["demos"][0]["name"].as_str().unwrap().to_owned();
    let bytes = std::fs::read(dir.path().join(&name)).unwrap();
    let mut truth = protocol::cod::watch::timeline::Timeline::open(bytes).unwrap();
    let summary = truth.summary().clone();
    assert!(summary.kills.len() >= 2, "{summary:?}");

    // From the demos page, pick the relay's recording.
    client
        .goto(&format!("http://{}/playback/#/demos", relay.addr))
        .await
        .unwrap();
    let link = format!("[data-testid=relay-demo][data-name=\"{name}\"] a");
    eventually("the recording is listed", async || {
        if count(&client, &link).await >= 1 {
            return Ok(());
        }
        // What the list says instead (still "…", "None yet." or an error), for a CI log.
        let shown = text_of(&client, "[data-testid=demo-page]")
            .await
            .unwrap_or_else(|e| format!("no demo page: {e}"));
        let shown: String = shown
            .chars()
            .rev()
            .take(300)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        Err(format!("not listed; the page shows: {shown}"))
    })
    .await;
    click(&client, &link).await;
    eventually("the demo is decoded", async || {
        let status = text_of(&client, "[data-testid=watch-status]").await?;
        status.starts_with("demo ").then_some(()).ok_or(status)
    })
    .await;
    let kills: Vec<String> = eventually("the kill list is the demo's", async || {
        let found = client
            .find_all(Locator::Css("[data-testid=demo-kill]"))
            .await
            .map_err(|e| e.to_string())?;
        let mut texts = Vec::new();
        for k in found {
            texts.push(k.text().await.map_err(|e| e.to_string())?);
        }
        let shown = texts.len();
        (shown == summary.kills.len())
            .then_some(texts)
            .ok_or(format!("{shown} of {}", summary.kills.len()))
    })
    .await;
    for (text, kill) in kills.iter().zip(&summary.kills) {
        assert!(text.contains(&strip(&kill.victim)), "{text} vs {kill:?}");
    }
    let roster = lab.servers[0].snapshot().roster();
    scoreboard_lists(&client, &roster).await;
    // Playing at 4x runs the demo clock four times as fast as the wall's.
    click(&client, "[data-testid=demo-speed][data-speed=\"4\"]").await;
    let before = attr_number(&client, "[data-testid=demo-time]", "data-at")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let after = attr_number(&client, "[data-testid=demo-time]", "data-at")
        .await
        .unwrap();
    assert!(
        after - before >= 2500 || after as u32 >= summary.duration_ms - 100,
        "{before} -> {after}"
    );
    screenshot(&client, "demo-playing.png").await;

    // Paused, a seek lands on the snapshot the native timeline shows at that moment.
    click(&client, "[data-testid=demo-play]").await;
    eventually("paused", async || {
        let label = text_of(&client, "[data-testid=demo-play]").await?;
        (label == "Play").then_some(()).ok_or(label)
    })
    .await;
    for at in [summary.duration_ms / 3, summary.duration_ms * 4 / 5, 500] {
        client
            .execute(
                "const e = document.querySelector('[data-testid=demo-seek]');
                 e.value = arguments[0]; e.dispatchEvent(new Event('input'));",
                vec![serde_json::json!(at)],
            )
            .await
            .unwrap();
        truth.seek(at);
        let expected = i64::from(truth.view().server_time);
        eventually("the seek lands on the right server time", async || {
            let position = attr_number(&client, "[data-testid=demo-time]", "data-at").await?;
            let shown =
                attr_number(&client, "[data-testid=watch-clock]", "data-server-time").await?;
            (position == i64::from(at) && shown == expected)
                .then_some(())
                .ok_or(format!("{shown} vs {expected} at {position} for {at}"))
        })
        .await;
    }
    // A kill in the list jumps to just before it.
    let last = summary.kills.last().unwrap();
    click(&client, "[data-testid=demo-kill]:last-of-type").await;
    let target = i64::from(last.at_ms.saturating_sub(3000));
    eventually("the kill list jumps", async || {
        let at = attr_number(&client, "[data-testid=demo-time]", "data-at").await?;
        (at >= target && at < target + 3000)
            .then_some(())
            .ok_or(format!("{at} vs {target}"))
    })
    .await;

    // The same file opened from the file picker plays too.
    client
        .goto(&format!("http://{}/playback/#/demos", relay.addr))
        .await
        .unwrap();
    let input = eventually("the picker shows", async || {
        client
            .find(Locator::Css("[data-testid=demo-file]"))
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    input
        .send_keys(&dir.path().join(&name).display().to_string())
        .await
        .unwrap();
    eventually("the opened file plays", async || {
        let status = text_of(&client, "[data-testid=watch-status]").await?;
        status.contains(&name).then_some(()).ok_or(status)
    })
    .await;
    screenshot(&client, "demo-file.png").await;
    client.close().await.unwrap();
}
