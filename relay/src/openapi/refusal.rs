//! One shape for every refusal under `/api/`: `{"error": "why"}` (`relay_api::ApiError`),
//! whoever refused: a handler's own words, an extractor's rejection (a query string that does
//! not parse, a body that is no JSON), the body limit, the rate limit. Handlers keep saying
//! why in a sentence; this turns the sentence into the shape the description promises, so a
//! client generated from it reads every error the same way.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use protocol::relay_api::ApiError;

/// The longest refusal read back to be wrapped; a longer one (none is) is cut.
const MOST: usize = 4096;

/// Wraps a refusal under `/api/` that is not JSON already.
pub async fn as_json(request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let api = path == "/api" || path.starts_with("/api/");
    let response = next.run(request).await;
    let refused = response.status().is_client_error() || response.status().is_server_error();
    let json = (response.headers().get(CONTENT_TYPE))
        .and_then(|t| t.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if !api || !refused || json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MOST).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let error = if text.is_empty() {
        (parts.status.canonical_reason())
            .unwrap_or("refused")
            .to_lowercase()
    } else {
        text
    };
    let body = serde_json::to_vec(&ApiError { error, path: None }).unwrap_or_default();
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, Body::from(body))
}
