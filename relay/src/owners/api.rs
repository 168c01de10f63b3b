//! `POST /api/servers/{addr}/claim`, `GET`/`PUT`/`DELETE /api/servers/{addr}/owner`.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::relay_api::owners::{
    Claim, OwnerEdit, OwnerProfile, OwnerSession, MAX_DESCRIPTION, MAX_LINKS,
};

use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Owners;
use crate::http::tag;
use crate::net::unix_ms;
use crate::seams::Proof;
use crate::secrets::token_hash;
use crate::store::owners::{self as stored, Owner};

type Refusal = (StatusCode, String);

fn refused(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

fn unavailable(e: impl std::fmt::Display) -> Response {
    tracing::warn!("owners: {e}");
    refused(StatusCode::SERVICE_UNAVAILABLE, "owners are unavailable")
}

impl Owners {
    fn store(&self) -> Result<&crate::store::worker::Workers, Refusal> {
        self.store.as_ref().ok_or_else(|| {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "owners are kept in the history store: this relay runs with --no-history".into(),
            )
        })
    }

    /// The listed server `addr` names, or the answer saying it is none.
    fn listed(&self, addr: &str) -> Result<protocol::relay_api::ServerInfo, Refusal> {
        if addr.parse::<std::net::SocketAddrV4>().is_err() {
            return Err((StatusCode::BAD_REQUEST, "the address is ip:port".into()));
        }
        self.records
            .record(addr)
            .ok_or_else(|| (StatusCode::NOT_FOUND, "no such server listed here".into()))
    }

    /// The stored owner of `addr` whose session `headers` carry, or 401.
    async fn session(&self, addr: &str, headers: &HeaderMap) -> Result<Owner, Refusal> {
        let store = self.store()?;
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| {
                (
                    StatusCode::UNAUTHORIZED,
                    "an owner session's token is needed (Authorization: Bearer ...): claim the server first".into(),
                )
            })?;
        let hash = token_hash(token);
        let (addr, now) = (addr.to_owned(), unix_ms());
        let found = store
            .run(move |s| {
                let db = s.exec()?;
                match stored::session(db, &hash, now)? {
                    Some(on) if on == addr => stored::get(db, &addr),
                    _ => Ok(None),
                }
            })
            .await
            .map_err(|e| {
                tracing::warn!("owners: {e}");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "owners are unavailable".to_owned(),
                )
            })?;
        found.ok_or_else(|| {
            (
                StatusCode::UNAUTHORIZED,
                "this owner session has ended or is for another server: claim the server again"
                    .into(),
            )
        })
    }
}

pub(super) fn api() -> OpenApiRouter<Owners> {
    OpenApiRouter::new()
        .routes(routes!(claim))
        .routes(routes!(show, edit, disown))
}

/// The owners' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// Proves a server its admin's with its rcon password (asked of the server itself, through
/// the admin console's queue and lockouts) and answers an owner session.
#[utoipa::path(post, path = "/api/servers/{addr}/claim", tag = tag::OWNERS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    request_body = Claim,
    responses(
        (status = 200, description = "Proven: the owner session and the profile", body = OwnerSession),
        (status = 400, description = "A body or address it cannot read", body = ApiError),
        (status = 403, description = "The server refused the password, has none, or the console is off", body = ApiError),
        (status = 404, description = "No such server listed here", body = ApiError),
        (status = 413, description = "A body over 16 KiB", body = ApiError),
        (status = 429, description = "Locked out after wrong passwords, or the server's queue is busy", body = ApiError),
        (status = 503, description = "Owners are unavailable", body = ApiError),
        (status = 504, description = "The server did not answer", body = ApiError),
    ))]
pub async fn claim(
    State(owners): State<Owners>,
    Path(addr): Path<String>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    claim: Result<Json<Claim>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(claim)) = claim else {
        return refused(StatusCode::BAD_REQUEST, "expected {\"password\": \"...\"}");
    };
    let store = match owners.store() {
        Ok(store) => store.clone(),
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = owners.listed(&addr) {
        return refused.into_response();
    }
    let Ok(target) = addr.parse() else {
        return refused(StatusCode::BAD_REQUEST, "the address is ip:port");
    };
    // Lockouts count per client, as at the console.
    let ip = extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or(std::net::Ipv4Addr::UNSPECIFIED.into(), |info| {
            crate::edge::limits::client_ip(info.0.ip(), &headers, &owners.trusted)
        });
    let client = crate::edge::limits::ClientKey::of(ip);
    match owners.prove.prove(client, target, claim.password).await {
        Proof::Proven => {}
        Proof::Refused(why) => return refused(StatusCode::FORBIDDEN, why),
        Proof::NotAsked(status, why) => {
            return refused(
                StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
                why,
            )
        }
    }
    let now = unix_ms();
    let token = crate::secrets::random_id(32);
    let expires_ms = now + owners.config.owner_session_minutes.max(1) * 60_000;
    let (hash, at) = (token_hash(&token), addr.clone());
    let proven = store
        .run(move |s| {
            let mut owner = None;
            s.transact(&mut |db| {
                let mut kept = stored::get(db, &at)?.unwrap_or(Owner {
                    addr: at.clone(),
                    profile: String::new(),
                    discord_webhook: None,
                    proven_ms: now,
                });
                let mut profile: OwnerProfile =
                    serde_json::from_str(&kept.profile).unwrap_or_default();
                profile.addr = at.clone();
                profile.proven_ms = now;
                kept.proven_ms = now;
                kept.profile = serde_json::to_string(&profile).unwrap_or_default();
                stored::put(db, &kept)?;
                stored::add_session(db, &hash, &at, expires_ms)?;
                owner = Some(profile);
                Ok(())
            })?;
            Ok(owner)
        })
        .await;
    match proven {
        Ok(Some(profile)) => {
            owners.remember(profile.clone());
            Json(OwnerSession {
                token,
                expires_ms,
                profile,
            })
            .into_response()
        }
        Ok(None) => unavailable("the claim did not read back"),
        Err(e) => unavailable(e),
    }
}

/// What a server's proven owner set: its banner, links, description.
#[utoipa::path(get, path = "/api/servers/{addr}/owner", tag = tag::OWNERS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    responses(
        (status = 200, description = "The owner's profile", body = OwnerProfile),
        (status = 404, description = "No proven owner", body = ApiError),
    ))]
pub async fn show(State(owners): State<Owners>, Path(addr): Path<String>) -> Response {
    use crate::seams::OwnerProfiles;
    match owners.profile(&addr) {
        Some(profile) => Json(profile).into_response(),
        None => refused(StatusCode::NOT_FOUND, "no proven owner"),
    }
}

/// Checks an edit's fields; the refusal says which is wrong.
fn check(edit: &OwnerEdit) -> Result<(), Refusal> {
    let bad = |text: String| Err((StatusCode::BAD_REQUEST, text));
    if let Some(text) = &edit.description {
        if text.chars().count() > MAX_DESCRIPTION {
            return bad(format!("description: at most {MAX_DESCRIPTION} characters"));
        }
    }
    if let Some(links) = &edit.links {
        if links.len() > MAX_LINKS {
            return bad(format!("links: at most {MAX_LINKS}"));
        }
        for link in links {
            let ok = url::Url::parse(&link.url).is_ok_and(|u| u.scheme() == "https");
            if !ok || link.title.trim().is_empty() || link.title.chars().count() > 60 {
                return bad(format!(
                    "links: each a title (1 to 60 characters) and an https URL ({})",
                    link.url
                ));
            }
        }
    }
    if let Some(Some(colours)) = &edit.banner {
        let all = [&colours.background, &colours.text, &colours.accent];
        if !all.iter().all(|c| crate::banners::svg::is_colour(c)) {
            return bad("banner: each colour is #rrggbb".into());
        }
        // The banner would make them readable anyway; the owner hears why rather than see
        // other colours than they chose.
        use crate::banners::contrast::{ratio, AA};
        for (name, colour) in [("text", &colours.text), ("accent", &colours.accent)] {
            let read = ratio(colour, &colours.background).unwrap_or(1.0);
            if read < AA {
                return bad(format!(
                    "banner: the {name} colour reads at {read:.1}:1 on the background, \
                     at least {AA}:1 is needed (WCAG AA)"
                ));
            }
        }
    }
    Ok(())
}

/// Sets the owner's profile and webhook, with the owner session.
#[utoipa::path(put, path = "/api/servers/{addr}/owner", tag = tag::OWNERS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    request_body = OwnerEdit,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The profile as kept", body = OwnerProfile),
        (status = 400, description = "An edit it cannot read, the field named", body = ApiError),
        (status = 401, description = "No owner session, or one that expired", body = ApiError),
        (status = 403, description = "A webhook the operator does not allow", body = ApiError),
        (status = 404, description = "No such server listed here", body = ApiError),
        (status = 413, description = "A body over 16 KiB", body = ApiError),
        (status = 503, description = "Owners are unavailable", body = ApiError),
    ))]
pub async fn edit(
    State(owners): State<Owners>,
    Path(addr): Path<String>,
    headers: HeaderMap,
    edit: Result<Json<OwnerEdit>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(edit) = match edit {
        Ok(edit) => edit,
        Err(e) => return refused(StatusCode::BAD_REQUEST, format!("not an owner edit: {e}")),
    };
    let server = match owners.listed(&addr) {
        Ok(server) => server,
        Err(refused) => return refused.into_response(),
    };
    let mut owner = match owners.session(&addr, &headers).await {
        Ok(owner) => owner,
        Err(refused) => return refused.into_response(),
    };
    if let Err((status, why)) = check(&edit) {
        return refused(status, why);
    }
    let mut profile: OwnerProfile = serde_json::from_str(&owner.profile).unwrap_or_default();
    if let Some(text) = edit.description {
        profile.description = text;
    }
    if let Some(links) = edit.links {
        profile.links = links;
    }
    if let Some(banner) = edit.banner {
        profile.banner = banner;
    }
    if let Some(follow) = edit.follow {
        profile.follow = follow;
    }
    // A new webhook, or the play of the match opted in or out: the owner's alerts anew.
    if edit.discord_webhook.is_some() || edit.discord_play_of_the_match.is_some() {
        let url = match edit.discord_webhook {
            Some(url) => (!url.trim().is_empty()).then(|| url.trim().to_owned()),
            None => owner.discord_webhook.clone(),
        };
        let plays = edit
            .discord_play_of_the_match
            .unwrap_or(profile.discord_play_of_the_match);
        let Some(webhooks) = &owners.webhooks else {
            return refused(StatusCode::SERVICE_UNAVAILABLE, "alerts are unavailable");
        };
        // Full for players: the slots bots leave (a server with bots is full before its count is).
        let full_at = server.max_clients.saturating_sub(server.bots).max(1);
        if let Err(why) = webhooks
            .set_webhook(
                addr.clone(),
                url.clone(),
                full_at,
                crate::site::language::lang_of(&headers),
                plays,
            )
            .await
        {
            return refused(StatusCode::FORBIDDEN, format!("discord_webhook: {why}"));
        }
        profile.discord = url.is_some();
        profile.discord_play_of_the_match = plays && url.is_some();
        owner.discord_webhook = url;
    }
    owner.profile = serde_json::to_string(&profile).unwrap_or_default();
    let Ok(store) = owners.store() else {
        return unavailable("no store");
    };
    let kept = owner.clone();
    match store.run(move |s| stored::put(s.exec()?, &kept)).await {
        Ok(()) => {
            owners.remember(profile.clone());
            Json(profile).into_response()
        }
        Err(e) => unavailable(e),
    }
}

/// With the owner session: forgets the profile, its webhook's rules and every session on the
/// server.
#[utoipa::path(delete, path = "/api/servers/{addr}/owner", tag = tag::OWNERS,
    params(("addr" = String, Path, description = "The server's IPv4 `ip:port`", example = "192.0.2.1:28960")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Forgotten"),
        (status = 400, description = "The address is not ip:port", body = ApiError),
        (status = 401, description = "No owner session, or one that expired", body = ApiError),
        (status = 404, description = "No such server listed here", body = ApiError),
        (status = 503, description = "Owners are unavailable", body = ApiError),
    ))]
pub async fn disown(
    State(owners): State<Owners>,
    Path(addr): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = owners.session(&addr, &headers).await {
        return refused.into_response();
    }
    if let Some(webhooks) = &owners.webhooks {
        if let Err(why) = webhooks
            .set_webhook(addr.clone(), None, 1, i18n::Lang::En, false)
            .await
        {
            return unavailable(why);
        }
    }
    let Ok(store) = owners.store() else {
        return unavailable("no store");
    };
    let at = addr.clone();
    match store
        .run(move |s| s.transact(&mut |db| stored::remove(db, &at)))
        .await
    {
        Ok(()) => {
            owners.forget(&addr);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => unavailable(e),
    }
}
