//! The demo player (`playback.html`, served at `/playback/`).

fn main() {
    muster_frontend::playback();
}
