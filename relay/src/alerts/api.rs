//! `POST /api/alerts`, `GET /api/alerts?token=`, `PATCH`/`DELETE /api/alerts/{id}?token=`,
//! `DELETE /api/alerts?token=`.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::relay_api::alerts::{
    AlertAsk, AlertList, AlertRule, Delivery, Destination, PushKey, Rule,
};
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Alerts;
use crate::http::tag;
use crate::net::{unix_ms, ServerAddr};
use crate::secrets::token_hash;
use crate::store::alerts::{self as stored, StoredRule, Subscription, UNKNOWN};
use crate::store::StoreError;

/// A refusal: its status and why, as the client reads it.
type Refusal = (StatusCode, String);

fn refusal(status: StatusCode, text: impl Into<String>) -> Refusal {
    (status, text.into())
}

fn refused(status: StatusCode, text: impl Into<String>) -> Response {
    refusal(status, text).into_response()
}

fn store_refusal(e: StoreError) -> Refusal {
    tracing::warn!("alerts: {e}");
    refusal(StatusCode::SERVICE_UNAVAILABLE, "alerts are unavailable")
}

fn unavailable(e: StoreError) -> Response {
    store_refusal(e).into_response()
}

/// Names longer than the game allows are not names.
const NAME_MOST: usize = 64;

#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TokenQuery {
    /// The subscription's token, as `POST /api/alerts` gave it.
    token: String,
}

pub(super) fn api() -> OpenApiRouter<Alerts> {
    OpenApiRouter::new()
        .routes(routes!(list, create, forget))
        .routes(routes!(remove, pause))
        .routes(routes!(push_key))
}

/// The alerts' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

impl Alerts {
    /// The rule, if it is one this relay can judge.
    fn check_rule(&self, rule: &Rule) -> Result<(), Refusal> {
        if let Some(server) = rule.server() {
            let Ok(addr) = server.parse::<ServerAddr>() else {
                return Err(refusal(
                    StatusCode::BAD_REQUEST,
                    "rule.server: not an IPv4 address and port",
                ));
            };
            if !self.known.knows(addr) {
                return Err(refusal(
                    StatusCode::NOT_FOUND,
                    format!("{server} is not a server this relay lists"),
                ));
            }
        }
        match rule {
            Rule::HumansAtLeast { n, .. } if !(1..=64).contains(n) => Err(refusal(
                StatusCode::BAD_REQUEST,
                "rule.n: from 1 to 64 players",
            )),
            Rule::NameSeen { name, .. }
                if super::rules::name_key(name).is_empty() || name.len() > NAME_MOST =>
            {
                Err(refusal(
                    StatusCode::BAD_REQUEST,
                    format!("rule.name: a player's name, 1 to {NAME_MOST} characters"),
                ))
            }
            Rule::Highlight {
                player: None,
                server: None,
                ..
            } => Err(refusal(
                StatusCode::BAD_REQUEST,
                "rule: a highlight rule names a player, a server or both",
            )),
            Rule::Highlight {
                player: Some(name), ..
            } if super::rules::name_key(name).is_empty() || name.len() > NAME_MOST => Err(refusal(
                StatusCode::BAD_REQUEST,
                format!("rule.player: a player's name, 1 to {NAME_MOST} characters"),
            )),
            _ => Ok(()),
        }
    }

    /// The subscription a token opens, or the answer saying it opens none.
    async fn subscription(&self, token: &str) -> Result<Subscription, Refusal> {
        let hash = token_hash(token);
        match self
            .store
            .run(move |s| stored::subscription(s.exec()?, &hash))
            .await
        {
            Ok(Some(sub)) => Ok(sub),
            Ok(None) => Err(refusal(
                StatusCode::NOT_FOUND,
                "no subscription has this token (deleted, or its destination said it was gone)",
            )),
            Err(e) => Err(store_refusal(e)),
        }
    }
}

fn shown(rule: StoredRule, to: &Destination, token: Option<String>) -> Option<AlertRule> {
    Some(AlertRule {
        rule: serde_json::from_str(&rule.rule).ok()?,
        id: rule.id,
        to: to.clone(),
        token,
        paused: rule.paused,
        created_ms: rule.created_ms,
        fired: rule.fired,
        holds: (rule.holds != crate::store::alerts::UNKNOWN).then_some(rule.holds == 1),
    })
}

/// Sets an alert: a rule and where it goes, in a new subscription or the one whose token is
/// given; the answer names the rule's id and the subscription's token.
#[utoipa::path(post, path = "/api/alerts", tag = tag::ALERTS, operation_id = "create_alert",
    request_body = AlertAsk,
    responses(
        (status = 201, description = "The rule, its id and the subscription's token", body = AlertRule),
        (status = 400, description = "A rule or destination it cannot read, named", body = ApiError),
        (status = 403, description = "A destination the operator does not allow", body = ApiError),
        (status = 404, description = "No subscription has the token given", body = ApiError),
        (status = 413, description = "A body over 16 KiB", body = ApiError),
        (status = 429, description = "Over the rules one client keeps", body = ApiError),
        (status = 503, description = "The alerts cannot be kept", body = ApiError),
    ))]
pub async fn create(
    State(alerts): State<Alerts>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    ask: Result<Json<AlertAsk>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(ask) = match ask {
        Ok(ask) => ask,
        Err(e) => {
            return refused(
                StatusCode::BAD_REQUEST,
                format!(
                    "expected {{\"rule\": {{\"kind\": \"humans_at_least\", \"server\": \"ADDR\", \
                     \"n\": 8}}, \"to\": {{\"kind\": \"webhook\", \"url\": \"https://...\"}}}}: {e}"
                ),
            )
        }
    };
    if let Err(refused) = alerts.check_rule(&ask.rule) {
        return refused.into_response();
    }
    if let Err(e) = alerts.allow.check(&ask.to) {
        return refused(StatusCode::FORBIDDEN, format!("to.url: {e}"));
    }
    if let Destination::Push { subscription } = &ask.to {
        if let Err(e) = super::push::keys(subscription) {
            return refused(StatusCode::BAD_REQUEST, format!("to.subscription.{e}"));
        }
    }
    // The alerts' language: the one asked for, else the visitor's (their choice on this site,
    // else their browser's).
    let lang = match ask.lang.as_deref() {
        Some(tag) => match i18n::Lang::parse(tag) {
            Ok(lang) => lang,
            Err(unknown) => return refused(StatusCode::BAD_REQUEST, format!("lang: {unknown}")),
        },
        None => crate::site::language::lang_of(&headers),
    };
    let client = crate::edge::limits::client_of(&extensions, &headers, &alerts.trusted);
    let existing = match &ask.token {
        Some(token) => match alerts.subscription(token).await {
            Ok(sub) => Some(sub),
            Err(refused) => return refused.into_response(),
        },
        None => None,
    };
    let destination = serde_json::to_string(&ask.to).unwrap_or_default();
    if existing
        .as_ref()
        .is_some_and(|sub| sub.destination != destination)
    {
        return refused(
            StatusCode::BAD_REQUEST,
            "a subscription has one destination: leave out the token to make another",
        );
    }
    let now = unix_ms();
    let token = ask
        .token
        .clone()
        .unwrap_or_else(|| crate::secrets::random_id(32));
    // A rule added with a language asked for makes the whole subscription speak it.
    let relang = existing.is_some() && ask.lang.is_some();
    let subscription = existing.unwrap_or_else(|| Subscription {
        id: crate::secrets::random_id(10),
        token_hash: token_hash(&token),
        client: client.clone(),
        destination,
        created_ms: now,
        lang: lang.tag().to_owned(),
    });
    let rule = StoredRule {
        id: crate::secrets::random_id(10),
        subscription: subscription.id.clone(),
        rule: serde_json::to_string(&ask.rule).unwrap_or_default(),
        paused: false,
        holds: UNKNOWN,
        fired: 0,
        created_ms: now,
    };
    let cap = u64::from(alerts.config.alert_rules_per_client);
    let added = {
        let rule = rule.clone();
        alerts
            .store
            .run(move |s| {
                let mut over = false;
                s.transact(&mut |db| {
                    over = stored::rules_of_client(db, &client)? >= cap;
                    if over {
                        return Ok(());
                    }
                    if stored::subscription(db, &subscription.token_hash)?.is_none() {
                        stored::add_subscription(db, &subscription)?;
                    } else if relang {
                        stored::set_lang(db, &subscription.id, lang.tag())?;
                    }
                    stored::add_rule(db, &rule)
                })?;
                Ok(!over)
            })
            .await
    };
    match added {
        Ok(true) => {}
        Ok(false) => {
            return refused(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{cap} rules is the most one client keeps here (--alert-rules-per-client): delete one first"),
            )
        }
        Err(e) => return unavailable(e),
    }
    alerts
        .rules_changed
        .store(true, std::sync::atomic::Ordering::Release);
    match shown(rule, &ask.to, Some(token)) {
        Some(shown) => (StatusCode::CREATED, Json(shown)).into_response(),
        None => refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the rule did not read back",
        ),
    }
}

/// A subscription's rules and its latest deliveries.
#[utoipa::path(get, path = "/api/alerts", tag = tag::ALERTS, operation_id = "alerts",
    params(TokenQuery),
    responses(
        (status = 200, description = "The rules and deliveries", body = AlertList),
        (status = 400, description = "No token", body = ApiError),
        (status = 404, description = "No subscription has this token", body = ApiError),
        (status = 503, description = "The alerts cannot be read", body = ApiError),
    ))]
pub async fn list(State(alerts): State<Alerts>, Query(q): Query<TokenQuery>) -> Response {
    let sub = match alerts.subscription(&q.token).await {
        Ok(sub) => sub,
        Err(refused) => return refused.into_response(),
    };
    let Ok(to) = serde_json::from_str::<Destination>(&sub.destination) else {
        return refused(StatusCode::INTERNAL_SERVER_ERROR, "unreadable subscription");
    };
    let id = sub.id.clone();
    let read = alerts
        .store
        .run(move |s| {
            let db = s.exec()?;
            Ok((stored::rules(db, &id)?, stored::outbox_of(db, &id, 100)?))
        })
        .await;
    let (rules, outbox) = match read {
        Ok(read) => read,
        Err(e) => return unavailable(e),
    };
    Json(AlertList {
        rules: (rules.into_iter())
            .filter_map(|r| shown(r, &to, None))
            .collect(),
        deliveries: (outbox.into_iter())
            .map(|o| Delivery {
                key: o.key,
                rule: o.rule,
                state: o.state,
                attempts: o.attempts,
                created_ms: o.created_ms,
                reason: o.reason,
            })
            .collect(),
    })
    .into_response()
}

/// Deletes one rule of a subscription.
#[utoipa::path(delete, path = "/api/alerts/{id}", tag = tag::ALERTS,
    params(("id" = String, Path, description = "The rule's id"), TokenQuery),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "No token", body = ApiError),
        (status = 404, description = "No such rule in this subscription, or no subscription has this token", body = ApiError),
        (status = 503, description = "The alerts cannot be read", body = ApiError),
    ))]
pub async fn remove(
    State(alerts): State<Alerts>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
) -> Response {
    let sub = match alerts.subscription(&q.token).await {
        Ok(sub) => sub,
        Err(refused) => return refused.into_response(),
    };
    let removed = alerts
        .store
        .run(move |s| {
            let mut gone = false;
            s.transact(&mut |db| {
                gone = stored::remove_rule(db, &sub.id, &id)?;
                Ok(())
            })?;
            Ok(gone)
        })
        .await;
    alerts
        .rules_changed
        .store(true, std::sync::atomic::Ordering::Release);
    match removed {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => refused(StatusCode::NOT_FOUND, "no such rule in this subscription"),
        Err(e) => unavailable(e),
    }
}

#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct PauseAsk {
    paused: bool,
}

/// Pauses or resumes one rule of a subscription.
#[utoipa::path(patch, path = "/api/alerts/{id}", tag = tag::ALERTS,
    params(("id" = String, Path, description = "The rule's id"), TokenQuery),
    request_body = PauseAsk,
    responses(
        (status = 204, description = "Paused or resumed"),
        (status = 400, description = "No token, or a body that is not `{\"paused\": true|false}`", body = ApiError),
        (status = 404, description = "No such rule in this subscription, or no subscription has this token", body = ApiError),
        (status = 503, description = "The alerts cannot be read", body = ApiError),
    ))]
pub async fn pause(
    State(alerts): State<Alerts>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    ask: Result<Json<PauseAsk>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(ask)) = ask else {
        return refused(StatusCode::BAD_REQUEST, "expected {\"paused\": true|false}");
    };
    let sub = match alerts.subscription(&q.token).await {
        Ok(sub) => sub,
        Err(refused) => return refused.into_response(),
    };
    let changed = alerts
        .store
        .run(move |s| stored::set_paused(s.exec()?, &sub.id, &id, ask.paused))
        .await;
    alerts
        .rules_changed
        .store(true, std::sync::atomic::Ordering::Release);
    match changed {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => refused(StatusCode::NOT_FOUND, "no such rule in this subscription"),
        Err(e) => unavailable(e),
    }
}

/// Deletes a subscription: its rules and its deliveries, all gone.
#[utoipa::path(delete, path = "/api/alerts", tag = tag::ALERTS,
    params(TokenQuery),
    responses(
        (status = 204, description = "Forgotten"),
        (status = 400, description = "No token", body = ApiError),
        (status = 404, description = "No subscription has this token", body = ApiError),
        (status = 503, description = "The alerts cannot be read", body = ApiError),
    ))]
pub async fn forget(State(alerts): State<Alerts>, Query(q): Query<TokenQuery>) -> Response {
    let sub = match alerts.subscription(&q.token).await {
        Ok(sub) => sub,
        Err(refused) => return refused.into_response(),
    };
    let gone = alerts
        .store
        .run(move |s| s.transact(&mut |db| stored::remove_subscription(db, &sub.id)))
        .await;
    alerts
        .rules_changed
        .store(true, std::sync::atomic::Ordering::Release);
    match gone {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => unavailable(e),
    }
}

/// The relay's VAPID public key, for a browser's push subscription.
#[utoipa::path(get, path = "/api/push/key", tag = tag::ALERTS,
    responses(
        (status = 200, description = "The key", body = PushKey),
        (status = 503, description = "The alerts are unavailable", body = ApiError),
    ))]
pub async fn push_key(State(alerts): State<Alerts>) -> Response {
    match alerts.keys.get().await {
        Ok(vapid) => Json(PushKey {
            key: vapid.public_key(),
        })
        .into_response(),
        Err(e) => {
            tracing::warn!("alerts: the VAPID key: {e}");
            refused(StatusCode::SERVICE_UNAVAILABLE, "alerts are unavailable")
        }
    }
}
