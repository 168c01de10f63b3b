//! The matches' part of the storage suite, run on both backends.

use protocol::relay_api::matches::{KillKind, MatchEnd};
use protocol::relay_api::watch::Team;

use super::record::{Board, Kill, Record, Stay};
use super::{MatchFilter, MatchPart};
use crate::store::{Store, DAY_MS};

const SERVER: &str = "10.0.0.9:28960";

fn kill(record: &mut Record, t: i32, attacker: &str, victim: &str, weapon: &str) {
    let (a, v, w) = (
        record.name(attacker),
        record.name(victim),
        record.weapon(weapon),
    );
    let team = |name: &str| {
        if name.contains("Ax") {
            Team::Axis
        } else {
            Team::Allies
        }
    };
    record.kills.push(Kill {
        t,
        attacker: Some(a),
        victim: v,
        weapon: w,
        kind: KillKind::Kill,
        attacker_team: team(attacker),
        victim_team: team(victim),
        attacker_at: Some([10, 20, 0]),
        victim_at: Some([-300, 400, 8]),
    });
}

fn part(day: u64, record: Record, ended: Option<MatchEnd>) -> MatchPart {
    MatchPart {
        server: SERVER.into(),
        map: "mp_foy".into(),
        level_start: 5000,
        gametype: "tdm".into(),
        hostname: "^1Foy".into(),
        start_ms: day + 1000,
        end_ms: day + 60_000,
        ended,
        record,
        demo: None,
        fence: None,
    }
}

/// Writes the parts; how many were fenced off.
fn write(store: &mut dyn Store, parts: &[MatchPart]) -> usize {
    let mut fenced = 0;
    store
        .transact(&mut |db| {
            fenced = super::write_parts(db, parts, &|key| key == "hidden")?;
            Ok(())
        })
        .unwrap();
    fenced
}

/// Two parts of one team match (the second repeats a kill, as a rejoin does), then its end:
/// one match, each kill once, figures added once, the winners rated up.
pub fn run(store: &mut dyn Store, day: u64) {
    let mut first = Record::default();
    kill(&mut first, 6000, "^1AxAnn", "AlBob", "kar98k_mp");
    kill(&mut first, 7000, "^1AxAnn", "AlBob", "kar98k_mp");
    let ann = first.name("^1AxAnn");
    first.stays.push(Stay {
        name: ann,
        from: 5000,
        to: 8000,
    });
    let mut second = Record::default();
    kill(&mut second, 7000, "^1AxAnn", "AlBob", "kar98k_mp");
    kill(&mut second, 9000, "AlBob", "^1AxAnn", "thompson_mp");
    kill(&mut second, 9500, "hidden", "^1AxAnn", "thompson_mp");
    write(store, &[part(day, first, Some(MatchEnd::SessionLost))]);
    write(store, &[part(day, second.clone(), None)]);
    write(store, &[part(day, second, None)]);
    let listed = store
        .exec()
        .and_then(|db| {
            super::list(
                db,
                &MatchFilter {
                    limit: 10,
                    ..Default::default()
                },
            )
        })
        .unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!((listed[0].kills, listed[0].ended), (4, None));
    let stats = super::player(store.exec().unwrap(), "axann", 10)
        .unwrap()
        .unwrap();
    assert_eq!((stats.totals.kills, stats.totals.deaths), (2, 2));
    assert_eq!(stats.totals.matches, 1);
    assert_eq!(stats.totals.time_ms, 3000);
    assert_eq!(stats.weapons[0].what, "kar98k_mp");
    assert!(super::player(store.exec().unwrap(), "hidden", 10)
        .unwrap()
        .is_none());

    // The end: intermission with the final scoreboard.
    let mut last = Record::default();
    let (a, b) = (last.name("^1AxAnn"), last.name("AlBob"));
    last.board = Some(Board {
        t: 20_000,
        axis: 2,
        allies: 1,
        rows: vec![(a, Team::Axis, 2, 2), (b, Team::Allies, 1, 2)],
    });
    write(
        store,
        &[part(day, last.clone(), Some(MatchEnd::Intermission))],
    );
    write(store, &[part(day, last, Some(MatchEnd::SessionLost))]);
    let detail = super::detail(store.exec().unwrap(), listed[0].id)
        .unwrap()
        .unwrap();
    assert_eq!(detail.summary.ended, Some(MatchEnd::Intermission));
    assert_eq!(detail.summary.winner.as_deref(), Some("axis"));
    assert_eq!(
        (detail.summary.axis, detail.summary.allies),
        (Some(2), Some(1))
    );
    assert_eq!(detail.kill_feed.len(), 4);
    assert_eq!(detail.scoreboard[0].name, "^1AxAnn");
    assert_eq!(detail.scoreboard[0].place, Some(1));
    let ann = super::player(store.exec().unwrap(), "axann", 10)
        .unwrap()
        .unwrap();
    assert_eq!(
        (ann.totals.wins, ann.totals.losses, ann.totals.matches),
        (1, 0, 1)
    );
    assert_eq!(ann.ratings.len(), 1);
    assert!(
        ann.ratings[0].mu > 25.0 && ann.ratings[0].sigma < 25.0 / 3.0,
        "{ann:?}"
    );
    assert_eq!(ann.rating_history.len(), 1);
    assert_eq!(ann.recent[0].place, Some(1));
    let bob = super::player(store.exec().unwrap(), "albob", 10)
        .unwrap()
        .unwrap();
    assert!(bob.ratings[0].mu < 25.0);
    assert_eq!(bob.totals.losses, 1);

    let board = |gametype: Option<&str>, min_matches| super::Board {
        gametype: gametype.map(str::to_owned),
        period: super::Period::Week,
        at_ms: day,
        min_matches,
        limit: 10,
        ..Default::default()
    };
    let rows = super::leaderboard(store.exec().unwrap(), &board(Some("tdm"), 1)).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(names, ["axann", "albob"]);
    assert!(rows[0].rating.is_some());
    assert!(super::leaderboard(store.exec().unwrap(), &board(None, 2))
        .unwrap()
        .is_empty());
    let later = super::Board {
        at_ms: day + 7 * DAY_MS,
        ..board(None, 1)
    };
    assert!(super::leaderboard(store.exec().unwrap(), &later)
        .unwrap()
        .is_empty());
    let by_player = MatchFilter {
        player: Some("albob".into()),
        limit: 5,
        ..Default::default()
    };
    assert_eq!(
        super::list(store.exec().unwrap(), &by_player)
            .unwrap()
            .len(),
        1
    );

    // Matches go after their retention; the figures stay.
    assert_eq!(
        super::expire(store.exec().unwrap(), day + 2 * DAY_MS).unwrap(),
        1
    );
    let kept = super::player(store.exec().unwrap(), "axann", 10)
        .unwrap()
        .unwrap();
    assert_eq!((kept.totals.kills, kept.recent.len()), (2, 0));
    fenced(store, day + 3 * DAY_MS);
}

/// In a cluster a match's parts carry the hub lease's token: a relay that lost the hub to
/// another (a greater token written) has its late parts refused, whole; a server's fence is
/// its own.
fn fenced(store: &mut dyn Store, day: u64) {
    let under = |token: u64, t: i32, server: &str| {
        let mut record = Record::default();
        kill(&mut record, t, "Holder", "Victim", "mp40_mp");
        MatchPart {
            fence: Some(token),
            server: server.into(),
            ..part(day, record, None)
        }
    };
    assert_eq!(write(store, &[under(20, 6000, SERVER)]), 0);
    assert_eq!(write(store, &[under(25, 7000, SERVER)]), 0);
    assert_eq!(write(store, &[under(21, 8000, SERVER)]), 1, "a stale token");
    assert_eq!(write(store, &[under(1, 9000, "192.0.2.9:28960")]), 0);
    let since = MatchFilter {
        since_ms: day,
        limit: 10,
        ..Default::default()
    };
    let listed = store.exec().and_then(|db| super::list(db, &since)).unwrap();
    let kills: Vec<(String, u32)> = listed.iter().map(|m| (m.server.clone(), m.kills)).collect();
    assert_eq!(kills.len(), 2, "{kills:?}");
    assert!(kills.contains(&(SERVER.to_owned(), 2)), "{kills:?}");
}
