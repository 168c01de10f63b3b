//! The Muster page: a live CoD:UO server browser fed by the relay's WebSocket; and the demo
//! player (`/playback/`), a page of its own so the browser's first download does not carry it.

mod app;
mod bridge;
mod coloured;
mod detail;
mod feed;
mod history;
mod list;
mod net;
mod personal;
mod tools;
mod tuning;
mod watch;
mod worker;
mod wulfram;

/// The server browser.
pub fn page() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}

/// The demo player.
pub fn playback() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(watch::Playback);
}
