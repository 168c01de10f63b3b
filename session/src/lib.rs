//! The page's protocol-22 sessions through the relay's bridge (`/bridge/ADDR`): datagrams
//! built and parsed by `protocol` in wasm, carried whole in binary WebSocket messages.
//!
//! Everything the page asks a server itself (Refresh now, Join check, Watch directly) runs in
//! this crate's web worker (`main.rs`), loaded only when used, so the page a visitor downloads
//! first carries neither the bridge nor the wire protocol. The page and the worker speak
//! [`Request`] and [`Reply`], postcard-encoded.

use std::time::Duration;

use futures::{FutureExt, SinkExt, StreamExt};
use gloo_net::websocket::{futures::WebSocket, Message};
use protocol::cod::client::JoinAnswer;
use protocol::cod::client::{Client, ClientConfig, Event, State};
use protocol::cod::oob::Packet;
use protocol::cod::watch::spectator::{MatchModel, SpectatorInput};
use protocol::relay_api::bridge::BridgeReport as Report;
use protocol::relay_api::watch::{HubState, HubStatus, WatchMessage};
use protocol::relay_api::ServerInfo;
use serde::{Deserialize, Serialize};

pub mod demo;

/// Milliseconds on the wall clock: the same in a window and in a worker.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Waits `duration` (timers work in a window and in a worker alike).
pub async fn sleep(duration: Duration) {
    gloo_timers::future::sleep(duration).await
}

/// What the page asks the session worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Request {
    /// Refresh now: `addr`'s `getinfo` and `getstatus` through the bridge at `url`.
    Refresh { url: String, addr: String },
    /// Join check through the bridge at `url`.
    JoinCheck { url: String },
    /// Watch `addr` directly through the bridge at `url`, until [`Request::Stop`].
    Watch { url: String, addr: String },
    /// Leave the watched server cleanly, or close the demo.
    Stop,
    /// Open a demo and play it (paused at its start until [`Request::DemoControl`]).
    Demo(demo::DemoSource),
    /// Play or pause, at a speed.
    DemoControl { playing: bool, speed: f64 },
    /// Jump to a moment of the demo, in ms of demo time.
    DemoSeek { at_ms: u32 },
    /// The relay's finished recordings.
    Demos,
    /// Start or stop a hub's recording, as the relay's operator.
    Record {
        addr: String,
        on: bool,
        token: String,
    },
}

/// What the session worker tells the watch view and the demo player. Before any reply it
/// posts an empty message: its handler is in place (a request posted before that would be
/// lost, since a worker's messages are dispatched once its loader script has run, before the
/// wasm has started).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Reply {
    /// Join check's answer: its kind and what a player reads.
    Joined {
        kind: String,
        text: String,
    },
    /// The watched match, as a hub would send it.
    Watch(WatchMessage),
    /// The demo decoded: what it holds, and how long decoding it whole took.
    DemoOpened {
        summary: Box<protocol::cod::watch::timeline::DemoSummary>,
        decode_ms: f64,
    },
    /// The demo could not be opened, and why.
    DemoFailed(String),
    /// Where playback is.
    DemoAt {
        at_ms: u32,
        playing: bool,
    },
    Demos(Result<Vec<demo::RelayDemo>, String>),
    /// The relay's answer to a recording request.
    Recorded(Result<String, String>),
    /// Watch directly left its server cleanly after [`Request::Stop`]: the page may go.
    Left,
    /// The worker itself failed (its script did not load, or it stopped on an error): no
    /// other reply will come. Made by the page, never sent by the worker.
    Failed(String),
}

/// What the session worker answers the server browser's page (Refresh now, Join check):
/// apart from [`Reply`], so that page decodes it without carrying the decoders of the watch
/// view's and the demo player's replies.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum BrowserReply {
    /// Refresh now's answer: the server's record from its own answers, or why not.
    Refreshed(Result<Box<ServerInfo>, String>),
    /// Join check's answer (the page says it in its reader's language).
    Joined(JoinAnswer),
    /// As [`Reply::Failed`].
    Failed(String),
}

/// The reply that stands for the worker's own failure, so every request's handler hears of it
/// in the type it already takes.
pub trait WorkerFailure {
    fn worker_failed(why: String) -> Self;
}

impl WorkerFailure for Reply {
    fn worker_failed(why: String) -> Self {
        Self::Failed(why)
    }
}

impl WorkerFailure for BrowserReply {
    fn worker_failed(why: String) -> Self {
        Self::Failed(why)
    }
}

/// A message between the page and the worker, postcard-encoded.
pub fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    postcard::to_allocvec(message).unwrap_or_default()
}

pub fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(bytes).ok()
}

/// One bridge session to a server.
pub struct Session {
    sink: futures::stream::SplitSink<WebSocket, Message>,
    stream: futures::stream::Fuse<futures::stream::SplitStream<WebSocket>>,
    /// The qport the relay assigned; a `connect` and sequenced traffic must carry it.
    pub qport: u16,
}

impl Session {
    /// Opens `url` (the relay's `/bridge/ADDR`) and waits for the session to begin.
    pub async fn open(url: &str) -> Result<Self, String> {
        let socket = WebSocket::open(url).map_err(|e| format!("the bridge did not open: {e}"))?;
        let (sink, stream) = socket.split();
        let mut session = Self {
            sink,
            stream: stream.fuse(),
            qport: 0,
        };
        match session.next_message().await? {
            Err(Report::Session { qport, .. }) => {
                session.qport = qport;
                Ok(session)
            }
            Err(Report::Closed { reason, .. } | Report::Refused { reason, .. }) => {
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
            Err(Report::Refused { reason, .. }) => Err(format!("the relay refused: {reason}")),
            Err(Report::Closed { reason, .. }) => Err(format!("the bridge closed: {reason}")),
            Err(Report::Session { .. }) => Err("a second session message".into()),
        }
    }

    async fn next_message(&mut self) -> Result<Result<Vec<u8>, Report>, String> {
        loop {
            match self.stream.next().await {
                Some(Ok(Message::Bytes(datagram))) => return Ok(Ok(datagram)),
                Some(Ok(Message::Text(text))) => {
                    if let Some(report) = Report::decode(&text) {
                        return Ok(Err(report));
                    }
                }
                _ => return Err("the bridge closed".into()),
            }
        }
    }
}

/// How long Refresh now waits for both answers.
const ANSWER_WAIT: Duration = Duration::from_secs(3);

/// A server's record fresh from its own answers to `getinfo` and `getstatus` through the
/// bridge at `url` (its ping the `infoResponse` round trip), or why not within [`ANSWER_WAIT`].
pub async fn refresh(url: &str, addr: &str) -> Result<ServerInfo, String> {
    let answers = async {
        let mut session = Session::open(url).await?;
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
            now_ms() as u64,
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

/// Connects through the bridge at `url` as a player would, through the bridge, up to the server's answer; on a
/// free slot it disconnects at once, as stock does when it leaves.
pub async fn join_check(url: &str) -> Result<JoinAnswer, String> {
    let mut player = Player::join(url).await?;
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
    pub async fn join(url: &str) -> Result<Self, String> {
        let session = Session::open(url).await?;
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

/// The longest the watch loop sleeps: the follow presses step every 100 ms.
const STEP: Duration = Duration::from_millis(50);
/// The wait before a new session after one ended.
const RETRY: Duration = Duration::from_secs(5);

/// What Watch directly shows of its own session, as a hub's status would say it.
pub fn watch_status(addr: &str, state: HubState) -> WatchMessage {
    WatchMessage::Status(HubStatus {
        addr: addr.into(),
        state,
        viewers: 1,
        delay_ms: 0,
        filling_ms: 0,
        overviews: Vec::new(),
        recordable: false,
        recording: None,
        record_stopped: None,
    })
}

/// Spectates `addr` through the bridge at `url` with this worker's own session, the hubs'
/// input and match model, handing each view to `out`, until `open` turns false (then it leaves
/// cleanly); rejoins after a refusal or a lost session.
pub async fn watch(url: &str, addr: &str, out: impl Fn(WatchMessage), open: impl Fn() -> bool) {
    while open() {
        out(watch_status(addr, HubState::Connecting));
        let (reason, connected) = match spectate(url, addr, &out, &open).await {
            Ok(()) => return,
            Err(ended) => ended,
        };
        let retry_ms = RETRY.as_millis() as u32;
        let state = if connected {
            HubState::Rejoining { reason, retry_ms }
        } else {
            HubState::Refused { reason, retry_ms }
        };
        out(watch_status(addr, state));
        sleep(RETRY).await;
    }
}

/// One session: `Ok` when the view closed (and the session left cleanly), else why it ended
/// and whether it had been connected.
async fn spectate(
    url: &str,
    addr: &str,
    out: &impl Fn(WatchMessage),
    open: &impl Fn() -> bool,
) -> Result<(), (String, bool)> {
    let mut player = Player::join(url).await.map_err(|e| (e, false))?;
    let mut input = SpectatorInput::new(true);
    let mut model = MatchModel::new();
    let (mut seq, mut connected) = (0u64, false);
    loop {
        if !open() {
            player.client.disconnect();
        } else {
            let now = player.now();
            input.drive(now, &mut player.client);
        }
        player.step(STEP).await.map_err(|e| (e, connected))?;
        while let Some(event) = player.client.poll_event() {
            model.handle(&event);
            match event {
                Event::State(State::Connected) => connected = true,
                Event::State(State::Active) => {
                    out(watch_status(addr, HubState::Active));
                }
                Event::Snapshot(_) => {
                    seq += 1;
                    let view = model.view();
                    let keyframe = WatchMessage::Keyframe {
                        seq,
                        relay_us: 0,
                        view,
                    };
                    out(keyframe);
                }
                Event::Disconnected(_) if !open() => return Ok(()),
                Event::Disconnected(reason) => return Err((reason, connected)),
                _ => {}
            }
        }
    }
}
