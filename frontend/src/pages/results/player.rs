//! One name: kills, deaths, time and matches, a rating per gametype with its uncertainty and
//! its history (the chart of the gametype chosen), favourite weapons, maps and servers, recent
//! matches, and where the name was last seen.

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::matches::{played, segment, Count, PlayerStats};

use super::{fetch_json, shown_now, when, Chart};
use crate::net::fetch_text;
use crate::parts::coloured::Coloured;
use crate::parts::highlight::HighlightCard;
use crate::words::say;
use protocol::relay_api::highlights::Highlight;

#[component]
pub fn PlayerPage(name: String) -> impl IntoView {
    let stats = RwSignal::new(None::<(PlayerStats, String, Vec<Highlight>)>);
    let missing = RwSignal::new(false);
    let url = format!("/api/players/{}/stats", segment(&name));
    // Their latest highlights, as the relay's first screen lists them.
    let plays = format!("/api/highlights?player={}&limit=12", segment(&name));
    spawn_local(async move {
        match fetch_json::<PlayerStats>(&url).await {
            Some(found) => {
                // The first gametype's chart comes with the page.
                let chart = async {
                    match found.ratings.first() {
                        Some(r) => fetch_text(&rating_chart(&found.key, &r.gametype)).await,
                        None => None,
                    }
                };
                let (first, plays) = futures::join!(chart, fetch_json::<Vec<Highlight>>(&plays));
                stats.set(Some((
                    found,
                    first.unwrap_or_default(),
                    plays.unwrap_or_default(),
                )));
            }
            None => missing.set(true),
        }
        shown_now();
    });
    move || {
        if missing.get() {
            return view! { <h1>{tr!("player-missing")}</h1> }.into_any();
        }
        match stats.get() {
            Some((p, chart, plays)) => {
                view! { <Player p=p first_chart=chart plays=plays /> }.into_any()
            }
            None => ().into_any(),
        }
    }
}

fn counts(title: &'static str, counts: &[Count]) -> impl IntoView {
    let rows = counts
        .iter()
        .take(10)
        .map(|c| view! { <tr><td>{c.what.clone()}</td><td class="n">{c.count}</td></tr> })
        .collect_view();
    view! { <div><h2>{tr!(title)}</h2><table><tbody>{rows}</tbody></table></div> }
}

fn rating_chart(key: &str, gametype: &str) -> String {
    format!(
        "/api/players/{}/rating.svg?gametype={}",
        segment(key),
        segment(gametype)
    )
}

#[component]
fn Player(p: PlayerStats, first_chart: String, plays: Vec<Highlight>) -> impl IntoView {
    let t = p.totals.clone();
    let kd = format!("{:.2}", t.kills as f64 / t.deaths.max(1) as f64);
    let key = p.key.clone();
    let first = p.ratings.first().map(|r| r.gametype.clone());
    let gametype = RwSignal::new(first.clone());
    let ratings = p
        .ratings
        .iter()
        .map(|r| {
            let mode = r.gametype.clone();
            let chosen = mode.clone();
            let on = Memo::new(move |_| gametype.get().as_deref() == Some(chosen.as_str()));
            view! {
                <tr class:chosen=on>
                    <td>
                        <button
                            type="button"
                            data-testid="rating-mode"
                            aria-pressed=move || on.get().to_string()
                            on:click=move |_| gametype.set(Some(mode.clone()))
                        >
                            {r.gametype.clone()}
                        </button>
                    </td>
                    <td class="n">{format!("{:.1}", r.mu)}</td>
                    <td class="n">{format!("{:.1}", 3.0 * r.sigma)}</td>
                    <td class="n">{format!("{:.1}", r.mu - 3.0 * r.sigma)}</td>
                    <td class="n">{r.matches}</td>
                </tr>
            }
        })
        .collect_view();
    let rated = !p.ratings.is_empty();
    let chart = move || {
        gametype.get().map(|g| {
            view! {
                <figure>
                    {if Some(&g) == first.as_ref() {
                        view! { <Chart url=rating_chart(&key, &g) drawn=first_chart.clone() /> }
                    } else {
                        view! { <Chart url=rating_chart(&key, &g) /> }
                    }}
                    <figcaption class="sub">
                        {tr!("player-rating-chart", mode = g.as_str())}
                    </figcaption>
                </figure>
            }
        })
    };
    let recent = p
        .recent
        .iter()
        .map(|m| {
            let s = &m.summary;
            view! {
                <tr>
                    <td><a href=format!("/matches/{}", s.id)>{when(s.start_ms)}</a></td>
                    <td>{s.map.clone()}</td>
                    <td>{s.gametype.clone()}</td>
                    <td><Coloured text=s.hostname.clone() /></td>
                    <td>{say(&s.result())}</td>
                    <td class="n">{m.kills}</td>
                    <td class="n">{m.deaths}</td>
                    <td class="n">{m.place.map(|p| p.to_string()).unwrap_or_default()}</td>
                    <td class="sub">{say(&s.ended_text())}</td>
                </tr>
            }
        })
        .collect_view();
    let seen = match (p.last_seen_ms, p.last_server.clone()) {
        (Some(at), Some(server)) => Some(
            view! { <p class="sub">{tr!("player-last-seen", when = when(at), server = server)}</p> },
        ),
        _ => None,
    };
    view! {
        <h1><Coloured text=p.name.clone() /></h1>
        {seen}
        <table data-testid="totals">
            <tbody>
                <tr><th>{tr!("col-kills")}</th><td class="n">{t.kills}</td><th>{tr!("col-deaths")}</th><td class="n">{t.deaths}</td><th>{tr!("col-kd")}</th><td class="n">{kd}</td></tr>
                <tr><th>{tr!("col-suicides")}</th><td class="n">{t.suicides}</td><th>{tr!("col-team-kills")}</th><td class="n">{t.team_kills}</td><th>{tr!("col-time-played")}</th><td class="n">{say(&played(t.time_ms))}</td></tr>
                <tr><th>{tr!("col-matches")}</th><td class="n">{t.matches}</td><th>{tr!("col-won")}</th><td class="n">{t.wins}</td><th>{tr!("col-lost")}</th><td class="n">{t.losses}</td></tr>
            </tbody>
        </table>
        <h2>{tr!("player-ratings")}</h2>
        {if rated {
            view! {
                <table data-testid="ratings">
                    <thead><tr><th>{tr!("col-mode")}</th><th class="n">{tr!("col-rating")}</th><th class="n">"± 3σ"</th><th class="n">{tr!("col-ranked-as")}</th><th class="n">{tr!("col-rated-matches")}</th></tr></thead>
                    <tbody>{ratings}</tbody>
                </table>
                <div class="charts">{chart}</div>
            }
            .into_any()
        } else {
            view! { <p class="sub">{tr!("player-unrated")}</p> }.into_any()
        }}
        <div class="charts">
            {counts("match-weapons", &p.weapons)}
            {counts("player-maps", &p.maps)}
            {counts("nav-servers", &p.servers)}
        </div>
        {(!plays.is_empty()).then(|| view! {
            <section data-testid="player-highlights">
                <h2>{tr!("player-highlights")}</h2>
                <div class="highlights">
                    {plays.into_iter().map(|h| view! { <HighlightCard h=h /> }).collect_view()}
                </div>
            </section>
        })}
        <h2>{tr!("matches-recent")}</h2>
        <table data-testid="recent">
            <thead><tr><th>{tr!("col-when")}</th><th>{tr!("col-map")}</th><th>{tr!("col-mode")}</th><th>{tr!("col-server")}</th><th>{tr!("col-result")}</th><th class="n">{tr!("col-kills")}</th><th class="n">{tr!("col-deaths")}</th><th class="n">{tr!("col-place")}</th><th></th></tr></thead>
            <tbody>{recent}</tbody>
        </table>
    }
}
