//! Alerts from the server detail: "tell me when" a server fills to N, frees a slot, comes up
//! or goes down, by this browser's notifications (Web Push, through the service worker
//! `/sw.js`, shown with the tab closed), ntfy, Discord or a webhook. The management tokens the
//! relay gives stay in this browser (localStorage), which lists every rule they hold and
//! deletes them, one or all.

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::alerts::{AlertAsk, AlertList, Destination, PushSubscription, Rule};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::net::{fetch_text, from_json, send, to_json};
use crate::personal::saved;

/// Where the tokens are kept.
const TOKENS: &str = "muster.alerts";

#[derive(serde::Deserialize)]
struct PushKey {
    key: String,
}

fn js(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// This browser's push subscription for the relay's key, registering the service worker.
async fn subscribe() -> Result<PushSubscription, String> {
    let key = fetch_text("/api/push/key")
        .await
        .and_then(|text| from_json::<PushKey>(&text))
        .ok_or_else(|| tr!("alert-no-push-key"))?;
    let container = window().navigator().service_worker();
    let registration = JsFuture::from(container.register("/sw.js"))
        .await
        .map_err(js)?;
    let registration: web_sys::ServiceWorkerRegistration = registration.dyn_into().map_err(js)?;
    let options = web_sys::PushSubscriptionOptionsInit::new();
    options.set_user_visible_only(true);
    options.set_application_server_key(&JsValue::from_str(&key.key));
    let manager = registration.push_manager().map_err(js)?;
    let subscription = JsFuture::from(manager.subscribe_with_options(&options).map_err(js)?)
        .await
        .map_err(js)?;
    let subscription: web_sys::PushSubscription = subscription.dyn_into().map_err(js)?;
    let json = js_sys::JSON::stringify(&subscription.to_json().map_err(js)?.into())
        .map_err(js)?
        .as_string()
        .unwrap_or_default();
    from_json(&json).ok_or_else(|| tr!("alert-unreadable-subscription"))
}

/// Every rule the kept tokens hold, with the token that holds it; tokens the relay no longer
/// knows are forgotten.
async fn read_all(
    tokens: RwSignal<Vec<String>>,
) -> Vec<(String, protocol::relay_api::alerts::AlertRule)> {
    let mut all = Vec::new();
    let mut known = Vec::new();
    for token in tokens.get_untracked() {
        let Ok((status, text)) = send("GET", &format!("/api/alerts?token={token}"), None).await
        else {
            known.push(token);
            continue;
        };
        if status == 404 {
            continue;
        }
        if let Some(list) = from_json::<AlertList>(&text) {
            all.extend(list.rules.into_iter().map(|r| (token.clone(), r)));
        }
        known.push(token);
    }
    if known != tokens.get_untracked() {
        tokens.set(known);
    }
    all
}

fn describe(rule: &Rule) -> String {
    match rule {
        Rule::HumansAtLeast { server, n } => {
            tr!("rule-humans-at-least", server = server.as_str(), count = *n)
        }
        Rule::ServerUp { server } => tr!("rule-server-up", server = server.as_str()),
        Rule::ServerDown { server } => tr!("rule-server-down", server = server.as_str()),
        Rule::SlotFree { server } => tr!("rule-slot-free", server = server.as_str()),
        Rule::NameSeen { name, .. } => tr!("rule-name-seen", name = name.as_str()),
        Rule::MatchEnd { server } => tr!("rule-match-end", server = server.as_str()),
        Rule::Highlight {
            player: Some(name), ..
        } => tr!("rule-highlight-of", name = name.as_str()),
        Rule::Highlight {
            server, best: true, ..
        } => tr!(
            "rule-play-of-the-match",
            server = server.as_deref().unwrap_or_default()
        ),
        Rule::Highlight { server, .. } => {
            tr!(
                "rule-highlight-on",
                server = server.as_deref().unwrap_or_default()
            )
        }
    }
}

fn kind(to: &Destination) -> String {
    match to {
        Destination::Push { .. } => tr!("by-this-browser"),
        Destination::Discord { .. } => "Discord".into(),
        Destination::Ntfy { .. } => "ntfy".into(),
        Destination::Webhook { .. } => tr!("by-webhook-short"),
    }
}

/// The alert form and this browser's alerts, for the server at `addr`.
#[component]
pub fn ServerAlerts(addr: String, full: Memo<bool>) -> impl IntoView {
    let tokens: RwSignal<Vec<String>> = saved(TOKENS);
    let when = RwSignal::new("slot_free".to_owned());
    let n = RwSignal::new(8u32);
    let by = RwSignal::new("push".to_owned());
    let url = RwSignal::new(String::new());
    let said = RwSignal::new(String::new());
    let rules = RwSignal::new(Vec::new());
    let open = RwSignal::new(false);
    // On a full server: arm a free-slot alert in one click, then choose where it goes.
    let when_free = move |_| {
        when.set("slot_free".into());
        open.set(true);
    };
    let reload = move || spawn_local(async move { rules.set(read_all(tokens).await) });
    reload();
    let set = move |_| {
        let addr = addr.clone();
        spawn_local(async move {
            let rule = match when.get_untracked().as_str() {
                "humans_at_least" => Rule::HumansAtLeast {
                    server: addr,
                    n: n.get_untracked(),
                },
                "server_up" => Rule::ServerUp { server: addr },
                "server_down" => Rule::ServerDown { server: addr },
                _ => Rule::SlotFree { server: addr },
            };
            let url = url.get_untracked().trim().to_owned();
            let to = match by.get_untracked().as_str() {
                "ntfy" => Destination::Ntfy { url },
                "discord" => Destination::Discord { url },
                "webhook" => Destination::Webhook { url },
                _ => match subscribe().await {
                    Ok(subscription) => Destination::Push { subscription },
                    Err(e) => {
                        said.set(tr!("alert-no-subscription", why = e));
                        return;
                    }
                },
            };
            let ask = AlertAsk {
                rule,
                to,
                token: None,
                // The alerts speak the page's language.
                lang: Some(crate::words::lang().tag().to_owned()),
            };
            let Some(json) = to_json(&ask) else { return };
            match crate::net::post_json("/api/alerts", &json).await {
                Ok((201, text)) => {
                    let made = from_json::<protocol::relay_api::alerts::AlertRule>(&text);
                    if let Some(token) = made.and_then(|r| r.token) {
                        tokens.update(|t| t.push(token));
                    }
                    said.set(tr!("alert-set-done"));
                    reload();
                }
                Ok((_, text)) => said.set(text),
                Err(e) => said.set(e),
            }
        });
    };
    let remove = move |token: String, id: String| {
        spawn_local(async move {
            let _ = send("DELETE", &format!("/api/alerts/{id}?token={token}"), None).await;
            reload();
        })
    };
    let forget = move |_| {
        spawn_local(async move {
            for token in tokens.get_untracked() {
                let _ = send("DELETE", &format!("/api/alerts?token={token}"), None).await;
            }
            tokens.set(Vec::new());
            rules.set(Vec::new());
            said.set(tr!("alert-forgotten"));
        })
    };
    view! {
        <Show when=move || full.get()>
            <p class="join-when-free">
                <button type="button" on:click=when_free data-testid="join-when-free">
                    {tr!("join-when-free")}
                </button>
                {tr!("join-when-free-after")}
            </p>
        </Show>
        <details class="alerts" data-testid="alerts" prop:open=move || open.get()
            on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
            <summary>{tr!("alert-tell-me")}</summary>
            <p class="alert-form">
                <select aria-label=tr!("alert-when") data-testid="alert-when" prop:value=move || when.get()
                    on:change=move |ev| when.set(event_target_value(&ev))>
                    <option value="slot_free">{tr!("when-slot-free")}</option>
                    <option value="humans_at_least">{tr!("when-humans-at-least")}</option>
                    <option value="server_up">{tr!("when-server-up")}</option>
                    <option value="server_down">{tr!("when-server-down")}</option>
                </select>
                <Show when=move || when.get() == "humans_at_least">
                    <input type="number" min="1" max="64" aria-label=tr!("alert-players") data-testid="alert-n"
                        prop:value=move || n.get().to_string()
                        on:input=move |ev| n.set(event_target_value(&ev).parse().unwrap_or(8)) />
                </Show>
                {tr!("alert-by-between")}
                <select aria-label=tr!("alert-by") data-testid="alert-by"
                    on:change=move |ev| by.set(event_target_value(&ev))>
                    <option value="push" selected>{tr!("by-push")}</option>
                    <option value="ntfy">{tr!("by-ntfy")}</option>
                    <option value="discord">{tr!("by-discord")}</option>
                    <option value="webhook">{tr!("by-webhook")}</option>
                </select>
                <Show when=move || by.get() != "push">
                    <input type="url" placeholder="https://ntfy.sh/your-topic" aria-label=tr!("alert-where")
                        data-testid="alert-url"
                        on:input=move |ev| url.set(event_target_value(&ev)) />
                </Show>
                <button type="button" on:click=set.clone() data-testid="alert-set">{tr!("alert-set")}</button>
            </p>
            <p class="said" data-testid="alert-said">{move || said.get()}</p>
            <Show when=move || !rules.with(Vec::is_empty)>
                <h4>{tr!("alert-yours")}</h4>
                <ul data-testid="alert-list">
                    {move || rules.get().into_iter().map(|(token, r)| {
                        let id = r.id.clone();
                        view! {
                            <li data-testid="alert-rule">
                                {tr!("alert-line", rule = describe(&r.rule), by = kind(&r.to))}
                                {(r.fired > 0).then(|| tr!("alert-fired", count = r.fired))}
                                " "
                                <button type="button" data-testid="alert-delete"
                                    on:click=move |_| remove(token.clone(), id.clone())>{tr!("delete")}</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <button type="button" on:click=forget data-testid="alert-forget">
                    {tr!("alert-forget")}
                </button>
            </Show>
        </details>
    }
}
