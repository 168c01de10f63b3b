//! Alerts from the server detail: a visitor sets one to an ntfy-shaped receiver on 127.0.0.1,
//! sees it listed from the tokens this browser keeps, and deletes everything; this browser's
//! own push subscription cannot be made here (headless Chromium has no push service), and the
//! page says so; the service worker, handed a push message through DevTools
//! (`ServiceWorker.deliverPushMessage`), shows it as a notification.

use std::sync::{Arc, Mutex};

use super::*;
use common::{relay_config, sqlite_history};

#[tokio::test]
#[ignore = "needs the built page and Chromium; run by cargo xtask test"]
async fn an_alert_is_set_listed_and_deleted_from_the_page_and_the_worker_shows_a_push() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab_config(3, 0)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    // A receiver where ntfy would be.
    let took: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let app = axum::Router::new().fallback({
        let took = took.clone();
        move |body: axum::body::Bytes| async move {
            took.lock()
                .unwrap()
                .push(serde_json::from_slice(&body).unwrap_or_default());
            "{}"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ntfy = format!("http://{}/clan", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let mut config = relay_config(&lab, vec![], Duration::from_secs(1));
    config.history = Some(sqlite_history(dir.path()));
    config.alerts.alert_allow_host = vec!["127.0.0.1".into()];
    let relay = relay::Relay::start(config).await.unwrap();
    common::wait_listed(&relay, &lab).await;
    let (_driver, client) = open_page(&relay, 1400, 1000).await;
    let server = &lab.servers[0];
    click(&client, &format!("tr[data-addr=\"{}\"]", server.addr)).await;
    // A full server offers "Join when a slot frees": the alert form opens armed for it.
    {
        let profile = server.snapshot();
        assert!(
            profile.clients() >= profile.max_clients,
            "the lab's first server is full"
        );
    }
    click(&client, "[data-testid=join-when-free]").await;
    eventually("the form opens armed for a free slot", async || {
        let state = client
            .execute(
                "return [document.querySelector('[data-testid=alerts]').open, \
                 document.querySelector('[data-testid=alert-when]').value];",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        (state == serde_json::json!([true, "slot_free"]))
            .then_some(())
            .ok_or(state.to_string())
    })
    .await;
    // By this browser: Chromium here has no push service to subscribe with.
    client
        .find(Locator::Css("[data-testid=alert-when]"))
        .await
        .unwrap()
        .select_by_value("humans_at_least")
        .await
        .unwrap();
    click(&client, "[data-testid=alert-set]").await;
    let said = eventually("the page says why push is not there", async || {
        let said = text_of(&client, "[data-testid=alert-said]").await?;
        said.starts_with("This browser could not subscribe")
            .then_some(said.clone())
            .ok_or(said)
    })
    .await;
    assert!(!said.is_empty());
    // By ntfy: set, then listed from this browser's tokens.
    client
        .find(Locator::Css("[data-testid=alert-by]"))
        .await
        .unwrap()
        .select_by_value("ntfy")
        .await
        .unwrap();
    client
        .find(Locator::Css("[data-testid=alert-url]"))
        .await
        .unwrap()
        .send_keys(&ntfy)
        .await
        .unwrap();
    // Two more humans than the server has now.
    let n = server.snapshot().players.iter().filter(|p| !p.bot).count() + 2;
    client
        .execute(
            "const el = document.querySelector('[data-testid=alert-n]'); el.value = arguments[0]; \
             el.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![n.to_string().into()],
        )
        .await
        .unwrap();
    click(&client, "[data-testid=alert-set]").await;
    eventually("the alert is listed", async || {
        let rule = text_of(&client, "[data-testid=alert-rule]").await?;
        rule.contains(&format!("{} reaches {n} players — by ntfy", server.addr))
            .then_some(())
            .ok_or(rule)
    })
    .await;
    let tokens: Vec<String> = serde_json::from_value(
        client
            .execute(
                "return JSON.parse(localStorage.getItem('muster.alerts'));",
                vec![],
            )
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(tokens.len(), 1);
    screenshot(&client, "alerts-set.png").await;
    // It fires: two join (after the rule's first look, which only learns).
    common::alerts::learned(&format!("http://{}", relay.addr), &tokens).await;
    {
        let mut profile = server.profile.lock().unwrap();
        profile.join_spectator("Joiner1");
        profile.join_spectator("Joiner2");
    }
    eventually("ntfy took the alert", async || {
        let took = took.lock().unwrap();
        (took.len() == 1 && took[0]["topic"] == "clan")
            .then_some(())
            .ok_or(format!("{took:?}"))
    })
    .await;
    // Delete everything: gone from the page and from the relay.
    click(&client, "[data-testid=alert-forget]").await;
    eventually("the list is gone", async || {
        (count(&client, "[data-testid=alert-rule]").await == 0)
            .then_some(())
            .ok_or_else(|| "still listed".to_owned())
    })
    .await;
    let gone = reqwest::get(format!(
        "http://{}/api/alerts?token={}",
        relay.addr, tokens[0]
    ))
    .await
    .unwrap();
    assert_eq!(gone.status(), 404);

    // The service worker shows a push message as a notification.
    client
        .issue_cmd(browser::SessionPost {
            path: "permissions",
            body: serde_json::json!({"descriptor": {"name": "notifications"}, "state": "granted"}),
        })
        .await
        .unwrap();
    client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             navigator.serviceWorker.register('/sw.js')
               .then(() => navigator.serviceWorker.ready).then(() => done(true));",
            vec![],
        )
        .await
        .unwrap();
    let origin = format!("http://{}", relay.addr);
    let message = serde_json::json!({"title": "Clan server", "body": "It has 8 players",
        "tag": "r-1", "url": "/"})
    .to_string();
    client
        .issue_cmd(cdp("ServiceWorker.enable", serde_json::json!({})))
        .await
        .unwrap();
    // Delivered again until it shows (the tag makes a repeat replace, never double): the
    // worker may still be starting. Its registration id: Chromium numbers them from 0 in a
    // fresh profile, and refuses an id it does not have.
    let shown = eventually("the notification shows", async || {
        let mut refused = Vec::new();
        for id in 0..4 {
            let sent = client
                .issue_cmd(cdp(
                    "ServiceWorker.deliverPushMessage",
                    serde_json::json!({"origin": origin,
                        "registrationId": id.to_string(), "data": message}),
                ))
                .await;
            match sent {
                Ok(_) => break,
                Err(e) => refused.push(e.to_string()),
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let shown = client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 navigator.serviceWorker.ready.then(r => r.getNotifications())
                   .then(n => done(n.map(x => x.title + ': ' + x.body)));",
                vec![],
            )
            .await
            .map_err(|e| e.to_string())?;
        let shown: Vec<String> = serde_json::from_value(shown).map_err(|e| e.to_string())?;
        (!shown.is_empty())
            .then_some(shown.clone())
            .ok_or(format!("{shown:?}, refused: {refused:?}"))
    })
    .await;
    assert_eq!(shown, ["Clan server: It has 8 players"]);
}

/// A DevTools command through chromedriver.
fn cdp(cmd: &str, params: serde_json::Value) -> browser::SessionPost {
    browser::SessionPost {
        path: "goog/cdp/execute",
        body: serde_json::json!({"cmd": cmd, "params": params}),
    }
}
