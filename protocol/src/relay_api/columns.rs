//! The keyframe's and players index's binary layout: column by column, rows in id order with
//! each id sent as its step from the one before. Deflate finds more to share in a column of
//! hostnames or of maps than in rows that interleave them, and ids in order cost a byte each
//! before compression and almost nothing after: at 5,000 lab servers the list deflates to
//! about a third less than row by row (measured with the page bench's fleet).
//!
//! Within the columns, what repeats is said once: an IPv4 address as its four bytes and its
//! port as the step from the row before (a host's servers sit on neighbouring ports), maps,
//! gametypes and mods as an index into the names the list uses, and the flags as two byte
//! columns, of which the high one is all zero today. At 5,000 lab servers that took the list
//! from 70.8 to about 55 KB deflated.

use alloc::string::{String, ToString};
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

/// Addresses: an IPv4 `a.b.c.d:port` as four bytes and its port's step from the row before;
/// any other form (IPv6, or text that would not print back the same) whole, by row.
#[derive(Serialize, Deserialize)]
struct Addresses {
    ipv4: Vec<[u8; 4]>,
    port_steps: Vec<i32>,
    other: Vec<(u32, String)>,
}

impl Addresses {
    fn of<'a>(addrs: impl Iterator<Item = &'a str>) -> Self {
        let mut columns = Addresses {
            ipv4: Vec::new(),
            port_steps: Vec::new(),
            other: Vec::new(),
        };
        let mut last_port = 0i32;
        for (row, addr) in addrs.enumerate() {
            let (ip, port) = match addr.parse::<core::net::SocketAddrV4>() {
                Ok(v4) if v4.to_string() == addr => (v4.ip().octets(), i32::from(v4.port())),
                _ => {
                    columns.other.push((row as u32, addr.into()));
                    ([0; 4], last_port)
                }
            };
            columns.ipv4.push(ip);
            columns.port_steps.push(port - last_port);
            last_port = port;
        }
        columns
    }

    fn rows(self) -> Option<Vec<String>> {
        let mut port = 0i32;
        let mut rows: Vec<String> = self
            .ipv4
            .iter()
            .zip(&self.port_steps)
            .map(|(ip, step)| {
                port = port.wrapping_add(*step);
                let port = u16::try_from(port).unwrap_or(0);
                core::net::SocketAddrV4::new((*ip).into(), port).to_string()
            })
            .collect();
        if self.ipv4.len() != self.port_steps.len() {
            return None;
        }
        for (row, addr) in self.other {
            *rows.get_mut(row as usize)? = addr;
        }
        Some(rows)
    }
}

/// A column of a few distinct names (maps, gametypes, mods): each once, and an index per row.
#[derive(Serialize, Deserialize)]
struct Names {
    names: Vec<String>,
    index: Vec<u32>,
}

impl Names {
    fn of<'a>(values: impl Iterator<Item = &'a str>) -> Self {
        let mut seen = alloc::collections::BTreeMap::new();
        let mut names = Vec::new();
        let index = values
            .map(|value| {
                *seen.entry(value).or_insert_with(|| {
                    names.push(String::from(value));
                    names.len() as u32 - 1
                })
            })
            .collect();
        Names { names, index }
    }

    fn rows(self) -> Option<Vec<String>> {
        self.index
            .iter()
            .map(|&i| self.names.get(i as usize).cloned())
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
struct SummaryColumns {
    id_steps: Vec<u32>,
    addr: Addresses,
    hostname: Vec<String>,
    map: Names,
    gametype: Names,
    game: Names,
    protocol: Vec<u32>,
    clients: Vec<u32>,
    bots: Vec<u32>,
    max_clients: Vec<u32>,
    flags_low: Vec<u8>,
    flags_high: Vec<u8>,
    friendly_fire: Vec<u32>,
    ping_ms: Vec<Option<u32>>,
    reachability: Vec<Reachability>,
    updated_ms: Vec<Option<u64>>,
    matches_today: Vec<u32>,
    country: Names,
}

/// `#[serde(with)]` for a list of summaries.
pub mod summaries {
    use super::*;

    pub fn serialize<S: Serializer>(rows: &[Summary], s: S) -> Result<S::Ok, S::Error> {
        let rows = by_id(rows, |r| r.id);
        let texts = |f: fn(&Summary) -> &str| rows.iter().map(move |r| f(r));
        let numbers = |f: fn(&Summary) -> u32| rows.iter().map(|r| f(r)).collect();
        let [flags_low, flags_high] = [0, 8].map(|shift| {
            rows.iter()
                .map(|r| (r.flags >> shift) as u8)
                .collect::<Vec<u8>>()
        });
        SummaryColumns {
            id_steps: steps(rows.iter().map(|r| r.id)),
            addr: Addresses::of(texts(|r| &r.addr)),
            hostname: texts(|r| &r.hostname).map(String::from).collect(),
            map: Names::of(texts(|r| &r.map)),
            gametype: Names::of(texts(|r| &r.gametype)),
            game: Names::of(texts(|r| &r.game)),
            protocol: numbers(|r| r.protocol),
            clients: numbers(|r| r.clients),
            bots: numbers(|r| r.bots),
            max_clients: numbers(|r| r.max_clients),
            flags_low,
            flags_high,
            friendly_fire: numbers(|r| r.friendly_fire),
            ping_ms: rows.iter().map(|r| r.ping_ms).collect(),
            reachability: rows.iter().map(|r| r.reachability).collect(),
            updated_ms: rows.iter().map(|r| r.updated_ms).collect(),
            matches_today: numbers(|r| r.matches_today),
            country: Names::of(texts(|r| &r.country)),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Summary>, D::Error> {
        let c = SummaryColumns::deserialize(d)?;
        let unequal = || D::Error::custom("summary columns of unequal length");
        let n = c.id_steps.len();
        let addr = c.addr.rows().ok_or_else(unequal)?;
        let [map, gametype, game, country] =
            [c.map, c.gametype, c.game, c.country].map(Names::rows);
        let (map, gametype, game, country) = (
            map.ok_or_else(unequal)?,
            gametype.ok_or_else(unequal)?,
            game.ok_or_else(unequal)?,
            country.ok_or_else(unequal)?,
        );
        let lengths = [
            addr.len(),
            c.hostname.len(),
            map.len(),
            gametype.len(),
            game.len(),
            c.protocol.len(),
            c.clients.len(),
            c.bots.len(),
            c.max_clients.len(),
            c.flags_low.len(),
            c.flags_high.len(),
            c.friendly_fire.len(),
            c.ping_ms.len(),
            c.reachability.len(),
            c.updated_ms.len(),
            c.matches_today.len(),
            country.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(unequal());
        }
        let mut addr = addr.into_iter();
        let mut hostname = c.hostname.into_iter();
        let mut map = map.into_iter();
        let mut gametype = gametype.into_iter();
        let mut game = game.into_iter();
        let mut country = country.into_iter();
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
                flags: u16::from(c.flags_low[i]) | u16::from(c.flags_high[i]) << 8,
                friendly_fire: c.friendly_fire[i],
                ping_ms: c.ping_ms[i],
                reachability: c.reachability[i],
                updated_ms: c.updated_ms[i],
                matches_today: c.matches_today[i],
                country: country.next().unwrap_or_default(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct List(#[serde(with = "summaries")] Vec<Summary>);

    fn at(id: u32, addr: &str, map: &str, flags: u16) -> Summary {
        Summary {
            id,
            addr: addr.into(),
            hostname: "^1Hostname".into(),
            map: map.into(),
            gametype: "tdm".into(),
            game: String::new(),
            protocol: 22,
            clients: id % 5,
            bots: 0,
            max_clients: 24,
            flags,
            friendly_fire: 1,
            ping_ms: id.is_multiple_of(2).then_some(id),
            reachability: Reachability::Online,
            updated_ms: Some(1_700_000_000_000 + u64::from(id)),
            matches_today: 0,
            country: String::new(),
        }
    }

    #[test]
    fn every_address_form_and_name_comes_back_as_it_went() {
        let list = List(vec![
            at(3, "10.0.0.1:28960", "mp_foy", 1),
            at(5, "10.0.0.1:28962", "mp_foy", 0x1ff),
            at(8, "[2001:db8::7]:28960", "", 0),
            // Not the form an address prints in: kept as text, so nothing is normalised.
            at(9, "010.0.0.1:28960", "mp_uo_harbor", 0x8000),
            at(12, "master.example:20510", "mp_foy", 0),
            at(13, "", "mp_italy", 0),
            at(20, "255.255.255.255:65535", "mp_italy", 0),
            at(21, "0.0.0.0:0", "mp_italy", 0),
        ]);
        let bytes = postcard::to_allocvec(&list).unwrap();
        assert_eq!(postcard::from_bytes::<List>(&bytes).unwrap(), list);
        // Each map once, whatever its number of rows.
        let text = String::from_utf8_lossy(&bytes);
        assert_eq!(text.matches("mp_foy").count(), 1);
        assert_eq!(text.matches("mp_italy").count(), 1);
    }

    #[test]
    fn an_index_past_the_names_or_columns_of_unequal_length_are_refused() {
        let list = List(vec![
            at(1, "10.0.0.1:1", "a", 0),
            at(2, "10.0.0.1:2", "b", 0),
        ]);
        let mut bytes = postcard::to_allocvec(&list).unwrap();
        // The map column's two indices follow its names ("a", "b"): point one past them.
        let names = bytes
            .windows(4)
            .position(|w| w == [1, b'a', 1, b'b'])
            .unwrap();
        bytes[names + 5] = 7;
        assert!(postcard::from_bytes::<List>(&bytes).is_err());
        let cut = postcard::to_allocvec(&List(vec![at(1, "x", "a", 0)])).unwrap();
        assert!(postcard::from_bytes::<List>(&cut[..cut.len() - 1]).is_err());
    }
}
