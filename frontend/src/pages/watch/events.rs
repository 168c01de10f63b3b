//! What happens in the match, newest first: kills, chat and the server's messages.

use leptos::prelude::*;
use protocol::cod::text::strip;
use protocol::relay_api::watch::{FeedItem, MatchView};

use crate::parts::coloured::Coloured;

/// The kill feed, chat and server messages.
#[component]
pub(super) fn Events(shown: RwSignal<Option<MatchView>>) -> impl IntoView {
    let name_of = |view: &MatchView, client: Option<u8>| match client {
        None => "the world".to_owned(),
        Some(c) => view
            .players
            .iter()
            .find(|p| p.client == c)
            .map_or_else(|| format!("#{c}"), |p| p.name.clone()),
    };
    let kills = move || {
        let view = shown.get()?;
        let lines: Vec<(String, String, String)> = view
            .feed
            .iter()
            .rev()
            .filter_map(|f| match f {
                FeedItem::Kill {
                    attacker,
                    victim,
                    weapon,
                    ..
                } => Some((
                    name_of(&view, *attacker),
                    weapon
                        .trim_end_matches("_mp")
                        .trim_start_matches("MOD_")
                        .to_lowercase(),
                    name_of(&view, Some(*victim)),
                )),
                _ => None,
            })
            .take(12)
            .collect();
        Some(lines)
    };
    let chat = move || {
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
    };
    let messages = move || {
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
    };
    view! {
        <section class="killfeed" aria-label="Kill feed">
            <h3>"Kills"</h3>
            <ul>
                {move || kills().unwrap_or_default().into_iter().map(|(a, w, v)| view! {
                    <li data-testid="kill">
                        <Coloured text=a />
                        <span class="weapon">{format!(" [{w}] ")}</span>
                        <Coloured text=v />
                    </li>
                }).collect_view()}
            </ul>
        </section>
        <section class="chat" aria-label="Chat">
            <h3>"Chat"</h3>
            <ul>
                {move || chat().unwrap_or_default().into_iter().map(|(team, text)| view! {
                    <li data-testid="chat" class:team=team><Coloured text=text /></li>
                }).collect_view()}
            </ul>
        </section>
        <section class="messages" aria-label="Server messages">
            <ul>
                {move || messages().unwrap_or_default().into_iter().map(|text| view! {
                    <li data-testid="server-message">{strip(&text)}</li>
                }).collect_view()}
            </ul>
        </section>
    }
}
