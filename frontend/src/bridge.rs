//! The page's own protocol-22 traffic through the relay's bridge (`/bridge/ADDR`): datagrams
//! built and parsed by `protocol` in this wasm, carried whole in binary WebSocket messages.
//! Refresh now asks a server for its `getinfo` and `getstatus` this way; Join check runs
//! `cod::client` up to the server's answer and leaves cleanly.

use std::time::Duration;

use futures::{FutureExt, SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use leptos::prelude::*;
use protocol::cod::client::{Client, ClientConfig, Event, State};
use protocol::cod::join::JoinAnswer;
use protocol::cod::oob::Packet;
use protocol::relay_api::ServerInfo;
use serde::Deserialize;

use crate::net::{now_ms, sleep, ws_url};

/// How long Refresh now waits for both answers.
const ANSWER_WAIT: Duration = Duration::from_secs(3);

/// What the relay says on a session besides datagrams.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Report {
    Session { qport: u16 },
    Refused { reason: String },
    Closed { reason: String },
}

/// One bridge session to a server.
pub struct Session {
    sink: futures::stream::SplitSink<WebSocket, Message>,
    stream: futures::stream::Fuse<futures::stream::SplitStream<WebSocket>>,
    /// The qport the relay assigned; a `connect` and sequenced traffic must carry it.
    pub qport: u16,
}

impl Session {
    pub async fn open(addr: &str) -> Result<Self, String> {
        let socket = WebSocket::open(&ws_url(&format!("/bridge/{addr}")))
            .map_err(|e| format!("the bridge did not open: {e}"))?;
        let (sink, stream) = socket.split();
        let mut session = Self {
            sink,
            stream: stream.fuse(),
            qport: 0,
        };
        match session.next_message().await? {
            Err(Report::Session { qport }) => {
                session.qport = qport;
                Ok(session)
            }
            Err(Report::Closed { reason } | Report::Refused { reason }) => {
                Err(format!("the relay refused the bridge: {reason}"))
            }
            Ok(_) => Err("a datagram before the session began".into()),
        }
    }

    pub async fn send(&mut self, datagram: Vec<u8>) -> Result<(), String> {
        self.sink
            .send(Message::Bytes(datagram))
            .await
            .map_err(|e| format!("the bridge closed: {e}"))
    }

    /// The next datagram from the server; a refusal or the end of the session as its text.
    pub async fn recv(&mut self) -> Result<Vec<u8>, String> {
        match self.next_message().await? {
            Ok(datagram) => Ok(datagram),
            Err(Report::Refused { reason }) => Err(format!("the relay refused: {reason}")),
            Err(Report::Closed { reason }) => Err(format!("the bridge closed: {reason}")),
            Err(Report::Session { .. }) => Err("a second session message".into()),
        }
    }

    async fn next_message(&mut self) -> Result<Result<Vec<u8>, Report>, String> {
        loop {
            match self.stream.next().await {
                Some(Ok(Message::Bytes(datagram))) => return Ok(Ok(datagram)),
                Some(Ok(Message::Text(text))) => {
                    if let Ok(report) = serde_json::from_str::<Report>(&text) {
                        return Ok(Err(report));
                    }
                }
                _ => return Err("the bridge closed".into()),
            }
        }
    }
}

/// A server's record fresh from its own answers to `getinfo` and `getstatus` through the
/// bridge (its ping the `infoResponse` round trip), or why not within [`ANSWER_WAIT`].
pub async fn refresh_now(addr: &str) -> Result<ServerInfo, String> {
    let answers = async {
        let mut session = Session::open(addr).await?;
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

/// How long Join check waits for the server to answer a connect (stock resends every 3 s).
const JOIN_WAIT_MS: f64 = 8000.0;

/// Connects to `addr` as a player would, through the bridge, up to the server's answer; on a
/// free slot it disconnects at once, as stock does when it leaves.
pub async fn join_check(addr: &str) -> Result<JoinAnswer, String> {
    let mut player = Player::join(addr).await?;
    loop {
        let left = (JOIN_WAIT_MS as u64).saturating_sub(player.now());
        if left == 0 {
            return Ok(JoinAnswer::NoAnswer);
        }
        player.step(Duration::from_millis(left)).await?;
        while let Some(event) = player.client.poll_event() {
            match event {
                Event::State(State::Connected) => {
                    player.client.disconnect();
                    player.flush().await?;
                    return Ok(JoinAnswer::FreeSlot);
                }
                Event::Disconnected(reason) => return Ok(JoinAnswer::of_refusal(&reason)),
                _ => {}
            }
        }
    }
}

/// `cod::client` through a bridge session, on the page's clock: Join check and Watch
/// directly drive it the same way.
pub struct Player {
    session: Session,
    pub client: Client,
    start: f64,
}

impl Player {
    /// Opens a bridge session and starts connecting with the qport the relay assigned.
    pub async fn join(addr: &str) -> Result<Self, String> {
        let session = Session::open(addr).await?;
        let config = ClientConfig {
            qport: session.qport,
            ..ClientConfig::default()
        };
        Ok(Self {
            client: Client::new(config, 0),
            session,
            start: now_ms(),
        })
    }

    /// Milliseconds since the session opened: the client's clock.
    pub fn now(&self) -> u64 {
        (now_ms() - self.start) as u64
    }

    /// Sends what the client has queued.
    pub async fn flush(&mut self) -> Result<(), String> {
        while let Some(datagram) = self.client.poll_transmit() {
            self.session.send(datagram).await?;
        }
        Ok(())
    }

    /// Sends what is queued, then hands the client the next datagram, or its timer when that
    /// comes first (waiting at most `cap`).
    pub async fn step(&mut self, cap: Duration) -> Result<(), String> {
        self.flush().await?;
        let now = self.now();
        let due = self.client.poll_timeout().unwrap_or(u64::MAX).max(now);
        let wait = Duration::from_millis(due - now).min(cap);
        futures::select! {
            datagram = self.session.recv().fuse() => {
                let datagram = datagram?;
                self.client.handle_datagram(self.now(), &datagram);
            }
            _ = sleep(wait).fuse() => {
                let now = self.now();
                self.client.handle_timeout(now);
            }
        }
        Ok(())
    }
}

/// The Join check button and its answer.
#[component]
pub fn JoinCheck(addr: String, asked: Asked) -> impl IntoView {
    let Asked {
        joined, joining, ..
    } = asked;
    let checked = addr.clone();
    let click = move |_| {
        if joining.get_untracked() {
            return;
        }
        joining.set(true);
        let addr = checked.clone();
        leptos::task::spawn_local(async move {
            let shown = match join_check(&addr).await {
                Ok(a) => (a.kind().to_owned(), a.describe()),
                Err(e) => ("error".to_owned(), e),
            };
            joined.set(Some((addr, shown)));
            joining.set(false);
        });
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
}

impl Asked {
    pub fn new() -> Self {
        Self {
            fresh: RwSignal::new(None),
            outcome: RwSignal::new(None),
            busy: RwSignal::new(false),
            joined: RwSignal::new(None),
            joining: RwSignal::new(false),
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
