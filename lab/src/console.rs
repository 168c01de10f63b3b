//! The remote console of one lab server, as stock runs it (`SVC_RemoteCommand`): one attempt
//! accepted per 500 ms for the whole server whatever its password, the stock refusals, output
//! in `print` packets of at most 1,300 bytes, and the operator commands an admin uses most:
//! `status`, `say`, `kick`, `clientkick`, `map` and `map_rotate`.
//!
//! Wording traced from the stock server: the refusals, `status`'s table, and the `kick` and
//! `clientkick` errors. A guess: the reply to an unknown command and to a map the server lacks.

use protocol::cod::rcon::{
    print_packets, Request, StatusPing, StatusRow, StatusTable, BAD_PASSWORD, NO_PASSWORD,
    THROTTLE_MS,
};
use protocol::cod::text;

use crate::profile::{ServerProfile, MAPS};

/// What an accepted command changed beyond the profile, for the server's session host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    /// `say`: the text every client sees in its chat.
    Say(String),
    /// `map`/`map_rotate`: the map to load.
    Map(String),
}

/// One server's console: its password and the time of its last accepted attempt.
#[derive(Clone, Debug)]
pub struct Console {
    password: Option<String>,
    last_accepted_ms: Option<u64>,
}

impl Console {
    /// `password` is the server's `rconpassword`; `None` (or empty) turns rcon away.
    pub fn new(password: Option<String>) -> Self {
        Self {
            password: password.filter(|p| !p.is_empty()),
            last_accepted_ms: None,
        }
    }

    /// Handles one datagram: `None` when it is not `rcon` or falls inside the throttle (stock
    /// answers nothing then); otherwise the `print` packets to send and what else to do.
    pub fn handle(
        &mut self,
        now_ms: u64,
        datagram: &[u8],
        profile: &mut ServerProfile,
    ) -> Option<(Vec<Vec<u8>>, Effect)> {
        let request = Request::parse(datagram)?;
        if self
            .last_accepted_ms
            .is_some_and(|last| now_ms.saturating_sub(last) < THROTTLE_MS)
        {
            return None;
        }
        self.last_accepted_ms = Some(now_ms);
        let (output, effect) = match &self.password {
            None => (NO_PASSWORD.to_owned(), Effect::None),
            Some(password) if *password != request.password => {
                (BAD_PASSWORD.to_owned(), Effect::None)
            }
            Some(_) => execute(&request.args, profile),
        };
        Some((print_packets(&output), effect))
    }
}

/// Runs one command on the profile: its output and its effect.
fn execute(args: &[String], profile: &mut ServerProfile) -> (String, Effect) {
    let Some((name, rest)) = args.split_first() else {
        return (String::new(), Effect::None);
    };
    match name.to_ascii_lowercase().as_str() {
        "status" => (status_table(profile).render(), Effect::None),
        "say" if !rest.is_empty() => (String::new(), Effect::Say(rest.join(" "))),
        "say" => (String::new(), Effect::None),
        "kick" | "onlykick" => (kick_by_name(name, rest, profile), Effect::None),
        "clientkick" => (kick_by_slot(name, rest, profile), Effect::None),
        "map" | "devmap" => match rest.first() {
            Some(map) if MAPS.iter().any(|m| m.eq_ignore_ascii_case(map)) => {
                (String::new(), Effect::Map(map.to_ascii_lowercase()))
            }
            Some(map) => (format!("Can't find map {map}\n"), Effect::None),
            None => (String::new(), Effect::None),
        },
        "map_rotate" => {
            let at = MAPS.iter().position(|m| *m == profile.mapname);
            let next = MAPS[at.map_or(0, |i| (i + 1) % MAPS.len())];
            (String::new(), Effect::Map(next.to_owned()))
        }
        _ => (format!("Unknown command \"{name}\"\n"), Effect::None),
    }
}

/// The `status` table of the profile's clients, in slot order.
pub fn status_table(profile: &ServerProfile) -> StatusTable {
    let mut rows: Vec<StatusRow> = profile
        .players
        .iter()
        .map(|p| StatusRow {
            slot: p.slot,
            score: p.score,
            ping: if p.ping >= 999 {
                StatusPing::Connecting
            } else {
                StatusPing::Ms(p.ping.max(0) as u32)
            },
            guid: if p.bot { 0 } else { guid(&p.name) },
            name: p.name.clone(),
            last_msg: if p.bot { 50 } else { 0 },
            address: if p.bot {
                "bot".into()
            } else {
                // Documentation addresses (TEST-NET-1): lab players are nobody.
                format!("192.0.2.{}:28960", u16::from(p.slot) + 1)
            },
            qport: if p.bot {
                0
            } else {
                (guid(&p.name) % 65_536) as i32 - 32_768
            },
            rate: if p.bot { 5000 } else { 25000 },
        })
        .collect();
    rows.sort_by_key(|r| r.slot);
    StatusTable {
        map: profile.mapname.clone(),
        rows,
    }
}

/// A stable stand-in for the player's GUID: six digits from the name.
fn guid(name: &str) -> i64 {
    let hash = name.bytes().fold(2_166_136_261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16_777_619)
    });
    i64::from(hash % 900_000 + 100_000)
}

/// `kick NAME` / `kick all` (`SV_KickUser_f`): the name as shown or without its colours,
/// either without case.
fn kick_by_name(command: &str, args: &[String], profile: &mut ServerProfile) -> String {
    let [name] = args else {
        return format!("Usage: {command} <player name>\n{command} all = kick everyone\n");
    };
    let found = profile.players.iter().position(|p| {
        p.name.eq_ignore_ascii_case(name) || text::strip(&p.name).eq_ignore_ascii_case(name)
    });
    match found {
        Some(i) => {
            profile.players.remove(i);
            String::new()
        }
        None if name.eq_ignore_ascii_case("all") => {
            profile.players.clear();
            format!("Player {name} is not on the server\n")
        }
        None => format!("Player {name} is not on the server\n"),
    }
}

/// `clientkick SLOT` (`SV_KickClient_f`, `SV_GetPlayerByNum`).
fn kick_by_slot(command: &str, args: &[String], profile: &mut ServerProfile) -> String {
    let [slot] = args else {
        return format!("Usage: {command} <client number>\n");
    };
    if slot.is_empty() || !slot.bytes().all(|b| b.is_ascii_digit()) {
        return format!("Bad slot number: {slot}\n");
    }
    let number: i64 = slot.parse().unwrap_or(i64::MAX);
    if number >= i64::from(profile.max_clients) {
        return format!("Bad client slot: {number}\n");
    }
    match profile
        .players
        .iter()
        .position(|p| i64::from(p.slot) == number)
    {
        Some(i) => {
            profile.players.remove(i);
            String::new()
        }
        None => format!("Client {number} is not active\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::cod::rcon::{request, Reply, CHUNK};
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    fn profile() -> ServerProfile {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut profile = ServerProfile::generate(0, &mut rng);
        profile.fill(20, &mut rng);
        profile
    }

    fn joined(packets: &[Vec<u8>]) -> String {
        let mut reply = Reply::new();
        for p in packets {
            let body = p
                .strip_prefix(b"\xff\xff\xff\xffprint\n")
                .expect("a print packet");
            reply.push(0, &text::decode(body));
        }
        match reply.finish() {
            protocol::cod::rcon::Outcome::Output(text) => text,
            other => other.as_str().to_owned(),
        }
    }

    #[test]
    fn one_attempt_per_500_ms_for_the_whole_server_good_or_bad() {
        let mut console = Console::new(Some("pw".into()));
        let mut profile = profile();
        let bad = request("wrong", "status").unwrap();
        let good = request("pw", "status").unwrap();
        let (packets, _) = console.handle(1000, &bad, &mut profile).unwrap();
        assert_eq!(joined(&packets), "bad_password");
        // A good password 499 ms after a bad one is dropped without a word.
        assert!(console.handle(1499, &good, &mut profile).is_none());
        let (packets, _) = console.handle(1500, &good, &mut profile).unwrap();
        let table = StatusTable::parse(&joined(&packets)).unwrap();
        assert_eq!(table.rows.len(), 20);
        assert_eq!(table, status_table(&profile));
        assert!(console
            .handle(0, b"\xff\xff\xff\xffgetinfo", &mut profile)
            .is_none());
        let mut off = Console::new(None);
        let (packets, _) = off.handle(0, &good, &mut profile).unwrap();
        assert_eq!(joined(&packets), "no_password");
    }

    #[test]
    fn a_long_status_comes_in_stock_sized_chunks() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut profile = ServerProfile::generate(1, &mut rng);
        profile.fill(60, &mut rng);
        let mut console = Console::new(Some("pw".into()));
        let (packets, _) = console
            .handle(0, &request("pw", "status").unwrap(), &mut profile)
            .unwrap();
        assert!(packets.len() >= 3, "{} packets", packets.len());
        assert!(packets[..packets.len() - 1]
            .iter()
            .all(|p| p.len() == 10 + CHUNK));
        assert_eq!(joined(&packets), status_table(&profile).render());
    }

    #[test]
    fn kicks_by_slot_and_by_name_as_stock_answers_them() {
        let mut console = Console::new(Some("pw".into()));
        let mut profile = profile();
        let mut now = 0;
        let mut run = |command: &str, profile: &mut ServerProfile| {
            now += THROTTLE_MS;
            let (packets, effect) = console
                .handle(now, &request("pw", command).unwrap(), profile)
                .unwrap();
            (joined(&packets), effect)
        };
        let victim = profile.players[3].clone();
        assert_eq!(
            run(&format!("clientkick {}", victim.slot), &mut profile).0,
            ""
        );
        assert!(!profile.players.contains(&victim));
        assert_eq!(
            run(&format!("clientkick {}", victim.slot), &mut profile).0,
            format!("Client {} is not active\n", victim.slot)
        );
        assert_eq!(
            run("clientkick x1", &mut profile).0,
            "Bad slot number: x1\n"
        );
        assert_eq!(
            run("clientkick 99", &mut profile).0,
            "Bad client slot: 99\n"
        );
        assert_eq!(
            run("clientkick", &mut profile).0,
            "Usage: clientkick <client number>\n"
        );
        let named = profile.players[0].clone();
        let plain = text::strip(&named.name).to_uppercase();
        assert_eq!(run(&format!("kick \"{plain}\""), &mut profile).0, "");
        assert!(!profile.players.contains(&named));
        assert_eq!(
            run("kick nobody", &mut profile).0,
            "Player nobody is not on the server\n"
        );
        assert_eq!(
            run("say \"hello all\"", &mut profile).1,
            Effect::Say("hello all".into())
        );
        let (_, effect) = run("map_rotate", &mut profile);
        assert!(matches!(effect, Effect::Map(m) if m != profile.mapname));
        assert_eq!(
            run("map mp_nowhere", &mut profile).0,
            "Can't find map mp_nowhere\n"
        );
        assert_eq!(
            run("map MP_FOY", &mut profile).1,
            Effect::Map("mp_foy".into())
        );
    }
}
