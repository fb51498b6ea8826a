//! State-changing requests only from the server's own pages: a request other than GET,
//! HEAD or OPTIONS is refused with `403 cross-origin` when its `Origin` is another
//! site's (another port of the same host included) or its `Sec-Fetch-Site` says
//! `cross-site` or `same-site`, and with `415 bad-content-type` unless its body is
//! `application/json` (which another site's page cannot send without the browser
//! asking first, and this server answers no such preflight). A client that is not a
//! browser sends neither header: it has no victim's cookie to ride on.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// The middleware (with the server's public URL as its state).
pub async fn check(State(public_url): State<String>, req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    if let Some(why) = refusal(req.headers(), &public_url) {
        return why;
    }
    next.run(req).await
}

/// Why a state-changing request with these headers is refused, if it is.
fn refusal(headers: &HeaderMap, public_url: &str) -> Option<Response> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let cross_site = matches!(
        text("sec-fetch-site")
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("cross-site" | "same-site")
    );
    let foreign = text(header::ORIGIN.as_str())
        .is_some_and(|o| !own_origin(o, text(header::HOST.as_str()), public_url));
    if cross_site || foreign {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            "cross-origin",
            "a request from another site's page is refused: use this server's own page",
        ));
    }
    let json = text(header::CONTENT_TYPE.as_str())
        .and_then(|c| c.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Some(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "bad-content-type",
            "a request that changes something has a JSON body (content-type: application/json)",
        ));
    }
    None
}

/// Whether `origin` is the server's own: the `Host` the request was sent to, or the
/// public URL's scheme, host and port.
pub fn own_origin(origin: &str, host: Option<&str>, public_url: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    let public = public_url
        .split_once("://")
        .map(|(scheme, rest)| {
            let authority = rest.split('/').next().unwrap_or(rest);
            format!("{scheme}://{authority}")
        })
        .unwrap_or_default();
    if !public.is_empty() && origin.eq_ignore_ascii_case(&public) {
        return true;
    }
    let stripped = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    matches!((stripped, host), (Some(o), Some(h)) if !h.is_empty() && o.eq_ignore_ascii_case(h))
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({"error": code, "message": message}))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (k, v) in pairs {
            m.insert(*k, v.parse().unwrap());
        }
        m
    }

    const URL: &str = "https://casino.example/";

    #[test]
    fn the_own_origin_is_the_host_or_the_public_url() {
        assert!(own_origin(
            "http://127.0.0.1:8080",
            Some("127.0.0.1:8080"),
            URL
        ));
        assert!(own_origin(
            "https://casino.example",
            Some("10.0.0.5:8080"),
            URL
        ));
        assert!(!own_origin(
            "http://127.0.0.1:9999",
            Some("127.0.0.1:8080"),
            URL
        ));
        assert!(!own_origin("null", Some("127.0.0.1:8080"), URL));
        assert!(!own_origin("http://evil.example", None, URL));
    }

    #[test]
    fn another_site_or_a_body_not_json_is_refused() {
        let json = ("content-type", "application/json; charset=utf-8");
        let status = |m: HeaderMap| refusal(&m, URL).map(|r| r.status().as_u16());
        assert_eq!(status(h(&[json])), None, "no browser headers: a bot");
        let own = ("origin", "https://casino.example");
        assert_eq!(
            status(h(&[json, own, ("sec-fetch-site", "same-origin")])),
            None
        );
        assert_eq!(
            status(h(&[json, ("origin", "http://evil.example")])),
            Some(403)
        );
        assert_eq!(
            status(h(&[json, ("sec-fetch-site", "same-site")])),
            Some(403)
        );
        assert_eq!(
            status(h(&[json, ("sec-fetch-site", "cross-site")])),
            Some(403)
        );
        assert_eq!(status(h(&[own, ("content-type", "text/plain")])), Some(415));
        assert_eq!(status(h(&[own])), Some(415));
    }
}
