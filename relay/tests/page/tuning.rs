//! The tuning page.

use super::*;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn the_tuning_page_follows_its_settings_and_keeps_them_across_a_reload() {
    let (_lab, relay) = lab_and_relay(2, 1).await;
    let (_driver, client) = open_page(&relay, 1400, 900).await;
    // The tuning page, its own page: an old link to it (`/#tuning`) goes there.
    client
        .goto(&format!("http://{}/#tuning", relay.addr))
        .await
        .unwrap();
    eventually("the old link leads to the tuning page", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        (url.path() == "/tuning/")
            .then_some(())
            .ok_or(url.to_string())
    })
    .await;
    // The balanced profile on a 30 Hz server is clean, and it survives a reload.
    for (id, value) in [
        ("com_maxfps", "125"),
        ("cl_maxpackets", "62"),
        ("rate", "50000"),
        ("snaps", "30"),
        ("sv_fps", "30"),
    ] {
        set_input(&client, id, value).await;
    }
    let rates = eventually("the clocks follow the settings", async || {
        let mut rates = Vec::new();
        for clock in client
            .find_all(Locator::Css("[data-testid=tuning-page] .clock-rate"))
            .await
            .map_err(|e| e.to_string())?
        {
            rates.push(clock.text().await.map_err(|e| e.to_string())?);
        }
        (rates == ["125.0/s", "62.5/s", "30.3/s", "30.3/s"])
            .then_some(rates.clone())
            .ok_or(format!("{rates:?}"))
    })
    .await;
    assert_eq!(rates.len(), 4);
    text_of(&client, "[data-testid=advice-none]").await.unwrap();
    screenshot(&client, "tuning.png").await;
    client.refresh().await.unwrap();
    eventually("settings survive a reload", async || {
        let value = client
            .find(Locator::Id("cl_maxpackets"))
            .await
            .map_err(|e| e.to_string())?
            .prop("value")
            .await
            .map_err(|e| e.to_string())?;
        (value.as_deref() == Some("62"))
            .then_some(())
            .ok_or(format!("{value:?}"))
    })
    .await;
    client.close().await.unwrap();
}
