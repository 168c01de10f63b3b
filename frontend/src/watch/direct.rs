//! Watch directly: the page's own spectator session, run by the session worker (`cod::client`,
//! the hubs' `SpectatorInput` and `MatchModel`) through the relay's bridge, and drawn by the
//! same watch view; for a relay whose operator turned hubs off, or to see a server with one's
//! own session (no broadcast delay, a server slot of one's own).

use leptos::prelude::*;
use session::{Reply, Request};

use super::Live;
use crate::bridge::bridge_url;
use crate::worker::SessionWorker;

/// Starts the worker on `addr`; its views go to the watch view. Send it [`Request::Stop`] to
/// leave the server cleanly.
pub fn follow(addr: &str, live: StoredValue<Live, LocalStorage>) -> Result<SessionWorker, String> {
    let request = Request::Watch {
        url: bridge_url(addr),
        addr: addr.to_owned(),
    };
    SessionWorker::start(&request, move |reply| {
        if let Reply::Watch(message) = reply {
            live.update_value(|l| l.take(message));
        }
    })
}
