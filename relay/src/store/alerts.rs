//! Alerts in the store, alike on both backends (through [`Exec`]): subscriptions (a
//! destination and the hash of its management token), their rules with the state each last
//! held (so a restart or a new lease holder neither fires again nor misses a change), and the
//! outbox: each firing as it is sent, retried, delivered or dropped, with why.

use super::matches::exec::{Exec, Value};
use super::matches::int;
use super::Result;

/// Schema version 7 on SQLite.
pub const SQLITE_SCHEMA: &str = "
CREATE TABLE alert_subscriptions (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
    client TEXT NOT NULL, destination TEXT NOT NULL, created_ms INTEGER NOT NULL);
CREATE INDEX alert_subscriptions_client ON alert_subscriptions (client);
CREATE TABLE alert_rules (id TEXT PRIMARY KEY, subscription TEXT NOT NULL, rule TEXT NOT NULL,
    paused INTEGER NOT NULL, holds INTEGER NOT NULL, fired INTEGER NOT NULL,
    created_ms INTEGER NOT NULL);
CREATE INDEX alert_rules_subscription ON alert_rules (subscription);
CREATE TABLE alert_outbox (key TEXT PRIMARY KEY, subscription TEXT NOT NULL, rule TEXT NOT NULL,
    destination TEXT NOT NULL, payload TEXT NOT NULL, created_ms INTEGER NOT NULL,
    next_ms INTEGER NOT NULL, attempts INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT,
    done_ms INTEGER);
CREATE INDEX alert_outbox_due ON alert_outbox (state, next_ms);
CREATE INDEX alert_outbox_subscription ON alert_outbox (subscription);
CREATE TABLE alert_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// Schema version 7 on PostgreSQL.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE alert_subscriptions (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
    client TEXT NOT NULL, destination TEXT NOT NULL, created_ms BIGINT NOT NULL);
CREATE INDEX alert_subscriptions_client ON alert_subscriptions (client);
CREATE TABLE alert_rules (id TEXT PRIMARY KEY, subscription TEXT NOT NULL, rule TEXT NOT NULL,
    paused BIGINT NOT NULL, holds BIGINT NOT NULL, fired BIGINT NOT NULL,
    created_ms BIGINT NOT NULL);
CREATE INDEX alert_rules_subscription ON alert_rules (subscription);
CREATE TABLE alert_outbox (key TEXT PRIMARY KEY, subscription TEXT NOT NULL, rule TEXT NOT NULL,
    destination TEXT NOT NULL, payload TEXT NOT NULL, created_ms BIGINT NOT NULL,
    next_ms BIGINT NOT NULL, attempts BIGINT NOT NULL, state TEXT NOT NULL, reason TEXT,
    done_ms BIGINT);
CREATE INDEX alert_outbox_due ON alert_outbox (state, next_ms);
CREATE INDEX alert_outbox_subscription ON alert_outbox (subscription);
CREATE TABLE alert_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// Schema version 9, alike on both backends: the language each subscription's alerts are
/// written in (subscriptions made before it speak English, as they did).
pub const SCHEMA_LANG: &str = "
ALTER TABLE alert_subscriptions ADD COLUMN lang TEXT NOT NULL DEFAULT 'en';
";

/// A rule's state before its first evaluation: whatever it finds then is not a change.
pub const UNKNOWN: i64 = -1;

/// A subscription: where its rules' alerts go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    pub id: String,
    /// SHA-256 of the management token, hex: the token itself is never kept.
    pub token_hash: String,
    /// Who made it (the client's address), for the per-client cap.
    pub client: String,
    /// `relay_api::alerts::Destination` as JSON.
    pub destination: String,
    pub created_ms: u64,
    /// The language its alerts are written in (a tag: `en`, `de`, ...).
    pub lang: String,
}

/// A rule as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRule {
    pub id: String,
    pub subscription: String,
    /// `relay_api::alerts::Rule` as JSON.
    pub rule: String,
    pub paused: bool,
    /// [`UNKNOWN`], 0 or 1: whether the condition held at the last evaluation.
    pub holds: i64,
    pub fired: u64,
    pub created_ms: u64,
}

/// One firing on its way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The deduplication key: `RULE-N`, the rule's id and its N-th firing.
    pub key: String,
    pub subscription: String,
    pub rule: String,
    /// The destination as JSON, as it was when the rule fired.
    pub destination: String,
    /// `relay_api::alerts::AlertEvent` as JSON.
    pub payload: String,
    pub created_ms: u64,
    pub next_ms: u64,
    pub attempts: u32,
    /// `pending`, `sent` or `dropped`.
    pub state: String,
    pub reason: Option<String>,
}

fn count(db: &mut dyn Exec, sql: &str, params: &[Value]) -> Result<u64> {
    let rows = db.rows(sql, params)?;
    Ok(rows.first().map_or(0, |r| r[0].int().max(0) as u64))
}

pub fn add_subscription(db: &mut dyn Exec, s: &Subscription) -> Result<()> {
    db.exec(
        "INSERT INTO alert_subscriptions (id, token_hash, client, destination, created_ms, lang)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            Value::Text(&s.id),
            Value::Text(&s.token_hash),
            Value::Text(&s.client),
            Value::Text(&s.destination),
            int(s.created_ms),
            Value::Text(&s.lang),
        ],
    )?;
    Ok(())
}

/// The language a subscription's alerts are written in from now on.
pub fn set_lang(db: &mut dyn Exec, subscription: &str, lang: &str) -> Result<()> {
    db.exec(
        "UPDATE alert_subscriptions SET lang = $1 WHERE id = $2",
        &[Value::Text(lang), Value::Text(subscription)],
    )?;
    Ok(())
}

/// The subscription whose token hashes to `token_hash`.
pub fn subscription(db: &mut dyn Exec, token_hash: &str) -> Result<Option<Subscription>> {
    let rows = db.rows(
        "SELECT id, token_hash, client, destination, created_ms, lang FROM alert_subscriptions
         WHERE token_hash = $1",
        &[Value::Text(token_hash)],
    )?;
    Ok(rows.into_iter().next().map(|r| Subscription {
        id: r[0].text(),
        token_hash: r[1].text(),
        client: r[2].text(),
        destination: r[3].text(),
        created_ms: r[4].int().max(0) as u64,
        lang: r[5].text(),
    }))
}

/// Rules of every subscription `client` made.
pub fn rules_of_client(db: &mut dyn Exec, client: &str) -> Result<u64> {
    count(
        db,
        "SELECT COUNT(*) FROM alert_rules r JOIN alert_subscriptions s ON s.id = r.subscription
         WHERE s.client = $1",
        &[Value::Text(client)],
    )
}

pub fn add_rule(db: &mut dyn Exec, r: &StoredRule) -> Result<()> {
    db.exec(
        "INSERT INTO alert_rules (id, subscription, rule, paused, holds, fired, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            Value::Text(&r.id),
            Value::Text(&r.subscription),
            Value::Text(&r.rule),
            Value::Int(i64::from(r.paused)),
            Value::Int(r.holds),
            int(r.fired),
            int(r.created_ms),
        ],
    )?;
    Ok(())
}

const RULE_COLUMNS: &str = "id, subscription, rule, paused, holds, fired, created_ms";

fn rule_of(r: &[super::matches::exec::Cell]) -> StoredRule {
    StoredRule {
        id: r[0].text(),
        subscription: r[1].text(),
        rule: r[2].text(),
        paused: r[3].int() != 0,
        holds: r[4].int(),
        fired: r[5].int().max(0) as u64,
        created_ms: r[6].int().max(0) as u64,
    }
}

/// A subscription's rules, oldest first.
pub fn rules(db: &mut dyn Exec, subscription: &str) -> Result<Vec<StoredRule>> {
    let rows = db.rows(
        &format!(
            "SELECT {RULE_COLUMNS} FROM alert_rules WHERE subscription = $1
             ORDER BY created_ms, id"
        ),
        &[Value::Text(subscription)],
    )?;
    Ok(rows.iter().map(|r| rule_of(r)).collect())
}

/// Every rule not paused, with its subscription's destination: what the evaluator holds.
pub fn active_rules(db: &mut dyn Exec) -> Result<Vec<(StoredRule, String)>> {
    let rows = db.rows(
        "SELECT r.id, r.subscription, r.rule, r.paused, r.holds, r.fired, r.created_ms,
                s.destination
         FROM alert_rules r JOIN alert_subscriptions s ON s.id = r.subscription
         WHERE r.paused = 0",
        &[],
    )?;
    Ok(rows.iter().map(|r| (rule_of(r), r[7].text())).collect())
}

/// The rules (not paused) of one kind (`highlight`): their JSON begins with their kind, as
/// serde writes an internally tagged enum's tag first.
pub fn active_rules_of_kind(db: &mut dyn Exec, kind: &str) -> Result<Vec<StoredRule>> {
    let prefix = format!("{{\"kind\":\"{kind}\"%");
    let rows = db.rows(
        "SELECT r.id, r.subscription, r.rule, r.paused, r.holds, r.fired, r.created_ms
         FROM alert_rules r WHERE r.paused = 0 AND r.rule LIKE $1",
        &[Value::Text(&prefix)],
    )?;
    Ok(rows.iter().map(|r| rule_of(r)).collect())
}

/// The ids of the rules (not paused) stored as exactly `rule` (its JSON): a server's
/// `match_end` rules.
pub fn rules_matching(db: &mut dyn Exec, rule: &str) -> Result<Vec<String>> {
    let rows = db.rows(
        "SELECT id FROM alert_rules WHERE rule = $1 AND paused = 0",
        &[Value::Text(rule)],
    )?;
    Ok(rows.iter().map(|r| r[0].text()).collect())
}

/// Pauses or resumes a subscription's rule; whether it was there.
pub fn set_paused(db: &mut dyn Exec, subscription: &str, id: &str, paused: bool) -> Result<bool> {
    Ok(db.exec(
        "UPDATE alert_rules SET paused = $1 WHERE id = $2 AND subscription = $3",
        &[
            Value::Int(i64::from(paused)),
            Value::Text(id),
            Value::Text(subscription),
        ],
    )? > 0)
}

/// Removes a subscription's rule and what its outbox kept; whether it was there.
pub fn remove_rule(db: &mut dyn Exec, subscription: &str, id: &str) -> Result<bool> {
    let gone = db.exec(
        "DELETE FROM alert_rules WHERE id = $1 AND subscription = $2",
        &[Value::Text(id), Value::Text(subscription)],
    )?;
    db.exec(
        "DELETE FROM alert_outbox WHERE rule = $1 AND subscription = $2",
        &[Value::Text(id), Value::Text(subscription)],
    )?;
    Ok(gone > 0)
}

/// Removes a subscription, its rules and its outbox: everything kept about it.
/// The ids of the subscriptions `client` made.
pub fn subscriptions_of_client(db: &mut dyn Exec, client: &str) -> Result<Vec<String>> {
    let rows = db.rows(
        "SELECT id FROM alert_subscriptions WHERE client = $1",
        &[Value::Text(client)],
    )?;
    Ok(rows.iter().map(|r| r[0].text()).collect())
}

pub fn remove_subscription(db: &mut dyn Exec, subscription: &str) -> Result<()> {
    for table in ["alert_outbox", "alert_rules"] {
        db.exec(
            &format!("DELETE FROM {table} WHERE subscription = $1"),
            &[Value::Text(subscription)],
        )?;
    }
    db.exec(
        "DELETE FROM alert_subscriptions WHERE id = $1",
        &[Value::Text(subscription)],
    )?;
    Ok(())
}

/// A rule's new state; with `fire`, its next firing goes to the outbox in the same
/// transaction (the caller's), keyed by the rule and the firing's number, so a firing is
/// written once or not at all. Returns whether a firing was written (the rule may have gone).
pub fn settle(
    db: &mut dyn Exec,
    rule: &str,
    holds: bool,
    fire: Option<&Firing<'_>>,
) -> Result<bool> {
    let Some(fire) = fire else {
        db.exec(
            "UPDATE alert_rules SET holds = $1 WHERE id = $2",
            &[Value::Int(i64::from(holds)), Value::Text(rule)],
        )?;
        return Ok(false);
    };
    fire_rule(db, rule, Some(holds), fire)
}

/// What one firing says.
pub struct Firing<'a> {
    pub at_ms: u64,
    /// The payload (an `AlertEvent`'s JSON) made with the key the firing gets, in its
    /// subscription's language: `(key, lang)`.
    pub payload: &'a dyn Fn(&str, &str) -> String,
}

/// Writes a rule's next firing to the outbox (and its state, when given).
pub fn fire_rule(
    db: &mut dyn Exec,
    rule: &str,
    holds: Option<bool>,
    fire: &Firing<'_>,
) -> Result<bool> {
    let rows = db.rows(
        "SELECT r.fired, r.subscription, s.destination, s.lang FROM alert_rules r
         JOIN alert_subscriptions s ON s.id = r.subscription WHERE r.id = $1",
        &[Value::Text(rule)],
    )?;
    let Some(row) = rows.first() else {
        return Ok(false);
    };
    let fired = row[0].int().max(0) as u64 + 1;
    let (subscription, destination, lang) = (row[1].text(), row[2].text(), row[3].text());
    let key = format!("{rule}-{fired}");
    db.exec(
        "UPDATE alert_rules SET fired = $1, holds = COALESCE($2, holds) WHERE id = $3",
        &[
            int(fired),
            holds.map_or(Value::Null, |h| Value::Int(i64::from(h))),
            Value::Text(rule),
        ],
    )?;
    db.exec(
        "INSERT INTO alert_outbox (key, subscription, rule, destination, payload, created_ms,
             next_ms, attempts, state)
         VALUES ($1, $2, $3, $4, $5, $6, $6, 0, 'pending')",
        &[
            Value::Text(&key),
            Value::Text(&subscription),
            Value::Text(rule),
            Value::Text(&destination),
            Value::Text(&(fire.payload)(&key, &lang)),
            int(fire.at_ms),
        ],
    )?;
    Ok(true)
}

const OUT_COLUMNS: &str =
    "key, subscription, rule, destination, payload, created_ms, next_ms, attempts, state, reason";

fn outgoing_of(r: &[super::matches::exec::Cell]) -> Outgoing {
    Outgoing {
        key: r[0].text(),
        subscription: r[1].text(),
        rule: r[2].text(),
        destination: r[3].text(),
        payload: r[4].text(),
        created_ms: r[5].int().max(0) as u64,
        next_ms: r[6].int().max(0) as u64,
        attempts: r[7].int().clamp(0, i64::from(u32::MAX)) as u32,
        state: r[8].text(),
        reason: r[9].opt_text(),
    }
}

/// Pending firings due by `now_ms`, oldest first, at most `limit`.
pub fn due(db: &mut dyn Exec, now_ms: u64, limit: u32) -> Result<Vec<Outgoing>> {
    let rows = db.rows(
        &format!(
            "SELECT {OUT_COLUMNS} FROM alert_outbox WHERE state = 'pending' AND next_ms <= $1
             ORDER BY next_ms, key LIMIT $2"
        ),
        &[int(now_ms), Value::Int(i64::from(limit))],
    )?;
    Ok(rows.iter().map(|r| outgoing_of(r)).collect())
}

/// A subscription's outbox, newest first, at most `limit`.
pub fn outbox_of(db: &mut dyn Exec, subscription: &str, limit: u32) -> Result<Vec<Outgoing>> {
    let rows = db.rows(
        &format!(
            "SELECT {OUT_COLUMNS} FROM alert_outbox WHERE subscription = $1
             ORDER BY created_ms DESC, key LIMIT $2"
        ),
        &[Value::Text(subscription), Value::Int(i64::from(limit))],
    )?;
    Ok(rows.iter().map(|r| outgoing_of(r)).collect())
}

/// The receiver took it.
pub fn sent(db: &mut dyn Exec, key: &str, now_ms: u64) -> Result<()> {
    db.exec(
        "UPDATE alert_outbox SET state = 'sent', attempts = attempts + 1, done_ms = $1,
             reason = NULL WHERE key = $2",
        &[int(now_ms), Value::Text(key)],
    )?;
    Ok(())
}

/// Tried again at `next_ms`; `attempt` counts this try (a rate limit's wait does not).
pub fn later(db: &mut dyn Exec, key: &str, next_ms: u64, attempt: bool, why: &str) -> Result<()> {
    db.exec(
        "UPDATE alert_outbox SET next_ms = $1, attempts = attempts + $2, reason = $3
         WHERE key = $4 AND state = 'pending'",
        &[
            int(next_ms),
            Value::Int(i64::from(attempt)),
            Value::Text(why),
            Value::Text(key),
        ],
    )?;
    Ok(())
}

/// Never to be sent; the reason is kept.
pub fn dropped(db: &mut dyn Exec, key: &str, now_ms: u64, why: &str) -> Result<()> {
    db.exec(
        "UPDATE alert_outbox SET state = 'dropped', done_ms = $1, reason = $2 WHERE key = $3",
        &[int(now_ms), Value::Text(why), Value::Text(key)],
    )?;
    Ok(())
}

/// A destination that answered that it is gone (404, 410): its subscription's rules go, and
/// what was pending for it is dropped with why (kept, like every drop, until swept).
pub fn destination_gone(
    db: &mut dyn Exec,
    subscription: &str,
    now_ms: u64,
    why: &str,
) -> Result<()> {
    db.exec(
        "UPDATE alert_outbox SET state = 'dropped', done_ms = $1, reason = $2
         WHERE subscription = $3 AND state = 'pending'",
        &[int(now_ms), Value::Text(why), Value::Text(subscription)],
    )?;
    db.exec(
        "DELETE FROM alert_rules WHERE subscription = $1",
        &[Value::Text(subscription)],
    )?;
    Ok(())
}

/// Forgets deliveries done before `before_ms`, and subscriptions left with no rules and
/// nothing kept; how many deliveries went.
pub fn sweep(db: &mut dyn Exec, before_ms: u64) -> Result<u64> {
    let gone = db.exec(
        "DELETE FROM alert_outbox WHERE state <> 'pending' AND done_ms < $1",
        &[int(before_ms)],
    )?;
    db.exec(
        "DELETE FROM alert_subscriptions WHERE created_ms < $1
           AND NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.subscription = alert_subscriptions.id)
           AND NOT EXISTS (SELECT 1 FROM alert_outbox o WHERE o.subscription = alert_subscriptions.id)",
        &[int(before_ms)],
    )?;
    Ok(gone)
}

/// A value kept under `name` (the push service's keys).
pub fn key(db: &mut dyn Exec, name: &str) -> Result<Option<String>> {
    let rows = db.rows(
        "SELECT value FROM alert_keys WHERE name = $1",
        &[Value::Text(name)],
    )?;
    Ok(rows.first().map(|r| r[0].text()))
}

/// Keeps `value` under `name` unless a value is there already (a relay beside this one may
/// have made it first); the value kept.
pub fn key_or_insert(db: &mut dyn Exec, name: &str, value: &str) -> Result<String> {
    db.exec(
        "INSERT INTO alert_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        &[Value::Text(name), Value::Text(value)],
    )?;
    Ok(key(db, name)?.unwrap_or_else(|| value.to_owned()))
}
