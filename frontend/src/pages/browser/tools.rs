//! Find player, the watch list, and the toasts a watched name raises.

use leptos::prelude::*;
use protocol::browse::find_player;
use protocol::cod::text::strip;

use crate::feed::Feed;
use crate::parts::coloured::Coloured;
use crate::personal::{ask_for_notifications, notifications_allowed, Personal};

/// Players whose names contain the text, on every server, each a link to its server.
#[component]
pub fn FindPlayer(
    feed: Feed,
    selected: RwSignal<Option<String>>,
    /// What was typed before the panels came.
    typed: String,
) -> impl IntoView {
    let text = RwSignal::new(typed);
    let results = move || {
        feed.servers
            .with(|all| find_player(all.values(), &text.get()))
    };
    let hostname = move |addr: &str| {
        feed.servers.with(|all| {
            all.get(addr)
                .map(|s| strip(&s.hostname))
                .unwrap_or_default()
        })
    };
    view! {
        <section class="tool" aria-labelledby="find-player-title">
            <h2 id="find-player-title">{tr!("find-player")}</h2>
            <input
                id="find-player"
                type="search"
                placeholder=tr!("find-player-placeholder")
                autocomplete="off"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
            <ul class="found" data-testid="found">
                {move || {
                    results()
                        .into_iter()
                        .take(50)
                        .map(|s| {
                            let addr = s.addr.clone();
                            let where_ = hostname(&addr);
                            view! {
                                <li data-testid="found-player" data-addr=s.addr.clone()>
                                    <button type="button" on:click=move |_| selected.set(Some(addr.clone()))>
                                        <Coloured text=s.name />
                                    </button>
                                    {tr!("found-on")}
                                    {where_}
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            <crate::pages::browser::history::SeenBefore text=text selected=selected />
        </section>
    }
}

/// The names a player watches; where each is now; and the notification permission button.
#[component]
pub fn WatchList(
    feed: Feed,
    personal: Personal,
    selected: RwSignal<Option<String>>,
    /// What was typed before the panels came.
    typed: String,
) -> impl IntoView {
    let entry = RwSignal::new(typed);
    let allowed = RwSignal::new(notifications_allowed());
    let add = move || {
        personal.add_watch(&entry.get_untracked());
        entry.set(String::new());
    };
    view! {
        <section class="tool" aria-labelledby="watch-title">
            <h2 id="watch-title">{tr!("watch-list")}</h2>
            <form on:submit=move |ev| {
                ev.prevent_default();
                add();
            }>
                <input
                    id="watch-name"
                    type="text"
                    placeholder=tr!("watch-list-placeholder")
                    prop:value=move || entry.get()
                    on:input=move |ev| entry.set(event_target_value(&ev))
                />
                <button type="submit">{tr!("watch")}</button>
            </form>
            <Show when=move || !allowed.get()>
                <button
                    type="button"
                    class="ask"
                    on:click=move |_| {
                        ask_for_notifications();
                        allowed.set(notifications_allowed());
                    }
                >
                    {tr!("notify-me")}
                </button>
            </Show>
            <ul class="watched" data-testid="watched">
                {move || {
                    personal
                        .watch
                        .get()
                        .into_iter()
                        .map(|name| {
                            let online = feed
                                .servers
                                .with(|all| find_player(all.values(), &name))
                                .into_iter()
                                .next();
                            let remove = name.clone();
                            view! {
                                <li>
                                    <strong>{name.clone()}</strong>
                                    {match online {
                                        Some(s) => {
                                            let addr = s.addr.clone();
                                            view! {
                                                {tr!("watch-list-playing-on")}
                                                <button type="button" on:click=move |_| selected.set(Some(addr.clone()))>
                                                    {s.addr.clone()}
                                                </button>
                                            }
                                                .into_any()
                                        }
                                        None => view! { {tr!("watch-list-offline")} }.into_any(),
                                    }}
                                    <button
                                        type="button"
                                        class="remove"
                                        aria-label=tr!("watch-list-stop", name = name.as_str())
                                        on:click=move |_| personal.remove_watch(&remove)
                                    >
                                        "×"
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </section>
    }
}

/// In-page alerts: a watched name appeared; each links to its server.
#[component]
pub fn Toasts(personal: Personal, selected: RwSignal<Option<String>>) -> impl IntoView {
    view! {
        <div class="toasts" role="status" aria-live="polite">
            <For each=move || personal.toasts.get() key=|t| t.id let:toast>
                {
                    let id = toast.id;
                    let addr = toast.addr.clone();
                    view! {
                        <div class="toast" data-testid="toast">
                            <strong>{toast.name.clone()}</strong>
                            {tr!("toast-joined")}
                            <button type="button" on:click=move |_| selected.set(Some(addr.clone()))>
                                {toast.hostname.clone()}
                            </button>
                            <button
                                type="button"
                                class="remove"
                                aria-label=tr!("dismiss")
                                on:click=move |_| personal.toasts.update(|t| t.retain(|x| x.id != id))
                            >
                                "×"
                            </button>
                        </div>
                    }
                }
            </For>
        </div>
    }
}
