//! The page's own protocol-22 traffic through the relay's bridge (`/bridge/ADDR`): Refresh now
//! asks a server for its `getinfo` and `getstatus`, Join check runs `cod::client` up to the
//! server's answer; both in the session worker, loaded only when used, so the page's first
//! download carries neither the bridge nor the wire protocol.

use leptos::prelude::*;
use protocol::relay_api::ServerInfo;
use session::{BrowserReply, Request};

use crate::net::ws_url;
use crate::worker::SessionWorker;

/// The bridge's address for `addr`.
pub fn bridge_url(addr: &str) -> String {
    ws_url(&format!("/bridge/{addr}"))
}

/// The Join check button and its answer.
#[component]
pub fn JoinCheck(addr: String, asked: Asked) -> impl IntoView {
    let Asked {
        joined,
        joining,
        worker,
        ..
    } = asked;
    let checked = addr.clone();
    let click = move |_| {
        if joining.get_untracked() {
            return;
        }
        joining.set(true);
        let addr = checked.clone();
        let request = Request::JoinCheck {
            url: bridge_url(&addr),
        };
        let started = SessionWorker::start(&request, move |reply: BrowserReply| {
            let (kind, text) = match reply {
                BrowserReply::Joined(answer) => {
                    (answer.kind().to_owned(), crate::words::say(&answer.said()))
                }
                BrowserReply::Failed(e) => ("error".into(), tr!("ask-failed", why = e)),
                BrowserReply::Refreshed(_) => return,
            };
            joined.set(Some((addr.clone(), (kind, text))));
            joining.set(false);
        });
        match started {
            // Kept until the next check: the worker closes itself once it has answered.
            Ok(started) => worker.set_value(Some(started)),
            Err(e) => {
                joined.set(Some((
                    checked.clone(),
                    ("error".into(), tr!("ask-failed", why = e)),
                )));
                joining.set(false);
            }
        }
    };
    let shown = move || joined.get().filter(|(a, _)| *a == addr).map(|(_, s)| s);
    view! {
        <button type="button" on:click=click data-testid="join-check" prop:disabled=move || joining.get()>
            {move || if joining.get() { tr!("join-checking") } else { tr!("join-check") }}
        </button>
        " "
        {move || shown().map(|(kind, text)| view! {
            <span class="join-answer" data-testid="join-answer" data-kind=kind>{text}</span>
        })}
    }
}

/// What the page asked servers itself (Refresh now, Join check), kept beside the detail view
/// so it outlives the view's re-renders.
#[derive(Clone, Copy)]
pub struct Asked {
    /// The newest record the page itself asked for.
    pub fresh: RwSignal<Option<ServerInfo>>,
    /// The server refreshed and what came of it.
    outcome: RwSignal<Option<(String, Result<String, String>)>>,
    busy: RwSignal<bool>,
    /// The server checked and its answer's kind and text.
    joined: RwSignal<Option<(String, (String, String))>>,
    joining: RwSignal<bool>,
    worker: StoredValue<Option<SessionWorker>, LocalStorage>,
    /// Refresh now's worker, beside Join check's: both may be asking at once.
    refresher: StoredValue<Option<SessionWorker>, LocalStorage>,
}

impl Asked {
    pub fn new() -> Self {
        Self {
            fresh: RwSignal::new(None),
            outcome: RwSignal::new(None),
            busy: RwSignal::new(false),
            joined: RwSignal::new(None),
            joining: RwSignal::new(false),
            worker: StoredValue::new_local(None),
            refresher: StoredValue::new_local(None),
        }
    }
}

/// The Refresh now button and what it found.
#[component]
pub fn RefreshNow(addr: String, asked: Asked) -> impl IntoView {
    let Asked {
        fresh,
        outcome,
        busy,
        refresher,
        ..
    } = asked;
    let asked = addr.clone();
    let click = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let addr = asked.clone();
        let request = Request::Refresh {
            url: bridge_url(&addr),
            addr: addr.clone(),
        };
        let answered = addr.clone();
        let started = SessionWorker::start(&request, move |reply: BrowserReply| {
            let result = match reply {
                BrowserReply::Refreshed(result) => result,
                BrowserReply::Failed(e) => Err(e),
                BrowserReply::Joined(_) => return,
            };
            let text = result.as_deref().map(summary).map_err(Clone::clone);
            outcome.set(Some((answered.clone(), text)));
            if let Ok(server) = result {
                fresh.set(Some(*server));
            }
            busy.set(false);
        });
        match started {
            // Kept until the next refresh: the worker closes itself once it has answered.
            Ok(started) => refresher.set_value(Some(started)),
            Err(e) => {
                outcome.set(Some((addr, Err(e))));
                busy.set(false);
            }
        }
    };
    let shown = move || outcome.get().filter(|(a, _)| *a == addr).map(|(_, o)| o);
    view! {
        <button type="button" on:click=click data-testid="refresh-now" prop:disabled=move || busy.get()>
            {move || if busy.get() { tr!("refresh-asking") } else { tr!("refresh-now") }}
        </button>
        " "
        {move || shown().map(|o| match o {
            Ok(text) => view! { <span class="refreshed" data-testid="refreshed">{text}</span> }.into_any(),
            Err(why) => view! {
                <span class="refresh-failed" data-testid="refresh-failed">{tr!("ask-failed", why = why)}</span>
            }.into_any(),
        })}
    }
}

fn summary(server: &ServerInfo) -> String {
    tr!(
        "refresh-answered",
        ms = server.ping_ms.unwrap_or_default(),
        map = server.map.as_str(),
        clients = server.clients,
        max = server.max_clients
    )
}
