//! The selected server's recent matches, its latest highlights and this week's best, in its
//! detail; the match, highlight and player pages are a link away.

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::matches::{most_played, segment, LeaderRow, MatchSummary};

use crate::feed::Feed;
use crate::net::{fetch_text, from_json};
use crate::parts::coloured::Coloured;
use crate::parts::highlight::kind_name;
use protocol::relay_api::highlights::Highlight;

/// Matches and names shown; the server's matches page has the rest.
const SHOWN: u32 = 5;
/// Highlights shown; the Highlights page of the server has the rest.
const PLAYS: u32 = 3;

/// Outside the record's re-rendering, as the history chart is: it fetches when another server
/// is selected, or when the server's count of matches today moves (a match began), not at each
/// of the record's updates.
#[component]
pub fn ServerMatches(feed: Feed, selected: RwSignal<Option<String>>) -> impl IntoView {
    let recent = RwSignal::new(None::<Vec<MatchSummary>>);
    let board = RwSignal::new(None::<(String, Vec<LeaderRow>)>);
    let plays = RwSignal::new(None::<(String, Vec<Highlight>)>);
    let counted = Memo::new(move |_| {
        let addr = selected.get()?;
        let today = feed
            .servers
            .with(|all| all.get(&addr).map(|s| s.matches_today));
        Some((addr, today))
    });
    Effect::new(move |shown: Option<Option<String>>| {
        let addr = counted.get().map(|(addr, _)| addr);
        if shown.flatten() != addr {
            // Another server's: nothing until its own come.
            recent.set(None);
            board.set(None);
            plays.set(None);
        }
        let addr = addr?;
        let asked = addr.clone();
        spawn_local(async move {
            let server = segment(&addr);
            let url = format!("/api/matches?server={server}&limit=20");
            let Some(list) = fetch_text(&url)
                .await
                .and_then(|t| from_json::<Vec<MatchSummary>>(&t))
            else {
                return;
            };
            // An answer for a server no longer selected is dropped.
            if selected.get_untracked().as_deref() != Some(addr.as_str()) {
                return;
            }
            let gametype = most_played(&list).into_iter().next();
            recent.set(Some(list.into_iter().take(SHOWN as usize).collect()));
            let url = format!("/api/highlights?server={server}&limit={PLAYS}");
            if let Some(latest) = fetch_text(&url).await.and_then(|t| from_json(&t)) {
                if selected.get_untracked().as_deref() == Some(addr.as_str()) {
                    plays.set(Some((addr.clone(), latest)));
                }
            }
            let Some(gametype) = gametype else {
                return;
            };
            let url = format!(
                "/api/leaderboard?server={server}&gametype={}&period=week&limit={SHOWN}",
                segment(&gametype)
            );
            if let Some(rows) = fetch_text(&url).await.and_then(|t| from_json(&t)) {
                if selected.get_untracked().as_deref() == Some(addr.as_str()) {
                    board.set(Some((gametype, rows)));
                }
            }
        });
        Some(asked)
    });
    view! {
        <section class="server-matches" data-testid="server-matches">
            {move || recent.get().map(|list| if list.is_empty() {
                view! { <p class="sub">{tr!("matches-none-here")}</p> }.into_any()
            } else {
                view! {
                    <h3>{tr!("matches-recent")}</h3>
                    <ul data-testid="server-recent">
                        {list.into_iter().map(|m| view! {
                            <li>
                                <a href=format!("/matches/{}", m.id)>{format!("{} · {}", m.map, m.gametype)}</a>
                                " "
                                <span class="sub">{crate::words::say(&m.result())}" "{crate::words::say(&m.ended_text())}</span>
                            </li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            })}
            {move || plays.get().filter(|(_, list)| !list.is_empty()).map(|(addr, list)| view! {
                <h3><a href=format!("/highlights?server={addr}")>{tr!("nav-highlights")}</a></h3>
                <ul data-testid="server-highlights">
                    {list.into_iter().map(|h| {
                        let kind = kind_name(&h);
                        let href = h.url.clone().unwrap_or_else(|| format!("/highlights?server={addr}"));
                        view! {
                            <li>
                                <a href=href>{kind}</a>
                                " · "
                                <Coloured text=h.player.clone() />
                                " "
                                <span class="sub">{tr!("highlight-score", score = h.score)}</span>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            })}
            {move || board.get().filter(|(_, rows)| !rows.is_empty()).map(|(gametype, rows)| view! {
                <h3>{tr!("matches-week-best", mode = gametype)}</h3>
                <ol data-testid="server-board">
                    {rows.into_iter().map(|r| view! {
                        <li>
                            <a href=format!("/players/{}", segment(&r.key))><Coloured text=r.name /></a>
                            " "
                            <span class="sub">{r.rating.map(|g| format!("{:.1}", g.mu - 3.0 * g.sigma))}</span>
                        </li>
                    }).collect_view()}
                </ol>
            })}
        </section>
    }
}
