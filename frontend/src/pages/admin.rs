//! The admin console (`/admin/#ADDR`): a page and wasm of its own, which the server detail's
//! Admin tab shows in a frame only when opened, so no visitor downloads it otherwise. It speaks
//! the relay's `/rcon/ADDR` socket. The password lives in this page's memory for the tab's
//! life: never stored, never in the address.

use futures::channel::mpsc;
use futures::{FutureExt, SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::cod::rcon::{StatusPing, StatusTable};
use protocol::relay_api::rcon::{RconCommand, RconReport};

use crate::net::ws_url;
use crate::parts::coloured::Coloured;

/// One command and what came of it.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    id: u32,
    command: String,
    /// `None` while the relay has not answered.
    answer: Option<Answer>,
}

#[derive(Clone, Debug, PartialEq)]
enum Answer {
    /// The server's output, as it printed it.
    Output(String),
    /// Not sent, or no answer: why, in a sentence.
    Refused(String),
}

/// The console's shared state.
#[derive(Clone, Copy)]
struct Console {
    entries: RwSignal<Vec<Entry>>,
    players: RwSignal<Option<StatusTable>>,
    /// `connecting`, `ready` or why the socket closed.
    state: RwSignal<String>,
    password: RwSignal<String>,
    next_id: StoredValue<u32>,
    outgoing: StoredValue<Option<mpsc::UnboundedSender<RconCommand>>>,
}

impl Console {
    fn send(&self, command: String) {
        let command = command.trim().to_owned();
        if command.is_empty() {
            return;
        }
        let id = self.next_id.get_value() + 1;
        self.next_id.set_value(id);
        let answer = if self.password.get_untracked().is_empty() {
            Some(Answer::Refused(tr!("admin-password-first")))
        } else {
            let sent = self.outgoing.with_value(|tx| {
                tx.as_ref().is_some_and(|tx| {
                    tx.unbounded_send(RconCommand {
                        id,
                        password: self.password.get_untracked(),
                        command: command.clone(),
                    })
                    .is_ok()
                })
            });
            (!sent).then(|| Answer::Refused(tr!("admin-not-connected")))
        };
        self.entries.update(|e| {
            e.push(Entry {
                id,
                command,
                answer,
            })
        });
    }

    fn answered(&self, id: u32, answer: Answer) {
        self.entries.update(|entries| {
            if let Some(entry) = entries.iter_mut().rev().find(|e| e.id == id) {
                if let Answer::Output(text) = &answer {
                    if entry.command.eq_ignore_ascii_case("status") {
                        self.players.set(StatusTable::parse(text));
                    }
                }
                entry.answer = Some(answer);
            }
        });
    }
}

/// The admin console's page.
#[component]
pub fn Admin() -> impl IntoView {
    let addr = window()
        .location()
        .hash()
        .unwrap_or_default()
        .trim_start_matches('#')
        .to_owned();
    let (tx, rx) = mpsc::unbounded();
    let console = Console {
        entries: RwSignal::new(Vec::new()),
        players: RwSignal::new(None),
        state: RwSignal::new("connecting".into()),
        password: RwSignal::new(String::new()),
        next_id: StoredValue::new(0),
        outgoing: StoredValue::new(Some(tx)),
    };
    spawn_local(serve(addr.clone(), rx, console));
    view! {
        <main class="admin">
            <h1>{tr!("admin-title")} " " <code data-testid="admin-server">{addr}</code></h1>
            <p class="hint">{move || match console.state.get().as_str() {
                "ready" => tr!("admin-ready"),
                "connecting" => tr!("admin-connecting"),
                why => why.to_owned(),
            }}</p>
            <label class="password">
                {tr!("rcon-password")} " "
                <input type="password" autocomplete="off" data-testid="admin-password"
                    prop:value=move || console.password.get()
                    on:input=move |ev| console.password.set(event_target_value(&ev)) />
            </label>
            <QuickActions console=console />
            <Players console=console />
            <Output console=console />
            <Prompt console=console />
        </main>
    }
}

/// The commands admins use most, one click each.
#[component]
fn QuickActions(console: Console) -> impl IntoView {
    let map = RwSignal::new(String::new());
    let say = RwSignal::new(String::new());
    view! {
        <div class="quick" data-testid="admin-quick">
            <button type="button" data-testid="admin-status" on:click=move |_| console.send("status".into())>"status"</button>
            <button type="button" on:click=move |_| console.send("map_rotate".into())>"map_rotate"</button>
            <input type="text" placeholder="mp_foy" aria-label=tr!("admin-map") size="12"
                prop:value=move || map.get() on:input=move |ev| map.set(event_target_value(&ev)) />
            <button type="button" on:click=move |_| console.send(format!("map {}", map.get_untracked()))>"map"</button>
            <input type="text" placeholder=tr!("admin-message") aria-label=tr!("admin-say") size="24"
                prop:value=move || say.get() on:input=move |ev| say.set(event_target_value(&ev)) />
            <button type="button" on:click=move |_| {
                console.send(format!("say \"{}\"", say.get_untracked().replace('"', "'")));
                say.set(String::new());
            }>"say"</button>
        </div>
    }
}

/// The players the last `status` listed, with their slots and a kick each.
#[component]
fn Players(console: Console) -> impl IntoView {
    move || {
        console.players.get().map(|table| {
            let caption = tr!("admin-players-caption", count = table.rows.len(), map = table.map.as_str());
            let rows = table
                .rows
                .into_iter()
                .map(|row| {
                    let slot = row.slot;
                    let ping = match row.ping {
                        StatusPing::Ms(ms) => ms.to_string(),
                        StatusPing::Connecting => "CNCT".into(),
                        StatusPing::Zombie => "ZMBI".into(),
                    };
                    view! {
                        <tr data-testid="admin-player" data-slot=slot>
                            <td class="num">{slot}</td>
                            <td><Coloured text=row.name /></td>
                            <td class="num">{row.score}</td>
                            <td class="num">{ping}</td>
                            <td>{row.address}</td>
                            <td><button type="button" data-testid="admin-kick" on:click=move |_| {
                                console.send(format!("clientkick {slot}"));
                                console.send("status".into());
                            }>{tr!("admin-kick")}</button></td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <table class="admin-players" data-testid="admin-players">
                    <caption>{caption}</caption>
                    <thead><tr><th>{tr!("col-slot")}</th><th>{tr!("col-name")}</th><th>{tr!("col-score")}</th><th>{tr!("col-ping")}</th><th>{tr!("col-address")}</th><th></th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
        })
    }
}

/// Every command and its output, as the game printed it.
#[component]
fn Output(console: Console) -> impl IntoView {
    view! {
        <div class="console-output" data-testid="admin-output" aria-live="polite">
            <For each=move || console.entries.get() key=|e| (e.id, e.answer.is_some()) let:entry>
                <div class="entry">
                    <div class="command">"] " {entry.command.clone()}</div>
                    {match entry.answer {
                        None => view! { <pre class="pending">"…"</pre> }.into_any(),
                        Some(Answer::Output(text)) => view! { <pre><Coloured text=text /></pre> }.into_any(),
                        Some(Answer::Refused(why)) => view! { <pre class="refused">{why}</pre> }.into_any(),
                    }}
                </div>
            </For>
        </div>
    }
}

/// The command line: Enter sends, the arrow keys walk the history.
#[component]
fn Prompt(console: Console) -> impl IntoView {
    let line = RwSignal::new(String::new());
    let history = StoredValue::new(Vec::<String>::new());
    let cursor = StoredValue::new(None::<usize>);
    let keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            let text = line.get_untracked();
            if !text.trim().is_empty() {
                history.update_value(|h| h.push(text.clone()));
                console.send(text);
            }
            cursor.set_value(None);
            line.set(String::new());
        }
        "ArrowUp" | "ArrowDown" => {
            ev.prevent_default();
            let up = ev.key() == "ArrowUp";
            let len = history.with_value(Vec::len);
            let at = match (cursor.get_value(), up) {
                (None, true) => len.checked_sub(1),
                (None, false) => None,
                (Some(i), true) => Some(i.saturating_sub(1)),
                (Some(i), false) => (i + 1 < len).then_some(i + 1),
            };
            cursor.set_value(at);
            line.set(
                at.and_then(|i| history.with_value(|h| h.get(i).cloned()))
                    .unwrap_or_default(),
            );
        }
        _ => {}
    };
    view! {
        <label class="prompt">
            "] "
            <input type="text" autocomplete="off" spellcheck="false" data-testid="admin-command"
                placeholder="status" aria-label=tr!("admin-command")
                prop:value=move || line.get()
                on:input=move |ev| line.set(event_target_value(&ev))
                on:keydown=keydown />
        </label>
    }
}

/// Owns the socket: sends the page's commands, hands back the relay's reports.
async fn serve(addr: String, mut commands: mpsc::UnboundedReceiver<RconCommand>, console: Console) {
    let socket = match WebSocket::open(&ws_url(&format!("/rcon/{addr}"))) {
        Ok(socket) => socket,
        Err(e) => {
            console
                .state
                .set(tr!("admin-not-opened", why = e.to_string()));
            return;
        }
    };
    let (mut sink, stream) = socket.split();
    let mut stream = stream.fuse();
    loop {
        futures::select! {
            command = commands.next() => {
                let Some(command) = command else { break };
                let id = command.id;
                if sink.send(Message::Text(command.encode())).await.is_err() {
                    console.answered(id, Answer::Refused(tr!("admin-closed")));
                }
            }
            message = stream.next().fuse() => {
                let Some(Ok(Message::Text(text))) = message else {
                    console.state.set(tr!("admin-closed-reload"));
                    break;
                };
                match RconReport::decode(&text) {
                    Some(RconReport::Ready { .. }) => console.state.set("ready".into()),
                    Some(RconReport::Answer { id, outcome, output, truncated, .. }) => {
                        let answer = match outcome.as_str() {
                            "output" if truncated => Answer::Output(output + "\n" + &tr!("admin-output-cut")),
                            "output" => Answer::Output(output),
                            "bad_password" => Answer::Refused(tr!("admin-bad-password")),
                            "no_password" => Answer::Refused(tr!("admin-no-password")),
                            other => Answer::Refused(other.into()),
                        };
                        console.answered(id, answer);
                    }
                    Some(RconReport::Refused { id: Some(id), reason, .. }) => {
                        console.answered(id, Answer::Refused(reason));
                    }
                    Some(RconReport::Refused { id: None, reason, .. }) => console.state.set(reason),
                    None => {}
                }
            }
        }
    }
    console.outgoing.set_value(None);
}
