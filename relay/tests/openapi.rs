//! The API's description against the relay: the committed `docs/openapi.json` is what a relay
//! serves, every route under `/api/` is in it (registered through utoipa-axum, never with a
//! plain `.route`), every operation in it reaches a handler, and every refusal wears the shared
//! error shape.

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
fn the_committed_description_is_the_code_s() {
    let committed = std::fs::read_to_string(docs()).unwrap_or_default();
    let generated = relay::openapi::description_json();
    assert!(
        committed == generated,
        "docs/openapi.json is not the description the code makes: run \
         `cargo run -p muster-relay -- openapi > docs/openapi.json` and review the diff"
    );
}

/// Every `.rs` file under `dir`, with its path.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            out.push((path.display().to_string(), code.to_owned()));
        }
    }
}

#[test]
fn no_route_under_api_is_registered_past_the_description() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut plain = Vec::new();
    for (path, code) in &files {
        let squeezed: String = code.split_whitespace().collect();
        for (at, _) in squeezed.match_indices(".route(\"/api") {
            plain.push(format!(
                "{path}: {}",
                &squeezed[at..(at + 60).min(squeezed.len())]
            ));
        }
    }
    assert!(
        plain.is_empty(),
        "routes under /api/ registered with a plain axum .route (register them with \
         utoipa-axum's routes! and a #[utoipa::path], so they are described): {plain:#?}"
    );
    // And the check sees what it looks for: the description's own routes are registered
    // through `routes!`.
    let described = files
        .iter()
        .filter(|(_, code)| code.contains("#[utoipa::path("))
        .count();
    assert!(described >= 15, "{described} files describe routes");
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
        ("/api/history?tz=east", "Failed to deserialize query string"),
        ("/api/matches/notanumber", "Invalid URL"),
        ("/api/nothing/here", "no such API path"),
    ] {
        let response = reqwest::get(format!("{url}{path}")).await.unwrap();
        assert!(response.status().is_client_error(), "{path}");
        let refusal: ApiError = response.json().await.unwrap();
        assert!(refusal.error.starts_with(says), "{path}: {refusal:?}");
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
