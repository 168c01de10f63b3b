//! A server's owner in the detail: what a proven owner wrote (description and links), and
//! for the admin, "Is this your server?": the rcon password proves it (the relay sends one
//! `status` with it and keeps nothing), then the owner edits the description, links, banner
//! colours, a Discord webhook for the server's own events and following. The session's token
//! stays in this tab (sessionStorage) until it ends.

use leptos::prelude::*;
use leptos::task::spawn_local;
use protocol::relay_api::owners::{
    BannerColours, OwnerEdit, OwnerLink, OwnerProfile, OwnerSession,
};

use crate::net::{fetch_text, from_json, send_as, to_json};

fn session_key(addr: &str) -> String {
    format!("muster.owner.{addr}")
}

fn storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// Links as the form shows them: one per line, the title then the URL.
fn links_text(links: &[OwnerLink]) -> String {
    links
        .iter()
        .map(|l| format!("{} {}", l.title, l.url))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The form's lines back into links: the last word of a line is its URL.
fn links_of(text: &str) -> Vec<OwnerLink> {
    text.lines()
        .filter_map(|line| {
            let (title, url) = line.trim().rsplit_once(' ')?;
            Some(OwnerLink {
                title: title.trim().to_owned(),
                url: url.to_owned(),
            })
        })
        .collect()
}

/// What the detail shows of a server's owner, and the admin's claim and edit forms.
#[component]
pub fn ServerOwner(addr: String) -> impl IntoView {
    let profile = RwSignal::new(None::<OwnerProfile>);
    let token =
        RwSignal::new(storage().and_then(|s| s.get_item(&session_key(&addr)).ok().flatten()));
    let said = RwSignal::new(String::new());
    {
        let addr = addr.clone();
        spawn_local(async move {
            let text = fetch_text(&format!("/api/servers/{addr}/owner")).await;
            profile.set(text.and_then(|t| from_json(&t)));
        });
    }
    let password = RwSignal::new(String::new());
    let claim = {
        let addr = addr.clone();
        move |_| {
            let addr = addr.clone();
            let body = to_json(&protocol::relay_api::owners::Claim {
                password: password.get_untracked(),
            })
            .unwrap_or_default();
            said.set(tr!("owner-asking"));
            spawn_local(async move {
                let url = format!("/api/servers/{addr}/claim");
                match send_as("POST", &url, Some(&body), None).await {
                    Ok((200, text)) => {
                        if let Some(session) = from_json::<OwnerSession>(&text) {
                            if let Some(s) = storage() {
                                let _ = s.set_item(&session_key(&addr), &session.token);
                            }
                            token.set(Some(session.token));
                            profile.set(Some(session.profile));
                            password.set(String::new());
                            said.set(tr!("owner-proven"));
                        }
                    }
                    Ok((_, text)) => said.set(text),
                    Err(e) => said.set(e),
                }
            });
        }
    };
    view! {
        <section class="owner">
            {move || profile.get().filter(|p| !p.description.is_empty() || !p.links.is_empty()).map(|p| view! {
                <div class="owner-says" data-testid="owner-says">
                    <h3>{tr!("owner-says")}</h3>
                    <p data-testid="owner-description">{p.description.clone()}</p>
                    <ul>
                        {p.links.iter().map(|l| view! {
                            <li><a href=l.url.clone() rel="nofollow noopener ugc" target="_blank">{l.title.clone()}</a></li>
                        }).collect_view()}
                    </ul>
                </div>
            })}
            <details class="owner-admin" data-testid="owner-admin">
                <summary>{tr!("owner-yours")}</summary>
                <Show
                    when=move || token.get().is_some()
                    fallback=move || view! {
                        <p>{tr!("owner-prove-before")}
                           <code>"status"</code>{tr!("owner-prove-after")}</p>
                        <p>
                            <input type="password" placeholder=tr!("rcon-password") aria-label=tr!("rcon-password")
                                data-testid="owner-password" autocomplete="off"
                                prop:value=move || password.get()
                                on:input=move |ev| password.set(event_target_value(&ev)) />
                            " "
                            <button type="button" data-testid="owner-claim" on:click=claim.clone()>{tr!("owner-prove")}</button>
                        </p>
                    }
                >
                    <OwnerForm addr=addr.clone() token=token profile=profile said=said />
                </Show>
                <p class="said" data-testid="owner-said">{move || said.get()}</p>
            </details>
        </section>
    }
}

/// The owner's edit form, filled from the profile.
#[component]
fn OwnerForm(
    addr: String,
    token: RwSignal<Option<String>>,
    profile: RwSignal<Option<OwnerProfile>>,
    said: RwSignal<String>,
) -> impl IntoView {
    let now = profile.get_untracked().unwrap_or_default();
    let colours = now.banner.clone().unwrap_or(BannerColours {
        background: "#1d2327".into(),
        text: "#e8e8e8".into(),
        accent: "#7fb2ff".into(),
    });
    let description = RwSignal::new(now.description.clone());
    let links = RwSignal::new(links_text(&now.links));
    let background = RwSignal::new(colours.background);
    let text = RwSignal::new(colours.text);
    let accent = RwSignal::new(colours.accent);
    let webhook = RwSignal::new(String::new());
    let follow = RwSignal::new(now.follow);
    let plays = RwSignal::new(now.discord_play_of_the_match);
    let send_edit = {
        let addr = addr.clone();
        move |method: &'static str| {
            let addr = addr.clone();
            let edit = OwnerEdit {
                description: Some(description.get_untracked()),
                links: Some(links_of(&links.get_untracked())),
                banner: Some(Some(BannerColours {
                    background: background.get_untracked(),
                    text: text.get_untracked(),
                    accent: accent.get_untracked(),
                })),
                // Left empty: the webhook stays as it is.
                discord_webhook: Some(webhook.get_untracked()).filter(|w| !w.trim().is_empty()),
                follow: Some(follow.get_untracked()),
                discord_play_of_the_match: Some(plays.get_untracked()),
            };
            let body = (method == "PUT").then(|| to_json(&edit).unwrap_or_default());
            let bearer = token.get_untracked();
            spawn_local(async move {
                let url = format!("/api/servers/{addr}/owner");
                match send_as(method, &url, body.as_deref(), bearer.as_deref()).await {
                    Ok((200, text)) => {
                        profile.set(from_json(&text));
                        said.set(tr!("owner-saved"));
                    }
                    Ok((204, _)) => {
                        profile.set(None);
                        said.set(tr!("owner-given-up"));
                        forget(&addr, token);
                    }
                    Ok((401, text)) => {
                        said.set(text);
                        forget(&addr, token);
                    }
                    Ok((_, text)) => said.set(text),
                    Err(e) => said.set(e),
                }
            });
        }
    };
    let save = send_edit.clone();
    view! {
        <div class="owner-form" data-testid="owner-form">
            <label>{tr!("owner-description")}
                <textarea data-testid="owner-description-input" maxlength="500"
                    prop:value=move || description.get()
                    on:input=move |ev| description.set(event_target_value(&ev))></textarea>
            </label>
            <label>{tr!("owner-links")}
                <textarea data-testid="owner-links" prop:value=move || links.get()
                    on:input=move |ev| links.set(event_target_value(&ev))></textarea>
            </label>
            <fieldset>
                <legend>{tr!("owner-banner-colours")}</legend>
                <label>{tr!("owner-background")} <input type="color" data-testid="owner-bg" prop:value=move || background.get()
                    on:input=move |ev| background.set(event_target_value(&ev)) /></label>
                <label>{tr!("owner-text")} <input type="color" prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev)) /></label>
                <label>{tr!("owner-accent")} <input type="color" prop:value=move || accent.get()
                    on:input=move |ev| accent.set(event_target_value(&ev)) /></label>
            </fieldset>
            <label>{tr!("owner-discord")}
                <input type="url" data-testid="owner-webhook" placeholder=move || {
                    if profile.with(|p| p.as_ref().is_some_and(|p| p.discord)) { tr!("owner-discord-set") } else { "https://discord.com/api/webhooks/…".to_owned() }
                }
                    prop:value=move || webhook.get()
                    on:input=move |ev| webhook.set(event_target_value(&ev)) />
            </label>
            <label><input type="checkbox" data-testid="owner-follow" prop:checked=move || follow.get()
                on:change=move |ev| follow.set(event_target_checked(&ev)) />
                {tr!("owner-follow")}</label>
            <label><input type="checkbox" data-testid="owner-play-of-the-match" prop:checked=move || plays.get()
                on:change=move |ev| plays.set(event_target_checked(&ev)) />
                {tr!("owner-play-of-the-match")}</label>
            <p>
                <button type="button" data-testid="owner-save" on:click=move |_| save("PUT")>{tr!("save")}</button>
                " "
                <button type="button" data-testid="owner-disown" on:click=move |_| send_edit("DELETE")>{tr!("owner-give-up")}</button>
            </p>
        </div>
    }
}

/// Forgets this tab's session for `addr`.
fn forget(addr: &str, token: RwSignal<Option<String>>) {
    if let Some(s) = storage() {
        let _ = s.remove_item(&session_key(addr));
    }
    token.set(None);
}
