//! Watch directly: the page's own spectator session, `cod::client` in this wasm through the
//! relay's bridge, read by the same `MatchModel` the relay's hubs use and drawn by the same
//! watch view; for a relay whose operator turned hubs off, or to see a server with one's own
//! session (no broadcast delay, one server slot of one's own).

use std::time::Duration;

use leptos::prelude::*;
use protocol::cod::client::{Event, State};
use protocol::cod::spectator::{MatchModel, SpectatorInput};
use protocol::relay_api::watch::{HubState, HubStatus, WatchMessage};

use super::Live;
use crate::bridge::Player;
use crate::net::sleep;

/// The longest the loop sleeps: the follow presses step every 100 ms.
const STEP: Duration = Duration::from_millis(50);
/// The wait before a new session after one ended.
const RETRY: Duration = Duration::from_secs(5);

fn status(addr: &str, state: HubState) -> WatchMessage {
    WatchMessage::Status(HubStatus {
        addr: addr.into(),
        state,
        viewers: 1,
        delay_ms: 0,
        filling_ms: 0,
        overviews: Vec::new(),
    })
}

/// Spectates `addr` until `open` turns false, rejoining after a refusal or a lost session.
pub fn follow(addr: String, live: StoredValue<Live, LocalStorage>, open: StoredValue<bool>) {
    leptos::task::spawn_local(async move {
        while open.try_get_value().unwrap_or(false) {
            live.update_value(|l| l.take(status(&addr, HubState::Connecting)));
            let (reason, connected) = match session(&addr, live, open).await {
                Ok(()) => return,
                Err(ended) => ended,
            };
            let retry_ms = RETRY.as_millis() as u32;
            let state = if connected {
                HubState::Rejoining { reason, retry_ms }
            } else {
                HubState::Refused { reason, retry_ms }
            };
            live.update_value(|l| l.take(status(&addr, state)));
            sleep(RETRY).await;
        }
    });
}

/// One session: `Ok` when the view closed (and the session left cleanly), else why it ended
/// and whether it had been connected.
async fn session(
    addr: &str,
    live: StoredValue<Live, LocalStorage>,
    open: StoredValue<bool>,
) -> Result<(), (String, bool)> {
    let mut player = Player::join(addr).await.map_err(|e| (e, false))?;
    let mut input = SpectatorInput::new(true);
    let mut model = MatchModel::new();
    let (mut seq, mut connected) = (0u64, false);
    loop {
        if !open.try_get_value().unwrap_or(false) {
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
                    live.update_value(|l| l.take(status(addr, HubState::Active)));
                }
                Event::Snapshot(_) => {
                    seq += 1;
                    let view = model.view();
                    let keyframe = WatchMessage::Keyframe {
                        seq,
                        relay_us: 0,
                        view,
                    };
                    live.update_value(|l| l.take(keyframe));
                }
                Event::Disconnected(_) if !open.try_get_value().unwrap_or(false) => return Ok(()),
                Event::Disconnected(reason) => return Err((reason, connected)),
                _ => {}
            }
        }
    }
}
