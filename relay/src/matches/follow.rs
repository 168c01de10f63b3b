//! Which servers the relay follows with nobody watching, as a stock server's admin would want
//! a spectator to behave: the servers the operator named (`--follow`), and with
//! `--follow-busy N` the busiest with at least N humans, at most `--follow-max` of them. Never
//! the last free slot (a hub joins only where a slot stays free after it, and leaves when the
//! server fills up), never a passworded server without its password, and a server that
//! refuses or kicks the spectator is left alone for an hour.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::net::ServerAddr;
use crate::seams::Slots;

/// How long a server that turned the spectator away is left alone.
pub const PAUSE: Duration = Duration::from_secs(3600);

#[derive(Clone, Debug, Default)]
pub struct FollowConfig {
    pub follow: Vec<ServerAddr>,
    /// Also follow servers with at least this many humans.
    pub busy: Option<u32>,
    /// At most this many of those at once.
    pub busy_max: usize,
    /// Record each followed match (`--follow-record`).
    pub record: bool,
}

/// What to change this turn.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub follow: Vec<ServerAddr>,
    /// Each with why.
    pub leave: Vec<(ServerAddr, String)>,
}

/// What the follower remembers between turns.
#[derive(Debug, Default)]
pub struct Follower {
    config: FollowConfig,
    following: BTreeSet<ServerAddr>,
    paused: BTreeMap<ServerAddr, Instant>,
    /// Servers their proven owners opted in.
    owned: Vec<ServerAddr>,
}

/// Whether a slot stays free for a player once the spectator is in.
fn room(s: &Slots, in_already: bool) -> bool {
    let after = s.clients + u32::from(!in_already);
    after < s.max_clients
}

impl Follower {
    pub fn new(config: FollowConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    pub fn is_idle(&self) -> bool {
        self.config.follow.is_empty()
            && self.config.busy.is_none()
            && self.owned.is_empty()
            && self.following.is_empty()
    }

    /// The servers their proven owners opted in, followed as the operator's are.
    pub fn also_follow(&mut self, owned: Vec<ServerAddr>) {
        self.owned = owned;
    }

    /// The servers to follow and to leave now. `turned_away` says why a followed server
    /// refused or kicked the spectator; `has_password` whether the operator gave a server's.
    pub fn plan(
        &mut self,
        table: &[Slots],
        turned_away: impl Fn(ServerAddr) -> Option<String>,
        has_password: impl Fn(ServerAddr) -> bool,
        now: Instant,
    ) -> Plan {
        self.paused.retain(|_, until| *until > now);
        let mut plan = Plan::default();
        for addr in self.following.clone() {
            if let Some(why) = turned_away(addr) {
                self.paused.insert(addr, now + PAUSE);
                plan.leave.push((
                    addr,
                    format!("the server turned the spectator away ({why}); again in an hour"),
                ));
            }
        }
        let by_addr: BTreeMap<ServerAddr, &Slots> = table.iter().map(|s| (s.addr, s)).collect();
        let mut wanted: Vec<ServerAddr> = self.config.follow.clone();
        wanted.extend(
            self.owned
                .iter()
                .filter(|a| !self.config.follow.contains(a)),
        );
        if let Some(least) = self.config.busy {
            let mut busy: Vec<&Slots> = table
                .iter()
                .filter(|s| s.humans >= least && !wanted.contains(&s.addr))
                .filter(|s| !s.password || has_password(s.addr))
                .filter(|s| !self.paused.contains_key(&s.addr))
                .filter(|s| self.following.contains(&s.addr) || room(s, false))
                .collect();
            // A followed server keeps its place while it qualifies: a server that grew one
            // player busier does not cut the match being followed short.
            busy.sort_by_key(|s| {
                (
                    !self.following.contains(&s.addr),
                    std::cmp::Reverse(s.humans),
                    s.addr,
                )
            });
            wanted.extend(busy.iter().take(self.config.busy_max).map(|s| s.addr));
        }
        for &addr in &wanted {
            if self.paused.contains_key(&addr) {
                continue;
            }
            let following = self.following.contains(&addr);
            match by_addr.get(&addr) {
                Some(s) if !room(s, following) => {
                    if following {
                        plan.leave
                            .push((addr, "the server is full: a player needs the slot".into()));
                    }
                }
                // Unlisted: asked for (the hubs say if the directory does not know it).
                _ => {
                    if !following {
                        plan.follow.push(addr);
                    }
                }
            }
        }
        for &addr in &self.following {
            if !wanted.contains(&addr) && !plan.leave.iter().any(|(a, _)| *a == addr) {
                plan.leave.push((
                    addr,
                    "no longer among the busiest, nor opted in by its owner".into(),
                ));
            }
        }
        for (addr, _) in &plan.leave {
            self.following.remove(addr);
        }
        plan
    }

    /// The hubs took (or did not take) a server.
    pub fn followed(&mut self, addr: ServerAddr) {
        self.following.insert(addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(port: u16, humans: u32, clients: u32, max: u32, password: bool) -> Slots {
        Slots {
            addr: format!("10.0.0.1:{port}").parse().unwrap(),
            humans,
            clients,
            max_clients: max,
            password,
        }
    }

    #[test]
    fn an_owner_s_server_is_followed_while_opted_in_and_left_after() {
        let mut f = Follower::new(FollowConfig {
            follow: vec![],
            busy: None,
            busy_max: 0,
            record: false,
        });
        assert!(f.is_idle());
        let table = [slots(1, 3, 3, 16, false)];
        let now = Instant::now();
        f.also_follow(vec![table[0].addr]);
        assert!(!f.is_idle());
        let plan = f.plan(&table, |_| None, |_| false, now);
        assert_eq!(plan.follow, [table[0].addr]);
        f.followed(table[0].addr);
        f.also_follow(Vec::new());
        assert!(!f.is_idle(), "it still follows: the next plan leaves");
        let plan = f.plan(&table, |_| None, |_| false, now);
        assert_eq!(plan.leave.len(), 1);
        assert!(plan.leave[0].1.contains("owner"), "{plan:?}");
        assert!(f.is_idle());
    }

    #[test]
    fn the_busiest_are_followed_politely() {
        let mut f = Follower::new(FollowConfig {
            follow: vec![],
            busy: Some(4),
            busy_max: 2,
            record: false,
        });
        let now = Instant::now();
        let table = [
            slots(1, 10, 12, 20, false),
            slots(2, 12, 14, 20, true), // passworded, no password given
            slots(3, 8, 19, 20, false), // one free slot: it would be the last
            slots(4, 4, 4, 16, false),
            slots(5, 3, 3, 16, false), // too few
            slots(6, 5, 5, 16, false),
        ];
        let plan = f.plan(&table, |_| None, |_| false, now);
        let ports: Vec<u16> = plan.follow.iter().map(|a| a.0.port()).collect();
        assert_eq!(ports, [1, 6]);
        for a in plan.follow {
            f.followed(a);
        }
        // Server 1 fills up (the spectator in it): it is left for a player.
        let table = [slots(1, 10, 20, 20, false), slots(6, 5, 6, 16, false)];
        let plan = f.plan(&table, |_| None, |_| false, now);
        assert_eq!(plan.leave.len(), 1);
        assert!(plan.leave[0].1.contains("full"));
        // Server 6 kicks the spectator: left alone for an hour, then tried again.
        let kicked = table[1].addr;
        let plan = f.plan(
            &table[1..],
            |a| (a == kicked).then(|| "kicked".to_owned()),
            |_| false,
            now,
        );
        assert_eq!(plan.leave[0].0, kicked);
        let plan = f.plan(&table[1..], |_| None, |_| false, now + PAUSE / 2);
        assert!(plan.follow.is_empty());
        let plan = f.plan(&table[1..], |_| None, |_| false, now + PAUSE * 2);
        assert_eq!(plan.follow, [kicked]);
    }

    #[test]
    fn a_followed_server_keeps_its_place_while_it_qualifies() {
        let mut f = Follower::new(FollowConfig {
            busy: Some(4),
            busy_max: 1,
            ..FollowConfig::default()
        });
        let now = Instant::now();
        let plan = f.plan(&[slots(1, 6, 6, 20, false)], |_| None, |_| false, now);
        assert_eq!(plan.follow, [slots(1, 0, 0, 0, false).addr]);
        f.followed(plan.follow[0]);
        // Another server grows busier: the match being followed is not cut short for it.
        let table = [slots(1, 6, 7, 20, false), slots(2, 12, 12, 20, false)];
        assert_eq!(f.plan(&table, |_| None, |_| false, now), Plan::default());
        // Once the followed one empties below the threshold, the busier one takes its place.
        let table = [slots(1, 3, 4, 20, false), slots(2, 12, 12, 20, false)];
        let plan = f.plan(&table, |_| None, |_| false, now);
        assert_eq!(plan.follow, [table[1].addr]);
        assert_eq!(plan.leave.len(), 1, "{plan:?}");
        assert_eq!(plan.leave[0].0, table[0].addr);
    }

    #[test]
    fn named_servers_are_followed_whatever_their_crowd_but_not_into_the_last_slot() {
        let named = slots(7, 0, 0, 8, true);
        let mut f = Follower::new(FollowConfig {
            follow: vec![named.addr],
            ..FollowConfig::default()
        });
        let now = Instant::now();
        assert_eq!(
            f.plan(std::slice::from_ref(&named), |_| None, |_| false, now)
                .follow,
            [named.addr]
        );
        let mut f = Follower::new(FollowConfig {
            follow: vec![named.addr],
            ..FollowConfig::default()
        });
        let full = Slots {
            clients: 7,
            ..named
        };
        assert!(f.plan(&[full], |_| None, |_| false, now).follow.is_empty());
    }
}
