//! The side panels (detail, Find player, the watch list): their own wasm, fetched only when a
//! visitor reaches for one, taking over what was typed meanwhile, and sharing the selection and
//! the favourites with the list.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};

use super::*;

/// The page's HTTP fetches so far whose path starts with `prefix`.
async fn fetched(client: &Client, prefix: &str) -> usize {
    let n = client
        .execute(
            "return performance.getEntriesByType('resource') \
               .filter(r => new URL(r.name).pathname.startsWith(arguments[0])).length;",
            vec![prefix.into()],
        )
        .await
        .unwrap();
    n.as_u64().unwrap() as usize
}

async fn value_of(client: &Client, id: &str) -> Result<String, String> {
    let value = client
        .execute(
            "const e = document.getElementById(arguments[0]); \
             return e ? [e.value, document.activeElement === e] : null;",
            vec![id.into()],
        )
        .await
        .map_err(|e| e.to_string())?;
    match value.as_array().map(Vec::as_slice) {
        Some([text, serde_json::Value::Bool(true)]) => Ok(text.as_str().unwrap_or("").to_owned()),
        _ => Err(format!("#{id} is not the focused input: {value}")),
    }
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_side_panels_come_when_reached_for_and_keep_what_was_typed() {
    let (lab, relay) = lab_and_relay(6, 100).await;
    let (_driver, client) = open_page(&relay, 1366, 850).await;
    every_server_answers(&client, 6).await;
    // Nothing reached for: the list's page, idle, has not fetched the panels.
    settled(&client).await;
    assert_eq!(fetched(&client, "/panels/").await, 0);
    assert_eq!(count(&client, "[data-testid=found]").await, 0);

    // Typing into Find player's form, as the list drew it, brings them; the text and the focus
    // carry over and the player is found.
    let server = &lab.servers[3];
    let player = server
        .snapshot()
        .players
        .iter()
        .find(|p| !p.bot)
        .map(|p| strip(&p.name))
        .expect("a human on server 3");
    let part: String = player.chars().take(4).collect();
    client
        .find(Locator::Id("find-player"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Typed as a keyboard does (into whatever has the focus), a key every 30 ms: the panels
    // take over while the keys come.
    let mut keys = KeyActions::new("keyboard".to_owned());
    for c in part.chars() {
        keys = keys
            .then(KeyAction::Down { value: c })
            .then(KeyAction::Up { value: c })
            .pause(Duration::from_millis(30));
    }
    client.perform_actions(keys).await.unwrap();
    let target = server.addr.to_string();
    let found = format!("[data-testid=found-player][data-addr=\"{target}\"] button");
    eventually("the player is found on their server", async || {
        (count(&client, &found).await > 0)
            .then_some(())
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    assert_eq!(value_of(&client, "find-player").await, Ok(part.clone()));
    assert_eq!(count(&client, "#find-player").await, 1, "one Find player");
    assert!(
        fetched(&client, "/panels/").await >= 2,
        "the panels' JS and wasm"
    );

    // A server chosen in the panels is the list's selection; a favourite starred in the detail
    // is starred in the list.
    click(&client, &found).await;
    let row = format!("tr[data-addr=\"{target}\"]");
    eventually("the list selects the server", async || {
        let class = attr_of(&client, &row, "class").await?.unwrap_or_default();
        class
            .split(' ')
            .any(|c| c == "selected")
            .then_some(())
            .ok_or(class)
    })
    .await;
    let name = eventually("the detail shows it", async || {
        text_of(&client, "[data-testid=detail-name]").await
    })
    .await;
    assert_eq!(name, strip(&server.snapshot().hostname));
    click(&client, ".detail [data-testid=star]").await;
    let star = format!("{row} [data-testid=star]");
    eventually("the list's star follows the detail's", async || {
        let pressed = attr_of(&client, &star, "aria-pressed").await?;
        (pressed.as_deref() == Some("true"))
            .then_some(())
            .ok_or(format!("{pressed:?}"))
    })
    .await;
    // And back: the list's star un-stars the detail's.
    click(&client, &star).await;
    eventually("the detail's star follows the list's", async || {
        let pressed = attr_of(&client, ".detail [data-testid=star]", "aria-pressed").await?;
        (pressed.as_deref() == Some("false"))
            .then_some(())
            .ok_or(format!("{pressed:?}"))
    })
    .await;
    screenshot(&client, "panels.png").await;

    // A visitor with a watch list gets the panels at once: their alerts need them.
    client
        .execute(
            "localStorage.setItem('muster.watch', JSON.stringify([arguments[0]]));",
            vec![player.clone().into()],
        )
        .await
        .unwrap();
    client.refresh().await.unwrap();
    every_server_answers(&client, 6).await;
    eventually("the watch list is shown without a touch", async || {
        let watched = text_of(&client, "[data-testid=watched]").await?;
        watched
            .contains(&format!("{player} playing on "))
            .then_some(())
            .ok_or(watched)
    })
    .await;
    client.close().await.unwrap();
}
