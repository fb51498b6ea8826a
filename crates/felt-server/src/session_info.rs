//! The log-in session as the player sees it (docs/protocol.md, "Session and reality
//! checks"): `GET /api/session` (the time since log-in, the amount staked, the net,
//! the reality check's schedule and the operator's help line), `PUT
//! /api/session/reality-check` (the player's interval) and `POST
//! /api/session/reality-check` (the answer: continue, or log out).

use crate::app::{store_error, who, ApiError, Shared, Who};
use crate::reality::{Figures, IntervalRefused, RealityPolicy, Schedule};
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

/// The player-protection settings of `felt serve` that this module serves.
#[derive(Debug, Clone)]
pub struct Protection {
    /// The reality check's intervals.
    pub reality: RealityPolicy,
    /// The responsible-gambling message shown at log-in and log-out.
    pub help_line: String,
    /// A session ends this long after its log-in, used or not (ms).
    pub session_max_ms: i64,
}

/// New Jersey's wording (N.J.S.A. 5:12-95.25, N.J.A.C. 13:69O-1.2(b)).
pub const DEFAULT_HELP_LINE: &str =
    "If you or someone you know has a gambling problem and wants help, call 1-800-GAMBLER.";

impl Default for Protection {
    fn default() -> Protection {
        Protection {
            reality: RealityPolicy::default(),
            help_line: DEFAULT_HELP_LINE.to_string(),
            session_max_ms: 12 * 3600 * 1000,
        }
    }
}

/// The reality check as `GET /api/session` gives it.
#[derive(Debug, Serialize)]
pub struct RealityView {
    /// The player's interval (minutes).
    pub interval_mins: u32,
    /// The intervals the player may choose.
    pub choices: Vec<u32>,
    /// Whether a check waits for an answer (bets are refused until then).
    pub due: bool,
    /// When the next check falls due (ms since the epoch).
    pub due_at_ms: i64,
}

/// The body of `GET /api/session`.
#[derive(Debug, Serialize)]
pub struct SessionView {
    /// The player.
    pub player: String,
    /// When they logged in (ms since the epoch, the server's clock).
    pub login_ms: i64,
    /// Now on the server's clock (the page counts from it, not from its own clock).
    pub now_ms: i64,
    /// Milliseconds since the log-in.
    pub elapsed_ms: i64,
    /// Staked, returned and net since the log-in.
    #[serde(flatten)]
    pub figures: Figures,
    /// The reality check.
    pub reality_check: RealityView,
    /// The operator's responsible-gambling message.
    pub help_line: String,
}

/// The log-in session of `w`: its schedule and its figures, in one read of the books
/// (the page asks every few seconds); a schedule is begun, through the books' writer,
/// only for a session opened before the books kept one.
async fn view(s: &Shared, w: &Who) -> Result<SessionView, ApiError> {
    let (name, since) = (w.name.clone(), w.since_ms);
    let (reality, n) = (s.reality().clone(), name.clone());
    let kept = s
        .books()
        .read_async(
            move |st| -> felt_store::Result<Option<(Schedule, Figures)>> {
                let Some(sched) = reality.kept(st, &n)? else {
                    return Ok(None);
                };
                let figures = crate::reality::figures(st, &n, sched.first_round)?;
                Ok(Some((sched, figures)))
            },
        )
        .await
        .map_err(store_error)?;
    let (sched, figures) = match kept {
        Some(kept) => kept,
        None => {
            let (reality, n) = (s.reality().clone(), name.clone());
            let sched: Schedule = s
                .books()
                .run(move |st| {
                    let first = st.next_round_id()?;
                    reality.schedule(st, &n, since, first)
                })
                .await
                .map_err(store_error)?;
            let figures = s
                .books()
                .read_async(move |st| crate::reality::figures(st, &name, sched.first_round))
                .await
                .map_err(store_error)?;
            (sched, figures)
        }
    };
    let now = s.now_ms();
    let policy = s.reality().policy();
    Ok(SessionView {
        player: w.name.clone(),
        login_ms: sched.login_ms,
        now_ms: now,
        elapsed_ms: now.saturating_sub(sched.login_ms).max(0),
        figures,
        reality_check: RealityView {
            interval_mins: sched.interval_mins,
            choices: policy.choices(),
            due: sched.is_due(now),
            due_at_ms: sched.due_ms(),
        },
        help_line: s.settings().protection.help_line.clone(),
    })
}

/// `GET /api/help-line`: the operator's responsible-gambling message (no session
/// asked: the log-in page shows it).
pub(crate) async fn help_line(State(s): State<Shared>) -> Response {
    Json(serde_json::json!({"help_line": s.settings().protection.help_line})).into_response()
}

/// `GET /api/session`.
pub(crate) async fn session(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    Ok(Json(view(&s, &w).await?).into_response())
}

/// The body of `PUT /api/session/reality-check`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalBody {
    /// Minutes between checks.
    interval_mins: u32,
}

/// `PUT /api/session/reality-check`: the player's interval.
pub(crate) async fn set_interval(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<IntervalBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let Json(b) = body.map_err(|e| bad_request("{\"interval_mins\": N}", &e))?;
    // The schedule exists (begun here if not yet).
    view(&s, &w).await?;
    let (reality, name, now) = (s.reality().clone(), w.name.clone(), s.now_ms());
    let chosen = s
        .books()
        .run(move |st| reality.set_interval(st, &name, b.interval_mins, now))
        .await
        .map_err(store_error)?;
    match chosen {
        Ok(_) => Ok(Json(view(&s, &w).await?).into_response()),
        Err(IntervalRefused::OutOfRange(p)) => Err(ApiError(
            StatusCode::BAD_REQUEST,
            "bad-interval",
            format!(
                "a reality check every {} minutes is not offered: choose {} to {} minutes",
                b.interval_mins, p.min_mins, p.max_mins
            ),
        )),
        Err(IntervalRefused::CheckDue) => Err(due()),
    }
}

/// The answer to a reality check.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// Play on: the next check is an interval from now.
    Continue,
    /// End the session (as `POST /api/logout`).
    LogOut,
}

/// The body of `POST /api/session/reality-check`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// The answer.
    answer: Answer,
}

/// `POST /api/session/reality-check`: the player's answer.
pub(crate) async fn answer(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<AnswerBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let Json(b) = body.map_err(|e| {
        bad_request(
            "{\"answer\": \"continue\"} or {\"answer\": \"log-out\"}",
            &e,
        )
    })?;
    match b.answer {
        Answer::LogOut => {
            tracing::info!(player = %w.name, "logged out at a reality check");
            Ok(crate::accounts::logout(State(s), headers).await)
        }
        Answer::Continue => {
            let (reality, name, now) = (s.reality().clone(), w.name.clone(), s.now_ms());
            let answered = s
                .books()
                .run(move |st| reality.answer_continue(st, &name, now))
                .await
                .map_err(store_error)?;
            if !answered {
                return Err(ApiError(
                    StatusCode::CONFLICT,
                    "no-reality-check",
                    "no reality check is waiting for an answer".to_string(),
                ));
            }
            tracing::info!(player = %w.name, "went on after a reality check");
            Ok(Json(view(&s, &w).await?).into_response())
        }
    }
}

/// `409 reality-check`: a check waits for its answer first.
fn due() -> ApiError {
    ApiError(
        StatusCode::CONFLICT,
        "reality-check",
        "a reality check is waiting: answer it (continue, or log out) first".to_string(),
    )
}

fn bad_request(shape: &str, e: &JsonRejection) -> ApiError {
    ApiError(
        StatusCode::BAD_REQUEST,
        "bad-request",
        format!("the body must be JSON {shape}: {}", e.body_text()),
    )
}
