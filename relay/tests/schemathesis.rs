//! The API's description tried by a property-based tester nobody here wrote: Schemathesis
//! (PyPI, pinned in xtask) runs every operation of `GET /api/openapi.json` against a `muster`
//! relay with a lab fleet, a followed match, a moment and an alert in it, through its four
//! phases (examples, coverage, fuzzing, stateful), with every check: no 5xx, every response's
//! status, content type, headers and body as described, a refusal for data the description
//! rules out. The edge's rate limits stay on: the tester is a client of its own (a trusted
//! proxy names it), paced within the allowance the relay gives every client here, and another
//! client asking all along is never refused for what the tester sent.

use crate::common;

use std::time::Duration;

use lab::Lab;
use serde_json::{json, Value};

/// Requests a second the relay allows each client here, and the tester's pace within it.
const ALLOWANCE: u32 = 100;
const PACE: u32 = 80;
/// Test cases per operation and phase, and the seed, so each run tries the same requests.
const EXAMPLES: u32 = 20;
const SEED: u32 = 22;

/// What Schemathesis runs as: its own module, so the test needs only the Python on the PATH
/// that `cargo xtask test` installed it into (a script's shim may not be there).
const SCHEMATHESIS: &str = "import sys; from schemathesis.cli import schemathesis; \
                            sys.exit(schemathesis())";

async fn posted(url: &str, path: &str, body: Value) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let response = reqwest::Client::new()
            .post(format!("{url}{path}"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let answer: Value = response.json().await.unwrap();
        if status.is_success() {
            return answer;
        }
        // The server is not listed yet, or its window holds nothing yet.
        assert!(
            tokio::time::Instant::now() < deadline,
            "{path}: {status} {answer}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_5xx_and_no_answer_outside_the_description() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        map_time: Some(Duration::from_secs(30)),
        players: Some(10),
        ..common::lab_config(2, 4)
    })
    .await
    .unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let hook = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let flags: Vec<String> = [
        "--follow",
        &server,
        "--spectate-delay",
        "1",
        "--data-dir",
        &dir.path().display().to_string(),
        "--record-dir",
        &dir.path().join("demos").display().to_string(),
        "--operator-token",
        "operator-secret",
        "--alert-allow-host",
        "127.0.0.1",
        "--trusted-proxy",
        "127.0.0.1",
        &format!("--api-rate={ALLOWANCE}"),
        &format!("--api-burst={ALLOWANCE}"),
    ]
    .map(str::to_owned)
    .to_vec();
    let (mut relay, url) = common::serve_muster_limited(&lab.master.to_string(), &flags).await;

    // A followed match with kills, a moment of it, an alert.
    let matches = crate::matches::until_stored(&url, "a match with kills", |m| {
        m.iter().any(|m| m.kills >= 1)
    })
    .await;
    let match_id = matches.iter().find(|m| m.kills >= 1).unwrap().id;
    let moment = posted(
        &url,
        "/api/moments",
        json!({"server": server, "from": -3.0, "to": 0.0}),
    )
    .await;
    let alert = posted(
        &url,
        "/api/alerts",
        json!({"rule": {"kind": "humans_at_least", "server": server, "n": 1},
               "to": {"kind": "webhook", "url": format!("http://{}/hook", hook.local_addr().unwrap())}}),
    )
    .await;
    assert_eq!(alert["token"].as_str().map(str::len), Some(32), "{alert}");

    // The tester's settings: the committed ones, and the lab's own values for the parameters
    // that name things, so its requests reach them as well as what is not there. An alert's
    // token it takes from the alerts it makes (the description links a new alert to its
    // subscription's operations): a fixed one would be forgotten by its own `DELETE`.
    let config = dir.path().join("schemathesis.toml");
    let committed = include_str!("schemathesis/schemathesis.toml");
    std::fs::write(
        &config,
        format!(
            "{committed}\n[parameters]\n\"path.addr\" = \"{server}\"\n\
             \n[[operations]]\ninclude-path = \"/api/matches/{{id}}\"\nparameters = {{ \"path.id\" = {match_id} }}\n\
             \n[[operations]]\ninclude-path = \"/api/moments/{{file}}\"\nparameters = {{ \"path.file\" = \"{}\" }}\n",
            moment["id"].as_str().unwrap(),
        ),
    )
    .unwrap();

    // Another client asks all along; the tester's requests never cost it an answer.
    let (watching, done) = (url.clone(), tokio_util::sync::CancellationToken::new());
    let stop = done.clone();
    let watcher = tokio::spawn(async move {
        let (mut asked, mut refused) = (0, Vec::new());
        while !stop.is_cancelled() {
            let answer = reqwest::get(format!("{watching}/api/servers"))
                .await
                .unwrap();
            asked += 1;
            if answer.status() != 200 {
                refused.push(answer.status().as_u16());
            }
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
        (asked, refused)
    });

    let reports = dir.path().join("reports");
    let run = tokio::process::Command::new("python3")
        .args(["-c", SCHEMATHESIS])
        .arg("--config-file")
        .arg(&config)
        .arg("--no-color")
        .arg("run")
        .arg(format!("{url}/api/openapi.json"))
        .args(["--url", &url])
        .args(["--max-examples", &EXAMPLES.to_string()])
        .args(["--seed", &SEED.to_string()])
        .args(["--workers", "1"])
        .args(["--rate-limit", &format!("{PACE}/s")])
        .args(["--header", "X-Forwarded-For: 192.0.2.80"])
        .args(["--report", "junit", "--report-dir"])
        .arg(&reports)
        // Its cache of crashes and examples goes to the run's own directory.
        .current_dir(dir.path())
        .kill_on_drop(true)
        .output();
    let run = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("Schemathesis ends within 5 minutes")
        .expect("Schemathesis runs (cargo xtask test installs it)");
    done.cancel();
    let (asked, refused) = watcher.await.unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "Schemathesis found what the description does not say:\n{said}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // It tried every operation the description has, in every phase.
    let description: Value = serde_json::from_str(&relay::openapi::description_json()).unwrap();
    let operations: usize = (description["paths"].as_object().unwrap().values())
        .map(|item| item.as_object().unwrap().len())
        .sum();
    // Its own page, `GET /api/`, is HTML, which it does not try.
    let tried = format!(
        "Operations:       {} selected / {} total",
        operations - 1,
        operations - 1
    );
    assert!(said.contains(&tried), "{tried}?\n{said}");
    for phase in ["Examples", "Coverage", "Fuzzing", "Stateful"] {
        assert!(said.contains(&format!("✅  {phase}")), "{phase}:\n{said}");
    }

    // The other client was never refused while the tester ran.
    assert!(asked >= 10, "{asked} asked");
    assert_eq!(refused, Vec::<u16>::new(), "the other client refused");

    let detail: Value = reqwest::get(format!("{url}/api/matches/{match_id}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let values = json!({
        "addr": server,
        "id:int": match_id,
        "id:str": "0-0",
        "name:str": detail["scoreboard"][0]["name"],
        "file": moment["id"],
        "token": alert["token"],
        "forwarded_for": "192.0.2.81",
    });
    a_generated_client_reads_every_answer(&url, dir.path(), values).await;
    relay.kill().await.unwrap();
}

/// A developer's client: openapi-python-client (PyPI, pinned in xtask) generates one from the
/// relay's description with the settings `docs/openapi-python-client.yaml` gives, warning of
/// nothing it could not model, and that client reads every `GET` operation's answer here (the
/// lab's server, a match, a player, a moment, an alert's subscription) into the models the
/// description names, never an answer it does not describe.
async fn a_generated_client_reads_every_answer(url: &str, dir: &std::path::Path, values: Value) {
    let config = dir.join("openapi-python-client.yaml");
    // Its formatting hooks (ruff) are the developer's choice, not what is tested here.
    let committed = include_str!("../../docs/openapi-python-client.yaml");
    std::fs::write(&config, format!("{committed}post_hooks: []\n")).unwrap();
    let run = tokio::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/generated_client/read_every_answer.py"
        ))
        .args([url, &config.display().to_string()])
        .arg(dir.join("muster_relay_client"))
        .arg(values.to_string())
        .current_dir(dir)
        .kill_on_drop(true)
        .output();
    let run = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the generated client ends within 2 minutes")
        .expect("openapi-python-client runs (cargo xtask test installs it)");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let found: Value = serde_json::from_str(said.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {said}"));
    assert_eq!(
        found["warnings"],
        json!([]),
        "the generator warned: {found:#}"
    );
    assert_eq!(
        found["unread"],
        json!({}),
        "answers the client could not read: {found:#}"
    );
    // Every GET of the description was asked, and the live ones answered what they describe.
    let description: Value = serde_json::from_str(&relay::openapi::description_json()).unwrap();
    let gets = (description["paths"].as_object().unwrap().values())
        .filter(|item| item.get("get").is_some())
        .count();
    let read = found["read"].as_object().unwrap();
    assert_eq!(read.len(), gets, "{found:#}");
    for (operation, model) in [
        ("servers", "200 list[ServerInfo]"),
        ("one_server", "200 ServerInfo"),
        ("masters", "200 list[MasterStatusOk]"),
        ("detail", "200 MatchDetail"),
        ("player", "200 PlayerStats"),
        ("moment", "200 MomentDetail"),
        ("hub", "200 HubSummary"),
        ("matches", "200 list[MatchSummary]"),
        ("alerts", "200 AlertList"),
    ] {
        assert_eq!(read[operation], model, "{operation}: {found:#}");
    }
}
