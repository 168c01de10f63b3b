//! Alerts: rules a visitor sets without an account (a server's humans reach N, it comes up or
//! goes down, a full server frees a slot, a name appears or leaves, a followed match ends),
//! delivered with the tab closed through the browser's push service (Web Push), a webhook,
//! Discord or ntfy. Rules, their last state and
//! the outbox live in the store, so any relay sharing it takes rules and one relay (the
//! `alerts` lease holder in a cluster) judges and sends; a relay killed mid-send leaves its
//! firings pending for the next. Every URL goes through the guard (`guard.rs`).
//!
//! Routes: `POST /api/alerts`, `GET /api/alerts?token=`, `PATCH` and `DELETE
//! /api/alerts/{id}?token=`, `DELETE /api/alerts?token=` (everything kept about a
//! subscription), `GET /api/push/key` (the VAPID key browsers subscribe with).

mod api;
pub use api::openapi;
pub mod guard;
mod highlights;
pub mod message;
pub mod outbox;
mod owned;
pub mod push;
pub mod rules;
mod scrape;

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use protocol::relay_api::alerts::{AlertEvent, Rule};
use protocol::said::Said;
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::cluster::{lease::Lease, Cluster};
use crate::seams::{Known, MatchLog, ServerStates};
use crate::store::alerts::{self as stored, Firing};
use crate::store::matches::MatchPart;
use crate::store::worker::Workers;

/// The alerts settings for `muster serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct AlertsArgs {
    /// A host alert URLs may reach besides Discord's and ntfy's (and the push services'):
    /// repeatable. Plain `http` and a non-public address are allowed only to a host named
    /// here (tests name `127.0.0.1` for their local receivers).
    #[arg(long = "alert-allow-host", value_name = "HOST")]
    pub alert_allow_host: Vec<String>,
    /// Rules one client (address) may keep.
    #[arg(
        long = "alert-rules-per-client",
        default_value_t = 20,
        value_name = "N"
    )]
    pub alert_rules_per_client: u32,
    /// Seconds an alert's request may take, connection included.
    #[arg(long = "alert-timeout", default_value_t = 10, value_name = "SECONDS")]
    pub alert_timeout: u64,
    /// Who runs this relay, as push services ask in every VAPID signature (`mailto:` or an
    /// `https` URL); some refuse a made-up one.
    #[arg(
        long = "alert-contact",
        default_value = "mailto:webpush@muster.invalid",
        value_name = "URL"
    )]
    pub alert_contact: String,
    /// The address visitors reach this relay at (`https://muster.example`): alerts link a
    /// highlight's clip and show its still there (Discord fetches the image from it). Without
    /// it they carry paths on the relay.
    #[arg(long = "public-url", value_name = "URL")]
    pub public_url: Option<String>,
}

impl Default for AlertsArgs {
    fn default() -> Self {
        Self {
            alert_allow_host: Vec::new(),
            alert_rules_per_client: 20,
            alert_timeout: 10,
            alert_contact: "mailto:webpush@muster.invalid".into(),
            public_url: None,
        }
    }
}

/// What alerts need from the relay.
pub struct AlertsStart {
    pub config: AlertsArgs,
    /// Alerts are kept only where there is a store.
    pub store: Option<Workers>,
    pub servers: Arc<dyn ServerStates>,
    pub known: Known,
    pub cluster: Option<Arc<Cluster>>,
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted: Vec<IpAddr>,
}

#[derive(Clone)]
struct Alerts {
    config: AlertsArgs,
    store: Workers,
    allow: Arc<guard::Allow>,
    keys: push::Keys,
    known: Known,
    trusted: Arc<Vec<IpAddr>>,
    /// Rules changed here: the judge reads them again before its next look.
    rules_changed: Arc<AtomicBool>,
    /// Firings were written: the sender looks at once.
    fired: Arc<Notify>,
    /// Looks that judged a new refresh with every verdict written: `/metrics` shows it, so an
    /// operator (and a test) can tell the judge is alive and when it has seen a change.
    looks: Arc<AtomicU64>,
}

/// How often the judge looks at the directory (it skips a look when nothing changed), and the
/// sender at the outbox when nothing woke it.
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// Rules made on other relays sharing the store are read this often.
const RELOAD_EVERY: Duration = Duration::from_secs(15);
/// Delivered and dropped firings are kept this long (the page lists them) before the sweep.
const KEEP_DONE_MS: u64 = 7 * 24 * 3_600_000;

/// What alerts give back.
pub struct AlertsStarted {
    /// None without a store.
    pub routes: Option<Router>,
    /// The match log to follow matches with: `log`, telling alerts of ended matches on the way.
    pub log: Option<Arc<dyn MatchLog>>,
    /// Owners' webhooks for their servers' own events; None without a store.
    pub webhooks: Option<Arc<dyn crate::seams::ServerWebhooks>>,
    /// What `/metrics` reads of the judge; None without a store.
    pub scrape: Option<Arc<dyn crate::metrics::Scrape>>,
    /// Where the highlights' keeper tells of clips and plays of the match; None without a
    /// store.
    pub highlights: Option<Arc<dyn crate::seams::HighlightsTold>>,
}

/// Starts judging and sending when there is a store (else no routes, and `log` unchanged).
pub fn start(
    start: AlertsStart,
    log: Option<Arc<dyn MatchLog>>,
    tasks: &mut JoinSet<()>,
) -> anyhow::Result<AlertsStarted> {
    let Some(store) = start.store else {
        return Ok(AlertsStarted {
            routes: None,
            log,
            webhooks: None,
            scrape: None,
            highlights: None,
        });
    };
    let allow = Arc::new(guard::Allow::new(&start.config.alert_allow_host));
    let keys = push::Keys::new(store.clone(), start.config.alert_contact.clone());
    let sender = outbox::Sender::new(
        allow.clone(),
        store.clone(),
        keys.clone(),
        Duration::from_secs(start.config.alert_timeout.max(1)),
    )?;
    let alerts = Alerts {
        config: start.config,
        store,
        allow,
        keys,
        known: start.known,
        trusted: Arc::new(start.trusted),
        rules_changed: Arc::new(AtomicBool::new(true)),
        fired: Arc::new(Notify::new()),
        looks: Arc::new(AtomicU64::new(0)),
    };
    let lease = start
        .cluster
        .map(|cluster| Lease::campaign(cluster, "alerts".to_owned()));
    tasks.spawn(alerts.clone().run(start.servers, sender, lease));
    let log = log.map(|inner| {
        Arc::new(MatchEnds {
            inner,
            alerts: alerts.clone(),
        }) as Arc<dyn MatchLog>
    });
    let webhooks = Some(Arc::new(alerts.clone()) as Arc<dyn crate::seams::ServerWebhooks>);
    let highlights = Some(Arc::new(alerts.clone()) as Arc<dyn crate::seams::HighlightsTold>);
    let scrape =
        Some(Arc::new(scrape::Looks(alerts.looks.clone())) as Arc<dyn crate::metrics::Scrape>);
    let routes = Router::from(api::api()).with_state(alerts);
    Ok(AlertsStarted {
        routes: Some(routes),
        log,
        webhooks,
        scrape,
        highlights,
    })
}

impl Alerts {
    /// Judges and sends while this relay holds the lease (always, alone).
    async fn run(
        self,
        servers: Arc<dyn ServerStates>,
        sender: outbox::Sender,
        lease: Option<Lease>,
    ) {
        let sender = Arc::new(sender);
        let mut judge = Judge::default();
        let mut every = tokio::time::interval(LOOK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut sweep_at = tokio::time::Instant::now();
        let mut sending: Option<tokio::task::JoinHandle<()>> = None;
        loop {
            tokio::select! {
                _ = every.tick() => {}
                () = self.fired.notified() => {}
            }
            if lease.as_ref().is_some_and(|l| l.held().is_none()) {
                // Another relay judges; what it wrote is read afresh if this one takes over.
                judge = Judge::default();
                continue;
            }
            if self.look(&mut judge, servers.as_ref()).await {
                self.looks.fetch_add(1, Ordering::Relaxed);
            }
            if sending.as_ref().is_none_or(|s| s.is_finished()) {
                let sender = sender.clone();
                sending = Some(tokio::spawn(
                    async move { while sender.round().await > 0 {} },
                ));
            }
            if tokio::time::Instant::now() >= sweep_at {
                sweep_at += Duration::from_secs(3600);
                let before = crate::net::unix_ms().saturating_sub(KEEP_DONE_MS);
                if let Err(e) = self
                    .store
                    .run(move |s| stored::sweep(s.exec()?, before))
                    .await
                {
                    tracing::warn!("alerts: sweeping the outbox: {e}");
                }
            }
        }
    }

    /// One look at the directory: rules read again when they changed, changes written with
    /// their firings in one transaction. True when a new refresh was judged and every verdict
    /// is written.
    async fn look(&self, judge: &mut Judge, servers: &dyn ServerStates) -> bool {
        let reload = self.rules_changed.swap(false, Ordering::AcqRel)
            || judge.loaded.is_none_or(|at| at.elapsed() >= RELOAD_EVERY);
        if reload {
            match self.store.run(|s| stored::active_rules(s.exec()?)).await {
                Ok(rows) => judge.load(rows),
                Err(e) => {
                    tracing::warn!("alerts: reading the rules: {e}");
                    return false;
                }
            }
        }
        let seq = servers.seq();
        if !reload && judge.seq == Some(seq) {
            return false;
        }
        judge.seq = Some(seq);
        let now = crate::net::unix_ms();
        let mut changes = rules::judge(&mut judge.rules, &servers.states(), now);
        if changes.is_empty() {
            return true;
        }
        self.with_last_seen(&mut changes, now).await;
        let fires = changes.iter().any(|c| c.fire.is_some());
        let written = self
            .store
            .run(move |s| {
                s.transact(&mut |db| {
                    for change in &changes {
                        let Some(fire) = &change.fire else {
                            stored::settle(db, &change.rule, change.holds, None)?;
                            continue;
                        };
                        let payload = |key: &str, lang: &str| fire.payload(key, lang);
                        let firing = Firing {
                            at_ms: now,
                            payload: &payload,
                        };
                        stored::settle(db, &change.rule, change.holds, Some(&firing))?;
                    }
                    Ok(())
                })
            })
            .await;
        match written {
            Ok(()) => {
                if fires {
                    self.fired.notify_one();
                }
                true
            }
            Err(e) => {
                tracing::warn!("alerts: writing what fired: {e}");
                // Read the rules' states back so the changes are judged again.
                judge.loaded = None;
                false
            }
        }
    }
}

impl Alerts {
    /// A name that appeared is told with when the history last saw it before: its latest
    /// stay that ended before this sighting (the history may already hold the current one).
    async fn with_last_seen(&self, changes: &mut [rules::Change], now: u64) {
        for change in changes.iter_mut().filter(|c| c.holds) {
            let Some(fire) = change.fire.as_mut() else {
                continue;
            };
            let Rule::NameSeen { name, .. } = &fire.event.rule else {
                continue;
            };
            let key = rules::name_key(name);
            let found = {
                let key = key.clone();
                self.store.run(move |s| s.find_players(&key, 20, 5)).await
            };
            let Ok(found) = found else { continue };
            if let Some(last) = last_stay_before(found, &key, now) {
                fire.event.last_seen_ms = Some(last);
                fire.said = Said::new("alert-last-seen")
                    .with("seen", fire.said.clone())
                    .with("ago", protocol::said::ago((now - last) / 1000));
            }
        }
    }
}

/// When `key`'s latest stay ended, among those that ended before `now` (a stay still going,
/// within two minutes of now, is the sighting being told).
fn last_stay_before(found: Vec<crate::store::Seen>, key: &str, now: u64) -> Option<u64> {
    (found.into_iter())
        .filter(|p| p.key == key)
        .flat_map(|p| p.sessions)
        .map(|stay| stay.last_ms)
        .filter(|&last| last + 120_000 < now)
        .max()
}

/// The rules as the judge holds them between looks.
#[derive(Default)]
struct Judge {
    rules: Vec<rules::Held>,
    loaded: Option<tokio::time::Instant>,
    /// The directory's tick at the last look.
    seq: Option<u64>,
}

impl Judge {
    fn load(&mut self, rows: Vec<(stored::StoredRule, String)>) {
        self.rules = (rows.into_iter())
            .filter_map(|(r, _)| {
                let rule = serde_json::from_str::<Rule>(&r.rule).ok()?;
                // Fired by what happens in matches, not judged on refreshes.
                (!matches!(rule, Rule::MatchEnd { .. } | Rule::Highlight { .. }))
                    .then(|| rules::Held::new(r.id, rule, r.holds))
            })
            .collect();
        self.loaded = Some(tokio::time::Instant::now());
    }
}

/// The match log, passed through, with an ended match's `match_end` rules fired on the way
/// (in the store: whichever relay follows the match, the alerts lease holder sends).
struct MatchEnds {
    inner: Arc<dyn MatchLog>,
    alerts: Alerts,
}

impl MatchLog for MatchEnds {
    fn part(&self, part: MatchPart) {
        if part.ended == Some(protocol::relay_api::matches::MatchEnd::Intermission) {
            let alerts = self.alerts.clone();
            let event = match_event(&part);
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { alerts.match_ended(event).await });
            }
        }
        self.inner.part(part);
    }
}

fn match_event(part: &MatchPart) -> rules::Fire {
    let said = Said::new("alert-match-over")
        .with("server", rules::plain(&part.hostname))
        .with("map", part.map.as_str())
        .with("mode", part.gametype.as_str());
    let said = match part.record.team_scores.last() {
        Some((_, axis, allies)) => Said::new("alert-match-score")
            .with("over", said)
            .with("axis", *axis)
            .with("allies", *allies),
        None => said,
    };
    rules::Fire {
        event: AlertEvent {
            key: String::new(),
            rule_id: String::new(),
            rule: Rule::MatchEnd {
                server: part.server.clone(),
            },
            at_ms: part.end_ms,
            text: String::new(),
            lang: String::new(),
            server: None,
            join: Some(rules::join_link(&part.server)),
            last_seen_ms: None,
            highlight: None,
        },
        said,
    }
}

impl Alerts {
    /// Fires every `match_end` rule of the match's server.
    async fn match_ended(&self, fire: rules::Fire) {
        let rule = serde_json::to_string(&fire.event.rule).unwrap_or_default();
        let written = self
            .store
            .run(move |s| {
                s.transact(&mut |db| {
                    for id in stored::rules_matching(db, &rule)? {
                        let mut fire = fire.clone();
                        fire.event.rule_id = id.clone();
                        let payload = |key: &str, lang: &str| fire.payload(key, lang);
                        let firing = Firing {
                            at_ms: fire.event.at_ms,
                            payload: &payload,
                        };
                        stored::fire_rule(db, &id, None, &firing)?;
                    }
                    Ok(())
                })
            })
            .await;
        match written {
            Ok(()) => self.fired.notify_one(),
            Err(e) => tracing::warn!("alerts: a match's end: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Seen, SeriesName, Session};

    fn stay(first_ms: u64, last_ms: u64) -> Session {
        Session {
            key: "sgt.fury".into(),
            name: "^1Sgt.Fury".into(),
            server: SeriesName::default(),
            first_ms,
            last_ms,
        }
    }

    #[test]
    fn a_name_that_appears_is_told_with_its_last_stay_before_this_one() {
        let day = 86_400_000;
        let now = 10 * day;
        let seen = Seen {
            key: "sgt.fury".into(),
            name: "^1Sgt.Fury".into(),
            last_ms: now,
            last_server: SeriesName::default(),
            // The stay going on now, and the one three days ago.
            sessions: vec![stay(now - 30_000, now), stay(7 * day - 3_600_000, 7 * day)],
        };
        let other = Seen {
            key: "sgt.fury2".into(),
            sessions: vec![stay(9 * day, 9 * day + 1)],
            ..seen.clone()
        };
        assert_eq!(
            last_stay_before(vec![other, seen.clone()], "sgt.fury", now),
            Some(7 * day)
        );
        let only_now = Seen {
            sessions: vec![stay(now - 30_000, now)],
            ..seen
        };
        assert_eq!(last_stay_before(vec![only_now], "sgt.fury", now), None);
    }
}
