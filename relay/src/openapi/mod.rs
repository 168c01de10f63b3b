//! The API's description: an OpenAPI 3.1 document generated from the code, never written by
//! hand. Each capability registers its routes under `/api/` through utoipa-axum's `routes!`,
//! which takes a route's method and path from the handler's `#[utoipa::path]`, so a route is
//! served and described by one declaration; the types a handler answers with give the schemas.
//! The document is the same whatever the relay's configuration (a capability that is off
//! answers its routes with a refusal), so `docs/openapi.json`, its committed copy, is what
//! every relay of this version serves at `GET /api/openapi.json`.

pub mod page;
pub mod refusal;
mod variants;

use std::sync::Arc;

use axum::response::IntoResponse;
use protocol::relay_api::alerts::{AlertEvent, DiscordMessage, NtfyMessage, PushMessage};
use protocol::relay_api::ApiError;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::tag;

/// The security scheme a route that needs a token names: the operator's token
/// (`--operator-token`) or an owner's session, as `Authorization: Bearer TOKEN`.
pub const BEARER: &str = "bearer";

#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "Muster relay",
        description = "The server browser's and spectator relay's HTTP API for Call of Duty: \
            United Offensive 1.51 servers (protocol 22). Every refusal answers `ApiError`. \
            What a schema cannot say (limits, guarantees, the WebSocket messages) is in \
            docs/api.md.",
        license(name = "MIT OR Apache-2.0"),
    ),
    components(schemas(ApiError, AlertEvent, DiscordMessage, NtfyMessage, PushMessage)),
    modifiers(&Security, &Webhook),
)]
struct Base;

struct Security;

impl utoipa::Modify for Security {
    fn modify(&self, api: &mut OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The operator's token (--operator-token), or an owner's session from \
                         POST /api/servers/{addr}/claim",
                    ))
                    .build(),
            ),
        );
    }
}

/// What the relay sends: a generic webhook's `POST` of the event (Discord, ntfy and a browser's
/// push get `DiscordMessage`, `NtfyMessage` and `PushMessage`, described among the schemas), so
/// a receiver can be generated from the description too.
struct Webhook;

impl utoipa::Modify for Webhook {
    fn modify(&self, api: &mut OpenApi) {
        use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
        use utoipa::openapi::request_body::RequestBodyBuilder;
        use utoipa::openapi::{ContentBuilder, PathsBuilder, Ref, Required, ResponseBuilder};
        let event = RequestBodyBuilder::new()
            .description(Some(
                "One alert's firing, as JSON; its key (RULE-N) is in the Muster-Delivery \
                 header too, so a repeat (the relay sends at least once) can be told",
            ))
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("AlertEvent")))
                    .build(),
            )
            .required(Some(Required::True))
            .build();
        let alert = OperationBuilder::new()
            .summary(Some("An alert fired, to a webhook of the subscription"))
            .operation_id(Some("alert"))
            .tag(tag::ALERTS)
            .request_body(Some(event))
            .response(
                "2XX",
                ResponseBuilder::new().description("Received: the delivery is done"),
            )
            .response(
                "default",
                ResponseBuilder::new().description(
                    "Tried again with backoff for a day (429's Retry-After is waited out); \
                     404 or 410 forgets the subscription",
                ),
            )
            .build();
        api.webhooks = Some(
            PathsBuilder::new()
                .path("alert", PathItem::new(HttpMethod::Post, alert))
                .build(),
        );
    }
}

/// The whole description: every capability's routes under `/api/`.
pub fn description() -> OpenApi {
    use utoipa::OpenApi as _;
    let mut api = Base::openapi();
    api.info.version = env!("CARGO_PKG_VERSION").to_owned();
    for part in [
        crate::browse::openapi(),
        crate::geo::openapi(),
        crate::history::openapi(),
        crate::matches::openapi(),
        crate::highlights::openapi(),
        crate::moments::openapi(),
        crate::spectate::openapi(),
        crate::rewind::openapi(),
        crate::demos::openapi(),
        crate::alerts::openapi(),
        crate::owners::openapi(),
        crate::master::openapi(),
        crate::cluster::openapi(),
        crate::bridge::openapi(),
        crate::wulfram::openapi(),
        own().into_openapi(),
    ] {
        api.merge(part);
    }
    variants::name_every_variant(&mut api);
    every_operation_may_be_rate_limited(&mut api);
    files_are_binary(&mut api);
    a_new_alert_links_to_its_subscription(&mut api);
    what_handlers_check(&mut api);
    api
}

/// A game server's address as every route reads it: IPv4 dotted quad (no leading zeros) and
/// port, as `SocketAddrV4` parses it.
pub const ADDR_PATTERN: &str = "^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}\
    (25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]):\
    (6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)$";

/// The names that hold a game server's address: a path's `{addr}`, a `server` parameter or
/// field (a field named `addr` is left alone: a master's is `host:port`).
const ADDRESS_NAMES: [&str; 2] = ["addr", "server"];

/// Says what the handlers check of every parameter and field in one place, rather than on
/// each (the schema attributes take only a literal): [`ADDR_PATTERN`] of those named in
/// [`ADDRESS_NAMES`] (a query's `server` may also be empty, which means every server), and
/// each unsigned integer's largest value (its type's, which is what the query or body parser
/// takes).
fn what_handlers_check(api: &mut OpenApi) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::RefOr;
    for operation in operations(api) {
        for parameter in operation.parameters.iter_mut().flatten() {
            if let RefOr::T(parameter) = parameter {
                let query = matches!(parameter.parameter_in, ParameterIn::Query);
                let name = parameter.name.clone();
                if let Some(schema) = parameter.schema.as_mut() {
                    constrain(Some(&name), query, schema);
                }
            }
        }
    }
    let schemas = api
        .components
        .iter_mut()
        .flat_map(|c| c.schemas.values_mut());
    for schema in schemas {
        constrain(None, false, schema);
    }
}

/// A Rust tuple (a cvar's name and value, a gametype and its count) is `prefixItems` with
/// `items: false`, which JSON Schema 2020-12 reads but many client generators do not: its items
/// are said again as `items` (any of the tuple's kinds) with its length, which every reader
/// takes and which says the same.
fn fixed_length_items(array: &mut utoipa::openapi::schema::Array) {
    use utoipa::openapi::schema::{AnyOf, ArrayItems};
    use utoipa::openapi::{RefOr, Schema};
    if !matches!(array.items, ArrayItems::False) || array.prefix_items.is_empty() {
        return;
    }
    let mut kinds: Vec<Schema> = Vec::new();
    for kind in &array.prefix_items {
        if !kinds.contains(kind) {
            kinds.push(kind.clone());
        }
    }
    let items = match kinds.len() {
        1 => kinds.remove(0),
        _ => {
            let mut any = AnyOf::new();
            any.items = kinds.into_iter().map(RefOr::T).collect();
            Schema::AnyOf(any)
        }
    };
    array.items = ArrayItems::RefOrSchema(Box::new(RefOr::T(items)));
    array.min_items = Some(array.prefix_items.len());
    array.max_items = Some(array.prefix_items.len());
}

/// [`what_handlers_check`]'s work on one schema named `name` and what it holds.
fn constrain(
    name: Option<&str>,
    query: bool,
    schema: &mut utoipa::openapi::RefOr<utoipa::openapi::Schema>,
) {
    use utoipa::openapi::schema::{ArrayItems, KnownFormat, SchemaFormat};
    use utoipa::openapi::{RefOr, Schema};
    use utoipa::Number;
    let RefOr::T(schema) = schema else { return };
    match schema {
        Schema::Object(object) => {
            if name.is_some_and(|n| ADDRESS_NAMES.contains(&n)) {
                object.pattern = Some(if query {
                    format!("^$|{ADDR_PATTERN}")
                } else {
                    ADDR_PATTERN.to_owned()
                });
            }
            let largest = match &object.format {
                Some(SchemaFormat::KnownFormat(KnownFormat::UInt8)) => Some(u8::MAX as usize),
                Some(SchemaFormat::KnownFormat(KnownFormat::UInt16)) => Some(u16::MAX as usize),
                Some(SchemaFormat::KnownFormat(KnownFormat::UInt32)) => Some(u32::MAX as usize),
                Some(SchemaFormat::KnownFormat(KnownFormat::UInt64)) => Some(u64::MAX as usize),
                _ => None,
            };
            if let Some(largest) = largest {
                // The range says it all; utoipa's names for these formats (`u-int32`) are no
                // format a reader knows.
                object.maximum.get_or_insert(Number::UInt(largest));
                object.format = None;
            }
            use utoipa::openapi::schema::AdditionalProperties;
            if let Some(AdditionalProperties::RefOr(more)) =
                object.additional_properties.as_deref_mut()
            {
                constrain(None, false, more);
            }
            for (field, inner) in object.properties.iter_mut() {
                // A field named `addr` may be a master's `host:port`; a `server` is a game
                // server's address wherever it stands.
                let named = (field == "server").then_some(field.as_str());
                constrain(named, false, inner);
            }
        }
        Schema::Array(array) => {
            let kinds = std::mem::take(&mut array.prefix_items);
            for kind in kinds {
                let mut kind = RefOr::T(kind);
                constrain(None, false, &mut kind);
                if let RefOr::T(kind) = kind {
                    array.prefix_items.push(kind);
                }
            }
            fixed_length_items(array);
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                constrain(None, false, items);
            }
        }
        Schema::OneOf(one) => one.items.iter_mut().for_each(|s| constrain(name, query, s)),
        Schema::AllOf(all) => all.items.iter_mut().for_each(|s| constrain(name, query, s)),
        Schema::AnyOf(any) => any.items.iter_mut().for_each(|s| constrain(name, query, s)),
        _ => {}
    }
}

/// A file an operation answers (a demo, a still) is its bytes: `string` of `format: binary`,
/// as readers and generators take a file, where utoipa says an array of integers.
fn files_are_binary(api: &mut OpenApi) {
    use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
    use utoipa::openapi::RefOr;
    for operation in operations(api) {
        for response in operation.responses.responses.values_mut() {
            let RefOr::T(response) = response else {
                continue;
            };
            for (kind, content) in response.content.iter_mut() {
                let RefOr::T(content) = content else {
                    continue;
                };
                if kind == "application/octet-stream" || kind.starts_with("image/png") {
                    let bytes = ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
                        .build();
                    content.schema = Some(bytes.into());
                }
            }
        }
    }
}

/// A new alert's answer names its rule's id and its subscription's token, which the alerts'
/// other operations take: said as OpenAPI links, so a client (and a stateful tester) follows
/// them.
fn a_new_alert_links_to_its_subscription(api: &mut OpenApi) {
    use utoipa::openapi::link::LinkBuilder;
    use utoipa::openapi::RefOr;
    let created = (api.paths.paths.get_mut("/api/alerts"))
        .and_then(|item| item.post.as_mut())
        .and_then(|post| post.responses.responses.get_mut("201"));
    let Some(RefOr::T(created)) = created else {
        return;
    };
    for (operation, with_id) in [
        ("alerts", false),
        ("forget", false),
        ("pause", true),
        ("remove", true),
    ] {
        let mut link = LinkBuilder::new()
            .operation_id(operation)
            .parameter("token", "$response.body#/token");
        if with_id {
            link = link.parameter("id", "$response.body#/id");
        }
        created
            .links
            .insert(operation.to_owned(), link.build().into());
    }
}

/// Every operation of every path (the relay's routes use these five methods).
fn operations(api: &mut OpenApi) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    (api.paths.paths.values_mut()).flat_map(|item| {
        [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
    })
}

/// The edge answers any request past its client's allowance (`--api-rate`, `--api-burst`)
/// with a 429 before a handler sees it: every operation says so.
fn every_operation_may_be_rate_limited(api: &mut OpenApi) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder, Type};
    let limited = ResponseBuilder::new()
        .description(
            "Over this client's allowance (--api-rate, --api-burst): Retry-After says when to \
             ask again",
        )
        .header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(Some(utoipa::openapi::schema::Object::with_type(
                    Type::Integer,
                )))
                .description(Some("Seconds"))
                .build(),
        )
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ApiError")))
                .build(),
        )
        .build();
    for operation in operations(api) {
        (operation.responses.responses)
            .entry("429".to_owned())
            .or_insert_with(|| limited.clone().into());
    }
}

/// The description as committed in `docs/openapi.json`: pretty, with a closing newline.
pub fn description_json() -> String {
    let mut text = description()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

/// `GET /api/openapi.json` and the page that reads it at `GET /api/`; `dist` has the page's
/// stylesheet.
pub fn routes(dist: std::path::PathBuf) -> axum::Router {
    let json = description_json();
    let served = Served {
        value: Arc::new(serde_json::from_str(&json).unwrap_or_default()),
        json: json.into(),
        dist: dist.into(),
    };
    axum::Router::from(own()).layer(axum::Extension(served))
}

/// The description, made once at start.
#[derive(Clone)]
struct Served {
    json: Arc<str>,
    value: Arc<serde_json::Value>,
    dist: Arc<std::path::Path>,
}

fn own() -> OpenApiRouter {
    OpenApiRouter::new()
        .routes(routes!(openapi_json))
        .routes(routes!(browse))
}

/// This description.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = tag::RELAY,
    responses((status = 200, description = "The OpenAPI 3.1 description of this API", content_type = "application/json", body = Object)),
)]
async fn openapi_json(axum::Extension(served): axum::Extension<Served>) -> impl IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        served.json.to_string(),
    )
}

/// This description as a page to read in a browser: every operation, its parameters, an
/// example request and answer.
#[utoipa::path(
    get,
    path = "/api/",
    tag = tag::RELAY,
    responses((status = 200, description = "The description, readable", content_type = "text/html", body = String)),
)]
async fn browse(
    axum::Extension(served): axum::Extension<Served>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    let words = crate::site::language::words_for(&headers);
    let title = words.text("api-title");
    let sheet = crate::card::Sheet {
        title: &title,
        description: &words.text("api-description"),
        subtitle: "subtitle-api",
        current: crate::card::Current::None,
        back: "/api/",
        code: String::new(),
    };
    crate::card::sheet(words, &served.dist, sheet, page::body(words, &served.value))
}
