//! The page's own protocol-22 traffic through the relay's bridge (`/bridge/ADDR`): Refresh now
//! asks a server for its `getinfo` and `getstatus` from this wasm; Join check runs
//! `cod::client` up to the server's answer in the session worker, loaded only when used.

use std::time::Duration;

use futures::FutureExt;
use leptos::prelude::*;
use protocol::cod::oob::Packet;
use protocol::relay_api::ServerInfo;
use session::{now_ms, sleep, Reply, Request, Session};

use crate::net::ws_url;
use crate::worker::SessionWorker;

/// The bridge's address for `addr`.
pub fn bridge_url(addr: &str) -> String {
    ws_url(&format!("/bridge/{addr}"))
}

/// How long Refresh now waits for both answers.
const ANSWER_WAIT: Duration = Duration::from_secs(3);

/// A server's record fresh from its own answers to `getinfo` and `getstatus` through the
/// bridge (its ping the `infoResponse` round trip), or why not within [`ANSWER_WAIT`].
pub async fn refresh_now(addr: &str) -> Result<ServerInfo, String> {
    let answers = async {
        let mut session = Session::open(&bridge_url(addr)).await?;
        let challenge = format!("{:08x}", (now_ms() * 1000.0) as u64 & 0xffff_ffff);
        let sent = now_ms();
        let getinfo = Packet::GetInfo {
            challenge: Some(challenge.clone()),
        };
        session.send(getinfo.emit()).await?;
        session
            .send(Packet::GetStatus { challenge: None }.emit())
            .await?;
        let (mut info, mut status, mut rtt_ms) = (None, None, 0.0);
        while info.is_none() || status.is_none() {
            match Packet::parse(&session.recv().await?) {
                Ok(Packet::InfoResponse(i)) if i.get("challenge") == Some(challenge.as_str()) => {
                    rtt_ms = now_ms() - sent;
                    info = Some(i);
                }
                Ok(Packet::StatusResponse(s)) => status = Some(s),
                _ => {}
            }
        }
        let (Some(info), Some(status)) = (info, status) else {
            return Err("no answer".to_owned());
        };
        Ok(ServerInfo::from_answers(
            addr.to_owned(),
            &info,
            &status,
            rtt_ms.round() as u32,
            js_sys::Date::now() as u64,
            vec!["bridge".into()],
        ))
    };
    futures::select! {
        answered = answers.fuse() => answered,
        _ = sleep(ANSWER_WAIT).fuse() => Err(format!("no answer within {} s", ANSWER_WAIT.as_secs())),
    }
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
        let started = SessionWorker::start(&request, move |reply| {
            if let Reply::Joined { kind, text } = reply {
                joined.set(Some((addr.clone(), (kind, text))));
                joining.set(false);
            }
        });
        match started {
            // Kept until the next check: the worker closes itself once it has answered.
            Ok(started) => worker.set_value(Some(started)),
            Err(e) => {
                joined.set(Some((checked.clone(), ("error".into(), e))));
                joining.set(false);
            }
        }
    };
    let shown = move || joined.get().filter(|(a, _)| *a == addr).map(|(_, s)| s);
    view! {
        <button type="button" on:click=click data-testid="join-check" prop:disabled=move || joining.get()>
            {move || if joining.get() { "Checking…" } else { "Join check" }}
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
        ..
    } = asked;
    let asked = addr.clone();
    let click = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let addr = asked.clone();
        leptos::task::spawn_local(async move {
            let result = refresh_now(&addr).await;
            let text = result.as_ref().map(summary).map_err(Clone::clone);
            outcome.set(Some((addr, text)));
            if let Ok(server) = result {
                fresh.set(Some(server));
            }
            busy.set(false);
        });
    };
    let shown = move || outcome.get().filter(|(a, _)| *a == addr).map(|(_, o)| o);
    view! {
        <button type="button" on:click=click data-testid="refresh-now" prop:disabled=move || busy.get()>
            {move || if busy.get() { "Asking…" } else { "Refresh now" }}
        </button>
        " "
        {move || shown().map(|o| match o {
            Ok(text) => view! { <span class="refreshed" data-testid="refreshed">{text}</span> }.into_any(),
            Err(text) => view! { <span class="refresh-failed" data-testid="refresh-failed">{text}</span> }.into_any(),
        })}
    }
}

fn summary(server: &ServerInfo) -> String {
    format!(
        "answered in {} ms through the bridge: {}, {}/{} players",
        server.ping_ms.unwrap_or_default(),
        server.map,
        server.clients,
        server.max_clients
    )
}
