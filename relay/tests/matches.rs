//! Matches told against the truth: a lab match, followed by a spectator session across a map
//! change and recorded, is told by `cod::watch::match_log` from exactly what the session heard
//! (the demo reads back to it: `demo.rs`), and its account must be the lab's own: every kill the
//! lab made while watched, with its killer and victim, and none it did not; the roster; each
//! map its own match, finished at its intermission with its final scoreboard.

use crate::common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::truth::{lab_with_truth, recorded_session, soldiers, true_kills};
use lab::Lab;
use protocol::cod::client::Event;
use protocol::cod::demo::{Playback, Records};
use protocol::cod::stream::Heard;
use protocol::cod::watch::match_log::MatchLog;
use protocol::relay_api::matches::{KillKind, MatchEnd, MatchEvent, MatchKill, RosterChange};

/// How long after the lab makes a kill the spectator may first see its obituary.
const SEEN_WITHIN_MS: i32 = 500;

#[tokio::test(flavor = "multi_thread")]
async fn a_followed_lab_match_is_told_kill_for_kill_as_the_lab_made_it() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab::LabConfig {
        map_time: Some(Duration::from_secs(5)),
        intermission: Duration::from_secs(2),
        ..lab_with_truth(&truth)
    })
    .await
    .unwrap();
    // Two maps of 5 s, each with 2 s of intermission, and 2 s of a third.
    let options = recorded_session(dir.path(), 16);
    let recorder =
        relay::cli::spectate::spectate(SocketAddr::V4(lab.servers[0].addr), options, |_| Ok(()))
            .await
            .unwrap()
            .unwrap();

    // The session, as recorded (a file per map, as a stock client records), through one log.
    let mut log = MatchLog::new();
    let mut first = None;
    let mut last = 0;
    let files: Vec<Vec<u8>> = recorder
        .written()
        .iter()
        .map(|w| std::fs::read(&w.path).unwrap())
        .collect();
    for record in files.iter().flat_map(|file| {
        let mut playback = Playback::new();
        Records::new(file)
            .map(move |record| playback.read(&record.unwrap()).unwrap())
            .collect::<Vec<_>>()
    }) {
        for heard in record {
            if let Heard::Said(said) = heard {
                let event = Event::from(said);
                if let Event::Snapshot(s) = &event {
                    first.get_or_insert(s.server_time);
                    last = s.server_time;
                }
                log.handle(&event);
            }
        }
    }
    log.session_ended();
    let told: Vec<MatchEvent> = std::iter::from_fn(|| log.poll_event()).collect();
    let first = first.expect("snapshots");

    // Each map its own match: began, finished at its intermission, the next began; the last
    // is unfinished when the session ends.
    let began: Vec<_> = told
        .iter()
        .filter_map(|e| match e {
            MatchEvent::Began(s) => Some(s.key.clone()),
            _ => None,
        })
        .collect();
    let ended: Vec<MatchEnd> = told
        .iter()
        .filter_map(|e| match e {
            MatchEvent::Ended { why, .. } => Some(*why),
            _ => None,
        })
        .collect();
    assert_eq!(began.len(), 3, "{began:?}");
    assert_eq!(
        ended,
        [
            MatchEnd::Intermission,
            MatchEnd::Intermission,
            MatchEnd::SessionLost
        ]
    );
    assert!(began.windows(2).all(|w| w[0] != w[1]), "{began:?}");

    // The scoreboard: in a match watched from its level start (after a map change), each
    // player's score is the kills the lab made for them in it (a bot's kill scores one), up to
    // the scoreboard, which may hold kills of frames after the last snapshot before it.
    let made = true_kills(&truth);
    let mut level_start = None;
    let (mut checked, mut finals) = (0, 0);
    let mut final_scores: Option<protocol::relay_api::matches::MatchScores> = None;
    // The first match was joined mid-level (its scores hold kills from before): only those
    // that began after a map change count.
    let mut changed = false;
    for e in &told {
        match e {
            MatchEvent::Began(start) if changed => level_start = Some(start.key.level_start),
            MatchEvent::Began(_) => {}
            // At intermission play stands still: the final scoreboard is exact.
            MatchEvent::Ended {
                why: MatchEnd::Intermission,
                server_time,
            } => {
                if let (Some(from), Some(scores)) = (level_start, final_scores.take()) {
                    for row in &scores.players {
                        let made = made
                            .range(from..=*server_time)
                            .flat_map(|(_, pairs)| pairs)
                            .filter(|(killer, _)| *killer == row.name)
                            .count() as i32;
                        assert_eq!(row.score, made, "{row:?} at the intermission");
                        finals += 1;
                    }
                }
                level_start = None;
                changed = true;
            }
            MatchEvent::Ended { .. } => {
                level_start = None;
                changed = true;
            }
            MatchEvent::Scores(scores) => {
                final_scores = Some(scores.clone());
                let Some(from) = level_start else { continue };
                for row in &scores.players {
                    let by = |until: i32| {
                        made.range(from..=until)
                            .flat_map(|(_, pairs)| pairs)
                            .filter(|(killer, _)| *killer == row.name)
                            .count() as i32
                    };
                    let (least, most) = (by(scores.server_time), by(scores.server_time + 1000));
                    assert!(
                        (least..=most).contains(&row.score),
                        "{row:?}: the lab made {least} to {most} kills"
                    );
                    checked += 1;
                }
            }
            _ => {}
        }
    }
    assert!(checked > 0, "no scoreboard of a match seen from its start");
    assert!(
        finals > 0,
        "no final scoreboard of a match seen from its start"
    );

    // Kill for kill: each told kill is one the lab made just before, each used once, and every
    // kill the lab made while the session watched (away from the edges) is told.
    let mut made = made;
    let kills: Vec<&MatchKill> = told
        .iter()
        .filter_map(|e| match e {
            MatchEvent::Kill(k) => Some(k),
            _ => None,
        })
        .collect();
    assert!(kills.len() >= 3, "{kills:?}");
    for k in &kills {
        assert_eq!(
            k.kind,
            KillKind::Kill,
            "the lab's bots only kill opponents: {k:?}"
        );
        let pair = (k.attacker.clone().unwrap(), k.victim.clone());
        let at = made
            .range(k.server_time - SEEN_WITHIN_MS..=k.server_time)
            .find(|(_, pairs)| pairs.contains(&pair))
            .map(|(t, _)| *t)
            .unwrap_or_else(|| panic!("{k:?} is not a kill the lab made"));
        let pairs = made.get_mut(&at).unwrap();
        let i = pairs.iter().position(|p| *p == pair).unwrap();
        pairs.remove(i);
    }
    let missed: Vec<_> = made
        .range(first + SEEN_WITHIN_MS..last - SEEN_WITHIN_MS)
        .filter(|(_, pairs)| !pairs.is_empty())
        .collect();
    assert_eq!(
        missed,
        [] as [(&i32, &Vec<(String, String)>); 0],
        "kills never told"
    );

    // Who played: the lab's soldiers joined the first match.
    let joined: std::collections::BTreeSet<String> = told
        .iter()
        .take_while(|e| !matches!(e, MatchEvent::Ended { .. }))
        .filter_map(|e| match e {
            MatchEvent::Roster {
                change: RosterChange::Joined { name, .. },
                ..
            } => Some(name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(joined, soldiers(&truth));
}

/// The relay's match records (`GET /api/matches`, newest first).
pub(crate) async fn stored(url: &str) -> Vec<protocol::relay_api::matches::MatchSummary> {
    reqwest::get(format!("{url}/api/matches?limit=100"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn detail(url: &str, id: u64) -> protocol::relay_api::matches::MatchDetail {
    reqwest::get(format!("{url}/api/matches/{id}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Polls the relay's records until `done` holds of them.
pub(crate) async fn until_stored(
    url: &str,
    what: &str,
    done: impl Fn(&[protocol::relay_api::matches::MatchSummary]) -> bool,
) -> Vec<protocol::relay_api::matches::MatchSummary> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let found = stored(url).await;
        if done(&found) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: never; the records: {found:#?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

pub(crate) fn finished(m: &protocol::relay_api::matches::MatchSummary) -> bool {
    m.ended == Some(MatchEnd::Intermission)
}

/// The `muster` binary follows a lab server (`--follow`, nobody watching) and keeps each match:
/// a match followed from its start has exactly the lab's kills, killer by victim, and its final
/// scoreboard; a match the relay was SIGKILLed in and restarted during is one record, finished,
/// with no kill twice and none the lab did not make.
async fn followed_matches_are_kept_exact_across_a_sigkill(store: Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab::LabConfig {
        map_time: Some(Duration::from_secs(8)),
        intermission: Duration::from_secs(2),
        ..lab_with_truth(&truth)
    })
    .await
    .unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let master = lab.master.to_string();
    let mut flags = vec!["--follow".to_owned(), server.clone()];
    flags.extend(store.iter().cloned());
    let (mut relay, url) = common::serve_muster(&master, &flags).await;

    // A match followed from its level start (any finished after the first record, which may
    // have been joined midway) with three kills or more (the lab's 8 s maps, slowed on a busy
    // machine, may make fewer), then the relay is killed in the next.
    let whole_one = |m: &[protocol::relay_api::matches::MatchSummary]| {
        let first = m.iter().map(|m| m.id).min();
        (m.iter())
            .filter(|m| finished(m) && Some(m.id) != first && m.kills >= 3)
            .min_by_key(|m| m.id)
            .cloned()
    };
    let seen = until_stored(&url, "a whole match with three kills", |m| {
        whole_one(m).is_some()
    })
    .await;
    let whole = whole_one(&seen).unwrap();
    let before: Vec<u64> = seen.iter().map(|m| m.id).collect();
    let running = until_stored(&url, "the next match written", |m| {
        m.iter()
            .any(|m| !before.contains(&m.id) && m.ended.is_none() && m.kills >= 2)
    })
    .await;
    let killed_in = running
        .iter()
        .find(|m| !before.contains(&m.id))
        .unwrap()
        .clone();
    relay.kill().await.unwrap();
    let (mut relay, url) = common::serve_muster(&master, &flags).await;
    let after = until_stored(&url, "the killed match finished", |m| {
        m.iter().any(|m| m.id == killed_in.id && finished(m))
    })
    .await;
    // One record of it: no other record of the same map and level start.
    let killed = detail(&url, killed_in.id).await;
    let twins = after
        .iter()
        .filter(|m| {
            m.map == killed.summary.map && m.start_ms.abs_diff(killed.summary.start_ms) < 2_000
        })
        .count();
    assert_eq!(twins, 1, "{after:#?}");

    // Kill for kill against the lab, per match: the lab's kills between its level start and the
    // next match's.
    let made = true_kills(&truth);
    let starts: Vec<i32> = {
        let mut starts = Vec::new();
        for m in &after {
            starts.push(detail(&url, m.id).await.level_start);
        }
        starts.sort();
        starts
    };
    let window = |level_start: i32| {
        let end = starts
            .iter()
            .copied()
            .find(|s| *s > level_start)
            .unwrap_or(i32::MAX);
        let mut pairs: BTreeMap<(String, String), u32> = BTreeMap::new();
        for (_, kills) in made.range(level_start..end) {
            for pair in kills {
                *pairs.entry(pair.clone()).or_default() += 1;
            }
        }
        pairs
    };
    let told = |d: &protocol::relay_api::matches::MatchDetail| {
        let mut pairs: BTreeMap<(String, String), u32> = BTreeMap::new();
        for k in &d.kill_feed {
            *pairs
                .entry((k.attacker.clone().unwrap_or_default(), k.victim.clone()))
                .or_default() += 1;
        }
        pairs
    };
    let whole = detail(&url, whole.id).await;
    let truth_whole = window(whole.level_start);
    assert!(truth_whole.values().sum::<u32>() >= 3, "{truth_whole:?}");
    assert_eq!(told(&whole), truth_whole, "a match followed from its start");
    for p in &whole.scoreboard {
        let made: u32 = truth_whole
            .iter()
            .filter(|((killer, _), _)| *killer == p.name)
            .map(|(_, n)| n)
            .sum();
        assert_eq!(p.score, Some(made as i32), "{p:?}: the final scoreboard");
    }
    // Across the kill: every kill stored is one the lab made in the match, none twice.
    let truth_killed = window(killed.level_start);
    for (pair, n) in told(&killed) {
        let most = truth_killed.get(&pair).copied().unwrap_or(0);
        assert!(n <= most, "{pair:?} stored {n} times, the lab made {most}");
    }
    assert!(killed.kill_feed.len() >= 2);

    // Each name's figures hold the whole match's kills; the leaderboard ranks them.
    let best = &whole.scoreboard[0];
    let stats: protocol::relay_api::matches::PlayerStats =
        reqwest::get(format!("{url}/api/players/{}/stats", best.name))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert!(stats.totals.kills >= u64::from(best.kills), "{stats:?}");
    assert!(
        stats.totals.matches >= 2 && !stats.ratings.is_empty(),
        "{stats:?}"
    );
    assert!(stats
        .recent
        .iter()
        .any(|m| m.summary.id == whole.summary.id));
    let board: Vec<protocol::relay_api::matches::LeaderRow> = reqwest::get(format!(
        "{url}/api/leaderboard?period=week&min=1&gametype={}",
        whole.summary.gametype
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(board.len(), 10, "{board:?}");
    assert!(board.iter().all(|r| r.rating.is_some()));
    let bad = reqwest::get(format!("{url}/api/leaderboard?period=decade"))
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    // The matches page's board: the month's, of the gametype asked, with the other choices
    // linked.
    let gametype = &whole.summary.gametype;
    let page = common::body(format!("{url}/matches?period=month&gametype={gametype}")).await;
    assert!(
        page.contains(&format!("This month's best at {gametype}")),
        "{page}"
    );
    for link in [
        format!("/matches?gametype={gametype}&amp;period=week"),
        format!("/matches?gametype={gametype}&amp;period=all"),
    ] {
        assert!(
            page.contains(&format!("href=\"{link}\"")),
            "{link} not on {page}"
        );
    }
    let bad = reqwest::get(format!("{url}/matches?period=decade"))
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    relay.kill().await.unwrap();

    // The same from the command line, off the store the relay left.
    let with_store = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(store.iter().map(String::as_str));
        let output = common::run_muster(&all, "");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let listed: Vec<protocol::relay_api::matches::MatchSummary> =
        serde_json::from_str(&with_store(&["matches", "--json", "--limit", "100"])).unwrap();
    assert!(listed.iter().any(|m| m.id == killed_in.id && finished(m)));
    let one = with_store(&["matches", &whole.summary.id.to_string()]);
    assert!(
        one.contains("finished") && one.contains(&whole.summary.map),
        "{one}"
    );
    let cli: protocol::relay_api::matches::PlayerStats =
        serde_json::from_str(&with_store(&["stats", &best.name, "--json"])).unwrap();
    assert_eq!(cli.totals, stats.totals);
    let text = with_store(&["leaderboard", "--min-matches", "1"]);
    assert!(text.contains("1. "), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn followed_matches_are_kept_exact_across_a_sigkill_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    followed_matches_are_kept_exact_across_a_sigkill(vec![
        "--data-dir".into(),
        dir.path().display().to_string(),
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: `cargo xtask test` starts one and sets MUSTER_TEST_POSTGRES"]
async fn followed_matches_are_kept_exact_across_a_sigkill_on_postgres() {
    let url = relay::store::postgres_database();
    followed_matches_are_kept_exact_across_a_sigkill(vec!["--database".into(), url]).await;
}

/// `--follow-busy 1 --follow-max 1` on a fleet of four: exactly one server is followed, one
/// the relay may join (not passworded without its password, a slot left free), and its
/// matches are kept.
#[tokio::test(flavor = "multi_thread")]
async fn the_busiest_server_is_followed_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(6),
        map_time: Some(Duration::from_secs(4)),
        intermission: Duration::from_secs(1),
        ..common::lab_config(4, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let mut config = common::spectating_config(&lab, Default::default());
    config.poller.refresh_interval = Duration::from_secs(1);
    config.history = Some(common::sqlite_history(dir.path()));
    config.matches = relay::matches::MatchesConfig {
        busy: Some(1),
        busy_max: 1,
        ..Default::default()
    };
    let relay = relay::Relay::start(config).await.unwrap();
    let url = format!("http://{}", relay.addrs[0]);
    let kept = until_stored(&url, "a followed match", |m| m.iter().any(|m| m.kills > 0)).await;
    let servers: std::collections::BTreeSet<&str> =
        kept.iter().map(|m| m.server.as_str()).collect();
    assert_eq!(servers.len(), 1, "{kept:#?}");
    let followed = *servers.iter().next().unwrap();
    let listed: Vec<protocol::relay_api::ServerInfo> = reqwest::get(format!("{url}/api/servers"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let info = listed.iter().find(|s| s.addr == followed).unwrap();
    assert!(
        !info.password,
        "followed a passworded server without its password"
    );
    assert!(
        info.clients < info.max_clients,
        "took the last slot: {info:?}"
    );
    let hubs: Vec<serde_json::Value> = reqwest::get(format!("{url}/api/spectate"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(hubs.len(), 1, "{hubs:#?}");
}

/// `--follow-record`: each followed match is recorded, its record names its demo, and every
/// kill's moment link (`/playback/#/demo/FILE?t=SERVER_TIME`) names a kill the demo itself
/// holds at that server time, with the same killer and victim.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_match_links_its_demo_and_each_kill_its_moment() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(lab::LabConfig {
        players: Some(8),
        map_time: Some(Duration::from_secs(6)),
        intermission: Duration::from_secs(1),
        ..common::lab_config(1, 10)
    })
    .await
    .unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let demos = dir.path().join("demos");
    let password = dir.path().join("password");
    std::fs::write(&password, "lab").unwrap();
    let flags: Vec<String> = [
        "--follow",
        &server,
        "--follow-record",
        "--record-dir",
        &demos.display().to_string(),
        "--server-password",
        &format!("{server}={}", password.display()),
        "--data-dir",
        &dir.path().display().to_string(),
    ]
    .map(str::to_owned)
    .to_vec();
    let (mut relay, url) = common::serve_muster(&lab.master.to_string(), &flags).await;
    let listed: std::collections::BTreeSet<String> = {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
        loop {
            let served: protocol::relay_api::demos::DemoListing =
                reqwest::get(format!("{url}/api/demos"))
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
            let names: std::collections::BTreeSet<String> =
                served.demos.into_iter().map(|d| d.name).collect();
            let kept = stored(&url).await;
            let linked = kept.iter().any(|m| {
                finished(m) && m.kills > 0 && m.demo.as_ref().is_some_and(|d| names.contains(d))
            });
            if linked {
                break names;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no finished match linked a finished demo: {kept:#?} {names:?}"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let kept = stored(&url).await;
    let m = kept
        .iter()
        .find(|m| finished(m) && m.kills > 0 && m.demo.as_ref().is_some_and(|d| listed.contains(d)))
        .unwrap();
    let demo = m.demo.clone().unwrap();
    let whole = detail(&url, m.id).await;
    let bytes = reqwest::get(format!("{url}/demos/{demo}"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let timeline = protocol::cod::watch::timeline::Timeline::open(bytes.to_vec()).unwrap();
    let in_demo = &timeline.summary().kills;
    let page = common::body(format!("{url}/matches/{}", m.id)).await;
    assert!(
        page.contains(&format!("href=\"/playback/#/demo/{demo}\"")),
        "{page}"
    );
    for k in &whole.kill_feed {
        let link = protocol::relay_api::matches::moment(&demo, k.server_time);
        assert!(
            page.contains(&format!("href=\"{link}\"")),
            "{link} not on {page}"
        );
        let found = in_demo
            .iter()
            .find(|d| d.server_time == k.server_time && d.victim == k.victim);
        assert!(
            found.is_some_and(|d| d.attacker == k.attacker),
            "the demo holds no kill of {k:?}: {in_demo:#?}"
        );
    }
    relay.kill().await.unwrap();
}
