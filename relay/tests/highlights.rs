//! Highlights against the truth: the `muster` binary follows a lab server, and the plays it
//! reports are the lab's own kills run through the same published rule
//! (`cod::watch::highlights`): every spree and streak of a match followed from its start, none
//! the lab did not make, across a SIGKILL of the relay that loses none already found and keeps
//! none twice; each clip, read back by the project's demo reader, holds its kills.

use crate::common;
use crate::matches::{finished, stored, until_stored};

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use common::truth::lab_with_truth;
use lab::Lab;
use protocol::cod::watch::highlights::{PlayFinder, SPREE_GAP_MS};
use protocol::cod::watch::timeline::Timeline;
use protocol::relay_api::highlights::{Highlight, HighlightKind};
use protocol::relay_api::matches::{
    KillKind, MatchDetail, MatchEnd, MatchEvent, MatchKey, MatchKill, MatchStart, RosterChange,
};
use protocol::relay_api::watch::Team;
use serde_json::Value;

/// The kinds the truth tells by its kills and roster alone (a long shot also needs where both
/// stood, which the truth has unsnapped; they are checked against the relay's own record).
const BY_KILLS: [HighlightKind; 4] = [
    HighlightKind::Triple,
    HighlightKind::Quad,
    HighlightKind::Rampage,
    HighlightKind::Streak,
];

/// The kinds the match's record tells (without its roster, which a streak also needs).
const BY_RECORD: [HighlightKind; 5] = [
    HighlightKind::Triple,
    HighlightKind::Quad,
    HighlightKind::Rampage,
    HighlightKind::LongShot,
    HighlightKind::FirstBlood,
];

/// The kinds that do not hang on rounds. The lab plays `sd`, `re` and `bas` without rounds (a
/// soldier respawns, each kill scores), which is not stock's: in those its first bloods,
/// streaks and clutches are no stock match's, and the protocol's own tests check them.
const NOT_BY_ROUNDS: [HighlightKind; 4] = [
    HighlightKind::Triple,
    HighlightKind::Quad,
    HighlightKind::Rampage,
    HighlightKind::LongShot,
];

/// `kinds`, less those that hang on rounds in a round-based gametype.
fn checked(gametype: &str, kinds: &[HighlightKind]) -> Vec<HighlightKind> {
    let round_based = protocol::relay_api::matches::round_based(gametype);
    (kinds.iter().copied())
        .filter(|k| !round_based || NOT_BY_ROUNDS.contains(k))
        .collect()
}

/// How long after the lab makes a kill the spectator may first see its obituary.
const SEEN_WITHIN_MS: i32 = 500;

/// A play as compared: kind, player, and its kills' times and victims.
type Told = (HighlightKind, String, Vec<(i32, String)>);

fn told(h: &Highlight) -> Told {
    (
        h.kind,
        h.player.clone(),
        h.kills
            .iter()
            .map(|k| (k.server_time, k.victim.clone()))
            .collect(),
    )
}

/// The rule run over a match's events, each at its server time: the plays of `kinds`.
fn rule(
    gametype: &str,
    level_start: i32,
    events: Vec<(i32, MatchEvent)>,
    kinds: &[HighlightKind],
) -> BTreeSet<Told> {
    let mut finder = PlayFinder::new([]);
    finder.told(&MatchEvent::Began(MatchStart {
        key: MatchKey {
            map: String::new(),
            level_start,
        },
        gametype: gametype.to_owned(),
        hostname: String::new(),
        joined_at: level_start,
    }));
    let mut last = level_start;
    for (t, event) in events {
        finder.elapse(t);
        finder.told(&event);
        last = t;
    }
    finder.told(&MatchEvent::Ended {
        server_time: last,
        why: MatchEnd::Intermission,
    });
    std::iter::from_fn(|| finder.poll())
        .filter(|f| kinds.contains(&f.play.kind))
        .map(|f| {
            (
                f.play.kind,
                f.play.player.clone(),
                (f.play.kills.iter())
                    .map(|k| (k.server_time, k.victim.clone()))
                    .collect(),
            )
        })
        .collect()
}

/// The lab's kills from `from` to before `to`, with who came and went, as a spectator from the
/// level start would be told them.
fn truth_events(truth: &Path, from: i32, to: i32) -> Vec<(i32, MatchEvent)> {
    let team = |n: u64| if n == 1 { Team::Axis } else { Team::Allies };
    let mut present: BTreeMap<String, Team> = BTreeMap::new();
    let mut events = Vec::new();
    for line in std::fs::read_to_string(truth).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let t = v["server_time"].as_i64().unwrap() as i32;
        if t < from || t >= to {
            continue;
        }
        let soldiers: BTreeMap<u64, (String, u64)> = (v["soldiers"].as_array().unwrap().iter())
            .map(|s| {
                let name = s["name"].as_str().unwrap().to_owned();
                (
                    s["client"].as_u64().unwrap(),
                    (name, s["team"].as_u64().unwrap()),
                )
            })
            .collect();
        let now: BTreeMap<String, Team> = soldiers
            .values()
            .map(|(n, t)| (n.clone(), team(*t)))
            .collect();
        for name in present.keys().filter(|n| !now.contains_key(*n)) {
            let change = RosterChange::Left { name: name.clone() };
            events.push((
                t,
                MatchEvent::Roster {
                    server_time: t,
                    change,
                },
            ));
        }
        for (name, side) in now.iter().filter(|(n, _)| !present.contains_key(*n)) {
            let change = RosterChange::Joined {
                name: name.clone(),
                team: *side,
            };
            events.push((
                t,
                MatchEvent::Roster {
                    server_time: t,
                    change,
                },
            ));
        }
        present = now;
        for k in v["kills"].as_array().into_iter().flatten() {
            let (killer, kt) = soldiers[&k["killer"].as_u64().unwrap()].clone();
            let (victim, vt) = soldiers[&k["victim"].as_u64().unwrap()].clone();
            let kill = MatchKill {
                server_time: t,
                attacker: Some(killer),
                attacker_team: team(kt),
                victim,
                victim_team: team(vt),
                weapon: String::new(),
                kind: KillKind::Kill,
                attacker_origin: None,
                victim_origin: None,
            };
            events.push((t, MatchEvent::Kill(kill)));
        }
    }
    events
}

/// The kill times of each killer in the truth.
fn kill_times(events: &[(i32, MatchEvent)]) -> BTreeMap<String, Vec<i32>> {
    let mut times: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for (t, e) in events {
        if let MatchEvent::Kill(k) = e {
            times
                .entry(k.attacker.clone().unwrap_or_default())
                .or_default()
                .push(*t);
        }
    }
    times
}

/// Whether a play's difference from the truth is a spectator's clock: it sees a kill up to a
/// snapshot late (a frame skipped by the snapshot interval, as stock skips), so a gap of the
/// truth within that of the spree's 3 s may read the other side of it.
fn at_the_gap(times: &BTreeMap<String, Vec<i32>>, (_, player, kills): &Told) -> bool {
    let (first, last) = (kills.first().unwrap().0, kills.last().unwrap().0);
    let reach = SPREE_GAP_MS + SEEN_WITHIN_MS;
    times.get(player).is_some_and(|ts| {
        ts.windows(2).any(|w| {
            let gap = w[1] - w[0];
            (SPREE_GAP_MS - SEEN_WITHIN_MS..=reach).contains(&gap)
                && w[1] >= first - reach
                && w[0] <= last + reach
        })
    })
}

/// A play without its kills' times, which a spectator may see a snapshot late.
fn untimed((kind, player, kills): &Told) -> (HighlightKind, String, Vec<String>) {
    (
        *kind,
        player.clone(),
        kills.iter().map(|(_, v)| v.clone()).collect(),
    )
}

async fn json<T: serde::de::DeserializeOwned>(url: String) -> T {
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.json().await.unwrap()
}

async fn highlights(url: &str, query: &str) -> Vec<Highlight> {
    json(format!("{url}/api/highlights?limit=200&{query}")).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_followed_match_s_plays_are_the_lab_s_own_by_the_published_rule_across_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let truth = dir.path().join("truth.jsonl");
    let lab = Lab::start(lab::LabConfig {
        map_time: Some(Duration::from_secs(20)),
        intermission: Duration::from_secs(2),
        ..lab_with_truth(&truth)
    })
    .await
    .unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let server = lab.servers[0].addr.to_string();
    let master = lab.master.to_string();
    // A short broadcast delay: a clip is cut once the delay has released its end.
    let flags = vec![
        "--follow".to_owned(),
        server.clone(),
        "--spectate-delay".into(),
        "2".into(),
        "--data-dir".into(),
        dir.path().display().to_string(),
    ];
    let (mut relay, url) = common::serve_muster(&master, &flags).await;

    // A match followed from its level start (the first was joined in its course), finished.
    let seen = until_stored(&url, "two finished matches", |m| {
        m.iter().filter(|m| finished(m)).count() >= 2
    })
    .await;
    let whole = seen
        .iter()
        .filter(|m| finished(m))
        .max_by_key(|m| m.id)
        .unwrap()
        .clone();
    let whole: MatchDetail = json(format!("{url}/api/matches/{}", whole.id)).await;
    let next_start = {
        let later = until_stored(&url, "the next match begun", |m| {
            m.iter().any(|m| m.id > whole.summary.id && m.kills >= 3)
        })
        .await;
        let next = later
            .iter()
            .filter(|m| m.id > whole.summary.id)
            .min_by_key(|m| m.id);
        let next: MatchDetail = json(format!("{url}/api/matches/{}", next.unwrap().id)).await;
        next.level_start
    };
    // Exactly the rule over the kills the relay kept of the match, with their positions.
    let recorded: Vec<(i32, MatchEvent)> = (whole.kill_feed.iter())
        .map(|k| (k.server_time, MatchEvent::Kill(k.clone())))
        .collect();
    let gametype = &whole.summary.gametype;
    let ruled = rule(
        gametype,
        whole.level_start,
        recorded,
        &checked(gametype, &BY_RECORD),
    );
    let of_kinds = |reported: &[Highlight], kinds: &[HighlightKind]| -> BTreeSet<Told> {
        (reported.iter())
            .filter(|h| kinds.contains(&h.kind))
            .map(told)
            .collect()
    };
    // The relay keeps each play as it finds it, but the store may take a moment longer than the
    // next match's first kills: read until every play of the rule is there (or a while passed).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let reported: Vec<Highlight> = loop {
        let reported = highlights(&url, &format!("match={}", whole.summary.id)).await;
        let have = of_kinds(&reported, &checked(gametype, &BY_RECORD));
        if ruled.is_subset(&have) || tokio::time::Instant::now() > deadline {
            break reported;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let got = |kinds: &[HighlightKind]| of_kinds(&reported, kinds);
    let reported_plays = got(&checked(gametype, &BY_RECORD));
    if reported_plays != ruled {
        // What tells a lost play from a misjudged one: the plays dropped while the store was
        // behind, and every play the relay reported of the match, with its kills' distances.
        let metrics = common::body(format!("{url}/metrics")).await;
        let dropped: Vec<&str> = (metrics.lines())
            .filter(|l| l.starts_with("muster_highlights_plays_total"))
            .collect();
        panic!(
            "the rule over the match's record (level start {}): only reported {:?}, only the rule's {:?}; {dropped:?}; reported {reported:#?}; the record's kills {:#?}",
            whole.level_start,
            reported_plays.difference(&ruled).collect::<Vec<_>>(),
            ruled.difference(&reported_plays).collect::<Vec<_>>(),
            whole.kill_feed
        );
    }
    // And the lab's own: the same plays of the same kills, each seen at most a snapshot late;
    // none differs but at the spree's gap.
    let made = truth_events(&truth, whole.level_start, next_start);
    let by_kills = checked(gametype, &BY_KILLS);
    let expected = rule(gametype, whole.level_start, made.clone(), &by_kills);
    assert!(
        expected
            .iter()
            .any(|(kind, _, _)| *kind != HighlightKind::Streak),
        "the lab made no spree in a 20 s match: {expected:?}"
    );
    let times = kill_times(&made);
    let loose = |plays: &BTreeSet<Told>| -> BTreeSet<_> { plays.iter().map(untimed).collect() };
    let got_kills = got(&by_kills);
    let (expected_loose, got_loose) = (loose(&expected), loose(&got_kills));
    for play in got_kills
        .iter()
        .filter(|p| !expected_loose.contains(&untimed(p)))
    {
        assert!(
            at_the_gap(&times, play),
            "{play:?} is not the lab's: {expected:#?}"
        );
    }
    for play in expected.iter().filter(|p| !got_loose.contains(&untimed(p))) {
        assert!(
            at_the_gap(&times, play),
            "{play:?} was not reported: {got_kills:#?}"
        );
    }
    for (_, _, kills) in &got_kills {
        for (at, victim) in kills {
            let seen = |e: &MatchEvent, when: i32| {
                matches!(e, MatchEvent::Kill(k) if k.victim == *victim)
                    && (0..=SEEN_WITHIN_MS).contains(&(at - when))
            };
            let near = made.iter().any(|(when, e)| seen(e, *when));
            assert!(near, "{victim} at {at}: no such kill of the lab's");
        }
    }
    // Each is its match's, and one of them is its play of the match: the best scored.
    assert!(reported.iter().all(|h| h.match_id == Some(whole.summary.id)
        && h.server == server
        && h.map == whole.summary.map));
    let best: Vec<&Highlight> = reported.iter().filter(|h| h.play_of_the_match).collect();
    assert_eq!(best.len(), 1, "{reported:#?}");
    assert_eq!(
        best[0].score,
        reported.iter().map(|h| h.score).max().unwrap()
    );
    let only_best = highlights(&url, &format!("match={}&best=true", whole.summary.id)).await;
    assert_eq!(only_best, vec![best[0].clone()]);

    // Each clip holds its kills, read back by the project's demo reader: every play of the
    // match is cut once the delay has released 2 s past its last kill.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let reported = loop {
        let now = highlights(&url, &format!("match={}", whole.summary.id)).await;
        if now.iter().all(|h| h.moment.is_some()) {
            break now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not all clipped: {now:#?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    // `/metrics` counts them: every play kept, every clip cut.
    let samples = relay::metrics::parse_exposition(&common::body(format!("{url}/metrics")).await);
    let counted = |name: &str, outcome: &str| -> f64 {
        (samples.iter())
            .filter(|s| s.name == name && s.label("outcome") == Some(outcome))
            .map(|s| s.value)
            .sum()
    };
    assert!(counted("muster_highlights_plays_total", "kept") >= reported.len() as f64);
    assert!(counted("muster_highlights_clips_total", "clipped") >= reported.len() as f64);
    let clipped: Vec<&Highlight> = reported.iter().collect();
    for h in clipped {
        let moment = h.moment.as_ref().unwrap();
        assert_eq!(h.url.as_deref(), Some(format!("/m/{moment}").as_str()));
        let demo = reqwest::get(format!("{url}/api/moments/{moment}.dm_3"))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let timeline = Timeline::open(demo.to_vec()).unwrap();
        let in_clip: BTreeSet<(i32, String, String)> = (timeline.summary().kills.iter())
            .map(|k| {
                (
                    k.server_time,
                    k.attacker.clone().unwrap_or_default(),
                    k.victim.clone(),
                )
            })
            .collect();
        for k in &h.kills {
            assert!(
                in_clip.contains(&(k.server_time, h.player.clone(), k.victim.clone())),
                "{:?} by {} not in the clip of {} ({:?}): {in_clip:?}",
                k,
                h.player,
                h.id,
                timeline.summary()
            );
        }
        let one: Highlight = json(format!("{url}/api/highlights/{}", h.id)).await;
        assert_eq!(&one, h);
    }

    // The pages without code: the Highlights page, the match's play of the match first, the
    // player's highlights.
    let best = (reported.iter())
        .find(|h| h.play_of_the_match)
        .expect("the play of the match, clipped")
        .clone();
    let clip = format!("href=\"/m/{}\"", best.moment.as_ref().unwrap());
    let page = common::body(format!("{url}/highlights")).await;
    assert!(
        page.contains("data-testid=\"highlight\"") && page.contains(&clip),
        "{page}"
    );
    let page = common::body(format!("{url}/matches/{}", whole.summary.id)).await;
    let section = page
        .find("data-testid=\"play-of-the-match\"")
        .expect("a play of the match");
    assert!(page[section..].contains(&clip));
    assert!(
        section < page.find("data-testid=\"scoreboard\"").unwrap(),
        "it comes first"
    );
    let key = relay::store::name_key(&best.player);
    let page = common::body(format!(
        "{url}/players/{}",
        protocol::relay_api::matches::segment(&key)
    ))
    .await;
    assert!(page.contains("data-testid=\"player-highlights\"") && page.contains(&clip));

    // The relay is SIGKILLed in a match and started again on the same store: no play found
    // before is lost, none is kept twice, and none is one the lab did not make.
    let before = highlights(&url, &format!("server={server}")).await;
    relay.kill().await.unwrap();
    let (mut relay, url) = common::serve_muster(&master, &flags).await;
    let killed_in = stored(&url).await.into_iter().map(|m| m.id).max().unwrap();
    let after = until_stored(&url, "a match finished after the restart", |m| {
        m.iter().any(|m| m.id > killed_in && finished(m))
    })
    .await;
    let listed = highlights(&url, &format!("server={server}")).await;
    let ids: BTreeSet<&str> = listed.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids.len(), listed.len());
    for h in &before {
        assert!(ids.contains(h.id.as_str()), "{} lost in the SIGKILL", h.id);
    }
    let kept: BTreeSet<Told> = listed.iter().map(told).collect();
    assert_eq!(kept.len(), listed.len(), "a play kept twice: {listed:#?}");
    let mut starts: Vec<i32> = Vec::new();
    for m in &after {
        let d: MatchDetail = json(format!("{url}/api/matches/{}", m.id)).await;
        starts.push(d.level_start);
    }
    starts.sort();
    for m in after.iter().filter(|m| m.id >= killed_in && finished(m)) {
        let d: MatchDetail = json(format!("{url}/api/matches/{}", m.id)).await;
        let to = starts
            .iter()
            .copied()
            .find(|s| *s > d.level_start)
            .unwrap_or(i32::MAX);
        let events = truth_events(&truth, d.level_start, to);
        let times = kill_times(&events);
        let by_kills = checked(&m.gametype, &BY_KILLS);
        // Each killer's victims in the order the lab made them.
        let mut victims: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (_, e) in &events {
            if let MatchEvent::Kill(k) = e {
                let killer = k.attacker.clone().unwrap_or_default();
                victims.entry(killer).or_default().push(k.victim.clone());
            }
        }
        let made = rule(&m.gametype, d.level_start, events, &by_kills);
        // A spectator that joined in its course sees a run from where it joined: each play
        // told is a stretch of one the lab made; a streak, counted from the join, is a
        // stretch of its player's kills (its fifth may be the lab's sixth).
        for h in listed
            .iter()
            .filter(|h| h.match_id == Some(m.id) && by_kills.contains(&h.kind))
        {
            let (kind, player, kills) = untimed(&told(h));
            let stretch = |run: &[String]| run.windows(kills.len()).any(|w| w == kills.as_slice());
            let within = made
                .iter()
                .map(untimed)
                .any(|(_, p, run)| p == player && stretch(&run))
                || (kind == HighlightKind::Streak
                    && victims.get(&player).is_some_and(|run| stretch(run)));
            assert!(
                within || at_the_gap(&times, &told(h)),
                "{h:#?} is no run the lab made: {made:#?}"
            );
        }
    }
    relay.kill().await.unwrap();
}

/// `GET /api/highlights` refuses what it cannot read, naming the parameter.
#[tokio::test(flavor = "multi_thread")]
async fn a_bad_parameter_is_a_400_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let lab = Lab::start(common::lab_config(1, 4)).await.unwrap();
    lab.wait_registered(Duration::from_secs(30)).await.unwrap();
    let flags = vec!["--data-dir".to_owned(), dir.path().display().to_string()];
    let (mut relay, url) = common::serve_muster(&lab.master.to_string(), &flags).await;
    for (query, named) in [
        ("kind=ace", "kind:"),
        ("since=yesterday", "since:"),
        ("server=here", "server:"),
        ("limit=100000", "limit:"),
    ] {
        let response = reqwest::get(format!("{url}/api/highlights?{query}"))
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{query}");
        let refusal: protocol::relay_api::ApiError = response.json().await.unwrap();
        assert!(refusal.error.starts_with(named), "{query}: {refusal:?}");
    }
    let none = reqwest::get(format!("{url}/api/highlights/nothere"))
        .await
        .unwrap();
    assert_eq!(none.status(), 404);
    let empty: Vec<Highlight> = json(format!("{url}/api/highlights")).await;
    assert!(empty.is_empty());
    relay.kill().await.unwrap();
}
