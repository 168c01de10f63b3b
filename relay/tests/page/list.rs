//! The server list: every server, filters, sorting and search, favorites, live updates, the
//! masters panel and the Wulfram II servers.

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_page_lists_every_lab_server() {
    assert!(
        common::dist().join("index.html").exists(),
        "MUSTER_DIST must point at the page built by trunk"
    );
    let lab = Lab::start(lab_config(10, 4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;

    eventually("the summary shows every server answering", async || {
        let summary = text_of(&client, "[data-testid=summary]").await?;
        (summary == "10 servers, 10 answering, 10 shown")
            .then_some(())
            .ok_or(summary)
    })
    .await;
    let rows = client
        .find_all(Locator::Css("[data-testid=server-row]"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 10);
    for row in &rows {
        let addr = row
            .attr("data-addr")
            .await
            .unwrap()
            .expect("row has data-addr");
        let server = lab
            .servers
            .iter()
            .find(|s| s.addr.to_string() == addr)
            .expect("every row is a lab server");
        let profile = server.snapshot();
        let players = row
            .find(Locator::Css("[data-testid=players]"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(
            players,
            format!("{}/{}", profile.clients(), profile.public_slots())
        );
        let text = row.text().await.unwrap();
        assert!(text.contains(&strip(&profile.hostname)), "{text}");
        assert!(text.contains(&profile.mapname), "{text}");
    }
    // The masters take one line; their states open on a tap.
    taken_over(&client).await;
    // A poll that timed out on a loaded machine reads "not answering" until the next one, 30 s on.
    eventually_within(
        2 * LIMIT,
        "the masters' line reads the lab's master answering",
        async || {
            let sources = text_of(&client, "[data-testid=sources]").await?;
            (sources == "the master answering · 10 servers")
                .then_some(())
                .ok_or(sources)
        },
    )
    .await;
    assert_eq!(text_of(&client, "[data-testid=master]").await.unwrap(), "");
    click(&client, "[data-testid=sources]").await;
    let master = text_of(&client, "[data-testid=master]").await.unwrap();
    assert!(master.contains("10 servers"), "{master}");
    screenshot(&client, "list.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn filters_sorting_and_search_match_the_browse_model_and_live_in_the_url() {
    use protocol::browse::View;
    let lab = Lab::start(lab_config(30, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(600)).await;
    let directory = relay.directory.clone();
    eventually("every server answered", async || {
        let online = directory
            .servers()
            .iter()
            .filter(|s| s.reachability == protocol::relay_api::Reachability::Online)
            .count();
        (online == 30).then_some(()).ok_or(online.to_string())
    })
    .await;
    let servers = directory.servers();
    let a_player = strip(&lab.servers[3].snapshot().players[0].name).to_lowercase();
    let gametype = servers[0].gametype.clone();
    let driver = super::browser::Driver::start().await.unwrap();
    let client = driver.browser(1400, 900).await.unwrap();
    let queries = [
        String::new(),
        "sort=name&order=asc".into(),
        "sort=ping&order=asc".into(),
        "sort=map&order=desc".into(),
        "sort=mod&order=asc".into(),
        "sort=gametype&order=asc".into(),
        format!("gametype={gametype}"),
        "empty=0&full=0".into(),
        "password=no&pb=yes".into(),
        "pure=yes&killcam=yes&ff=no".into(),
        "jeeps=yes&tanks=no&mod=no&dedicated=yes".into(),
        "ping=0".into(),
        format!("q={}", a_player.replace(' ', "%20")),
    ];
    for query in &queries {
        let view = View::from_query(query);
        let expected: Vec<String> = view
            .apply(&servers)
            .iter()
            .map(|s| s.addr.clone())
            .collect();
        client
            .goto(&format!("http://{}/?{query}", relay.addr))
            .await
            .unwrap();
        let shown = eventually(&format!("the page shows ?{query}"), async || {
            let summary = text_of(&client, "[data-testid=summary]").await?;
            if !summary.ends_with(&format!("{} shown", expected.len()))
                || !summary.starts_with("30 servers")
            {
                return Err(summary);
            }
            row_addrs(&client).await
        })
        .await;
        assert!(!shown.is_empty() || expected.is_empty());
        assert_eq!(shown, expected[..shown.len()], "order for ?{query}");
    }

    // Clicking a header sorts and writes the view into the URL; a reload restores it.
    client
        .goto(&format!("http://{}/", relay.addr))
        .await
        .unwrap();
    eventually("rows", async || {
        row_addrs(&client).await.and_then(|r| {
            if r.is_empty() {
                Err("none".into())
            } else {
                Ok(())
            }
        })
    })
    .await;
    client
        .find(Locator::Css("button[data-sort=name]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    set_input(&client, "search", "mp_").await;
    let url = eventually("the URL holds the view", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        let query = url.query().unwrap_or_default().to_owned();
        (query.contains("sort=name") && query.contains("q=mp_"))
            .then_some(query.clone())
            .ok_or(query)
    })
    .await;
    client.refresh().await.unwrap();
    let restored = eventually("the view survives a reload", async || {
        let value = client
            .find(Locator::Id("search"))
            .await
            .map_err(|e| e.to_string())?
            .prop("value")
            .await
            .map_err(|e| e.to_string())?;
        (value.as_deref() == Some("mp_"))
            .then_some(())
            .ok_or(format!("{value:?}"))
    })
    .await;
    assert_eq!(restored, ());
    let expected: Vec<String> = View::from_query(&url)
        .apply(&servers)
        .iter()
        .map(|s| s.addr.clone())
        .collect();
    let shown = eventually("sorted by name after the reload", async || {
        let rows = row_addrs(&client).await?;
        (rows.len() >= 10 && rows == expected[..rows.len()])
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert!(!shown.is_empty());
    screenshot(&client, "sorted.png").await;

    // Phone width: the same page, one column.
    client.set_window_size(390, 844).await.unwrap();
    screenshot(&client, "phone.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn favorites_recent_find_player_and_the_watch_list() {
    let lab = Lab::start(lab_config(8, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(600)).await;
    let driver = super::browser::Driver::start().await.unwrap();
    let client = driver.browser(1400, 900).await.unwrap();
    let url = format!("http://{}/", relay.addr);
    client.goto(&url).await.unwrap();
    let all_rows = async || {
        let rows = row_addrs(&client).await?;
        if rows.len() == 8 {
            Ok(rows)
        } else {
            Err(format!("{rows:?}"))
        }
    };
    eventually("every server listed", all_rows).await;
    let favorite = lab.servers[2].addr.to_string();
    let viewed = lab.servers[4].addr.to_string();

    // A favorite survives a reload.
    click(
        &client,
        &format!("tr[data-addr=\"{favorite}\"] [data-testid=star]"),
    )
    .await;
    client.refresh().await.unwrap();
    eventually("every server listed again", all_rows).await;
    click(&client, "button[data-tab=favorites]").await;
    let shown = eventually("only the favorite", async || {
        let rows = row_addrs(&client).await?;
        (rows == [favorite.clone()])
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert_eq!(shown.len(), 1);

    // Recently viewed: the server just opened.
    click(&client, "button[data-tab=all]").await;
    click(&client, &format!("tr[data-addr=\"{viewed}\"]")).await;
    click(&client, "button[data-tab=recent]").await;
    eventually("the viewed server is recent", async || {
        let rows = row_addrs(&client).await?;
        (rows == [viewed.clone()])
            .then_some(())
            .ok_or(format!("{rows:?}"))
    })
    .await;

    // Find player: part of a name, any case, colours ignored.
    let player = lab.servers[5]
        .snapshot()
        .players
        .iter()
        .find(|p| !p.bot)
        .map(|p| strip(&p.name))
        .expect("a human on server 5");
    let part: String = player.to_uppercase().chars().take(4).collect();
    set_input(&client, "find-player", &part).await;
    let target = lab.servers[5].addr.to_string();
    eventually("the player is found on their server", async || {
        let found = client
            .find_all(Locator::Css("[data-testid=found-player]"))
            .await
            .map_err(|e| e.to_string())?;
        let mut addrs = Vec::new();
        for f in found {
            addrs.push(
                f.attr("data-addr")
                    .await
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default(),
            );
        }
        addrs
            .contains(&target)
            .then_some(())
            .ok_or(format!("{addrs:?}"))
    })
    .await;

    // Watch list: with notifications allowed, watching a name that is online raises a browser
    // notification and a toast linking to the server.
    let permission = client
        .execute("return Notification.permission;", vec![])
        .await
        .unwrap();
    assert_eq!(permission, "granted");
    client
        .execute(
            "window.__notified = []; const Original = window.Notification; \
             window.Notification = class extends Original { \
               constructor(title, options) { super(title, options); window.__notified.push(title); } }; \
             Object.defineProperty(window.Notification, 'permission', { get: () => Original.permission });",
            vec![],
        )
        .await
        .unwrap();
    set_input(&client, "watch-name", &player).await;
    click(&client, "#watch-name + button").await;
    let toast = eventually("a toast for the watched name", async || {
        text_of(&client, "[data-testid=toast]").await
    })
    .await;
    assert!(toast.contains(&player), "{toast}");
    let notified = client
        .execute("return window.__notified;", vec![])
        .await
        .unwrap();
    assert_eq!(notified[0], format!("{player} is playing").as_str());
    screenshot(&client, "watch.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn live_updates_keep_scroll_selection_and_typed_text_and_keys_move_the_selection() {
    use fantoccini::key::Key;
    let lab = Lab::start(lab::LabConfig {
        churn: Some(Duration::from_millis(100)),
        ..lab_config(60, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    let (_driver, client) = open_page(&relay, 1400, 700).await;
    // Sorted by name, rows keep their places while their cells update (by player count, the
    // churn would move the chosen row out of the rendered window).
    client
        .goto(&format!("http://{}/?sort=name", relay.addr))
        .await
        .unwrap();
    eventually("the fleet is listed", async || {
        let summary = text_of(&client, "[data-testid=summary]").await?;
        summary
            .starts_with("60 servers, 60 answering")
            .then_some(())
            .ok_or(summary)
    })
    .await;
    set_input(&client, "max-ping", "999").await;
    let scrolled = client
        .execute(
            "const el = document.querySelector('.table-scroll'); el.scrollTop = 320; \
             el.dispatchEvent(new Event('scroll')); return el.scrollTop;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(scrolled, 320);
    let rows = eventually("rows after the scroll", async || {
        let rows = row_addrs(&client).await?;
        (rows.len() > 12)
            .then_some(rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    let chosen = rows[12].clone();
    client
        .execute(
            "document.querySelector(`tr[data-addr='${arguments[0]}']`).click();",
            vec![chosen.clone().into()],
        )
        .await
        .unwrap();
    // Several refreshes come in (scores and counts change every 100 ms, refreshes every 1 s).
    // Selecting may scroll the row fully into view; from here on only updates arrive.
    let scroll = client
        .execute(
            "return document.querySelector('.table-scroll').scrollTop;",
            vec![],
        )
        .await
        .unwrap();
    assert!(scroll.as_f64().unwrap() >= 300.0, "{scroll}");
    // Updates keep arriving (the chosen server's record among them), and the page draws them.
    record_refreshed(&relay, &client, &chosen).await;
    ticks(&relay, 1).await;
    settled(&client).await;
    let state = client
        .execute(
            "return [document.querySelector('.table-scroll').scrollTop, \
                     document.getElementById('max-ping').value, \
                     document.querySelector('tr.selected')?.dataset.addr];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(state[0], scroll, "scroll position kept");
    assert_eq!(state[1], "999", "typed text kept");
    assert_eq!(state[2], chosen.as_str(), "selection kept");

    // Arrow keys move the selection along the list as shown.
    let order = row_addrs(&client).await.unwrap();
    let at = order.iter().position(|a| *a == chosen).unwrap();
    // The selected row may be replaced by an update between finding it and typing: try again.
    eventually("the key reaches the selected row", async || {
        let row = client
            .find(Locator::Css("tr.selected"))
            .await
            .map_err(|e| e.to_string())?;
        row.send_keys(&Key::Down.to_string())
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    let moved = eventually("ArrowDown selects the next server", async || {
        let selected = client
            .execute(
                "return document.querySelector('tr.selected')?.dataset.addr;",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let next = row_addrs(&client).await?;
        (selected.as_str().is_some_and(|s| s != chosen))
            .then(|| (selected.as_str().unwrap_or_default().to_owned(), next))
            .ok_or(format!("{selected}"))
    })
    .await;
    let next_in_order = &order[at + 1];
    // Counts change while we look, so the order may shift by a place; the selection moved on.
    assert!(
        moved.0 == *next_in_order || moved.1.contains(&moved.0),
        "{moved:?}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_page_shows_the_configured_wulfram_servers() {
    // One server that accepts TCP (a Wulfram II port), one that nothing listens on.
    let listening = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up = listening.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listening.accept().await {
            drop(stream);
        }
    });
    let down = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![],
            lan: vec![],
            ..relay::PollerConfig::default()
        },
        wulfram: relay::wulfram::WulframConfig {
            targets: vec![
                relay::wulfram::parse_target(&format!("arena={up}"))
                    .await
                    .unwrap(),
                relay::wulfram::parse_target(&format!("old-box={down}"))
                    .await
                    .unwrap(),
            ],
            check_every: Duration::from_millis(500),
        },
        ..relay::ServeConfig::default()
    })
    .await
    .unwrap();
    let (_driver, client) = open_page(&relay, 1400, 700).await;
    let rows = eventually("both Wulfram II servers are checked", async || {
        let rows = client
            .execute(
                "return [...document.querySelectorAll('[data-testid=wulfram-server]')] \
                 .map(r => [...r.cells].map(c => c.textContent));",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).map_err(|e| e.to_string())?;
        (rows.len() == 2 && rows.iter().all(|r| r[2] != "checking…"))
            .then(|| rows.clone())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert_eq!(
        rows[0][..3],
        ["arena".to_owned(), up.to_string(), "online".to_owned()]
    );
    assert!(rows[0][3].ends_with(" ms"), "{rows:?}");
    assert_eq!(
        rows[1][..4],
        [
            "old-box".to_owned(),
            down.to_string(),
            "unreachable".to_owned(),
            "-".to_owned()
        ]
    );
    screenshot(&client, "wulfram.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_masters_panel_shows_the_relay_s_own_master() {
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![],
            lan: vec![],
            master_interval: Duration::from_secs(2),
            ..Default::default()
        },
        master: Some(relay::MasterListen {
            listen: "127.0.0.1:0".parse().unwrap(),
            config: protocol::cod::master_server::MasterConfig {
                allow_private: true,
                ..Default::default()
            },
            federate: vec![],
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let master = relay.master.as_ref().unwrap().0.addr;
    let lab = Lab::start(lab::LabConfig {
        heartbeat: Duration::from_millis(500),
        heartbeat_to: vec![master],
        ..lab_config(3, 10)
    })
    .await
    .unwrap();
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    let own = format!("127.0.0.1:{}", master.port());
    taken_over(&client).await;
    click(&client, "[data-testid=sources]").await;
    eventually("the panel shows the relay's own master", async || {
        let text = text_of(&client, "[data-testid=master]").await?;
        (text.contains(&own) && text.contains("this relay's master: 3 registered"))
            .then_some(())
            .ok_or(text)
    })
    .await;
    eventually("the list shows its servers", async || {
        let rows = count(&client, "[data-testid=server-row]").await;
        (rows == 3).then_some(()).ok_or(format!("{rows} rows"))
    })
    .await;
    screenshot(&client, "own-master.png").await;
    client.close().await.unwrap();
    drop(lab);
}

/// Moves the mouse onto the element `css` finds.
async fn point_at(client: &Client, css: &str) -> fantoccini::elements::Element {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    let element = client.find(Locator::Css(css)).await.unwrap();
    let to = MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
        element: element.clone(),
        duration: None,
        x: 0.0,
        y: 0.0,
    });
    client.perform_actions(to).await.unwrap();
    element
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn rows_wait_under_the_pointer_and_a_click_lands_on_the_row_aimed_at() {
    // Counts change every 100 ms and the relay refreshes every second: sorted by players (the
    // default), the list would reorder under the pointer all the time.
    let lab = Lab::start(lab::LabConfig {
        churn: Some(Duration::from_millis(100)),
        ..lab_config(40, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    taken_over(&client).await;
    every_server_answers(&client, 40).await;
    let held = || async {
        client
            .execute(
                "return document.querySelector('#app .table-scroll').dataset.held;",
                vec![],
            )
            .await
            .unwrap()
    };
    let row = point_at(&client, "#app tr[data-addr]:nth-child(5)").await;
    let aimed = row.attr("data-addr").await.unwrap().unwrap();
    assert_eq!(held().await, "true");
    let before = row_addrs(&client).await.unwrap();
    // Changes arrive meanwhile: the changed rows are marked, and the order waits.
    eventually("changed rows are marked", async || {
        let changed = count(&client, "tr.changed").await;
        (changed > 0).then_some(()).ok_or("none".to_owned())
    })
    .await;
    ticks(&relay, 2).await;
    settled(&client).await;
    assert_eq!(
        row_addrs(&client).await.unwrap(),
        before,
        "the order waited"
    );
    row.click().await.unwrap();
    let selected = client
        .execute(
            "return document.querySelector('tr.selected')?.dataset.addr;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        selected,
        aimed.as_str(),
        "the click landed on the row aimed at"
    );
    screenshot(&client, "held.png").await;
    // The pointer leaves: the order catches up with the counts.
    point_at(&client, "header h1").await;
    eventually("the order catches up", async || {
        let now = row_addrs(&client).await?;
        (held().await == "false" && now != before && count(&client, "tr.changed").await == 0)
            .then_some(())
            .ok_or(format!("{now:?}"))
    })
    .await;
    client.close().await.unwrap();
}
