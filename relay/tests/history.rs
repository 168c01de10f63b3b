//! History and persistence end to end: the `muster` binary on a lab fleet, killed with SIGKILL
//! mid-poll and started again, on SQLite and on PostgreSQL.

use crate::common;

use std::time::Duration;

use common::lab_config;
use lab::Lab;
use protocol::relay_api::history::{PlayerSeen, ServerHistory};
use protocol::relay_api::{MasterStatus, Reachability, ServerInfo};
use relay::store::StoreArgs;

const LIMIT: Duration = Duration::from_secs(60);

/// A registered lab fleet of `servers`, six players on each.
async fn peopled_lab(servers: usize) -> Lab {
    let lab = Lab::start(lab::LabConfig {
        players: Some(6),
        ..lab_config(servers, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    lab
}

async fn get<T: serde::de::DeserializeOwned>(url: &str) -> T {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

async fn killed_relay_comes_back(store: StoreArgs) {
    let flags: Vec<String> = match &store.database {
        Some(url) => vec!["--database".into(), url.clone()],
        None => vec!["--data-dir".into(), store.data_dir.display().to_string()],
    };
    let lab = peopled_lab(4).await;
    let master = lab.master.to_string();
    let (mut relay, url) = common::serve_muster(&master, &flags).await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    let before: Vec<ServerInfo> = loop {
        let servers: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
        if servers.len() == 4
            && servers
                .iter()
                .all(|s| s.reachability == Reachability::Online)
        {
            break servers;
        }
        assert!(tokio::time::Instant::now() < deadline, "{servers:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // A few more polls written, then SIGKILL in the middle of the next one.
    let writes = "muster_history_write_duration_seconds_count";
    let written = common::metric(&url, writes).await;
    while common::metric(&url, writes).await < written + 3.0 {
        assert!(tokio::time::Instant::now() < deadline + LIMIT, "no writes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let killed_ms = relay::net::unix_ms();
    relay.kill().await.unwrap();
    drop(lab);

    // What reached the database: samples up to within the last seconds.
    let newest = {
        let store = store.clone();
        let addr = before[0].addr.clone();
        std::thread::spawn(move || {
            let mut db = store.open().unwrap();
            db.samples(Some(&addr), 0, u64::MAX / 2).unwrap()
        })
        .join()
        .unwrap()
    };
    assert!(newest.len() >= 3, "{} samples", newest.len());
    let last = newest.last().unwrap().1.at_ms;
    assert!(
        killed_ms - last <= 2_500,
        "the newest sample is {} ms older than the kill",
        killed_ms - last
    );

    // Restarted with its fleet gone: the last list at once, every server stale.
    let (relay, url) = common::serve_muster(&master, &flags).await;
    let after: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
    assert_eq!(after.len(), 4);
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(new.addr, old.addr);
        assert_eq!(new.hostname, old.hostname);
        assert_eq!(new.map, old.map);
        assert_eq!(new.players.len(), old.players.len());
        assert_eq!(new.reachability, Reachability::Stale);
    }
    let status: serde_json::Value = get(&format!("{url}/api/history/store")).await;
    assert!(status["size_bytes"].as_u64().unwrap() > 0, "{status}");
    assert_eq!(status["dropped_records"], 0);
    let masters: Vec<MasterStatus> = get(&format!("{url}/api/masters")).await;
    assert_eq!(masters[0].last_list, Some(4));

    // Its history and its players survived too.
    let addr = &before[0].addr;
    let history: ServerHistory = get(&format!("{url}/api/servers/{addr}/history?range=1h")).await;
    assert!(!history.points.is_empty());
    let humans = before[0].players.iter().filter(|p| !p.bot).count() as u16;
    assert!(
        history.points.iter().any(|p| p.max == humans),
        "{history:?}"
    );
    assert_eq!(history.map_changes[0].map, before[0].map);
    let svg = common::body(format!("{url}/api/servers/{addr}/history.svg?range=1h")).await;
    assert_eq!(svg.matches(r#"class="pt""#).count(), history.points.len());
    let human = before[0].players.iter().find(|p| !p.bot).expect("a human");
    let plain = protocol::browse::plain_lower(&human.name);
    let seen: Vec<PlayerSeen> = get(&format!("{url}/api/players?name={plain}")).await;
    let found = seen.iter().find(|p| p.name == human.name).expect("seen");
    assert!(found.online.is_none(), "the fleet is gone");
    assert!(killed_ms - found.last_seen_ms < 5_000);
    assert!(found.stays.iter().any(|s| s.server.addr == before[0].addr));

    // The command-line tools read the same store, while the relay runs.
    let mut args = vec!["history", addr.as_str(), "--range", "1h", "--json"];
    args.extend(flags.iter().map(String::as_str));
    let output = common::run_muster(&args, "");
    assert!(output.status.success(), "{output:?}");
    let cli: ServerHistory = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(cli.points, history.points);
    let mut args = vec!["seen", plain.as_str(), "--json"];
    args.extend(flags.iter().map(String::as_str));
    let output = common::run_muster(&args, "");
    assert!(output.status.success(), "{output:?}");
    let cli: Vec<PlayerSeen> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(cli.iter().find(|p| p.name == human.name), Some(found));
    let mut args = vec!["seen", plain.as_str()];
    args.extend(flags.iter().map(String::as_str));
    let text = String::from_utf8(common::run_muster(&args, "").stdout).unwrap();
    assert!(text.contains("last seen"), "{text}");
    drop(relay);
}

#[tokio::test]
async fn a_killed_relay_restarts_with_its_last_list_and_history_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    killed_relay_comes_back(StoreArgs {
        data_dir: dir.path().to_owned(),
        database: None,
    })
    .await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
async fn a_killed_relay_restarts_with_its_last_list_and_history_on_postgres() {
    let url = tokio::task::spawn_blocking(relay::store::postgres_database)
        .await
        .unwrap();
    killed_relay_comes_back(StoreArgs {
        data_dir: std::env::temp_dir(),
        database: Some(url),
    })
    .await;
}

#[tokio::test]
async fn servers_down_for_long_leave_the_default_list_and_stay_out_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let flags: Vec<String> = [
        "--data-dir",
        &dir.path().display().to_string(),
        "--hide-down-after",
        "3",
    ]
    .map(String::from)
    .to_vec();
    let lab = Lab::start(lab_config(3, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let master = lab.master.to_string();
    let (mut relay, url) = common::serve_muster(&master, &flags).await;
    let servers_in = |wanted: Reachability| {
        let url = url.clone();
        async move {
            let deadline = tokio::time::Instant::now() + LIMIT;
            loop {
                let servers: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
                if servers.len() == 3 && servers.iter().all(|s| s.reachability == wanted) {
                    return servers;
                }
                assert!(tokio::time::Instant::now() < deadline, "{servers:?}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    servers_in(Reachability::Online).await;
    drop(lab);
    // Gone once three seconds pass without an answer: out of the first screen, back with the
    // filter, and counted apart in the metrics.
    servers_in(Reachability::Gone).await;
    let rows = |html: &str| html.matches("data-testid=\"first-row\"").count();
    let page = |query: &'static str| {
        let url = url.clone();
        async move { common::body(format!("{url}/{query}")).await }
    };
    assert_eq!(rows(&page("").await), 0);
    assert_eq!(rows(&page("?gone=1").await), 3);
    let metrics = page("metrics").await;
    assert!(
        metrics.contains("muster_servers{reachability=\"gone\"} 3"),
        "{metrics}"
    );
    relay.kill().await.unwrap();

    // Started again with no fleet: what it persisted is still gone, not stale, from the first
    // answer on; its history is kept.
    let (relay, url) = common::serve_muster(&master, &flags).await;
    let servers: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
    assert_eq!(servers.len(), 3);
    assert!(
        servers.iter().all(|s| s.reachability == Reachability::Gone),
        "{servers:?}"
    );
    let history: ServerHistory = get(&format!(
        "{url}/api/servers/{}/history?range=1h",
        servers[0].addr
    ))
    .await;
    assert!(!history.points.is_empty());
    drop(relay);
}

/// The newest sample's time in a PostgreSQL database, read on a plain thread.
async fn newest_sample_ms(url: &str) -> Option<u64> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut db = postgres::Client::connect(&url, postgres::NoTls).ok()?;
        let newest: Option<i64> = db
            .query_one("SELECT max(at_ms) FROM samples", &[])
            .ok()?
            .get(0);
        newest.map(|ms| ms as u64)
    })
    .await
    .unwrap()
}

#[tokio::test]
#[ignore = "needs PostgreSQL's server programs: `cargo xtask test` installs them"]
async fn postgres_restarted_under_a_running_relay_is_connected_again_and_nothing_is_lost() {
    let pg = tokio::task::spawn_blocking(common::engines::Postgres::start)
        .await
        .unwrap();
    let lab = Lab::start(lab_config(3, 10)).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    let (_relay, url) =
        common::serve_muster(&lab.master.to_string(), &["--database".into(), pg.url()]).await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    while newest_sample_ms(&pg.url()).await.is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no sample was written"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A crash of the database (every connection cut), down for a few seconds.
    let pg = tokio::task::spawn_blocking(move || {
        pg.stop();
        pg
    })
    .await
    .unwrap();
    let down_ms = relay::net::unix_ms();
    let deadline = tokio::time::Instant::now() + LIMIT;
    let during = loop {
        let response = reqwest::get(format!("{url}/api/history/store"))
            .await
            .unwrap();
        let code = response.status();
        let status: serde_json::Value = response.json().await.unwrap();
        if status["writes"] == "failing" {
            assert_eq!(code, 503, "{status}");
            break status;
        }
        assert!(tokio::time::Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(during["error"].is_string(), "{during}");
    // Refreshes polled while it is down, which the relay holds for it.
    let polls = "muster_poll_duration_seconds_count";
    let polled = common::metric(&url, polls).await;
    while common::metric(&url, polls).await < polled + 2.0 {
        assert!(tokio::time::Instant::now() < deadline, "no polls");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pg = tokio::task::spawn_blocking(move || {
        pg.start_again();
        pg
    })
    .await
    .unwrap();
    let up_ms = relay::net::unix_ms();

    // The relay connects again by itself: the store answers, writes succeed, and the samples
    // polled while the database was down reach it too (held, then written).
    let deadline = tokio::time::Instant::now() + LIMIT;
    let status = loop {
        let response = reqwest::get(format!("{url}/api/history/store"))
            .await
            .unwrap();
        let code = response.status();
        let status: serde_json::Value = response.json().await.unwrap();
        let newest = newest_sample_ms(&pg.url()).await.unwrap_or(0);
        if code == 200 && newest > up_ms {
            break status;
        }
        assert!(tokio::time::Instant::now() < deadline, "{code} {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status["writes"], "ok", "{status}");
    assert_eq!(status["lost_samples"], 0, "{status}");
    let held = {
        let url = pg.url();
        tokio::task::spawn_blocking(move || {
            let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let n: i64 = db
                .query_one(
                    "SELECT count(*) FROM samples WHERE at_ms BETWEEN $1 AND $2",
                    &[&(down_ms as i64 + 500), &(up_ms as i64 - 500)],
                )
                .unwrap()
                .get(0);
            n
        })
        .await
        .unwrap()
    };
    assert!(held > 0, "no sample of the outage was written after it");
    let metrics = common::body(format!("{url}/metrics")).await;
    assert!(
        metrics.contains("muster_history_writes_failing 0\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("muster_history_samples_lost_total 0\n"),
        "{metrics}"
    );
}

#[tokio::test]
async fn backups_taken_while_the_poller_writes_restore_every_row_elsewhere() {
    let (live, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let data_dir = live.path().display().to_string();
    let lab = peopled_lab(12).await;
    let master = lab.master.to_string();
    let (mut relay, url) =
        common::serve_muster(&master, &["--data-dir".into(), data_dir.clone()]).await;
    let deadline = tokio::time::Instant::now() + LIMIT;
    while get::<Vec<ServerInfo>>(&format!("{url}/api/servers"))
        .await
        .iter()
        .filter(|s| s.reachability == Reachability::Online)
        .count()
        < 12
    {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Backups one after another while every poll of twelve servers is written: each is whole
    // (checked by the tool), and holds no sample whose series or session whose name is missing.
    let mut taken = Vec::new();
    let mut samples_seen = Vec::new();
    for i in 0..8 {
        let to = live.path().join(format!("backup-{i}.db"));
        let to_text = to.display().to_string();
        let output = tokio::task::spawn_blocking({
            let data_dir = data_dir.clone();
            move || {
                common::run_muster(
                    &[
                        "backup",
                        "--data-dir",
                        &data_dir,
                        "--to",
                        &to_text,
                        "--json",
                    ],
                    "",
                )
            }
        })
        .await
        .unwrap();
        assert!(output.status.success(), "{output:?}");
        let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        samples_seen.push(summary["tables"]["samples"].as_u64().unwrap());
        let rows = common::rows::sqlite(&to);
        let series: Vec<&str> = rows["series"]
            .iter()
            .map(|r| r.split('|').next().unwrap())
            .collect();
        for sample in &rows["samples"] {
            assert!(
                series.contains(&sample.split('|').next().unwrap()),
                "{sample}"
            );
        }
        let players: Vec<&str> = rows["players"]
            .iter()
            .map(|r| r.split('|').next().unwrap())
            .collect();
        for session in &rows["sessions"] {
            assert!(
                players.contains(&session.split('|').next().unwrap()),
                "{session}"
            );
        }
        taken.push(to);
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    assert!(
        samples_seen.windows(2).all(|w| w[0] <= w[1]) && samples_seen[7] > samples_seen[0],
        "the backups followed the writes: {samples_seen:?}"
    );
    // Never over a file that exists.
    let again = common::run_muster(
        &[
            "backup",
            "--data-dir",
            &data_dir,
            "--to",
            &taken[0].display().to_string(),
        ],
        "",
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing was overwritten"));
    relay.kill().await.unwrap();
    drop(lab);

    // Restored elsewhere: exactly the backup's rows.
    let backup = taken.last().unwrap();
    let restore = |dir: &std::path::Path| {
        common::run_muster(
            &[
                "restore",
                "--from",
                &backup.display().to_string(),
                "--data-dir",
                &dir.display().to_string(),
                "--json",
            ],
            "",
        )
    };
    let output = restore(elsewhere.path());
    assert!(output.status.success(), "{output:?}");
    let held = common::rows::sqlite(backup);
    assert!(held["samples"].len() > 12 && !held["players"].is_empty());
    assert_eq!(
        common::rows::sqlite(&elsewhere.path().join("muster.db")),
        held
    );

    // A relay on it serves what the backup held; while it runs, a restore is refused.
    let servers_held = held["directory"].len();
    let (relay, url) = common::serve_muster(
        &master,
        &["--data-dir".into(), elsewhere.path().display().to_string()],
    )
    .await;
    let servers: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
    assert_eq!(servers.len(), servers_held);
    let human = servers
        .iter()
        .flat_map(|s| &s.players)
        .find(|p| !p.bot)
        .expect("a human");
    let plain = protocol::browse::plain_lower(&human.name);
    let seen: Vec<PlayerSeen> = get(&format!("{url}/api/players?name={plain}")).await;
    assert!(seen.iter().any(|p| p.name == human.name), "{seen:?}");
    let history: ServerHistory = get(&format!(
        "{url}/api/servers/{}/history?range=1h",
        servers[0].addr
    ))
    .await;
    assert!(history.points.iter().any(|p| p.max > 0), "{history:?}");
    let refused = restore(elsewhere.path());
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("stop it first"), "{error}");
    drop(relay);
}

#[tokio::test]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
async fn the_documented_pg_dump_and_pg_restore_commands_keep_every_row() {
    let (url, restored_url) = tokio::task::spawn_blocking(|| {
        (
            relay::store::postgres_database(),
            relay::store::postgres_database(),
        )
    })
    .await
    .unwrap();
    let lab = peopled_lab(4).await;
    let (mut relay, relay_url) =
        common::serve_muster(&lab.master.to_string(), &["--database".into(), url.clone()]).await;
    // Some refreshes written.
    let writes = "muster_history_write_duration_seconds_count";
    let deadline = tokio::time::Instant::now() + LIMIT;
    while common::metric(&relay_url, writes).await < 3.0 {
        assert!(tokio::time::Instant::now() < deadline, "no writes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // `muster backup` names the tools instead of pretending to be them.
    let refused = common::run_muster(&["backup", "--database", &url, "--to", "x.dump"], "");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pg_dump --format=custom"));
    relay.kill().await.unwrap();

    // As docs/operator.md writes them.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("muster.dump").display().to_string();
    let run = |program: &str, args: &[&str]| {
        let output = std::process::Command::new(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(output.status.success(), "{program}: {output:?}");
    };
    run(
        "pg_dump",
        &["--format=custom", &format!("--file={file}"), &url],
    );
    run(
        "pg_restore",
        &["--no-owner", &format!("--dbname={restored_url}"), &file],
    );
    let (held, restored) = tokio::task::spawn_blocking(move || {
        let rows = (
            common::rows::postgres(&url),
            common::rows::postgres(&restored_url),
        );
        // A relay opens the restored database and writes on (its sequences came along).
        let mut store = StoreArgs {
            data_dir: std::env::temp_dir(),
            database: Some(restored_url),
        }
        .open()
        .unwrap();
        let sample = relay::store::Sample {
            at_ms: relay::net::unix_ms(),
            clients: 1,
            bots: 0,
            max_clients: 8,
            up: true,
        };
        store
            .write(&relay::store::Batch {
                samples: vec![("10.9.8.7:28960".into(), sample)],
                ..Default::default()
            })
            .unwrap();
        rows
    })
    .await
    .unwrap();
    assert!(
        held["samples"].len() > 4 && !held["players"].is_empty(),
        "{held:?}"
    );
    assert_eq!(restored, held);
}

/// A small tmpfs the test mounts (and unmounts when dropped), standing for a disk that fills.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    /// `program` as root: directly when the tests run as root, else through `sudo -n`.
    fn as_root(program: &str) -> std::process::Command {
        let uid = std::process::Command::new("id").arg("-u").output().unwrap();
        if uid.stdout.starts_with(b"0\n") {
            std::process::Command::new(program)
        } else {
            let mut sudo = std::process::Command::new("sudo");
            sudo.args(["-n", program]);
            sudo
        }
    }

    fn mount(dir: &std::path::Path, size: &str) -> Self {
        // Mode 1777, as /tmp: the relay and the test write it whoever mounted it.
        let status = Self::as_root("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=1777"),
                "tmpfs",
            ])
            .arg(dir)
            .status()
            .expect("mount runs");
        assert!(status.success(), "mounting a tmpfs needs root (or sudo)");
        Self(dir.to_owned())
    }

    /// Fills what is free with one file; returns it.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        let _ = file.sync_all();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Self::as_root("umount").args(["-l"]).arg(&self.0).status();
    }
}

/// `/api/history/store` until `done` says yes, within [`LIMIT`].
async fn store_status_until(
    url: &str,
    done: impl Fn(u16, &serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let response = reqwest::get(format!("{url}/api/history/store"))
            .await
            .unwrap();
        let code = response.status().as_u16();
        let status: serde_json::Value = response.json().await.unwrap();
        if done(code, &status) {
            return status;
        }
        assert!(tokio::time::Instant::now() < deadline, "{code} {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
#[ignore = "needs root to mount a tmpfs: `cargo xtask test` runs it"]
async fn a_full_disk_keeps_the_list_serving_and_the_store_recovers_whole_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let disk = SmallDisk::mount(dir.path(), "4m");
    let data = dir.path().join("data");
    let lab = peopled_lab(4).await;
    let (_relay, url) = common::serve_muster(
        &lab.master.to_string(),
        &["--data-dir".into(), data.display().to_string()],
    )
    .await;
    store_status_until(&url, |code, s| {
        code == 200 && s["size_bytes"].as_u64() > Some(0)
    })
    .await;
    let newest = |data: std::path::PathBuf| {
        let conn = rusqlite::Connection::open_with_flags(
            data.join("muster.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        conn.query_row("SELECT max(at_ms) FROM samples", [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .unwrap()
        .unwrap_or(0) as u64
    };

    // The disk fills: the store fails, and says so, while the page and the live list go on.
    let filler = disk.fill();
    let during = store_status_until(&url, |code, s| code == 503 && s["writes"] == "failing").await;
    assert!(
        during["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{during}"
    );
    for _ in 0..3 {
        let servers: Vec<ServerInfo> = get(&format!("{url}/api/servers")).await;
        assert_eq!(servers.len(), 4);
        assert!(servers
            .iter()
            .all(|s| s.reachability == Reachability::Online));
        let page = reqwest::get(format!("{url}/")).await.unwrap();
        assert_eq!(page.status(), 200);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let metrics = common::body(format!("{url}/metrics")).await;
    assert!(
        metrics.contains("muster_history_writes_failing 1\n"),
        "{metrics}"
    );

    // Space returns: the relay writes again by itself, what it held included, nothing corrupt.
    let freed_ms = relay::net::unix_ms();
    std::fs::remove_file(filler).unwrap();
    let after = store_status_until(&url, |code, s| code == 200 && s["writes"] == "ok").await;
    assert_eq!(after["lost_samples"], 0, "{after}");
    let deadline = tokio::time::Instant::now() + LIMIT;
    while newest(data.clone()) < freed_ms {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no sample after the space returned"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let integrity: String = rusqlite::Connection::open(data.join("muster.db"))
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}
