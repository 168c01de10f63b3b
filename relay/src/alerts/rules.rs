//! Judging rules against the directory: each rule keeps whether its condition held at the last
//! refresh, and fires only when it becomes true. A rule's first look only learns the state (a
//! rule made while its server is full does not fire until a slot frees); a server whose state
//! is not known (not yet answered, stale after a restart, answering garbage) changes nothing.

use std::collections::{HashMap, HashSet};

use i18n::{catalogue, Lang};
use protocol::relay_api::alerts::{AlertEvent, Rule};
use protocol::said::Said;

use crate::seams::ServerState;
use crate::store::alerts::UNKNOWN;

/// A rule as the evaluator holds it.
#[derive(Clone, Debug)]
pub struct Held {
    pub id: String,
    pub rule: Rule,
    /// [`UNKNOWN`], 0 or 1.
    pub holds: i64,
    /// A `name_seen` rule's name as names are matched ([`name_key`]), made once.
    key: String,
}

impl Held {
    pub fn new(id: String, rule: Rule, holds: i64) -> Self {
        let key = match &rule {
            Rule::NameSeen { name, .. } => name_key(name),
            _ => String::new(),
        };
        Self {
            id,
            rule,
            holds,
            key,
        }
    }
}

/// The names on each server as they are matched, made once a refresh when a rule asks.
struct Names<'a> {
    on: HashMap<&'a str, HashSet<String>>,
    /// Where each name is, among servers that answer.
    anywhere: HashMap<String, &'a ServerState>,
}

impl<'a> Names<'a> {
    fn of(servers: &'a [ServerState]) -> Self {
        let mut names = Self {
            on: HashMap::new(),
            anywhere: HashMap::new(),
        };
        for s in servers {
            let keys: HashSet<String> = s.names.iter().map(|n| name_key(n)).collect();
            if s.up == Some(true) {
                for key in &keys {
                    names.anywhere.entry(key.clone()).or_insert(s);
                }
            }
            names.on.insert(s.info.addr.as_str(), keys);
        }
        names
    }
}

/// A rule's condition changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub rule: String,
    pub holds: bool,
    /// The alert to send, when this change fires (its key is given when it is written).
    pub fire: Option<Fire>,
}

/// An alert to send: the event, and what its text says, written in each subscription's own
/// language when its firing is written to the outbox.
#[derive(Clone, Debug, PartialEq)]
pub struct Fire {
    pub event: AlertEvent,
    pub said: Said,
}

impl Fire {
    /// The text in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        catalogue(lang).say(&self.said)
    }

    /// The event's JSON as one subscription's firing sends it: under the key it got, its text
    /// in the subscription's language (`lang`, a tag the store keeps; English if unknown).
    pub fn payload(&self, key: &str, lang: &str) -> String {
        let lang = Lang::from_tag(lang).unwrap_or(Lang::En);
        let mut event = self.event.clone();
        event.key = key.to_owned();
        event.text = self.text(lang);
        event.lang = lang.tag().to_owned();
        serde_json::to_string(&event).unwrap_or_default()
    }
}

/// The plain, lower-case form names are matched by.
pub fn name_key(name: &str) -> String {
    protocol::browse::plain_lower(name).trim().to_owned()
}

/// The rules' verdicts on one refresh of the directory; `holds` is updated in place.
pub fn judge(rules: &mut [Held], servers: &[ServerState], now_ms: u64) -> Vec<Change> {
    let by_addr: HashMap<&str, &ServerState> =
        servers.iter().map(|s| (s.info.addr.as_str(), s)).collect();
    let names = (rules.iter())
        .any(|r| matches!(r.rule, Rule::NameSeen { .. }))
        .then(|| Names::of(servers));
    let mut changes = Vec::new();
    for held in rules.iter_mut() {
        let Some((holds, on)) = verdict(held, &by_addr, names.as_ref()) else {
            continue;
        };
        let was = held.holds;
        if was == i64::from(holds) {
            continue;
        }
        held.holds = i64::from(holds);
        let leaves = matches!(held.rule, Rule::NameSeen { leaves: true, .. });
        let fires = was != UNKNOWN && (holds || leaves);
        let fire = fires.then(|| event(&held.id, &held.rule, holds, on, now_ms));
        changes.push(Change {
            rule: held.id.clone(),
            holds,
            fire,
        });
    }
    changes
}

/// Whether the rule holds now, and the server it is about (or where the name was seen);
/// `None` when that cannot be told.
fn verdict<'a>(
    held: &Held,
    by_addr: &HashMap<&str, &'a ServerState>,
    names: Option<&Names<'a>>,
) -> Option<(bool, Option<&'a ServerState>)> {
    let rule = &held.rule;
    if let Rule::NameSeen { server: None, .. } = rule {
        let at = names?.anywhere.get(&held.key).copied();
        return Some((at.is_some(), at));
    }
    let s = *by_addr.get(rule.server()?)?;
    let up = s.up?;
    let holds = match rule {
        Rule::HumansAtLeast { n, .. } => up && s.info.humans >= *n,
        Rule::ServerUp { .. } => up,
        Rule::ServerDown { .. } => !up,
        Rule::SlotFree { .. } => up && s.info.humans + s.info.bots < s.info.max_clients,
        Rule::NameSeen { .. } => {
            up && names?
                .on
                .get(s.info.addr.as_str())
                .is_some_and(|keys| keys.contains(&held.key))
        }
        Rule::MatchEnd { .. } | Rule::Highlight { .. } => return None,
    };
    Some((holds, Some(s)))
}

/// The server's name without colour codes.
pub fn plain(hostname: &str) -> String {
    protocol::cod::text::strip(hostname)
}

fn event(id: &str, rule: &Rule, holds: bool, on: Option<&ServerState>, at_ms: u64) -> Fire {
    let server = on.map(|s| s.info.clone());
    let host: protocol::said::Word = match &server {
        Some(s) => plain(&s.hostname).into(),
        None => Said::new("alert-a-server").into(),
    };
    let said = match (rule, &server) {
        (Rule::HumansAtLeast { n, .. }, Some(s)) => Said::new("alert-humans")
            .with("server", host)
            .with("count", s.humans)
            .with("at", *n),
        (Rule::ServerUp { .. }, _) => Said::new("alert-server-up").with("server", host),
        (Rule::ServerDown { .. }, _) => Said::new("alert-server-down").with("server", host),
        (Rule::SlotFree { .. }, Some(s)) => Said::new("alert-slot-free")
            .with("server", host)
            .with("players", s.humans + s.bots)
            .with("max", s.max_clients),
        (Rule::NameSeen { name, .. }, _) if holds => {
            // As the server shows it, colours dropped.
            let key = name_key(name);
            let shown = (on.iter().flat_map(|s| &s.names))
                .find(|n| name_key(n) == key)
                .map_or_else(|| plain(name), |n| plain(n));
            Said::new("alert-name-on")
                .with("name", shown)
                .with("server", host)
        }
        (Rule::NameSeen { name, .. }, _) => Said::new("alert-name-left").with("name", plain(name)),
        _ => Said::new("alert-other").with("server", host),
    };
    Fire {
        event: AlertEvent {
            key: String::new(),
            rule_id: id.to_owned(),
            rule: rule.clone(),
            at_ms,
            text: String::new(),
            lang: String::new(),
            join: server.as_ref().map(|s| join_link(&s.addr)),
            last_seen_ms: None,
            highlight: None,
            server,
        },
        said,
    }
}

/// The link joinme.click's launcher registers for UO (`CoDUOMP.exe +connect IP:PORT`).
pub fn join_link(addr: &str) -> String {
    format!("coduo://{addr}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::relay_api::alerts::AlertServer;

    fn state(addr: &str, up: Option<bool>, humans: u32, max: u32, names: &[&str]) -> ServerState {
        ServerState {
            info: AlertServer {
                addr: addr.into(),
                hostname: "^1Red ^7Base".into(),
                map: "mp_foy".into(),
                gametype: "tdm".into(),
                humans,
                bots: 0,
                max_clients: max,
                password: false,
                up: up == Some(true),
            },
            up,
            names: names.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    fn held(id: &str, rule: Rule) -> Held {
        Held::new(id.into(), rule, UNKNOWN)
    }

    const A: &str = "10.0.0.1:28960";

    #[test]
    fn a_rule_fires_when_it_becomes_true_not_while_it_stays_true() {
        let mut rules = vec![held(
            "r",
            Rule::HumansAtLeast {
                server: A.into(),
                n: 8,
            },
        )];
        // The first look learns: 3 players.
        let changes = judge(&mut rules, &[state(A, Some(true), 3, 20, &[])], 1);
        assert_eq!(changes.len(), 1);
        assert!(changes[0].fire.is_none());
        let fired = judge(&mut rules, &[state(A, Some(true), 8, 20, &[])], 2);
        let alert = fired[0].fire.as_ref().unwrap();
        assert_eq!(alert.text(Lang::En), "Red Base has 8 players (alert at 8)");
        assert_eq!(alert.text(Lang::De), "Red Base hat 8 Spieler (Alarm bei 8)");
        assert_eq!(alert.event.join.as_deref(), Some("coduo://10.0.0.1:28960"));
        let sent: AlertEvent = serde_json::from_str(&alert.payload("r-1", "de")).unwrap();
        assert_eq!(
            (sent.key.as_str(), sent.lang.as_str(), sent.text.as_str()),
            ("r-1", "de", "Red Base hat 8 Spieler (Alarm bei 8)")
        );
        // Still true: nothing; unknown (stale): nothing.
        assert!(judge(&mut rules, &[state(A, Some(true), 9, 20, &[])], 3).is_empty());
        assert!(judge(&mut rules, &[state(A, None, 0, 20, &[])], 4).is_empty());
        // False, then true again: fires again.
        assert!(judge(&mut rules, &[state(A, Some(true), 2, 20, &[])], 5)[0]
            .fire
            .is_none());
        assert!(
            judge(&mut rules, &[state(A, Some(true), 12, 20, &[])], 6)[0]
                .fire
                .is_some()
        );
    }

    #[test]
    fn a_slot_frees_on_a_full_server_and_a_server_goes_down_and_up() {
        let mut rules = vec![
            held("slot", Rule::SlotFree { server: A.into() }),
            held("down", Rule::ServerDown { server: A.into() }),
            held("up", Rule::ServerUp { server: A.into() }),
        ];
        judge(&mut rules, &[state(A, Some(true), 20, 20, &[])], 1);
        let freed = judge(&mut rules, &[state(A, Some(true), 19, 20, &[])], 2);
        assert_eq!(freed.len(), 1);
        assert_eq!(
            freed[0].fire.as_ref().unwrap().text(Lang::En),
            "Red Base has a free slot (19/20)"
        );
        let down = judge(&mut rules, &[state(A, Some(false), 0, 20, &[])], 3);
        let fired: Vec<&str> = (down.iter())
            .filter(|c| c.fire.is_some())
            .map(|c| c.rule.as_str())
            .collect();
        assert_eq!(fired, ["down"]);
        let up = judge(&mut rules, &[state(A, Some(true), 0, 20, &[])], 4);
        let fired: Vec<&str> = (up.iter())
            .filter(|c| c.fire.is_some())
            .map(|c| c.rule.as_str())
            .collect();
        assert_eq!(fired, ["slot", "up"]);
    }

    #[test]
    fn a_name_is_seen_anywhere_colours_and_case_ignored_and_leaves() {
        let mut rules = vec![held(
            "n",
            Rule::NameSeen {
                name: "Sgt.Fury".into(),
                server: None,
                leaves: true,
            },
        )];
        judge(&mut rules, &[state(A, Some(true), 1, 20, &["Other"])], 1);
        let seen = judge(
            &mut rules,
            &[state(A, Some(true), 2, 20, &["^1SGT^7.fury"])],
            2,
        );
        assert_eq!(
            seen[0].fire.as_ref().unwrap().text(Lang::En),
            "SGT.fury is on Red Base"
        );
        let left = judge(&mut rules, &[state(A, Some(true), 1, 20, &["Other"])], 3);
        assert_eq!(
            left[0].fire.as_ref().unwrap().text(Lang::En),
            "Sgt.Fury left"
        );
    }
}
