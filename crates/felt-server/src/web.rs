//! The browser table: the page and its assets, embedded in the binary (plain HTML, CSS
//! and ES modules under `crates/felt-server/web/`, no build step), served at `/` and
//! `/assets/FILE`.
//!
//! The page speaks only the documented protocol (`docs/protocol.md`): the HTTP API
//! for accounts, the lobby, rules and recall, and the table's WebSocket. Every answer
//! carries a strict Content-Security-Policy (scripts and styles from this server
//! only, no inline script, no frames) and `Cache-Control: no-cache` with an `ETag`,
//! so a browser revalidates (a `304` when nothing changed) and never runs an old
//! script against a newer server.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The page's Content-Security-Policy.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// One embedded file.
struct Asset {
    /// Its name under `/assets/` (or `index.html`, served at `/`).
    name: &'static str,
    /// Its content type.
    mime: &'static str,
    /// Its bytes.
    body: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $mime:expr) => {
        Asset {
            name: $name,
            mime: $mime,
            body: include_bytes!(concat!("../web/", $name)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// Every file the page uses.
static ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("favicon.svg", "image/svg+xml"),
    asset!("app.js", JS),
    asset!("api.js", JS),
    asset!("money.js", JS),
    asset!("cards.js", JS),
    asset!("dom.js", JS),
    asset!("lobby.js", JS),
    asset!("table.js", JS),
    asset!("panels.js", JS),
    asset!("pacing.js", JS),
    asset!("settings.js", JS),
    asset!("sound.js", JS),
    asset!("results.js", JS),
    asset!("words.js", JS),
    asset!("betting.js", JS),
    asset!("session.js", JS),
    asset!("speech.js", JS),
    asset!("feed.js", JS),
    asset!("topup.js", JS),
    asset!("hint.js", JS),
    asset!("leaving.js", JS),
    asset!("reality.js", JS),
    asset!("limits.js", JS),
];

/// Each asset's entity tag (its SHA-256, shortened), computed once.
fn etags() -> &'static [String] {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                let h = Sha256::digest(a.body);
                let hex: String = h[..12].iter().map(|b| format!("{b:02x}")).collect();
                format!("\"{hex}\"")
            })
            .collect()
    })
}

/// The page's routes (`/`, `/assets/FILE`), to merge into the server's router.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/assets/{file}", get(file))
}

async fn index(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

async fn file(
    axum::extract::Path(name): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    if name == "index.html" {
        return not_found();
    }
    serve(&name, &headers)
}

fn not_found() -> Response {
    let mut r = (StatusCode::NOT_FOUND, "not found\n").into_response();
    secure(r.headers_mut());
    r
}

/// The security headers every page answer carries.
fn secure(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// An asset by name, or `304` if the browser's copy is current, or `404`.
fn serve(name: &str, headers: &HeaderMap) -> Response {
    let Some(i) = ASSETS.iter().position(|a| a.name == name) else {
        return not_found();
    };
    let asset = &ASSETS[i];
    let tag = &etags()[i];
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut r = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(header::CONTENT_TYPE, HeaderValue::from_static(asset.mime))],
            asset.body,
        )
            .into_response()
    };
    let h = r.headers_mut();
    secure(h);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(tag) {
        h.insert(header::ETAG, v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_named_once_and_the_page_loads_only_embedded_modules() {
        let names: Vec<&str> = ASSETS.iter().map(|a| a.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        // Every module a script imports is embedded.
        for a in ASSETS.iter().filter(|a| a.name.ends_with(".js")) {
            let text = std::str::from_utf8(a.body).unwrap();
            for line in text.lines().filter(|l| l.starts_with("import ")) {
                let file = line
                    .rsplit("'./")
                    .next()
                    .and_then(|s| s.split('\'').next())
                    .unwrap_or("");
                assert!(names.contains(&file), "{}: {line}", a.name);
            }
        }
        let html = std::str::from_utf8(ASSETS[0].body).unwrap();
        assert!(!html.contains("<script>"), "no inline script");
        assert!(html.contains("src=\"/assets/app.js\""));
    }
}
