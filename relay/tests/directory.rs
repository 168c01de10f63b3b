//! The whole path on loopback: lab servers -> lab master -> relay -> WebSocket feed and JSON API.

use crate::common;

use std::net::Ipv4Addr;
use std::time::Duration;

use common::{follow_until, lab_config, start_relay};
use lab::{Lab, LabConfig};
use protocol::cod::text;
use protocol::relay_api::{MasterState, Reachability, ServerInfo};

const LIMIT: Duration = Duration::from_secs(20);

fn all_online(servers: &std::collections::BTreeMap<String, ServerInfo>, n: usize) -> bool {
    servers.len() == n
        && servers
            .values()
            .all(|s| s.reachability == Reachability::Online)
}

#[tokio::test]
async fn every_lab_server_reaches_the_page_as_the_lab_serves_it() {
    let lab = Lab::start(lab_config(12, 5)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(30)).await;
    // Servers are queried as each list packet arrives; the master's own state settles when
    // its list is known complete (here: idle after the last \EOT).
    let view = follow_until(&relay, LIMIT, |v| {
        all_online(&v.servers, 12)
            && v.progress.finished == 12
            && v.masters.iter().all(|m| m.state != MasterState::Pending)
    })
    .await;
    assert_eq!(
        (view.progress.total, view.progress.answered),
        (12, 12),
        "the refresh reports its progress"
    );

    for server in &lab.servers {
        let expected = server.snapshot();
        let seen = &view.servers[&server.addr.to_string()];
        assert_eq!(seen.hostname, expected.hostname);
        assert_eq!(seen.map, expected.mapname);
        assert_eq!(seen.gametype, expected.gametype);
        assert_eq!(seen.game, expected.fs_game);
        assert_eq!(seen.protocol, 22);
        assert_eq!(seen.clients, expected.clients(), "{}", seen.addr);
        assert_eq!(seen.max_clients, expected.public_slots());
        assert_eq!(
            seen.bots,
            expected.players.iter().filter(|p| p.bot).count() as u32
        );
        assert_eq!(seen.password, expected.password);
        assert_eq!(seen.punkbuster, expected.punkbuster);
        assert_eq!(seen.pure, expected.pure);
        assert!(seen.ping_ms.is_some() && seen.updated_ms.is_some());
        // The list carries player names (for search and Find player); the rest comes with
        // the detail.
        let names: Vec<_> = seen
            .players
            .iter()
            .map(|p| (p.name.as_str(), p.bot))
            .collect();
        let lab_names: Vec<_> = expected
            .players
            .iter()
            .map(|p| (p.name.as_str(), p.bot))
            .collect();
        assert_eq!(names, lab_names);
    }
    // The list came in several packets (5 addresses each) and was counted whole.
    let master = &view.masters[0];
    assert_eq!(master.addr, lab.master.to_string());
    assert_eq!(master.state, MasterState::Ok { servers: 12 });

    // The JSON API serves the same directory.
    let api: Vec<ServerInfo> = reqwest::get(format!("http://{}/api/servers", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(api.len(), 12);
    // Summary plus detail is what the API says: a page that opens each server gets its whole
    // record, players' scores and pings and every cvar included.
    let mut page = common::Page::open(&relay).await;
    page.until(LIMIT, |v| v.servers.len() == 12).await;
    for server in api {
        let listed = &page.view.servers[&server.addr];
        assert_eq!(
            (
                listed.clients,
                &listed.hostname,
                listed.ping_ms,
                listed.updated_ms
            ),
            (
                server.clients,
                &server.hostname,
                server.ping_ms,
                server.updated_ms
            )
        );
        page.watch(Some(&server.addr)).await;
        page.until(LIMIT, |v| {
            v.detail.as_ref().is_some_and(|d| d.addr == server.addr)
        })
        .await;
        let detail = page.view.detail.clone().unwrap();
        assert_eq!(detail, server);
        let expected = lab
            .servers
            .iter()
            .find(|s| s.addr.to_string() == server.addr)
            .unwrap()
            .snapshot();
        assert_eq!(detail.sources, vec![lab.master.to_string()]);
        let players: Vec<_> = detail
            .players
            .iter()
            .map(|p| (p.name.as_str(), p.score, p.ping, p.bot))
            .collect();
        let lab_players: Vec<_> = expected
            .players
            .iter()
            .map(|p| (p.name.as_str(), p.score, p.ping, p.bot))
            .collect();
        assert_eq!(players, lab_players);
        let cvar = |k: &str| {
            detail
                .cvars
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(cvar("sv_hostname"), Some(expected.hostname.as_str()));
        assert_eq!(cvar("shortversion"), Some("1.51"));
        assert!(!text::strip(&server.hostname).contains('^'));
    }
}

#[tokio::test]
async fn changing_player_counts_are_pushed_to_the_page() {
    let config = LabConfig {
        churn: Some(Duration::from_millis(100)),
        ..lab_config(4, 100)
    };
    let lab = Lab::start(config).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    let mut first_counts = std::collections::BTreeMap::new();
    follow_until(&relay, LIMIT, |view| {
        view.servers
            .values()
            .filter(|s| s.reachability == Reachability::Online)
            .any(|s| {
                let first = first_counts
                    .entry(s.addr.clone())
                    .or_insert_with(|| (s.clients, s.players.clone()));
                *first != (s.clients, s.players.clone())
            })
    })
    .await;
}

#[tokio::test]
async fn lan_scan_finds_the_servers_on_the_four_stock_ports() {
    let config = LabConfig {
        base_port: 28960,
        ..lab_config(5, 100)
    };
    let lab = Lab::start(config)
        .await
        .expect("ports 28960-28964 on 127.0.0.1 are free");
    let relay = start_relay(&lab, vec![Ipv4Addr::LOCALHOST], Duration::from_secs(30)).await;
    let view = follow_until(&relay, LIMIT, |v| all_online(&v.servers, 4)).await;
    let mut addrs: Vec<_> = view.servers.keys().cloned().collect();
    addrs.sort();
    assert_eq!(
        addrs,
        [
            "127.0.0.1:28960",
            "127.0.0.1:28961",
            "127.0.0.1:28962",
            "127.0.0.1:28963"
        ]
    );
    // The list does not carry sources; the API does.
    for server in relay.directory.servers() {
        assert_eq!(server.sources, vec!["lan".to_owned()]);
    }
    assert!(view.masters.is_empty());

    // `muster scan` finds the same four, with what their infoResponse says.
    let found = relay::browse::scan(&[Ipv4Addr::LOCALHOST], Default::default())
        .await
        .unwrap();
    let found_addrs: Vec<&str> = found.iter().map(|s| s.addr.as_str()).collect();
    assert_eq!(found_addrs, addrs);
    for (server, lab_server) in found.iter().zip(&lab.servers) {
        let profile = lab_server.snapshot();
        assert_eq!(server.hostname, profile.hostname);
        assert_eq!(server.clients, profile.clients());
    }
}

#[tokio::test]
async fn silent_masters_and_servers_are_reported_not_hidden() {
    let lab = Lab::start(lab_config(3, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = start_relay(&lab, vec![], Duration::from_secs(1)).await;
    follow_until(&relay, LIMIT, |v| all_online(&v.servers, 3)).await;
    drop(lab);
    // One missed refresh: kept, marked stale; the second: down.
    let view = follow_until(&relay, LIMIT, |v| {
        v.servers
            .values()
            .all(|s| s.reachability == Reachability::Stale)
    })
    .await;
    assert!(view
        .servers
        .values()
        .all(|s| !s.players.is_empty() || s.clients == 0));
    let view = follow_until(&relay, LIMIT, |v| {
        v.servers
            .values()
            .all(|s| s.reachability == Reachability::Unreachable)
    })
    .await;
    // What the servers last said is kept.
    assert!(view.servers.values().all(|s| !s.map.is_empty()));

    // A master that never answers is shown as failed.
    let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let silent = closed.local_addr().unwrap().to_string();
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![silent.clone()],
            lan: vec![],
            engine: relay::browse::EngineConfig {
                master_idle: Duration::from_millis(300),
                ..Default::default()
            },
            ..relay::PollerConfig::default()
        },
        ..relay::ServeConfig::default()
    })
    .await
    .unwrap();
    let view = follow_until(&relay, LIMIT, |v| {
        matches!(
            v.masters.first().map(|m| &m.state),
            Some(MasterState::Failed { .. })
        )
    })
    .await;
    assert_eq!(view.masters[0].addr, silent);
    assert_eq!(
        view.masters[0].state,
        MasterState::Failed {
            error: format!("no reply from {silent}")
        }
    );
}

#[tokio::test]
async fn a_watched_server_is_refreshed_more_often_and_only_known_ones_count() {
    use protocol::relay_api::feed::FeedMessage;

    let lab = Lab::start(LabConfig {
        churn: Some(Duration::from_millis(50)),
        ..lab_config(3, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let relay = relay::Relay::start(relay::ServeConfig {
        dist: common::dist(),
        poller: relay::PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: vec![],
            refresh_interval: Duration::from_secs(600),
            watch_interval: Duration::from_millis(300),
            ..relay::PollerConfig::default()
        },
        ..relay::ServeConfig::default()
    })
    .await
    .unwrap();
    let mut page = common::Page::open(&relay).await;
    page.until(LIMIT, |v| all_online(&v.servers, 3)).await;
    let watched = lab.servers[1].addr.to_string();
    // An address the relay does not know is ignored; a known one is watched.
    page.watch(Some("203.0.113.9:28960")).await;
    page.watch(Some(&watched)).await;
    let mut updates = std::collections::BTreeMap::<String, usize>::new();
    let mut details = 0;
    let deadline = tokio::time::Instant::now() + LIMIT;
    while details < 4 {
        let Some(message) = page.next(deadline).await else {
            panic!("the watched server was not refreshed: {updates:?}");
        };
        match message {
            FeedMessage::Detail { server } => {
                assert_eq!(
                    server.addr, watched,
                    "only the watched server's detail comes"
                );
                details += 1;
            }
            FeedMessage::Changes { added, changed, .. } => {
                let ids = added
                    .iter()
                    .map(|s| s.id)
                    .chain(changed.iter().map(|c| c.id));
                for id in ids {
                    *updates.entry(page.view.addr_of(id).unwrap()).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    assert_eq!(relay.directory.watched(), [watched.clone()].into());
    assert_eq!(
        updates.len(),
        1,
        "only the watched server was refreshed: {updates:?}"
    );
    drop(page);
    let deadline = tokio::time::Instant::now() + LIMIT;
    while !relay.directory.watched().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a closed page watches nothing"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
