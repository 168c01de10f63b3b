//! `POST /api/moments` and `GET /api/moments/{id}[.dm_3|.png]`.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use protocol::cod::watch::timeline::still_of;
use protocol::relay_api::moments::{
    is_moment_id, MomentAsk, MomentCreated, MomentDetail, MomentTime,
};
use protocol::relay_api::ApiError;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::still::{self, Overview};
use super::Moments;
use crate::http::tag;
use crate::net::{unix_ms, ServerAddr};
use crate::seams::{Clip, ClipRefused};
use crate::store::moments::{self, Part, SavedMoment};

fn refused(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

fn unavailable(e: crate::store::StoreError) -> Response {
    tracing::warn!("moments: {e}");
    refused(StatusCode::SERVICE_UNAVAILABLE, "moments are unavailable")
}

pub(super) fn api() -> OpenApiRouter<Moments> {
    OpenApiRouter::new()
        .routes(routes!(create))
        .routes(routes!(read))
}

/// The moments' part of the API's description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api().into_openapi()
}

/// Cuts a moment of a watched server's match from its rewind window: a stock demo of the span,
/// its still and a page to share.
#[utoipa::path(post, path = "/api/moments", tag = tag::MOMENTS, operation_id = "create_moment",
    request_body = MomentAsk,
    responses(
        (status = 201, description = "The moment, cut", body = MomentCreated),
        (status = 400, description = "A body it cannot read, or a span backwards, empty or too long", body = ApiError),
        (status = 404, description = "No rewind window for the server here", body = ApiError),
        (status = 409, description = "Nothing kept in the span, or another relay holds the match", body = ApiError),
        (status = 413, description = "A body over 16 KiB", body = ApiError),
        (status = 429, description = "Over the moments an address may cut an hour", body = ApiError),
        (status = 503, description = "The moments cannot be kept", body = ApiError),
    ))]
pub async fn create(
    State(moments): State<Moments>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    ask: Result<Json<MomentAsk>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(ask) = match ask {
        Ok(ask) => ask,
        Err(e) => {
            return refused(
                StatusCode::BAD_REQUEST,
                format!(
                    "expected {{\"server\": \"ADDR\", \"from\": SECONDS, \"to\": SECONDS}}: {e}"
                ),
            )
        }
    };
    let Ok(server) = ask.server.parse::<ServerAddr>() else {
        return refused(
            StatusCode::BAD_REQUEST,
            "server: not an IPv4 address and port",
        );
    };
    if !ask.from.is_finite() || !ask.to.is_finite() {
        return refused(StatusCode::BAD_REQUEST, "from and to must be numbers");
    }
    let Some(clipping) = moments.clipping.clone() else {
        return refused(
            StatusCode::NOT_FOUND,
            "this relay keeps no rewind window (--rewind-minutes 0), so it cuts no moments",
        );
    };
    let client = crate::edge::limits::client_of(&extensions, &headers, &moments.trusted);
    let now = unix_ms();
    let per_hour = u64::from(moments.config.moment_per_hour);
    let of = client.clone();
    let made = moments
        .store
        .run(move |store| moments::made_since(store.exec()?, &of, now.saturating_sub(3_600_000)))
        .await;
    match made {
        Ok(made) if made >= per_hour => {
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "600")],
                format!("at most {per_hour} moments an hour from one address (--moment-per-hour)"),
            )
                .into_response()
        }
        Ok(_) => {}
        Err(e) => return unavailable(e),
    }
    let (from, to) = (MomentTime::of(ask.from), MomentTime::of(ask.to));
    match moments.cut(clipping, server, from, to, client).await {
        Ok(created) => (StatusCode::CREATED, Json(created)).into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

impl Moments {
    /// Cuts the span from the reels, reads it back to describe it and draw its still, and
    /// keeps all three as a moment made by `client`.
    pub(super) async fn cut(
        &self,
        clipping: std::sync::Arc<dyn crate::seams::Clipping>,
        server: ServerAddr,
        from: MomentTime,
        to: MomentTime,
        client: String,
    ) -> Result<MomentCreated, (StatusCode, String)> {
        let now = unix_ms();
        let describer = self.clone();
        let made = tokio::task::spawn_blocking(move || {
            let clip = clipping.clip(server, from, to)?;
            Ok::<_, ClipRefused>(describer.describe(server, clip, now))
        })
        .await;
        let (detail, demo, still) = match made {
            Ok(Ok(Some(made))) => made,
            Ok(Ok(None)) => {
                return Err((
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the clip did not read back".to_owned(),
                ))
            }
            Ok(Err(refusal)) => return Err(clip_refused(refusal)),
            Err(_) => {
                return Err((
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "cutting the clip failed".to_owned(),
                ))
            }
        };
        let created = MomentCreated {
            id: detail.id.clone(),
            url: detail.page(),
        };
        let saved = SavedMoment {
            id: detail.id.clone(),
            server: server.to_string(),
            client,
            created_ms: now,
            detail: serde_json::to_string(&detail).unwrap_or_default(),
            demo,
            still,
        };
        self.store
            .run(move |store| moments::save(store.exec()?, &saved))
            .await
            .map_err(|e| {
                tracing::warn!("moments: {e}");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "moments are unavailable".to_owned(),
                )
            })?;
        Ok(created)
    }
}

fn clip_refused(refusal: ClipRefused) -> (StatusCode, String) {
    match refusal {
        ClipRefused::NoWindow => (
            StatusCode::NOT_FOUND,
            "no rewind window for this server: nobody here has watched it yet".to_owned(),
        ),
        ClipRefused::Mirrored => (
            StatusCode::CONFLICT,
            "this relay mirrors that match; the relay holding its session cuts moments of it"
                .to_owned(),
        ),
        ClipRefused::Span(why) => (StatusCode::BAD_REQUEST, why),
        ClipRefused::Outside(why) => (StatusCode::CONFLICT, why),
    }
}

impl Moments {
    /// The moment's description, clip and still; `None` if the clip does not read back.
    fn describe(
        &self,
        server: ServerAddr,
        clip: Clip,
        now: u64,
    ) -> Option<(MomentDetail, Vec<u8>, Vec<u8>)> {
        // The still shows the last kill of the span, else its middle.
        let still_time = clip.kills.last().map_or(
            clip.first_server_time + (clip.last_server_time - clip.first_server_time) / 2,
            |k| {
                k.server_time
                    .clamp(clip.first_server_time, clip.last_server_time)
            },
        );
        // The clip read back as far as its still: one pass, no seeking laid out.
        let summary = still_of(&clip.demo, still_time).ok()?;
        let view = summary.view;
        let map = summary.map.unwrap_or_default();
        let marked: Vec<u8> = clip
            .kills
            .last()
            .map(|k| {
                view.players
                    .iter()
                    .filter(|p| Some(&p.name) == k.attacker.as_ref() || p.name == k.victim)
                    .map(|p| p.client)
                    .collect()
            })
            .unwrap_or_default();
        let backdrop = self.overviews.iter().find(|(m, _, _)| *m == map);
        let png = backdrop.and_then(|(_, path, _)| std::fs::read(path).ok());
        let overview = backdrop
            .zip(png.as_deref())
            .map(|((_, _, corners), png)| Overview {
                png,
                corners: *corners,
            });
        let still = still::render(&view, overview, &marked);
        let detail = MomentDetail {
            id: crate::secrets::random_id(10),
            server: server.to_string(),
            hostname: summary.hostname,
            map,
            gametype: summary.gametype,
            created_ms: now,
            from_ms: clip.from_us / 1000,
            to_ms: clip.to_us / 1000,
            first_server_time: clip.first_server_time,
            last_server_time: clip.last_server_time,
            snapshots: clip.snapshots,
            bytes: clip.demo.len() as u64,
            still_server_time: still_time,
            kills: clip.kills,
            match_demo: None,
        };
        Some((detail, clip.demo, still))
    }

    /// A moment's description, with the whole match's demo when this relay recorded one.
    pub(super) async fn detail(
        &self,
        id: &str,
    ) -> Result<Option<MomentDetail>, crate::store::StoreError> {
        let id = id.to_owned();
        self.store
            .run(move |store| {
                let Some(json) = moments::part(store.exec()?, &id, Part::Detail)? else {
                    return Ok(None);
                };
                let Ok(mut detail) = serde_json::from_slice::<MomentDetail>(&json) else {
                    return Ok(None);
                };
                let filter = crate::store::matches::MatchFilter {
                    server: Some(detail.server.clone()),
                    limit: 50,
                    ..Default::default()
                };
                let list = crate::store::matches::list(store.exec()?, &filter)?;
                detail.match_demo = list
                    .iter()
                    .find(|m| m.start_ms <= detail.from_ms && detail.from_ms <= m.end_ms)
                    .and_then(|m| m.demo.as_deref())
                    .map(|demo| {
                        protocol::relay_api::matches::moment(demo, detail.first_server_time)
                    });
                Ok(Some(detail))
            })
            .await
    }
}

/// A moment: `ID` its record, `ID.dm_3` its demo, `ID.png` its still.
#[utoipa::path(get, path = "/api/moments/{file}", tag = tag::MOMENTS, operation_id = "moment",
    params(("file" = String, Path, description = "`ID`, `ID.dm_3` or `ID.png`")),
    responses(
        (status = 200, description = "The moment's record, demo or still", content(
            (MomentDetail = "application/json"),
            (Vec<u8> = "application/octet-stream"),
            (Vec<u8> = "image/png"),
        )),
        (status = 404, description = "No such moment (or it has expired)", body = ApiError),
        (status = 503, description = "The moments cannot be read", body = ApiError),
    ))]
pub async fn read(State(moments): State<Moments>, Path(file): Path<String>) -> Response {
    let (id, part) = match file.rsplit_once('.') {
        Some((id, "dm_3")) => (id, Part::Demo),
        Some((id, "png")) => (id, Part::Still),
        Some(_) => return refused(StatusCode::NOT_FOUND, "a moment is ID, ID.dm_3 or ID.png"),
        None => (file.as_str(), Part::Detail),
    };
    if !is_moment_id(id) {
        return refused(StatusCode::NOT_FOUND, "no such moment");
    }
    if part == Part::Detail {
        return match moments.detail(id).await {
            Ok(Some(detail)) => Json(detail).into_response(),
            Ok(None) => refused(StatusCode::NOT_FOUND, "no such moment (or it has expired)"),
            Err(e) => unavailable(e),
        };
    }
    let wanted = id.to_owned();
    let read = moments
        .store
        .run(move |store| moments::part(store.exec()?, &wanted, part))
        .await;
    let (kind, disposition) = match part {
        Part::Demo => (
            "application/octet-stream",
            format!("attachment; filename=\"moment-{id}.dm_3\""),
        ),
        _ => ("image/png", "inline".to_owned()),
    };
    match read {
        Ok(Some(bytes)) => (
            [
                (header::CONTENT_TYPE, kind.to_owned()),
                (header::CONTENT_DISPOSITION, disposition),
                // A moment never changes.
                (
                    header::CACHE_CONTROL,
                    "public, max-age=86400, immutable".to_owned(),
                ),
            ],
            bytes,
        )
            .into_response(),
        Ok(None) => refused(StatusCode::NOT_FOUND, "no such moment (or it has expired)"),
        Err(e) => unavailable(e),
    }
}
