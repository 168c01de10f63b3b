//! The page feed against a lab fleet: a page that reconnects holds what a page that stayed
//! holds, the first message is the compact list, and only the relay's own pages (and origins
//! the operator allowed) may open its sockets.

use crate::common;

use std::time::Duration;

use common::{lab_config, Page};
use lab::Lab;
use protocol::relay_api::Reachability;
use relay::{PollerConfig, Relay, ServeConfig};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const LIMIT: Duration = Duration::from_secs(30);

async fn relay_for(lab: &Lab, allowed_origins: Vec<String>) -> Relay {
    Relay::start(ServeConfig {
        dist: common::dist(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: vec![],
            refresh_interval: Duration::from_secs(1),
            ..PollerConfig::default()
        },
        allowed_origins,
        ..ServeConfig::default()
    })
    .await
    .unwrap()
}

fn online(view: &common::PageView, n: usize) -> bool {
    view.servers.len() == n
        && view
            .servers
            .values()
            .all(|s| s.reachability == Reachability::Online)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_that_reconnects_holds_what_a_page_that_stayed_holds() {
    let lab = Lab::start(lab::LabConfig {
        churn: Some(Duration::from_millis(200)),
        ..lab_config(40, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay_for(&lab, vec![]).await;
    let mut stayed = Page::open(&relay).await;
    stayed.until(LIMIT, |v| online(v, 40)).await;
    // Another page comes and goes, then comes back while the fleet keeps changing.
    let mut left = Page::open(&relay).await;
    left.until(LIMIT, |v| online(v, 40)).await;
    drop(left);
    // The fleet changes while it is away: some ticks pass.
    let left_at = stayed.view.seq;
    stayed.until(LIMIT, |v| v.seq >= left_at + 5).await;
    let mut back = Page::open(&relay).await;
    back.until(LIMIT, |v| online(v, 40)).await;
    // Both read up to the same tick: then they hold the same list.
    let target = stayed.view.seq.max(back.view.seq) + 3;
    stayed.until(LIMIT, |v| v.seq >= target).await;
    loop {
        let (a, b) = (stayed.view.seq, back.view.seq);
        match a.cmp(&b) {
            std::cmp::Ordering::Less => stayed.until(LIMIT, |v| v.seq >= b).await,
            std::cmp::Ordering::Greater => back.until(LIMIT, |v| v.seq >= a).await,
            std::cmp::Ordering::Equal => break,
        }
    }
    assert_eq!(back.view.seq, stayed.view.seq);
    assert_eq!(back.view.servers, stayed.view.servers);
    assert!(back.view.first_bytes > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_message_is_the_compact_list() {
    let lab = Lab::start(lab_config(300, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay_for(&lab, vec![]).await;
    let mut page = Page::open(&relay).await;
    page.until(LIMIT, |v| online(v, 300)).await;
    let mut fresh = Page::open(&relay).await;
    fresh.until(LIMIT, |v| v.servers.len() == 300).await;
    // Names, maps and flags of 300 servers, deflated: well under 100 bytes a server.
    assert!(
        fresh.view.first_bytes < 300 * 100,
        "{} bytes",
        fresh.view.first_bytes
    );
    // The keyframe may be a few ticks old; the ticks after it follow at once.
    let seq = relay.directory.seq();
    fresh.until(LIMIT, |v| v.seq >= seq).await;
    let api = relay.directory.servers();
    for server in &api {
        let listed = &fresh.view.servers[&server.addr];
        assert_eq!(
            (
                &listed.hostname,
                &listed.map,
                listed.clients,
                listed.password
            ),
            (
                &server.hostname,
                &server.map,
                server.clients,
                server.password
            )
        );
        assert!(listed.cvars.is_empty(), "cvars come with the detail only");
    }
}

/// The status a WebSocket upgrade to `path` gets with this `Origin` (none: no header).
async fn upgrade(relay: &Relay, path: &str, origin: Option<&str>) -> u16 {
    let mut request = format!("ws://{}{path}", relay.addr)
        .into_client_request()
        .unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((_socket, response)) => response.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("{path}: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_relay_s_own_pages_and_allowed_origins_open_its_sockets() {
    let lab = Lab::start(lab_config(2, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay_for(&lab, vec!["https://friends.example".into()]).await;
    common::wait_listed(&relay, &lab).await;
    let own = format!("http://{}", relay.addr);
    let server = lab.servers[0].addr;
    for path in ["/ws".to_owned(), format!("/spectate/{server}")] {
        assert_eq!(
            upgrade(&relay, &path, Some("https://evil.example")).await,
            403,
            "{path}"
        );
        assert_eq!(upgrade(&relay, &path, Some(&own)).await, 101, "{path}");
        assert_eq!(
            upgrade(&relay, &path, Some("https://friends.example")).await,
            101
        );
        // Tools that are not browsers send no Origin.
        assert_eq!(upgrade(&relay, &path, None).await, 101, "{path}");
    }
    assert_eq!(
        upgrade(&relay, "/wulfram/lab", Some("https://evil.example")).await,
        403
    );
}
