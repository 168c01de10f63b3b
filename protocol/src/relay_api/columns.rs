//! The keyframe's and players index's binary layout: column by column, rows in id order with
//! each id sent as its step from the one before. Deflate finds more to share in a column of
//! hostnames or of maps than in rows that interleave them, and ids in order cost a byte each
//! before compression and almost nothing after: at 5,000 lab servers the list deflates to
//! about a third less than row by row (measured with the page bench's fleet).

use alloc::string::String;
use alloc::vec::Vec;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::feed::{IndexedPlayer, ServerPlayers, Summary};
use super::Reachability;

/// Ids in ascending order as steps from the previous one (the first from zero).
fn steps(ids: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut last = 0u32;
    ids.map(|id| {
        let step = id.wrapping_sub(last);
        last = id;
        step
    })
    .collect()
}

fn ids(steps: &[u32]) -> impl Iterator<Item = u32> + '_ {
    steps.iter().scan(0u32, |id, step| {
        *id = id.wrapping_add(*step);
        Some(*id)
    })
}

fn by_id<T>(rows: &[T], id: impl Fn(&T) -> u32) -> Vec<&T> {
    let mut sorted: Vec<&T> = rows.iter().collect();
    sorted.sort_by_key(|r| id(r));
    sorted
}

#[derive(Serialize, Deserialize)]
struct SummaryColumns {
    id_steps: Vec<u32>,
    addr: Vec<String>,
    hostname: Vec<String>,
    map: Vec<String>,
    gametype: Vec<String>,
    game: Vec<String>,
    protocol: Vec<u32>,
    clients: Vec<u32>,
    bots: Vec<u32>,
    max_clients: Vec<u32>,
    flags: Vec<u16>,
    friendly_fire: Vec<u32>,
    ping_ms: Vec<Option<u32>>,
    reachability: Vec<Reachability>,
    updated_ms: Vec<Option<u64>>,
}

/// `#[serde(with)]` for a list of summaries.
pub mod summaries {
    use super::*;

    pub fn serialize<S: Serializer>(rows: &[Summary], s: S) -> Result<S::Ok, S::Error> {
        let rows = by_id(rows, |r| r.id);
        let column = |f: fn(&Summary) -> String| rows.iter().map(|r| f(r)).collect();
        SummaryColumns {
            id_steps: steps(rows.iter().map(|r| r.id)),
            addr: column(|r| r.addr.clone()),
            hostname: column(|r| r.hostname.clone()),
            map: column(|r| r.map.clone()),
            gametype: column(|r| r.gametype.clone()),
            game: column(|r| r.game.clone()),
            protocol: rows.iter().map(|r| r.protocol).collect(),
            clients: rows.iter().map(|r| r.clients).collect(),
            bots: rows.iter().map(|r| r.bots).collect(),
            max_clients: rows.iter().map(|r| r.max_clients).collect(),
            flags: rows.iter().map(|r| r.flags).collect(),
            friendly_fire: rows.iter().map(|r| r.friendly_fire).collect(),
            ping_ms: rows.iter().map(|r| r.ping_ms).collect(),
            reachability: rows.iter().map(|r| r.reachability).collect(),
            updated_ms: rows.iter().map(|r| r.updated_ms).collect(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Summary>, D::Error> {
        let c = SummaryColumns::deserialize(d)?;
        let n = c.id_steps.len();
        let lengths = [
            c.addr.len(),
            c.hostname.len(),
            c.map.len(),
            c.gametype.len(),
            c.game.len(),
            c.protocol.len(),
            c.clients.len(),
            c.bots.len(),
            c.max_clients.len(),
            c.flags.len(),
            c.friendly_fire.len(),
            c.ping_ms.len(),
            c.reachability.len(),
            c.updated_ms.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(D::Error::custom("summary columns of unequal length"));
        }
        let mut addr = c.addr.into_iter();
        let mut hostname = c.hostname.into_iter();
        let mut map = c.map.into_iter();
        let mut gametype = c.gametype.into_iter();
        let mut game = c.game.into_iter();
        Ok(ids(&c.id_steps)
            .enumerate()
            .map(|(i, id)| Summary {
                id,
                addr: addr.next().unwrap_or_default(),
                hostname: hostname.next().unwrap_or_default(),
                map: map.next().unwrap_or_default(),
                gametype: gametype.next().unwrap_or_default(),
                game: game.next().unwrap_or_default(),
                protocol: c.protocol[i],
                clients: c.clients[i],
                bots: c.bots[i],
                max_clients: c.max_clients[i],
                flags: c.flags[i],
                friendly_fire: c.friendly_fire[i],
                ping_ms: c.ping_ms[i],
                reachability: c.reachability[i],
                updated_ms: c.updated_ms[i],
            })
            .collect())
    }
}

#[derive(Serialize, Deserialize)]
struct PlayersColumns {
    id_steps: Vec<u32>,
    /// Players per server, in id order.
    counts: Vec<u32>,
    names: Vec<String>,
    bots: Vec<bool>,
}

/// `#[serde(with)]` for the players index.
pub mod players {
    use super::*;

    pub fn serialize<S: Serializer>(rows: &[ServerPlayers], s: S) -> Result<S::Ok, S::Error> {
        let rows = by_id(rows, |r| r.id);
        let all = || rows.iter().flat_map(|r| &r.players);
        PlayersColumns {
            id_steps: steps(rows.iter().map(|r| r.id)),
            counts: rows.iter().map(|r| r.players.len() as u32).collect(),
            names: all().map(|p| p.name.clone()).collect(),
            bots: all().map(|p| p.bot).collect(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ServerPlayers>, D::Error> {
        let c = PlayersColumns::deserialize(d)?;
        let total = c
            .counts
            .iter()
            .try_fold(0usize, |t, &n| t.checked_add(n as usize));
        if c.counts.len() != c.id_steps.len()
            || total != Some(c.names.len())
            || c.bots.len() != c.names.len()
        {
            return Err(D::Error::custom("players columns of unequal length"));
        }
        let mut players = c
            .names
            .into_iter()
            .zip(c.bots)
            .map(|(name, bot)| IndexedPlayer { name, bot });
        Ok(ids(&c.id_steps)
            .zip(&c.counts)
            .map(|(id, &n)| ServerPlayers {
                id,
                players: players.by_ref().take(n as usize).collect(),
            })
            .collect())
    }
}
