//! The Muster page: a live CoD:UO server browser fed by the relay's WebSocket; the watch view
//! (`/watch/`), the tuning page (`/tuning/`), the demo player (`/playback/`) and the admin
//! console (`/admin/`), pages of their own so the browser's first download carries none of them.

mod admin;
mod app;
mod bridge;
mod bus;
mod coloured;
mod detail;
mod feed;
mod first_screen;
mod header;
mod history;
mod list;
mod net;
mod panels;
mod personal;
mod tools;
mod tuning;
mod watch;
mod worker;
mod wulfram;

/// The server browser, mounted beside the relay's first screen until it can take its place.
pub fn page() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to(first_screen::app_root(), app::App).forget();
}

/// The side panels, started by the server browser when first reached for (`panels.rs`).
pub fn panels() {
    console_error_panic_hook::set_once();
    panels::start();
}

/// The admin console, shown in the server detail's Admin tab.
pub fn admin() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(admin::Admin);
}

/// The tuning page.
pub fn tuning() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(tuning::TuningApp);
}

/// The watch view of one match.
pub fn watch() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(watch::WatchPage);
}

/// The demo player.
pub fn playback() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(watch::Playback);
}
