//! The tuning page (`tuning.html`, served at `/tuning/`).

fn main() {
    muster_frontend::tuning();
}
