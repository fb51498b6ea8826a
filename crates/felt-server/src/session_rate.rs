//! How fast one session may use the API: every request that carries a session cookie
//! is counted against that session (its token's hash) before any handler reads the
//! books, in a fixed window of a minute: [`SessionRate::requests_per_min`] requests of
//! any kind, of which [`SessionRate::writes_per_min`] may change something (a method
//! other than GET, HEAD or OPTIONS: limits, breaks, the reality check, a password, a
//! top-up, an operator's action). Past either, `429 rate-limited` with `Retry-After`,
//! and nothing is read or written. A log-out is never refused; log-ins and
//! registrations have their own throttle ([`crate::guard`]), the table's socket its own
//! message rate. Memory is bounded: at most [`SessionRate::max_sessions`] sessions are
//! remembered, the oldest window forgotten first.

use crate::auth;
use crate::guard::Window;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The limits of one session's requests.
#[derive(Debug, Clone, Copy)]
pub struct SessionRate {
    /// Requests of any kind a session may make in a minute.
    pub requests_per_min: u32,
    /// Requests that change something a session may make in a minute.
    pub writes_per_min: u32,
    /// Sessions remembered at most.
    pub max_sessions: usize,
}

impl Default for SessionRate {
    fn default() -> SessionRate {
        SessionRate {
            // The page asks for a few things a minute (its session bar, the lobby,
            // the history); a person changes a setting a few times.
            requests_per_min: 600,
            writes_per_min: 60,
            max_sessions: 100_000,
        }
    }
}

const MINUTE: Duration = Duration::from_secs(60);

/// The counters of every session (the middleware's state).
#[derive(Debug)]
pub struct Counters {
    requests: Mutex<Window<u128>>,
    writes: Mutex<Window<u128>>,
}

impl Counters {
    /// Counters with these limits.
    pub fn new(limits: SessionRate) -> Arc<Counters> {
        let cap = limits.max_sessions;
        Arc::new(Counters {
            requests: Mutex::new(Window::new(limits.requests_per_min, MINUTE, cap)),
            writes: Mutex::new(Window::new(limits.writes_per_min, MINUTE, cap)),
        })
    }

    /// Counts a request of session `key`; how long until it may ask again if refused.
    fn take(&self, key: u128, write: bool, now: Instant) -> Result<(), Duration> {
        let lock = |m: &Mutex<Window<u128>>| {
            let mut w = m.lock().unwrap_or_else(|p| p.into_inner());
            w.take(key, now)
        };
        lock(&self.requests)?;
        if write {
            if let Err(wait) = lock(&self.writes) {
                // A refused write is no request either.
                self.requests
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .give_back(key);
                return Err(wait);
            }
        }
        Ok(())
    }
}

/// Paths outside the count: a log-out is never refused; log-ins and registrations
/// have their own throttle; the test mode's routes are loopback only.
fn exempt(path: &str) -> bool {
    matches!(path, "/api/logout" | "/api/login" | "/api/register")
        || path.starts_with("/api/test/")
        || !path.starts_with("/api/")
}

/// A session's key: the first 128 bits of its token's hash.
fn key(hash: &str) -> u128 {
    hash.get(..32)
        .and_then(|h| u128::from_str_radix(h, 16).ok())
        .unwrap_or(0)
}

/// The middleware.
pub async fn check(State(counters): State<Arc<Counters>>, req: Request, next: Next) -> Response {
    if exempt(req.uri().path()) {
        return next.run(req).await;
    }
    let Some(hash) = auth::session_hash(req.headers()) else {
        return next.run(req).await;
    };
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    match counters.take(key(&hash), write, Instant::now()) {
        Ok(()) => next.run(req).await,
        Err(wait) => refused(wait, write),
    }
}

fn refused(wait: Duration, write: bool) -> Response {
    let secs = wait.as_secs().max(1);
    let what = if write { "changes" } else { "requests" };
    let mut r = (
        StatusCode::TOO_MANY_REQUESTS,
        Json(json!({
            "error": "rate-limited",
            "message": format!("too many {what} from this session: try again in {secs} s"),
        })),
    )
        .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_write_counts_as_no_request_and_other_sessions_are_untouched() {
        let c = Counters::new(SessionRate {
            requests_per_min: 3,
            writes_per_min: 1,
            max_sessions: 10,
        });
        let now = Instant::now();
        assert!(c.take(1, true, now).is_ok());
        assert!(c.take(1, true, now).is_err());
        // The refused write took no request: two reads still go.
        assert!(c.take(1, false, now).is_ok());
        assert!(c.take(1, false, now).is_ok());
        assert!(c.take(1, false, now).is_err());
        assert!(c.take(2, true, now).is_ok());
        // A minute later the window is new.
        assert!(c.take(1, true, now + MINUTE).is_ok());
    }

    #[test]
    fn the_key_is_the_hash_s_first_128_bits_and_the_exempt_paths_are_few() {
        assert_eq!(
            key(&"ab".repeat(32)),
            u128::from_str_radix(&"ab".repeat(16), 16).unwrap()
        );
        assert_eq!(key("short"), 0);
        assert!(exempt("/api/logout") && exempt("/") && exempt("/api/test/clock"));
        assert!(!exempt("/api/limits") && !exempt("/api/session"));
    }
}
