//! Spectator hubs: one protocol-22 session (one server slot) per watched server, however many
//! people watch. A hub starts with its first viewer and leaves cleanly a grace period after the
//! last; it follows map changes and restarts and rejoins a server that went away, with backoff.
//! Everything it learns passes one delay queue; each released change is encoded once and the
//! same bytes go to every viewer.

use std::collections::BTreeMap;
use std::net::{SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use protocol::cod::client::{ClientConfig, Event, State};
use protocol::cod::watch::spectator::MatchModel;
use protocol::relay_api::watch::{
    apply, diff, HubState, HubStatus, MatchView, Overview, RecordingStatus, Update, WatchMessage,
};
use tokio::sync::broadcast;

use super::delay::DelayQueue;
use crate::demos::{RecordConfig, RecordTarget, Recorder};
use crate::game_link::{Arrival, GameLink};
use crate::net::unix_us;
use crate::seams::Known;

/// Frames a viewer may fall behind by (about 2 s of 20 Hz updates) before it skips to a
/// fresh keyframe.
pub const VIEWER_BACKLOG: usize = 40;
/// The first and the longest wait before rejoining a server.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How often the status (viewer count) is re-sent at most.
const STATUS_EVERY: Duration = Duration::from_secs(1);

/// An operator's overview image for one map.
#[derive(Clone, Debug, PartialEq)]
pub struct OverviewFile {
    pub map: String,
    pub path: PathBuf,
    /// World coordinates of the image's top-left and bottom-right corners.
    pub corners: [f32; 4],
}

impl OverviewFile {
    /// `MAP=FILE,x0,y0,x1,y1`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (map, rest) = text
            .split_once('=')
            .ok_or("expected MAP=FILE,x0,y0,x1,y1")?;
        let parts: Vec<&str> = rest.rsplitn(5, ',').collect();
        let [y1, x1, y0, x0, file] = parts[..] else {
            return Err("expected MAP=FILE,x0,y0,x1,y1".into());
        };
        let num = |v: &str| {
            v.trim()
                .parse::<f32>()
                .map_err(|_| format!("{v:?} is not a number"))
        };
        let corners = [num(x0)?, num(y0)?, num(x1)?, num(y1)?];
        if map.is_empty() || map.contains('/') {
            return Err(format!("{map:?} is not a map name"));
        }
        Ok(Self {
            map: map.into(),
            path: file.into(),
            corners,
        })
    }
}

/// A passworded server's password, as the operator gives it: `ADDR=FILE`, the password on the
/// file's first line (read at start, so a wrong path fails then, and never a flag's value).
#[derive(Clone, Debug)]
pub struct ServerPassword {
    pub addr: SocketAddrV4,
    pub password: protocol::secret::Secret,
}

impl ServerPassword {
    /// `ADDR=FILE`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (addr, file) = text.split_once('=').ok_or("expected ADDR=FILE")?;
        let addr = addr
            .trim()
            .parse()
            .map_err(|_| format!("{addr:?} is not an IPv4 ip:port"))?;
        let password = crate::secrets::read(Some(std::path::Path::new(file.trim())), "")
            .map_err(|e| e.to_string())?
            .ok_or("no password")?;
        Ok(Self { addr, password })
    }
}

/// How the relay spectates.
#[derive(Clone, Debug)]
pub struct SpectateConfig {
    /// Hubs (server slots taken) at once.
    pub max_hubs: usize,
    /// How long a hub stays after its last viewer.
    pub grace: Duration,
    /// The userinfo name.
    pub name: String,
    /// The broadcast delay.
    pub delay: Duration,
    /// Silence after which a session counts as lost.
    pub timeout: Duration,
    pub overviews: Vec<OverviewFile>,
    /// Where hubs record demos on the operator's request; `None` turns recording off.
    pub recording: Option<RecordConfig>,
    /// Passworded servers' passwords (`g_password`): hubs join those servers with them, and
    /// viewers never see them.
    pub server_passwords: BTreeMap<SocketAddrV4, protocol::secret::Secret>,
}

impl Default for SpectateConfig {
    fn default() -> Self {
        Self {
            max_hubs: 16,
            grace: Duration::from_secs(30),
            name: "Muster".into(),
            delay: Duration::from_secs(30),
            timeout: Duration::from_secs(15),
            overviews: Vec::new(),
            recording: None,
            server_passwords: BTreeMap::new(),
        }
    }
}

/// What a hub sends: encoded once, shared by every viewer.
#[derive(Clone, Debug)]
pub struct Frame {
    pub kind: FrameKind,
    /// Update sequence; keyframes carry the sequence they include.
    pub seq: u64,
    pub bytes: Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Status,
    Keyframe,
    Update,
}

/// How far a takeover moves the update sequence (see [`Hub::take_over`]).
const SEQ_JUMP: u64 = 1_000;

/// What a mirrored frame came to.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Mirrored {
    Applied,
    /// An update that does not follow what this relay holds: it needs a keyframe.
    Gap,
    Unreadable,
}

/// What the hub has released to viewers.
struct Shared {
    status: HubStatus,
    status_frame: Frame,
    /// The delayed match every viewer holds, and the sequence of its latest update.
    released: MatchView,
    seq: u64,
    relay_us: u64,
    keyframe: Option<Frame>,
    /// When the viewer count last fell to zero.
    idle_since: Option<Instant>,
    status_sent_at: Instant,
    /// The operator asked for a recording; it keeps the hub joined without viewers.
    record_wanted: bool,
    /// The demo file being written.
    record_path: Option<PathBuf>,
    /// This hub took over another relay's (cluster): its first release is a whole keyframe.
    restart: bool,
}

impl Shared {
    /// The released match as a keyframe, encoded once per update.
    fn keyframe(&mut self) -> Frame {
        if let Some(frame) = &self.keyframe {
            return frame.clone();
        }
        let message = WatchMessage::Keyframe {
            seq: self.seq,
            relay_us: self.relay_us,
            view: self.released.clone(),
        };
        let frame = Frame {
            kind: FrameKind::Keyframe,
            seq: self.seq,
            bytes: message.encode().into(),
        };
        self.keyframe = Some(frame.clone());
        frame
    }
}

pub struct Hub {
    pub addr: SocketAddrV4,
    feed: broadcast::Sender<Frame>,
    shared: Mutex<Shared>,
    viewers: AtomicU32,
    /// In a cluster, on the relay holding the game slot: viewers other relays report.
    remote_viewers: AtomicU32,
    /// In a cluster: the lease passed on, so the session says goodbye and ends, leaving the
    /// viewers and the recording request for whichever relay holds the slot now.
    handing_over: std::sync::atomic::AtomicBool,
    /// The relay is shutting down: the session says goodbye and the hub closes.
    closing: std::sync::atomic::AtomicBool,
}

fn status_frame(status: &HubStatus) -> Frame {
    Frame {
        kind: FrameKind::Status,
        seq: 0,
        bytes: WatchMessage::Status(status.clone()).encode().into(),
    }
}

impl Hub {
    fn new(addr: SocketAddrV4, config: &SpectateConfig) -> Self {
        let status = HubStatus {
            addr: addr.to_string(),
            state: HubState::Connecting,
            viewers: 0,
            delay_ms: config.delay.as_millis() as u32,
            filling_ms: 0,
            overviews: config
                .overviews
                .iter()
                .map(|o| Overview {
                    map: o.map.clone(),
                    url: format!("/overview/{}", o.map),
                    x0: o.corners[0],
                    y0: o.corners[1],
                    x1: o.corners[2],
                    y1: o.corners[3],
                })
                .collect(),
            recordable: config.recording.is_some(),
            recording: None,
            record_stopped: None,
        };
        Self {
            addr,
            feed: broadcast::channel(VIEWER_BACKLOG).0,
            shared: Mutex::new(Shared {
                status_frame: status_frame(&status),
                status,
                released: MatchView::default(),
                seq: 0,
                relay_us: 0,
                keyframe: None,
                idle_since: Some(Instant::now()),
                status_sent_at: Instant::now(),
                record_wanted: false,
                record_path: None,
                restart: false,
            }),
            viewers: AtomicU32::new(0),
            remote_viewers: AtomicU32::new(0),
            handing_over: std::sync::atomic::AtomicBool::new(false),
            closing: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every frame from now on. Subscribe before taking the keyframe so nothing falls between.
    pub fn subscribe(&self) -> broadcast::Receiver<Frame> {
        self.feed.subscribe()
    }

    pub fn status(&self) -> HubStatus {
        self.lock().status.clone()
    }

    pub fn status_frame(&self) -> Frame {
        self.lock().status_frame.clone()
    }

    /// Viewers on this relay.
    pub fn viewers(&self) -> u32 {
        self.viewers.load(Ordering::Relaxed)
    }

    /// Viewers on this relay and, in a cluster, on the relays this hub feeds.
    pub fn audience(&self) -> u32 {
        self.viewers() + self.remote_viewers.load(Ordering::Relaxed)
    }

    /// In a cluster: the viewers other relays report; none left starts the grace period.
    pub(super) fn set_remote_viewers(&self, n: u32) {
        let before = self.remote_viewers.swap(n, Ordering::AcqRel);
        let mut shared = self.lock();
        if n > 0 {
            shared.idle_since = None;
        } else if before > 0 && self.viewers() == 0 {
            shared.idle_since = Some(Instant::now());
        }
    }

    /// In a cluster: ends the session (with its goodbye) without closing the hub, or lets a
    /// later one run.
    pub(super) fn hand_over(&self, on: bool) {
        self.handing_over.store(on, Ordering::Release);
    }

    fn handing_over(&self) -> bool {
        self.handing_over.load(Ordering::Acquire) && !self.closing()
    }

    fn closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    /// In a cluster, on a relay that takes the game slot over: the sequence jumps past
    /// anything a viewer on another relay may hold (relays drift apart by at most a backlog
    /// before resynchronising), and the first release is a whole keyframe, so every viewer
    /// starts again from it.
    pub(super) fn take_over(&self) {
        let mut shared = self.lock();
        if shared.seq > 0 {
            shared.seq += SEQ_JUMP;
            shared.restart = true;
        }
    }

    /// In a cluster, on a relay that mirrors another's hub: one frame as its hub published
    /// it, forwarded unchanged to this relay's viewers and applied to what late joiners get.
    pub(super) fn mirror(&self, bytes: Bytes) -> Mirrored {
        let Ok(message) = WatchMessage::decode(&bytes) else {
            return Mirrored::Unreadable;
        };
        let mut shared = self.lock();
        let frame = match message {
            WatchMessage::Status(mut status) => {
                // The status counts every relay's viewers; the flags are this relay's own.
                status.recordable = shared.status.recordable;
                status.overviews = shared.status.overviews.clone();
                shared.status = status;
                shared.status_frame = Frame {
                    kind: FrameKind::Status,
                    seq: 0,
                    bytes,
                };
                shared.status_frame.clone()
            }
            WatchMessage::Keyframe {
                seq,
                relay_us,
                view,
            } => {
                if shared.seq != 0 && seq <= shared.seq {
                    return Mirrored::Applied;
                }
                shared.released = view;
                shared.seq = seq;
                shared.relay_us = relay_us;
                let frame = Frame {
                    kind: FrameKind::Keyframe,
                    seq,
                    bytes,
                };
                shared.keyframe = Some(frame.clone());
                frame
            }
            WatchMessage::Update {
                seq,
                relay_us,
                update,
            } => {
                if shared.seq != 0 && seq <= shared.seq {
                    return Mirrored::Applied;
                }
                if shared.seq == 0 || seq != shared.seq + 1 {
                    return Mirrored::Gap;
                }
                apply(&mut shared.released, &update);
                shared.seq = seq;
                shared.relay_us = relay_us;
                shared.keyframe = None;
                Frame {
                    kind: FrameKind::Update,
                    seq,
                    bytes,
                }
            }
        };
        let _ = self.feed.send(frame);
        Mirrored::Applied
    }

    /// The delayed match viewers hold, once the first picture went out.
    pub fn view(&self) -> Option<MatchView> {
        let shared = self.lock();
        (shared.seq > 0).then(|| shared.released.clone())
    }

    /// The current delayed match as one message, encoded once per update however many
    /// viewers join.
    pub fn keyframe(&self) -> Option<Frame> {
        let mut shared = self.lock();
        (shared.seq > 0).then(|| shared.keyframe())
    }

    fn set_status(&self, change: impl FnOnce(&mut HubStatus)) {
        let mut shared = self.lock();
        let before = shared.status.clone();
        change(&mut shared.status);
        shared.status.viewers = self.audience();
        if shared.status != before {
            shared.status_frame = status_frame(&shared.status);
            shared.status_sent_at = Instant::now();
            let _ = self.feed.send(shared.status_frame.clone());
        }
    }

    /// Re-sends the status when the audience changed, at most once a second.
    fn refresh_viewers(&self) {
        let due = {
            let shared = self.lock();
            shared.status.viewers != self.audience()
                && shared.status_sent_at.elapsed() >= STATUS_EVERY
        };
        if due {
            self.set_status(|_| {});
        }
    }

    /// One change leaves the delay: applied to what viewers hold, encoded once, sent to all.
    fn release(&self, relay_us: u64, update: Update) {
        let mut shared = self.lock();
        let restart = std::mem::take(&mut shared.restart);
        if restart {
            shared.released = MatchView::default();
        }
        apply(&mut shared.released, &update);
        shared.seq += 1;
        shared.relay_us = relay_us;
        shared.keyframe = None;
        let seq = shared.seq;
        let frame = if seq == 1 || restart {
            // The first picture: everything so far, as a keyframe.
            shared.keyframe()
        } else {
            let message = WatchMessage::Update {
                seq,
                relay_us,
                update,
            };
            Frame {
                kind: FrameKind::Update,
                seq,
                bytes: message.encode().into(),
            }
        };
        let _ = self.feed.send(frame);
    }

    pub(super) fn idle_for(&self) -> Option<Duration> {
        if self.audience() > 0 {
            return None;
        }
        let shared = self.lock();
        if shared.record_wanted {
            return None;
        }
        shared.idle_since.map(|at| at.elapsed())
    }

    /// Starts or stops recording; the hub's loop acts on it within a second. Stopping with
    /// nobody watching starts the grace period.
    pub fn set_recording(&self, on: bool) {
        let mut shared = self.lock();
        if shared.record_wanted && !on && self.viewers() == 0 {
            shared.idle_since = Some(Instant::now());
        }
        shared.record_wanted = on;
    }

    pub fn record_wanted(&self) -> bool {
        self.lock().record_wanted
    }

    /// The demo file being written, which is not to be served yet.
    pub fn record_path(&self) -> Option<PathBuf> {
        self.lock().record_path.clone()
    }
}

/// A viewer's hold on a hub; dropping it lets the hub's grace period start.
pub struct ViewerGuard {
    hub: Arc<Hub>,
}

impl ViewerGuard {
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }
}

impl Drop for ViewerGuard {
    fn drop(&mut self) {
        if self.hub.viewers.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.hub.lock().idle_since = Some(Instant::now());
        }
    }
}

/// Why a viewer could not join.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("not a server in the directory")]
    Unknown,
    #[error("every spectator slot of this relay is in use")]
    Full,
}

/// The hubs by server, locked.
type Registry<'a> = MutexGuard<'a, BTreeMap<SocketAddrV4, Arc<Hub>>>;

impl axum::response::IntoResponse for JoinError {
    /// 404 for a server the directory does not list, 503 when every hub slot is taken.
    fn into_response(self) -> axum::response::Response {
        let status = match self {
            Self::Unknown => axum::http::StatusCode::NOT_FOUND,
            Self::Full => axum::http::StatusCode::SERVICE_UNAVAILABLE,
        };
        (status, self.to_string()).into_response()
    }
}

/// Every hub, by server.
pub struct Hubs {
    config: SpectateConfig,
    known: Known,
    hubs: Mutex<BTreeMap<SocketAddrV4, Arc<Hub>>>,
    /// Hub sessions running on this relay (shutdown waits for their goodbyes).
    running: std::sync::atomic::AtomicUsize,
    /// In a cluster, one relay's hub holds each match's game slot and the others mirror it.
    cluster: Option<Arc<crate::cluster::Cluster>>,
}

impl Hubs {
    /// Hubs for the servers `known` lists, and no others.
    pub fn new(config: SpectateConfig, known: Known) -> Arc<Self> {
        Self::clustered(config, known, None)
    }

    /// Hubs that, in a cluster, share one game slot per match with every other relay.
    pub fn clustered(
        config: SpectateConfig,
        known: Known,
        cluster: Option<Arc<crate::cluster::Cluster>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            config,
            known,
            hubs: Mutex::default(),
            running: Default::default(),
            cluster,
        })
    }

    pub fn config(&self) -> &SpectateConfig {
        &self.config
    }

    /// Whether a hub may be started for `addr`: the relay knows the server.
    pub fn knows(&self, addr: SocketAddrV4) -> bool {
        self.known.knows(addr)
    }

    fn registry(&self) -> Registry<'_> {
        self.hubs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Joins the hub of a server the directory knows, starting it if need be.
    pub fn join(self: &Arc<Self>, addr: SocketAddrV4) -> Result<ViewerGuard, JoinError> {
        let (hub, _hubs) = self.hub_for(addr)?;
        hub.viewers.fetch_add(1, Ordering::AcqRel);
        hub.lock().idle_since = None;
        Ok(ViewerGuard { hub })
    }

    /// Records a server the directory knows, starting its hub if need be (it stays joined
    /// while the recording runs, watched or not).
    pub fn record(self: &Arc<Self>, addr: SocketAddrV4) -> Result<Arc<Hub>, JoinError> {
        let (hub, _hubs) = self.hub_for(addr)?;
        hub.set_recording(true);
        Ok(hub)
    }

    /// The hub of `addr`, started if need be; the registry stays locked while the caller
    /// takes its hold, so the hub cannot retire in between.
    fn hub_for(
        self: &Arc<Self>,
        addr: SocketAddrV4,
    ) -> Result<(Arc<Hub>, Registry<'_>), JoinError> {
        if !self.known.knows(addr) {
            return Err(JoinError::Unknown);
        }
        let mut hubs = self.registry();
        let hub = match hubs.get(&addr) {
            Some(hub) => hub.clone(),
            None => {
                if hubs.len() >= self.config.max_hubs {
                    return Err(JoinError::Full);
                }
                let hub = Arc::new(Hub::new(addr, &self.config));
                hubs.insert(addr, hub.clone());
                match &self.cluster {
                    Some(cluster) => tokio::spawn(super::cluster::run(
                        hub.clone(),
                        self.clone(),
                        cluster.clone(),
                    )),
                    None => tokio::spawn(HubTask::new(hub.clone(), self.clone()).run()),
                };
                hub
            }
        };
        Ok((hub, hubs))
    }

    /// The demo files hubs are writing now.
    pub fn recording_paths(&self) -> Vec<PathBuf> {
        self.list().iter().filter_map(|h| h.record_path()).collect()
    }

    pub fn get(&self, addr: &SocketAddrV4) -> Option<Arc<Hub>> {
        self.registry().get(addr).cloned()
    }

    pub fn list(&self) -> Vec<Arc<Hub>> {
        self.registry().values().cloned().collect()
    }

    /// Shutdown: every hub session says goodbye to its game server (`disconnect`) and ends its
    /// recording with the end marker. Returns how many were running, once they have all
    /// finished or `within` has passed.
    pub async fn close_all(&self, within: Duration) -> usize {
        let running = self.running.load(Ordering::Acquire);
        for hub in self.list() {
            hub.closing.store(true, Ordering::Release);
        }
        let deadline = Instant::now() + within;
        while self.running.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        running
    }

    /// Removes the hub if it is still idle past the grace period; joins hold the same lock, so
    /// a viewer arriving now keeps it.
    pub(super) fn retire(&self, hub: &Arc<Hub>) -> bool {
        let mut hubs = self.registry();
        if hub.idle_for().is_some_and(|idle| idle >= self.config.grace) {
            hubs.remove(&hub.addr);
            true
        } else {
            false
        }
    }
}

/// The hub's session: the shared driver, and whether the server ever let it in (a refusal
/// before that is told apart from a lost session).
struct Session {
    link: GameLink,
    connected: bool,
}

impl Session {
    async fn open(addr: SocketAddrV4, config: &SpectateConfig) -> std::io::Result<Self> {
        let client = ClientConfig {
            name: config.name.clone(),
            qport: rand::random(),
            timeout_ms: config.timeout.as_millis() as u64,
            password: config.server_passwords.get(&addr).cloned(),
            ..ClientConfig::default()
        };
        Ok(Self {
            link: GameLink::open(SocketAddr::V4(addr), client, true).await?,
            connected: false,
        })
    }
}

/// The hub's own loop: the session, the model, the delay.
pub(super) struct HubTask {
    hub: Arc<Hub>,
    hubs: Arc<Hubs>,
    session: Option<Session>,
    model: MatchModel,
    /// What the queue will have made of the released view once it drains.
    pushed: MatchView,
    queue: DelayQueue<(u64, Update)>,
    rejoin_at: Option<Instant>,
    backoff: Duration,
    recorder: Option<Recorder>,
}

impl HubTask {
    pub(super) fn new(hub: Arc<Hub>, hubs: Arc<Hubs>) -> Self {
        let delay = hubs.config.delay;
        Self {
            hub,
            hubs,
            session: None,
            model: MatchModel::new(),
            pushed: MatchView::default(),
            queue: DelayQueue::new(delay),
            rejoin_at: Some(Instant::now()),
            backoff: FIRST_BACKOFF,
            recorder: None,
        }
    }

    pub(super) async fn run(mut self) {
        self.hubs.running.fetch_add(1, Ordering::AcqRel);
        self.session_loop().await;
        self.hubs.running.fetch_sub(1, Ordering::AcqRel);
    }

    async fn session_loop(&mut self) {
        loop {
            if self.hub.handing_over() || self.hub.closing() {
                break;
            }
            if self
                .hub
                .idle_for()
                .is_some_and(|idle| idle >= self.hubs.config.grace)
                && self.hubs.retire(&self.hub)
            {
                break;
            }
            if self.session.is_none() && self.rejoin_at.is_some_and(|at| Instant::now() >= at) {
                self.rejoin_at = None;
                match Session::open(self.hub.addr, &self.hubs.config).await {
                    Ok(session) => {
                        self.session = Some(session);
                        self.hub.set_status(|s| s.state = HubState::Connecting);
                    }
                    Err(e) => self.lost(format!("socket: {e}"), false),
                }
            }
            if let Some(session) = self.session.as_mut() {
                session.link.flush().await;
            }
            let wake = self.next_wake();
            let arrival = match self.session.as_mut() {
                Some(session) => session.link.step(wake).await,
                None => {
                    tokio::time::sleep_until(wake.into()).await;
                    Arrival {
                        at: Instant::now(),
                        unix_us: unix_us(),
                    }
                }
            };
            self.record();
            self.events(arrival.at, arrival.unix_us);
            self.release(Instant::now());
            self.hub.refresh_viewers();
        }
        let handing_over = self.hub.handing_over();
        if !handing_over {
            self.hub.set_recording(false);
        }
        if let Some(session) = self.session.as_mut() {
            session.link.farewell().await;
            // The goodbye ends a recording: its file gets its end marker.
            self.record();
        }
        if !handing_over {
            self.hub.set_status(|s| s.state = HubState::Closed);
        }
    }

    fn next_wake(&self) -> Instant {
        let now = Instant::now();
        let mut wake = now + STATUS_EVERY;
        if let Some(session) = &self.session {
            if let Some(t) = session.link.deadline() {
                wake = wake.min(t);
            }
        }
        wake = wake.min(self.queue.next_due().unwrap_or(wake));
        wake = wake.min(self.rejoin_at.unwrap_or(wake));
        wake.max(now)
    }

    fn events(&mut self, arrival: Instant, relay_us: u64) {
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let mut ended = None;
        let mut went_active = false;
        while let Some(event) = session.link.client.poll_event() {
            match &event {
                Event::State(State::Connected) => session.connected = true,
                Event::State(State::Active) => went_active = true,
                Event::Disconnected(reason) => ended = Some((reason.clone(), session.connected)),
                _ => {}
            }
            self.model.handle(&event);
            if matches!(event, Event::Snapshot(_)) {
                let view = self.model.view();
                let update = diff(&self.pushed, &view);
                apply(&mut self.pushed, &update);
                let first = self.queue.is_empty() && {
                    let shared = self.hub.lock();
                    shared.seq == 0 || shared.restart
                };
                self.queue.push(arrival, (relay_us, update));
                if first {
                    let filling = self.queue.filling(arrival).as_millis() as u32;
                    self.hub.set_status(|s| s.filling_ms = filling);
                }
            }
        }
        if went_active {
            self.backoff = FIRST_BACKOFF;
            self.hub.set_status(|s| s.state = HubState::Active);
        }
        if let Some((reason, connected)) = ended {
            self.session = None;
            self.lost(reason, connected);
        }
    }

    /// Starts and stops the session's recording as the operator asked, and writes what it
    /// recorded. Runs before the session's events are read, so a session that ended has
    /// closed its file.
    fn record(&mut self) {
        let Some(config) = self.hubs.config.recording.clone() else {
            return;
        };
        let wanted = self.hub.record_wanted();
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let client = &mut session.link.client;
        if wanted && self.recorder.is_none() {
            self.recorder = Some(Recorder::new(RecordTarget {
                dir: config.dir,
                server: self.hub.addr.to_string().replace(':', "_"),
                out: None,
                max_bytes: config.max_bytes,
            }));
            self.hub.set_status(|s| s.record_stopped = None);
        }
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        if wanted && !client.is_recording() && client.state() == State::Active {
            let _ = client.record();
        }
        if !wanted && client.is_recording() {
            client.stop_recording();
        }
        let mut stopped = recorder
            .drain(client)
            .err()
            .map(|e| format!("writing the demo: {e}"));
        if stopped.is_some() {
            client.stop_recording();
            while client.poll_demo().is_some() {}
        }
        stopped = stopped.or_else(|| recorder.stopped.clone());
        let current = recorder
            .current()
            .map(|f| (f.path.clone(), f.name.clone(), f.bytes));
        let _ = recorder.flush();
        if stopped.is_some() || (!wanted && current.is_none()) {
            self.recorder = None;
            if let Some(reason) = &stopped {
                tracing::warn!(server = %self.hub.addr, %reason, "recording stopped");
                self.hub.set_recording(false);
            }
        }
        let path = current.as_ref().map(|(path, ..)| path.clone());
        let changed = {
            let mut shared = self.hub.lock();
            let changed = shared.record_path != path;
            shared.record_path = path;
            changed || shared.status_sent_at.elapsed() >= STATUS_EVERY
        };
        // The size shown grows at most once a second; a new file or a stop shows at once.
        if !changed && stopped.is_none() {
            return;
        }
        self.hub.set_status(|s| {
            s.recording = current.map(|(_, file, bytes)| RecordingStatus { file, bytes });
            if stopped.is_some() {
                s.record_stopped = stopped;
            }
        });
    }

    /// The session ended: a refusal before it was connected, or a lost session; rejoin after
    /// the backoff.
    fn lost(&mut self, reason: String, connected: bool) {
        let retry = self.backoff;
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
        self.rejoin_at = Some(Instant::now() + retry);
        let retry_ms = retry.as_millis() as u32;
        tracing::info!(server = %self.hub.addr, %reason, "spectator session ended");
        let reason = if reason.contains("INVALIDPASSWORD") {
            if self
                .hubs
                .config
                .server_passwords
                .contains_key(&self.hub.addr)
            {
                "the server refused the password this relay's operator gave for it".to_owned()
            } else {
                "the server needs a password; this relay's operator has not given one for it"
                    .to_owned()
            }
        } else {
            reason
        };
        self.hub.set_status(|s| {
            s.state = if connected {
                HubState::Rejoining { reason, retry_ms }
            } else {
                HubState::Refused { reason, retry_ms }
            }
        });
    }

    fn release(&mut self, now: Instant) {
        let mut released = false;
        while let Some((relay_us, update)) = self.queue.pop_due(now) {
            self.hub.release(relay_us, update);
            released = true;
        }
        if released && self.hub.lock().status.filling_ms != 0 {
            self.hub.set_status(|s| s.filling_ms = 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overviews_parse_from_the_flag() {
        let o = OverviewFile::parse("mp_foy=/maps/foy,top.png,-3000,4000,3500.5,-2500").unwrap();
        assert_eq!(o.map, "mp_foy");
        assert_eq!(o.path, PathBuf::from("/maps/foy,top.png"));
        assert_eq!(o.corners, [-3000.0, 4000.0, 3500.5, -2500.0]);
        assert!(OverviewFile::parse("mp_foy=foy.png,1,2,3").is_err());
        assert!(OverviewFile::parse("foy.png,1,2,3,4").is_err());
        assert!(OverviewFile::parse("../x=foy.png,1,2,3,4").is_err());
    }
}
