//! One storage suite, run on both backends: SQLite in a temporary directory, and PostgreSQL
//! in a fresh database of the server `MUSTER_TEST_POSTGRES` names (`cargo xtask test` starts a
//! throwaway cluster on 127.0.0.1 and sets it).

use super::compact::{self, Retention};
use super::pack::Bucket;
use super::{
    Batch, MapChange, Resolution, Sample, Session, Store, StoreArgs, StoreError, DAY_MS, HOUR_MS,
    TOTAL,
};

use super::suite_support::postgres_database;

pub fn postgres_args() -> StoreArgs {
    StoreArgs {
        data_dir: std::env::temp_dir(),
        database: Some(postgres_database()),
    }
}

fn sample(at_ms: u64, clients: u16, up: bool) -> Sample {
    Sample {
        at_ms,
        clients,
        bots: 0,
        max_clients: 16,
        up,
    }
}

const A: &str = "10.0.0.1:28960";
const B: &str = "10.0.0.2:28960";

/// Everything the relay asks of a store, on a fresh one made by `open` (called twice: the
/// second open must find the first's data, with migrations already run).
pub fn run(open: impl Fn() -> Box<dyn Store>) {
    let mut store = open();
    let day = 20_000 * DAY_MS;
    // Two hours of polls every 20 s on A (humans = i % 10, down every 30th), one sample on B.
    let mut batch = Batch::default();
    for i in 0..360u64 {
        let at = day + i * 20_000;
        batch
            .samples
            .push((A.into(), sample(at, (i % 10) as u16, i % 30 != 29)));
    }
    batch.samples.push((B.into(), sample(day + 5_000, 3, true)));
    batch.servers.push((A.into(), "{\"addr\":\"a\"}".into()));
    batch.servers.push((B.into(), "{\"addr\":\"b\"}".into()));
    batch.masters.push(("master:20610".into(), "{}".into()));
    batch.map_changes.push(MapChange {
        series: A.into(),
        at_ms: day + 60_000,
        map: "mp_foy".into(),
        gametype: "ctf".into(),
    });
    let session = |name: &str, server: &str, first: u64, last: u64| Session {
        key: super::name_key(name),
        name: name.into(),
        server: server.into(),
        first_ms: first,
        last_ms: last,
    };
    batch
        .sessions
        .push(session("^1Big^7Bob", A, day, day + 60_000));
    batch
        .sessions
        .push(session("Ann", B, day + 1_000, day + 2_000));
    store.write(&batch).unwrap();
    // The same stay written again later moves its end; a later stay elsewhere is the latest.
    let mut later = Batch::default();
    later
        .sessions
        .push(session("^1Big^7Bob", A, day, day + 600_000));
    later
        .sessions
        .push(session("^4BIG^7bob", B, day + 700_000, day + 800_000));
    later.servers.push((A.into(), "{\"addr\":\"a2\"}".into()));
    store.write(&later).unwrap();
    assert!(store.size_bytes().unwrap() > 0);

    drop(store);
    let mut store = open();
    let saved = store.saved().unwrap();
    assert_eq!(
        saved.servers,
        [
            (A.to_owned(), "{\"addr\":\"a2\"}".to_owned()),
            (B.to_owned(), "{\"addr\":\"b\"}".to_owned())
        ]
    );
    assert_eq!(saved.masters.len(), 1);

    // Names match without colours and case, most recent first, with their stays.
    let seen = store.find_players("big", 10, 5).unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].name, "^4BIG^7bob");
    assert_eq!(seen[0].last_server, B);
    assert_eq!(seen[0].last_ms, day + 800_000);
    let stays: Vec<(String, u64, u64)> = seen[0]
        .sessions
        .iter()
        .map(|s| (s.server.clone(), s.first_ms, s.last_ms))
        .collect();
    assert_eq!(
        stays,
        [
            (B.to_owned(), day + 700_000, day + 800_000),
            (A.to_owned(), day, day + 600_000)
        ]
    );
    assert!(store.find_players("zz", 10, 5).unwrap().is_empty());
    assert_eq!(store.find_players("%", 10, 5).unwrap().len(), 0);
    assert_eq!(store.find_players("", 10, 5).unwrap().len(), 2);

    let changes = store.map_changes(A, day, day + DAY_MS).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(
        (changes[0].map.as_str(), changes[0].at_ms),
        ("mp_foy", day + 60_000)
    );
    assert_eq!(
        store.samples(Some(A), day, day + HOUR_MS).unwrap().len(),
        180
    );
    assert_eq!(store.samples(None, 0, u64::MAX / 2).unwrap().len(), 361);

    // Before packing, a chart comes from the samples; after, from chunks: the same buckets.
    let before = compact::buckets(store.as_mut(), A, day, day + 2 * HOUR_MS, 300_000).unwrap();
    assert_eq!(before.len(), 24);
    assert_eq!(
        compact::pack_finished(store.as_mut(), day + HOUR_MS + 1).unwrap(),
        1
    );
    assert_eq!(store.oldest_sample().unwrap(), Some(day + HOUR_MS));
    let half = compact::buckets(store.as_mut(), A, day, day + 2 * HOUR_MS, 300_000).unwrap();
    assert_eq!(half, before);
    assert_eq!(
        compact::pack_finished(store.as_mut(), day + 3 * HOUR_MS).unwrap(),
        1
    );
    assert_eq!(store.oldest_sample().unwrap(), None);
    let after = compact::buckets(store.as_mut(), A, day, day + 2 * HOUR_MS, 300_000).unwrap();
    assert_eq!(after, before);
    // Worked by hand: the first 5 minutes hold polls 0..15, humans 0..9 then 0..4, none down.
    assert_eq!(
        after[0],
        Bucket {
            start_ms: day,
            polls: 15,
            up: 15,
            min: 0,
            max: 9,
            sum: 45 + 10,
            bots_max: 0,
            max_clients: 16,
        }
    );
    // Poll 29 (in the second 5 minutes) was down: it counts as a poll, not as zero humans.
    assert_eq!(
        (after[1].polls, after[1].up, after[1].sum),
        (15, 14, 35 + 45 - 9)
    );
    let hours = compact::buckets(store.as_mut(), A, day, day + 2 * HOUR_MS, HOUR_MS).unwrap();
    assert_eq!(hours.len(), 2);
    assert_eq!(
        (hours[0].polls, hours[0].up, hours[0].sum),
        (180, 174, 810 - 6 * 9)
    );
    let raw = compact::buckets(store.as_mut(), A, day, day + 2 * HOUR_MS, 60_000).unwrap();
    assert_eq!(raw.len(), 120);
    assert_eq!(
        store
            .chunks(B, Resolution::Raw, 0, u64::MAX / 2)
            .unwrap()
            .len(),
        1
    );

    // A straggler for a packed hour merges into that hour's chunks.
    let mut late = Batch::default();
    late.samples.push((B.into(), sample(day + 6_000, 5, true)));
    store.write(&late).unwrap();
    compact::pack_finished(store.as_mut(), day + 3 * HOUR_MS).unwrap();
    let b = compact::buckets(store.as_mut(), B, day, day + HOUR_MS, 300_000).unwrap();
    assert_eq!((b[0].polls, b[0].min, b[0].max), (2, 3, 5));

    // Retention: raw goes after a week, hours stay.
    let retention = Retention::default();
    assert_eq!(
        compact::expire(store.as_mut(), day + 3 * DAY_MS, &retention).unwrap(),
        0
    );
    assert!(compact::expire(store.as_mut(), day + 9 * DAY_MS, &retention).unwrap() >= 2);
    assert!(store
        .chunks(A, Resolution::Raw, 0, u64::MAX / 2)
        .unwrap()
        .is_empty());
    let kept = compact::buckets(store.as_mut(), A, day, day + DAY_MS, HOUR_MS).unwrap();
    assert_eq!(kept, hours);
    // Sessions go after their retention; the name stays with its last sighting.
    compact::expire(store.as_mut(), day + 400 * DAY_MS, &retention).unwrap();
    assert!(store.map_changes(A, 0, u64::MAX / 2).unwrap().is_empty());
    let seen = store.find_players("bob", 10, 5).unwrap();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].sessions.is_empty());

    let mut totals = Batch::default();
    totals.samples.push((TOTAL.into(), sample(day, 9, true)));
    totals
        .samples
        .push((super::gametype_series("ctf"), sample(day, 9, true)));
    store.write(&totals).unwrap();
    assert_eq!(store.series_names("gametype:").unwrap(), ["gametype:ctf"]);
    assert!(store.size_bytes().unwrap() > 0);
    fencing(store.as_mut(), day);
    audit(store.as_mut(), day);
    super::matches::suite::run(store.as_mut(), day);
    moments(store.as_mut(), day);
    highlights(store.as_mut(), day);
    alerts(store.as_mut(), day);
}

/// Highlights: kept once by their match, kind, player and first kill; the best of a match is
/// the only one marked; listed newest first by any filter, with their match's id once its
/// record is kept; given their clip; gone with their days.
fn highlights(store: &mut dyn Store, day: u64) {
    use super::highlights::{self, Wanted};
    use protocol::relay_api::highlights::{Highlight, HighlightKill, HighlightKind};
    let play =
        |id: &str, kind: HighlightKind, player: &str, t: i32, score: u32, best: bool| Highlight {
            id: id.into(),
            server: A.into(),
            match_id: None,
            map: "mp_nowhere".into(),
            gametype: "tdm".into(),
            kind,
            player: player.into(),
            kills: vec![HighlightKill {
                server_time: t,
                victim: "^1Victim".into(),
                weapon: "kar98k_mp".into(),
                distance: Some(2600),
            }],
            start_server_time: t,
            end_server_time: t,
            start_ms: day + t as u64,
            score,
            round: None,
            play_of_the_match: best,
            moment: None,
            url: None,
        };
    let db = store.exec().unwrap();
    let first = play(
        "hhhhhhhhh1",
        HighlightKind::LongShot,
        "^2Sgt.^7Fury",
        1_000,
        46,
        true,
    );
    assert!(highlights::save(db, &first, 500).unwrap());
    // The same play found again (another relay, a restart) under another id: kept once.
    let again = Highlight {
        id: "hhhhhhhhh9".into(),
        player: "SGT.FURY".into(),
        ..first.clone()
    };
    assert!(!highlights::save(db, &again, 500).unwrap());
    let better = play(
        "hhhhhhhhh2",
        HighlightKind::Triple,
        "Recruit",
        2_000,
        70,
        true,
    );
    assert!(highlights::save(db, &better, 500).unwrap());
    let other_match = play(
        "hhhhhhhhh3",
        HighlightKind::FirstBlood,
        "Recruit",
        900,
        20,
        true,
    );
    assert!(highlights::save(db, &other_match, 700).unwrap());
    let all = Wanted {
        limit: 50,
        ..Wanted::default()
    };
    let listed = highlights::list(db, &all).unwrap();
    let ids: Vec<&str> = listed.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        ["hhhhhhhhh2", "hhhhhhhhh1", "hhhhhhhhh3"],
        "newest first"
    );
    let best: Vec<&str> = (listed.iter())
        .filter(|h| h.play_of_the_match)
        .map(|h| h.id.as_str())
        .collect();
    assert_eq!(best, ["hhhhhhhhh2", "hhhhhhhhh3"], "one best a match");
    assert_eq!(listed[1].kills, first.kills);
    assert_eq!(listed[1].match_id, None, "no record of the match is kept");
    for (wanted, expect) in [
        (
            Wanted {
                player: Some(super::name_key("^3sgt.fury")),
                ..all.clone()
            },
            vec!["hhhhhhhhh1"],
        ),
        (
            Wanted {
                kind: Some(HighlightKind::FirstBlood),
                ..all.clone()
            },
            vec!["hhhhhhhhh3"],
        ),
        (
            Wanted {
                since_ms: Some(day + 1_500),
                ..all.clone()
            },
            vec!["hhhhhhhhh2"],
        ),
        (
            Wanted {
                best: true,
                limit: 1,
                ..all.clone()
            },
            vec!["hhhhhhhhh2"],
        ),
        (
            Wanted {
                server: Some(B.into()),
                ..all.clone()
            },
            vec![],
        ),
    ] {
        let got: Vec<String> = (highlights::list(db, &wanted).unwrap().into_iter())
            .map(|h| h.id)
            .collect();
        assert_eq!(got, expect, "{wanted:?}");
    }
    highlights::set_moment(db, "hhhhhhhhh1", "mmmmmmmmmm").unwrap();
    let one = highlights::one(db, "hhhhhhhhh1").unwrap().unwrap();
    assert_eq!(
        (one.moment.as_deref(), one.url.as_deref()),
        (Some("mmmmmmmmmm"), Some("/m/mmmmmmmmmm"))
    );
    assert_eq!(highlights::one(db, "nothere").unwrap(), None);
    assert_eq!(highlights::expire(db, day + 1_000).unwrap(), 1);
    assert_eq!(highlights::list(db, &all).unwrap().len(), 2);
}

/// Alerts: a firing is written with its rule's state in one transaction under a key that
/// counts the rule's firings; the outbox hands out what is due, and keeps why a firing was
/// retried or dropped; a gone destination takes its rules; forgetting a subscription leaves
/// nothing of it.
fn alerts(store: &mut dyn Store, day: u64) {
    use super::alerts::{self as a, Firing, StoredRule, Subscription, UNKNOWN};
    let sub = |id: &str, client: &str| Subscription {
        id: id.into(),
        token_hash: format!("hash-{id}"),
        client: client.into(),
        destination: format!("{{\"kind\":\"webhook\",\"url\":\"https://ntfy.sh/{id}\"}}"),
        created_ms: day,
        lang: "de".into(),
    };
    let rule = |id: &str, sub: &str| StoredRule {
        id: id.into(),
        subscription: sub.into(),
        rule: format!("{{\"kind\":\"match_end\",\"server\":\"{A}\"}}"),
        paused: false,
        holds: UNKNOWN,
        fired: 0,
        created_ms: day,
    };
    let db = store.exec().unwrap();
    a::add_subscription(db, &sub("s1", "127.0.0.1")).unwrap();
    a::add_subscription(db, &sub("s2", "10.0.0.9")).unwrap();
    assert!(a::add_subscription(db, &sub("s1", "x")).is_err());
    for (r, s) in [("r1", "s1"), ("r2", "s1"), ("r3", "s2")] {
        a::add_rule(db, &rule(r, s)).unwrap();
    }
    assert_eq!(a::rules_of_client(db, "127.0.0.1").unwrap(), 2);
    assert_eq!(
        a::subscription(db, "hash-s2").unwrap().unwrap().client,
        "10.0.0.9"
    );
    assert_eq!(a::subscription(db, "hash-none").unwrap(), None);
    // Each firing is written in its subscription's language at the time.
    let payload = |key: &str, lang: &str| format!("{key} {lang}");
    let firing = Firing {
        at_ms: day + 10,
        payload: &payload,
    };
    // The first look learns (no firing), the next fires twice over time.
    assert!(!a::settle(db, "r1", false, None).unwrap());
    assert!(a::settle(db, "r1", true, Some(&firing)).unwrap());
    a::set_lang(db, "s1", "pl").unwrap();
    assert!(a::fire_rule(db, "r1", None, &firing).unwrap());
    assert!(!a::fire_rule(db, "gone", None, &firing).unwrap());
    let r1 = &a::rules(db, "s1").unwrap()[0];
    assert_eq!((r1.holds, r1.fired), (1, 2));
    let matching = format!("{{\"kind\":\"match_end\",\"server\":\"{A}\"}}");
    assert_eq!(a::rules_matching(db, &matching).unwrap().len(), 3);
    assert!(a::set_paused(db, "s2", "r3", true).unwrap());
    assert!(
        !a::set_paused(db, "s1", "r3", true).unwrap(),
        "not s1's rule"
    );
    assert_eq!(a::rules_matching(db, &matching).unwrap().len(), 2);
    assert_eq!(a::active_rules(db).unwrap().len(), 2);
    let due = a::due(db, day + 10, 10).unwrap();
    let keys: Vec<&str> = due.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["r1-1", "r1-2"]);
    let payloads: Vec<&str> = due.iter().map(|o| o.payload.as_str()).collect();
    assert_eq!(payloads, ["r1-1 de", "r1-2 pl"]);
    assert_eq!(a::subscription(db, "hash-s1").unwrap().unwrap().lang, "pl");
    assert!(a::due(db, day + 9, 10).unwrap().is_empty());
    a::sent(db, "r1-1", day + 11).unwrap();
    a::later(db, "r1-2", day + 5000, true, "503").unwrap();
    assert!(a::due(db, day + 4999, 10).unwrap().is_empty());
    let out = a::outbox_of(db, "s1", 10).unwrap();
    let states: Vec<(&str, u32, Option<&str>)> = (out.iter())
        .map(|o| (o.state.as_str(), o.attempts, o.reason.as_deref()))
        .collect();
    assert!(states.contains(&("sent", 1, None)));
    assert!(states.contains(&("pending", 1, Some("503"))));
    // Gone: the pending firing is dropped with why, the rules go.
    a::destination_gone(db, "s1", day + 6000, "410").unwrap();
    assert!(a::rules(db, "s1").unwrap().is_empty());
    assert!(a::due(db, u64::MAX / 2, 10).unwrap().is_empty());
    let out = a::outbox_of(db, "s1", 10).unwrap();
    assert!(out
        .iter()
        .any(|o| o.state == "dropped" && o.reason.as_deref() == Some("410")));
    // Swept after their days: the deliveries, then the empty subscription.
    assert_eq!(a::sweep(db, day + 7000).unwrap(), 2);
    assert_eq!(a::subscription(db, "hash-s1").unwrap(), None);
    assert!(a::subscription(db, "hash-s2").unwrap().is_some());
    a::remove_subscription(db, "s2").unwrap();
    assert_eq!(a::subscription(db, "hash-s2").unwrap(), None);
    assert_eq!(a::rules_of_client(db, "10.0.0.9").unwrap(), 0);
    // Keys: the first value kept wins.
    assert_eq!(a::key_or_insert(db, "vapid", "one").unwrap(), "one");
    assert_eq!(a::key_or_insert(db, "vapid", "two").unwrap(), "one");
}

/// Moments: each part read back byte for byte, counted per client for the hourly limit, and
/// dropped after their days.
fn moments(store: &mut dyn Store, day: u64) {
    use super::moments::{self, Part, SavedMoment};
    let moment = |id: &str, client: &str, at: u64| SavedMoment {
        id: id.into(),
        server: A.into(),
        client: client.into(),
        created_ms: day + at,
        detail: format!("{{\"id\":\"{id}\"}}"),
        demo: vec![0, 1, 2, 255, id.len() as u8],
        still: b"\x89PNG\r\n\x1a\n".to_vec(),
    };
    let db = store.exec().unwrap();
    for m in [
        moment("aaaaaaaaaa", "127.0.0.1", 0),
        moment("bbbbbbbbbb", "127.0.0.1", HOUR_MS),
        moment("cccccccccc", "2001:db8::1", HOUR_MS + 1),
    ] {
        moments::save(db, &m).unwrap();
    }
    assert!(
        moments::save(db, &moment("aaaaaaaaaa", "x", 5)).is_err(),
        "an id is never reused"
    );
    assert_eq!(
        moments::part(db, "bbbbbbbbbb", Part::Demo)
            .unwrap()
            .unwrap(),
        [0, 1, 2, 255, 10]
    );
    assert_eq!(
        moments::part(db, "bbbbbbbbbb", Part::Detail)
            .unwrap()
            .unwrap(),
        b"{\"id\":\"bbbbbbbbbb\"}"
    );
    assert_eq!(
        moments::part(db, "cccccccccc", Part::Still)
            .unwrap()
            .unwrap(),
        b"\x89PNG\r\n\x1a\n"
    );
    assert_eq!(moments::part(db, "dddddddddd", Part::Demo).unwrap(), None);
    assert_eq!(moments::made_since(db, "127.0.0.1", day).unwrap(), 2);
    assert_eq!(moments::made_since(db, "127.0.0.1", day + 1).unwrap(), 1);
    assert_eq!(moments::count(db).unwrap(), (3, 3 * (5 + 8)));
    assert_eq!(moments::expire(db, day + HOUR_MS).unwrap(), 1);
    assert_eq!(moments::part(db, "aaaaaaaaaa", Part::Demo).unwrap(), None);
    assert_eq!(moments::count(db).unwrap().0, 2);
}

/// The admin console's audit: appended whatever the fence, read newest first, by server.
fn audit(store: &mut dyn Store, day: u64) {
    let entry = |at: u64, server: &str, outcome: &str| super::AuditEntry {
        at_ms: day + at,
        client: "2001:db8:1:2::/64".into(),
        server: server.into(),
        command: "clientkick 3".into(),
        outcome: outcome.into(),
        round_trip_ms: 12,
    };
    let written = [
        entry(1, A, "bad_password"),
        entry(2, B, "output"),
        entry(3, A, "output"),
    ];
    store.put_audit(&written).unwrap();
    assert_eq!(
        store.audit(Some(A), 10).unwrap(),
        [written[2].clone(), written[0].clone()]
    );
    assert_eq!(
        store.audit(None, 2).unwrap(),
        [written[2].clone(), written[1].clone()]
    );
}

/// A write with a lease revision older than one already written is refused whole; equal or
/// newer tokens pass, and so do writes without one (a relay outside a cluster).
fn fencing(store: &mut dyn Store, day: u64) {
    const C: &str = "10.0.0.3:28960";
    let fenced = |token: Option<u64>, at: u64| Batch {
        samples: vec![(C.into(), sample(at, 1, true))],
        servers: vec![(C.into(), format!("{{\"at\":{at}}}"))],
        fence: token,
        ..Batch::default()
    };
    store.write(&fenced(Some(10), day)).unwrap();
    store.write(&fenced(Some(12), day + 1_000)).unwrap();
    store.write(&fenced(Some(12), day + 2_000)).unwrap();
    let stale = store.write(&fenced(Some(11), day + 3_000)).unwrap_err();
    assert!(matches!(stale, StoreError::Fenced { token: 11 }), "{stale}");
    store.write(&fenced(None, day + 4_000)).unwrap();
    let kept: Vec<u64> = store
        .samples(Some(C), day, day + 10_000)
        .unwrap()
        .iter()
        .map(|(_, s)| s.at_ms)
        .collect();
    assert_eq!(kept, [day, day + 1_000, day + 2_000, day + 4_000]);
    let saved = store.saved().unwrap();
    let record = saved.servers.iter().find(|(a, _)| a == C).unwrap();
    assert_eq!(record.1, format!("{{\"at\":{}}}", day + 4_000));
}

#[test]
fn sqlite_passes_the_storage_suite() {
    let dir = tempfile::tempdir().unwrap();
    let args = StoreArgs {
        data_dir: dir.path().join("data"),
        database: None,
    };
    run(|| args.open().unwrap());
}

#[test]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
fn postgres_passes_the_storage_suite() {
    let args = postgres_args();
    run(|| args.open().unwrap());
}

#[test]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
fn relays_started_together_on_a_fresh_postgres_all_open_it() {
    // A rollout of replicas: every relay migrates the same fresh database at the same moment.
    const RELAYS: usize = 8;
    for _ in 0..3 {
        let url = postgres_database();
        let start = std::sync::Arc::new(std::sync::Barrier::new(RELAYS));
        let opened: Vec<_> = (0..RELAYS)
            .map(|_| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    // Connected first, so they migrate as nearly at once as can be.
                    let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
                    start.wait();
                    super::postgres::migrate(&mut client)
                })
            })
            .collect();
        for relay in opened {
            relay.join().unwrap().expect("every relay opens the store");
        }
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let versions: i64 = client
            .query_one("SELECT count(*) FROM schema_migrations", &[])
            .unwrap()
            .get(0);
        assert_eq!(versions, super::postgres::VERSIONS as i64, "each step once");
    }
}

#[test]
fn a_database_from_a_newer_relay_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let args = StoreArgs {
        data_dir: dir.path().to_owned(),
        database: None,
    };
    drop(args.open().unwrap());
    let conn = rusqlite::Connection::open(dir.path().join("muster.db")).unwrap();
    conn.execute("INSERT INTO schema_migrations VALUES (99, 0)", [])
        .unwrap();
    let error = args.open().err().unwrap().to_string();
    assert!(error.contains("schema version 99"), "{error}");
    let bad = StoreArgs {
        data_dir: dir.path().to_owned(),
        database: Some("mysql://x".into()),
    };
    assert!(bad
        .open()
        .err()
        .unwrap()
        .to_string()
        .contains("postgres://"));
}
