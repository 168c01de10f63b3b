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
    // Stopped once the file in progress holds some kills to list and is long enough that a
    // second at 4x (below) ends well before its end.
    eventually(
        "the recording holds two kills and ten seconds",
        async || {
            let listing: protocol::relay_api::demos::DemoListing =
                api(&relay, "/api/demos").await?;
            let file = listing.recording.first().ok_or("no recording")?;
            let on_disk = std::fs::read(dir.path().join(&file.file)).map_err(|e| e.to_string())?;
            let timeline = protocol::cod::watch::timeline::Timeline::open(on_disk)
                .map_err(|e| e.to_string())?;
            let kills = timeline.summary().kills.len();
            (kills >= 2 && timeline.summary().duration_ms >= 10_000)
                .then_some(())
                .ok_or(format!("{kills} kills"))
        },
    )
    .await;
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
    // Read with the page's own clock, in one script, so a slow machine cannot skew it.
    let clocks = async || -> (f64, f64) {
        let read = client
            .execute(
                "return [performance.now(), \
                   Number(document.querySelector('[data-testid=demo-time]').dataset.at)];",
                vec![],
            )
            .await
            .unwrap();
        (read[0].as_f64().unwrap(), read[1].as_f64().unwrap())
    };
    let (began, before) = clocks().await;
    let (now, after) = eventually("a second of the page's clock", async || {
        let (now, at) = clocks().await;
        (now - began >= 1000.0)
            .then_some((now, at))
            .ok_or("not yet".to_owned())
    })
    .await;
    assert!(
        after - before >= 2.5 * (now - began) || after as u32 >= summary.duration_ms - 100,
        "{before} -> {after} in {} ms",
        now - began
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
