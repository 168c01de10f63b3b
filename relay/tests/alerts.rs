//! Alerts against a lab server and local receivers on 127.0.0.1 that speak the far ends'
//! protocols: a generic webhook, a Discord-shaped webhook that answers 429 with `retry_after`
//! once, and an ntfy-shaped root that takes JSON publishes. Each rule fires once when it
//! becomes true; the relay sends only where the operator allowed, never follows a redirect
//! and never connects to an address the operator did not name.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use common::{alerts, lab_config, relay_config, sqlite_history, wait_listed};
use lab::Lab;
use protocol::relay_api::alerts::{AlertEvent, AlertList, AlertRule};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

/// One request a receiver took.
#[derive(Clone, Debug)]
struct Took {
    path: String,
    key: String,
    body: Value,
    at: Instant,
    status: u16,
}

#[derive(Clone, Default)]
struct Receiver {
    took: Arc<Mutex<Vec<Took>>>,
}

impl Receiver {
    fn took(&self, path: &str) -> Vec<Took> {
        let took = self.took.lock().unwrap();
        took.iter().filter(|t| t.path == path).cloned().collect()
    }

    /// Waits until `path` took `n` requests.
    async fn wait(&self, path: &str, n: usize) -> Vec<Took> {
        let deadline = Instant::now() + LIMIT;
        loop {
            let took = self.took(path);
            if took.len() >= n {
                return took;
            }
            assert!(
                Instant::now() < deadline,
                "{path} took {took:?}, wanted {n}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Answers as the far ends do: Discord's webhook a 429 with `retry_after` the first time and
/// 204 after; a redirect at `/moved`; 200 elsewhere.
async fn take(State(r): State<Receiver>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let path = uri.path().to_owned();
    let mut took = r.took.lock().unwrap();
    let before = took.iter().filter(|t| t.path == path).count();
    let (status, answer) = match path.as_str() {
        p if p.starts_with("/api/webhooks/") && before == 0 => (
            StatusCode::TOO_MANY_REQUESTS,
            json!({"message": "You are being rate limited.", "retry_after": 1.5, "global": false})
                .to_string(),
        ),
        p if p.starts_with("/api/webhooks/") => (StatusCode::NO_CONTENT, String::new()),
        "/moved" => (StatusCode::FOUND, String::new()),
        _ => (StatusCode::OK, "{}".to_owned()),
    };
    took.push(Took {
        path: path.clone(),
        key: headers
            .get("muster-delivery")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        at: Instant::now(),
        status: status.as_u16(),
    });
    let mut response = (status, answer).into_response();
    if path == "/moved" {
        response
            .headers_mut()
            .insert("location", "/hook".parse().unwrap());
    }
    response
}

/// Serves `app` on 127.0.0.1; its `http://` address.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    at
}

async fn receiver() -> (Receiver, String) {
    let receiver = Receiver::default();
    let at = serve(
        axum::Router::new()
            .fallback(take)
            .with_state(receiver.clone()),
    )
    .await;
    (receiver, at)
}

async fn relay_with_alerts(lab: &Lab, dir: &std::path::Path, allow: &[&str]) -> relay::Relay {
    let mut config = relay_config(lab, Vec::new(), Duration::from_secs(1));
    config.history = Some(sqlite_history(dir));
    config.alerts.alert_allow_host = allow.iter().map(|h| (*h).to_owned()).collect();
    config.alerts.alert_rules_per_client = 6;
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, lab).await;
    relay
}

async fn post(relay: &relay::Relay, body: Value) -> (u16, String) {
    post_in(relay, body, None).await
}

/// With the visitor's browser languages, when given.
async fn post_in(relay: &relay::Relay, body: Value, accept: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{}/api/alerts", relay.addr))
        .json(&body);
    if let Some(accept) = accept {
        request = request.header("accept-language", accept);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    // A refusal's words, out of the API's error shape.
    let text = if status >= 400 {
        protocol::relay_api::ApiError::said(&text)
    } else {
        text
    };
    (status, text)
}

async fn made(relay: &relay::Relay, body: Value) -> AlertRule {
    made_in(relay, body, None).await
}

async fn made_in(relay: &relay::Relay, body: Value, accept: Option<&str>) -> AlertRule {
    let (status, text) = post_in(relay, body, accept).await;
    assert_eq!(status, 201, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn list(relay: &relay::Relay, token: &str) -> AlertList {
    alerts::listed(&url(relay), token).await
}

fn url(relay: &relay::Relay) -> String {
    format!("http://{}", relay.addr)
}

/// The lab server's human players.
fn humans(lab: &Lab) -> u32 {
    let profile = lab.servers[0].snapshot();
    profile.players.iter().filter(|p| !p.bot).count() as u32
}

/// A player joins the lab's first server.
fn join(lab: &Lab, name: &str) {
    lab.servers[0].profile.lock().unwrap().join_spectator(name);
}

/// `POST {url}/api/alerts` to a relay of its own process, again while it does not list the
/// rule's server yet (404); the rule made.
async fn made_once_listed(url: &str, body: Value) -> AlertRule {
    let deadline = Instant::now() + LIMIT;
    loop {
        let response = reqwest::Client::new()
            .post(format!("{url}/api/alerts"))
            .json(&body)
            .send()
            .await
            .unwrap();
        match response.status().as_u16() {
            201 => return response.json().await.unwrap(),
            404 if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await
            }
            other => panic!("{other}: {}", response.text().await.unwrap()),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rule_fires_once_when_it_becomes_true_to_a_webhook_discord_and_ntfy() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (receiver, at) = receiver().await;
    let relay = relay_with_alerts(&lab, dir.path(), &["127.0.0.1"]).await;
    let server = lab.servers[0].addr.to_string();
    let n = humans(&lab) + 2;
    let hook = made(
        &relay,
        json!({"rule": {"kind": "humans_at_least", "server": server, "n": n},
               "to": {"kind": "webhook", "url": format!("{at}/hook")}}),
    )
    .await;
    assert_eq!(hook.token.as_ref().map(String::len), Some(32));
    // Each in its own language: Discord's asked for German (as the page asks in its own),
    // ntfy's speaks the Russian its browser prefers, the webhook's English (no preference).
    let discord = made(
        &relay,
        json!({"rule": {"kind": "humans_at_least", "server": server, "n": n},
               "to": {"kind": "discord", "url": format!("{at}/api/webhooks/1/secret")},
               "lang": "de"}),
    )
    .await;
    let ntfy = made_in(
        &relay,
        json!({"rule": {"kind": "name_seen", "name": "sgt.fury", "leaves": true},
               "to": {"kind": "ntfy", "url": format!("{at}/clan-alerts")}}),
        Some("ru-RU,ru;q=0.9,en;q=0.5"),
    )
    .await;
    let tokens = [
        hook.token.clone().unwrap(),
        discord.token.clone().unwrap(),
        ntfy.token.clone().unwrap(),
    ];
    alerts::learned(&url(&relay), &tokens).await;
    assert!(
        receiver.took.lock().unwrap().is_empty(),
        "nothing fires on the first look"
    );

    // Two join, one of them the watched name in colours.
    {
        let mut profile = lab.servers[0].profile.lock().unwrap();
        profile.join_spectator("^1Sgt.^7Fury");
        profile.join_spectator("Recruit");
    }
    let hooked = receiver.wait("/hook", 1).await;
    let event: AlertEvent = serde_json::from_value(hooked[0].body.clone()).unwrap();
    assert_eq!(event.key, format!("{}-1", hook.id));
    assert_eq!(
        hooked[0].key, event.key,
        "the key rides in Muster-Delivery too"
    );
    assert_eq!(event.join, Some(format!("coduo://{server}")));
    assert_eq!(event.server.as_ref().map(|s| s.humans), Some(n));
    let host = protocol::cod::text::strip(&event.server.as_ref().unwrap().hostname);
    assert_eq!(
        (event.lang.as_str(), event.text.as_str()),
        (
            "en",
            format!("{host} has {n} players (alert at {n})").as_str()
        ),
    );

    // Discord: 429 with retry_after 1.5 s, then the one delivery, no sooner.
    let path = "/api/webhooks/1/secret";
    let tries = receiver.wait(path, 2).await;
    assert_eq!((tries[0].status, tries[1].status), (429, 204));
    assert_eq!(tries[0].key, tries[1].key);
    assert!(tries[1].at - tries[0].at >= Duration::from_millis(1500));
    let embed = &tries[1].body["embeds"][0];
    assert_eq!(
        embed["description"],
        format!("{host} hat {n} Spieler (Alarm bei {n})")
    );
    assert_eq!(embed["fields"][0]["name"], "Karte");
    assert_eq!(embed["fields"][3]["name"], "Beitreten");
    assert_eq!(tries[1].body["allowed_mentions"], json!({"parse": []}));
    assert_eq!(
        embed["fields"][3]["value"].as_str().unwrap().lines().next(),
        Some(format!("coduo://{server}").as_str())
    );

    // ntfy: a JSON publish at the root naming the topic.
    let published = receiver.wait("/", 1).await;
    assert_eq!(published[0].body["topic"], "clan-alerts");
    assert!(
        published[0].body["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Sgt.Fury играет на {host}")),
        "{}",
        published[0].body
    );

    // While it stays true nothing more is sent (the judge has looked at further refreshes);
    // the listing says what went.
    alerts::looked(&url(&relay), 2).await;
    assert_eq!(receiver.took("/hook").len(), 1);
    assert_eq!(receiver.took(path).len(), 2);
    assert_eq!(receiver.took("/").len(), 1);
    let listed = list(&relay, &tokens[1]).await;
    assert_eq!(listed.rules.len(), 1);
    assert_eq!(listed.rules[0].fired, 1);
    assert!(listed.rules[0].token.is_none(), "the token is shown once");
    assert_eq!(listed.deliveries.len(), 1);
    assert_eq!(listed.deliveries[0].state, "sent");
    assert_eq!(listed.deliveries[0].attempts, 1);

    // A rule added to ntfy's subscription in Polish makes the whole subscription speak it:
    // the earlier rule's next message is Polish too.
    let polish = made(
        &relay,
        json!({"rule": {"kind": "name_seen", "name": "nobody.here"},
               "to": {"kind": "ntfy", "url": format!("{at}/clan-alerts")},
               "token": tokens[2], "lang": "pl"}),
    )
    .await;
    assert_eq!(
        polish.token.as_ref(),
        Some(&tokens[2]),
        "one subscription, one token"
    );
    assert_eq!(list(&relay, &tokens[2]).await.rules.len(), 2);

    // The name leaves: with `leaves`, that is said too.
    lab.servers[0]
        .profile
        .lock()
        .unwrap()
        .leave_spectator("^1Sgt.^7Fury");
    let published = receiver.wait("/", 2).await;
    assert_eq!(published[1].body["message"], "sgt.fury opuścił serwer");

    // Deleting: the rule goes, and everything about the subscription on request.
    let client = reqwest::Client::new();
    let url = format!("http://{}/api/alerts", relay.addr);
    let deleted = client
        .delete(format!("{url}/{}?token={}", hook.id, tokens[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    assert!(list(&relay, &tokens[0]).await.rules.is_empty());
    let wrong = client
        .delete(format!("{url}/{}?token={}", discord.id, tokens[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 404, "a token reaches only its own rules");
    let forgot = client
        .delete(format!("{url}?token={}", tokens[1]))
        .send()
        .await
        .unwrap();
    assert_eq!(forgot.status(), 204);
    let gone = reqwest::get(format!("{url}?token={}", tokens[1]))
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_open_cannon_every_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (receiver, at) = receiver().await;
    let port = at.rsplit(':').next().unwrap().to_owned();
    // `localhost` is allowed by name, but not the loopback address it resolves to.
    let relay = relay_with_alerts(&lab, dir.path(), &["localhost"]).await;
    let server = lab.servers[0].addr.to_string();
    let rule = json!({"kind": "server_down", "server": server});
    let refused = [
        (
            "https://evil.example/hook",
            "not on this relay's allow-list",
        ),
        ("http://discord.com/api/webhooks/1/x", "only https"),
        ("https://127.0.0.1/hook", "not on this relay's allow-list"),
        ("http://169.254.169.254/latest/meta-data/", "only https"),
        (
            "https://169.254.169.254/latest/meta-data/",
            "not on this relay's allow-list",
        ),
        ("https://[::1]/hook", "not on this relay's allow-list"),
        ("https://user:pw@ntfy.sh/topic", "user name or password"),
        ("ftp://ntfy.sh/topic", "only https"),
        ("not a url", "not a URL"),
    ];
    for (url, why) in refused {
        let (status, text) = post(
            &relay,
            json!({"rule": rule, "to": {"kind": "webhook", "url": url}}),
        )
        .await;
        assert_eq!(status, 403, "{url}: {text}");
        assert!(text.contains(why), "{url}: {text}");
    }
    let (status, text) = post(
        &relay,
        json!({"rule": rule, "to": {"kind": "discord", "url": "https://discord.com/channels/1/2"}}),
    )
    .await;
    assert_eq!(
        (status, text.contains("api/webhooks")),
        (403, true),
        "{text}"
    );
    // A language nobody here writes in.
    let (status, text) = post(
        &relay,
        json!({"rule": rule, "to": {"kind": "webhook", "url": "https://ntfy.sh/x"}, "lang": "xx"}),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("lang: no language \"xx\""), "{text}");
    // A server the relay does not list is no rule's server.
    let (status, _) = post(
        &relay,
        json!({"rule": {"kind": "server_up", "server": "127.0.0.1:1"},
               "to": {"kind": "webhook", "url": "https://ntfy.sh/x"}}),
    )
    .await;
    assert_eq!(status, 404);
    // A push subscription's keys must be a P-256 point and a 16-byte secret.
    let (status, text) = post(
        &relay,
        json!({"rule": rule, "to": {"kind": "push", "subscription": {
            "endpoint": "https://fcm.googleapis.com/fcm/send/x",
            "keys": {"p256dh": "k", "auth": "a"}}}}),
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("p256dh"), "{text}");
    let (status, text) = post(
        &relay,
        json!({"rule": rule, "to": {"kind": "push", "subscription": {
            "endpoint": format!("https://discord.com/api/webhooks/1/x"),
            "keys": {"p256dh": "k", "auth": "a"}}}}),
    )
    .await;
    assert_eq!(status, 403, "push goes only to push services: {text}");
    // Allowed by name, refused after DNS: the delivery is dropped saying why, unsent.
    let local = made(
        &relay,
        json!({"rule": rule, "to": {"kind": "webhook", "url": format!("http://localhost:{port}/hook")}}),
    )
    .await;
    let token = local.token.clone().unwrap();
    alerts::learned(&url(&relay), std::slice::from_ref(&token)).await;
    // Five rules a client at most (this test's cap is 6): the sixth is the last.
    for _ in 0..5 {
        made(
            &relay,
            json!({"rule": rule, "to": {"kind": "webhook", "url": "https://ntfy.sh/x"}}),
        )
        .await;
    }
    let (status, text) = post(
        &relay,
        json!({"rule": rule, "to": {"kind": "webhook", "url": "https://ntfy.sh/x"}}),
    )
    .await;
    assert_eq!(status, 429, "{text}");
    assert!(text.contains("--alert-rules-per-client"));
    lab.shutdown().await;
    let deadline = Instant::now() + LIMIT;
    let dropped = loop {
        let listed = list(&relay, &token).await;
        if let Some(d) = listed.deliveries.first().filter(|d| d.state == "dropped") {
            break d.clone();
        }
        assert!(Instant::now() < deadline, "{listed:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let reason = dropped.reason.unwrap();
    assert!(
        reason.contains("resolves to") && reason.contains("not a public address"),
        "{reason}"
    );
    assert!(
        receiver.took.lock().unwrap().is_empty(),
        "nothing reached loopback"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (receiver, at) = receiver().await;
    let relay = relay_with_alerts(&lab, dir.path(), &["127.0.0.1"]).await;
    let server = lab.servers[0].addr.to_string();
    let moved = made(
        &relay,
        json!({"rule": {"kind": "server_down", "server": server},
               "to": {"kind": "webhook", "url": format!("{at}/moved")}}),
    )
    .await;
    let token = moved.token.clone().unwrap();
    alerts::learned(&url(&relay), std::slice::from_ref(&token)).await;
    lab.shutdown().await;
    receiver.wait("/moved", 1).await;
    let deadline = Instant::now() + LIMIT;
    loop {
        let listed = list(&relay, &token).await;
        if let Some(d) = listed.deliveries.first().filter(|d| d.state == "dropped") {
            assert!(d.reason.as_ref().unwrap().contains("redirect"), "{d:?}");
            break;
        }
        assert!(Instant::now() < deadline, "{listed:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        receiver.took("/hook").is_empty(),
        "the redirect's target was never asked"
    );
}

/// A receiver that holds every request unanswered until `answer` is set, then answers 200;
/// it records each request's key and whether it was answered.
#[derive(Clone, Default)]
struct Holding {
    answer: Arc<std::sync::atomic::AtomicBool>,
    /// (key, answered with 200)
    took: Arc<Mutex<Vec<(String, bool)>>>,
}

async fn hold(State(h): State<Holding>, headers: HeaderMap) -> Response {
    let key = headers
        .get("muster-delivery")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if !h.answer.load(std::sync::atomic::Ordering::SeqCst) {
        h.took.lock().unwrap().push((key, false));
        tokio::time::sleep(Duration::from_secs(120)).await;
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    h.took.lock().unwrap().push((key, true));
    StatusCode::OK.into_response()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_killed_mid_send_delivers_every_firing_once_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let holding = Holding::default();
    let at = serve(
        axum::Router::new()
            .fallback(hold)
            .with_state(holding.clone()),
    )
    .await;
    let store = [
        "--data-dir".to_owned(),
        dir.path().display().to_string(),
        "--alert-allow-host".into(),
        "127.0.0.1".into(),
    ];
    let master = lab.master.to_string();
    let (mut first, url) = common::serve_muster(&master, &store).await;
    let server = lab.servers[0].addr.to_string();
    let n = humans(&lab) + 1;
    // Once the relay lists the server, five subscriptions.
    let mut tokens = Vec::new();
    for i in 0..5 {
        let made = made_once_listed(
            &url,
            json!({"rule": {"kind": "humans_at_least", "server": server, "n": n},
                   "to": {"kind": "webhook", "url": format!("{at}/hook/{i}")}}),
        )
        .await;
        tokens.extend(made.token);
    }
    alerts::learned(&url, &tokens).await;
    join(&lab, "Newcomer");
    // All five are in flight, unanswered: kill the relay there.
    let deadline = Instant::now() + LIMIT;
    while holding.took.lock().unwrap().len() < 5 {
        assert!(Instant::now() < deadline, "the firings were never sent");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.kill().await.unwrap();
    let in_flight: std::collections::BTreeSet<String> = (holding.took.lock().unwrap().iter())
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(in_flight.len(), 5, "five firings, five keys");
    holding
        .answer
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let (_second, second) = common::serve_muster(&master, &store).await;
    let deadline = Instant::now() + LIMIT;
    let delivered = loop {
        let delivered: Vec<String> = (holding.took.lock().unwrap().iter())
            .filter(|(_, answered)| *answered)
            .map(|(k, _)| k.clone())
            .collect();
        if delivered.len() >= 5 {
            break delivered;
        }
        assert!(Instant::now() < deadline, "{delivered:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Still true after the restart: nothing fires again on the new relay's looks, nothing is
    // sent twice.
    alerts::looked(&second, 2).await;
    let answered: Vec<String> = (holding.took.lock().unwrap().iter())
        .filter(|(_, answered)| *answered)
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(answered.len(), 5, "{answered:?}");
    let delivered: std::collections::BTreeSet<String> = delivered.into_iter().collect();
    assert_eq!(
        delivered, in_flight,
        "the same firings, under the same keys"
    );
}

/// A push service on 127.0.0.1: checks each message's VAPID signature against the relay's
/// published key and decrypts it with the browser's keys, as Chrome's and Firefox's services
/// and the browser do; answers 201, or 410 at `/push/gone`.
#[derive(Clone)]
struct PushService {
    relay_key: Arc<Mutex<String>>,
    secret: web_push_native::p256::SecretKey,
    auth: web_push_native::Auth,
    /// (path, the decrypted message, the TTL asked)
    took: Arc<Mutex<Vec<(String, Value, String)>>>,
}

async fn push_service(
    State(p): State<PushService>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    use base64ct::Encoding;
    use web_push_native::jwt_simple::prelude::*;
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let authorization = header("authorization");
    let Some(rest) = authorization.strip_prefix("vapid ") else {
        return (StatusCode::UNAUTHORIZED, "no vapid").into_response();
    };
    let (mut token, mut key) = ("", "");
    for part in rest.split(',') {
        let (name, value) = part.trim().split_once('=').unwrap_or_default();
        match name {
            "t" => token = value,
            "k" => key = value,
            _ => {}
        }
    }
    if key != p.relay_key.lock().unwrap().as_str() {
        return (StatusCode::FORBIDDEN, "not the relay's published key").into_response();
    }
    let public = base64ct::Base64UrlUnpadded::decode_vec(key).unwrap();
    let public = ES256PublicKey::from_bytes(&public).unwrap();
    let options = VerificationOptions {
        allowed_audiences: Some(HashSet::from_strings(&["http://127.0.0.1"])),
        ..Default::default()
    };
    let claims = match public.verify_token::<NoCustomClaims>(token, Some(options)) {
        Ok(claims) => claims,
        Err(e) => return (StatusCode::FORBIDDEN, format!("bad signature: {e}")).into_response(),
    };
    assert_eq!(claims.subject.as_deref(), Some("mailto:ops@example.org"));
    assert_eq!(header("content-encoding"), "aes128gcm");
    let plain = match web_push_native::decrypt(body.to_vec(), &p.secret, &p.auth) {
        Ok(plain) => plain,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("{e:?}")).into_response(),
    };
    let path = uri.path().to_owned();
    p.took.lock().unwrap().push((
        path.clone(),
        serde_json::from_slice(&plain).unwrap(),
        header("ttl"),
    ));
    if path == "/push/gone" {
        return StatusCode::GONE.into_response();
    }
    StatusCode::CREATED.into_response()
}

#[tokio::test(flavor = "multi_thread")]
async fn web_push_is_signed_with_the_relay_s_vapid_key_and_encrypted_to_the_browser() {
    use base64ct::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(1, 100)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let mut config = relay_config(&lab, Vec::new(), Duration::from_secs(1));
    config.history = Some(sqlite_history(dir.path()));
    config.alerts.alert_allow_host = vec!["127.0.0.1".into()];
    config.alerts.alert_contact = "mailto:ops@example.org".into();
    let relay = relay::Relay::start(config).await.unwrap();
    wait_listed(&relay, &lab).await;
    let key: Value = reqwest::get(format!("http://{}/api/push/key", relay.addr))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let relay_key = key["key"].as_str().unwrap().to_owned();
    assert_eq!(
        base64ct::Base64UrlUnpadded::decode_vec(&relay_key)
            .unwrap()
            .len(),
        65,
        "an uncompressed P-256 point, as applicationServerKey takes it"
    );
    // The browser's side of the subscription, fixed for the test.
    let secret = web_push_native::p256::SecretKey::from_slice(&[7; 32]).unwrap();
    let auth = web_push_native::Auth::clone_from_slice(&[9; 16]);
    let service = PushService {
        relay_key: Arc::new(Mutex::new(relay_key)),
        secret: secret.clone(),
        auth,
        took: Arc::default(),
    };
    let at = serve(
        axum::Router::new()
            .fallback(push_service)
            .with_state(service.clone()),
    )
    .await;
    let keys = json!({
        "p256dh": base64ct::Base64UrlUnpadded::encode_string(
            &secret.public_key().to_sec1_bytes()),
        "auth": base64ct::Base64UrlUnpadded::encode_string(&[9; 16]),
    });
    let server = lab.servers[0].addr.to_string();
    let n = humans(&lab) + 1;
    let mut tokens = Vec::new();
    for path in ["ok", "gone"] {
        let rule = made(
            &relay,
            json!({"rule": {"kind": "humans_at_least", "server": server, "n": n},
                   "to": {"kind": "push", "subscription": {
                       "endpoint": format!("{at}/push/{path}"), "keys": keys}}}),
        )
        .await;
        tokens.push(rule.token.unwrap());
    }
    alerts::learned(&url(&relay), &tokens).await;
    join(&lab, "Newcomer");
    let deadline = Instant::now() + LIMIT;
    while service.took.lock().unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the push service never heard");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took = service.took.lock().unwrap().clone();
    let (_, message, ttl) = took.iter().find(|(p, ..)| p == "/push/ok").unwrap();
    assert!(message["body"]
        .as_str()
        .unwrap()
        .contains(&format!("has {n} players")));
    assert_eq!(message["join"], format!("coduo://{server}"));
    assert_eq!(message["url"], format!("/?q={server}"));
    assert_eq!(ttl, "21600");
    let ok = list(&relay, &tokens[0]).await;
    assert_eq!(ok.deliveries[0].state, "sent");
    // 410: the subscription is gone, its rules with it, and its delivery says why.
    let deadline = Instant::now() + LIMIT;
    loop {
        let gone = list(&relay, &tokens[1]).await;
        if gone.rules.is_empty() {
            assert_eq!(gone.deliveries[0].state, "dropped");
            assert!(gone.deliveries[0].reason.as_ref().unwrap().contains("410"));
            break;
        }
        assert!(Instant::now() < deadline, "{gone:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_followed_match_s_end_fires_its_rule_with_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(8),
        map_time: Some(Duration::from_secs(6)),
        intermission: Duration::from_secs(1),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (receiver, at) = receiver().await;
    let server = lab.servers[0].addr.to_string();
    let flags = [
        "--follow".to_owned(),
        server.clone(),
        "--data-dir".into(),
        dir.path().display().to_string(),
        "--alert-allow-host".into(),
        "127.0.0.1".into(),
    ];
    let (_relay, url) = common::serve_muster(&lab.master.to_string(), &flags).await;
    let rule = made_once_listed(
        &url,
        json!({"rule": {"kind": "match_end", "server": server},
               "to": {"kind": "webhook", "url": format!("{at}/hook")}}),
    )
    .await;
    // Two maps end; each end is one alert, numbered.
    let took = receiver.wait("/hook", 2).await;
    for (i, took) in took.iter().take(2).enumerate() {
        let event: AlertEvent = serde_json::from_value(took.body.clone()).unwrap();
        assert_eq!(event.key, format!("{}-{}", rule.id, i + 1));
        assert!(event.text.starts_with("Match over on "), "{}", event.text);
        assert_eq!(event.join, Some(format!("coduo://{server}")));
    }
}

/// `highlight` rules: one on a followed server's plays goes to Discord as a card with the clip's
/// still and link on the relay's public address; one with `best` tells each match's play of
/// the match once the match is over and its plays are cut; a rule naming neither a player nor
/// a server is refused.
#[tokio::test(flavor = "multi_thread")]
async fn a_highlight_rule_sends_the_clip_and_best_sends_the_play_of_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(10),
        map_time: Some(Duration::from_secs(8)),
        intermission: Duration::from_secs(1),
        ..lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (receiver, at) = receiver().await;
    let server = lab.servers[0].addr.to_string();
    let flags = [
        "--follow".to_owned(),
        server.clone(),
        "--spectate-delay".into(),
        "1".into(),
        "--data-dir".into(),
        dir.path().display().to_string(),
        "--alert-allow-host".into(),
        "127.0.0.1".into(),
        "--public-url".into(),
        "https://muster.example/".into(),
    ];
    let (_relay, url) = common::serve_muster(&lab.master.to_string(), &flags).await;
    let refused = reqwest::Client::new()
        .post(format!("{url}/api/alerts"))
        .json(&json!({"rule": {"kind": "highlight"}, "to": {"kind": "webhook", "url": format!("{at}/x")}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("names a player, a server or both"));
    made_once_listed(
        &url,
        json!({"rule": {"kind": "highlight", "server": server},
               "to": {"kind": "discord", "url": format!("{at}/api/webhooks/2/highlights")}}),
    )
    .await;
    made_once_listed(
        &url,
        json!({"rule": {"kind": "highlight", "server": server, "best": true},
               "to": {"kind": "webhook", "url": format!("{at}/best")}}),
    )
    .await;

    // Discord: a card with the still as its image and the clip as its link (after one 429).
    let tries = receiver.wait("/api/webhooks/2/highlights", 2).await;
    let embed = &tries[1].body["embeds"][0];
    let image = embed["image"]["url"].as_str().unwrap_or_default();
    let link = embed["url"].as_str().unwrap_or_default();
    assert!(
        image.starts_with("https://muster.example/api/moments/") && image.ends_with(".png"),
        "{embed}"
    );
    assert!(link.starts_with("https://muster.example/m/"), "{embed}");
    assert!(
        embed["description"].as_str().unwrap().ends_with(" points"),
        "{embed}"
    );

    // The play of the match, told once the match is over: the match's best, clipped.
    let took = receiver.wait("/best", 1).await;
    let event: AlertEvent = serde_json::from_value(took[0].body.clone()).unwrap();
    let told = event.highlight.expect("the highlight");
    assert!(told.play_of_the_match && event.text.starts_with("Play of the match on "));
    let kept: protocol::relay_api::highlights::Highlight =
        reqwest::get(format!("{url}/api/highlights/{}", told.id))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert!(kept.play_of_the_match, "{kept:?}");
    let moment = kept.moment.expect("its clip");
    assert_eq!(
        told.still.as_deref(),
        Some(format!("https://muster.example/api/moments/{moment}.png").as_str())
    );
}
