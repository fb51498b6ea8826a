//! The wall clock of the rules that count in hours and days (limits and their
//! cooling-off, breaks and self-exclusion, reality checks, lock-outs, idle sessions):
//! one source for the whole server, which a test lab can move forward.
//!
//! It is the system's clock plus an offset that only grows. The offset is moved by
//! `POST /api/test/clock` (`{"advance_secs": N}`), which exists only in the test mode
//! (`felt serve --test-shoes`, loopback only) and only for an operator's session, so a
//! lab can see a 24-hour cooling-off end without waiting a day. The round timers of a
//! table (betting window, decisions) run on `Instant` and are not moved.

use crate::app::Shared;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The most one request may move the clock: a year.
const MAX_ADVANCE_SECS: i64 = 366 * 24 * 3600;

/// The server's wall clock: the system's, plus the offset a test lab moved it by.
#[derive(Debug, Default)]
pub struct Clock {
    offset_ms: AtomicI64,
}

impl Clock {
    /// The system's clock, not moved.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// Now, in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        system.saturating_add(self.offset_ms.load(Ordering::SeqCst))
    }

    /// Moves the clock forward by `ms` (never back: nothing that has happened can
    /// come after now).
    pub fn advance_ms(&self, ms: i64) {
        self.offset_ms.fetch_add(ms.max(0), Ordering::SeqCst);
    }

    /// How far the clock has been moved, in milliseconds.
    pub fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::SeqCst)
    }
}

/// The body of `POST /api/test/clock`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdvanceBody {
    /// Seconds to move the clock forward (1 to a year).
    advance_secs: i64,
}

/// `POST /api/test/clock`: moves the server's clock forward (test mode only).
pub async fn advance(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<AdvanceBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let refuse = |status: StatusCode, code: &str, message: String| {
        (status, Json(json!({"error": code, "message": message}))).into_response()
    };
    if let Err(refused) = crate::test_shoes::admitted(&s, &headers).await {
        return refused;
    }
    let secs = match body {
        Ok(Json(b)) if (1..=MAX_ADVANCE_SECS).contains(&b.advance_secs) => b.advance_secs,
        Ok(Json(b)) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "bad-request",
                format!(
                    "advance_secs {} is out of range: 1 to {MAX_ADVANCE_SECS} (the clock only moves forward)",
                    b.advance_secs
                ),
            )
        }
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "bad-request",
                format!(
                    "the body must be JSON {{\"advance_secs\": N}}: {}",
                    e.body_text()
                ),
            )
        }
    };
    s.clock().advance_ms(secs * 1000);
    tracing::warn!(
        secs,
        offset_ms = s.clock().offset_ms(),
        "test mode: the clock moved forward"
    );
    Json(json!({"now_ms": s.clock().now_ms(), "offset_ms": s.clock().offset_ms()})).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_moves_forward_only_and_by_what_it_is_told() {
        let c = Clock::system();
        let before = c.now_ms();
        c.advance_ms(86_400_000);
        c.advance_ms(-5_000);
        assert_eq!(c.offset_ms(), 86_400_000);
        let after = c.now_ms();
        assert!(after - before >= 86_400_000, "{before} -> {after}");
        assert!(after - before < 86_400_000 + 60_000, "{before} -> {after}");
    }
}
