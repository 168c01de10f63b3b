//! A server's admin in the page: the share section offers the banner (it loads, 560x95) and
//! the text to paste; "Is this your server?" refuses a wrong rcon password and takes the lab's
//! own, then the owner's description and link show in the detail, and the banner is drawn in
//! the colours chosen. The server's own link opens the page with it selected.

use super::*;
use common::{relay_config, sqlite_history};

const PASSWORD: &str = "page-owner";

async fn said(client: &Client, starts: &str) -> String {
    eventually(&format!("the owner form says {starts}…"), async || {
        let said = text_of(client, "[data-testid=owner-said]").await?;
        said.starts_with(starts).then_some(said.clone()).ok_or(said)
    })
    .await
}

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn an_admin_shares_the_banner_and_proves_the_server_theirs_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        rcon_password: Some(PASSWORD.into()),
        ..lab_config(2, 0)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = relay_config(&lab, vec![], Duration::from_secs(2));
    config.history = Some(sqlite_history(dir.path()));
    let relay = relay::Relay::start(config).await.unwrap();
    common::wait_listed(&relay, &lab).await;
    let addr = lab.servers[0].addr.to_string();
    // The server's own link opens the page with it selected.
    let (_driver, client) = open_page(&relay, 1400, 1100).await;
    client
        .goto(&format!("http://{}/server/{addr}", relay.addr))
        .await
        .unwrap();
    taken_over(&client).await;
    let name = eventually("the linked server is selected", async || {
        text_of(&client, "[data-testid=detail-name]").await
    })
    .await;
    assert_eq!(name, strip(&lab.servers[0].snapshot().hostname));
    // Share: the banner loads at its size, and the text to paste names it.
    click(&client, "[data-testid=share] summary").await;
    eventually("the banner preview loads", async || {
        let size = client
            .execute(
                "const i = document.querySelector('[data-testid=banner-preview]'); \
                 return i.complete ? [i.naturalWidth, i.naturalHeight] : null;",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        (size == serde_json::json!([560, 95]))
            .then_some(())
            .ok_or(size.to_string())
    })
    .await;
    let markdown = attr_of(&client, "[data-testid=share-markdown]", "value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        markdown.contains(&format!(
            "/banner/{addr}.png)](http://{}/server/{addr})",
            relay.addr
        )),
        "{markdown}"
    );
    // Claim: wrong, then right.
    click(&client, "[data-testid=owner-admin] summary").await;
    type_into(&client, "[data-testid=owner-password]", "wrong").await;
    click(&client, "[data-testid=owner-claim]").await;
    said(&client, "the server refused the rcon password").await;
    // The console's spacing: the next attempt waits its turn rather than being dropped.
    type_into(&client, "[data-testid=owner-password]", PASSWORD).await;
    click(&client, "[data-testid=owner-claim]").await;
    said(&client, "Proven").await;
    type_into(
        &client,
        "[data-testid=owner-description-input]",
        "Our clan's sd server",
    )
    .await;
    type_into(
        &client,
        "[data-testid=owner-links]",
        "Clan forum https://clan.example/forum",
    )
    .await;
    type_into(&client, "[data-testid=owner-bg]", "#402010").await;
    click(&client, "[data-testid=owner-save]").await;
    said(&client, "Saved").await;
    let description = eventually("the detail shows what the owner wrote", async || {
        text_of(&client, "[data-testid=owner-description]").await
    })
    .await;
    assert_eq!(description, "Our clan's sd server");
    screenshot(&client, "owner-set").await;
    let svg = reqwest::get(format!("http://{}/banner/{addr}.svg", relay.addr))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(svg.contains("fill=\"#402010\""), "{svg}");
}
