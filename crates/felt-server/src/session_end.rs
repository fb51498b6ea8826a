//! A player's web sessions end at the standards' triggers (N.J.A.C. 13:69O-1.4(g);
//! issue 26 item 4): a break or a self-exclusion, an operator's exclusion, an
//! operator's request (`POST /api/operator/players/NAME/logout`, written to the audit
//! log first) and a password change (`POST /api/password`: the player's other
//! sessions end). The sessions close in the books (a table socket on any server
//! closes at its next check of the session, every 5 seconds, and leaves the seat when
//! no session of the player stands), this server's table sockets close at once, and a
//! seat is left as a break leaves it: at the end of the round in play.
//!
//! The logged-in time of the sessions is counted before they close
//! ([`crate::logged_in`]).

use crate::app::{operator, store_error, who, ApiError, Shared};
use crate::audit::AuditAction;
use crate::auth;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

/// Ends every web session of `player` but `keep` (a token's hash), with `reason` for
/// the sockets that close; returns how many sessions ended.
pub(crate) async fn end_sessions(
    s: &Shared,
    player: &str,
    keep: Option<String>,
    reason: &str,
) -> Result<u64, ApiError> {
    let (life, now, name) = (crate::app::life(s), s.now_ms(), player.to_string());
    let kept = keep.clone();
    let closed = s
        .books()
        .run(move |st| -> felt_store::Result<u64> {
            crate::logged_in::record(st, &name, life, now)?;
            st.close_web_sessions_of(&name, kept.as_deref())
        })
        .await
        .map_err(store_error)?;
    s.sockets().close_account(player, keep.as_deref(), reason);
    Ok(closed)
}

/// Tells the table `player` sits at here (if any) that they may not play on, saying
/// `reason`: the round they play finishes, then the seat is left
/// ([`crate::table::ToTable::Stop`]).
pub(crate) fn leave_seat(s: &Shared, player: &str, reason: &str) {
    if let Some(h) = s.table_of(player) {
        let _ = h.tx.send(crate::table::ToTable::Stop {
            player: player.to_string(),
            reason: reason.to_string(),
        });
    }
}

/// The body of `POST /api/operator/players/NAME/logout`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogoutBody {
    /// Why (required: it goes to the audit log).
    pub reason: String,
}

/// The answer of an operator's log-out or a password change.
#[derive(Debug, Serialize)]
pub struct Ended {
    /// The player.
    pub player: String,
    /// How many of their web sessions ended.
    pub sessions_ended: u64,
}

fn bad(message: &str) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, "bad-request", message.to_string())
}

/// `POST /api/operator/players/NAME/logout`: an operator ends every session of a
/// player (written to the audit log with who, when and why first); the player's seat
/// is left when their round ends, and they may log in again.
pub(crate) async fn operator_logout(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: Result<Json<LogoutBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let by = operator(&s, &headers).await?;
    let Json(body) = body.map_err(|_| bad("the body must be {\"reason\": \"...\"}"))?;
    if body.reason.trim().is_empty() {
        return Err(bad("an operator's log-out needs a reason"));
    }
    let name = felt_store::normalize_name("player", &name)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, "bad-name", e.to_string()))?;
    let n = name.clone();
    let known = s
        .books()
        .read_async(move |st| st.login(&n))
        .await
        .map_err(store_error)?;
    if known.is_none() {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "no-player",
            format!("there is no account `{name}`"),
        ));
    }
    let detail = format!("ended the sessions: {}", body.reason);
    crate::audit::record(&s, &by.name, AuditAction::EndSessions, &name, detail).await?;
    let reason = "the operator has ended your session: log in again to play";
    let ended = end_sessions(&s, &name, None, reason).await?;
    leave_seat(&s, &name, reason);
    tracing::warn!(player = %name, operator = %by.name, ended, "sessions ended by an operator");
    Ok(Json(Ended {
        player: name,
        sessions_ended: ended,
    })
    .into_response())
}

/// The body of `POST /api/password`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordBody {
    /// The password now.
    pub current: String,
    /// The new one.
    pub new: String,
}

/// `POST /api/password`: the player changes their password (the current one checked);
/// every other session of theirs ends, this one stays.
pub(crate) async fn change_password(
    State(s): State<Shared>,
    crate::accounts::ClientIp(ip): crate::accounts::ClientIp,
    headers: HeaderMap,
    body: Result<Json<PasswordBody>, JsonRejection>,
) -> Result<Response, Response> {
    let w = who(&s, &headers)
        .await
        .map_err(IntoResponse::into_response)?;
    if s.wallet().is_some() && w.role == felt_store::Role::Player {
        // The operator keeps its players' credentials.
        return Err(crate::wallet::launch::refused_in_wallet_mode(
            "a password change",
        ));
    }
    let Json(body) = body.map_err(|_| {
        bad("the body must be {\"current\": \"...\", \"new\": \"...\"}").into_response()
    })?;
    if let Some(p) = auth::password_problem(&w.name, &body.new) {
        return Err(ApiError(StatusCode::BAD_REQUEST, "bad-password", p).into_response());
    }
    let busy = |_| {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "the server is checking too many passwords at once: try again in a moment".into(),
        )
        .into_response()
    };
    // The current password is checked as a log-in checks it: the address's throttle,
    // the account's lock, and a wrong one counted towards it.
    s.guard()
        .begin_login(ip)
        .map_err(|wait| crate::accounts::throttled(wait, "failed log-ins"))?;
    let (login, held) = match crate::accounts::check_password(&s, ip, &w.name, body.current).await {
        Ok(checked) => checked,
        Err(crate::accounts::Refusal::Wrong) => {
            return Err(ApiError(
                StatusCode::FORBIDDEN,
                "bad-login",
                "the current password is wrong: nothing changed".into(),
            )
            .into_response())
        }
        Err(crate::accounts::Refusal::Other(r)) => return Err(r),
    };
    let hasher = s.guard().hasher();
    let new = body.new;
    let hash = hasher
        .run(move || auth::hash_password(&new))
        .await
        .map_err(busy)?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e).into_response())?;
    let (n, role) = (w.name.clone(), login.role);
    s.books()
        .run(move |st| st.set_login(&n, &hash, role))
        .await
        .map_err(|e| store_error(e).into_response())?;
    drop(held);
    let reason = "your password was changed: log in again with the new one";
    let ended = end_sessions(&s, &w.name, auth::session_hash(&headers), reason)
        .await
        .map_err(IntoResponse::into_response)?;
    tracing::info!(player = %w.name, ended, "password changed");
    Ok(Json(Ended {
        player: w.name,
        sessions_ended: ended,
    })
    .into_response())
}
