//! A hub's session loop: joining the server (one slot), the match model, the delay queue,
//! and the taps that follow the session; it rejoins a server that went away, with backoff,
//! and leaves cleanly when the hub retires, hands over or the relay shuts down.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::cod::client::{ClientConfig, Event, State};
use protocol::cod::watch::spectator::MatchModel;
use protocol::relay_api::watch::{apply, diff, HubState, MatchView, Update};

use super::config::SpectateConfig;
use super::delay::DelayQueue;
use super::hub::{tell, Hub, STATUS_EVERY};
use super::registry::Hubs;
use crate::cluster::lease::Trust;
use crate::game_link::{Arrival, GameLink};
use crate::net::{unix_us, ServerAddr};
use crate::seams::HubTap;

/// The first and the longest wait before rejoining a server.
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A full server is asked again at this steady pace (the stock client's own handshake resend):
/// a slot frees when anyone leaves, and the viewers are waiting for it.
const FULL_RETRY: Duration = Duration::from_secs(3);

/// The hub's session: the shared driver, and whether the server ever let it in (a refusal
/// before that is told apart from a lost session).
struct Session {
    link: GameLink,
    connected: bool,
}

impl Session {
    /// Joins with `qport`, or a random one.
    async fn open(
        addr: ServerAddr,
        config: &SpectateConfig,
        qport: Option<u16>,
    ) -> std::io::Result<Self> {
        let client = ClientConfig {
            name: config.name.clone(),
            qport: qport.unwrap_or_else(rand::random),
            timeout_ms: config.timeout.as_millis() as u64,
            password: config.server_passwords.get(&addr).cloned(),
            ..ClientConfig::default()
        };
        Ok(Self {
            link: GameLink::open(addr.into(), client, true).await?,
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
    /// The qport every session of this task joins with (`None`: a random one each time).
    qport: Option<u16>,
    /// In a cluster, the hub lease by the clock: once it is over another relay may hold the
    /// game slot, so this session sends nothing more.
    trust: Option<Trust>,
    /// What follows the session: the demo recorder, and whatever else the relay plugs in.
    taps: Vec<Box<dyn HubTap>>,
}

impl HubTask {
    pub(super) fn new(
        hub: Arc<Hub>,
        hubs: Arc<Hubs>,
        qport: Option<u16>,
        trust: Option<Trust>,
    ) -> Self {
        let delay = hubs.config().delay;
        Self {
            session: None,
            model: MatchModel::new(),
            pushed: MatchView::default(),
            queue: DelayQueue::new(delay),
            rejoin_at: Some(Instant::now()),
            backoff: FIRST_BACKOFF,
            qport,
            trust,
            taps: hubs
                .config()
                .taps
                .0
                .iter()
                .map(|make| make(hub.addr))
                .collect(),
            hub,
            hubs,
        }
    }

    pub(super) async fn run(mut self) {
        self.hubs.running.fetch_add(1, Ordering::AcqRel);
        self.session_loop().await;
        self.hubs.running.fetch_sub(1, Ordering::AcqRel);
    }

    /// Whether the lease this session holds the slot under is over.
    fn fenced_off(&self) -> bool {
        self.trust.as_ref().is_some_and(|t| !t.holds_now())
    }

    async fn session_loop(&mut self) {
        loop {
            // Asked before anything is sent: after a pause the clock says it first.
            if self.fenced_off() || self.hub.handing_over() || self.hub.closing() {
                break;
            }
            if self
                .hub
                .idle_for()
                .is_some_and(|idle| idle >= self.hubs.config().grace)
                && self.hubs.retire(&self.hub)
            {
                break;
            }
            if self.session.is_none() && self.rejoin_at.is_some_and(|at| Instant::now() >= at) {
                self.rejoin_at = None;
                match Session::open(self.hub.addr, self.hubs.config(), self.qport).await {
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
            self.turn_taps();
            self.events(arrival.at, arrival.unix_us);
            self.release(Instant::now());
            self.hub.refresh_viewers();
        }
        let fenced_off = self.fenced_off();
        let handing_over = self.hub.handing_over() || fenced_off;
        if !handing_over {
            self.hub.set_recording(false);
        }
        // A successor joins as this very client (the cluster's qport from the same address):
        // the server would credit a goodbye, or any datagram, to the successor's session and
        // drop it. The slot is left as it is; the successor takes it over.
        let silent = fenced_off && self.qport.is_some();
        if let Some(session) = self.session.as_mut().filter(|_| !silent) {
            session.link.farewell().await;
            // The goodbye ends a recording: its file gets its end marker.
            self.turn_taps();
        }
        // The session is over: taps see it gone (a followed match is left unfinished).
        self.session = None;
        self.turn_taps();
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
            for tap in &mut self.taps {
                tap.event(&*self.hub, relay_us, &event);
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

    /// Offers the turn to every tap (the recorder starts, writes and stops here). Runs
    /// before the session's events are read, so a session that ended has closed its file.
    fn turn_taps(&mut self) {
        let mut client = self.session.as_mut().map(|s| &mut s.link.client);
        for tap in &mut self.taps {
            tap.turn(&*self.hub, client.as_deref_mut());
        }
    }

    /// The session ended: a refusal before it was connected, or a lost session; rejoin after
    /// the backoff.
    fn lost(&mut self, reason: String, connected: bool) {
        let retry = if reason.contains("SERVERISFULL") {
            FULL_RETRY
        } else {
            let retry = self.backoff;
            self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
            retry
        };
        self.rejoin_at = Some(Instant::now() + retry);
        let retry_ms = retry.as_millis() as u32;
        tracing::info!(server = %self.hub.addr, %reason, "spectator session ended");
        let reason = if reason.contains("INVALIDPASSWORD") {
            if self
                .hubs
                .config()
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
            let (frame, update) = self.hub.release(relay_us, update);
            tell(&self.hub, &mut self.taps, &frame, relay_us, &update);
            released = true;
        }
        if released && self.hub.lock().status.filling_ms != 0 {
            self.hub.set_status(|s| s.filling_ms = 0);
        }
    }
}
