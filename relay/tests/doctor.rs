//! `muster doctor` names what is wrong: run against a lab fleet with sound settings (every
//! check passes, exit 0), then with each thing an operator gets wrong (each check fails by
//! name with its fix, exit 1).

use crate::common;

use std::time::Duration;

use common::lab_config;
use lab::Lab;
use serde_json::Value;

/// `muster doctor --json ARGS`: its exit status and each check by name prefix.
async fn doctor(args: Vec<String>) -> (bool, Vec<Value>) {
    let output = tokio::task::spawn_blocking(move || {
        let mut all = vec!["doctor".to_owned(), "--json".into()];
        all.extend(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        common::run_muster(&all, "")
    })
    .await
    .unwrap();
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    assert_eq!(
        report["ok"].as_bool(),
        Some(output.status.success()),
        "{report}"
    );
    (
        output.status.success(),
        report["checks"].as_array().unwrap().clone(),
    )
}

fn check<'a>(checks: &'a [Value], prefix: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["check"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no check {prefix}: {checks:#?}"))
}

#[tokio::test]
async fn doctor_passes_sound_settings_and_names_each_misconfiguration() {
    let lab = Lab::start(lab_config(3, 10)).await.unwrap();
    lab.wait_registered(Duration::from_secs(60)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(dist.join("page_bg.wasm"), b"\0asm").unwrap();
    let data = dir.path().join("data");
    let settings = |listen: String, master: String, dist: &std::path::Path, connections: &str| {
        [
            "--listen",
            &listen,
            "--master",
            &master,
            "--no-default-masters",
            "--no-lan",
            "--data-dir",
            &data.display().to_string(),
            "--dist",
            &dist.display().to_string(),
            "--connections",
            connections,
        ]
        .map(String::from)
        .to_vec()
    };
    let lab_master = lab.master.to_string();
    let listen = format!("127.0.0.1:{}", common::free_port());
    let (ok, checks) = doctor(settings(listen, lab_master.clone(), &dist, "100")).await;
    assert!(ok, "{checks:#?}");
    let master = check(&checks, &format!("master {}", lab.master));
    assert_eq!(master["detail"], "answered: 3 servers", "{master}");
    assert_eq!(check(&checks, "outbound udp")["status"], "pass");
    assert_eq!(check(&checks, "data dir")["status"], "pass");
    assert!(check(&checks, "store")["detail"]
        .as_str()
        .unwrap()
        .contains("empty"));
    assert_eq!(check(&checks, "nats")["status"], "skip");

    // Everything wrong at once: a taken port, a silent master, a store a newer relay wrote, no
    // NATS, an unbuilt page, too few descriptors.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    {
        let conn = rusqlite::Connection::open(data.join("muster.db")).unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
             INSERT INTO schema_migrations VALUES (99, 0);",
        )
        .unwrap();
    }
    let closed = common::free_port();
    let mut wrong = settings(
        taken.local_addr().unwrap().to_string(),
        silent.local_addr().unwrap().to_string(),
        &dir.path().join("nowhere"),
        "100000000",
    );
    wrong.extend([
        "--master".into(),
        lab_master,
        "--cluster".into(),
        format!("nats://127.0.0.1:{closed}"),
    ]);
    let (ok, checks) = doctor(wrong).await;
    assert!(!ok);
    let failed = |prefix: &str| {
        let c = check(&checks, prefix);
        assert_eq!(c["status"], "fail", "{c}");
        assert!(c["fix"].as_str().is_some_and(|f| !f.is_empty()), "{c}");
        c["detail"].as_str().unwrap().to_owned()
    };
    let port = taken.local_addr().unwrap().to_string();
    assert!(failed(&format!("listen {port}")).contains("taken"));
    assert!(failed(&format!("master {}", silent.local_addr().unwrap())).contains("no list"));
    assert!(failed("store").contains("schema version 99"));
    assert!(failed("nats").contains("unreachable"));
    assert!(failed("page").contains("no index.html"));
    assert!(failed("open files").contains("100000000"));
    // What was sound stays sound.
    let named = format!("master {}", lab.master);
    assert_eq!(check(&checks, &named)["status"], "pass");
    assert_eq!(check(&checks, "data dir")["status"], "pass");
}
