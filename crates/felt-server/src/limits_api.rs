//! The HTTP API of [`crate::limits`]: `GET`/`PUT /api/limits` (a player's limits,
//! pending changes and history), `POST /api/limits/break` (a break or a
//! self-exclusion) and `POST /api/operator/players/NAME/exclude` (an operator's
//! exclusion, written to the audit log).

use crate::app::{operator, store_error, who, ApiError, Shared};
use crate::audit::AuditAction;
use crate::limits::{self, Ask, Pending, Slot, BREAK_MS, SELF_EXCLUSION_MS};
use crate::logged_in::Life;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_core::Money;
use felt_store::{Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, Store};
use serde::{Deserialize, Serialize};

/// One limit as the API shows it.
#[derive(Debug, Serialize)]
pub struct LimitLine {
    /// What it caps.
    pub kind: LimitKind,
    /// Over which period.
    pub period: LimitPeriod,
    /// In effect: money (`"50.00"`) or, for time, `null` and `minutes`.
    pub amount: Option<Money>,
    /// A time limit in effect, in minutes.
    pub minutes: Option<i64>,
    /// Used this period: money, or minutes for time; `null` for a single-wager limit
    /// (period `bet`), which sums nothing.
    pub used: Option<String>,
    /// When this period resets (RFC 3339 UTC), for a limit in effect with a period.
    pub resets_at: Option<String>,
    /// An increase or removal waiting: `{"amount" | "minutes" | "remove", "effective_at",
    /// "confirmable"}`.
    pub pending: Option<PendingLine>,
}

/// A pending change as the API shows it.
#[derive(Debug, Serialize)]
pub struct PendingLine {
    /// The amount asked for (`null` with `remove`).
    pub amount: Option<Money>,
    /// The minutes asked for (a time limit).
    pub minutes: Option<i64>,
    /// The limit is to be removed.
    pub remove: bool,
    /// From when the player may confirm it (RFC 3339 UTC).
    pub effective_at: String,
    /// Whether it may be confirmed now (send the same change again).
    pub confirmable: bool,
}

/// One row of a limit's history.
#[derive(Debug, Serialize)]
pub struct HistoryLine {
    /// What it caps.
    pub kind: LimitKind,
    /// Over which period.
    pub period: LimitPeriod,
    /// The amount (money, or seconds for time as a number), `null`: removed.
    pub amount: Option<i64>,
    /// When it was asked (RFC 3339 UTC).
    pub requested_at: String,
    /// When it took or takes effect (RFC 3339 UTC).
    pub effective_at: String,
}

/// A break or an exclusion as the API shows it.
#[derive(Debug, Serialize)]
pub struct BlockLine {
    /// Which.
    pub kind: ExclusionKind,
    /// Until when (RFC 3339 UTC), `null`: for good.
    pub until: Option<String>,
    /// The sentence a player reads.
    pub message: String,
}

/// The answer of `GET`/`PUT /api/limits`.
#[derive(Debug, Serialize)]
pub struct LimitsPage {
    /// Every limit set or pending, by kind and period.
    pub limits: Vec<LimitLine>,
    /// Every change, oldest first.
    pub history: Vec<HistoryLine>,
    /// The break or exclusion that holds now, if any.
    pub blocked: Option<BlockLine>,
}

/// One limit the player asks for in `PUT /api/limits` (or at registration).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitAsk {
    /// What it caps.
    pub kind: LimitKind,
    /// Over which period.
    pub period: LimitPeriod,
    /// The amount (money limits).
    #[serde(default)]
    pub amount: Option<Money>,
    /// The minutes (a time limit).
    #[serde(default)]
    pub minutes: Option<u32>,
    /// Remove the limit (after the cooling-off and a confirmation).
    #[serde(default)]
    pub remove: bool,
}

/// The body of `PUT /api/limits`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsBody {
    /// The limits to set, change or remove (others are left as they are).
    pub limits: Vec<LimitAsk>,
}

fn bad(message: String) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, "bad-request", message)
}

/// `player-blocked`: the sentence of `e`, then `tail`.
fn blocked_error(status: StatusCode, e: &Exclusion, tail: &str) -> ApiError {
    let m = format!("{}; {tail}", limits::exclusion_sentence(e));
    ApiError(status, "player-blocked", m)
}

fn iso(ms: i64) -> String {
    crate::accounts::iso(ms)
}

impl LimitAsk {
    /// What is asked, in the books' units (cents, or seconds for time).
    pub(crate) fn ask(&self) -> Result<Ask, ApiError> {
        let what = format!("the {} {} limit", self.period.as_str(), self.kind.as_str());
        if !self.period.fits(self.kind) {
            return Err(bad(format!(
                "{what} does not exist: period `bet` (each single wager) is for the wager \
                 limit only"
            )));
        }
        match (self.kind, self.amount, self.minutes, self.remove) {
            (_, None, None, true) => Ok(Ask::Remove),
            (LimitKind::Session, None, Some(m), false) if m >= 1 => Ok(Ask::Set(i64::from(m) * 60)),
            (LimitKind::Session, ..) => Err(bad(format!(
                "{what} is whole minutes (at least 1): {{\"minutes\": N}} or {{\"remove\": true}}"
            ))),
            (_, Some(a), None, false) if a >= Money::ZERO => Ok(Ask::Set(a.as_cents())),
            _ => Err(bad(format!(
                "{what} is an amount of at least 0.00: {{\"amount\": \"50.00\"}} or \
                 {{\"remove\": true}}"
            ))),
        }
    }
}

/// Shows `s` with what `player` used of it at `now_ms`.
fn line(
    store: &dyn Store,
    player: &str,
    s: &Slot,
    (life, now_ms): (Life, i64),
) -> felt_store::Result<LimitLine> {
    let time = s.kind == LimitKind::Session;
    let none = felt_store::UsageTotals::default();
    let window = s.window(now_ms);
    let used = match window {
        Some((start, _)) => {
            let used = limits::used(store, player, s.kind, start, none, life, now_ms)?;
            Some(match s.kind {
                LimitKind::Session => (used / 60).to_string(),
                _ => Money::cents(used).to_string(),
            })
        }
        None => None,
    };
    let pending = s.pending.map(
        |Pending {
             amount,
             effective_ms,
         }| PendingLine {
            amount: amount.filter(|_| !time).map(Money::cents),
            minutes: amount.filter(|_| time).map(|a| a / 60),
            remove: amount.is_none(),
            effective_at: iso(effective_ms),
            confirmable: now_ms >= effective_ms,
        },
    );
    Ok(LimitLine {
        kind: s.kind,
        period: s.period,
        amount: s.amount.filter(|_| !time).map(Money::cents),
        minutes: s.amount.filter(|_| time).map(|a| a / 60),
        used,
        resets_at: s.amount.and(window).map(|(_, resets)| iso(resets)),
        pending,
    })
}

/// The page of `player`'s limits at `now_ms`, sessions living `life`.
fn page(
    store: &dyn Store,
    player: &str,
    (life, now_ms): (Life, i64),
) -> felt_store::Result<LimitsPage> {
    let changes = store.limit_changes(player)?;
    let mut lines = Vec::new();
    for s in limits::slots(&changes) {
        if s.amount.is_some() || s.pending.is_some() {
            lines.push(line(store, player, &s, (life, now_ms))?);
        }
    }
    let blocked = limits::exclusion(store, player, now_ms)?.map(|e| BlockLine {
        kind: e.kind,
        until: e.until_ms.map(iso),
        message: limits::exclusion_sentence(&e),
    });
    Ok(LimitsPage {
        limits: lines,
        history: changes
            .iter()
            .map(|c| HistoryLine {
                kind: c.kind,
                period: c.period,
                amount: c.amount,
                requested_at: iso(c.requested_ms),
                effective_at: iso(c.effective_ms),
            })
            .collect(),
        blocked,
    })
}

/// The answer of the limits' endpoints: `player`'s limits page now.
async fn page_of(s: &Shared, player: String) -> Result<Response, ApiError> {
    let (life, now) = (crate::app::life(s), s.now_ms());
    let p = s
        .books()
        .read_async(move |st| page(st, &player, (life, now)))
        .await
        .map_err(store_error)?;
    Ok(Json(p).into_response())
}

/// `GET /api/limits`: the player's limits, pending changes, history and break.
pub(crate) async fn get(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    page_of(&s, w.name).await
}

/// The changes `asks` make to `player`'s limits at `now_ms` (none for what stays).
pub fn changes_for(
    current: &[LimitChange],
    player: &str,
    asks: &[(LimitKind, LimitPeriod, Ask)],
    now_ms: i64,
) -> Vec<LimitChange> {
    asks.iter()
        .filter_map(|(k, p, a)| limits::plan(player, &limits::slot(current, *k, *p), *a, now_ms))
        .collect()
}

/// Checks `asks` (one per kind and period) into the books' units.
pub(crate) fn checked_asks(
    asks: &[LimitAsk],
) -> Result<Vec<(LimitKind, LimitPeriod, Ask)>, ApiError> {
    let mut out: Vec<(LimitKind, LimitPeriod, Ask)> = Vec::new();
    for a in asks {
        if out.iter().any(|(k, p, _)| (*k, *p) == (a.kind, a.period)) {
            return Err(bad(format!(
                "the {} {} limit is asked for twice",
                a.period.as_str(),
                a.kind.as_str()
            )));
        }
        out.push((a.kind, a.period, a.ask()?));
    }
    Ok(out)
}

/// `PUT /api/limits`: sets, lowers (at once), raises or removes (after the cooling-off,
/// then confirmed by sending the same change again) the player's limits.
pub(crate) async fn put(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<LimitsBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let Json(body) = body.map_err(|e| {
        bad(format!(
            "the body must be {{\"limits\": [{{\"kind\", \"period\", \"amount\" | \"minutes\" | \
             \"remove\"}}]}}: {}",
            e.body_text()
        ))
    })?;
    let asks = checked_asks(&body.limits)?;
    let now = s.now_ms();
    let name = w.name.clone();
    let blocked = s
        .books()
        .read_async(move |st| limits::exclusion(st, &name, now))
        .await
        .map_err(store_error)?;
    if let Some(e) = blocked {
        let tail = "limits cannot be changed until it ends";
        return Err(blocked_error(StatusCode::FORBIDDEN, &e, tail));
    }
    let name = w.name.clone();
    s.books()
        .run(move |st| -> felt_store::Result<()> {
            let current = st.limit_changes(&name)?;
            for c in changes_for(&current, &name, &asks, now) {
                st.append_limit_change(&c)?;
            }
            Ok(())
        })
        .await
        .map_err(store_error)?;
    page_of(&s, w.name).await
}

/// The body of `POST /api/limits/break` and of an operator's exclusion.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockBody {
    /// `break` or `self-excluded` (a player's own); ignored for an operator's.
    #[serde(default)]
    pub kind: Option<ExclusionKind>,
    /// How long, in hours.
    #[serde(default)]
    pub hours: Option<u32>,
    /// For good (a self-exclusion or an operator's only).
    #[serde(default)]
    pub for_good: bool,
    /// Why (an operator's exclusion: required).
    #[serde(default)]
    pub reason: String,
}

/// The break or exclusion `body` asks of `player` by `set_by` at `now_ms`.
fn block(
    body: &BlockBody,
    kind: ExclusionKind,
    player: &str,
    set_by: &str,
    now_ms: i64,
) -> Result<Exclusion, ApiError> {
    let until_ms = match (body.for_good, body.hours) {
        (true, None) if kind != ExclusionKind::Break => None,
        (false, Some(h)) => {
            let ms = i64::from(h) * 3_600_000;
            let (lo, hi) = match kind {
                ExclusionKind::Break => BREAK_MS,
                ExclusionKind::SelfExcluded => SELF_EXCLUSION_MS,
                ExclusionKind::Operator => (3_600_000, i64::MAX),
            };
            if ms < lo || ms > hi {
                return Err(bad(format!(
                    "a {} lasts {} to {} hours{}",
                    kind.as_str(),
                    lo / 3_600_000,
                    hi / 3_600_000,
                    if kind == ExclusionKind::Break {
                        ""
                    } else {
                        ", or for good"
                    }
                )));
            }
            Some(now_ms + ms)
        }
        _ => {
            return Err(bad(
                "say how long: {\"hours\": N}, or {\"for_good\": true} (not for a break)"
                    .to_string(),
            ))
        }
    };
    Ok(Exclusion {
        seq: 0,
        player: player.to_string(),
        kind,
        start_ms: now_ms,
        until_ms,
        set_by: set_by.to_string(),
        reason: body.reason.clone(),
    })
}

/// Writes `e` unless it would end before a break or exclusion that holds (none is
/// ever shortened); the page after it.
async fn write_block(s: &Shared, e: Exclusion) -> Result<LimitsPage, ApiError> {
    let (life, now) = (crate::app::life(s), e.start_ms);
    let player = e.player.clone();
    let written = s
        .books()
        .run(move |st| -> felt_store::Result<Result<(), Exclusion>> {
            if let Some(held) = limits::exclusion(st, &e.player, now)? {
                let ends = |x: &Exclusion| x.until_ms.unwrap_or(i64::MAX);
                if ends(&held) >= ends(&e) {
                    return Ok(Err(held));
                }
            }
            st.append_exclusion(&e)?;
            Ok(Ok(()))
        })
        .await
        .map_err(store_error)?;
    if let Err(held) = written {
        let tail = "it cannot be shortened (a longer one may be asked for)";
        return Err(blocked_error(StatusCode::CONFLICT, &held, tail));
    }
    s.books()
        .read_async(move |st| page(st, &player, (life, now)))
        .await
        .map_err(store_error)
}

/// `POST /api/limits/review`: the player has looked at their limits and keeps them as
/// they are (the six-monthly review, [`limits::review_due`]), written to the audit log
/// with who and when when a review is due; the limits page.
pub(crate) async fn review(
    State(s): State<Shared>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    // Written only when a review is due: asked again (or by a script, in a loop), it
    // answers the same page and writes nothing more.
    let (name, now) = (w.name.clone(), s.now_ms());
    let due = s
        .books()
        .read_async(move |st| -> felt_store::Result<bool> {
            let created = st.login(&name)?.map_or(0, |l| l.created_ms);
            Ok(limits::review_due(st, &name, created, now)?.is_some())
        })
        .await
        .map_err(store_error)?;
    if due {
        let detail = "reviewed their limits and kept them".to_string();
        crate::audit::record(&s, &w.name, AuditAction::ReviewLimits, &w.name, detail).await?;
    }
    page_of(&s, w.name).await
}

/// `POST /api/limits/break`: the player takes a break (24 hours to 6 weeks) or excludes
/// themselves (6 months to 5 years, or for good), at once: the round in play finishes,
/// the seat is left, and no bet is taken until it ends; it cannot be shortened.
pub(crate) async fn take_break(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<BlockBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let Json(body) = body.map_err(|e| bad(format!("a bad break: {}", e.body_text())))?;
    let kind = match body.kind {
        Some(k @ (ExclusionKind::Break | ExclusionKind::SelfExcluded)) => k,
        _ => return Err(bad("kind is `break` or `self-excluded`".to_string())),
    };
    let e = block(&body, kind, &w.name, &w.name, s.now_ms())?;
    let p = write_block(&s, e).await?;
    stop_play(&s, &w.name, &p).await?;
    Ok((StatusCode::CREATED, Json(p)).into_response())
}

/// `POST /api/operator/players/NAME/exclude`: an operator excludes a player (for some
/// hours, or for good), written to the audit log with who and when first.
pub(crate) async fn operator_exclude(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: Result<Json<BlockBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let w = operator(&s, &headers).await?;
    let Json(body) = body.map_err(|e| bad(format!("a bad exclusion: {}", e.body_text())))?;
    if body.reason.trim().is_empty() {
        return Err(bad("an operator's exclusion needs a reason".to_string()));
    }
    let name = felt_store::normalize_name("player", &name).map_err(|e| bad(e.to_string()))?;
    let known = {
        let n = name.clone();
        s.books()
            .read_async(move |st| st.login(&n))
            .await
            .map_err(store_error)?
    };
    if known.is_none() {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "no-player",
            format!("there is no player `{name}`"),
        ));
    }
    let e = block(&body, ExclusionKind::Operator, &name, &w.name, s.now_ms())?;
    let until = e
        .until_ms
        .map_or("for good".to_string(), |u| format!("until {}", iso(u)));
    crate::audit::record(
        &s,
        &w.name,
        AuditAction::ExcludePlayer,
        &name,
        format!("excluded {until}: {}", body.reason),
    )
    .await?;
    let p = write_block(&s, e).await?;
    stop_play(&s, &name, &p).await?;
    Ok((StatusCode::CREATED, Json(p)).into_response())
}

/// Ends `player`'s play at once when `page` says a break or an exclusion holds: the
/// round they play finishes, then the seat is left, and every session of theirs ends
/// ([`crate::session_end`]); they may log in again to see their balance and history.
async fn stop_play(s: &Shared, player: &str, page: &LimitsPage) -> Result<(), ApiError> {
    let Some(reason) = page.blocked.as_ref().map(|b| b.message.clone()) else {
        return Ok(());
    };
    crate::session_end::leave_seat(s, player, &reason);
    crate::session_end::end_sessions(s, player, None, &reason).await?;
    Ok(())
}
