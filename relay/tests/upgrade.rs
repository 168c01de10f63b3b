//! Upgrades keep every row: a store of each schema version so far, written by the relay that
//! shipped it (`fixtures/store/`, made by `make.sh`), opened by today's relay on both backends;
//! every row survives the migration unchanged and still means what it meant. A migration that
//! fails leaves the store as it was.

use crate::common;

use std::path::PathBuf;

use common::rows::Rows;
use protocol::relay_api::ServerInfo;
use relay::store::{Store, StoreArgs};

/// Schema versions that shipped; each has a fixture per backend.
const SHIPPED: i64 = 10;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/store")
        .join(name)
}

fn version(db: &std::path::Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT MAX(version) FROM schema_migrations", [], |r| {
            r.get(0)
        })
        .unwrap()
}

/// Every table the old store had keeps exactly its rows, each field as it was (a column a
/// migration adds comes after them); the migrations table only grows.
fn kept(before: &Rows, after: &Rows) {
    for (table, rows) in before {
        if table == "schema_migrations" {
            assert!(rows.iter().all(|r| after[table].contains(r)), "{table}");
        } else {
            let same = after[table].len() == rows.len()
                && (rows.iter().zip(&after[table])).all(|(b, a)| a == b || extends(b, a));
            assert!(
                same,
                "{table} changed in the migration:\n{rows:?}\n{:?}",
                after[table]
            );
        }
    }
}

/// Whether `after` is the row `before` with columns added at its end: a PostgreSQL row
/// literal `(a,b)` become `(a,b,c)`, or SQLite's fields `a|b` become `a|b|c`.
fn extends(before: &str, after: &str) -> bool {
    match before.strip_suffix(')').filter(|_| before.starts_with('(')) {
        Some(fields) => after
            .strip_prefix(fields)
            .is_some_and(|rest| rest.starts_with(',')),
        None => after
            .strip_prefix(before)
            .is_some_and(|rest| rest.starts_with('|')),
    }
}

#[test]
fn an_added_column_extends_a_row_and_nothing_else_does() {
    assert!(extends("(a,b)", "(a,b,en)"));
    assert!(extends(
        "Text(\"a\")|Integer(1)",
        "Text(\"a\")|Integer(1)|Text(\"en\")"
    ));
    assert!(!extends("(a,b)", "(a,c,en)"));
    assert!(!extends("(a,b)", "(a,bc)"));
    assert!(!extends(
        "Text(\"a\")|Integer(1)",
        "Text(\"a\")|Integer(12)"
    ));
}

/// What the rows mean, read through the store as the relay reads them.
fn means_the_same(store: &mut dyn Store, before: &Rows) {
    let saved = store.saved().unwrap();
    assert_eq!(saved.servers.len(), before["directory"].len());
    assert!(!saved.servers.is_empty());
    for (addr, record) in &saved.servers {
        let server: ServerInfo = serde_json::from_str(record)
            .unwrap_or_else(|e| panic!("{addr}: an old record no longer reads: {e}"));
        assert_eq!(&server.addr, addr);
    }
    let samples = store.samples(None, 0, u64::MAX / 2).unwrap();
    assert_eq!(samples.len(), before["samples"].len());
    assert!(samples.iter().any(|(_, s)| s.up && s.clients > 0));
    let players = store.find_players("", 10_000, 1).unwrap();
    assert_eq!(players.len(), before["players"].len());
    assert!(!players.is_empty());
    let series = &samples[0].0;
    assert!(!store
        .map_changes(series, 0, u64::MAX / 2)
        .unwrap()
        .is_empty());
    if before.contains_key("matches") {
        matches_mean_the_same(store, before);
    }
    if before.contains_key("moments") {
        moments_mean_the_same(store, before);
    }
    if before.contains_key("owners") {
        owners_mean_the_same(store, before);
    }
    if before.contains_key("alert_rules") {
        alerts_mean_the_same(store, before);
    }
}

/// Alerts (version 7 on): every rule and its destination read as the API gives them, and the
/// firings still pending are due to be sent, each with the event it was written with.
fn owners_mean_the_same(store: &mut dyn Store, before: &Rows) {
    use protocol::relay_api::owners::OwnerProfile;
    let owners = relay::store::owners::all(store.exec().unwrap()).unwrap();
    assert_eq!(owners.len(), before["owners"].len());
    assert!(!owners.is_empty());
    for owner in owners {
        let profile: OwnerProfile = serde_json::from_str(&owner.profile)
            .unwrap_or_else(|e| panic!("{}: an old profile no longer reads: {e}", owner.addr));
        assert_eq!(profile.addr, owner.addr);
        assert!(profile.proven_ms > 0 && profile.follow && profile.discord);
        assert!(owner.discord_webhook.is_some());
    }
}

fn alerts_mean_the_same(store: &mut dyn Store, before: &Rows) {
    use protocol::relay_api::alerts::{AlertEvent, Destination, Rule};
    use relay::store::alerts;
    let db = store.exec().unwrap();
    let active = alerts::active_rules(db).unwrap();
    assert_eq!(
        active.len() + 1,
        before["alert_rules"].len(),
        "one rule was paused"
    );
    for (rule, destination) in &active {
        serde_json::from_str::<Rule>(&rule.rule).unwrap();
        serde_json::from_str::<Destination>(destination).unwrap();
    }
    let due = alerts::due(db, u64::MAX / 2, 100).unwrap();
    assert_eq!(due.len(), before["alert_outbox"].len());
    assert!(
        !due.is_empty(),
        "the fixture's followed match fired its rule"
    );
    for out in &due {
        let event: AlertEvent = serde_json::from_str(&out.payload).unwrap();
        assert_eq!(event.key, out.key);
        assert!(matches!(event.rule, Rule::MatchEnd { .. }));
        assert!(out.reason.is_some(), "why it is still pending is kept");
        // Written before languages (version 9) in English, which they say they are; from 9
        // on, the fixture's match-end rule asked for German.
        let opening = match event.lang.as_str() {
            "en" => "Match over on ",
            "de" => "Match beendet auf ",
            other => panic!("{}: a firing in {other}", out.key),
        };
        assert!(event.text.starts_with(opening), "{}", event.text);
    }
    // Every subscription has a language: English for those made before there was a choice.
    let langs = db
        .rows("SELECT lang FROM alert_subscriptions", &[])
        .unwrap();
    assert_eq!(langs.len(), before["alert_subscriptions"].len());
    assert!(langs
        .iter()
        .all(|r| ["en", "de"].contains(&r[0].text().as_str())));
}

/// Moments (version 6 on): each description reads, its clip reads back whole with the
/// snapshots it names, and its still is a PNG.
fn moments_mean_the_same(store: &mut dyn Store, before: &Rows) {
    use protocol::relay_api::moments::MomentDetail;
    use relay::store::moments::{part, Part};
    let ids: Vec<String> = store
        .exec()
        .unwrap()
        .rows("SELECT id FROM moments", &[])
        .unwrap()
        .iter()
        .map(|row| row[0].text())
        .collect();
    assert_eq!(ids.len(), before["moments"].len());
    assert!(!ids.is_empty());
    for id in ids {
        let db = store.exec().unwrap();
        let detail = part(db, &id, Part::Detail).unwrap().unwrap();
        let detail: MomentDetail = serde_json::from_slice(&detail).unwrap();
        assert_eq!(detail.id, id);
        let demo = part(db, &id, Part::Demo).unwrap().unwrap();
        let timeline = protocol::cod::watch::timeline::Timeline::open(demo).unwrap();
        assert_eq!(timeline.summary().snapshots, detail.snapshots, "{id}");
        assert!(timeline.summary().ended);
        let still = part(db, &id, Part::Still).unwrap().unwrap();
        assert_eq!(&still[..4], b"\x89PNG");
    }
}

/// Matches (version 4 on): each record decodes whole, and each name's figures still add up.
fn matches_mean_the_same(store: &mut dyn Store, before: &Rows) {
    use relay::store::matches;
    let filter = matches::MatchFilter {
        limit: 1000,
        ..Default::default()
    };
    let list = matches::list(store.exec().unwrap(), &filter).unwrap();
    assert_eq!(list.len(), before["matches"].len());
    assert!(!list.is_empty());
    let mut kills = 0;
    for m in &list {
        let detail = matches::detail(store.exec().unwrap(), m.id)
            .unwrap()
            .unwrap();
        assert_eq!(detail.kill_feed.len() as u32, m.kills, "match {}", m.id);
        kills += m.kills;
        assert!(!detail.scoreboard.is_empty());
    }
    assert!(kills > 0);
    assert!(list.iter().any(|m| m.winner.is_some()));
    let board = matches::Board {
        limit: 1000,
        ..Default::default()
    };
    let rows = matches::leaderboard(store.exec().unwrap(), &board).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.totals.kills).sum::<u64>(),
        u64::from(kills),
        "figures add up to the records' kills"
    );
    // The week and the month of the matches hold them all (the fixtures' matches are of one
    // run), as the migration filled them from the daily figures.
    for period in [matches::Period::Week, matches::Period::Month] {
        let of_then = matches::Board {
            period,
            at_ms: list[0].start_ms,
            ..board.clone()
        };
        let rows = matches::leaderboard(store.exec().unwrap(), &of_then).unwrap();
        assert_eq!(
            rows.iter().map(|r| r.totals.kills).sum::<u64>(),
            u64::from(kills),
            "{period:?}"
        );
    }
    let best = &rows[0];
    let stats = matches::player(store.exec().unwrap(), &best.key, 10)
        .unwrap()
        .unwrap();
    assert_eq!(stats.totals, best.totals);
}

#[test]
fn every_shipped_schema_version_has_a_fixture_on_both_backends() {
    for v in 1..=SHIPPED {
        assert!(
            fixture(&format!("sqlite-v{v}.db")).is_file(),
            "sqlite-v{v}.db"
        );
        assert!(
            fixture(&format!("postgres-v{v}.sql")).is_file(),
            "postgres-v{v}.sql"
        );
    }
    // A new migration ships with its fixtures: the newest fixture is today's schema.
    let dir = tempfile::tempdir().unwrap();
    let args = StoreArgs {
        data_dir: dir.path().to_owned(),
        database: None,
    };
    drop(args.open().unwrap());
    assert_eq!(
        version(&dir.path().join("muster.db")),
        SHIPPED,
        "a new schema version needs its fixtures (relay/tests/fixtures/store/README.md)"
    );
}

#[test]
fn sqlite_stores_of_every_version_open_with_every_row() {
    for v in 1..=SHIPPED {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("muster.db");
        std::fs::copy(fixture(&format!("sqlite-v{v}.db")), &db).unwrap();
        let before = common::rows::sqlite(&db);
        assert_eq!(version(&db), v);
        let mut store = StoreArgs {
            data_dir: dir.path().to_owned(),
            database: None,
        }
        .open()
        .unwrap_or_else(|e| panic!("version {v}: {e}"));
        let after = common::rows::sqlite(&db);
        assert_eq!(version(&db), SHIPPED);
        kept(&before, &after);
        means_the_same(store.as_mut(), &before);
    }
}

#[test]
fn a_failed_migration_leaves_the_store_as_it_was() {
    // A version 2 store where version 3's table already exists, as a hand edit would leave it.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("muster.db");
    std::fs::copy(fixture("sqlite-v2.db"), &db).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE rcon_audit (note TEXT); INSERT INTO rcon_audit VALUES ('mine');",
        )
        .unwrap();
    let before = common::rows::sqlite(&db);
    let error = StoreArgs {
        data_dir: dir.path().to_owned(),
        database: None,
    }
    .open()
    .err()
    .expect("the migration fails");
    assert!(error.to_string().contains("rcon_audit"), "{error}");
    let after = common::rows::sqlite(&db);
    assert_eq!(after, before, "a failed migration changed the store");
    assert_eq!(version(&db), 2);
}

/// A fresh database holding a fixture dump (psql's own commands dropped).
fn postgres_from(dump: &str) -> String {
    let url = relay::store::postgres_database();
    let sql: String = dump
        .lines()
        .filter(|l| !l.starts_with('\\'))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client.batch_execute(&sql).unwrap();
    url
}

#[test]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
fn postgres_stores_of_every_version_open_with_every_row() {
    for v in 1..=SHIPPED {
        let dump = std::fs::read_to_string(fixture(&format!("postgres-v{v}.sql"))).unwrap();
        let url = postgres_from(&dump);
        let before = common::rows::postgres(&url);
        let mut store = StoreArgs {
            data_dir: std::env::temp_dir(),
            database: Some(url.clone()),
        }
        .open()
        .unwrap_or_else(|e| panic!("version {v}: {e}"));
        let after = common::rows::postgres(&url);
        kept(&before, &after);
        means_the_same(store.as_mut(), &before);
        assert_eq!(after["schema_migrations"].len() as i64, SHIPPED);
    }
}
