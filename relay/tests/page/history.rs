//! History on the page: the detail's population chart shows the series the API returns, the
//! sparkline sits above the list, and Find player names where an offline player was last seen.

use protocol::relay_api::history::ServerHistory;

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_chart_shows_the_series_the_api_returns_and_offline_players_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(6),
        ..lab_config(3, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = common::spectating_config(&lab, Default::default());
    config.poller.refresh_interval = Duration::from_secs(1);
    config.history = Some(common::sqlite_history(dir.path()));
    let relay = relay::Relay::start(config).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let human = lab.servers[0]
        .snapshot()
        .players
        .iter()
        .find(|p| !p.bot)
        .map(|p| p.name.clone())
        .expect("a human on the first server");
    // Some answered polls, then the fleet goes: later polls are downtime, which leaves the
    // points as they are, so the chart and the API agree whenever each is drawn.
    // (Sightings are not cached, so they tell when the first writes landed.)
    let plain = strip(&human).to_lowercase();
    eventually("the first polls are written", async || {
        let seen: Vec<protocol::relay_api::history::PlayerSeen> =
            api(&relay, &format!("/api/players?name={plain}")).await?;
        (!seen.is_empty()).then_some(()).ok_or("not yet".to_owned())
    })
    .await;
    let url = format!("http://{}", relay.addr);
    let polls = async || common::metric(&url, "muster_poll_duration_seconds_count").await;
    let polled = polls().await;
    eventually("more polls", async || {
        (polls().await >= polled + 2.0)
            .then_some(())
            .ok_or("not yet".to_owned())
    })
    .await;
    drop(lab);
    // Once the fleet is seen gone, the series holds still from one poll to the next.
    let history = format!("/api/servers/{server}/history?range=24h");
    let expected: ServerHistory = eventually("the series holds still", async || {
        let servers: Vec<protocol::relay_api::ServerInfo> = api(&relay, "/api/servers").await?;
        if servers
            .iter()
            .any(|s| s.reachability == protocol::relay_api::Reachability::Online)
        {
            return Err("a server still answers".to_owned());
        }
        let before: ServerHistory = api(&relay, &history).await?;
        let polled = polls().await;
        let next_poll = async {
            while polls().await < polled + 1.0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(LIMIT, next_poll)
            .await
            .map_err(|_| "no further poll".to_owned())?;
        let after: ServerHistory = api(&relay, &history).await?;
        (before == after)
            .then_some(after)
            .ok_or("it moved".to_owned())
    })
    .await;

    let (_driver, client) = open_page(&relay, 1400, 1000).await;
    // Above the list, every server's players together, tallied once per refresh.
    eventually("the sparkline shows the totals", async || {
        let points = client
            .find_all(Locator::Css("[data-testid=sparkline] svg.sparkline g.pt"))
            .await
            .map_err(|e| e.to_string())?;
        (!points.is_empty())
            .then_some(())
            .ok_or("no sparkline".to_owned())
    })
    .await;
    client
        .find(Locator::Css(&format!("tr[data-addr=\"{server}\"]")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let drawn: Vec<(u64, f32, u16, u16)> = eventually("the chart is drawn", async || {
        let points: Vec<(u64, f32, u16, u16)> = serde_json::from_value(
            client
                .execute(
                    "return [...document.querySelectorAll('[data-testid=history-chart] g.pt')].map(g => \
                     [Number(g.dataset.t), Number(g.dataset.avg), Number(g.dataset.min), Number(g.dataset.max)]);",
                    vec![],
                )
                .await
                .map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
        (!points.is_empty()).then_some(points).ok_or("no points".to_owned())
    })
    .await;
    let wanted: Vec<(u64, f32, u16, u16)> = expected
        .points
        .iter()
        .map(|p| (p.t, p.avg, p.min, p.max))
        .collect();
    assert_eq!(drawn, wanted);
    // Downtime spans (whole buckets unanswered) are drawn as the API gives them. A bucket
    // that filled with downtime while the page loaded adds a span: the page drew the API's
    // answer from before or after that.
    let down = client
        .find_all(Locator::Css("[data-testid=history-chart] rect.down"))
        .await
        .unwrap();
    let after: ServerHistory = api(&relay, &format!("/api/servers/{server}/history?range=24h"))
        .await
        .unwrap();
    assert!(
        [expected.downtime.len(), after.downtime.len()].contains(&down.len()),
        "{} spans drawn, the API gave {} then {}",
        down.len(),
        expected.downtime.len(),
        after.downtime.len()
    );
    // Another range redraws from the relay (here all the polls fall in one 30-minute point).
    client
        .find(Locator::XPath("//div[@class='ranges']/button[text()='7d']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually("the 7-day chart", async || {
        let label = client
            .find(Locator::Css("[data-testid=history-chart] svg.chart"))
            .await
            .map_err(|e| e.to_string())?
            .attr("aria-label")
            .await
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        label.ends_with("7d").then_some(()).ok_or(label)
    })
    .await;
    // A tapped (focused) point shows its values; the others keep theirs hidden.
    let shown: usize = serde_json::from_value(
        client
            .execute(
                "const pts = [...document.querySelectorAll('[data-testid=history-chart] g.pt')]; \
                 pts[pts.length - 1].focus(); \
                 return pts.filter(g => getComputedStyle(g.querySelector('text')).visibility == 'visible').length;",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(shown, 1);
    screenshot(&client, "history-chart.png").await;
    // On a phone's width the chart scales down and its labels stay readable.
    client.set_window_size(390, 844).await.unwrap();
    client
        .execute(
            "document.querySelector('[data-testid=history-chart]').scrollIntoView();",
            vec![],
        )
        .await
        .unwrap();
    screenshot(&client, "history-chart-phone.png").await;
    client.set_window_size(1400, 1000).await.unwrap();

    // Find player: the fleet is gone, so the name is offline, last seen on its server.
    client
        .find(Locator::Id("find-player"))
        .await
        .unwrap()
        .send_keys(&plain)
        .await
        .unwrap();
    let seen = eventually(
        "Find player says where the name was last seen",
        async || text_of(&client, "[data-testid=seen-player]").await,
    )
    .await;
    assert!(seen.contains("last seen on"), "{seen}");
    assert!(seen.contains(&strip(&human)), "{seen}");
    assert!(seen.contains("ago") || seen.contains("just now"), "{seen}");
    screenshot(&client, "history-seen.png").await;
}
