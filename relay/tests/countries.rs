//! Countries from DB-IP's country lite database (the file xtask installs): a public address
//! gets its country in `GET /api/servers` and in the feed, the lab's loopback servers get
//! none, and `GET /api/countries` names the database and the credit its licence asks for.

use crate::common;

use std::time::Duration;

use common::{body, geoip_db, lab_config, relay_config, wait_listed, Page, PageView};
use lab::Lab;
use relay::browse::pending_server;
use relay::geo::{Countries, GeoArgs};
use relay::Relay;
use serde_json::Value;

/// A server as a master lists it before its first answer.
fn pending(addr: &str) -> protocol::relay_api::ServerInfo {
    pending_server(addr.parse().unwrap(), vec!["master".into()])
}

#[test]
fn the_database_places_public_addresses_and_never_private_ones() {
    let countries = Countries::open(&geoip_db()).unwrap();
    // Google's resolver and RIPE NCC's own address, which every country database agrees on.
    assert_eq!(
        countries.country("8.8.8.8".parse().unwrap()).as_deref(),
        Some("US")
    );
    assert_eq!(
        countries.country("193.0.6.139".parse().unwrap()).as_deref(),
        Some("NL")
    );
    for private in [
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.10",
        "169.254.169.254",
        "100.64.1.1",
    ] {
        assert_eq!(
            countries.country(private.parse().unwrap()),
            None,
            "{private}"
        );
    }
    let about = countries.about();
    assert!(
        about.database.is_some() && about.built.is_some(),
        "{about:?}"
    );
    assert_eq!(
        about.attribution.as_deref(),
        Some("IP Geolocation by DB-IP")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn servers_carry_their_country_in_the_api_and_the_feed() {
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let mut config = relay_config(&lab, Vec::new(), Duration::from_secs(60));
    config.geo = GeoArgs {
        geoip_db: Some(geoip_db()),
    };
    let relay = Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    // A public server as a master would list it (never polled from here: the test only
    // sends to 127.0.0.1); the directory places it as it lists it.
    relay.directory.upsert(pending("8.8.8.8:28960"));
    let base = format!("http://{}", relay.addrs[0]);
    let servers: Value = serde_json::from_str(&body(format!("{base}/api/servers")).await).unwrap();
    let country = |addr: &str| {
        servers
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["addr"] == addr)
            .map(|s| s["country"].clone())
            .unwrap_or_else(|| panic!("{addr} not in {servers}"))
    };
    assert_eq!(country("8.8.8.8:28960"), "US");
    for server in &lab.servers {
        assert_eq!(country(&server.addr.to_string()), Value::Null);
    }
    let mut page = Page::open(&relay).await;
    page.until(Duration::from_secs(10), |view: &PageView| {
        view.servers
            .get("8.8.8.8:28960")
            .is_some_and(|s| s.country.as_deref() == Some("US"))
    })
    .await;
    let about: Value = serde_json::from_str(&body(format!("{base}/api/countries")).await).unwrap();
    assert_eq!(about["attribution"], "IP Geolocation by DB-IP");
    assert_eq!(about["attribution_url"], "https://db-ip.com");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_database_nobody_has_a_country_and_the_api_says_so() {
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    let relay = Relay::start(relay_config(&lab, Vec::new(), Duration::from_secs(60)))
        .await
        .unwrap();
    relay.directory.upsert(pending("8.8.8.8:28960"));
    let base = format!("http://{}", relay.addrs[0]);
    let servers: Value = serde_json::from_str(&body(format!("{base}/api/servers")).await).unwrap();
    assert!(servers
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["country"].is_null()));
    let about: Value = serde_json::from_str(&body(format!("{base}/api/countries")).await).unwrap();
    assert_eq!(about["database"], Value::Null);
}
