//! The Admin tab: the console (its own page, framed in the detail only once opened) against a
//! lab server with rcon: status with slots and colours, the history keys, a bot kicked by its
//! slot leaving the list.

use fantoccini::key::Key;

use super::*;

const PASSWORD: &str = "page-Heron-2290";

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn an_admin_runs_status_kicks_a_bot_by_its_slot_and_sees_it_leave_the_list() {
    let lab = Lab::start(lab::LabConfig {
        players: Some(8),
        rcon_password: Some(PASSWORD.into()),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    let server = &lab.servers[0];
    let (_driver, client) = open_page(&relay, 1366, 850).await;
    every_server_answers(&client, 1).await;
    click(&client, &format!("tr[data-addr=\"{}\"]", server.addr)).await;
    // The console's code is not on the page until the tab opens.
    assert_eq!(count(&client, "[data-testid=admin-frame]").await, 0);
    click(&client, "[data-testid=admin-tab]").await;
    let frame = eventually("the Admin tab frames the console", async || {
        client
            .find(Locator::Css("[data-testid=admin-frame]"))
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    frame.enter_frame().await.unwrap();
    let shown = eventually("the console names its server", async || {
        text_of(&client, "[data-testid=admin-server]").await
    })
    .await;
    assert_eq!(shown, server.addr.to_string());
    let password = client
        .find(Locator::Css("[data-testid=admin-password]"))
        .await
        .unwrap();
    password.send_keys(PASSWORD).await.unwrap();
    let prompt = client
        .find(Locator::Css("[data-testid=admin-command]"))
        .await
        .unwrap();
    prompt
        .send_keys(&("status".to_owned() + &Key::Enter.to_string()))
        .await
        .unwrap();
    let profile = server.snapshot();
    let rows = eventually("status lists every player with its slot", async || {
        let rows = player_rows(&client).await?;
        if rows.len() == profile.players.len() {
            Ok(rows)
        } else {
            Err(format!("{rows:?}"))
        }
    })
    .await;
    for player in &profile.players {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!(
                "{}\t{}",
                player.slot,
                strip(&player.name)
            ))),
            "slot {} {} missing from {rows:?}",
            player.slot,
            player.name
        );
    }
    // Output as the game prints it: colour codes drawn, not shown.
    let output = text_of(&client, "[data-testid=admin-output]")
        .await
        .unwrap();
    assert!(output.contains("num score ping guid"), "{output}");
    assert!(!output.contains("^7"), "{output}");
    screenshot(&client, "admin-status-1366x850.png").await;

    // The history: the up arrow brings the last command back.
    prompt.send_keys(&Key::Up.to_string()).await.unwrap();
    assert_eq!(
        prompt.prop("value").await.unwrap().as_deref(),
        Some("status")
    );
    prompt.clear().await.unwrap();

    let bot = profile
        .players
        .iter()
        .find(|p| p.bot)
        .expect("the lab's rosters are a quarter bots")
        .clone();
    click(
        &client,
        &format!(
            "[data-testid=admin-player][data-slot=\"{}\"] [data-testid=admin-kick]",
            bot.slot
        ),
    )
    .await;
    eventually("the status after the kick lacks the bot", async || {
        let rows = player_rows(&client).await?;
        (rows.len() == profile.players.len() - 1)
            .then_some(())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    assert!(!server.snapshot().players.iter().any(|p| p.name == bot.name));
    screenshot(&client, "admin-kicked-1366x850.png").await;

    // Out of the frame: the list and the detail see the server one player short.
    client.enter_parent_frame().await.unwrap();
    eventually("the detail lists the bot no more", async || {
        let shown = count(&client, "[data-testid=player-row]").await;
        (shown == profile.players.len() - 1)
            .then_some(())
            .ok_or(format!("{shown} players shown"))
    })
    .await;
    let players = text_of(&client, "[data-testid=players-table]")
        .await
        .unwrap();
    assert!(!players.contains(&strip(&bot.name)), "{players}");
}

/// The console's player rows, each as its cells' text joined by tabs.
async fn player_rows(client: &Client) -> Result<Vec<String>, String> {
    let rows = client
        .execute(
            "return [...document.querySelectorAll('[data-testid=admin-player]')].map(r => r.innerText);",
            vec![],
        )
        .await
        .map_err(|e| e.to_string())?;
    serde_json::from_value(rows).map_err(|e| e.to_string())
}
