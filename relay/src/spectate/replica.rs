//! The hub as `cluster.rs` drives it: [`Replica`] is the whole interface a hub's life across
//! relays has (holding the game slot and publishing, or mirroring another relay's frames), so
//! the cluster code cannot reach into the hub's release or its session.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use protocol::relay_api::watch::{apply, diff, MatchView, Update, WatchMessage};
use tokio::sync::broadcast;

use super::hub::{tell, Frame, FrameKind, Hub};
use super::registry::Hubs;
use super::task::HubTask;

use crate::cluster::lease::Trust;
use crate::net::ServerAddr;
use crate::seams::HubTap;

/// How far a takeover moves the update sequence (see [`Replica::take_over`]).
const SEQ_JUMP: u64 = 1_000;

/// What a mirrored frame came to.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Mirrored {
    Applied,
    /// An update that does not follow what this relay holds: it needs a keyframe.
    Gap,
    Unreadable,
}

/// One hub of this relay in a cluster, with the registry it retires from.
pub(super) struct Replica {
    hub: Arc<Hub>,
    hubs: Arc<Hubs>,
}

impl Replica {
    pub(super) fn new(hub: Arc<Hub>, hubs: Arc<Hubs>) -> Self {
        Self { hub, hubs }
    }

    pub(super) fn addr(&self) -> ServerAddr {
        self.hub.addr
    }

    /// The relay's rewind windows, which cut the clips other relays ask the holder for.
    pub(super) fn rewind(&self) -> Option<Arc<dyn crate::seams::Rewinding>> {
        self.hubs.config().rewind.0.clone()
    }

    /// Viewers on this relay.
    pub(super) fn viewers(&self) -> u32 {
        self.hub.viewers()
    }

    /// Every frame this relay's hub sends from now on.
    pub(super) fn subscribe(&self) -> broadcast::Receiver<Frame> {
        self.hub.subscribe()
    }

    pub(super) fn keyframe(&self) -> Option<Frame> {
        self.hub.keyframe()
    }

    pub(super) fn record_wanted(&self) -> bool {
        self.hub.record_wanted()
    }

    pub(super) fn set_recording(&self, on: bool) {
        self.hub.set_recording(on);
    }

    /// On a mirror that was showing a recording: the new holder carries it on.
    pub(super) fn carry_recording_on(&self) {
        if self.hub.status().recording.is_some() {
            self.hub.set_recording(true);
        }
    }

    /// Starts the game session on this relay, as a lone relay does, joining with `qport`
    /// (the cluster's for this server, so a successor reclaims a dead holder's slot) and
    /// sending only while `trust` holds.
    pub(super) fn start_session(
        &self,
        qport: Option<u16>,
        trust: Option<Trust>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(HubTask::new(self.hub.clone(), self.hubs.clone(), qport, trust).run())
    }

    /// Removes the hub if it has been idle past the grace period.
    pub(super) fn retire_if_idle(&self) -> bool {
        self.hub
            .idle_for()
            .is_some_and(|idle| idle >= self.hubs.config().grace)
            && self.hubs.retire(&self.hub)
    }

    /// The hub's status and its keyframe (if a picture went out yet), for a mirror that starts
    /// or fell behind: a 4-byte length, the status frame, then the keyframe.
    pub(super) fn picture(&self) -> Bytes {
        let status = self.hub.status_frame().bytes;
        let keyframe = self.hub.keyframe().map(|k| k.bytes).unwrap_or_default();
        let mut out = Vec::with_capacity(4 + status.len() + keyframe.len());
        out.extend_from_slice(&(status.len() as u32).to_be_bytes());
        out.extend_from_slice(&status);
        out.extend_from_slice(&keyframe);
        out.into()
    }

    /// The viewers other relays report; none left starts the grace period.
    pub(super) fn set_remote_viewers(&self, n: u32) {
        let before = self.hub.remote_viewers.swap(n, Ordering::AcqRel);
        let mut shared = self.hub.lock();
        if n > 0 {
            shared.idle_since = None;
        } else if before > 0 && self.hub.viewers() == 0 {
            shared.idle_since = Some(Instant::now());
        }
    }

    /// Ends the session (with its goodbye) without closing the hub, or lets a later one run.
    pub(super) fn hand_over(&self, on: bool) {
        self.hub.handing_over.store(on, Ordering::Release);
    }

    /// Notes the hub lease's fencing token as held now (tokens only grow).
    pub(super) fn hold_lease(&self, token: u64) {
        self.hub.lease_token.fetch_max(token, Ordering::AcqRel);
    }

    /// On a relay that takes the game slot over: the sequence jumps past anything a viewer on
    /// another relay may hold (relays drift apart by at most a backlog before
    /// resynchronising), and the first release is a whole keyframe, so every viewer starts
    /// again from it.
    pub(super) fn take_over(&self) {
        let mut shared = self.hub.lock();
        if shared.seq > 0 {
            shared.seq += SEQ_JUMP;
            shared.restart = true;
        }
    }

    /// The taps that follow a mirrored hub (made when mirroring starts).
    pub(super) fn mirror_taps(&self) -> Vec<Box<dyn HubTap>> {
        let taps = &self.hubs.config().mirror_taps.0;
        taps.iter().map(|make| make(self.hub.addr)).collect()
    }

    /// On a relay that mirrors another's hub: one frame as its hub published it, forwarded
    /// unchanged to this relay's viewers, applied to what late joiners get, and offered to
    /// the mirror's `taps` (a keyframe as the whole match told as one change).
    pub(super) fn mirror(&self, bytes: Bytes, taps: &mut [Box<dyn HubTap>]) -> Mirrored {
        let (mirrored, told) = self.mirror_frame(bytes, !taps.is_empty());
        if let Some((frame, relay_us, update)) = told {
            tell(&self.hub, taps, &frame, relay_us, &update);
        }
        mirrored
    }

    /// [`Replica::mirror`] under the hub's lock; with `telling`, also the frame sent to the
    /// viewers, its time and its change, for the taps (which run after the lock is let go:
    /// they read the hub).
    fn mirror_frame(
        &self,
        bytes: Bytes,
        telling: bool,
    ) -> (Mirrored, Option<(Frame, u64, Update)>) {
        let Ok(message) = WatchMessage::decode(&bytes) else {
            return (Mirrored::Unreadable, None);
        };
        let mut shared = self.hub.lock();
        let mut told = None;
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
                    return (Mirrored::Applied, None);
                }
                // The whole match as one change, for the taps only.
                let whole = telling.then(|| diff(&MatchView::default(), &view));
                shared.released = view;
                shared.seq = seq;
                shared.relay_us = relay_us;
                let frame = Frame {
                    kind: FrameKind::Keyframe,
                    seq,
                    bytes,
                };
                shared.keyframe = Some(frame.clone());
                told = whole.map(|whole| (frame.clone(), relay_us, whole));
                frame
            }
            WatchMessage::Update {
                seq,
                relay_us,
                update,
            } => {
                if shared.seq != 0 && seq <= shared.seq {
                    return (Mirrored::Applied, None);
                }
                if shared.seq == 0 || seq != shared.seq + 1 {
                    return (Mirrored::Gap, None);
                }
                apply(&mut shared.released, &update);
                shared.seq = seq;
                shared.relay_us = relay_us;
                shared.keyframe = None;
                let frame = Frame {
                    kind: FrameKind::Update,
                    seq,
                    bytes,
                };
                if telling {
                    told = Some((frame.clone(), relay_us, update));
                }
                frame
            }
            // A viewer's own place in the rewind window: no hub publishes one.
            WatchMessage::Playing { .. } => return (Mirrored::Unreadable, None),
        };
        let _ = self.hub.feed.send(frame);
        (Mirrored::Applied, told)
    }
}
