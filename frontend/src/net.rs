//! What the page's sockets share: the relay's WebSocket address for a path, a timer to wait
//! before reconnecting, and JSON through the browser's own parser.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// `ws(s)://<this page's host><path>`.
pub fn ws_url(path: &str) -> String {
    let location = window().location();
    let scheme = match location.protocol().as_deref() {
        Ok("https:") => "wss",
        _ => "ws",
    };
    let host = location.host().unwrap_or_default();
    format!("{scheme}://{host}{path}")
}

pub async fn sleep(duration: Duration) {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = done.send(());
        },
        duration,
    );
    let _ = wait.await;
}

/// Local time in ms: the watch view's render clock, round trips.
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// `value` as JSON text, the browser's `JSON.stringify` of its serde form (`None` as `null`,
/// maps as objects: what serde_json would print).
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Option<String> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let value = value.serialize(&serializer).ok()?;
    js_sys::JSON::stringify(&value).ok()?.as_string()
}

/// JSON text read by the browser's `JSON.parse`, then into `T`; `None` if either fails.
pub fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Option<T> {
    serde_wasm_bindgen::from_value(js_sys::JSON::parse(json).ok()?).ok()
}

/// GETs `url` as text; `None` on any failure or a status other than 200.
pub async fn fetch_text(url: &str) -> Option<String> {
    let response = JsFuture::from(window().fetch_with_str(url)).await.ok()?;
    let response: web_sys::Response = response.dyn_into().ok()?;
    if response.status() != 200 {
        return None;
    }
    JsFuture::from(response.text().ok()?)
        .await
        .ok()?
        .as_string()
}

/// POSTs `json` to `url`; the status and the body's text, or why nothing came back.
pub async fn post_json(url: &str, json: &str) -> Result<(u16, String), String> {
    send("POST", url, Some(json)).await
}

/// A request of `method` to `url`, with `json` as its body if given; the status and the
/// body's text (a refusal's `error`), or why nothing came back.
pub async fn send(method: &str, url: &str, json: Option<&str>) -> Result<(u16, String), String> {
    send_as(method, url, json, None).await
}

/// [`send`] with `Authorization: Bearer TOKEN` when a token is given (an owner session).
pub async fn send_as(
    method: &str,
    url: &str,
    json: Option<&str>,
    bearer: Option<&str>,
) -> Result<(u16, String), String> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    let headers = web_sys::Headers::new().map_err(|e| format!("{e:?}"))?;
    if let Some(json) = json {
        init.set_body(&wasm_bindgen::JsValue::from_str(json));
        headers
            .set("content-type", "application/json")
            .map_err(|e| format!("{e:?}"))?;
    }
    if let Some(token) = bearer {
        headers
            .set("authorization", &format!("Bearer {token}"))
            .map_err(|e| format!("{e:?}"))?;
    }
    init.set_headers(&headers);
    let response = JsFuture::from(window().fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| tr!("relay-silent"))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| tr!("relay-not-a-response"))?;
    let text = match response.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|t| t.as_string()),
        Err(_) => None,
    };
    let (status, text) = (response.status(), text.unwrap_or_default());
    // A refusal's words, out of the API's error shape, for the page to show.
    let text = if status >= 400 {
        protocol::relay_api::ApiError::said(&text)
    } else {
        text
    };
    Ok((status, text))
}
