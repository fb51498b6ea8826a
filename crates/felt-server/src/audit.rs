//! The audit log of operator actions, and of a player's review of their limits (GLI-19 2.8.8, 2.9.5, A.6.3; issue 26 item 4):
//! who did what to which player or table, and when (the server's clock), written to
//! the books before the action is carried out, so an action the log lacks did not
//! happen. `GET /api/operator/audit` lists it (an operator's session).

use crate::app::{operator, store_error, ApiError, Shared};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_store::{AuditEntry, AuditQuery, NewAuditEntry, SYSTEM_ACTOR};
use serde::{Deserialize, Serialize};

/// The most entries one answer of `GET /api/operator/audit` lists (the newest).
pub const AUDIT_PAGE: usize = 1_000;

/// What an operator (or the server) did, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditAction {
    /// Closed a table.
    CloseTable,
    /// Excluded a player.
    ExcludePlayer,
    /// Lifted a player's lock-out ([`crate::lockout`]).
    UnlockPlayer,
    /// Ended a player's sessions ([`crate::session_end`]).
    EndSessions,
    /// A player reviewed their limits and kept them ([`crate::limits::review_due`]).
    ReviewLimits,
}

impl AuditAction {
    /// The action as the log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::CloseTable => "close-table",
            AuditAction::ExcludePlayer => "exclude-player",
            AuditAction::UnlockPlayer => "unlock-player",
            AuditAction::EndSessions => "end-sessions",
            AuditAction::ReviewLimits => "review-limits",
        }
    }
}

/// The protection settings `settings` as one sentence for the log.
pub fn settings_detail(settings: &crate::app::Settings) -> String {
    let lock = if settings.lock.for_ms == crate::lockout::UNTIL_LIFTED {
        "until an operator lifts it".to_string()
    } else {
        format!("for {} min", settings.lock.for_ms / 60_000)
    };
    let r = &settings.protection.reality;
    format!(
        "sessions end after {} min unused and {} h after log-in; {} failed log-ins lock \
         an account {lock}; a reality check every {} min by default, {} to {} min; the \
         help line: {}",
        settings.idle_ms / 60_000,
        settings.protection.session_max_ms / 3_600_000,
        settings.lock.after,
        r.default_mins,
        r.min_mins,
        r.max_mins,
        settings.protection.help_line,
    )
}

/// Writes the settings a server starts with (`server-settings`, by [`SYSTEM_ACTOR`],
/// on the server's name): a change of a setting, made by starting the server with new
/// flags, is in the log with when. A server whose start the log cannot keep does not
/// start.
pub(crate) fn record_settings(
    books: &crate::books::Books,
    server: &str,
    settings: &crate::app::Settings,
    at_ms: i64,
) -> felt_store::Result<i64> {
    let detail = settings_detail(settings);
    books.with(|st| {
        st.append_audit(&NewAuditEntry {
            at_ms,
            actor: SYSTEM_ACTOR,
            action: "server-settings",
            subject: server,
            detail: &detail,
        })
    })
}

/// Writes one entry at the server's clock: `actor` did `action` to `subject`.
pub(crate) async fn record(
    s: &Shared,
    actor: &str,
    action: AuditAction,
    subject: &str,
    detail: String,
) -> Result<i64, ApiError> {
    let at_ms = s.now_ms();
    let (actor, subject) = (actor.to_string(), subject.to_string());
    s.books()
        .run(move |st| {
            st.append_audit(&NewAuditEntry {
                at_ms,
                actor: &actor,
                action: action.as_str(),
                subject: &subject,
                detail: &detail,
            })
        })
        .await
        .map_err(store_error)
}

/// The question of `GET /api/operator/audit`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditParams {
    /// On this player or table only.
    subject: Option<String>,
    /// At or after this time (Unix ms).
    since: Option<i64>,
}

/// The answer of `GET /api/operator/audit`.
#[derive(Debug, Serialize)]
pub struct AuditPage {
    /// The entries, oldest first (the newest [`AUDIT_PAGE`] of those asked for).
    pub entries: Vec<AuditEntry>,
}

/// `GET /api/operator/audit?subject=NAME&since=UNIX_MS`: the audit log, oldest first
/// (an operator's session).
pub(crate) async fn list(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<AuditParams>,
) -> Result<Response, ApiError> {
    operator(&s, &headers).await?;
    let query = AuditQuery {
        subject: q.subject,
        since_ms: q.since,
        limit: AUDIT_PAGE,
    };
    let entries = s
        .books()
        .read_async(move |st| st.audit_entries(&query))
        .await
        .map_err(store_error)?;
    Ok(Json(AuditPage { entries }).into_response())
}
