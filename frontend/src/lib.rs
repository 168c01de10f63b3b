//! The Muster page: a live CoD:UO server browser fed by the relay's WebSocket; the watch view
//! (`/watch/`), the tuning page (`/tuning/`), the demo player (`/playback/`) and the admin
//! console (`/admin/`), and the match and player pages (`/matches/ID`, `/players/NAME`, code
//! in `/results/`), pages of their own so the browser's first download carries none of them.

/// The visitor's language and its words (`tr!`); first, so every module below has the macro.
#[macro_use]
pub mod words;

// Plumbing: the relay's sockets and feed, what the browser keeps, the worker, the hand-over.
mod bus;
mod feed;
mod first_screen;
mod net;
mod personal;
mod worker;

/// One folder or file per page.
mod pages;
/// Pieces more than one page draws.
mod parts;

/// The server browser, mounted beside the relay's first screen until it can take its place.
pub fn page() {
    console_error_panic_hook::set_once();
    words::start(None);
    leptos::mount::mount_to(first_screen::app_root(), pages::browser::App).forget();
}

/// The side panels, started by the server browser when first reached for (`panels.rs`).
pub fn panels() {
    console_error_panic_hook::set_once();
    words::start(None);
    pages::browser::panels::start();
}

/// The admin console, shown in the server detail's Admin tab.
pub fn admin() {
    console_error_panic_hook::set_once();
    words::start(Some("title-admin"));
    leptos::mount::mount_to_body(pages::admin::Admin);
}

/// The tuning page.
pub fn tuning() {
    console_error_panic_hook::set_once();
    words::start(Some("title-tuning"));
    leptos::mount::mount_to_body(pages::tuning::TuningApp);
}

/// The watch view of one match.
pub fn watch() {
    console_error_panic_hook::set_once();
    words::start(Some("title-watch"));
    leptos::mount::mount_to_body(pages::watch::WatchPage);
}

/// The match and player pages, in place of the relay's first screen of them.
pub fn results() {
    console_error_panic_hook::set_once();
    words::start(None);
    pages::results::start();
}

/// The demo player.
pub fn playback() {
    console_error_panic_hook::set_once();
    // The demo player's own page; a moment's (`/m/ID`) is the relay's, titled by it.
    let own = leptos::prelude::window()
        .location()
        .pathname()
        .is_ok_and(|p| p.starts_with("/playback"));
    words::start(own.then_some("title-demos"));
    leptos::mount::mount_to_body(pages::playback::Playback);
}
