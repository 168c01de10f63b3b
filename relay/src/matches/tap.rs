//! Following a match as a hub tap: the session's events, told as match events by
//! `cod::watch::match_log`, become parts of the match's record, sent to the history's writer
//! every few seconds and at the match's end. The tap runs on the relay holding the game slot
//! only, so a match is written by one relay.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::cod::client::{Client, Event};
use protocol::cod::watch::highlights::PlayFinder;
use protocol::cod::watch::match_log::MatchLog;
use protocol::relay_api::matches::{MatchEnd, MatchEvent, RosterChange};
use protocol::relay_api::watch::Team;

use crate::net::ServerAddr;
use crate::seams::{FoundPlay, HubFace, HubTap, PlaysFound, TapMaker};
use crate::store::matches::record::{Board, Change, Kill, Record, Roster, Stay};
use crate::store::matches::MatchPart;

/// How often a followed match's progress is written: a relay killed mid-match loses at most
/// this much of it (the rest is kept, marked unfinished).
pub const PART_EVERY: Duration = Duration::from_secs(5);

/// Where a match's plays go, and the names never highlighted (`--stats-exclude`).
#[derive(Clone)]
pub struct PlaysTo {
    pub found: Arc<dyn PlaysFound>,
    pub excluded: Arc<Vec<String>>,
}

/// Makes each hub session's match follower; with `plays`, it finds the match's plays too.
pub fn tap(log: Arc<dyn crate::seams::MatchLog>, plays: Option<PlaysTo>) -> TapMaker {
    Arc::new(move |server| {
        Box::new(MatchTap {
            server,
            log: log.clone(),
            told: MatchLog::new(),
            open: None,
            plays: plays.clone().map(|to| {
                let finder = PlayFinder::new(to.excluded.iter().map(String::as_str));
                (finder, to.found)
            }),
        })
    })
}

/// One hub session's follower.
pub struct MatchTap {
    server: ServerAddr,
    log: Arc<dyn crate::seams::MatchLog>,
    told: MatchLog,
    open: Option<Open>,
    /// The match's plays, found from the same events the record is made of.
    plays: Option<(PlayFinder, Arc<dyn PlaysFound>)>,
}

/// The match being followed.
struct Open {
    /// What is new since the last part was sent.
    part: MatchPart,
    /// Who is in the match now, since when (server time).
    present: BTreeMap<String, i32>,
    /// The relay's clock (ms) at a server time, to date what the server times.
    anchor: (u64, i32),
    last_t: i32,
    sent_at: Instant,
}

impl Open {
    fn wall(&self, t: i32) -> u64 {
        let (ms, at) = self.anchor;
        ms.saturating_add_signed(i64::from(t) - i64::from(at))
    }

    fn stay(&mut self, name: &str, from: i32, to: i32) {
        let id = self.part.record.name(name);
        self.part.record.stays.push(Stay { name: id, from, to });
    }

    fn leave(&mut self, name: &str, t: i32) {
        if let Some(from) = self.present.remove(name) {
            self.stay(name, from, t);
        }
    }

    /// The part so far, with every stay up to `t`; the next part starts empty.
    fn take(&mut self, t: i32) -> MatchPart {
        let open: Vec<(String, i32)> = self
            .present
            .iter_mut()
            .map(|(name, from)| {
                let span = (name.clone(), *from);
                *from = t;
                span
            })
            .collect();
        for (name, from) in open {
            self.stay(&name, from, t);
        }
        self.part.end_ms = self.wall(t);
        self.sent_at = Instant::now();
        let next = MatchPart {
            record: Record::default(),
            ended: None,
            ..self.part.clone()
        };
        std::mem::replace(&mut self.part, next)
    }
}

impl MatchTap {
    fn told(&mut self, event: MatchEvent, relay_ms: u64) {
        if let MatchEvent::Began(start) = &event {
            self.end(start.joined_at, MatchEnd::SessionLost);
            let elapsed = start.joined_at.saturating_sub(start.key.level_start).max(0);
            let level_started = start.key.level_start > 0;
            self.open = Some(Open {
                part: MatchPart {
                    server: self.server.to_string(),
                    map: start.key.map.clone(),
                    level_start: start.key.level_start,
                    gametype: start.gametype.clone(),
                    hostname: start.hostname.clone(),
                    start_ms: if level_started {
                        relay_ms.saturating_sub(elapsed as u64)
                    } else {
                        relay_ms
                    },
                    end_ms: relay_ms,
                    ended: None,
                    record: Record::default(),
                    demo: None,
                    fence: None,
                },
                present: BTreeMap::new(),
                anchor: (relay_ms, start.joined_at),
                last_t: start.joined_at,
                sent_at: Instant::now(),
            });
            return;
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        match event {
            MatchEvent::Began(_) => {}
            MatchEvent::Kill(k) => {
                let record = &mut open.part.record;
                let kill = Kill {
                    t: k.server_time,
                    attacker: k.attacker.as_deref().map(|a| record.name(a)),
                    victim: record.name(&k.victim),
                    weapon: record.weapon(&k.weapon),
                    kind: k.kind,
                    attacker_team: k.attacker_team,
                    victim_team: k.victim_team,
                    attacker_at: k.attacker_origin,
                    victim_at: k.victim_origin,
                };
                record.kills.push(kill);
                open.last_t = open.last_t.max(k.server_time);
            }
            MatchEvent::Roster {
                server_time: t,
                change,
            } => {
                open.last_t = open.last_t.max(t);
                // Time played is time on a side: a spectator (this relay's own client too)
                // plays no part.
                let playing = |team: &Team| *team != Team::Spectator;
                let (name, change) = match change {
                    RosterChange::Joined { name, team } => {
                        if playing(&team) {
                            open.present.entry(name.clone()).or_insert(t);
                        }
                        (name, Change::Joined(team))
                    }
                    RosterChange::Left { name } => {
                        open.leave(&name, t);
                        (name, Change::Left)
                    }
                    RosterChange::Team { name, team } => {
                        if playing(&team) {
                            open.present.entry(name.clone()).or_insert(t);
                        } else {
                            open.leave(&name, t);
                        }
                        (name, Change::Team(team))
                    }
                    RosterChange::Renamed { from, to } => {
                        if open.present.contains_key(&from) {
                            open.leave(&from, t);
                            open.present.insert(to.clone(), t);
                        }
                        let to = open.part.record.name(&to);
                        (from, Change::RenamedTo(to))
                    }
                };
                let name = open.part.record.name(&name);
                open.part.record.roster.push(Roster { t, name, change });
            }
            MatchEvent::Scores(scores) => {
                let record = &mut open.part.record;
                let rows = scores
                    .players
                    .iter()
                    .map(|r| (record.name(&r.name), r.team, r.score, r.deaths))
                    .collect();
                record
                    .team_scores
                    .push((scores.server_time, scores.axis, scores.allies));
                record.board = Some(Board {
                    t: scores.server_time,
                    axis: scores.axis,
                    allies: scores.allies,
                    rows,
                });
                open.last_t = open.last_t.max(scores.server_time);
            }
            MatchEvent::Ended { server_time, why } => self.end(server_time, why),
        }
    }

    /// Sends the match's last part, marked with why it ended.
    fn end(&mut self, t: i32, why: MatchEnd) {
        let Some(mut open) = self.open.take() else {
            return;
        };
        let t = t.max(open.last_t);
        let mut part = open.take(t);
        part.ended = Some(why);
        self.log.part(part);
    }
}

impl HubTap for MatchTap {
    fn turn(&mut self, hub: &dyn HubFace, client: Option<&mut Client>) {
        if client.is_none() && self.told.current().is_some() {
            // The session is over (the goodbye, a lost server): what was followed stays
            // unfinished until a later session of the same match continues it.
            self.told.session_ended();
            self.drain(hub);
        }
        self.note_hub(hub);
        if let Some(open) = self.open.as_mut() {
            if open.sent_at.elapsed() >= PART_EVERY {
                let t = open.last_t;
                let part = open.take(t);
                if !part.record.is_empty() {
                    self.log.part(part);
                }
            }
        }
    }

    fn event(&mut self, hub: &dyn HubFace, _relay_us: u64, event: &Event) {
        self.told.handle(event);
        if let (Event::Snapshot(s), Some(open)) = (event, self.open.as_mut()) {
            open.last_t = open.last_t.max(s.server_time);
            if let Some((finder, _)) = self.plays.as_mut() {
                finder.elapse(s.server_time);
            }
            self.send_plays();
        }
        if matches!(event, Event::Disconnected(_)) {
            self.told.session_ended();
        }
        self.drain(hub);
    }
}

impl MatchTap {
    fn drain(&mut self, hub: &dyn HubFace) {
        while let Some(event) = self.told.poll_event() {
            // Plays first: a match's end ends its sprees while its record is still open.
            if let Some((finder, _)) = self.plays.as_mut() {
                finder.told(&event);
            }
            self.send_plays();
            self.tell_over(&event);
            self.told(event, crate::net::unix_ms());
            self.note_hub(hub);
        }
    }

    /// A match over (not a session lost: a later one may continue it) has no more plays.
    fn tell_over(&self, event: &MatchEvent) {
        let (Some((_, to)), Some(open)) = (self.plays.as_ref(), self.open.as_ref()) else {
            return;
        };
        if matches!(event, MatchEvent::Ended { why, .. } if *why != MatchEnd::SessionLost) {
            to.match_over(self.server, open.part.map.clone(), open.part.level_start);
        }
    }

    /// The plays found, dated by the match's clock.
    fn send_plays(&mut self) {
        let (Some((finder, to)), Some(open)) = (self.plays.as_mut(), self.open.as_ref()) else {
            return;
        };
        while let Some(found) = finder.poll() {
            to.found(FoundPlay {
                server: self.server,
                map: open.part.map.clone(),
                level_start: open.part.level_start,
                gametype: open.part.gametype.clone(),
                start_ms: open.wall(found.play.start_server_time()),
                end_ms: open.wall(found.play.end_server_time()),
                match_seen_ms: open.anchor.0,
                play: found.play,
                best: found.best,
            });
        }
    }

    /// What the match's parts carry of the hub: the first demo file the match is recorded to
    /// (one file per map: a restarted map's matches share it, and a kill is found in it by
    /// its server time) and the lease's fencing token in a cluster.
    fn note_hub(&mut self, hub: &dyn HubFace) {
        if let Some(open) = self.open.as_mut() {
            if open.part.demo.is_none() {
                open.part.demo = hub.recording_file();
            }
            open.part.fence = hub.lease_token();
        }
    }
}
