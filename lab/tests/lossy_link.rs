//! A `cod::client` session with a lab server over a seeded simulated link that loses,
//! duplicates and reorders datagrams: the session stays correct, and every snapshot the client
//! decodes is exactly one the server sent.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use lab::sessions::{readme, SessionConfig, Sessions, README};
use lab::ServerProfile;
use protocol::cod::client::{Client, ClientConfig, DownloadEvent, Event, State};
use protocol::cod::snapshot::Snapshot;
use protocol::sim::{LinkProfile, LossyLink};
use rand::rngs::SmallRng;
use rand::SeedableRng;

const CLIENT: &str = "127.0.0.1:40000";
const STEP_MS: u64 = 5;

/// 15% lost, 10% twice, up to 60 ms late: copies overtake one another.
const LINK: LinkProfile = LinkProfile {
    loss: 0.15,
    duplication: 0.10,
    min_delay_ms: 0,
    max_delay_ms: 60,
};

struct Run {
    events: Vec<Event>,
    sent: BTreeMap<i32, Snapshot>,
    up: LossyLink,
    down: LossyLink,
    client: Client,
    map_of_server: protocol::cod::server::Map,
}

/// An open 24-slot server with eight soldiers.
fn profile(seed: u64) -> ServerProfile {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut profile = ServerProfile::generate(1, &mut rng);
    profile.max_clients = 24;
    profile.fill(8, &mut rng);
    profile
}

fn run(seed: u64, duration_ms: u64, map_time_ms: Option<u64>, download_at: Option<u64>) -> Run {
    let mut profile = profile(seed);
    let mut sessions = Sessions::new(
        &profile,
        SessionConfig {
            seed,
            map_time_ms,
            ..SessionConfig::default()
        },
        0,
    );
    sessions.record_snapshots();
    let from: SocketAddr = CLIENT.parse().unwrap();
    let mut client = Client::new(
        ClientConfig {
            name: "Watcher".into(),
            ..ClientConfig::default()
        },
        0,
    );
    let mut up = LossyLink::new(LINK, seed ^ 1);
    let mut down = LossyLink::new(LINK, seed ^ 2);
    let mut events = Vec::new();
    let mut sent = BTreeMap::new();
    let mut now = 0;
    while now < duration_ms {
        now += STEP_MS;
        if download_at == Some(now) {
            client.download(README).unwrap();
        }
        client.handle_timeout(now);
        while let Some(d) = client.poll_transmit() {
            up.send(now, d);
        }
        for d in up.due(now) {
            sessions.handle_datagram(now, from, &d, &mut profile);
        }
        sessions.tick(now, &mut profile);
        for transmit in std::iter::from_fn(|| sessions.poll_transmit()) {
            assert_eq!(transmit.to, from);
            down.send(now, transmit.payload);
        }
        for d in down.due(now) {
            client.handle_datagram(now, &d);
        }
        events.extend(std::iter::from_fn(|| client.poll_event()));
        for (_, snapshot) in sessions.take_sent() {
            sent.insert(snapshot.server_time, *snapshot);
        }
    }
    Run {
        events,
        sent,
        up,
        down,
        client,
        map_of_server: sessions.map().clone(),
    }
}

fn decoded(events: &[Event]) -> Vec<&Snapshot> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Snapshot(s) => Some(&**s),
            _ => None,
        })
        .collect()
}

#[test]
fn the_decoded_world_equals_the_server_s_despite_loss_duplication_and_reordering() {
    for seed in [1u64, 2, 3] {
        let run = run(seed, 20_000, None, None);
        eprintln!(
            "seed {seed}: up {}/{} lost, down {}/{} lost, {} duplicated, {} snapshots decoded",
            run.up.lost,
            run.up.sent,
            run.down.lost,
            run.down.sent,
            run.down.duplicated,
            decoded(&run.events).len()
        );
        assert!(run.up.lost > 10 && run.down.lost > 10 && run.down.duplicated > 10);
        assert_eq!(run.client.state(), State::Active, "seed {seed}");
        let snapshots = decoded(&run.events);
        // 20 snaps a second for most of 20 s, less what the link lost.
        assert!(snapshots.len() > 150, "seed {seed}: {}", snapshots.len());
        let deltas = snapshots.iter().filter(|s| s.delta_num > 0).count();
        assert!(deltas > snapshots.len() / 2, "most snapshots are deltas");
        for snapshot in &snapshots {
            let sent = run
                .sent
                .get(&snapshot.server_time)
                .expect("a snapshot the server sent");
            // Compared without printing whole snapshots on failure.
            assert!(
                *snapshot == sent,
                "seed {seed}: snapshot at {} differs",
                snapshot.server_time
            );
        }
        assert!(snapshots
            .iter()
            .any(|s| s.entities.values().any(|e| e.vehicle)));
        // Reliable server commands arrive once each, in order, without gaps.
        let sequences: Vec<i32> = run
            .events
            .iter()
            .filter_map(|e| match e {
                Event::ServerCommand { sequence, .. } => Some(*sequence),
                _ => None,
            })
            .collect();
        assert!(
            sequences.len() > 10,
            "kills, scores and chat: {}",
            sequences.len()
        );
        assert!(
            sequences.windows(2).all(|w| w[1] == w[0] + 1),
            "{sequences:?}"
        );
    }
}

#[test]
fn a_download_survives_the_lossy_link() {
    let run = run(7, 20_000, None, Some(3000));
    let data = run.events.iter().find_map(|e| match e {
        Event::Download(DownloadEvent::Complete { name, data }) if name == README => Some(data),
        _ => None,
    });
    let expected = readme(&profile(7));
    assert!(expected.len() > 3 * 2048, "several blocks");
    assert_eq!(data.map(Vec::len), Some(expected.len()));
    assert_eq!(data, Some(&expected));
}

#[test]
fn a_map_change_over_the_lossy_link_ends_active_on_the_new_map() {
    let run = run(11, 25_000, Some(8_000), None);
    let changes = run
        .events
        .iter()
        .filter(|e| matches!(e, Event::LoadingNewMap { .. }))
        .count();
    assert!(changes >= 2, "{changes} map changes");
    assert_eq!(run.client.state(), State::Active);
    let gamestate = run.client.gamestate().unwrap();
    assert_eq!(gamestate.configstrings, run.map_of_server.configstrings);
    for snapshot in decoded(&run.events) {
        assert!(
            Some(snapshot) == run.sent.get(&snapshot.server_time),
            "at {}",
            snapshot.server_time
        );
    }
}
