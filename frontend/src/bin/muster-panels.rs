//! The server browser's side panels, fetched when first reached for (`panels.rs`).

fn main() {
    muster_frontend::panels();
}
