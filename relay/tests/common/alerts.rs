//! The alert judge seen from outside, for tests that wait on it instead of on the clock: the
//! refreshes it has judged (`muster_alert_looks_total`) and each rule's state in the listing
//! (`holds`, absent until the rule's first look, which only learns).

use std::time::Duration;

use protocol::relay_api::alerts::AlertList;
use tokio::time::Instant;

/// How long the judge may take to look (it looks every second at a changed directory).
const LIMIT: Duration = Duration::from_secs(30);

/// The refreshes the judge of the relay at `url` (`http://ADDR`) has judged.
pub async fn looks(url: &str) -> u64 {
    super::metric(url, "muster_alert_looks_total").await as u64
}

/// Waits until the judge at `url` has judged `n` more refreshes than it had when called: what
/// it would have sent on them is in the outbox by then.
pub async fn looked(url: &str, n: u64) {
    let target = looks(url).await + n;
    let deadline = Instant::now() + LIMIT;
    loop {
        let now = looks(url).await;
        if now >= target {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the judge looked {now} of {target} times"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The subscription `token`'s rules and deliveries.
pub async fn listed(url: &str, token: &str) -> AlertList {
    reqwest::get(format!("{url}/api/alerts?token={token}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Waits until the judge has had its first look at every rule of these subscriptions, the look
/// that only learns whether the condition holds.
pub async fn learned(url: &str, tokens: &[String]) {
    let deadline = Instant::now() + LIMIT;
    for token in tokens {
        loop {
            let rules = listed(url, token).await.rules;
            if !rules.is_empty() && rules.iter().all(|r| r.holds.is_some()) {
                break;
            }
            assert!(Instant::now() < deadline, "not learned: {rules:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Waits until the rule `id` of `token` is judged to hold, or not.
pub async fn judged(url: &str, token: &str, id: &str, holds: bool) {
    let deadline = Instant::now() + LIMIT;
    loop {
        let rules = listed(url, token).await.rules;
        if rules.iter().any(|r| r.id == id && r.holds == Some(holds)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{id} not judged {holds}: {rules:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
