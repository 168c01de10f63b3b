//! The admin console on real sockets on 127.0.0.1: `muster rcon` against lab servers and a
//! real OpenArena server, and the relay's `/rcon/ADDR` socket: its queue, its lockouts, and a
//! password that shows up nowhere.

use crate::common;

use common::rcon::{next_report, outcome, Console};

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lab::console::status_table;
use lab::{Lab, LabConfig};
use protocol::cod::rcon::StatusTable;
use protocol::relay_api::rcon::RconReport;
use relay::{PollerConfig, Relay, ServeConfig};

const PASSWORD: &str = "lab-Zebra-8841";

fn lab_config(servers: usize, players: Option<usize>) -> LabConfig {
    LabConfig {
        rcon_password: Some(PASSWORD.into()),
        players,
        ..common::lab_config(servers, 100)
    }
}

/// `muster rcon ARGS` with `password` in the environment, off the runtime's thread (the lab
/// answers on it).
async fn muster_rcon(password: &str, args: &[&str]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_muster"));
    command
        .arg("rcon")
        .args(args)
        .env("MUSTER_RCON_PASSWORD", password)
        .stdin(Stdio::null());
    tokio::task::spawn_blocking(move || command.output().expect("muster runs"))
        .await
        .unwrap()
}

/// `muster rcon` with a wrong password, past the throttle: an error that says so.
async fn refuses_a_wrong_password(addr: &str) {
    throttle().await;
    let wrong = muster_rcon("not-it", &[addr, "status"]).await;
    assert!(!wrong.status.success());
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("Bad rconpassword."),
        "{wrong:?}"
    );
}

/// Past the stock server's throttle since the last command.
async fn throttle() {
    tokio::time::sleep(Duration::from_millis(600)).await;
}

#[tokio::test]
async fn muster_rcon_joins_a_status_longer_than_one_packet_exactly() {
    let lab = Lab::start(lab_config(1, Some(60))).await.unwrap();
    let server = &lab.servers[0];
    let addr = server.addr.to_string();
    let output = muster_rcon(PASSWORD, &["--json", &addr, "status"]).await;
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let expected = status_table(&server.snapshot()).render();
    assert!(expected.len() > 3 * 1300, "{} bytes", expected.len());
    assert_eq!(json["outcome"], "output");
    assert_eq!(json["output"], expected.as_str());
    assert_eq!(json["chunks"], expected.len().div_ceil(1300));
    assert_eq!(json["status"]["players"].as_array().unwrap().len(), 60);
    assert_eq!(json["status"]["map"], server.snapshot().mapname.as_str());

    // Plain text is the output itself; a wrong password is an error that says so.
    throttle().await;
    let text = muster_rcon(PASSWORD, &[&addr, "status"]).await;
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        expected.trim_end_matches('\n').to_owned() + "\n"
    );
    refuses_a_wrong_password(&addr).await;
}

/// A relay polling the lab, trusting 127.0.0.1 as a proxy so a test can speak for several
/// client addresses through `X-Forwarded-For`.
async fn relay_for(lab: &Lab) -> Relay {
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let relay = Relay::start(ServeConfig {
        dist: common::dist(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: vec![],
            refresh_interval: Duration::from_millis(500),
            ..PollerConfig::default()
        },
        edge: relay::edge::EdgeConfig {
            limits: relay::edge::Limits::none(),
            trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
        },
        rcon: relay::rcon::RconConfig {
            trusted_proxies: vec!["127.0.0.1".parse().unwrap()],
            ..Default::default()
        },
        ..ServeConfig::default()
    })
    .await
    .expect("relay starts");
    common::wait_listed(&relay, lab).await;
    relay
}

#[tokio::test]
async fn wrong_passwords_lock_out_their_client_before_any_datagram_and_not_the_admin() {
    let lab = Lab::start(lab_config(1, Some(12))).await.unwrap();
    let relay = relay_for(&lab).await;
    let server = &lab.servers[0];
    let addr = server.addr.to_string();

    let mut guesser = Console::open(relay.addr, &addr, "198.51.100.20").await;
    for _ in 0..5 {
        assert_eq!(
            outcome(&guesser.run("guess", "status").await).0,
            "bad_password"
        );
    }
    let sent = server.rcon_arrivals.lock().unwrap().len();
    assert_eq!(sent, 5);
    match guesser.run(PASSWORD, "status").await {
        RconReport::Refused {
            kind,
            retry_after_s,
            ..
        } => {
            assert_eq!(kind, "locked");
            assert!((14 * 60..=15 * 60).contains(&retry_after_s.unwrap()));
        }
        other => panic!("{other:?}"),
    }
    // Locked even with the right password, and nothing reached the server.
    assert_eq!(server.rcon_arrivals.lock().unwrap().len(), sent);

    // An admin from elsewhere is served at once, and kicks a bot by its slot.
    let mut admin = Console::open(relay.addr, &addr, "203.0.113.7").await;
    let report = admin.run(PASSWORD, "status").await;
    let (kind, output) = outcome(&report);
    assert_eq!(kind, "output");
    let table = StatusTable::parse(output).expect("a status table");
    assert_eq!(table, status_table(&server.snapshot()));
    let bot = table
        .rows
        .iter()
        .find(|r| r.address == "bot")
        .expect("the lab fills with a quarter bots")
        .clone();
    let kicked = admin
        .run(PASSWORD, &format!("clientkick {}", bot.slot))
        .await;
    assert_eq!(outcome(&kicked), ("output", ""));
    assert!(!server.snapshot().players.iter().any(|p| p.slot == bot.slot));

    // Rcon goes to listed servers only.
    let mut stray = Console::open(relay.addr, "127.0.0.1:9", "203.0.113.7").await;
    assert_eq!(
        outcome(&stray.run(PASSWORD, "status").await).0,
        "unknown_target"
    );

    let metrics = common::body(format!("http://{}/metrics", relay.addr)).await;
    for line in [
        "muster_rcon_commands_total{outcome=\"bad_password\"} 5",
        "muster_rcon_commands_total{outcome=\"locked\"} 1",
        "muster_rcon_commands_total{outcome=\"output\"} 2",
        "muster_rcon_commands_total{outcome=\"unknown_target\"} 1",
        "muster_rcon_lockouts_total 1",
    ] {
        assert!(metrics.contains(line), "{line} missing from\n{metrics}");
    }
    assert!(!metrics.contains(PASSWORD));
}

#[tokio::test]
async fn commands_from_several_admins_reach_a_server_spaced_and_none_is_dropped() {
    let lab = Lab::start(lab_config(1, Some(8))).await.unwrap();
    let relay = relay_for(&lab).await;
    let server = &lab.servers[0];
    let addr = server.addr.to_string();
    let mut consoles = Vec::new();
    for client in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
        consoles.push(Console::open(relay.addr, &addr, client).await);
    }
    // Everyone at once, three commands each.
    for round in 0..3 {
        for console in &mut consoles {
            console.send(PASSWORD, &format!("say round {round}")).await;
        }
    }
    for console in &mut consoles {
        for _ in 0..3 {
            assert_eq!(outcome(&next_report(&mut console.socket).await).0, "output");
        }
    }
    common::rcon::arrived_spaced(server, 9);
}

/// The relay as its own process, logging at debug to a file, its audit log in a file too:
/// after commands with a good and a wrong password, neither password is in any of them, nor
/// in the metrics.
#[tokio::test]
async fn the_password_appears_in_no_log_line_metric_or_file() {
    let lab = Lab::start(lab_config(1, Some(4))).await.unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("relay.log");
    let audit = dir.path().join("audit.jsonl");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(["serve", "--listen", &listen, "--no-lan", "--allow-private"])
        .args([
            "--no-default-masters",
            "--trusted-proxy",
            "127.0.0.1",
            "--dist",
        ])
        .arg(common::dist())
        .args([
            "--master",
            &lab.master.to_string(),
            "--refresh-interval",
            "1",
        ])
        .arg("--rcon-audit-log")
        .arg(&audit)
        .args(common::NO_CLIENT_LIMITS)
        .env("RUST_LOG", "debug")
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::options().append(true).open(&log).unwrap())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let relay: SocketAddr = listen.parse().unwrap();
    let addr = lab.servers[0].addr.to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut console = loop {
        let listed = reqwest::get(format!("http://{listen}/api/servers"))
            .await
            .ok()
            .map(|r| async { r.text().await.unwrap_or_default() });
        if let Some(body) = listed {
            if body.await.contains(&addr) {
                break Console::open(relay, &addr, "198.51.100.9").await;
            }
        }
        assert!(Instant::now() < deadline, "the relay never listed the lab");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let wrong = "wrong-Quokka-5512";
    assert_eq!(
        outcome(&console.run(wrong, "status").await).0,
        "bad_password"
    );
    assert_eq!(outcome(&console.run(PASSWORD, "status").await).0, "output");
    let metrics = common::body(format!("http://{listen}/metrics")).await;
    // The history store keeps the audit too (written within a second).
    let store = relay::store::StoreArgs {
        data_dir: dir.path().join("muster-data"),
        database: None,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let kept = loop {
        let kept = store.open().unwrap().audit(Some(&addr), 10).unwrap();
        if kept.len() == 2 || Instant::now() > deadline {
            break kept;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let outcomes: Vec<&str> = kept.iter().map(|e| e.outcome.as_str()).collect();
    assert_eq!(outcomes, ["output", "bad_password"]);
    assert!(kept
        .iter()
        .all(|e| e.command == "status" && e.client == "198.51.100.9"));
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let audit_text = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(audit_text.lines().count(), 2, "{audit_text}");
    assert!(
        audit_text.contains("\"command\":\"status\""),
        "{audit_text}"
    );
    for secret in [PASSWORD, wrong] {
        assert!(!metrics.contains(secret));
        for entry in walk(dir.path()) {
            let bytes = std::fs::read(&entry).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{secret} found in {}",
                entry.display()
            );
        }
    }
    assert!(std::fs::metadata(&log).unwrap().len() > 0);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test]
#[ignore = "needs openarena-server; run by cargo xtask test"]
async fn muster_rcon_runs_status_and_a_long_cvarlist_on_a_real_openarena_server() {
    let server = common::openarena::start(None, &[("rconpassword", PASSWORD)]);
    let addr = format!("127.0.0.1:{}", server.port);
    // The server loads its map first: ask until it answers.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        let output = muster_rcon(PASSWORD, &["--json", "--wait", "1", &addr, "status"]).await;
        if output.status.success() {
            break serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "OpenArena never answered: {output:?}"
        );
        throttle().await;
    };
    assert_eq!(status["outcome"], "output");
    let text = status["output"].as_str().unwrap();
    assert!(text.starts_with("map: oa_dm1\n"), "{text}");
    assert!(text.contains("score ping"), "{text}");

    // ioquake3 flushes its redirect buffer every 1,008 bytes: cvarlist comes in many
    // packets, and every cvar line must be there for the count it ends with.
    throttle().await;
    let list = muster_rcon(PASSWORD, &["--json", &addr, "cvarlist"]).await;
    assert!(list.status.success(), "{list:?}");
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let text = list["output"].as_str().unwrap();
    assert!(list["chunks"].as_u64().unwrap() >= 3, "{list}");
    let total: usize = text
        .lines()
        .find_map(|l| l.strip_suffix(" total cvars"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no total in {text}"));
    let listed = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.len() > 8)
        .count();
    assert_eq!(listed, total, "{text}");

    refuses_a_wrong_password(&addr).await;
}
