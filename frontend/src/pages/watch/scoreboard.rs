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

/// The scoreboard, a table per team.
#[component]
pub(super) fn Scoreboard(
    shown: RwSignal<Option<MatchView>>,
    selected: RwSignal<Option<u8>>,
) -> impl IntoView {
    let teams = move || {
        let Some(view) = shown.get() else {
            return Vec::new();
        };
        let mut teams = Vec::new();
        for team in [Team::Axis, Team::Allies, Team::Free, Team::Spectator] {
            let mut players: Vec<WatchPlayer> = view
                .players
                .iter()
                .filter(|p| p.team == team)
                .cloned()
                .collect();
            if players.is_empty() {
                continue;
            }
            players.sort_by_key(|p| (std::cmp::Reverse(p.score), p.client));
            let score = match team {
                Team::Axis => Some(view.axis_score),
                Team::Allies => Some(view.allies_score),
                _ => None,
            };
            teams.push((team, score, players, view.server_time));
        }
        teams
    };
    view! {
        <section class="scoreboard" aria-label=tr!("scoreboard")>
            {move || {
                teams()
                    .into_iter()
                    .map(|(team, score, players, time)| {
                        let title = match score {
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
                                    {players
                                        .into_iter()
                                        .map(|p| {
                                            let client = p.client;
                                            let state = state_of(&p, time);
                                            // Nothing said before the scoreboard's first row for
                                            // the player: a 0 there would read as a real score
                                            // and as a bot.
                                            let scored = p.ping != UNSCORED;
                                            let known = |n: i32| if scored { n.to_string() } else { "—".to_owned() };
                                            let (score, deaths) = (known(p.score), known(p.deaths));
                                            let ping = match p.ping {
                                                UNSCORED => "—".to_owned(),
                                                0 => tr!("ping-bot"),
                                                ping => ping.to_string(),
                                            };
                                            view! {
                                                <tr
                                                    data-testid="watch-player"
                                                    data-name=p.name.clone()
                                                    data-team=team.name()
                                                    data-x=p.origin[0]
                                                    data-y=p.origin[1]
                                                    data-seen=p.seen.unwrap_or(-1)
                                                    class:selected=move || selected.get() == Some(client)
                                                    on:click=move |_| selected.set(Some(client))
                                                >
                                                    <td><Coloured text=p.name.clone() /></td>
                                                    <td class="num">{score}</td>
                                                    <td class="num">{deaths}</td>
                                                    <td class="num">{ping}</td>
                                                    <td class="state">{state}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        }
                    })
                    .collect_view()
            }}
        </section>
    }
}
