//! The matches' pages in Chromium: from a server's detail to its recent matches, a match's page
//! (scoreboard, score chart, who killed whom, weapons, where kills happened) and a player's page,
//! each read without the page's code, with screenshots to look at.

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_followed_match_and_a_player_read_as_pages() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        map_time: Some(Duration::from_secs(5)),
        intermission: Duration::from_secs(1),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let server = lab.servers[0].addr;
    let mut config = common::spectating_config(&lab, Default::default());
    config.poller.refresh_interval = Duration::from_secs(1);
    config.history = Some(common::sqlite_history(dir.path()));
    config.matches = relay::matches::MatchesConfig {
        follow: vec![relay::net::ServerAddr(server)],
        ..Default::default()
    };
    let relay = relay::Relay::start(config).await.unwrap();
    // A finished match (the second: the first was joined in its course).
    let finished = eventually("two finished matches", async || {
        let list: Vec<protocol::relay_api::matches::MatchSummary> =
            api(&relay, "/api/matches").await?;
        let done: Vec<_> = list
            .into_iter()
            .filter(|m| m.ended == Some(protocol::relay_api::matches::MatchEnd::Intermission))
            .collect();
        (done.len() >= 2)
            .then(|| done[0].clone())
            .ok_or("not yet".to_owned())
    })
    .await;
    let detail: protocol::relay_api::matches::MatchDetail =
        api(&relay, &format!("/api/matches/{}", finished.id))
            .await
            .unwrap();

    // From the server's detail on the list, to its matches, to one.
    let (_driver, client) = open_page(&relay, 1366, 1400).await;
    click(&client, &format!("tr[data-addr=\"{server}\"]")).await;
    click(&client, "[data-testid=recent-matches]").await;
    click(&client, &format!("a[href=\"/matches/{}\"]", finished.id)).await;
    let rows = eventually("the scoreboard", async || {
        let rows = client
            .find_all(Locator::Css("[data-testid=scoreboard] tbody tr"))
            .await
            .map_err(|e| e.to_string())?;
        (!rows.is_empty())
            .then_some(rows.len())
            .ok_or("none".to_owned())
    })
    .await;
    assert_eq!(rows, detail.scoreboard.len());
    let matrix = client
        .find_all(Locator::Css("[data-testid=kill-matrix] tbody tr"))
        .await
        .unwrap();
    assert_eq!(matrix.len(), detail.scoreboard.len());
    let lines = client.find_all(Locator::Css("svg polyline")).await.unwrap();
    assert_eq!(lines.len(), 2, "the score chart draws each side");
    let spots = client.find_all(Locator::Css("svg circle")).await.unwrap();
    assert!(!spots.is_empty(), "the heatmap shows where kills happened");
    let summary = text_of(&client, "[data-testid=match-summary]")
        .await
        .unwrap();
    assert!(summary.contains("finished"), "{summary}");
    screenshot(&client, "match-1366x1400.png").await;

    // The best name's page.
    let best = &detail.scoreboard[0];
    click(&client, "[data-testid=scoreboard] tbody tr a").await;
    let heading = eventually("the player's page", async || {
        let h = text_of(&client, "h1").await?;
        (h == strip(&best.name)).then_some(h.clone()).ok_or(h)
    })
    .await;
    assert_eq!(heading, strip(&best.name));
    let totals = text_of(&client, "[data-testid=totals]").await.unwrap();
    assert!(totals.contains("Kills"), "{totals}");
    let ratings = text_of(&client, "[data-testid=ratings]").await.unwrap();
    assert!(ratings.contains(&finished.gametype), "{ratings}");
    screenshot(&client, "player-1366x1400.png").await;
}
