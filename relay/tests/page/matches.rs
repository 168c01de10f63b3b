//! The matches' pages in Chromium: from a server's detail to its recent matches, a match's page
//! (scoreboard, score chart, who killed whom, weapons, where kills happened) and a player's page,
//! first as the relay's HTML and then as their own code (`muster-results`) has them: the
//! scoreboard sorted, the kill feed filtered by a name, a kill's moment opened in the demo
//! player. Screenshots to look at.

use super::*;

/// A one-server lab of `map_secs` maps and a relay following it into `dir`'s history, with
/// `--follow-record` when `record`.
pub(crate) async fn followed(
    dir: &std::path::Path,
    map_secs: u64,
    record: bool,
) -> (Lab, relay::Relay) {
    followed_of(1, dir, map_secs, record).await
}

/// The first match the relay has seen end.
pub(crate) async fn finished_match(
    relay: &relay::Relay,
) -> protocol::relay_api::matches::MatchSummary {
    eventually("a finished match", async || {
        let list: Vec<protocol::relay_api::matches::MatchSummary> =
            api(relay, "/api/matches").await?;
        list.into_iter()
            .find(|m| m.ended.is_some())
            .ok_or("not yet".to_owned())
    })
    .await
}

/// [`followed`] whose hub shows the match at once (no spectator delay), for a test that opens
/// its watch view too.
pub(crate) async fn followed_live(dir: &std::path::Path, map_secs: u64) -> (Lab, relay::Relay) {
    let live = relay::spectate::SpectateConfig {
        delay: Duration::ZERO,
        ..Default::default()
    };
    followed_with(1, dir, map_secs, false, live).await
}

/// [`followed`] with `servers` in the lab, the first followed.
async fn followed_of(
    servers: usize,
    dir: &std::path::Path,
    map_secs: u64,
    record: bool,
) -> (Lab, relay::Relay) {
    followed_with(servers, dir, map_secs, record, Default::default()).await
}

async fn followed_with(
    servers: usize,
    dir: &std::path::Path,
    map_secs: u64,
    record: bool,
    spectate: relay::spectate::SpectateConfig,
) -> (Lab, relay::Relay) {
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        map_time: Some(Duration::from_secs(map_secs)),
        intermission: Duration::from_secs(1),
        ..lab_config(servers, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let server = lab.servers[0].addr;
    let mut config = common::spectating_config(&lab, spectate);
    config.poller.refresh_interval = Duration::from_secs(1);
    config.history = Some(common::sqlite_history(dir));
    if record {
        config.recording = Some(relay::demos::RecordConfig {
            dir: dir.join("demos"),
            max_bytes: 50_000_000,
        });
    }
    config.matches = relay::matches::MatchesConfig {
        follow: vec![relay::net::ServerAddr(server)],
        record,
        ..Default::default()
    };
    let relay = relay::Relay::start(config).await.unwrap();
    (lab, relay)
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_followed_match_and_a_player_read_as_pages() {
    let dir = tempfile::tempdir().unwrap();
    let (lab, relay) = followed(dir.path(), 5, false).await;
    let server = lab.servers[0].addr;
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
    // The detail lists the server's recent matches and the week's best beside its players.
    eventually("the detail's recent matches and board", async || {
        let recent = client
            .find_all(Locator::Css(&format!(
                "[data-testid=server-recent] a[href=\"/matches/{}\"]",
                finished.id
            )))
            .await
            .map_err(|e| e.to_string())?;
        let board = text_of(&client, "[data-testid=server-board]").await?;
        (!recent.is_empty() && !board.is_empty())
            .then_some(())
            .ok_or(format!("{} recent, board {board:?}", recent.len()))
    })
    .await;
    screenshot(&client, "detail-matches.png").await;
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

    // The page's code takes the first screen's place, charts and all.
    eventually("the match page's code in place", async || {
        let first = client
            .find_all(Locator::Css("#first-screen"))
            .await
            .map_err(|e| e.to_string())?;
        let filters = client
            .find_all(Locator::Css("[data-testid=feed-filter]"))
            .await
            .map_err(|e| e.to_string())?;
        (first.is_empty() && filters.len() == detail.scoreboard.len())
            .then_some(())
            .ok_or(format!(
                "{} first screens, {} filters",
                first.len(),
                filters.len()
            ))
    })
    .await;
    let lines = client.find_all(Locator::Css("svg polyline")).await.unwrap();
    assert_eq!(lines.len(), 2, "the code's page draws the score chart too");
    // Sorted by deaths, the most deaths first.
    let most_deaths = detail.scoreboard.iter().map(|p| p.deaths).max().unwrap();
    let sorts = client
        .find_all(Locator::Css("[data-testid=sort]"))
        .await
        .unwrap();
    sorts[2].click().await.unwrap();
    let first_deaths = eventually("sorted by deaths", async || {
        let cell = text_of(&client, "[data-testid=scoreboard] tbody tr td:nth-child(5)").await?;
        let deaths: u32 = cell.parse().map_err(|_| cell.clone())?;
        (deaths == most_deaths).then_some(deaths).ok_or(cell)
    })
    .await;
    assert_eq!(first_deaths, most_deaths);
    // The feed of one name: exactly the kills and deaths that name has in the record.
    let best = &detail.scoreboard[0];
    let involved = detail
        .kill_feed
        .iter()
        .filter(|k| k.victim == best.name || k.attacker.as_ref() == Some(&best.name))
        .count();
    let filters = client
        .find_all(Locator::Css("[data-testid=scoreboard] tbody tr"))
        .await
        .unwrap();
    let mut chosen = None;
    for row in filters {
        if row
            .text()
            .await
            .unwrap()
            .starts_with(&format!("{} feed", strip(&best.name)))
        {
            chosen = Some(row);
        }
    }
    let chosen = chosen.expect("the best name's row");
    chosen
        .find(Locator::Css("[data-testid=feed-filter]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let shown = eventually("the feed filtered", async || {
        let rows = client
            .find_all(Locator::Css("[data-testid=kill-feed] tbody tr"))
            .await
            .map_err(|e| e.to_string())?;
        (rows.len() == involved)
            .then_some(rows)
            .ok_or(format!("{} rows", involved))
    })
    .await;
    for row in shown {
        let text = row.text().await.unwrap();
        assert!(text.contains(&strip(&best.name)), "{text}");
    }
    screenshot(&client, "match-1366x1400.png").await;

    // The best name's page.
    let href = format!(
        "/players/{}",
        protocol::relay_api::matches::segment(&relay::store::name_key(&best.name))
    );
    click(
        &client,
        &format!("[data-testid=scoreboard] a[href=\"{href}\"]"),
    )
    .await;
    let heading = eventually("the player's page", async || {
        let h = text_of(&client, "body > div h1").await?;
        (h == strip(&best.name)).then_some(h.clone()).ok_or(h)
    })
    .await;
    assert_eq!(heading, strip(&best.name));
    // Read once the page's code has replaced the relay's first screen (both have them).
    eventually("the player's figures and ratings", async || {
        let totals = text_of(&client, "[data-testid=totals]").await?;
        let ratings = text_of(&client, "[data-testid=ratings]").await?;
        (totals.contains("Kills") && ratings.contains(&finished.gametype))
            .then_some(())
            .ok_or(format!("{totals} / {ratings}"))
    })
    .await;
    screenshot(&client, "player-1366x1400.png").await;
}

/// A followed match recorded with `--follow-record`: its page links the demo, and a kill's
/// link opens the demo player at that kill, 3 s before it.
#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_kill_opens_in_the_demo_three_seconds_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_lab, relay) = followed(dir.path(), 8, true).await;
    // A finished match whose demo is finished too (listed), with a kill well into it.
    let (m, demo) = eventually("a recorded match", async || {
        let list: Vec<protocol::relay_api::matches::MatchSummary> =
            api(&relay, "/api/matches").await?;
        let listing: protocol::relay_api::demos::DemoListing = api(&relay, "/api/demos").await?;
        list.into_iter()
            .filter(|m| m.kills >= 3 && m.ended.is_some())
            .find_map(|m| {
                let demo = m.demo.clone()?;
                listing
                    .demos
                    .iter()
                    .any(|d| d.name == demo)
                    .then_some((m, demo))
            })
            .ok_or("not yet".to_owned())
    })
    .await;
    let detail: protocol::relay_api::matches::MatchDetail =
        api(&relay, &format!("/api/matches/{}", m.id))
            .await
            .unwrap();
    let bytes = reqwest::get(format!("http://{}/demos/{demo}", relay.addrs[0]))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let timeline = protocol::cod::watch::timeline::Timeline::open(bytes.to_vec()).unwrap();
    // The last kill, so the demo player has somewhere to seek to.
    let kill = detail.kill_feed.last().unwrap();
    let in_demo = timeline
        .summary()
        .kills
        .iter()
        .find(|k| k.server_time == kill.server_time && k.victim == kill.victim)
        .expect("the demo holds the kill")
        .at_ms;

    let (_driver, client) = open_page(&relay, 1366, 1000).await;
    client
        .goto(&format!("http://{}/matches/{}", relay.addrs[0], m.id))
        .await
        .unwrap();
    // Once the page's code has taken the first screen's place.
    eventually("the match page's code in place", async || {
        let first = client
            .find_all(Locator::Css("#first-screen"))
            .await
            .map_err(|e| e.to_string())?;
        first
            .is_empty()
            .then_some(())
            .ok_or("the first screen".to_owned())
    })
    .await;
    let link = protocol::relay_api::matches::moment(&demo, kill.server_time);
    click(
        &client,
        &format!("a[data-testid=kill-moment][href=\"{link}\"]"),
    )
    .await;
    let at = eventually("the demo playing from the kill", async || {
        let time = client
            .find(Locator::Css("[data-testid=demo-time]"))
            .await
            .map_err(|e| e.to_string())?;
        let at: u32 = time
            .attr("data-at")
            .await
            .map_err(|e| e.to_string())?
            .unwrap_or_default()
            .parse()
            .map_err(|_| "no position".to_owned())?;
        (at > 0).then_some(at).ok_or("at the start".to_owned())
    })
    .await;
    let from = in_demo.saturating_sub(3000);
    assert!(
        (from..from + 2500).contains(&at),
        "the demo at {at} ms, the kill at {in_demo} ms"
    );
    screenshot(&client, "kill-moment-1366x1000.png").await;
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_list_sorts_by_a_server_s_matches_today() {
    let dir = tempfile::tempdir().unwrap();
    let (lab, relay) = followed_of(3, dir.path(), 4, false).await;
    let server = lab.servers[0].addr.to_string();
    // The store's count reaches the list within its 15 s recount.
    let today = eventually_within(
        3 * LIMIT,
        "the followed server's matches counted",
        async || {
            let servers: Vec<protocol::relay_api::ServerInfo> = api(&relay, "/api/servers").await?;
            let counts: Vec<(String, u32)> = servers
                .iter()
                .map(|s| (s.addr.clone(), s.matches_today))
                .collect();
            let followed = counts.iter().find(|(a, _)| *a == server).map_or(0, |c| c.1);
            let others = counts
                .iter()
                .filter(|(a, _)| *a != server)
                .map(|c| c.1)
                .sum::<u32>();
            (counts.len() == 3 && followed >= 2 && others == 0)
                .then_some(followed)
                .ok_or(format!("{counts:?}"))
        },
    )
    .await;
    let listed: Vec<protocol::relay_api::matches::MatchSummary> =
        api(&relay, &format!("/api/matches?server={server}&limit=100"))
            .await
            .unwrap();
    assert!(
        listed.len() as u32 >= today,
        "{} listed, {today} counted",
        listed.len()
    );

    let (_driver, client) = open_page(&relay, 1366, 900).await;
    taken_over(&client).await;
    click(&client, "button[data-sort=matches]").await;
    eventually(
        "the followed server first, its count beside it",
        async || {
            let addrs = row_addrs(&client).await?;
            let first = text_of(&client, "[data-testid=server-row] [data-testid=matches]").await?;
            (addrs.first() == Some(&server) && first.parse::<u32>().is_ok_and(|n| n >= today))
                .then_some(())
                .ok_or(format!("{addrs:?} {first:?}"))
        },
    )
    .await;
    eventually("the URL holds the sort", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        let query = url.query().unwrap_or_default().to_owned();
        query.contains("sort=matches").then_some(()).ok_or(query)
    })
    .await;
    // Fewest first: the followed server goes last.
    click(&client, "button[data-sort=matches]").await;
    eventually("the followed server last", async || {
        let addrs = row_addrs(&client).await?;
        (addrs.len() == 3 && addrs.last() == Some(&server))
            .then_some(())
            .ok_or(format!("{addrs:?}"))
    })
    .await;
    screenshot(&client, "list-matches-today.png").await;
    client.close().await.unwrap();
}
