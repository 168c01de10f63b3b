//! A server's detail: players, settings, the link to its tuning, Refresh now and Join check.

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn a_server_opens_with_its_players_settings_tuning_link_and_refresh_now() {
    let (lab, relay) = lab_and_relay(10, 4).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    every_server_answers(&client, 10).await;
    // Open the busiest server: its players and settings appear beside the list.
    let busiest = lab
        .servers
        .iter()
        .max_by_key(|s| s.snapshot().clients())
        .unwrap();
    let profile = busiest.snapshot();
    client
        .find(Locator::Css(&format!("tr[data-addr=\"{}\"]", busiest.addr)))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let name = eventually("the detail shows the server", async || {
        text_of(&client, "[data-testid=detail-name]").await
    })
    .await;
    assert_eq!(name, strip(&profile.hostname));
    // The page told the relay what it shows, so that server is refreshed more often.
    eventually("the relay knows the page watches the server", async || {
        let watched = relay.directory.watched();
        (watched == [busiest.addr.to_string()].into())
            .then_some(())
            .ok_or(format!("{watched:?}"))
    })
    .await;
    // Read in one step: the watched server's detail re-renders as its refreshes land.
    let seen: Vec<String> = serde_json::from_value(
        client
            .execute(
                "return [...document.querySelectorAll('[data-testid=player-row]')].map(r => r.innerText);",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(seen.len(), profile.players.len());
    for player in &profile.players {
        assert!(
            seen.iter().any(|row| row.starts_with(&strip(&player.name))),
            "{} missing from {seen:?}",
            player.name
        );
    }
    // The tuning link names the server's address and settings for the tuning page (its own
    // download), which is followed at the end.
    let tuning = client
        .find(Locator::Css("[data-testid=tuning-link]"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        tuning,
        format!("/tuning/#server={}&sv_maxRate=25000", busiest.addr)
    );
    let cvars = text_of(&client, "[data-testid=cvars-table]").await.unwrap();
    assert!(cvars.contains("sv_hostname"), "{cvars}");
    assert!(
        cvars.contains(&format!("mapname {}", profile.mapname)),
        "{cvars}"
    );
    // Refresh now: the page's own getinfo and getstatus through the bridge, decoded in wasm.
    let api_bridge = format!("http://{}/api/bridge", relay.addr);
    client
        .find(Locator::Css("[data-testid=refresh-now]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let refreshed = eventually("Refresh now answers", async || {
        match text_of(&client, "[data-testid=refresh-failed]").await {
            Ok(failed) => Err(failed),
            Err(_) => text_of(&client, "[data-testid=refreshed]").await,
        }
    })
    .await;
    assert!(
        refreshed.starts_with("answered in ")
            && refreshed.ends_with(&format!(
                "ms through the bridge: {}, {}/{} players",
                profile.mapname,
                profile.clients(),
                profile.public_slots()
            )),
        "{refreshed}"
    );
    let bridge: serde_json::Value = reqwest::get(&api_bridge)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(bridge["datagrams_to_targets"], 2, "{bridge}");
    assert_eq!(bridge["datagrams_from_targets"], 2, "{bridge}");
    screenshot(&client, "detail.png").await;
    // The tuning page for this server: stock settings against the lab's sv_maxRate 25000 on
    // a stock 20 Hz server give rate-delayed worst-case snapshots, 10 a second.
    client
        .goto(&format!("http://{}{tuning}", relay.addr))
        .await
        .unwrap();
    let snapshots = eventually("the tuning page shows this server", async || {
        let clocks = client
            .find_all(Locator::Css(
                "[data-testid=tuning-panel] [data-testid=clock]",
            ))
            .await
            .map_err(|e| e.to_string())?;
        match clocks.get(3) {
            Some(clock) if clocks.len() == 4 => clock.text().await.map_err(|e| e.to_string()),
            _ => Err(format!("{} clocks", clocks.len())),
        }
    })
    .await;
    assert!(
        snapshots.contains("10.0/s") && snapshots.contains("rate-delayed"),
        "{snapshots}"
    );
    let named = text_of(&client, "[data-testid=tuning-panel] h2")
        .await
        .unwrap();
    assert_eq!(named, format!("Your connection on {}", busiest.addr));
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn join_check_reports_a_free_slot_a_full_server_and_a_password_from_the_page_s_own_client() {
    let lab = Lab::start(lab_config(3, 4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    // Before any session starts: one passworded, one full, one with room.
    for (i, server) in lab.servers.iter().enumerate() {
        let mut profile = server.profile.lock().unwrap();
        let slots = profile.public_slots() as usize;
        profile.password = i == 0;
        profile.players.truncate(slots.saturating_sub(2));
        if i == 1 {
            profile.fill_public_slots();
        }
    }
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    common::wait_listed(&relay, &lab).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    let expected = [
        (
            "password",
            "a password is required (the server said \"GAME_INVALIDPASSWORD\")",
        ),
        (
            "full",
            "the server is full (the server said \"EXE_SERVERISFULL\")",
        ),
        ("free_slot", "a slot is free: you can join"),
    ];
    for (server, (kind, text)) in lab.servers.iter().zip(expected) {
        click(&client, &format!("tr[data-addr=\"{}\"]", server.addr)).await;
        eventually("the detail shows the server", async || {
            let name = text_of(&client, "[data-testid=detail-name]").await?;
            let want = strip(&server.snapshot().hostname);
            (name == want).then_some(()).ok_or(name)
        })
        .await;
        let before = server.connects();
        client
            .find(Locator::Css("[data-testid=join-check]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let answer = eventually("Join check answers", async || {
            let element = client
                .find(Locator::Css("[data-testid=join-answer]"))
                .await
                .map_err(|e| e.to_string())?;
            let kind = element.attr("data-kind").await.map_err(|e| e.to_string())?;
            Ok::<_, String>((kind.unwrap_or_default(), element.text().await.unwrap()))
        })
        .await;
        assert_eq!(
            answer,
            (kind.to_owned(), text.to_owned()),
            "{}",
            server.addr
        );
        if kind == "free_slot" {
            assert_eq!(
                server.connects(),
                before + 1,
                "one connect, through the bridge"
            );
        }
    }
    screenshot(&client, "join-check.png").await;
    let bridge: serde_json::Value = reqwest::get(format!("http://{}/api/bridge", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        bridge["refused"].as_object().unwrap().is_empty(),
        "{bridge}"
    );
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn join_check_says_so_when_the_session_worker_cannot_load() {
    // The built page without its session worker's files, as a half-copied deploy leaves it.
    let dist = tempfile::tempdir().unwrap();
    copy_tree(&common::dist(), dist.path());
    let mut removed = 0;
    for entry in std::fs::read_dir(dist.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("muster-session") && !name.contains("_loader") {
            std::fs::remove_file(path).unwrap();
            removed += 1;
        }
    }
    assert!(
        removed >= 2,
        "the worker's script and wasm were in the page"
    );
    let lab = Lab::start(lab_config(1, 4)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: dist.path().to_owned(),
        ..common::relay_config(&lab, vec![], Duration::from_secs(30))
    })
    .await
    .unwrap();
    common::wait_listed(&relay, &lab).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    click(
        &client,
        &format!("tr[data-addr=\"{}\"]", lab.servers[0].addr),
    )
    .await;
    click(&client, "[data-testid=join-check]").await;
    let answer = eventually("Join check answers", async || {
        text_of(&client, "[data-testid=join-answer]").await
    })
    .await;
    assert!(
        answer.starts_with("Could not ask the server: the session worker failed"),
        "{answer}"
    );
    // The button is free again for a second try.
    assert_eq!(
        text_of(&client, "[data-testid=join-check]").await.unwrap(),
        "Join check"
    );
    assert_eq!(lab.servers[0].connects(), 0);
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn join_opens_the_launcher_s_link_and_the_console_line_puts_the_password_first() {
    let (lab, relay) = lab_and_relay(10, 0).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    every_server_answers(&client, 10).await;
    let open_server = lab.servers.iter().find(|s| !s.snapshot().password).unwrap();
    open_detail(&client, open_server).await;
    assert_eq!(
        text_of(&client, "[data-testid=connect]").await.unwrap(),
        format!("/connect {}", open_server.addr)
    );
    assert_eq!(count(&client, "[data-testid=connect-password]").await, 0);
    // Another server starts asking for a password; the relay hears it on its next poll.
    let locked = lab
        .servers
        .iter()
        .find(|s| s.addr != open_server.addr)
        .unwrap();
    locked.profile.lock().unwrap().password = true;
    open_detail(&client, locked).await;
    let line = format!("/password PASSWORD; connect {}", locked.addr);
    eventually("the line asks for the password first", async || {
        let shown = text_of(&client, "[data-testid=connect]").await?;
        (shown == line).then_some(()).ok_or(shown)
    })
    .await;
    client
        .find(Locator::Css("[data-testid=connect-password]"))
        .await
        .unwrap()
        .send_keys("hunter2")
        .await
        .unwrap();
    // A refresh of the server's record does not take the typed password away.
    record_refreshed(&relay, &client, &locked.addr.to_string()).await;
    assert_eq!(
        text_of(&client, "[data-testid=connect]").await.unwrap(),
        format!("/password hunter2; connect {}", locked.addr)
    );
    screenshot(&client, "detail-join.png").await;
}

/// Opens a server's detail from its row, and waits for its Join link.
async fn open_detail(client: &Client, server: &lab::LabServer) {
    click(client, &format!("tr[data-addr=\"{}\"]", server.addr)).await;
    eventually("the detail shows the server", async || {
        let join = client
            .find(Locator::Css("[data-testid=join]"))
            .await
            .map_err(|e| e.to_string())?;
        let href = join.attr("href").await.map_err(|e| e.to_string())?;
        (href.as_deref() == Some(format!("coduo://{}", server.addr).as_str()))
            .then_some(())
            .ok_or(format!("{href:?}"))
    })
    .await;
}
