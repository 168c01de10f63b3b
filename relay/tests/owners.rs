//! Owners against lab servers with an rcon password: a wrong password is refused (403) and
//! the right one, used once through the console, opens an owner session; with it the owner
//! sets the description, links and banner colours (the banner draws them), a Discord webhook
//! (a local Discord-shaped receiver gets the server's own event when it fills up) and
//! following; a bad edit is refused with why, a session does not reach another server, and
//! disowning forgets it all.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{lab_config, relay_config, sqlite_history, wait_listed};
use lab::Lab;
use protocol::relay_api::owners::{OwnerProfile, OwnerSession};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);
const PASSWORD: &str = "proof-of-owner";

async fn claim(base: &str, addr: &str, password: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/servers/{addr}/claim"))
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The status of the public owner profile of `addr`.
async fn owner_status(base: &str, addr: &str) -> u16 {
    let response = reqwest::get(format!("{base}/api/servers/{addr}/owner")).await;
    response.unwrap().status().as_u16()
}

async fn edit(base: &str, addr: &str, token: Option<&str>, body: Value) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .put(format!("{base}/api/servers/{addr}/owner"))
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_owner_claims_with_the_rcon_password_and_sets_the_server_s_page_banner_and_webhook() {
    let dir = tempfile::tempdir().unwrap();
    claims_and_edits(sqlite_history(dir.path())).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
async fn an_owner_claims_and_edits_on_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = sqlite_history(dir.path());
    history.store.database = Some(relay::store::postgres_database());
    claims_and_edits(history).await;
}

/// Claim, edits refused and made, the owner's webhook hearing its server fill, disowning:
/// against the history store `history` names.
async fn claims_and_edits(history: relay::history::HistoryConfig) {
    let lab = Lab::start(lab::LabConfig {
        rcon_password: Some(PASSWORD.into()),
        ..lab_config(2, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    // Where Discord would be: every POST kept.
    let took: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let app = axum::Router::new().fallback({
        let took = took.clone();
        move |uri: axum::http::Uri, body: axum::body::Bytes| async move {
            took.lock().unwrap().push((
                uri.path().to_owned(),
                serde_json::from_slice(&body).unwrap_or_default(),
            ));
            axum::http::StatusCode::NO_CONTENT
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let discord = format!(
        "http://{}/api/webhooks/1/owner",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut config = relay_config(&lab, vec![], Duration::from_secs(1));
    config.history = Some(history);
    config.alerts.alert_allow_host = vec!["127.0.0.1".into()];
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    let base = format!("http://{}", relay.addr);
    // The server with room: filling it is the event its owner hears of.
    let (server, other) =
        if lab.servers[0].snapshot().clients() < lab.servers[0].snapshot().max_clients {
            (&lab.servers[0], &lab.servers[1])
        } else {
            (&lab.servers[1], &lab.servers[0])
        };
    let addr = server.addr.to_string();

    let (status, said) = claim(&base, &addr, "not-the-password").await;
    assert_eq!(status, 403, "{said}");
    assert!(said.contains("refused the rcon password"), "{said}");
    assert_eq!(owner_status(&base, &addr).await, 404);
    let (status, said) = claim(&base, &addr, PASSWORD).await;
    assert_eq!(status, 200, "{said}");
    let session: OwnerSession = serde_json::from_str(&said).unwrap();
    assert_eq!(session.token.len(), 32);
    assert!(session.expires_ms > session.profile.proven_ms);
    let token = session.token.as_str();

    // Edits need the session, for this server only.
    assert_eq!(
        edit(&base, &addr, None, json!({"description": "x"}))
            .await
            .0,
        401
    );
    let other_addr = other.addr.to_string();
    assert_eq!(
        edit(&base, &other_addr, Some(token), json!({"description": "x"}))
            .await
            .0,
        401
    );
    for (bad, why) in [
        (
            json!({"links": [{"title": "site", "url": "http://clan.example"}]}),
            "https URL",
        ),
        (
            json!({"banner": {"background": "red", "text": "#ffffff", "accent": "#ff0000"}}),
            "#rrggbb",
        ),
        (json!({"description": "d".repeat(501)}), "500 characters"),
        (
            json!({"banner": {"background": "#ffffff", "text": "#ffe14d", "accent": "#000000"}}),
            "the text colour reads at 1.3:1 on the background, at least 4.5:1",
        ),
    ] {
        let (status, said) = edit(&base, &addr, Some(token), bad).await;
        assert_eq!(status, 400, "{said}");
        assert!(said.contains(why), "{said}");
    }
    let (status, said) = edit(
        &base,
        &addr,
        Some(token),
        json!({"discord_webhook": "https://10.0.0.9/api/webhooks/1/x"}),
    )
    .await;
    assert_eq!(status, 403, "{said}");
    let (status, said) = edit(
        &base,
        &addr,
        Some(token),
        json!({
            "description": "Clan server: sd every night",
            "links": [{"title": "Forum", "url": "https://clan.example/forum"}],
            "banner": {"background": "#fafafa", "text": "#202020", "accent": "#a04000"},
            "discord_webhook": discord,
            "follow": true,
        }),
    )
    .await;
    assert_eq!(status, 200, "{said}");
    let profile: OwnerProfile = serde_json::from_str(&said).unwrap();
    assert!(profile.discord && profile.follow);
    assert!(
        !said.contains("webhooks/1/owner"),
        "the webhook's URL stays private: {said}"
    );
    let shown: OwnerProfile = reqwest::get(format!("{base}/api/servers/{addr}/owner"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown.description, "Clan server: sd every night");
    assert_eq!(shown.links[0].url, "https://clan.example/forum");
    let page = |path: String| {
        let url = format!("{base}{path}");
        async move { reqwest::get(url).await.unwrap().text().await.unwrap() }
    };
    let svg = page(format!("/banner/{addr}.svg")).await;
    assert!(
        svg.contains("fill=\"#fafafa\"") && svg.contains("#a04000"),
        "{svg}"
    );
    // On a pale banner the game's pale colours are darkened until they read; the widget too.
    let embed = page(format!("/embed/{addr}")).await;
    let css_colours: Vec<&str> = embed
        .split("color:")
        .skip(1)
        .map(|rest| &rest[..7])
        .collect();
    assert!(css_colours.len() >= 9, "{embed}");
    for colour in css_colours {
        let read = relay::banners::contrast::ratio(colour, "#fafafa").unwrap();
        assert!(
            read >= relay::banners::contrast::AA,
            "{colour}: {read} in {embed}"
        );
    }

    // The server fills up: its owner's Discord hears of it, once. First the rules learn the
    // server as it is now (a rule fires on a change, not on what it finds at its first look):
    // two looks after the edit, the second begun after it.
    common::alerts::looked(&base, 2).await;
    let missing = {
        let p = server.snapshot();
        p.max_clients - p.clients()
    };
    for i in 0..missing {
        server
            .profile
            .lock()
            .unwrap()
            .join_spectator(&format!("Filler{i}"));
    }
    let deadline = Instant::now() + LIMIT;
    let event = loop {
        if let Some((path, body)) = took.lock().unwrap().first().cloned() {
            break (path, body);
        }
        if Instant::now() > deadline {
            let record = reqwest::get(format!("{base}/api/servers/{addr}"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            panic!(
                "Discord never heard of the server filling up: {}",
                &record[..record.len().min(700)]
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(event.0, "/api/webhooks/1/owner");
    assert!(
        event.1["embeds"][0]["title"].as_str().is_some(),
        "{}",
        event.1
    );
    assert_eq!(event.1["allowed_mentions"]["parse"], json!([]));

    // Opting in to each match's play of the match keeps the webhook as it was.
    let (status, said) = edit(
        &base,
        &addr,
        Some(token),
        json!({"discord_play_of_the_match": true}),
    )
    .await;
    assert_eq!(status, 200, "{said}");
    let profile: OwnerProfile = serde_json::from_str(&said).unwrap();
    assert!(
        profile.discord && profile.discord_play_of_the_match,
        "{said}"
    );

    // Disowned: the profile and the session are gone.
    let gone = reqwest::Client::new()
        .delete(format!("{base}/api/servers/{addr}/owner"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 204);
    assert_eq!(owner_status(&base, &addr).await, 404);
    assert_eq!(
        edit(&base, &addr, Some(token), json!({"description": "x"}))
            .await
            .0,
        401
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_an_rcon_password_cannot_be_claimed() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = relay_config(&lab, vec![], Duration::from_secs(1));
    config.history = Some(sqlite_history(dir.path()));
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    let base = format!("http://{}", relay.addr);
    let (status, said) = claim(&base, &lab.servers[0].addr.to_string(), "anything").await;
    assert_eq!(status, 403, "{said}");
    assert!(said.contains("no rcon password set"), "{said}");
    let (status, _) = claim(&base, "10.9.9.9:28960", "anything").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_its_owner_opts_in_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        rcon_password: Some(PASSWORD.into()),
        ..lab_config(2, 100)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    // A server with room for the spectator (a slot left for a player besides), open to it.
    let server = &lab.servers[0];
    {
        let mut profile = server.profile.lock().unwrap();
        profile.max_clients = profile.clients() + 4;
        profile.password = false;
    }
    let addr = server.addr.to_string();
    let mut config = relay_config(&lab, vec![], Duration::from_secs(1));
    config.history = Some(sqlite_history(dir.path()));
    // A grace period longer than the test: the hub must leave for being let go, not idle.
    config.spectate.grace = Duration::from_secs(3600);
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    let base = format!("http://{}", relay.addr);
    let followed = async || -> bool {
        let hubs: Value = reqwest::get(format!("{base}/api/spectate"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (hubs.as_array().unwrap().iter()).any(|h| h["addr"] == addr.as_str())
    };
    assert!(!followed().await);
    let (status, said) = claim(&base, &addr, PASSWORD).await;
    assert_eq!(status, 200, "{said}");
    let session: OwnerSession = serde_json::from_str(&said).unwrap();
    let (status, said) = edit(&base, &addr, Some(&session.token), json!({"follow": true})).await;
    assert_eq!(status, 200, "{said}");
    let deadline = Instant::now() + LIMIT;
    while !followed().await {
        assert!(
            Instant::now() < deadline,
            "the owner's server was never followed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Disowned, the follower lets the hub go, and with nobody watching it leaves the server
    // at once: the grace period is for viewers coming back.
    let gone = reqwest::Client::new()
        .delete(format!("{base}/api/servers/{addr}/owner"))
        .bearer_auth(&session.token)
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 204);
    while followed().await {
        assert!(
            Instant::now() < deadline + LIMIT,
            "the unwatched hub stayed on the server after it was let go"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
