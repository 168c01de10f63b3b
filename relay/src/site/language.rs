//! The visitor's language for the relay's own pages: their choice (the `muster-lang` cookie the
//! header's chooser sets, read by the page too), else their browser's `Accept-Language`, else
//! English; and `GET /lang?to=LANG&back=PATH`, the chooser's form without script: it keeps the
//! choice and goes back.

use axum::extract::Query;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use i18n::{catalogue, Catalogue, Lang};
use serde::Deserialize;

/// The cookie the choice is kept in (`frontend/src/words.rs` sets and reads the same).
pub const COOKIE: &str = "muster-lang";

/// What a page in the visitor's language varies by, for caches between us and them.
pub const VARY: &str = "Accept-Encoding, Accept-Language, Cookie";

/// The language of the request's visitor.
pub fn lang_of(headers: &HeaderMap) -> Lang {
    let chosen = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            let (name, value) = c.trim().split_once('=')?;
            (name == COOKIE).then(|| Lang::from_tag(value)).flatten()
        });
    chosen.unwrap_or_else(|| {
        headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .map_or(Lang::En, Lang::from_accept_language)
    })
}

/// The catalogue of the request's visitor.
pub fn words_for(headers: &HeaderMap) -> &'static Catalogue {
    catalogue(lang_of(headers))
}

#[derive(Deserialize)]
pub struct Choice {
    to: String,
    back: Option<String>,
}

/// `GET /lang?to=de&back=/matches`: keeps the language for a year and goes back to `back`, a
/// path on this site only (anything else goes to the list: no open redirect).
pub async fn choose(Query(choice): Query<Choice>) -> Response {
    let lang = match Lang::parse(&choice.to) {
        Ok(lang) => lang,
        Err(unknown) => return (StatusCode::BAD_REQUEST, unknown.to_string()).into_response(),
    };
    let back = choice
        .back
        .filter(|b| b.starts_with('/') && !b.starts_with("//") && !b.contains('\\'))
        .unwrap_or_else(|| "/".to_owned());
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&back) {
        headers.insert(header::LOCATION, location);
    } else {
        headers.insert(header::LOCATION, HeaderValue::from_static("/"));
    }
    headers.insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&format!(
            "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax",
            lang.tag()
        ))
        .expect("a language tag is a header value"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        h
    }

    async fn chosen(uri: &str) -> Response {
        use tower::ServiceExt;
        let router = axum::Router::new().route("/lang", axum::routing::get(choose));
        let request = axum::http::Request::builder()
            .uri(uri)
            .body(axum::body::Body::empty())
            .unwrap();
        router.oneshot(request).await.unwrap()
    }

    #[tokio::test]
    async fn the_chooser_keeps_the_language_and_goes_back_only_to_this_site() {
        let kept = chosen("/lang?to=pl&back=/matches%3Fserver%3D1.2.3.4%3A28960").await;
        assert_eq!(kept.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            kept.headers()[header::LOCATION],
            "/matches?server=1.2.3.4:28960"
        );
        assert_eq!(
            kept.headers()[header::SET_COOKIE],
            "muster-lang=pl; Path=/; Max-Age=31536000; SameSite=Lax"
        );
        for elsewhere in [
            "//evil.example/",
            "https://evil.example/",
            "/\\evil.example",
            "matches",
        ] {
            let to = chosen(&format!("/lang?to=de&back={elsewhere}")).await;
            assert_eq!(to.headers()[header::LOCATION], "/", "{elsewhere}");
        }
        assert_eq!(chosen("/lang?to=de").await.headers()[header::LOCATION], "/");
        let refused = chosen("/lang?to=klingon").await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let said = axum::body::to_bytes(refused.into_body(), 1 << 16)
            .await
            .unwrap();
        assert!(String::from_utf8_lossy(&said).contains("en, de, pl, ru, fr, nl"));
    }

    #[test]
    fn the_choice_wins_over_the_browser_s_languages() {
        assert_eq!(lang_of(&headers(&[])), Lang::En);
        assert_eq!(
            lang_of(&headers(&[(
                header::ACCEPT_LANGUAGE,
                "de-DE,de;q=0.9,en;q=0.8"
            )])),
            Lang::De
        );
        assert_eq!(
            lang_of(&headers(&[
                (header::ACCEPT_LANGUAGE, "de-DE"),
                (header::COOKIE, "a=b; muster-lang=ru"),
            ])),
            Lang::Ru
        );
        // A choice we do not speak is no choice.
        assert_eq!(
            lang_of(&headers(&[
                (header::ACCEPT_LANGUAGE, "nl"),
                (header::COOKIE, "muster-lang=xx"),
            ])),
            Lang::Nl
        );
    }
}
