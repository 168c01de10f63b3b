//! One match: the scoreboard (sorted by any column), the rounds, the score over time and where
//! kills happened (SVG from the relay), who killed whom, the weapons, and the kill feed, which
//! a name in the scoreboard filters; each kill links its moment in the demo when there is one.
//! A match still followed is fetched again every few seconds until it ends.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::matches::{demo_link, moment, played, MatchDetail, MatchPlayer};

use super::{fetch_json, shown_now, when, Chart, PlayerLink};
use crate::net::{fetch_text, sleep};
use crate::parts::coloured::Coloured;
use crate::parts::highlight::{HighlightCard, HighlightClip};
use crate::words::say;
use protocol::relay_api::highlights::Highlight;

/// How often a match still followed is fetched again (the relay writes it every 5 s).
const LIVE_EVERY: Duration = Duration::from_secs(5);

/// A scoreboard column to sort by, best first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Column {
    Score,
    Kills,
    Deaths,
    Time,
}

fn sorted(mut rows: Vec<MatchPlayer>, by: Column) -> Vec<MatchPlayer> {
    match by {
        Column::Score => rows.sort_by_key(|p| std::cmp::Reverse(p.score.unwrap_or(p.kills as i32))),
        Column::Kills => rows.sort_by_key(|p| std::cmp::Reverse(p.kills)),
        Column::Deaths => rows.sort_by_key(|p| std::cmp::Reverse(p.deaths)),
        Column::Time => rows.sort_by_key(|p| std::cmp::Reverse(p.time_ms)),
    }
    rows
}

#[component]
pub fn MatchPage(id: u64) -> impl IntoView {
    let detail = RwSignal::new(None::<(MatchDetail, Charts)>);
    let missing = RwSignal::new(false);
    spawn_local(async move {
        loop {
            match fetch_json::<MatchDetail>(&format!("/api/matches/{id}")).await {
                Some(m) => {
                    let live = m.summary.ended.is_none();
                    let charts = Charts::of(&m).await;
                    detail.set(Some((m, charts)));
                    shown_now();
                    if !live {
                        return;
                    }
                }
                None if detail.with_untracked(Option::is_none) => {
                    missing.set(true);
                    shown_now();
                    return;
                }
                None => {}
            }
            sleep(LIVE_EVERY).await;
        }
    });
    move || {
        if missing.get() {
            return view! { <h1>{tr!("match-missing")}</h1> }.into_any();
        }
        match detail.get() {
            Some((m, charts)) => view! { <Match m=m charts=charts /> }.into_any(),
            None => ().into_any(),
        }
    }
}

/// A match's charts as the relay draws them, and its play of the match, fetched with its
/// record.
#[derive(Clone)]
struct Charts {
    score: (String, Option<String>),
    heat: (String, Option<String>),
    best: Vec<Highlight>,
}

impl Charts {
    async fn of(m: &MatchDetail) -> Self {
        // What the charts show changes with the kills: their URL changes with it.
        let (id, version) = (m.summary.id, m.kill_feed.len());
        let score = format!("/api/matches/{id}/score.svg?v={version}");
        let heat = format!("/api/matches/{id}/heatmap.svg?v={version}");
        let best = format!("/api/highlights?match={id}&best=true&limit=1");
        let (drawn_score, drawn_heat, best) = futures::join!(
            fetch_text(&score),
            fetch_text(&heat),
            fetch_json::<Vec<Highlight>>(&best)
        );
        Self {
            score: (score, drawn_score),
            heat: (heat, drawn_heat),
            best: best.unwrap_or_default(),
        }
    }
}

#[component]
fn Match(m: MatchDetail, charts: Charts) -> impl IntoView {
    let s = m.summary.clone();
    let live = s.ended.is_none();
    // The name whose kills and deaths alone the feed shows (chosen in the scoreboard).
    let only = RwSignal::new(None::<String>);
    let has_rounds = !m.rounds.is_empty();
    view! {
        <h1>{s.map.clone()} " · " {s.gametype.clone()} " · " <Coloured text=s.hostname.clone() /></h1>
        <p class="sub" data-testid="match-summary">
            {when(s.start_ms)} " · " {s.server.clone()} " · " {say(&s.result())} " · " {say(&s.ended_text())}
            {s.demo.clone().map(|d| view! { " · " <a data-testid="match-demo" href=demo_link(&d)>{tr!("match-demo")}</a> })}
            {live.then(|| view! { " · " <span data-testid="live">{tr!("match-live")}</span> })}
        </p>
        {(!charts.best.is_empty()).then(|| view! {
            <section data-testid="play-of-the-match">
                <h2>{tr!("play-of-the-match")}</h2>
                <div class="play-of-the-match">
                    {charts.best.clone().into_iter().map(|h| view! {
                        <HighlightClip h=h.clone() />
                        <HighlightCard h=h />
                    }).collect_view()}
                </div>
            </section>
        })}
        <h2>{tr!("scoreboard")}</h2>
        <Scoreboard board=m.scoreboard.clone() only=only />
        {has_rounds.then(|| view! {
            <h2>{tr!("match-rounds")}</h2>
            {rounds(&m)}
        })}
        <div class="charts">
            <figure>
                <Chart url=charts.score.0 drawn=charts.score.1.unwrap_or_default() />
                <figcaption class="sub">{tr!("match-score-chart")}</figcaption>
            </figure>
            <figure class="heat">
                <Chart url=charts.heat.0 drawn=charts.heat.1.unwrap_or_default() />
                <figcaption class="sub">{tr!("match-heatmap")}</figcaption>
            </figure>
        </div>
        <h2>{tr!("match-who-killed-whom")}</h2>
        {kill_matrix(&m)}
        <h2>{tr!("match-weapons")}</h2>
        <table data-testid="weapons">
            <thead><tr><th>{tr!("col-weapon")}</th><th class="n">{tr!("col-kills")}</th></tr></thead>
            <tbody>
                {m.weapons()
                    .into_iter()
                    .map(|(w, n)| view! { <tr><td>{w.to_owned()}</td><td class="n">{n}</td></tr> })
                    .collect_view()}
            </tbody>
        </table>
        <h2>{tr!("kill-feed")}</h2>
        <KillFeed m=m only=only />
    }
}

/// The scoreboard, sorted by the column last pressed; each name's "feed" button sets `only`.
#[component]
fn Scoreboard(board: Vec<MatchPlayer>, only: RwSignal<Option<String>>) -> impl IntoView {
    let by = RwSignal::new(Column::Score);
    let header = move |column: Column, label: &'static str| {
        view! {
            <th class="n">
                <button
                    type="button"
                    class="sort"
                    data-testid="sort"
                    aria-pressed=move || (by.get() == column).to_string()
                    on:click=move |_| by.set(column)
                >
                    {tr!(label)}
                </button>
            </th>
        }
    };
    let rows = move || {
        sorted(board.clone(), by.get())
            .into_iter()
            .map(|p| view! { <ScoreRow p=p only=only /> })
            .collect_view()
    };
    view! {
        <table data-testid="scoreboard">
            <thead>
                <tr>
                    <th>{tr!("col-name")}</th>
                    <th>{tr!("col-side")}</th>
                    {header(Column::Score, "col-score")}
                    {header(Column::Kills, "col-kills")}
                    {header(Column::Deaths, "col-deaths")}
                    <th class="n">{tr!("col-suicides")}</th>
                    <th class="n">{tr!("col-team-kills")}</th>
                    {header(Column::Time, "col-time")}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[component]
fn ScoreRow(p: MatchPlayer, only: RwSignal<Option<String>>) -> impl IntoView {
    let name = p.name.clone();
    let chosen = name.clone();
    let on = Memo::new(move |_| only.get().as_deref() == Some(chosen.as_str()));
    view! {
        <tr class:chosen=on>
            <td>
                <PlayerLink name=p.name.clone() />
                " "
                <button
                    type="button"
                    class="filter"
                    data-testid="feed-filter"
                    title=tr!("feed-filter-title")
                    aria-pressed=move || on.get().to_string()
                    on:click=move |_| {
                        only.update(|o| {
                            *o = if o.as_deref() == Some(name.as_str()) {
                                None
                            } else {
                                Some(name.clone())
                            }
                        })
                    }
                >
                    {tr!("feed-filter")}
                </button>
            </td>
            <td>{say(&p.team.said())}</td>
            <td class="n">{p.score.map(|v| v.to_string()).unwrap_or_default()}</td>
            <td class="n">{p.kills}</td>
            <td class="n">{p.deaths}</td>
            <td class="n">{p.suicides}</td>
            <td class="n">{p.team_kills}</td>
            <td class="n">{say(&played(p.time_ms))}</td>
        </tr>
    }
}

/// A round-based match's rounds: who won each, when, and the score after it.
fn rounds(m: &MatchDetail) -> impl IntoView {
    let rounds = m
        .rounds
        .iter()
        .map(|r| {
            view! {
                <tr>
                    <td class="n">{r.number}</td>
                    <td>{say(&r.winner.said())}</td>
                    <td class="n">{m.clock(r.server_time)}</td>
                    <td class="n">{r.axis}</td>
                    <td class="n">{r.allies}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table data-testid="rounds">
            <thead><tr><th class="n">{tr!("col-round")}</th><th>{tr!("col-won-by")}</th><th class="n">{tr!("col-at")}</th><th class="n">{tr!("team-axis")}</th><th class="n">{tr!("team-allies")}</th></tr></thead>
            <tbody>{rounds}</tbody>
        </table>
    }
}

/// Who killed whom: a row per killer, a column per victim, in the scoreboard's order.
fn kill_matrix(m: &MatchDetail) -> impl IntoView {
    let names: Vec<String> = m.scoreboard.iter().map(|p| p.name.clone()).collect();
    let counts = m.matrix();
    let head = (1..=names.len())
        .map(|i| view! { <th>{i}</th> })
        .collect_view();
    let body = names
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let cells = names
                .iter()
                .map(|v| {
                    let n = counts.get(&(a.as_str(), v.as_str())).copied().unwrap_or(0);
                    view! { <td class:z=n == 0>{n}</td> }
                })
                .collect_view();
            view! { <tr><th>{i + 1} ". " <Coloured text=a.clone() /></th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table class="matrix" data-testid="kill-matrix">
            <thead><tr><th>{tr!("matrix-corner")}</th>{head}</tr></thead>
            <tbody>{body}</tbody>
        </table>
    }
}

/// Every kill in order, or only `only`'s; each kill's time links its moment in the demo.
#[component]
fn KillFeed(m: MatchDetail, only: RwSignal<Option<String>>) -> impl IntoView {
    let demo = m.summary.demo.clone();
    let clocks: Vec<String> = m.kill_feed.iter().map(|k| m.clock(k.server_time)).collect();
    let feed_rows = m.kill_feed;
    let feed = move || {
        let only = only.get();
        feed_rows
            .iter()
            .zip(&clocks)
            .filter(|(k, _)| {
                only.as_ref()
                    .is_none_or(|n| k.victim == *n || k.attacker.as_ref() == Some(n))
            })
            .map(|(k, clock)| {
                let at = match &demo {
                    Some(demo) => view! {
                        <a
                            data-testid="kill-moment"
                            title=tr!("kill-moment-title")
                            href=moment(demo, k.server_time)
                        >
                            {clock.clone()}
                        </a>
                    }
                    .into_any(),
                    None => clock.clone().into_any(),
                };
                let kind = (k.kind != protocol::relay_api::matches::KillKind::Kill)
                    .then(|| format!(" ({})", say(&k.kind.said())));
                view! {
                    <tr>
                        <td class="n">{at}</td>
                        <td>{k.attacker.clone().map(|a| view! { <PlayerLink name=a /> })}</td>
                        <td class="sub">{k.weapon.clone()}{kind}</td>
                        <td><PlayerLink name=k.victim.clone() /></td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <p class="sub" data-testid="feed-shows">
            {move || match only.get() {
                Some(name) => view! { {tr!("feed-only-before")} <Coloured text=name /> {tr!("feed-only-after")} <button type="button" on:click=move |_| only.set(None)>{tr!("feed-show-all")}</button> }.into_any(),
                None => tr!("feed-every-kill").into_any(),
            }}
        </p>
        <table data-testid="kill-feed">
            <tbody>{feed}</tbody>
        </table>
    }
}
