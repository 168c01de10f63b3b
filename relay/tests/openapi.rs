//! The API's description against the relay: the committed `docs/openapi.json` is what a relay
//! serves (and no route under `/api/` escapes it: `relay/src/layers.rs` reads the sources), every
//! operation in it reaches a handler, and every refusal wears the shared error shape.

use crate::common;

use std::path::Path;
use std::time::Duration;

use lab::Lab;
use protocol::relay_api::ApiError;
use serde_json::Value;

fn docs() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json")
}

#[test]
fn the_description_is_whole_each_operation_named_once_each_reference_found() {
    let description: Value = serde_json::from_str(&relay::openapi::description_json()).unwrap();
    let text = description.to_string();
    let schemas = description["components"]["schemas"].as_object().unwrap();
    for reference in text.split("\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap();
        assert!(
            schemas.contains_key(name),
            "{name} is named but not described"
        );
    }
    let (mut ids, mut linked) = (std::collections::BTreeSet::new(), Vec::new());
    for (path, item) in description["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap();
            assert!(ids.insert(id.to_owned()), "{method} {path}: {id} twice");
            for (status, response) in operation["responses"].as_object().unwrap() {
                assert!(
                    response["description"].is_string(),
                    "{method} {path} {status}: a response needs a description"
                );
                for link in response["links"].as_object().into_iter().flatten() {
                    linked.push(link.1["operationId"].as_str().unwrap().to_owned());
                }
            }
            let schemes = description["components"]["securitySchemes"]
                .as_object()
                .unwrap();
            for needs in operation["security"].as_array().into_iter().flatten() {
                for scheme in needs.as_object().unwrap().keys() {
                    assert!(schemes.contains_key(scheme), "{method} {path}: {scheme}");
                }
            }
        }
    }
    assert!(!linked.is_empty());
    for id in linked {
        assert!(ids.contains(&id), "a link to {id}, which is no operation");
    }
    assert!(description["webhooks"]["alert"]["post"].is_object());
}

#[test]
fn the_committed_description_is_the_code_s() {
    let committed = std::fs::read_to_string(docs()).unwrap_or_default();
    let generated = relay::openapi::description_json();
    assert!(
        committed == generated,
        "docs/openapi.json is not the description the code makes: run \
         `cargo run -p muster-relay -- openapi > docs/openapi.json` and review the diff"
    );
}

/// A path of the description with its parameters filled.
fn filled(path: &str, server: &str) -> String {
    path.replace("{addr}", server)
        .replace("{id}", "1")
        .replace("{name}", "Fury")
        .replace("{file}", "abcdefgh")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_serves_the_description_and_every_operation_in_it_with_the_shared_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(common::lab_config(1, 4)).await.unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let flags = vec!["--data-dir".to_owned(), dir.path().display().to_string()];
    let (mut relay, url) = common::serve_muster(&lab.master.to_string(), &flags).await;

    let served = common::body(format!("{url}/api/openapi.json")).await;
    assert_eq!(served, relay::openapi::description_json());
    let description: Value = serde_json::from_str(&served).unwrap();
    assert_eq!(description["openapi"], "3.1.0");

    let client = reqwest::Client::new();
    let mut operations = 0;
    for (path, item) in description["paths"].as_object().unwrap() {
        for (method, _) in item.as_object().unwrap() {
            operations += 1;
            let at = format!("{url}{}", filled(path, &server));
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = client.request(method.clone(), &at).send().await.unwrap();
            let status = response.status();
            let kind = (response.headers().get("content-type"))
                .map(|t| t.to_str().unwrap().to_owned())
                .unwrap_or_default();
            let body = response.text().await.unwrap();
            assert_ne!(status, 405, "{method} {path}: no such method there");
            if status.is_client_error() || status.is_server_error() {
                assert!(
                    kind.starts_with("application/json"),
                    "{method} {path}: {status} as {kind}: {body}"
                );
                let refusal: ApiError = serde_json::from_str(&body)
                    .unwrap_or_else(|e| panic!("{method} {path}: {status} {body}: {e}"));
                assert_ne!(
                    refusal.error, "no such API path",
                    "{method} {path}: described but not served"
                );
                assert!(!refusal.error.is_empty());
            }
        }
    }
    assert!(operations >= 40, "{operations} operations");

    // Refusals from every source wear the shape: a handler's own words, an extractor's
    // rejection, a path no route serves.
    for (path, says) in [
        ("/api/highlights?kind=ace", "kind: \"ace\" is none of"),
        // A server that is no address is refused wherever one filters (the matches' routes
        // answered every server for it before the tester found it).
        (
            "/api/matches?server=nowhere",
            "server: \"nowhere\" is not an IPv4",
        ),
        (
            "/api/leaderboard?server=1.2.3.4",
            "server: \"1.2.3.4\" is not an IPv4",
        ),
        (
            "/api/highlights?server=1.2.3.4:99999",
            "server: \"1.2.3.4:99999\" is not",
        ),
        ("/api/history?tz=east", "Failed to deserialize query string"),
        ("/api/matches/notanumber", "Invalid URL"),
        ("/api/nothing/here", "no such API path"),
    ] {
        let response = reqwest::get(format!("{url}{path}")).await.unwrap();
        assert!(response.status().is_client_error(), "{path}");
        let refusal: ApiError = response.json().await.unwrap();
        assert!(refusal.error.starts_with(says), "{path}: {refusal:?}");
    }

    // An empty server is every server, and a name of colours alone is no one's, wherever
    // they filter (highlights refused both before the tester found it).
    for path in [
        "/api/matches?server=",
        "/api/leaderboard?server=",
        "/api/highlights?server=",
        "/api/highlights?player=%5E1",
    ] {
        let response = reqwest::get(format!("{url}{path}")).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
    }

    // The description read in a browser: every operation, in the app's design.
    let page = common::body(format!("{url}/api/")).await;
    for (path, item) in description["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let heading = format!("{} {path}", method.to_uppercase());
            assert!(page.contains(&heading), "{heading} not on the page");
        }
    }
    assert!(
        page.contains("curl -X GET &#39;http://RELAY/api/servers&#39;")
            || page.contains("curl -X GET 'http://RELAY/api/servers'")
    );
    assert!(page.contains("class=\"subtitle\""), "the app's header");
    relay.kill().await.unwrap();
}
