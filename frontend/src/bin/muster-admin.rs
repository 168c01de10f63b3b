//! The admin console (`admin.html`, served at `/admin/`).

fn main() {
    muster_frontend::admin();
}
