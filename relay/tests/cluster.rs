//! Several relays as one site, on the real engines: `nats-server` (JetStream) and PostgreSQL
//! started on 127.0.0.1, a lab fleet, and `muster serve` processes that are killed with
//! SIGKILL, frozen with SIGSTOP, and cut off from a restarted NATS.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::engines::{Nats, RelayProcess};
use common::{Page, Viewer};
use lab::{Lab, LabConfig};
use protocol::relay_api::rewind::RewindWindow;
use protocol::relay_api::watch::{ViewerMessage, WatchMessage};
use tokio::time::Instant;

const LIMIT: Duration = Duration::from_secs(30);
/// What the issue promises for a takeover after SIGKILL.
const FAILOVER: Duration = Duration::from_secs(10);

/// `muster serve` flags for a cluster relay polling the lab (every 2 s unless `extra` says).
fn relay_args(lab: &Lab, nats: &Nats, database: &str, extra: &[&str]) -> Vec<String> {
    let refresh: &[&str] = if extra.contains(&"--refresh-interval") {
        &[]
    } else {
        &["--refresh-interval", "2"]
    };
    let mut args: Vec<String> = [
        "--no-default-masters",
        "--no-lan",
        "--allow-private",
        "--master",
        &lab.master.to_string(),
        "--cluster",
        &nats.url(),
        "--database",
        database,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(refresh.iter().chain(extra).map(|s| s.to_string()));
    args
}

async fn relays(n: usize, args: &[String]) -> Vec<RelayProcess> {
    let mut relays = Vec::new();
    for _ in 0..n {
        relays.push(RelayProcess::start(args).await);
    }
    relays
}

/// The servers a relay lists, by address: (hostname, reachability, updated_ms).
async fn listed(relay: &RelayProcess) -> BTreeMap<String, (String, String, u64)> {
    let servers = relay.get("/api/servers").await;
    servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["addr"].as_str().unwrap().to_owned(),
                (
                    s["hostname"].as_str().unwrap().to_owned(),
                    s["reachability"].as_str().unwrap_or_default().to_owned(),
                    s["updated_ms"].as_u64().unwrap_or(0),
                ),
            )
        })
        .collect()
}

async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while !check().await {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What `look` finds, once it finds something.
async fn found<T, F, Fut>(limit: Duration, what: &str, mut look: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = look().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Which of `relays` hold `lease` now.
async fn holders(relays: &[RelayProcess], lease: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, relay) in relays.iter().enumerate() {
        if relay.leases().await.iter().any(|l| l == lease) {
            found.push(i);
        }
    }
    found
}

/// One of `relays` that holds `lease` now.
async fn holder(relays: &[RelayProcess], lease: &str) -> Option<usize> {
    holders(relays, lease).await.first().copied()
}

/// Waits until one of `relays` holds `lease`; which one.
async fn wait_holder(relays: &[RelayProcess], lease: &str, limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(i) = holder(relays, lease).await {
            return i;
        }
        assert!(
            Instant::now() < deadline,
            "nobody holds {lease} within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A one-server lab with room for a spectator, its address, NATS and a fresh database.
async fn watched_match() -> (Lab, String, Nats, String) {
    let (lab, nats, database) = site(LabConfig {
        players: Some(8),
        ..common::lab_config(1, 10)
    })
    .await;
    let server = lab.servers[0].addr.to_string();
    (lab, server, nats, database)
}

/// A lab fleet, NATS and a fresh database: what every cluster test stands on.
async fn site(config: LabConfig) -> (Lab, Nats, String) {
    let lab = lab(config).await;
    let database = relay::store::postgres_database();
    (lab, Nats::start(), database)
}

async fn lab(config: LabConfig) -> Lab {
    let lab = Lab::start(config).await.unwrap();
    lab.wait_registered(LIMIT).await.unwrap();
    lab
}

fn all_online(lab: &Lab, servers: &BTreeMap<String, (String, String, u64)>) -> bool {
    lab.servers.iter().all(|s| {
        servers
            .get(&s.addr.to_string())
            .is_some_and(|(_, reach, _)| reach == "online")
    })
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn pages_on_any_relay_see_one_poller_which_another_relay_replaces_within_ten_seconds() {
    let (lab, nats, database) = site(common::lab_config(8, 10)).await;
    let mut relays = relays(3, &relay_args(&lab, &nats, &database, &[])).await;
    let poller = wait_holder(&relays, "poller", LIMIT).await;
    let followers: Vec<usize> = (0..3).filter(|&i| i != poller).collect();
    // A page on a relay that polls nothing sees every server the poller's relay polled.
    let mut page = Page::open_at(relays[followers[0]].addr).await;
    page.until(LIMIT, |view| {
        lab.servers.iter().all(|s| {
            view.servers
                .get(&s.addr.to_string())
                .is_some_and(|info| info.reachability == protocol::relay_api::Reachability::Online)
        })
    })
    .await;
    for &f in &followers {
        eventually(LIMIT, "listed on every follower", || async {
            all_online(&lab, &listed(&relays[f]).await)
        })
        .await;
        assert!(!relays[f].leases().await.contains(&"poller".to_owned()));
        assert!(!relays[f].logged("polling for the cluster"));
    }

    // The poller's relay dies without a word; another takes over within 10 s.
    let killed_at_ms = relay::net::unix_ms();
    let killed = Instant::now();
    relays[poller].kill().await;
    let survivors: Vec<RelayProcess> = relays
        .drain(..)
        .enumerate()
        .filter_map(|(i, r)| (i != poller).then_some(r))
        .collect();
    wait_holder(&survivors, "poller", FAILOVER).await;
    let took = killed.elapsed();
    eprintln!("poller failover after SIGKILL: {took:?}");
    // Every server is polled again by the new holder, and no page lost one.
    for relay in &survivors {
        eventually(LIMIT, "every server polled after the takeover", || async {
            let servers = listed(relay).await;
            all_online(&lab, &servers)
                && lab.servers.iter().all(|s| {
                    servers
                        .get(&s.addr.to_string())
                        .is_some_and(|(_, _, at)| *at > killed_at_ms)
                })
        })
        .await;
    }
    page.until(LIMIT, |view| {
        lab.servers.iter().all(|s| {
            view.servers
                .get(&s.addr.to_string())
                .is_some_and(|info| info.updated_ms.unwrap_or(0) > killed_at_ms)
        })
    })
    .await;
    assert_eq!(page.view.servers.len(), lab.servers.len());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn viewers_on_three_relays_share_one_game_slot_which_moves_when_its_relay_dies() {
    let (lab, server, nats, database) = watched_match().await;
    // One slot left, as on a busy public server: after the SIGKILL the dead relay's session
    // still holds it (the server times it out only after its sv_timeout), so the successor gets
    // in only by joining as the same client again (same address and qport), as stock allows.
    {
        let mut profile = lab.servers[0].profile.lock().unwrap();
        profile.fill_public_slots();
        profile.players.pop();
    }
    let args = relay_args(
        &lab,
        &nats,
        &database,
        &["--spectate-delay", "0", "--spectate-grace", "2"],
    );
    let mut relays = relays(3, &args).await;
    for relay in &relays {
        eventually(LIMIT, "the server listed", || async {
            all_online(&lab, &listed(relay).await)
        })
        .await;
    }
    // 200 viewers, spread over the three relays, the first on relay 0.
    let mut viewers: Vec<(usize, Viewer)> = Vec::new();
    for i in 0..200 {
        let at = i % 3;
        viewers.push((at, Viewer::open_at(relays[at].addr, &server).await));
    }
    let viewers = read_until(viewers, |v| v.view.is_some() && v.seq >= 20).await;
    assert_eq!(
        lab.servers[0].connects(),
        1,
        "one game slot for 200 viewers"
    );
    let lease = format!("hub.{}", server.replace(['.', ':'], "-"));
    let owner = holder(&relays, &lease)
        .await
        .expect("a relay holds the slot");
    // A late joiner on another relay gets the match from its own relay at once.
    let other = (owner + 1) % 3;
    let mut late = Viewer::open_at(relays[other].addr, &server).await;
    assert!(matches!(late.next().await, Some(WatchMessage::Status(_))));
    assert!(matches!(
        late.next().await,
        Some(WatchMessage::Keyframe { .. })
    ));

    // The slot's relay dies: one relay joins again and every viewer elsewhere starts again from
    // a keyframe (Viewer checks that no update is missing).
    relays[owner].kill().await;
    let killed = Instant::now();
    let before: u64 = viewers.iter().map(|(_, v)| v.seq).max().unwrap();
    let survivors: Vec<(usize, Viewer)> =
        viewers.into_iter().filter(|(at, _)| *at != owner).collect();
    assert!(survivors.len() >= 133);
    let resumed = read_until(survivors, move |v| taken_over(v, before)).await;
    // Long before the server times the dead session out (240 s, as stock): its slot was handed over, not
    // waited out.
    assert!(
        killed.elapsed() < FAILOVER,
        "the match came back {:?} after the SIGKILL",
        killed.elapsed()
    );
    assert_eq!(lab.servers[0].connects(), 2, "exactly one more connect");
    assert!(resumed
        .iter()
        .all(|(_, v)| v.view.as_ref().is_some_and(|m| !m.players.is_empty())));
    let new_owner = holder(
        &relays
            .drain(..)
            .enumerate()
            .filter_map(|(i, r)| (i != owner).then_some(r))
            .collect::<Vec<_>>(),
        &lease,
    )
    .await;
    assert!(new_owner.is_some());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_frozen_hub_holder_wakes_and_leaves_the_game_slot_to_its_successor() {
    let (lab, server, nats, database) = watched_match().await;
    let args = relay_args(
        &lab,
        &nats,
        &database,
        &["--spectate-delay", "0", "--spectate-grace", "2"],
    );
    let relays = relays(2, &args).await;
    for relay in &relays {
        eventually(LIMIT, "the server listed", || async {
            all_online(&lab, &listed(relay).await)
        })
        .await;
    }
    let lease = format!("hub.{}", server.replace(['.', ':'], "-"));
    let first = Viewer::open_at(relays[0].addr, &server).await;
    read_until(vec![(0, first)], |v| v.seq >= 1).await;
    let frozen = wait_holder(&relays, &lease, LIMIT).await;
    let other = 1 - frozen;
    let viewer = Viewer::open_at(relays[other].addr, &server).await;
    let mut viewers = read_until(vec![(other, viewer)], |v| v.seq >= 20).await;

    // A pause longer than the lease (a stop-the-world, a stalled VM): the other relay takes the
    // slot over as the same client (the cluster's qport) and its viewer goes on.
    relays[frozen].signal("STOP");
    let before = viewers[0].1.seq;
    viewers = read_until(viewers, move |v| taken_over(v, before)).await;
    assert_eq!(lab.servers[0].connects(), 2, "the successor joined once");
    let translated = lab.servers[0].translated_ports();

    // The frozen relay wakes with its session's datagrams due. The server credits a datagram
    // from that address and qport to the successor's session and drops the session on a
    // `disconnect`: the woken relay must leave the slot alone, saying nothing more.
    relays[frozen].signal("CONT");
    eventually(LIMIT, "the woken relay steps down", || async {
        relays[frozen].logged("hub lease lost")
    })
    .await;
    let woke = Instant::now();
    let at_wake = viewers[0].1.seq;
    // Five seconds of the match (20 updates a second) on the successor, without a break.
    read_until(viewers, move |v| v.seq > at_wake + 100).await;
    assert!(
        woke.elapsed() < FAILOVER,
        "the successor's viewer waited {:?} for 100 updates after the holder woke",
        woke.elapsed()
    );
    assert_eq!(
        lab.servers[0].connects(),
        2,
        "the successor never had to join again"
    );
    // Stock would have credited any of them to the successor (its address and qport) and
    // moved its snapshots to the woken relay's port; a `disconnect` would have dropped it.
    assert_eq!(
        lab.servers[0].translated_ports(),
        translated,
        "a datagram from the woken relay reached the successor's slot"
    );
    assert!(relays[other].leases().await.contains(&lease));
    assert!(!relays[other].logged("spectator session ended"));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_recording_asked_of_any_relay_is_made_by_the_hub_and_follows_it() {
    let (lab, server, nats, database) = watched_match().await;
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut relays = Vec::new();
    for dir in &dirs {
        let record_dir = dir.path().display().to_string();
        let extra = [
            "--spectate-delay",
            "0",
            "--operator-token",
            "op-secret",
            "--record-dir",
            &record_dir,
        ];
        relays.push(RelayProcess::start(&relay_args(&lab, &nats, &database, &extra)).await);
    }
    for relay in &relays {
        eventually(LIMIT, "listed", || async {
            all_online(&lab, &listed(relay).await)
        })
        .await;
    }
    // The hub on relay 0, a mirror on relay 1; the operator asks relay 1. Relay 0 holds the hub
    // once its viewer is served (no other relay asked for one); only then does relay 1's viewer
    // come, or relay 1 could win the hub's lease first.
    let first = Viewer::open_at(relays[0].addr, &server).await;
    let mut viewers = read_until(vec![(0, first)], |v| v.seq >= 1).await;
    let second = Viewer::open_at(relays[1].addr, &server).await;
    viewers.push((1, second));
    let mut viewers = read_until(viewers, |v| v.seq >= 5).await;
    let record = |relay: &RelayProcess, on: bool| {
        let url = format!("http://{}/api/spectate/{server}/record", relay.addr);
        let client = reqwest::Client::new();
        async move {
            let request = if on {
                client.post(url)
            } else {
                client.delete(url)
            };
            request
                .bearer_auth("op-secret")
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert!(record(&relays[1], true).await.is_success());
    let demos_in = |dir: &tempfile::TempDir| -> Vec<u64> {
        std::fs::read_dir(dir.path())
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .collect()
            })
            .unwrap_or_default()
    };
    eventually(LIMIT, "the hub's relay records", || async {
        demos_in(&dirs[0]).iter().any(|&len| len > 0)
    })
    .await;
    assert!(demos_in(&dirs[1]).is_empty(), "the mirror records nothing");
    viewers.retain(|(at, _)| *at == 1);
    relays[0].kill().await;
    // The hub moves to relay 1, and the recording with it, in a file of its own.
    eventually(
        LIMIT,
        "the recording goes on where the hub went",
        || async { demos_in(&dirs[1]).iter().any(|&len| len > 0) },
    )
    .await;
    assert!(relays[1]
        .leases()
        .await
        .iter()
        .any(|l| l.starts_with("hub.")));
    assert!(record(&relays[1], false).await.is_success());
    eventually(LIMIT, "the finished demo listed", || async {
        relays[1].get("/api/demos").await["demos"]
            .as_array()
            .is_some_and(|d| !d.is_empty())
    })
    .await;
    drop(viewers);
}

/// The greatest fencing token written to the shared history by the poller.
async fn fence(database: &str) -> i64 {
    fence_of(database, "poller").await
}

/// The greatest fencing token written to the shared history under `name`.
async fn fence_of(database: &str, name: &str) -> i64 {
    let (url, name) = (database.to_owned(), name.to_owned());
    tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .query_opt("SELECT token FROM fence WHERE name = $1", &[&name])
            .unwrap()
            .map_or(0, |row| row.get(0))
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_nats_that_lost_its_store_still_issues_tokens_above_the_old_ones() {
    let (lab, mut nats, database) = site(common::lab_config(2, 10)).await;
    let mut relays = relays(2, &relay_args(&lab, &nats, &database, &[])).await;
    let first = wait_holder(&relays, "poller", LIMIT).await;
    // Renewed a few times, so the old revisions are above where a new bucket starts.
    let renewed = |token: i64| token % (1 << 32) >= 4;
    eventually(
        LIMIT,
        "history written with a renewed lease's token",
        || async { renewed(fence(&database).await) },
    )
    .await;
    // The poller's relay dies and NATS comes back without its store: the other relay wins a
    // lease numbered from 1 again, in a new bucket, and must still write.
    relays[first].kill().await;
    let before = fence(&database).await;
    nats.restart_empty();
    let other = &relays[1 - first];
    eventually(LIMIT, "written again, above the old token", || async {
        fence(&database).await > before
    })
    .await;
    assert!(
        !other.logged("is stale"),
        "the new holder's writes were refused"
    );
}

/// Whether a viewer that held update `before` has started again from a takeover's keyframe
/// (its sequence jumps past anything a viewer held) and read 20 updates after it.
fn taken_over(v: &Viewer, before: u64) -> bool {
    let restarted = v
        .received
        .iter()
        .any(|(_, m)| matches!(m, WatchMessage::Keyframe { seq, .. } if *seq > before + 500));
    restarted && v.seq > before + 520
}

/// Reads every viewer concurrently until `done` holds for each.
async fn read_until(
    viewers: Vec<(usize, Viewer)>,
    done: impl Fn(&Viewer) -> bool + Clone + Send + Sync + 'static,
) -> Vec<(usize, Viewer)> {
    let tasks: Vec<_> = viewers
        .into_iter()
        .map(|(at, mut viewer)| {
            let done = done.clone();
            tokio::spawn(async move {
                viewer.until(Duration::from_secs(60), |v| done(v)).await;
                (at, viewer)
            })
        })
        .collect();
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await.expect("every viewer got there"));
    }
    out
}

/// Pages on every relay once each lists the whole fleet.
async fn pages_once_listed(lab: &Lab, relays: &[RelayProcess]) -> Vec<Page> {
    for relay in relays {
        eventually(LIMIT, "listed", || async {
            all_online(lab, &listed(relay).await)
        })
        .await;
    }
    let mut pages = Vec::new();
    for relay in relays {
        pages.push(Page::open_at(relay.addr).await);
    }
    pages
}

/// Renames every lab server `{prefix} {i}` and waits until every page shows it.
async fn renamed_on_every_page(lab: &Lab, pages: &mut [Page], prefix: &str) {
    for (i, server) in lab.servers.iter().enumerate() {
        server.profile.lock().unwrap().hostname = format!("{prefix} {i}");
    }
    wait_renamed(lab, pages, prefix).await;
}

async fn wait_renamed(lab: &Lab, pages: &mut [Page], prefix: &str) {
    let renamed = |view: &common::PageView| {
        lab.servers.iter().enumerate().all(|(i, s)| {
            view.servers
                .get(&s.addr.to_string())
                .is_some_and(|info| info.hostname == format!("{prefix} {i}"))
        })
    };
    for page in pages {
        page.until(LIMIT, renamed).await;
    }
}

/// Moves every lab server to `map` and waits until every page shows it.
async fn map_on_every_page(lab: &Lab, pages: &mut [Page], map: &str) {
    for server in &lab.servers {
        server.profile.lock().unwrap().mapname = map.into();
    }
    for page in pages {
        page.until(LIMIT, |view| {
            view.servers.values().filter(|s| s.map == map).count() == lab.servers.len()
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn after_nats_restarts_every_relay_and_page_catches_up() {
    let (lab, mut nats, database) = site(common::lab_config(4, 10)).await;
    let relays = relays(2, &relay_args(&lab, &nats, &database, &[])).await;
    let mut pages = pages_once_listed(&lab, &relays).await;
    nats.stop();
    // While NATS is away, every server is renamed.
    for (i, server) in lab.servers.iter().enumerate() {
        server.profile.lock().unwrap().hostname = format!("renamed in the outage {i}");
    }
    for relay in &relays {
        eventually(LIMIT, "the relay saw NATS go", || async {
            relay.get("/api/cluster").await["connected"] == false
        })
        .await;
    }
    eventually(
        LIMIT,
        "a relay polled the renames in the outage",
        || async {
            for relay in &relays {
                let names = listed(relay).await;
                if names
                    .values()
                    .all(|(h, ..)| h.starts_with("renamed in the outage"))
                {
                    return true;
                }
            }
            false
        },
    )
    .await;
    nats.restart();
    wait_renamed(&lab, &mut pages, "renamed in the outage").await;
    for relay in &relays {
        eventually(LIMIT, "the relay reconnected", || async {
            relay.get("/api/cluster").await["connected"] == true
        })
        .await;
    }
    // And the cluster goes on: a change after the restart reaches every page.
    map_on_every_page(&lab, &mut pages, "mp_after_restart").await;
    assert_eq!(
        holders(&relays, "poller").await.len(),
        1,
        "exactly one relay polls"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn while_nats_is_down_every_relay_polls_on_its_own_and_hands_back_when_it_returns() {
    let (lab, mut nats, database) = site(common::lab_config(3, 10)).await;
    let args = relay_args(&lab, &nats, &database, &["--refresh-interval", "1"]);
    let relays = relays(2, &args).await;
    let mut pages = pages_once_listed(&lab, &relays).await;
    nats.stop();
    // Longer than the lease: no relay holds it, yet a change reaches every page while NATS
    // is still down, and each relay says it polls on its own.
    for relay in &relays {
        eventually(LIMIT, "the relay polls on its own", || async {
            relay.get("/api/cluster").await["polling_alone"] == true
        })
        .await;
    }
    renamed_on_every_page(&lab, &mut pages, "renamed with NATS down").await;
    for relay in &relays {
        let status = relay.get("/api/cluster").await;
        assert_eq!(status["polling_alone"], true, "{status}");
        assert_eq!(status["connected"], false, "{status}");
    }
    assert!(holders(&relays, "poller").await.is_empty());

    // NATS back: each stops polling alone and one poller serves the cluster again.
    nats.restart();
    for relay in &relays {
        eventually(LIMIT, "the relay follows again", || async {
            let status = relay.get("/api/cluster").await;
            status["connected"] == true && status["polling_alone"] == false
        })
        .await;
    }
    wait_holder(&relays, "poller", LIMIT).await;
    map_on_every_page(&lab, &mut pages, "mp_handed_back").await;
    assert_eq!(holders(&relays, "poller").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_frozen_lease_holder_wakes_to_find_its_history_writes_refused() {
    let (lab, nats, database) = site(common::lab_config(6, 10)).await;
    // Polls every second, so the frozen relay wakes with a batch to write.
    let args = relay_args(&lab, &nats, &database, &["--refresh-interval", "1"]);
    let relays = relays(2, &args).await;
    let frozen = wait_holder(&relays, "poller", LIMIT).await;
    let other = 1 - frozen;
    eventually(LIMIT, "history written", || async {
        relays[frozen].get("/api/history?range=1h").await["total"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    })
    .await;
    // A pause longer than the lease (a stop-the-world, a stalled VM): the other relay takes
    // over and writes with a newer token.
    relays[frozen].signal("STOP");
    eventually(
        FAILOVER + Duration::from_secs(2),
        "the other relay polls",
        || async { relays[other].leases().await.contains(&"poller".to_owned()) },
    )
    .await;
    // It writes a batch under its newer token before the frozen one wakes.
    let writes = "muster_history_write_duration_seconds_count";
    let before = relays[other].metric(writes).await;
    eventually(LIMIT, "the new holder writes", || async {
        relays[other].metric(writes).await > before
    })
    .await;
    relays[frozen].signal("CONT");
    eventually(LIMIT, "the stale holder's write refused", || async {
        relays[frozen].logged("is stale (a newer lease holder has written)")
    })
    .await;
    eventually(LIMIT, "the stale holder stops polling", || async {
        relays[frozen].logged("stopped polling")
    })
    .await;
    let store = relays[frozen].get("/api/history/store").await;
    assert!(store["fenced_batches"].as_u64() > Some(0), "{store}");
    assert!(!relays[frozen].leases().await.contains(&"poller".to_owned()));
    assert!(relays[other].leases().await.contains(&"poller".to_owned()));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_relay_stopped_with_sigterm_hands_its_leases_over_at_once() {
    let (lab, nats, database) = site(common::lab_config(2, 10)).await;
    // A lease this long would keep the poller away for half a minute if it were not released.
    let ttl = Duration::from_secs(60);
    let args = relay_args(&lab, &nats, &database, &["--lease-ttl", "60"]);
    let mut relays = relays(2, &args).await;
    let poller = wait_holder(&relays, "poller", LIMIT).await;
    relays[poller].signal("TERM");
    let status = tokio::time::timeout(FAILOVER, relays[poller].child.wait())
        .await
        .expect("the relay exits within 10 s of SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    let other = relays.remove(1 - poller);
    let stopped = Instant::now();
    wait_holder(std::slice::from_ref(&other), "poller", ttl / 6).await;
    eprintln!("poller taken over {:?} after SIGTERM", stopped.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn admins_on_two_relays_share_one_rcon_queue_and_lockouts_and_the_server_drops_nothing() {
    let password = "cluster-Ibex-3307";
    let (lab, nats, database) = site(LabConfig {
        rcon_password: Some(password.into()),
        players: Some(6),
        ..common::lab_config(1, 10)
    })
    .await;
    let server = &lab.servers[0];
    let addr = server.addr.to_string();
    // 127.0.0.1 is a trusted proxy: the test speaks for several clients.
    let args = relay_args(&lab, &nats, &database, &["--trusted-proxy", "127.0.0.1"]);
    let relays = relays(2, &args).await;
    for relay in &relays {
        eventually(LIMIT, "the server is listed", || async {
            listed(relay).await.contains_key(&addr)
        })
        .await;
    }
    let mut consoles = Vec::new();
    for relay in &relays {
        consoles.push(common::rcon::Console::open(relay.addr, &addr, "192.0.2.50").await);
    }
    // Both relays' admins at once, four commands each.
    for n in 0..4 {
        for console in &mut consoles {
            console.send(password, &format!("say {n}")).await;
        }
    }
    for console in &mut consoles {
        for _ in 0..4 {
            let report = common::rcon::next_report(&mut console.socket).await;
            assert_eq!(common::rcon::outcome(&report).0, "output", "{report:?}");
        }
    }
    common::rcon::arrived_spaced(server, 8);

    // A guesser spreads wrong passwords over both relays: the fifth locks it out of both.
    let mut guesser = Vec::new();
    for relay in &relays {
        guesser.push(common::rcon::Console::open(relay.addr, &addr, "198.51.100.7").await);
    }
    for attempt in 0..5 {
        let report = guesser[attempt % 2].run("guess", "status").await;
        assert_eq!(
            common::rcon::outcome(&report).0,
            "bad_password",
            "{report:?}"
        );
    }
    for console in &mut guesser {
        let report = console.run(password, "status").await;
        assert_eq!(common::rcon::outcome(&report).0, "locked", "{report:?}");
    }
    assert_eq!(server.rcon_arrivals.lock().unwrap().len(), 13);
    // The admin is still served.
    let report = consoles[1].run(password, "status").await;
    assert_eq!(common::rcon::outcome(&report).0, "output", "{report:?}");
}

/// Two relays `--follow` one server: one game slot, one writer (the hub lease's holder, its
/// parts fenced by the lease's token), and when that relay is killed mid-match the other takes
/// the slot over and continues the same record: one record per match, no kill twice, none the
/// lab did not make.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_followed_match_is_written_by_the_hub_holder_and_continued_by_its_successor() {
    use protocol::relay_api::matches::{MatchDetail, MatchSummary};
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let (lab, nats, database) = site(LabConfig {
        map_time: Some(Duration::from_secs(30)),
        intermission: Duration::from_secs(1),
        ..common::truth::lab_with_truth(&truth)
    })
    .await;
    let server = lab.servers[0].addr.to_string();
    let args = relay_args(
        &lab,
        &nats,
        &database,
        &[
            "--follow",
            &server,
            "--spectate-grace",
            "2",
            // A short delay, so the holder cuts the clips of plays before it is killed.
            "--spectate-delay",
            "2",
        ],
    );
    let mut relays = relays(2, &args).await;
    let lease = format!("hub.{}", server.replace(['.', ':'], "-"));
    let owner = wait_holder(&relays, &lease, LIMIT).await;
    let other = 1 - owner;
    let matches = |relay: &RelayProcess| {
        let addr = relay.addr;
        async move {
            let listed: Vec<MatchSummary> =
                reqwest::get(format!("http://{addr}/api/matches?limit=50"))
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
            listed
        }
    };
    // The match under way, written by the holder, read on the other relay.
    let running = found(Duration::from_secs(60), "a match written", || async {
        matches(&relays[other])
            .await
            .into_iter()
            .find(|m| m.ended.is_none() && m.kills >= 3)
    })
    .await;
    assert_eq!(
        lab.servers[0].connects(),
        1,
        "one game slot for two followers"
    );
    let first_token = fence_of(&database, &format!("hub.{server}")).await;
    assert!(first_token > 0, "the holder's parts carry no lease token");
    // The match's plays, found and clipped by the holder, read on the other relay.
    let found_before = found(Duration::from_secs(60), "a play clipped", || async {
        let plays = highlights(&relays[other], &server).await;
        plays.iter().any(|h| h.moment.is_some()).then_some(plays)
    })
    .await;

    relays[owner].kill().await;
    let survivor = &relays[other];
    wait_holder(std::slice::from_ref(survivor), &lease, FAILOVER + LIMIT).await;
    found(
        Duration::from_secs(90),
        "the match continued and finished",
        || async {
            matches(survivor)
                .await
                .into_iter()
                .find(|m| m.id == running.id && m.ended.is_some() && m.kills > running.kills)
        },
    )
    .await;
    assert_eq!(lab.servers[0].connects(), 2, "exactly one more connect");
    assert!(fence_of(&database, &format!("hub.{server}")).await > first_token);
    let listed = matches(survivor).await;
    let mut keys: Vec<(&str, u64)> = listed
        .iter()
        .map(|m| (m.map.as_str(), m.start_ms / 5_000))
        .collect();
    keys.sort();
    let before = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), before, "a match recorded twice: {listed:#?}");
    let whole: MatchDetail = reqwest::get(format!(
        "http://{}/api/matches/{}",
        survivor.addr, running.id
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    // Every kill stored is one the lab made in the match (its 30 s from the level start),
    // none twice.
    let made = common::truth::true_kills(&truth);
    let mut lab_pairs: BTreeMap<(String, String), u32> = BTreeMap::new();
    for (_, kills) in made.range(whole.level_start..whole.level_start + 35_000) {
        for pair in kills {
            *lab_pairs.entry(pair.clone()).or_default() += 1;
        }
    }
    let mut stored: BTreeMap<(String, String), u32> = BTreeMap::new();
    for k in &whole.kill_feed {
        let pair = (k.attacker.clone().unwrap_or_default(), k.victim.clone());
        *stored.entry(pair).or_default() += 1;
    }
    for (pair, n) in stored {
        let most = lab_pairs.get(&pair).copied().unwrap_or(0);
        assert!(n <= most, "{pair:?} stored {n} times, the lab made {most}");
    }
    // The highlights: none found before the SIGKILL lost (nor its clip), none twice, each of
    // kills the lab made, and each clip cut once in the cluster: the moments cut for plays are
    // as many as the plays with a clip, read together (the survivor goes on finding and
    // cutting plays of the next matches, so the two are read again until no cut fell between
    // them, in one snapshot of the store; a clip cut twice would never let them agree).
    let deadline = Instant::now() + LIMIT;
    loop {
        let (cut, clipped) = clips_and_plays_with_one(&database).await;
        if cut == clipped {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{cut} clips cut for {clipped} plays with a clip: a clip cut twice in the cluster"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let after = highlights(survivor, &server).await;
    for h in &found_before {
        let kept = after.iter().find(|a| a.id == h.id);
        assert!(kept.is_some(), "{} lost in the SIGKILL", h.id);
        if h.moment.is_some() {
            assert_eq!(kept.unwrap().moment, h.moment, "{} cut again", h.id);
        }
    }
    let plays: std::collections::BTreeSet<_> = (after.iter())
        .map(|h| (h.kind, h.player.clone(), h.start_server_time))
        .collect();
    assert_eq!(plays.len(), after.len(), "a play kept twice: {after:#?}");
    for h in after.iter().filter(|h| h.match_id == Some(running.id)) {
        for k in &h.kills {
            let pair = (h.player.clone(), k.victim.clone());
            assert!(
                lab_pairs.contains_key(&pair),
                "{pair:?} is no kill of the lab's"
            );
        }
    }
    let clipped: std::collections::BTreeSet<&str> =
        (after.iter()).filter_map(|h| h.moment.as_deref()).collect();
    assert_eq!(
        clipped.len(),
        after.iter().filter(|h| h.moment.is_some()).count(),
        "two plays share a clip"
    );
}

/// The moments the cluster's highlights have cut and the plays that have one, in the shared
/// store, read in one snapshot.
async fn clips_and_plays_with_one(database: &str) -> (i64, i64) {
    let url = database.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let row = (client.query_one(
            "SELECT (SELECT count(*) FROM moments WHERE client = 'highlights'), \
                    (SELECT count(*) FROM highlights WHERE moment IS NOT NULL)",
            &[],
        ))
        .unwrap();
        (row.get::<_, i64>(0), row.get::<_, i64>(1))
    })
    .await
    .unwrap()
}

async fn highlights(
    relay: &RelayProcess,
    server: &str,
) -> Vec<protocol::relay_api::highlights::Highlight> {
    let url = format!(
        "http://{}/api/highlights?server={server}&limit=200",
        relay.addr
    );
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

async fn rewind_window(relay: &RelayProcess, server: &str) -> Option<RewindWindow> {
    let url = format!("http://{}/api/spectate/{server}/rewind", relay.addr);
    let answer = reqwest::get(url).await.ok()?;
    if answer.status() != 200 {
        return None;
    }
    answer.json().await.ok()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn a_viewer_rewinds_through_its_own_relay_and_a_takeover_keeps_the_window() {
    let (lab, server, nats, database) = watched_match().await;
    let args = relay_args(&lab, &nats, &database, &["--spectate-delay", "0"]);
    let mut relays = relays(2, &args).await;
    for relay in &relays {
        eventually(LIMIT, "the server listed", || async {
            all_online(&lab, &listed(relay).await)
        })
        .await;
    }
    let mut viewers = Vec::new();
    for (at, relay) in relays.iter().enumerate() {
        viewers.push((at, Viewer::open_at(relay.addr, &server).await));
    }
    let mut viewers = read_until(viewers, |v| v.seq >= 200).await;
    let lease = format!("hub.{}", server.replace(['.', ':'], "-"));
    let owner = holder(&relays, &lease)
        .await
        .expect("a relay holds the slot");
    let mirror = 1 - owner;
    // The mirror keeps its own window of what it forwarded: the same kills as the holder's.
    let held = found(LIMIT, "the mirror's window", || async {
        rewind_window(&relays[mirror], &server)
            .await
            .filter(|w| w.keyframes >= 2 && !w.kills.is_empty())
    })
    .await;
    let theirs = rewind_window(&relays[owner], &server).await.unwrap();
    // After both windows' first keyframes (a keyframe's own kills are before any window).
    let span = held.start_server_time.max(theirs.start_server_time) + 1
        ..=held.end_server_time.min(theirs.end_server_time);
    let kills = |w: &RewindWindow| -> Vec<(i32, String)> {
        w.kills
            .iter()
            .filter(|k| span.contains(&k.server_time))
            .map(|k| (k.server_time, k.victim.clone()))
            .collect()
    };
    assert_eq!(kills(&held), kills(&theirs));
    // Its viewer goes back through it.
    let (_, viewer) = viewers.iter_mut().find(|(at, _)| *at == mirror).unwrap();
    viewer
        .say(ViewerMessage::Seek {
            relay_us: held.start_us,
            speed_pct: 0,
        })
        .await;
    let deadline = Instant::now() + LIMIT;
    while viewer.playing != Some((false, 0)) {
        assert!(
            Instant::now() < deadline,
            "the mirror never answered the seek"
        );
        tokio::time::timeout_at(deadline, viewer.next())
            .await
            .unwrap();
    }
    let next = tokio::time::timeout(LIMIT, viewer.next()).await.unwrap();
    assert!(matches!(next, Some(WatchMessage::Keyframe { .. })));

    // A moment shared on the mirror is cut by the holder (only its session saw the game's
    // messages), kept in the shared store, and served by every relay alike.
    let made = reqwest::Client::new()
        .post(format!("http://{}/api/moments", relays[mirror].addr))
        .json(&serde_json::json!({"server": server, "from": -6, "to": -1}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let made: protocol::relay_api::moments::MomentCreated = made.json().await.unwrap();
    let clip = |at: usize| {
        let url = format!("http://{}/api/moments/{}.dm_3", relays[at].addr, made.id);
        async move { reqwest::get(url).await.unwrap().bytes().await.unwrap() }
    };
    let (here, there) = (clip(mirror).await, clip(owner).await);
    assert_eq!(here, there);
    let timeline = protocol::cod::watch::timeline::Timeline::open(here.to_vec()).unwrap();
    let seconds = timeline.summary().duration_ms;
    assert!((4_000..=5_100).contains(&seconds), "{seconds} ms");

    // The holder dies; the mirror takes the slot over and keeps the window it had.
    relays[owner].kill().await;
    let kept = found(LIMIT, "the window after the takeover", || async {
        rewind_window(&relays[mirror], &server)
            .await
            .filter(|w| w.end_us > held.end_us + 3_000_000)
    })
    .await;
    assert_eq!(kept.start_us, held.start_us, "the window's start is kept");
    let survivor = std::slice::from_ref(&relays[mirror]);
    assert_eq!(
        holder(survivor, &lease).await,
        Some(0),
        "the mirror holds the slot"
    );
}

/// What a local webhook took: each delivery's key, in order.
async fn webhook() -> (std::sync::Arc<std::sync::Mutex<Vec<String>>>, String) {
    let took: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let app = axum::Router::new().fallback({
        let took = took.clone();
        move |headers: axum::http::HeaderMap| async move {
            let key = headers
                .get("muster-delivery")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            took.lock().unwrap().push(key);
            "ok"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (took, at)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs nats-server and PostgreSQL: `cargo xtask test` provides both"]
async fn three_relays_send_an_alert_once_and_the_next_holder_takes_over_after_sigkill() {
    let (lab, nats, database) = site(common::lab_config(1, 10)).await;
    let (took, hook) = webhook().await;
    let args = relay_args(
        &lab,
        &nats,
        &database,
        &["--alert-allow-host", "127.0.0.1", "--refresh-interval", "1"],
    );
    let mut relays = relays(3, &args).await;
    let holder = wait_holder(&relays, "alerts", LIMIT).await;
    let other = (holder + 1) % 3;
    let server = lab.servers[0].addr.to_string();
    eventually(LIMIT, "the server is listed", || async {
        listed(&relays[other]).await.contains_key(&server)
    })
    .await;
    let humans = {
        let p = lab.servers[0].snapshot();
        p.players.iter().filter(|p| !p.bot).count() as u32
    };
    // The rule is made on a relay that does not send.
    let made = reqwest::Client::new()
        .post(format!("http://{}/api/alerts", relays[other].addr))
        .json(&serde_json::json!({
            "rule": {"kind": "humans_at_least", "server": server, "n": humans + 1},
            "to": {"kind": "webhook", "url": hook}}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let rule: serde_json::Value = made.json().await.unwrap();
    let id = rule["id"].as_str().unwrap().to_owned();
    let token = rule["token"].as_str().unwrap().to_owned();
    // Rules made elsewhere are read within 15 s; the first look only learns.
    let maker = format!("http://{}", relays[other].addr);
    common::alerts::learned(&maker, std::slice::from_ref(&token)).await;
    lab.servers[0]
        .profile
        .lock()
        .unwrap()
        .join_spectator("First");
    eventually(LIMIT, "the alert is delivered", || async {
        !took.lock().unwrap().is_empty()
    })
    .await;
    // The sender judges further refreshes: nothing more is sent, by it or another.
    common::alerts::looked(&format!("http://{}", relays[holder].addr), 2).await;
    assert_eq!(
        *took.lock().unwrap(),
        [format!("{id}-1")],
        "one delivery, by one relay"
    );
    // The sender dies; another relay holds the lease and sends the next firing, once.
    relays[holder].kill().await;
    let rest: Vec<RelayProcess> = relays
        .drain(..)
        .enumerate()
        .filter_map(|(i, r)| (i != holder).then_some(r))
        .collect();
    let successor = wait_holder(&rest, "alerts", FAILOVER).await;
    let successor = format!("http://{}", rest[successor].addr);
    // Its first looks start from the state the sender wrote: still true, nothing fires.
    common::alerts::looked(&successor, 2).await;
    assert_eq!(took.lock().unwrap().len(), 1, "no repeat on taking over");
    lab.servers[0]
        .profile
        .lock()
        .unwrap()
        .leave_spectator("First");
    common::alerts::judged(&maker, &token, &id, false).await;
    lab.servers[0]
        .profile
        .lock()
        .unwrap()
        .join_spectator("Second");
    eventually(LIMIT, "the next alert is delivered", || async {
        took.lock().unwrap().len() >= 2
    })
    .await;
    common::alerts::looked(&successor, 2).await;
    assert_eq!(
        *took.lock().unwrap(),
        [format!("{id}-1"), format!("{id}-2")],
        "the successor read the rule's state: no repeat, no miss"
    );
}
