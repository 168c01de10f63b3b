//! Countries in the page, from DB-IP's lite database: a public server's row shows its country,
//! the country filter keeps the choice in the URL (and a shared link opens with it), the
//! lab's loopback servers say why they have no country, and the list credits the database.

use super::*;
use common::relay_config;
use relay::browse::pending_server;

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn rows_show_flags_the_country_filter_lives_in_the_url_and_the_database_is_credited() {
    let lab = Lab::start(lab_config(2, 0)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = relay_config(&lab, vec![], Duration::from_secs(60));
    config.geo.geoip_db = Some(common::geoip_db());
    let relay = relay::Relay::start(config).await.unwrap();
    common::wait_listed(&relay, &lab).await;
    // A public server as a master would list it; the poller asks only what it learned from
    // its masters, so nothing is sent to it.
    relay.directory.upsert(pending_server(
        "8.8.8.8:28960".parse().unwrap(),
        vec!["master".into()],
    ));
    let (_driver, client) = open_page(&relay, 1400, 1000).await;
    let public = "tr[data-addr=\"8.8.8.8:28960\"] .country";
    let flag = eventually("the public server's row shows its country", async || {
        attr_of(&client, public, "title")
            .await?
            .ok_or("no country".into())
    })
    .await;
    assert_eq!(flag, "Country: US");
    assert_eq!(text_of(&client, public).await.unwrap(), "US");
    // The filter: United States only, and the URL says so.
    click(&client, ".filters-toggle").await;
    client
        .find(Locator::Css("#country"))
        .await
        .unwrap()
        .select_by_value("US")
        .await
        .unwrap();
    eventually("only the US server is listed", async || {
        let rows = row_addrs(&client).await?;
        (rows == ["8.8.8.8:28960"])
            .then_some(())
            .ok_or(format!("{rows:?}"))
    })
    .await;
    eventually("the URL keeps the filter", async || {
        let url = client.current_url().await.map_err(|e| e.to_string())?;
        url.as_str()
            .contains("country=US")
            .then_some(())
            .ok_or(url.to_string())
    })
    .await;
    screenshot(&client, "countries-filtered").await;
    // A shared link for servers without a country opens with that filter.
    client
        .goto(&format!("http://{}/?country=NONE", relay.addr))
        .await
        .unwrap();
    taken_over(&client).await;
    let mut lab_addrs: Vec<String> = lab.servers.iter().map(|s| s.addr.to_string()).collect();
    lab_addrs.sort();
    eventually("only the lab's servers are listed", async || {
        let mut rows = row_addrs(&client).await?;
        rows.sort();
        (rows == lab_addrs).then_some(()).ok_or(format!("{rows:?}"))
    })
    .await;
    click(
        &client,
        &format!("tr[data-addr=\"{}\"]", lab.servers[0].addr),
    )
    .await;
    let said = eventually("the detail says why there is no country", async || {
        text_of(&client, "[data-testid=detail-country]").await
    })
    .await;
    assert_eq!(said, "No country: a loopback address");
    let credit = text_of(&client, "[data-testid=country-credit]")
        .await
        .unwrap();
    assert_eq!(credit, "Countries: IP Geolocation by DB-IP");
    assert_eq!(
        attr_of(&client, "[data-testid=country-credit] a", "href")
            .await
            .unwrap()
            .as_deref(),
        Some("https://db-ip.com")
    );
    screenshot(&client, "countries-detail").await;
}
