//! The Muster page: a live CoD:UO server browser fed by the relay's WebSocket.

mod app;
mod bridge;
mod coloured;
mod detail;
mod feed;
mod list;
mod net;
mod personal;
mod tools;
mod tuning;
mod watch;
mod worker;
mod wulfram;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
