//! What happens in the match, newest first: kills (each with "replay" while the relay's
//! rewind window holds it), chat and the server's messages.

use leptos::prelude::*;
use protocol::cod::text::strip;
use protocol::relay_api::watch::{FeedItem, MatchView};

use super::rewind::{Rewinder, KILL_LEAD_US};
use crate::parts::coloured::Coloured;

/// One kill in the feed: its time, killer and victim, and how they read.
#[derive(Clone, PartialEq)]
struct KillLine {
    time: i32,
    by: Option<u8>,
    victim: u8,
    attacker_name: String,
    weapon: String,
    victim_name: String,
}

/// The kill feed, chat and server messages.
#[component]
pub(super) fn Events(
    shown: RwSignal<Option<MatchView>>,
    selected: RwSignal<Option<u8>>,
    /// The other player a replay highlights: its victim.
    marked: RwSignal<Option<(Option<u8>, u8)>>,
    rewinder: Option<Rewinder>,
) -> impl IntoView {
    let name_of = |view: &MatchView, client: Option<u8>| match client {
        None => tr!("the-world"),
        Some(c) => view
            .players
            .iter()
            .find(|p| p.client == c)
            .map_or_else(|| format!("#{c}"), |p| p.name.clone()),
    };
    // The view is refreshed four times a second with every position; the lists below change
    // only with a kill or a line of chat, and are redrawn only then (each a memo).
    let kills = Memo::new(move |_| {
        let view = shown.get()?;
        let lines: Vec<KillLine> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Kill {
                    time,
                    attacker,
                    victim,
                    weapon,
                } => Some(KillLine {
                    time: *time,
                    by: *attacker,
                    victim: *victim,
                    attacker_name: name_of(&view, *attacker),
                    weapon: weapon
                        .trim_end_matches("_mp")
                        .trim_start_matches("MOD_")
                        .to_lowercase(),
                    victim_name: name_of(&view, Some(*victim)),
                }),
                _ => None,
            })
            .take(12)
            .collect();
        Some(lines)
    });
    let chat = Memo::new(move |_| {
        let view = shown.get()?;
        let lines: Vec<(bool, String)> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Chat { text, team, .. } => Some((*team, text.clone())),
                _ => None,
            })
            .take(12)
            .collect();
        Some(lines)
    });
    let messages = Memo::new(move |_| {
        let view = shown.get()?;
        let lines: Vec<String> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Message { text, .. } => Some(text.clone()),
                _ => None,
            })
            .take(6)
            .collect();
        Some(lines)
    });
    view! {
        <section class="killfeed" aria-label=tr!("kill-feed")>
            <h3>{tr!("kills")}</h3>
            <ul>
                {move || kills.get().unwrap_or_default().into_iter().map(|k| {
                    let KillLine { time, by, victim, attacker_name: a, weapon: w, victim_name: v } = k;
                    // Replays from 3 s before the kill, following its killer, its victim
                    // marked too.
                    let replay = rewinder
                        .filter(|r| r.window.with(|_| r.kill_moment(time).is_some()))
                        .map(|r| view! {
                            " "
                            <button
                                type="button"
                                class="replay"
                                data-testid="kill-replay"
                                on:click=move |_| {
                                    if let Some(at) = r.kill_moment(time) {
                                        selected.set(by);
                                        marked.set(Some((by, victim)));
                                        r.seek(at.saturating_sub(KILL_LEAD_US), 100);
                                    }
                                }
                            >
                                {tr!("replay")}
                            </button>
                        });
                    view! {
                        <li data-testid="kill">
                            <Coloured text=a />
                            <span class="weapon">{format!(" [{w}] ")}</span>
                            <Coloured text=v />
                            {replay}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
        <section class="chat" aria-label=tr!("chat")>
            <h3>{tr!("chat")}</h3>
            <ul>
                {move || chat.get().unwrap_or_default().into_iter().map(|(team, text)| view! {
                    <li data-testid="chat" class:team=team><Coloured text=text /></li>
                }).collect_view()}
            </ul>
        </section>
        <section class="messages" aria-label=tr!("server-messages")>
            <ul>
                {move || messages.get().unwrap_or_default().into_iter().map(|text| view! {
                    <li data-testid="server-message">{strip(&text)}</li>
                }).collect_view()}
            </ul>
        </section>
    }
}
