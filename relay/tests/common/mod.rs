//! Shared set-up for the relay's integration tests: a lab fleet and a relay on 127.0.0.1, and a
//! page-side view of the WebSocket feed.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use lab::{Lab, LabConfig};
use protocol::relay_api::{MasterStatus, RelayMessage, ServerInfo};
use relay::{PollerConfig, Relay, ServeConfig};
use tokio_tungstenite::tungstenite::Message;

/// A frozen fleet on free ports, its master sending lists of `per_packet` addresses.
pub fn lab_config(servers: usize, per_packet: usize) -> LabConfig {
    LabConfig {
        servers,
        base_port: 0,
        master_port: 0,
        seed: 51,
        churn: None,
        heartbeat: Duration::from_secs(180),
        list_packet_size: per_packet,
        list_end: lab::ListEnd::Eot,
        faults: lab::FaultPlan::default(),
        map_time: None,
        wulfram_port: None,
        ..LabConfig::default()
    }
}

/// The built page, for tests that load it; an empty directory for those that only use the API.
pub fn dist() -> PathBuf {
    std::env::var_os("MUSTER_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// A relay that polls only the lab master (and, if given, the LAN at `lan`).
pub async fn start_relay(lab: &Lab, lan: Vec<Ipv4Addr>, refresh: Duration) -> Relay {
    let masters = if lan.is_empty() {
        vec![lab.master.to_string()]
    } else {
        Vec::new()
    };
    Relay::start(ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        dist: dist(),
        poller: PollerConfig {
            masters,
            lan,
            refresh_interval: refresh,
            ..PollerConfig::default()
        },
        ..ServeConfig::default()
    })
    .await
    .expect("relay starts")
}

/// What a page holds after applying the feed.
#[derive(Default, Debug)]
pub struct PageView {
    pub servers: BTreeMap<String, ServerInfo>,
    pub masters: Vec<MasterStatus>,
    pub progress: protocol::relay_api::Progress,
    pub wulfram: Vec<protocol::relay_api::WulframServer>,
    pub messages: usize,
}

impl PageView {
    pub fn apply(&mut self, message: RelayMessage) {
        self.messages += 1;
        match message {
            RelayMessage::Directory {
                servers,
                masters,
                wulfram,
                ..
            } => {
                self.servers = servers.into_iter().map(|s| (s.addr.clone(), s)).collect();
                self.masters = masters;
                self.wulfram = wulfram;
            }
            RelayMessage::Server { server } => {
                self.servers.insert(server.addr.clone(), server);
            }
            RelayMessage::Masters { masters } => self.masters = masters,
            RelayMessage::Progress { progress } => self.progress = progress,
            RelayMessage::Wulfram { servers } => self.wulfram = servers,
        }
    }
}

/// Follows the relay's WebSocket like a page until `done` holds, or panics after `limit`.
pub async fn follow_until(
    relay: &Relay,
    limit: Duration,
    mut done: impl FnMut(&PageView) -> bool,
) -> PageView {
    let url = format!("ws://{}/ws", relay.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(&url)
        .await
        .expect("WebSocket connects");
    let mut view = PageView::default();
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let next = tokio::time::timeout_at(deadline, socket.next()).await;
        let Ok(Some(Ok(message))) = next else {
            panic!("feed ended or timed out before the condition held; page saw {view:#?}");
        };
        if let Message::Text(text) = message {
            let message: RelayMessage = serde_json::from_str(&text).expect("relay JSON parses");
            view.apply(message);
            if done(&view) {
                return view;
            }
        }
    }
}

/// Runs the `muster` binary with `args`, feeding it `stdin`, and waits for it.
pub fn run_muster(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("muster runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("stdin written");
    drop(input);
    child.wait_with_output().expect("muster finishes")
}

/// A relay with spectator hubs configured by `spectate`, polling the lab master.
pub async fn start_spectating_relay(lab: &Lab, spectate: relay::spectate::SpectateConfig) -> Relay {
    Relay::start(ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        dist: dist(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: Vec::new(),
            refresh_interval: Duration::from_secs(2),
            ..PollerConfig::default()
        },
        spectate,
        ..ServeConfig::default()
    })
    .await
    .expect("relay starts")
}

/// Waits until the relay's directory lists every lab server.
pub async fn wait_listed(relay: &Relay, lab: &Lab) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !lab
        .servers
        .iter()
        .all(|s| relay.directory.contains(&s.addr.to_string()))
    {
        assert!(tokio::time::Instant::now() < deadline, "lab never listed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A viewer of a spectator hub, as the page is: it applies keyframes and updates.
pub struct Viewer {
    pub socket: Socket,
    pub view: Option<protocol::relay_api::watch::MatchView>,
    pub status: Option<protocol::relay_api::watch::HubStatus>,
    pub seq: u64,
    pub bytes: usize,
    /// Every keyframe and update with when it arrived.
    pub received: Vec<(
        tokio::time::Instant,
        protocol::relay_api::watch::WatchMessage,
    )>,
}

impl Viewer {
    pub async fn open(relay: &Relay, server: &str) -> Self {
        let url = format!("ws://{}/spectate/{server}", relay.addr);
        let (socket, _) = tokio_tungstenite::connect_async(&url)
            .await
            .expect("the viewer WebSocket opens");
        Self {
            socket,
            view: None,
            status: None,
            seq: 0,
            bytes: 0,
            received: Vec::new(),
        }
    }

    /// Reads the next message; `None` when the socket ended.
    pub async fn next(&mut self) -> Option<protocol::relay_api::watch::WatchMessage> {
        use protocol::relay_api::watch::{apply, WatchMessage};
        loop {
            let message = self.socket.next().await?.ok()?;
            let Message::Binary(bytes) = message else {
                if matches!(message, Message::Close(_)) {
                    return None;
                }
                continue;
            };
            self.bytes += bytes.len();
            let decoded = WatchMessage::decode(&bytes).expect("a watch message");
            match &decoded {
                WatchMessage::Status(status) => self.status = Some(status.clone()),
                WatchMessage::Keyframe { seq, view, .. } => {
                    self.view = Some(view.clone());
                    self.seq = *seq;
                }
                WatchMessage::Update { seq, update, .. } => {
                    assert_eq!(*seq, self.seq + 1, "updates arrive in order, none missing");
                    self.seq = *seq;
                    apply(self.view.as_mut().expect("a keyframe came first"), update);
                }
            }
            if !matches!(decoded, WatchMessage::Status(_)) {
                self.received
                    .push((tokio::time::Instant::now(), decoded.clone()));
            }
            return Some(decoded);
        }
    }

    /// Reads until `done` holds, or panics after `limit` with what it last saw.
    pub async fn until(&mut self, limit: Duration, mut done: impl FnMut(&Self) -> bool) {
        let deadline = tokio::time::Instant::now() + limit;
        while !done(self) {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the viewer socket ended; status {:?}", self.status),
                Err(_) => panic!(
                    "condition never held; status {:?}, view {:?}",
                    self.status,
                    self.view.as_ref().map(|v| (v.server_time, v.players.len()))
                ),
            }
        }
    }
}
