//! A proven owner's Discord webhook as the server's own alerts: one subscription per server
//! (its client is `owner:ADDR`, so the per-client cap is the server's own), with rules for it
//! coming up, going down, filling up and each followed match's end, and when the owner opts in
//! each match's play of the match. Setting another webhook
//! replaces them; none removes them. The URL passes the same guard as anyone's.

use futures_util::future::BoxFuture;
use protocol::relay_api::alerts::{Destination, Rule};

use super::Alerts;
use crate::store::alerts::{self as stored, StoredRule, Subscription, UNKNOWN};

impl crate::seams::ServerWebhooks for Alerts {
    fn set_webhook(
        &self,
        addr: String,
        url: Option<String>,
        full_at: u32,
        lang: i18n::Lang,
        play_of_the_match: bool,
    ) -> BoxFuture<'static, Result<(), String>> {
        let alerts = self.clone();
        Box::pin(async move {
            let destination = url.map(|url| Destination::Discord { url });
            if let Some(to) = &destination {
                alerts.allow.check(to).map_err(|e| e.to_string())?;
            }
            let client = format!("owner:{addr}");
            let now = crate::net::unix_ms();
            let made = destination.map(|to| {
                let subscription = Subscription {
                    id: crate::secrets::random_id(10),
                    // Nobody manages it by token: the owner's session does.
                    token_hash: crate::secrets::random_id(32),
                    client: client.clone(),
                    destination: serde_json::to_string(&to).unwrap_or_default(),
                    created_ms: now,
                    lang: lang.tag().to_owned(),
                };
                let server = addr.clone();
                let mut rules = vec![
                    Rule::ServerUp {
                        server: server.clone(),
                    },
                    Rule::ServerDown {
                        server: server.clone(),
                    },
                    Rule::HumansAtLeast {
                        server: server.clone(),
                        n: full_at.clamp(1, 64),
                    },
                    Rule::MatchEnd {
                        server: server.clone(),
                    },
                ];
                if play_of_the_match {
                    rules.push(Rule::Highlight {
                        player: None,
                        server: Some(server),
                        best: true,
                    });
                }
                let rules: Vec<StoredRule> = rules
                    .into_iter()
                    .map(|rule| StoredRule {
                        id: crate::secrets::random_id(10),
                        subscription: subscription.id.clone(),
                        rule: serde_json::to_string(&rule).unwrap_or_default(),
                        paused: false,
                        holds: UNKNOWN,
                        fired: 0,
                        created_ms: now,
                    })
                    .collect();
                (subscription, rules)
            });
            alerts
                .store
                .run(move |s| {
                    s.transact(&mut |db| {
                        for old in stored::subscriptions_of_client(db, &client)? {
                            stored::remove_subscription(db, &old)?;
                        }
                        if let Some((subscription, rules)) = &made {
                            stored::add_subscription(db, subscription)?;
                            for rule in rules {
                                stored::add_rule(db, rule)?;
                            }
                        }
                        Ok(())
                    })
                })
                .await
                .map_err(|e| format!("alerts are unavailable: {e}"))?;
            alerts
                .rules_changed
                .store(true, std::sync::atomic::Ordering::Release);
            Ok(())
        })
    }
}
