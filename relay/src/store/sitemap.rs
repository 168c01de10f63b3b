//! What the sitemap lists from the store, alike on both backends (through [`Exec`]): the newest
//! matches, the players who played a followed match (each has a page), and the moments kept.

use super::matches::exec::{Cell, Exec};
use super::matches::int;
use super::Result;

/// Pages the store has, newest first, each with when it last changed (Unix ms).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// Match ids, with the match's end.
    pub matches: Vec<(u64, u64)>,
    /// Player keys (as their pages' paths name them), with when each was last seen.
    pub players: Vec<(String, u64)>,
    /// Moment ids, with when each was made.
    pub moments: Vec<(String, u64)>,
}

/// At most `limit` of each.
pub fn listed(db: &mut dyn Exec, limit: u64) -> Result<Listed> {
    let n = [int(limit)];
    let number = |c: &Cell| c.int().max(0) as u64;
    let matches = db
        .rows(
            "SELECT id, end_ms FROM matches ORDER BY id DESC LIMIT $1",
            &n,
        )?
        .iter()
        .map(|r| (number(&r[0]), number(&r[1])))
        .collect();
    let players = db
        .rows(
            "SELECT p.key, p.last_ms FROM players p
             WHERE EXISTS (SELECT 1 FROM match_players mp WHERE mp.player = p.id)
             ORDER BY p.last_ms DESC LIMIT $1",
            &n,
        )?
        .iter()
        .map(|r| (r[0].text(), number(&r[1])))
        .collect();
    let moments = db
        .rows(
            "SELECT id, created_ms FROM moments ORDER BY created_ms DESC LIMIT $1",
            &n,
        )?
        .iter()
        .map(|r| (r[0].text(), number(&r[1])))
        .collect();
    Ok(Listed {
        matches,
        players,
        moments,
    })
}
