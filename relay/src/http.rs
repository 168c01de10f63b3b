//! The HTTP assembly: merges each capability's router and applies what they share: the Origin
//! check on every WebSocket upgrade, and the page's static files for every other path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{HOST, ORIGIN, UPGRADE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower::ServiceExt;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::services::{ServeDir, ServeFile};

/// The API description's tags, one a capability, in the order a reader meets them: here, beside
/// the assembly, so the capabilities that name them and `openapi`, which reads every
/// capability's part, never import each other.
pub mod tag {
    pub const SERVERS: &str = "servers";
    pub const HISTORY: &str = "history";
    pub const MATCHES: &str = "matches";
    pub const HIGHLIGHTS: &str = "highlights";
    pub const MOMENTS: &str = "moments";
    pub const SPECTATE: &str = "spectate";
    pub const DEMOS: &str = "demos";
    pub const ALERTS: &str = "alerts";
    pub const OWNERS: &str = "owners";
    pub const RELAY: &str = "relay";
}

/// The read buffer of a page's, viewer's or bridge session's socket: a page sends a few bytes,
/// and the relay writes whole frames straight through (no write buffer; a viewer's holds what
/// one turn sends, then is flushed), so an idle socket costs little.
pub const SOCKET_BUFFER: usize = 4096;

/// The `ip:port` a socket route names and its upgrade, set for messages of at most `max_message`
/// bytes, a small read buffer and no write buffer; or the response refusing them: 400 for an
/// address that is not IPv4 `ip:port`, the upgrade's own rejection for a request that is none.
pub fn socket_target(
    addr: &str,
    ws: Result<
        axum::extract::ws::WebSocketUpgrade,
        axum::extract::ws::rejection::WebSocketUpgradeRejection,
    >,
    max_message: usize,
) -> Result<(std::net::SocketAddrV4, axum::extract::ws::WebSocketUpgrade), Box<Response>> {
    let Ok(target) = addr.parse() else {
        return Err(Box::new(
            (StatusCode::BAD_REQUEST, "not an IPv4 ip:port").into_response(),
        ));
    };
    let ws = ws.map_err(|rejection| Box::new(rejection.into_response()))?;
    Ok((
        target,
        ws.max_message_size(max_message)
            .max_frame_size(max_message)
            .read_buffer_size(SOCKET_BUFFER)
            .write_buffer_size(0),
    ))
}

/// The largest request body the relay reads: no route takes more than a few bytes, so anything
/// larger is refused (413) before a handler sees it.
pub const MAX_REQUEST_BODY: usize = 16 * 1024;

/// The relay's whole surface: the capabilities' routes, the Origin check, the body limit, the
/// page.
pub fn assemble(capabilities: Vec<Router>, dist: &Path, allowed_origins: Vec<String>) -> Router {
    // The page's files go in brotli or gzip, whichever the browser takes, where the build left
    // a .br and a .gz beside them (brotli where both are taken). Any other path is
    // the page (its routes live in the URL), except a content-named file that is missing: that
    // is a 404, or a browser would keep the page under the file's name for a year. A path under
    // `/watch/` (`/watch/ADDR`) is the watch page.
    let files = ServeDir::new(dist).precompressed_br().precompressed_gzip();
    let policy = axum::middleware::map_response(cache_policy);
    let page_at = |html: PathBuf| {
        let page = files
            .clone()
            .fallback(ServeFile::new(html).precompressed_br().precompressed_gzip());
        Router::new().fallback_service(page).layer(policy.clone())
    };
    let routes = capabilities
        .into_iter()
        .fold(Router::new(), |all, routes| all.merge(routes));
    let page = page_at(dist.join("index.html"));
    let watch = page_at(dist.join(WATCH_PAGE).join("index.html"));
    let files = Router::new().fallback_service(files).layer(policy);
    routes
        .fallback(|request: Request| async move {
            let path = request.uri().path();
            if path == "/api" || path.starts_with("/api/") {
                return no_such_api(path);
            }
            let serve = if content_hashed(path) {
                files
            } else if path.starts_with(&format!("/{WATCH_PAGE}/")) {
                watch
            } else {
                page
            };
            serve.oneshot(request).await.unwrap_or_else(|e| match e {})
        })
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(allowed_origins),
            same_origin,
        ))
        .layer(RequestBodyLimitLayer::new(MAX_REQUEST_BODY))
}

/// What a script gets for a path under `/api/` that no route serves: a JSON 404, never the
/// page's HTML in a 200.
fn no_such_api(path: &str) -> Response {
    let answer = protocol::relay_api::ApiError {
        error: "no such API path".into(),
        path: Some(path.into()),
    };
    (StatusCode::NOT_FOUND, axum::Json(answer)).into_response()
}

/// The watch view's own page, beside the browser's in the build's output.
const WATCH_PAGE: &str = "watch";

/// Whether a page file's name carries the hash of its content, as the page's build names its
/// code and styles (`muster-frontend-9a579348f9b5623b_bg.wasm`, `style-72401632d95e2eb0.css`).
/// Trunk prints its 64-bit hash without leading zeros, so one build in sixteen names its files
/// with 15 digits (`muster-frontend-f8dad2c9191ebc6.js`); a hash shorter than
/// [`MIN_HASH_DIGITS`] (one build in 65,536) is only revalidated, never wrongly kept.
pub fn content_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
        (MIN_HASH_DIGITS..=16).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The fewest hex digits taken for a content hash in a file's name.
const MIN_HASH_DIGITS: usize = 12;

/// How long a browser keeps a page file: one named by its content for a year, without asking
/// again (a new build names its files anew, the session worker's included); any other (the
/// HTML) checked each time, which costs a 304 when unchanged. The same path answers in brotli,
/// gzip or neither by what the browser takes, so a shared cache must key on that too.
async fn cache_policy(uri: axum::http::Uri, mut response: Response) -> Response {
    let policy = if response.status().is_success() && content_hashed(uri.path()) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static(policy),
    );
    headers.insert(
        axum::http::header::VARY,
        axum::http::HeaderValue::from_static("accept-encoding"),
    );
    response
}

/// Refuses with 403 a WebSocket upgrade from a foreign origin; other requests pass (a script
/// may read the JSON API from anywhere).
async fn same_origin(
    State(allowed): State<Arc<Vec<String>>>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    // HTTP/1.1 upgrades carry `Upgrade`; HTTP/2 WebSockets are an extended CONNECT.
    let upgrade =
        request.headers().contains_key(UPGRADE) || request.method() == axum::http::Method::CONNECT;
    if !upgrade || origin_allowed(request.headers(), &allowed) {
        next.run(request).await
    } else {
        (
            StatusCode::FORBIDDEN,
            "this origin may not open the relay's sockets",
        )
            .into_response()
    }
}

/// Whether a browser's `Origin` may open the relay's sockets: the relay's own origin (the
/// `Host` the page reached it at) or one the operator allowed. Tools that are not browsers send
/// no `Origin`; a web page cannot leave it out.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    let host = headers.get(HOST).and_then(|h| h.to_str().ok());
    let own = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    (own.is_some() && own == host) || allowed.iter().any(|a| a.trim_end_matches('/') == origin)
}

/// Requests for in-process route tests (`tower::ServiceExt::oneshot`), shared by every
/// capability's tests.
#[cfg(test)]
pub(crate) mod oneshot {
    use axum::body::Body;
    use axum::http::{Method, Request, StatusCode};
    use axum::Router;
    use tower::ServiceExt;

    pub fn get(uri: &str) -> Request<Body> {
        request(Method::GET, uri, &[])
    }

    /// A request with `headers`; `uri` as the client wrote it.
    pub fn request(method: Method, uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
        let mut builder = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).expect("a valid request")
    }

    /// A browser's WebSocket handshake. In-process there is no connection to upgrade, so a
    /// route that accepts it answers 426: that status shows every check before it passed.
    pub fn upgrade(uri: &str, origin: Option<&str>) -> Request<Body> {
        let mut headers = vec![
            ("host", "relay.test"),
            ("connection", "upgrade"),
            ("upgrade", "websocket"),
            ("sec-websocket-version", "13"),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ];
        if let Some(origin) = origin {
            headers.push(("origin", origin));
        }
        request(Method::GET, uri, &headers)
    }

    /// The status and body text of one request.
    pub async fn call(router: &Router, request: Request<Body>) -> (StatusCode, String) {
        let response = router.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 16 << 20)
            .await
            .expect("a body");
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use axum::routing::get;

    use super::oneshot::{call, get as get_request, upgrade};
    use super::*;

    fn app(dist: &Path) -> Router {
        let sockets = Router::new().route("/socket", get(|| async { "opened" }));
        let api = Router::new().route("/api/thing", get(|| async { "thing" }));
        assemble(
            vec![sockets, api],
            dist,
            vec!["https://friend.example".into()],
        )
    }

    #[tokio::test]
    async fn upgrades_from_foreign_origins_are_refused_and_others_pass() {
        let dist = tempfile::tempdir().unwrap();
        let app = app(dist.path());
        let foreign = call(&app, upgrade("/socket", Some("https://evil.example"))).await;
        assert_eq!(foreign.0, StatusCode::FORBIDDEN, "{foreign:?}");
        for origin in [
            None,
            Some("http://relay.test"),
            Some("https://friend.example"),
        ] {
            let (status, body) = call(&app, upgrade("/socket", origin)).await;
            assert_eq!((status, body.as_str()), (StatusCode::OK, "opened"));
        }
        // A script on any origin may read the API: only upgrades are checked.
        let mut request = get_request("/api/thing");
        request
            .headers_mut()
            .insert("origin", "https://evil.example".parse().unwrap());
        assert_eq!(call(&app, request).await.0, StatusCode::OK);
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_refused_before_any_route() {
        let dist = tempfile::tempdir().unwrap();
        let app = app(dist.path());
        let request = |len: usize| {
            axum::http::Request::builder()
                .method("POST")
                .uri("/api/thing")
                .header("content-length", len.to_string())
                .body(axum::body::Body::from(vec![b'x'; len]))
                .unwrap()
        };
        let (status, _) = call(&app, request(MAX_REQUEST_BODY + 1)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        // Within the limit, the route answers as it would (GET only here: 405).
        let (status, _) = call(&app, request(16)).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    }

    #[tokio::test]
    async fn every_other_path_is_the_page() {
        let dist = tempfile::tempdir().unwrap();
        std::fs::write(dist.path().join("index.html"), "<p>the page</p>").unwrap();
        std::fs::write(dist.path().join("app.js"), "run()").unwrap();
        let app = app(dist.path());
        let page = call(&app, get_request("/#/server/1.2.3.4:28960")).await;
        assert_eq!(page, (StatusCode::OK, "<p>the page</p>".into()));
        let deep = call(&app, get_request("/some/route")).await;
        assert_eq!(deep, (StatusCode::OK, "<p>the page</p>".into()));
        let asset = call(&app, get_request("/app.js")).await;
        assert_eq!(asset, (StatusCode::OK, "run()".into()));
        // A match to watch is the watch page's, whichever way it is named.
        std::fs::create_dir(dist.path().join("watch")).unwrap();
        std::fs::write(dist.path().join("watch/index.html"), "<p>watch</p>").unwrap();
        for path in ["/watch/", "/watch/1.2.3.4:28960", "/watch/[::1]:28960"] {
            let watch = call(&app, get_request(path)).await;
            assert_eq!(watch, (StatusCode::OK, "<p>watch</p>".into()), "{path}");
        }
    }

    #[tokio::test]
    async fn an_api_path_no_route_serves_is_a_json_404_not_the_page() {
        let dist = tempfile::tempdir().unwrap();
        std::fs::write(dist.path().join("index.html"), "<p>the page</p>").unwrap();
        let app = app(dist.path());
        for path in [
            "/api",
            "/api/",
            "/api/nonexistent",
            "/api/thing/more",
            "/api/spectate/1.2.3.4:28960/anything",
        ] {
            let response = app.clone().oneshot(get_request(path)).await.unwrap();
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(
                response.headers()["content-type"],
                "application/json",
                "{path}"
            );
            let body = axum::body::to_bytes(response.into_body(), 1 << 16)
                .await
                .unwrap();
            let answer: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(answer["error"], "no such API path", "{path}");
            assert_eq!(answer["path"], path);
        }
        // A page route that only starts with the letters is still the page.
        let page = call(&app, get_request("/apiary")).await;
        assert_eq!(page, (StatusCode::OK, "<p>the page</p>".into()));
        assert_eq!(call(&app, get_request("/api/thing")).await.1, "thing");
    }

    #[tokio::test]
    async fn a_file_goes_in_the_smallest_encoding_the_browser_takes() {
        let dist = tempfile::tempdir().unwrap();
        for (name, body) in [
            ("index.html", "page"),
            ("index.html.gz", "page in gzip"),
            ("index.html.br", "page in brotli"),
            ("app-9a579348f9b5623b.js", "code"),
            ("app-9a579348f9b5623b.js.gz", "code in gzip"),
            ("app-9a579348f9b5623b.js.br", "code in brotli"),
            ("only-gz-9a579348f9b5623b.css", "style"),
            ("only-gz-9a579348f9b5623b.css.gz", "style in gzip"),
        ] {
            std::fs::write(dist.path().join(name), body).unwrap();
        }
        let app = app(dist.path());
        let fetch = |uri: &'static str, accepts: &'static str| {
            let app = app.clone();
            async move {
                let request = super::oneshot::request(
                    axum::http::Method::GET,
                    uri,
                    &[("accept-encoding", accepts)],
                );
                let response = app.oneshot(request).await.unwrap();
                assert_eq!(response.headers()["vary"], "accept-encoding", "{uri}");
                let encoding = response
                    .headers()
                    .get("content-encoding")
                    .map(|v| v.to_str().unwrap().to_owned());
                let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                    .await
                    .unwrap();
                (encoding, String::from_utf8_lossy(&body).into_owned())
            }
        };
        let chromium = "gzip, deflate, br, zstd";
        for path in ["/", "/some/route"] {
            assert_eq!(
                fetch(path, chromium).await,
                (Some("br".into()), "page in brotli".into())
            );
        }
        assert_eq!(
            fetch("/app-9a579348f9b5623b.js", chromium).await,
            (Some("br".into()), "code in brotli".into())
        );
        // A browser that takes only gzip (plain HTTP to a remote host), or nothing.
        assert_eq!(
            fetch("/app-9a579348f9b5623b.js", "gzip, deflate").await,
            (Some("gzip".into()), "code in gzip".into())
        );
        assert_eq!(
            fetch("/app-9a579348f9b5623b.js", "identity").await,
            (None, "code".into())
        );
        // Where the build left only a .gz, brotli's takers get that.
        assert_eq!(
            fetch("/only-gz-9a579348f9b5623b.css", chromium).await,
            (Some("gzip".into()), "style in gzip".into())
        );
    }

    #[tokio::test]
    async fn files_named_by_their_content_are_kept_a_year_and_the_rest_revalidated() {
        let dist = tempfile::tempdir().unwrap();
        for name in [
            "index.html",
            "muster-frontend-9a579348f9b5623b_bg.wasm",
            "muster-session.js",
        ] {
            std::fs::write(dist.path().join(name), name).unwrap();
        }
        let app = app(dist.path());
        let policy = |uri: &'static str| {
            let app = app.clone();
            async move {
                let response = app.oneshot(get_request(uri)).await.unwrap();
                (
                    response.status(),
                    response.headers()["cache-control"]
                        .to_str()
                        .unwrap()
                        .to_owned(),
                )
            }
        };
        assert_eq!(
            policy("/muster-frontend-9a579348f9b5623b_bg.wasm").await,
            (StatusCode::OK, "public, max-age=31536000, immutable".into())
        );
        assert_eq!(
            policy("/muster-session.js").await,
            (StatusCode::OK, "no-cache".into())
        );
        assert_eq!(policy("/").await, (StatusCode::OK, "no-cache".into()));
        // A missing content-named file is missing, not the page kept a year under its name.
        assert_eq!(
            policy("/style-0123456789abcdef.css").await,
            (StatusCode::NOT_FOUND, "no-cache".into())
        );
        assert!(content_hashed("/style-72401632d95e2eb0.css"));
        // Trunk drops a hash's leading zeros.
        assert!(content_hashed("/muster-frontend-f8dad2c9191ebc6_bg.wasm"));
        assert!(content_hashed("/watch/muster-watch-8dad2c9191ebc6.js"));
        assert!(!content_hashed("/muster-frontend-c9191ebc6.js"));
        assert!(!content_hashed("/muster-session_bg.wasm"));
        assert!(!content_hashed("/watch/1.2.3.4:28960"));
    }
}

/// A page's side of a WebSocket as channels, for testing the handlers written against
/// `Sink`/`Stream` without a socket.
#[cfg(test)]
pub(crate) mod channel {
    use std::time::Duration;

    use axum::extract::ws::Message;
    use futures::channel::mpsc;
    use futures::StreamExt;

    /// The sink and stream a handler takes.
    pub type Sink = mpsc::UnboundedSender<Message>;
    pub type Stream = mpsc::UnboundedReceiver<Result<Message, axum::Error>>;

    /// The page: what the relay sent it, and what it says.
    pub struct Page {
        pub heard: mpsc::UnboundedReceiver<Message>,
        pub says: mpsc::UnboundedSender<Result<Message, axum::Error>>,
    }

    /// A handler's sink and stream, and the page at their other ends.
    pub fn socket() -> (Sink, Stream, Page) {
        let (sink, heard) = mpsc::unbounded();
        let (says, stream) = mpsc::unbounded();
        (sink, stream, Page { heard, says })
    }

    impl Page {
        /// The next message the relay sent, within 5 s.
        pub async fn next(&mut self) -> Message {
            tokio::time::timeout(Duration::from_secs(5), self.heard.next())
                .await
                .expect("the relay answers in time")
                .expect("the socket is open")
        }

        /// The next message, a JSON report.
        pub async fn report<T: serde::de::DeserializeOwned>(&mut self) -> T {
            match self.next().await {
                Message::Text(text) => serde_json::from_str(&text).expect("a report"),
                other => panic!("expected a report, got {other:?}"),
            }
        }

        pub fn send(&self, message: Message) {
            self.says
                .unbounded_send(Ok(message))
                .expect("the handler listens");
        }

        /// The page goes away: its stream ends.
        pub fn leave(&self) {
            self.says.close_channel();
        }
    }
}
