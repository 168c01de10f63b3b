//! Watch directly: the page's own spectator session, run by the session worker (`cod::client`,
//! the hubs' `SpectatorInput` and `MatchModel`) through the relay's bridge, and drawn by the
//! same watch view; for a relay whose operator turned hubs off, or to see a server with one's
//! own session (no broadcast delay, a server slot of one's own).

use leptos::prelude::*;
use protocol::relay_api::watch::HubState;
use session::{Reply, Request};

use super::live::Live;
use crate::pages::browser::bridge::bridge_url;
use crate::worker::SessionWorker;

/// How long leaving the page waits for the worker to leave the server: a moment, so a dead
/// bridge cannot hold the page.
const LEAVE_WAIT_MS: u64 = 2000;

/// Starts the worker on `addr`; its views go to the watch view. Send it [`Request::Stop`] to
/// leave the server cleanly; `left` is set once it has.
pub fn follow(
    addr: &str,
    live: StoredValue<Live, LocalStorage>,
    left: RwSignal<bool>,
) -> Result<SessionWorker, String> {
    let request = Request::Watch {
        url: bridge_url(addr),
        addr: addr.to_owned(),
    };
    let watched = addr.to_owned();
    SessionWorker::start(&request, move |reply: Reply| match reply {
        Reply::Watch(message) => live.update_value(|l| l.take(message)),
        Reply::Left => left.set(true),
        Reply::Failed(reason) => {
            let state = HubState::Refused {
                reason,
                retry_ms: 0,
            };
            live.update_value(|l| l.take(session::watch_status(&watched, state)));
            left.set(true);
        }
        _ => {}
    })
}

/// Leaves for `href` once the worker has left its server (a worker dies with its page, which
/// would leave the server's slot taken until it times the client out), or after
/// [`LEAVE_WAIT_MS`].
pub fn leave_then_go(worker: &SessionWorker, left: RwSignal<bool>, href: &'static str) {
    worker.send(&Request::Stop);
    let go = move || {
        let _ = window().location().assign(href);
    };
    Effect::new(move |_| {
        if left.get() {
            go();
        }
    });
    set_timeout(go, std::time::Duration::from_millis(LEAVE_WAIT_MS));
}
