//! The hub tap that fills a rewind window with what the hub released: each update's message
//! as viewers got it, and every few seconds the hub's own keyframe (the one joining viewers
//! get, encoded once). Kills are kept beside, named as they were then.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use protocol::relay_api::rewind::RewindKill;
use protocol::relay_api::watch::{FeedItem, PlayerChange, Update};

use super::reel::Kept;
use super::window::{Step, Window};
use super::Rewinds;
use crate::net::ServerAddr;
use crate::seams::{HubFace, HubTap, Released};
use crate::sync::Locked;
use protocol::cod::client::Event;

pub(super) struct RewindTap {
    pub(super) server: ServerAddr,
    pub(super) window: Arc<Mutex<Window>>,
    /// Filled only where the session runs (a mirror sees no game messages).
    reel: Arc<Mutex<Kept>>,
    pub(super) rewinds: Arc<Rewinds>,
    /// Each client's name as viewers hold it, for naming kills.
    names: HashMap<u8, String>,
}

impl RewindTap {
    pub(super) fn new(
        server: ServerAddr,
        window: Arc<Mutex<Window>>,
        reel: Arc<Mutex<Kept>>,
        rewinds: Arc<Rewinds>,
    ) -> Self {
        Self {
            server,
            window,
            reel,
            rewinds,
            names: HashMap::new(),
        }
    }

    /// Follows the names viewers hold and names the update's kills.
    fn kills(&mut self, relay_us: u64, update: &Update, whole: bool) -> Vec<RewindKill> {
        if whole {
            self.names.clear();
        }
        for change in &update.players {
            if let PlayerChange::Full(p) = change {
                self.names.insert(p.client, p.name.clone());
            }
        }
        let name = |names: &HashMap<u8, String>, client: u8| {
            names
                .get(&client)
                .cloned()
                .unwrap_or_else(|| format!("client {client}"))
        };
        let kills = if whole {
            // The first picture's feed happened before anything the window can show.
            Vec::new()
        } else {
            update
                .feed
                .iter()
                .filter_map(|item| match item {
                    FeedItem::Kill {
                        time,
                        attacker,
                        victim,
                        weapon,
                    } => Some(RewindKill {
                        relay_us,
                        server_time: *time,
                        attacker: attacker.map(|a| name(&self.names, a)),
                        victim: name(&self.names, *victim),
                        weapon: weapon.clone(),
                    }),
                    _ => None,
                })
                .collect()
        };
        for gone in &update.players_gone {
            self.names.remove(gone);
        }
        kills
    }
}

impl HubTap for RewindTap {
    fn event(&mut self, _hub: &dyn HubFace, _relay_us: u64, event: &Event) {
        self.reel.locked().handle(event);
    }

    fn released(&mut self, hub: &dyn HubFace, released: &Released<'_>) {
        let kills = self.kills(released.relay_us, released.update, released.keyframe);
        let step = Step {
            seq: released.seq,
            relay_us: released.relay_us,
            server_time: released.update.server_time,
            bytes: released.message.clone(),
        };
        let mut window = self.window.locked();
        if released.keyframe {
            // What came before does not lead here: a segment starts at this message.
            window.keyframe(step);
            return;
        }
        window.update(step.clone(), kills);
        if window.wants_keyframe(released.relay_us) {
            if let Some(bytes) = hub.keyframe() {
                window.keyframe(Step { bytes, ..step });
            }
        }
    }
}

impl Drop for RewindTap {
    /// The hub is gone: so is its window.
    fn drop(&mut self) {
        self.rewinds.forget(self.server);
    }
}
