//! A hub: one watched server's released match, its status and its broadcast. Everything the
//! session learns passes one delay queue (`task.rs`); each released change is encoded once
//! here and the same bytes go to every viewer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use protocol::relay_api::watch::{
    apply, HubState, HubStatus, MatchView, Overview, RecordingStatus, Update, WatchMessage,
};
use tokio::sync::broadcast;

use super::config::SpectateConfig;
use crate::net::ServerAddr;
use crate::seams::{HubFace, HubTap, Released};
use crate::sync::Locked;

/// Frames a viewer may fall behind by (about 3 s of 20 Hz updates) before it skips to a
/// fresh keyframe. A power of two: the broadcast channel rounds its capacity up to one (40 was
/// 64 in fact).
pub const VIEWER_BACKLOG: usize = 64;
/// How often the status (viewer count) is re-sent at most.
pub(super) const STATUS_EVERY: Duration = Duration::from_secs(1);

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

/// What the hub has released to viewers.
pub(super) struct Shared {
    pub(super) status: HubStatus,
    pub(super) status_frame: Frame,
    /// The delayed match every viewer holds, and the sequence of its latest update.
    pub(super) released: MatchView,
    pub(super) seq: u64,
    pub(super) relay_us: u64,
    pub(super) keyframe: Option<Frame>,
    /// When the viewer count last fell to zero.
    pub(super) idle_since: Option<Instant>,
    pub(super) status_sent_at: Instant,
    /// The operator asked for a recording; it keeps the hub joined without viewers.
    pub(super) record_wanted: bool,
    /// The operator follows the server's matches (`--follow`): the hub stays joined.
    pub(super) followed: bool,
    /// The demo file being written.
    pub(super) record_path: Option<PathBuf>,
    /// This hub took over another relay's (cluster): its first release is a whole keyframe.
    pub(super) restart: bool,
}

impl Shared {
    /// The released match as a keyframe, encoded once per update.
    pub(super) fn keyframe(&mut self) -> Frame {
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
    pub addr: ServerAddr,
    pub(super) feed: broadcast::Sender<Frame>,
    shared: Mutex<Shared>,
    pub(super) viewers: AtomicU32,
    /// In a cluster, on the relay holding the game slot: viewers other relays report.
    pub(super) remote_viewers: AtomicU32,
    /// In a cluster: the lease passed on, so the session says goodbye and ends, leaving the
    /// viewers and the recording request for whichever relay holds the slot now.
    pub(super) handing_over: AtomicBool,
    /// The relay is shutting down: the session says goodbye and the hub closes.
    pub(super) closing: AtomicBool,
    /// In a cluster: the fencing token of the hub lease as this relay last held it (0: never),
    /// kept after the lease is lost so a late write from here is refused, not taken.
    pub(super) lease_token: AtomicU64,
}

pub(super) fn status_frame(status: &HubStatus) -> Frame {
    Frame {
        kind: FrameKind::Status,
        seq: 0,
        bytes: WatchMessage::Status(status.clone()).encode().into(),
    }
}

impl Hub {
    pub(super) fn new(addr: ServerAddr, config: &SpectateConfig) -> Self {
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
            recordable: config.recordable,
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
                followed: false,
                record_path: None,
                restart: false,
            }),
            viewers: AtomicU32::new(0),
            remote_viewers: AtomicU32::new(0),
            handing_over: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            lease_token: AtomicU64::new(0),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.locked()
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

    pub(super) fn handing_over(&self) -> bool {
        self.handing_over.load(Ordering::Acquire) && !self.closing()
    }

    pub(super) fn closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
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

    pub(super) fn set_status(&self, change: impl FnOnce(&mut HubStatus)) {
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
    pub(super) fn refresh_viewers(&self) {
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
    /// Returns the frame sent, and the change for the taps (moved through the message, not
    /// copied).
    pub(super) fn release(&self, relay_us: u64, update: Update) -> (Frame, Update) {
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
        let (frame, update) = if seq == 1 || restart {
            // The first picture: everything so far, as a keyframe.
            (shared.keyframe(), update)
        } else {
            let message = WatchMessage::Update {
                seq,
                relay_us,
                update,
            };
            let bytes = message.encode().into();
            let update = match message {
                WatchMessage::Update { update, .. } => update,
                _ => Update::default(),
            };
            let frame = Frame {
                kind: FrameKind::Update,
                seq,
                bytes,
            };
            (frame, update)
        };
        let _ = self.feed.send(frame.clone());
        (frame, update)
    }

    pub(super) fn idle_for(&self) -> Option<Duration> {
        if self.audience() > 0 {
            return None;
        }
        let shared = self.lock();
        if shared.record_wanted || shared.followed {
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

    /// Keeps the hub joined without viewers.
    pub fn follow(&self) {
        self.lock().followed = true;
    }

    /// Lets a followed hub go: with viewers, after the last one's grace period; with nobody
    /// watching, at once, since the grace period is for viewers coming back and there are
    /// none (and a full server's players want the slot back now).
    pub fn unfollow(&self, grace: Duration) {
        let mut shared = self.lock();
        if shared.followed && self.audience() == 0 {
            let now = Instant::now();
            shared.idle_since = Some(now.checked_sub(grace).unwrap_or(now));
        }
        shared.followed = false;
    }

    /// The demo file being written, which is not to be served yet.
    pub fn record_path(&self) -> Option<PathBuf> {
        self.lock().record_path.clone()
    }
}

/// Tells `taps` of a frame this relay's viewers were sent, with the change it carries.
pub(super) fn tell(
    hub: &Hub,
    taps: &mut [Box<dyn HubTap>],
    frame: &Frame,
    relay_us: u64,
    update: &Update,
) {
    let released = Released {
        seq: frame.seq,
        relay_us,
        update,
        message: &frame.bytes,
        keyframe: frame.kind == FrameKind::Keyframe,
    };
    for tap in taps {
        tap.released(hub, &released);
    }
}

/// A viewer's hold on a hub; dropping it lets the hub's grace period start.
pub struct ViewerGuard {
    hub: Arc<Hub>,
}

impl ViewerGuard {
    pub(super) fn new(hub: Arc<Hub>) -> Self {
        Self { hub }
    }

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

impl HubFace for Hub {
    fn server(&self) -> ServerAddr {
        self.addr
    }

    fn record_wanted(&self) -> bool {
        Hub::record_wanted(self)
    }

    fn set_recording(&self, on: bool) {
        Hub::set_recording(self, on);
    }

    fn recording_began(&self) {
        self.set_status(|s| s.record_stopped = None);
    }

    fn show_recording(&self, file: Option<(PathBuf, RecordingStatus)>, stopped: Option<String>) {
        let (path, shown) = file.unzip();
        let changed = {
            let mut shared = self.lock();
            let changed = shared.record_path != path;
            shared.record_path = path;
            changed || shared.status_sent_at.elapsed() >= STATUS_EVERY
        };
        // The size shown grows at most once a second; a new file or a stop shows at once.
        if !changed && stopped.is_none() {
            return;
        }
        self.set_status(|s| {
            s.recording = shown;
            if stopped.is_some() {
                s.record_stopped = stopped;
            }
        });
    }

    fn lease_token(&self) -> Option<u64> {
        Some(self.lease_token.load(Ordering::Acquire)).filter(|&t| t > 0)
    }

    fn keyframe(&self) -> Option<Bytes> {
        Hub::keyframe(self).map(|frame| frame.bytes)
    }

    fn recording_file(&self) -> Option<String> {
        let path = self.lock().record_path.clone()?;
        Some(path.file_name()?.to_string_lossy().into_owned())
    }
}
