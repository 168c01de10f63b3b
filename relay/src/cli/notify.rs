//! systemd's service protocol (`sd_notify`), for the Debian package's `Type=notify` unit:
//! `READY=1` once every listener is bound (so `systemctl start` returns when the relay serves,
//! and units ordered after it start then), `WATCHDOG=1` at half the unit's `WatchdogSec`
//! from a task on the relay's own runtime (a runtime that stops scheduling misses it and
//! systemd restarts the relay), and `STOPPING=1` when a signal starts the shutdown. Without
//! `NOTIFY_SOCKET` (started by hand, by a test) each is a no-op.

use sd_notify::NotifyState;

/// Tells systemd the relay serves `addrs`, and starts the watchdog's pings if the unit asks.
pub fn ready(addrs: &[std::net::SocketAddr]) {
    let serving: Vec<String> = addrs.iter().map(|a| format!("http://{a}/")).collect();
    let status = format!("serving {}", serving.join(" "));
    send(&[NotifyState::Ready, NotifyState::Status(&status)]);
    if let Some(every) = sd_notify::watchdog_enabled() {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every / 2);
            loop {
                tick.tick().await;
                send(&[NotifyState::Watchdog]);
            }
        });
    }
}

/// Tells systemd the relay is shutting down (what `systemctl status` shows meanwhile).
pub fn stopping(signal: &str) {
    let status = format!("{signal}: shutting down");
    send(&[NotifyState::Stopping, NotifyState::Status(&status)]);
}

fn send(states: &[NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!("telling systemd: {e}");
    }
}
