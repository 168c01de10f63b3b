//! What the page's sockets share: the relay's WebSocket address for a path, and a timer to
//! wait before reconnecting.

use std::time::Duration;

use leptos::prelude::*;

/// `ws(s)://<this page's host><path>`.
pub fn ws_url(path: &str) -> String {
    let location = window().location();
    let scheme = match location.protocol().as_deref() {
        Ok("https:") => "wss",
        _ => "ws",
    };
    let host = location.host().unwrap_or_default();
    format!("{scheme}://{host}{path}")
}

pub async fn sleep(duration: Duration) {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = done.send(());
        },
        duration,
    );
    let _ = wait.await;
}

/// Local time in ms: the watch view's render clock, round trips.
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
