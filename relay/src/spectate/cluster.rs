//! One game slot per match across a cluster. Every relay with viewers of a server campaigns
//! for the lease `hub.ADDR`; the holder runs the hub's game session as a lone relay does and
//! publishes each frame it sends its own viewers, the same bytes, once, on
//! `muster.hub.ADDR.frames`. The other relays mirror it: they forward those bytes to their
//! viewers and apply them to their own copy of the released match, so a late joiner on any
//! relay gets a keyframe from its own relay at once. A mirror that misses an update asks the
//! holder for a keyframe (`.keyframe`), says every second how many viewers it has (`.viewers`:
//! the holder keeps the slot while anyone watches anywhere), and forwards recording requests
//! (`.record`) and moments (`.moment`: only the holder's session saw the game's messages a
//! clip is cut from). When the holder's relay dies its lease expires; a mirror wins it, joins the
//! server (one new `connect`) and starts its viewers and every other relay's again from a
//! keyframe.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};

use super::replica::{Mirrored, Replica};
use crate::cluster::lease::{Lease, Trust};
use crate::cluster::{token, Cluster, Counters};
use crate::net::ServerAddr;
use crate::seams::{Clip, ClipRefused, Clipping, HubTap, Rewinding};
use crate::AbortOnDrop;
use protocol::relay_api::moments::MomentTime;

/// How often mirrors report their viewers, and how long a report counts.
const REPORT_EVERY: Duration = Duration::from_secs(1);
const REPORT_COUNTS_FOR: Duration = Duration::from_secs(4);
/// How long a session that lost its lease has to say goodbye.
const HAND_OVER: Duration = Duration::from_secs(2);

/// A mirror's report to the holder.
#[derive(Serialize, Deserialize)]
struct Viewers {
    relay: String,
    viewers: u32,
}

struct Subjects {
    frames: String,
    keyframe: String,
    viewers: String,
    record: String,
    moment: String,
    lease: String,
}

impl Subjects {
    fn of(hub: &Replica) -> Self {
        let t = token(&hub.addr().0);
        Self {
            frames: format!("muster.hub.{t}.frames"),
            keyframe: format!("muster.hub.{t}.keyframe"),
            viewers: format!("muster.hub.{t}.viewers"),
            record: format!("muster.hub.{t}.record"),
            moment: format!("muster.hub.{t}.moment"),
            lease: format!("hub.{t}"),
        }
    }
}

/// How a role ended.
enum Ended {
    Retired,
    LeaseLost,
    LeaseWon,
    /// NATS refused a subscription: the same role is tried again (after a pause).
    Unsubscribed,
}

/// The hub's life in a cluster: holding the game slot or mirroring the relay that does, until
/// nobody on this relay needs it.
pub(super) async fn run(hub: Replica, cluster: Arc<Cluster>) {
    let subjects = Subjects::of(&hub);
    let lease = Lease::campaign(cluster.clone(), subjects.lease.clone());
    let mut held = lease.watch();
    // The first campaign round decides whether this relay starts the session or mirrors.
    let _ = tokio::time::timeout(Duration::from_secs(1), held.changed()).await;
    let trust = lease.trust();
    let role = Role {
        hub: &hub,
        cluster: &cluster,
        subjects: &subjects,
        trust: &trust,
    };
    loop {
        let ended = if held.borrow_and_update().is_some() {
            role.hold(&mut held).await
        } else {
            role.mirror(&mut held).await
        };
        match ended {
            Ended::Retired => return,
            Ended::LeaseLost => tracing::warn!(server = %hub.addr(), "hub lease lost: mirroring"),
            Ended::LeaseWon => tracing::info!(server = %hub.addr(), "hub taken over"),
            Ended::Unsubscribed => {}
        }
    }
}

/// One hub's part in the cluster, as holder of its game slot or as a mirror.
struct Role<'a> {
    hub: &'a Replica,
    cluster: &'a Arc<Cluster>,
    subjects: &'a Subjects,
    /// The hub lease by the clock: the session sends nothing once it is over.
    trust: &'a Trust,
}

impl Role<'_> {
    /// The relay holding the game slot: the session, and its frames out to the other relays.
    async fn hold(&self, held: &mut watch::Receiver<Option<u64>>) -> Ended {
        let Self {
            hub,
            cluster,
            subjects,
            trust,
        } = *self;
        let client = &cluster.client;
        let (Ok(mut keyframes), Ok(mut reports), Ok(mut records), Ok(mut moments)) = (
            client.subscribe(subjects.keyframe.clone()).await,
            client.subscribe(subjects.viewers.clone()).await,
            client.subscribe(subjects.record.clone()).await,
            client.subscribe(subjects.moment.clone()).await,
        ) else {
            tracing::warn!(server = %hub.addr(), "cannot subscribe to the hub's subjects");
            tokio::time::sleep(REPORT_EVERY).await;
            return Ended::Unsubscribed;
        };
        hub.carry_recording_on();
        hub.take_over();
        let token = |held: &watch::Receiver<Option<u64>>| {
            held.borrow()
                .map(|revision| cluster.fencing_token(revision))
        };
        if let Some(token) = token(held) {
            hub.hold_lease(token);
        }
        let mut frames = hub.subscribe();
        let qport = cluster.hub_qport(hub.addr().into());
        let mut session = AbortOnDrop(hub.start_session(qport, Some(trust.clone())));
        let mut counts: HashMap<String, (Instant, u32)> = HashMap::new();
        let mut tally = tokio::time::interval(REPORT_EVERY);
        loop {
            tokio::select! {
                // A session fenced off by the clock (this relay was paused past its lease)
                // left the slot to whoever holds it now; the hub stays, to mirror.
                _ = &mut session.0 => {
                    return if trust.holds_now() { Ended::Retired } else { Ended::LeaseLost };
                }
                changed = held.changed() => {
                    if let Some(token) = token(held) {
                        hub.hold_lease(token);
                    }
                    if changed.is_err() || held.borrow().is_none() {
                        // Another relay may hold the slot now: this session says goodbye to
                        // the server (freeing its slot at once) and ends; the hub stays.
                        hub.hand_over(true);
                        let _ = tokio::time::timeout(HAND_OVER, &mut session.0).await;
                        hub.hand_over(false);
                        return Ended::LeaseLost;
                    }
                }
                frame = frames.recv() => match frame {
                    Ok(frame) => cluster.publish(subjects.frames.clone(), frame.bytes).await,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        Counters::add(&cluster.counters.hub_keyframes_resent);
                        if let Some(keyframe) = hub.keyframe() {
                            cluster.publish(subjects.frames.clone(), keyframe.bytes).await;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ended::Retired,
                },
                Some(request) = keyframes.next() => {
                    if let Some(reply) = request.reply {
                        let answer = hub.picture();
                        let _ = client.publish(reply, answer).await;
                    }
                }
                Some(report) = reports.next() => {
                    if let Ok(report) = serde_json::from_slice::<Viewers>(&report.payload) {
                        counts.insert(report.relay, (Instant::now(), report.viewers));
                    }
                }
                Some(request) = records.next() => {
                    let on = request.payload.as_ref() == b"on";
                    hub.set_recording(on);
                    if let Some(reply) = request.reply {
                        let _ = client.publish(reply, Bytes::from_static(b"ok")).await;
                    }
                }
                Some(request) = moments.next() => {
                    if let (Some(reply), Some(rewind)) = (request.reply, hub.rewind()) {
                        // Cut off the loop: the frames keep flowing meanwhile.
                        let (client, server) = (client.clone(), hub.addr());
                        tokio::spawn(async move {
                            let answer = tokio::task::spawn_blocking(move || {
                                clip_answer(rewind.as_ref(), server, &request.payload)
                            });
                            if let Ok(answer) = answer.await {
                                let _ = client.publish(reply, answer).await;
                            }
                        });
                    }
                }
                _ = tally.tick() => {
                    counts.retain(|_, (at, _)| at.elapsed() < REPORT_COUNTS_FOR);
                    hub.set_remote_viewers(counts.values().map(|(_, n)| n).sum());
                }
            }
        }
    }

    /// A relay without the slot: forwards the holder's frames to its viewers, campaigning all the
    /// while so it can take over.
    async fn mirror(&self, held: &mut watch::Receiver<Option<u64>>) -> Ended {
        let Self {
            hub,
            cluster,
            subjects,
            ..
        } = *self;
        let Ok(mut frames) = cluster.client.subscribe(subjects.frames.clone()).await else {
            tokio::time::sleep(REPORT_EVERY).await;
            return Ended::Unsubscribed;
        };
        let mut taps = hub.mirror_taps();
        let mut synced = resync(hub, cluster, subjects, &mut taps).await;
        let mut report = tokio::time::interval(REPORT_EVERY);
        let mut record_said = false;
        loop {
            tokio::select! {
                changed = held.changed() => {
                    if changed.is_err() {
                        return Ended::Retired;
                    }
                    if held.borrow().is_some() {
                        return Ended::LeaseWon;
                    }
                }
                Some(message) = frames.next() => {
                    if hub.mirror(message.payload, &mut taps) == Mirrored::Gap {
                        synced = resync(hub, cluster, subjects, &mut taps).await;
                    }
                }
                _ = report.tick() => {
                    if hub.retire_if_idle() {
                        return Ended::Retired;
                    }
                    let viewers = Viewers { relay: cluster.relay.clone(), viewers: hub.viewers() };
                    if let Ok(bytes) = serde_json::to_vec(&viewers) {
                        cluster.publish(subjects.viewers.clone(), bytes.into()).await;
                    }
                    let wanted = hub.record_wanted();
                    if wanted != record_said {
                        let ask = Bytes::from_static(if wanted { b"on" } else { b"off" });
                        if cluster.client.request(subjects.record.clone(), ask).await.is_ok() {
                            record_said = wanted;
                        }
                    }
                    if !synced {
                        synced = resync(hub, cluster, subjects, &mut taps).await;
                    }
                }
            }
        }
    }
}

/// A clip's span as one relay asks another for it (Unix ms: the relays' clocks agree on the
/// released match, whose times the holder stamped).
#[derive(Serialize, Deserialize)]
struct ClipAsk {
    from_ms: u64,
    to_ms: u64,
}

/// The holder's answer to `.moment`: the clip's description as JSON, its length first, then
/// the demo's bytes; or the refusal.
fn clip_answer(rewind: &dyn Rewinding, server: ServerAddr, ask: &[u8]) -> Bytes {
    let clip = match serde_json::from_slice::<ClipAsk>(ask) {
        Ok(ask) => rewind.clip(
            server,
            MomentTime::UnixMs(ask.from_ms),
            MomentTime::UnixMs(ask.to_ms),
        ),
        Err(e) => Err(ClipRefused::Span(format!("unreadable ask: {e}"))),
    };
    let demo = clip.as_ref().map(|c| c.demo.clone()).unwrap_or_default();
    let head = serde_json::to_vec(&clip).unwrap_or_default();
    let mut answer = (head.len() as u32).to_be_bytes().to_vec();
    answer.extend(head);
    answer.extend(demo);
    answer.into()
}

/// Cuts clips here, or, for a match this relay mirrors, asks the relay holding its session.
pub struct ClusterClipping {
    pub local: Arc<dyn Rewinding>,
    pub cluster: Arc<Cluster>,
    pub runtime: tokio::runtime::Handle,
}

/// How long a mirror waits for the holder's clip.
const CLIP_WAIT: Duration = Duration::from_secs(5);

impl Clipping for ClusterClipping {
    fn edge_us(&self, server: ServerAddr) -> Option<u64> {
        self.local.edge_us(server)
    }

    fn clip(
        &self,
        server: ServerAddr,
        from: MomentTime,
        to: MomentTime,
    ) -> Result<Clip, ClipRefused> {
        match self.local.clip(server, from, to) {
            Err(ClipRefused::Mirrored) => {}
            done => return done,
        }
        let edge = self.local.edge_us(server).ok_or(ClipRefused::NoWindow)?;
        let ask = ClipAsk {
            from_ms: from.unix_us(edge) / 1000,
            to_ms: to.unix_us(edge) / 1000,
        };
        let subject = format!("muster.hub.{}.moment", token(&server.0));
        let payload = Bytes::from(serde_json::to_vec(&ask).unwrap_or_default());
        let asked = self.runtime.block_on(tokio::time::timeout(
            CLIP_WAIT,
            self.cluster.client.request(subject, payload),
        ));
        let Ok(Ok(reply)) = asked else {
            return Err(ClipRefused::Outside(
                "the relay holding this match's session did not answer".into(),
            ));
        };
        let payload = reply.payload;
        let len = payload
            .get(..4)
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize);
        let head = payload.get(4..4 + len).unwrap_or_default();
        let mut clip: Result<Clip, ClipRefused> = serde_json::from_slice(head)
            .map_err(|_| ClipRefused::Outside("the holder's clip did not read".into()))?;
        if let Ok(clip) = clip.as_mut() {
            clip.demo = payload.get(4 + len..).unwrap_or_default().to_vec();
        }
        clip
    }
}

/// Asks the holder for its status and keyframe; false when nobody answered (no holder yet).
async fn resync(
    hub: &Replica,
    cluster: &Cluster,
    subjects: &Subjects,
    taps: &mut [Box<dyn HubTap>],
) -> bool {
    Counters::add(&cluster.counters.hub_resyncs);
    let Ok(reply) = cluster
        .client
        .request(subjects.keyframe.clone(), Bytes::new())
        .await
    else {
        return false;
    };
    let payload = reply.payload;
    let Some(len) = payload
        .get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    else {
        return false;
    };
    let Some(status) = payload.get(4..4 + len) else {
        return false;
    };
    hub.mirror(payload.slice(4..4 + len.min(status.len())), taps);
    let keyframe = payload.slice(4 + len..);
    if !keyframe.is_empty() {
        hub.mirror(keyframe, taps);
    }
    true
}
