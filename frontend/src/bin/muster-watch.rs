//! The watch view (`watch.html`, served at `/watch/`).

fn main() {
    muster_frontend::watch();
}
