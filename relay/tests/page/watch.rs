//! The watch view: a lab match through the relay's hub, and watched directly by the page's own
//! client.

use super::*;

/// A ten-player lab match, listed by a relay that spectates without delay.
pub(crate) async fn live_match() -> (Lab, relay::Relay) {
    let lab = one_match_lab().await;
    let relay = common::start_spectating_relay(
        &lab,
        relay::spectate::SpectateConfig {
            delay: Duration::ZERO,
            ..Default::default()
        },
    )
    .await;
    common::wait_listed(&relay, &lab).await;
    (lab, relay)
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_watch_view_shows_a_lab_match_moving_with_scoreboard_kills_and_chat() {
    let (lab, relay) = live_match().await;
    let addr = lab.servers[0].addr.to_string();
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    // From the list: open the server, press Watch.
    let row = format!("[data-testid=server-row][data-addr=\"{addr}\"]");
    eventually("the server is listed", async || {
        (count(&client, &row).await == 1)
            .then_some(())
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    click(&client, &row).await;
    click(&client, "[data-testid=watch]").await;
    // The watch view is a page of its own.
    let url = client.current_url().await.unwrap();
    assert_eq!(url.path(), "/watch/");
    assert_eq!(url.fragment(), Some(format!("/watch/{addr}").as_str()));
    let roster = lab.servers[0].snapshot().roster();
    let first = scoreboard_lists(&client, &roster).await;
    let status = text_of(&client, "[data-testid=watch-status]")
        .await
        .unwrap();
    assert_eq!(status, "live");
    assert_eq!(
        text_of(&client, "[data-testid=watch-delay]").await.unwrap(),
        "no delay"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-viewers]")
            .await
            .unwrap(),
        "1 watching"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-map]").await.unwrap(),
        lab.servers[0].snapshot().mapname
    );
    screenshot(&client, "watch-view-1.png").await;
    let before = client.screenshot().await.unwrap();
    let kills = count(&client, "[data-testid=kill]").await;
    let moved = eventually("the dots move", async || {
        let rows = watch_rows(&client).await?;
        let moved = rows.iter().filter(|r| !first.contains(r)).count();
        (moved >= 3)
            .then_some(moved)
            .ok_or(format!("{moved} moved"))
    })
    .await;
    assert!(moved >= 3);
    let after = client.screenshot().await.unwrap();
    assert_ne!(before, after, "the map redraws as the match moves");
    screenshot(&client, "watch-view-2.png").await;
    eventually("the kill feed and chat grow", async || {
        let (k, c) = (
            count(&client, "[data-testid=kill]").await,
            count(&client, "[data-testid=chat]").await,
        );
        (k > kills && k >= 2 && c >= 1)
            .then_some(())
            .ok_or(format!("{k} kills, {c} chat"))
    })
    .await;
    // Clicking a scoreboard row follows and highlights that player.
    click(&client, "[data-testid=watch-player][data-team=axis]").await;
    eventually("the row is selected", async || {
        (count(&client, "[data-testid=watch-player].selected").await == 1)
            .then_some(())
            .ok_or_else(|| "none selected".to_owned())
    })
    .await;
    screenshot(&client, "watch-view-following.png").await;
    // The link reproduces the view in a fresh page; one session serves both.
    client
        .goto(&format!("http://{}/#/watch/{addr}", relay.addr))
        .await
        .unwrap();
    // The old link's page sends it on to the watch page by `location.replace`; a refresh
    // before that lands would race it (and be aborted by it), so wait for the new page.
    eventually("the old link reaches the watch page", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        (url.path() == "/watch/")
            .then_some(())
            .ok_or(format!("at {url}"))
    })
    .await;
    client.refresh().await.unwrap();
    eventually("a shared link opens the watch view", async || {
        let rows = watch_rows(&client).await?;
        (rows.len() > roster.len())
            .then_some(())
            .ok_or(format!("{} rows", rows.len()))
    })
    .await;
    assert_eq!(lab.servers[0].connects(), 1);
    // Close the browser: a watch view left open keeps drawing.
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn watch_directly_spectates_a_lab_match_with_the_page_s_own_client() {
    let lab = one_match_lab().await;
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let api_bridge = format!("http://{}/api/bridge", relay.addr);
    let bridge = async || -> serde_json::Value {
        reqwest::get(&api_bridge)
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    };
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    client
        .goto(&format!("http://{}/#/watch-direct/{addr}", relay.addr))
        .await
        .unwrap();
    let roster = lab.servers[0].snapshot().roster();
    let first = scoreboard_lists(&client, &roster).await;
    assert_eq!(
        text_of(&client, "[data-testid=watch-status]")
            .await
            .unwrap(),
        "live"
    );
    assert_eq!(
        text_of(&client, "[data-testid=watch-delay]").await.unwrap(),
        "no delay"
    );
    eventually("the dots move", async || {
        let rows = watch_rows(&client).await?;
        let moved = rows.iter().filter(|r| !first.contains(r)).count();
        (moved >= 3).then_some(()).ok_or(format!("{moved} moved"))
    })
    .await;
    screenshot(&client, "watch-direct.png").await;
    // The page's own session through the bridge, not a hub.
    assert!(relay.hubs.list().is_empty());
    let counters = bridge().await;
    assert_eq!(counters["sessions"], 1, "{counters}");
    assert!(
        counters["refused"].as_object().unwrap().is_empty(),
        "{counters}"
    );
    // Back to the servers: the page has its worker leave the server (a disconnect, so the
    // server frees the slot) before it goes, and the bridge session ends.
    click(&client, "[data-testid=watch-back]").await;
    eventually("back at the list", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        (url.path() == "/").then_some(()).ok_or(url.to_string())
    })
    .await;
    eventually("the bridge session ends", async || {
        let c = bridge().await;
        (c["sessions"] == 0).then_some(()).ok_or(c.to_string())
    })
    .await;
}

/// Where an element is: left, top, right, bottom, and whether its content fits its width.
const BOX: &str =
    "const el = document.querySelector(arguments[0]); const b = el.getBoundingClientRect(); \
    return [b.left, b.top, b.right, b.bottom, el.scrollWidth <= el.clientWidth + 1];";

async fn box_of(client: &Client, css: &str) -> (f64, f64, f64, f64, bool) {
    let b = client.execute(BOX, vec![css.into()]).await.unwrap();
    serde_json::from_value(b).unwrap()
}

/// Two fingers on the map, moved apart from `from` to `to` pixels.
const PINCH: &str = "const c = document.querySelector('[data-testid=watch-canvas]'); \
    const r = c.getBoundingClientRect(); const [from, to] = arguments; \
    const y = r.top + r.height / 2, x = r.left + r.width / 2; \
    const at = (type, id, dx) => c.dispatchEvent(new PointerEvent(type, { pointerId: id, \
        pointerType: 'touch', isPrimary: id === 1, clientX: x + dx, clientY: y, bubbles: true })); \
    at('pointerdown', 1, -from / 2); at('pointerdown', 2, from / 2); \
    for (let i = 1; i <= 10; i++) { at('pointermove', 2, from / 2 + (to - from) * i / 10); } \
    at('pointerup', 2, to / 2); at('pointerup', 1, -from / 2);";

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_watch_view_fits_a_laptop_and_a_phone_and_the_map_pinches_to_zoom() {
    let (lab, relay) = live_match().await;
    let addr = lab.servers[0].addr.to_string();
    let roster = lab.servers[0].snapshot().roster();
    let driver = super::browser::Driver::start().await.unwrap();
    for (width, height) in [(1366, 850), (390, 844)] {
        let client = driver.device(width, height, true).await.unwrap();
        client
            .goto(&format!("http://{}/#/watch/{addr}", relay.addr))
            .await
            .unwrap();
        scoreboard_lists(&client, &roster).await;
        screenshot(&client, &format!("watch-{width}.png")).await;
        let map = box_of(&client, "[data-testid=watch-canvas]").await;
        let board = box_of(&client, ".scoreboard").await;
        let tables = client
            .execute(
                "return [...document.querySelectorAll('.scoreboard table')].map(t => \
                 [t.offsetWidth, t.parentElement.clientWidth, getComputedStyle(t).tableLayout, \
                  [...t.querySelectorAll('th')].map(h => h.offsetWidth)]);",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            board.4,
            "{width}: the scoreboard is wider than its column: {tables}"
        );
        assert!(
            board.2 <= f64::from(width),
            "{width}: the scoreboard is cut at the right"
        );
        if width > 900 {
            assert!(
                board.0 >= map.2,
                "{width}: the scoreboard is beside the map"
            );
        } else {
            assert!(board.1 >= map.3, "{width}: the scoreboard is under the map");
            assert!(
                map.2 - map.0 >= f64::from(width) * 0.95,
                "{width}: the map takes the width"
            );
            client
                .execute(PINCH, vec![100.into(), 200.into()])
                .await
                .unwrap();
            // Two fingers moved twice as far apart zoom twice.
            eventually("the map zooms", async || {
                let zoom = client
                    .find(Locator::Css("[data-testid=watch-canvas]"))
                    .await
                    .map_err(|e| e.to_string())?
                    .attr("data-zoom")
                    .await
                    .map_err(|e| e.to_string())?;
                (zoom.as_deref() == Some("2.00"))
                    .then_some(())
                    .ok_or(format!("{zoom:?}"))
            })
            .await;
        }
        client.close().await.unwrap();
    }
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_viewer_pauses_a_live_match_replays_a_kill_and_comes_back_to_live() {
    let (lab, relay) = live_match().await;
    let addr = lab.servers[0].addr.to_string();
    let watch = format!("http://{}/watch/#/watch/{addr}", relay.addr);
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    client.goto(&watch).await.unwrap();
    // A few seconds of match in the window, and a kill in it to replay.
    eventually("the rewind bar shows a kill", async || {
        let marks = count(&client, ".rewind-bar.held .rewind-kill").await;
        let replays = count(&client, "[data-testid=kill-replay]").await;
        (marks >= 1 && replays >= 1)
            .then_some(())
            .ok_or(format!("{marks} marks, {replays} replays"))
    })
    .await;
    assert_eq!(
        text_of(&client, "[data-testid=rewind-behind]")
            .await
            .unwrap(),
        "live"
    );
    // A second viewer, in a browser of its own, stays live whatever the first does.
    let (_other_driver, other) = open_page(&relay, 1000, 800).await;
    other.goto(&watch).await.unwrap();
    eventually("the second viewer is live", async || {
        let t = text_of(&other, "[data-testid=rewind-behind]").await?;
        (t == "live").then_some(()).ok_or(t)
    })
    .await;

    // Pause: the view holds where it was.
    click(&client, "[data-testid=rewind-play]").await;
    eventually("paused", async || {
        let t = text_of(&client, "[data-testid=rewind-play]").await?;
        (t == "Play").then_some(()).ok_or(t)
    })
    .await;
    let held = watch_rows(&client).await.unwrap();
    // The live edge moves on while paused (how far behind grows), and the view holds.
    let was = text_of(&client, "[data-testid=rewind-behind]")
        .await
        .unwrap();
    eventually("the live edge moves on", async || {
        let behind = text_of(&client, "[data-testid=rewind-behind]").await?;
        (behind != was).then_some(()).ok_or(behind)
    })
    .await;
    settled(&client).await;
    assert_eq!(
        watch_rows(&client).await.unwrap(),
        held,
        "paused, nothing moves"
    );
    let behind = text_of(&client, "[data-testid=rewind-behind]")
        .await
        .unwrap();
    assert!(behind.starts_with('−'), "{behind}");
    let status = text_of(&client, "[data-testid=watch-status]")
        .await
        .unwrap();
    assert_eq!(status, "paused");

    // Replay a kill: from 3 s before it, playing, behind the live edge.
    click(&client, "[data-testid=kill-replay]").await;
    eventually("replaying", async || {
        let play = text_of(&client, "[data-testid=rewind-play]").await?;
        let behind = text_of(&client, "[data-testid=rewind-behind]").await?;
        (play == "Pause" && behind.starts_with('−'))
            .then_some(())
            .ok_or(format!("{play} {behind}"))
    })
    .await;
    let status = text_of(&client, "[data-testid=watch-status]")
        .await
        .unwrap();
    assert_eq!(status, "rewound, 1x");
    screenshot(&client, "rewind-replay.png").await;
    assert_eq!(
        text_of(&other, "[data-testid=rewind-behind]")
            .await
            .unwrap(),
        "live"
    );

    // Back to live.
    click(&client, "[data-testid=rewind-live]").await;
    eventually("live again", async || {
        let t = text_of(&client, "[data-testid=rewind-behind]").await?;
        (t == "live").then_some(()).ok_or(t)
    })
    .await;
    let status = text_of(&client, "[data-testid=watch-status]")
        .await
        .unwrap();
    assert_eq!(status, "live");
    let first = watch_rows(&client).await.unwrap();
    eventually("the dots move again", async || {
        let rows = watch_rows(&client).await?;
        let moved = rows.iter().filter(|r| !first.contains(r)).count();
        (moved >= 3).then_some(()).ok_or(format!("{moved} moved"))
    })
    .await;
    client.close().await.unwrap();
    other.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_viewer_shares_a_rewound_kill_and_the_link_plays_it_in_another_browser() {
    let lab = one_match_lab().await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::spectating_config(
        &lab,
        relay::spectate::SpectateConfig {
            delay: Duration::ZERO,
            ..Default::default()
        },
    );
    config.history = Some(common::sqlite_history(dir.path()));
    let relay = relay::Relay::start(config).await.unwrap();
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    client
        .goto(&format!("http://{}/watch/#/watch/{addr}", relay.addr))
        .await
        .unwrap();
    eventually("a kill to replay", async || {
        let replays = count(&client, "[data-testid=kill-replay]").await;
        (replays >= 1)
            .then_some(())
            .ok_or(format!("{replays} replays"))
    })
    .await;
    // Pause, go back to the kill, and share six seconds of it: 5 before, 1 after. (The feed
    // redraws as it moves: clicked where it is found, not through a handle that may go stale.)
    click(&client, "[data-testid=rewind-play]").await;
    client
        .execute(
            "document.querySelector('[data-testid=kill-replay]').click()",
            vec![],
        )
        .await
        .unwrap();
    eventually("rewound", async || {
        let behind = text_of(&client, "[data-testid=rewind-behind]").await?;
        behind.starts_with('−').then_some(()).ok_or(behind)
    })
    .await;
    for (css, value) in [("share-before", "5"), ("share-after", "1")] {
        client
            .execute(
                "const el = document.querySelector(`[data-testid=${arguments[0]}]`); \
                 el.value = arguments[1]; el.dispatchEvent(new Event('change', { bubbles: true }));",
                vec![css.into(), value.into()],
            )
            .await
            .unwrap();
    }
    click(&client, "[data-testid=share-moment]").await;
    let link = eventually("the moment's link", async || {
        let refused = text_of(&client, "[data-testid=share-error]").await;
        let link = client
            .execute(
                "const el = document.querySelector('[data-testid=moment-link]'); \
                 return el ? el.value : null;",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        link.as_str()
            .filter(|l| l.contains("/m/"))
            .map(str::to_owned)
            .ok_or(format!("no link yet ({refused:?})"))
    })
    .await;
    screenshot(&client, "moment-share.png").await;
    assert!(
        link.starts_with(&format!("http://{}/m/", relay.addr)),
        "{link}"
    );

    // Another browser opens the link: the clip plays, and starts again at its end.
    let (_other_driver, other) = open_page(&relay, 1000, 800).await;
    other.goto(&link).await.unwrap();
    eventually("the clip plays", async || {
        let at = attr_number(&other, "[data-testid=demo-time]", "data-at").await?;
        (at > 1000).then_some(()).ok_or(format!("at {at} ms"))
    })
    .await;
    assert_eq!(
        count(&other, "#first-screen").await,
        0,
        "the player took over"
    );
    assert_eq!(count(&other, "[data-testid=moment-links]").await, 1);
    // A moment is none of the header's pages.
    assert_eq!(count(&other, "header nav a.current").await, 0);
    // Its scoreboard says only what the clip knows: a human is never a bot, and before the
    // server's scoreboard has a row for a player, nothing stands for a score of 0.
    let humans: Vec<String> = (lab.servers[0].snapshot().players.iter())
        .filter(|p| !p.bot)
        .map(|p| p.name.clone())
        .collect();
    let rows = other
        .execute(
            "return [...document.querySelectorAll('[data-testid=watch-player]')].map(r => \
               [r.dataset.name, r.cells[1].textContent, r.cells[3].textContent]);",
            vec![],
        )
        .await
        .unwrap();
    let rows: Vec<(String, String, String)> = serde_json::from_value(rows).unwrap();
    assert!(!rows.is_empty());
    for (name, score, ping) in &rows {
        assert!(
            !(humans.contains(name) && ping == "bot"),
            "{name} shown as a bot: {rows:?}"
        );
        assert_eq!(score == "—", ping == "—", "{rows:?}");
    }
    let title = other.title().await.unwrap();
    assert!(
        title.contains("killed") || title.contains(" on "),
        "{title}"
    );
    eventually("it loops", async || {
        let at = attr_number(&other, "[data-testid=demo-time]", "data-at").await?;
        (at < 1000).then_some(()).ok_or(format!("at {at} ms"))
    })
    .await;
    screenshot(&other, "moment-page.png").await;
    // The still a card shows.
    let id = link.rsplit('/').next().unwrap();
    other
        .goto(&format!("http://{}/api/moments/{id}.png", relay.addr))
        .await
        .unwrap();
    screenshot(&other, "moment-still.png").await;
    client.close().await.unwrap();
    other.close().await.unwrap();
}
