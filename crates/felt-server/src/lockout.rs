//! Account lock-out (issue 26, item 4; docs/server.md, "Log-in"): after
//! [`felt_store::LockPolicy::after`] failed log-ins in a row an account is refused,
//! even with its right password, until the lock ends (`felt serve --lock-mins`; 0:
//! never by itself) or an operator lifts it (`POST
//! /api/operator/players/NAME/unlock`).

use crate::app::{operator, store_error, ApiError, Shared};
use crate::audit::AuditAction;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// A lock's length that never ends by itself: only an operator lifts it.
pub const UNTIL_LIFTED: i64 = i64::MAX;

/// Locks ending after this (ms since the epoch; the year 9999) are "until lifted".
const FOREVER_MS: i64 = 253_402_300_800_000;

/// `403 account-locked`: the account is locked until `until_ms` (or until lifted).
pub(crate) fn refused(until_ms: Option<i64>) -> Response {
    let when = match until_ms {
        Some(t) if t < FOREVER_MS => format!("until {}", crate::accounts::iso(t)),
        _ => "until an operator lifts the lock".to_string(),
    };
    ApiError(
        StatusCode::FORBIDDEN,
        "account-locked",
        format!(
            "this account is locked after too many failed log-ins, {when}: ask the operator to \
             lift it"
        ),
    )
    .into_response()
}

/// `POST /api/operator/players/NAME/unlock`: lifts the lock of `NAME` and clears its
/// failures (an operator's session only), written to the audit log first
/// ([`crate::audit`]: who, when, and the lock it had).
pub(crate) async fn unlock(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let by = operator(&s, &headers).await?;
    let name = felt_store::normalize_name("player", &name)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, "bad-name", e.to_string()))?;
    let n = name.clone();
    let Some(before) = s
        .books()
        .read_async(move |st| st.login(&n))
        .await
        .map_err(store_error)?
    else {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "no-player",
            format!("there is no account `{name}`"),
        ));
    };
    let was_locked = before.is_locked(s.now_ms());
    let detail = match before.locked_until_ms {
        Some(t) if was_locked && t < FOREVER_MS => {
            format!(
                "lifted the lock-out (locked until {})",
                crate::accounts::iso(t)
            )
        }
        Some(_) if was_locked => "lifted the lock-out (locked until lifted)".to_string(),
        _ => format!(
            "cleared the failed log-ins ({} in a row; not locked)",
            before.failed_logins
        ),
    };
    crate::audit::record(&s, &by.name, AuditAction::UnlockPlayer, &name, detail).await?;
    let n = name.clone();
    s.books()
        .run(move |st| st.unlock_login(&n))
        .await
        .map_err(store_error)?;
    tracing::warn!(player = %name, operator = %by.name, was_locked, "lock lifted");
    Ok(Json(json!({"player": name, "was_locked": was_locked})).into_response())
}
