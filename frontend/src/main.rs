//! The server browser (`index.html`).

fn main() {
    muster_frontend::page();
}
