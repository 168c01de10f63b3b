//! Sending the outbox. Each firing was written with its rule's new state in one transaction;
//! here it is sent and only then marked sent, so a relay killed mid-send sends it again when
//! it (or the next lease holder) comes back: delivery is at least once, and a receiver sees
//! one event twice only when the relay died between the receiver's answer and marking it sent
//! (the repeat carries the same `Muster-Delivery` key). Failures are retried with backoff
//! (5 s doubling to an hour, jittered); a firing undelivered for a day is dropped with why;
//! a 429 waits what the receiver asked (Discord's `retry_after`) without counting a failure;
//! 404 or 410 means the destination is gone, and its subscription's rules go with it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use protocol::relay_api::alerts::{AlertEvent, Destination};
use rand::Rng;

use super::guard::{Allow, Refused, Resolver, BODY_CAP};
use super::message;
use crate::net::unix_ms;
use crate::store::alerts::{self as stored, Outgoing};
use crate::store::worker::Workers;

/// A firing is given up after this long.
pub const GIVE_UP_MS: u64 = 24 * 3_600_000;
/// Firings sent at once.
const AT_ONCE: usize = 16;
/// Firings read from the outbox a round.
const ROUND: u32 = 200;

/// Sends what the outbox holds.
pub struct Sender {
    client: reqwest::Client,
    allow: Arc<Allow>,
    store: Workers,
    keys: super::push::Keys,
    /// Per destination: Discord allows a webhook 5 requests in 2 s, ntfy.sh a visitor a
    /// burst then one per 5 s; 30 a minute with bursts of 5 keeps under both.
    limits: DefaultKeyedRateLimiter<String>,
}

/// How one try went.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Sent,
    /// Try again after this long; `failed` counts it as a failure (else it was a wait the
    /// receiver or our rate limit asked for).
    Later {
        after: Duration,
        failed: bool,
        why: String,
    },
    /// Never: the URL or its address is refused, or the receiver refused it for good.
    Drop(String),
    /// The destination said it is gone.
    Gone(String),
}

impl Sender {
    pub fn new(
        allow: Arc<Allow>,
        store: Workers,
        keys: super::push::Keys,
        timeout: Duration,
    ) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .dns_resolver(Arc::new(Resolver(allow.clone())))
            .user_agent(concat!("muster/", env!("CARGO_PKG_VERSION"), " (alerts)"))
            .build()?;
        let quota =
            Quota::per_minute(std::num::NonZeroU32::new(30).unwrap_or(std::num::NonZeroU32::MIN))
                .allow_burst(std::num::NonZeroU32::new(5).unwrap_or(std::num::NonZeroU32::MIN));
        Ok(Self {
            client,
            allow,
            store,
            keys,
            limits: RateLimiter::keyed(quota),
        })
    }

    /// Sends what is due; how many were tried.
    pub async fn round(&self) -> usize {
        let now = unix_ms();
        let due = match self
            .store
            .run(move |s| stored::due(s.exec()?, now, ROUND))
            .await
        {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!("alerts: reading the outbox: {e}");
                return 0;
            }
        };
        let tried = due.len();
        futures_util::stream::iter(due)
            .for_each_concurrent(AT_ONCE, |out| async move {
                let outcome = self.try_send(&out).await;
                self.settle(out, outcome).await;
            })
            .await;
        tried
    }

    async fn try_send(&self, out: &Outgoing) -> Outcome {
        let (to, event) = match (
            serde_json::from_str::<Destination>(&out.destination),
            serde_json::from_str::<AlertEvent>(&out.payload),
        ) {
            (Ok(to), Ok(event)) => (to, event),
            _ => return Outcome::Drop("unreadable in the outbox".into()),
        };
        let url = match self.allow.check(&to) {
            Ok(url) => url,
            Err(e) => return Outcome::Drop(format!("refused: {e}")),
        };
        if let Err(not_until) = self.limits.check_key(&out.destination) {
            return Outcome::Later {
                after: not_until.wait_time_from(DefaultClock::default().now()),
                failed: false,
                why: "rate limited here".into(),
            };
        }
        let sent = match &to {
            Destination::Push { subscription } => {
                let vapid = match self.keys.get().await {
                    Ok(vapid) => vapid,
                    Err(e) => {
                        return Outcome::Later {
                            after: backoff(out.attempts),
                            failed: true,
                            why: format!("the VAPID key: {e}"),
                        }
                    }
                };
                let request = match vapid.request(subscription, &event) {
                    Ok(request) => request,
                    Err(e) => return Outcome::Drop(e),
                };
                match reqwest::Request::try_from(request) {
                    Ok(mut request) => {
                        request
                            .headers_mut()
                            .insert("muster-delivery", header(&out.key));
                        self.client.execute(request).await
                    }
                    Err(e) => return Outcome::Drop(format!("endpoint: {e}")),
                }
            }
            _ => {
                let request = message::request(&to, url, &event);
                self.client
                    .post(request.url)
                    .header("content-type", "application/json")
                    .header("muster-delivery", &out.key)
                    .body(request.body)
                    .send()
                    .await
            }
        };
        let response = match sent {
            Ok(r) => r,
            Err(e) => {
                if let Some(refused) = refusal(&e) {
                    return Outcome::Drop(format!("refused: {refused}"));
                }
                return Outcome::Later {
                    after: backoff(out.attempts),
                    failed: true,
                    why: describe(&e),
                };
            }
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok());
        let body = read_capped(response).await;
        match status.as_u16() {
            200..=299 => Outcome::Sent,
            429 => {
                // Discord puts seconds (fractional) in the body; others in Retry-After.
                let asked = serde_json::from_slice::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["retry_after"].as_f64())
                    .or(retry_after)
                    .unwrap_or(5.0)
                    .clamp(0.0, 3600.0);
                Outcome::Later {
                    after: Duration::from_secs_f64(asked),
                    failed: false,
                    why: format!("429: asked to wait {asked} s"),
                }
            }
            300..=399 => Outcome::Drop(format!(
                "the destination answered {status}, a redirect, which is not followed"
            )),
            404 | 410 => Outcome::Gone(format!("the destination answered {status}: gone")),
            400..=499 => Outcome::Drop(format!(
                "the destination refused it: {status} {}",
                text(&body)
            )),
            _ => Outcome::Later {
                after: backoff(out.attempts),
                failed: true,
                why: format!("{status} {}", text(&body)),
            },
        }
    }

    async fn settle(&self, out: Outgoing, outcome: Outcome) {
        let now = unix_ms();
        let key = out.key.clone();
        let written = self
            .store
            .run(move |s| {
                let db = s.exec()?;
                match outcome {
                    Outcome::Sent => stored::sent(db, &out.key, now),
                    Outcome::Later { why, .. } if now >= out.created_ms + GIVE_UP_MS => {
                        stored::dropped(db, &out.key, now, &format!("undelivered for a day: {why}"))
                    }
                    Outcome::Later { after, failed, why } => {
                        let next = now + after.as_millis() as u64;
                        stored::later(db, &out.key, next, failed, &why)
                    }
                    Outcome::Drop(why) => stored::dropped(db, &out.key, now, &why),
                    Outcome::Gone(why) => {
                        stored::dropped(db, &out.key, now, &why)?;
                        stored::destination_gone(db, &out.subscription, now, &why)
                    }
                }
            })
            .await;
        if let Err(e) = written {
            tracing::warn!("alerts: recording how {key} went: {e}");
        }
    }
}

fn header(key: &str) -> reqwest::header::HeaderValue {
    reqwest::header::HeaderValue::from_str(key)
        .unwrap_or_else(|_| reqwest::header::HeaderValue::from_static("-"))
}

/// 5 s doubling to an hour, with up to a fifth more so retries spread out.
pub fn backoff(attempts: u32) -> Duration {
    let base = 5u64.saturating_mul(1 << attempts.min(10)).min(3600);
    let jitter = rand::rng().random_range(0..=base / 5);
    Duration::from_secs(base + jitter)
}

/// An error's text with its causes (a refused address says so).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The guard's refusal behind a request's failure, if that is what failed it.
fn refusal(e: &reqwest::Error) -> Option<&Refused> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(refused) = s.downcast_ref::<Refused>() {
            return Some(refused);
        }
        source = s.source();
    }
    None
}

/// The answer's first [`BODY_CAP`] bytes; the rest is never read.
async fn read_capped(response: reqwest::Response) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = BODY_CAP - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= BODY_CAP {
            break;
        }
    }
    body
}

fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(200)])
        .trim()
        .to_owned()
}
