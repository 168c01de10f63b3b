//! The players by team with their score, deaths, ping and state; a click follows one.

use leptos::prelude::*;
use protocol::relay_api::watch::{MatchView, Team, WatchPlayer, UNSCORED};

use super::map;
use crate::parts::coloured::Coloured;

fn team_title(team: Team) -> String {
    tr!(match team {
        Team::Axis => "team-axis",
        Team::Allies => "team-allies",
        Team::Free => "team-players",
        Team::Spectator => "team-spectators",
    })
}

fn state_of(p: &WatchPlayer, server_time: i32) -> String {
    if p.team == Team::Spectator {
        return tr!("state-spectating");
    }
    let age = p.seen.map(|t| server_time.wrapping_sub(t));
    match age {
        None => tr!("state-not-seen"),
        Some(_) if !p.alive => tr!("state-dead"),
        Some(a) if a > map::STALE_MS => tr!("state-seen-ago", seconds = a / 1000),
        Some(_) => tr!("state-alive"),
    }
}

/// A team's table as the board lays it out: who is in it, best first, and its score.
#[derive(Clone, PartialEq)]
struct TeamTable {
    team: Team,
    score: Option<i32>,
    clients: Vec<u8>,
}

/// The tables of the match shown, in the game's order of teams.
fn tables_of(view: &MatchView) -> Vec<TeamTable> {
    [Team::Axis, Team::Allies, Team::Free, Team::Spectator]
        .into_iter()
        .filter_map(|team| {
            let mut players: Vec<&WatchPlayer> =
                view.players.iter().filter(|p| p.team == team).collect();
            if players.is_empty() {
                return None;
            }
            players.sort_by_key(|p| (std::cmp::Reverse(p.score), p.client));
            let score = match team {
                Team::Axis => Some(view.axis_score),
                Team::Allies => Some(view.allies_score),
                _ => None,
            };
            Some(TeamTable {
                team,
                score,
                clients: players.iter().map(|p| p.client).collect(),
            })
        })
        .collect()
}

/// One player's row as written: compared before anything is redrawn, so a row whose text
/// did not change between two updates costs no change to the page.
#[derive(Clone, PartialEq)]
struct RowText {
    name: String,
    score: String,
    deaths: String,
    ping: String,
    state: String,
    x: i32,
    y: i32,
    seen: i32,
}

impl RowText {
    fn of(p: &WatchPlayer, server_time: i32) -> Self {
        // Nothing said before the scoreboard's first row for the player: a 0 there would read
        // as a real score and as a bot.
        let scored = p.ping != UNSCORED;
        let known = |n: i32| {
            if scored {
                n.to_string()
            } else {
                "—".to_owned()
            }
        };
        let ping = match p.ping {
            UNSCORED => "—".to_owned(),
            0 => tr!("ping-bot"),
            ping => ping.to_string(),
        };
        Self {
            name: p.name.clone(),
            score: known(p.score),
            deaths: known(p.deaths),
            ping,
            state: state_of(p, server_time),
            x: p.origin[0],
            y: p.origin[1],
            seen: p.seen.unwrap_or(-1),
        }
    }
}

/// The scoreboard, a table per team. The view is updated four times a second; the tables
/// and rows are keyed by team and client so an update changes only the text that changed
/// (rebuilding every row each time kept a phone's main thread busy).
#[component]
pub(super) fn Scoreboard(
    shown: RwSignal<Option<MatchView>>,
    selected: RwSignal<Option<u8>>,
) -> impl IntoView {
    let tables = Memo::new(move |_| shown.with(|v| v.as_ref().map(tables_of).unwrap_or_default()));
    view! {
        <section class="scoreboard" aria-label=tr!("scoreboard")>
            <For each=move || tables.get() key=|t| t.team let:table>
                <Table team=table.team tables=tables shown=shown selected=selected />
            </For>
        </section>
    }
}

/// One team's table.
#[component]
fn Table(
    team: Team,
    tables: Memo<Vec<TeamTable>>,
    shown: RwSignal<Option<MatchView>>,
    selected: RwSignal<Option<u8>>,
) -> impl IntoView {
    let mine = Memo::new(move |_| tables.with(|ts| ts.iter().find(|t| t.team == team).cloned()));
    let title = move || match mine.with(|t| t.as_ref().and_then(|t| t.score)) {
        Some(s) => format!("{} — {s}", team_title(team)),
        None => team_title(team),
    };
    view! {
        <h3 class=format!("team-{}", team.name())>{title}</h3>
        <table>
            <thead>
                <tr>
                    <th scope="col">{tr!("col-name")}</th>
                    <th scope="col" class="num">{tr!("col-score")}</th>
                    <th scope="col" class="num">{tr!("col-deaths")}</th>
                    <th scope="col" class="num">{tr!("col-ping")}</th>
                    <th scope="col">{tr!("col-state")}</th>
                </tr>
            </thead>
            <tbody>
                <For
                    each=move || mine.with(|t| t.as_ref().map(|t| t.clients.clone()).unwrap_or_default())
                    key=|client| *client
                    let:client
                >
                    <Row team=team client=client shown=shown selected=selected />
                </For>
            </tbody>
        </table>
    }
}

/// One player's row; a click follows them on the map.
#[component]
fn Row(
    team: Team,
    client: u8,
    shown: RwSignal<Option<MatchView>>,
    selected: RwSignal<Option<u8>>,
) -> impl IntoView {
    let text = Memo::new(move |_| {
        shown.with(|v| {
            v.as_ref().and_then(|v| {
                v.players
                    .iter()
                    .find(|p| p.client == client)
                    .map(|p| RowText::of(p, v.server_time))
            })
        })
    });
    let field = move |f: fn(&RowText) -> String| {
        move || text.with(|t| t.as_ref().map(f).unwrap_or_default())
    };
    let number =
        move |f: fn(&RowText) -> i32| move || text.with(|t| t.as_ref().map(f).unwrap_or(-1));
    // The name's coloured spans are rebuilt only when the name changes, not as the player moves.
    let name =
        Memo::new(move |_| text.with(|t| t.as_ref().map(|t| t.name.clone()).unwrap_or_default()));
    view! {
        <tr
            data-testid="watch-player"
            data-name=name
            data-team=team.name()
            data-x=number(|t| t.x)
            data-y=number(|t| t.y)
            data-seen=number(|t| t.seen)
            class:selected=move || selected.get() == Some(client)
            on:click=move |_| selected.set(Some(client))
        >
            <td>{move || view! { <Coloured text=name.get() /> }}</td>
            <td class="num">{field(|t| t.score.clone())}</td>
            <td class="num">{field(|t| t.deaths.clone())}</td>
            <td class="num">{field(|t| t.ping.clone())}</td>
            <td class="state">{field(|t| t.state.clone())}</td>
        </tr>
    }
}
