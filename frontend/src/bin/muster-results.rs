//! The match and player pages (`results.html`, served under `/results/` and named by the
//! relay's HTML of `/matches/ID` and `/players/NAME`).

fn main() {
    muster_frontend::results();
}
