//! Play money that never dead-ends: `POST /api/top-up` puts the operator's top-up
//! amount in the player's wallet, as a deposit from the cashier like any other (its
//! memo [`MEMO`] tells it apart in the books), when the wallet cannot cover the
//! minimum bet of the table named (or, naming none, of every table here), at most once
//! per [`TopUp::every`]: the last top-up is read from the ledger, so the rule holds
//! across restarts and servers.

use crate::app::{store_error, who, ApiError, Shared};
use crate::limits::Asked;
use crate::table::ToTable;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_core::Money;
use felt_store::{Account, Movement, MovementKind};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// The memo of a top-up's deposit in the books.
pub const MEMO: &str = "play-money top-up";

/// The operator's top-up rule (`felt serve --top-up`, `--top-up-every-secs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopUp {
    /// What one top-up deposits (zero: top-ups are off).
    pub amount: Money,
    /// The least time between two top-ups of one player.
    pub every: Duration,
}

impl Default for TopUp {
    fn default() -> TopUp {
        TopUp {
            amount: Money::cents(100_000),
            every: Duration::from_secs(600),
        }
    }
}

/// The body of `POST /api/top-up`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Request {
    /// The table whose minimum bet the balance is measured against.
    #[serde(default)]
    table: Option<String>,
}

/// Why a top-up is refused (nothing is deposited).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The server gives no top-ups (`--top-up 0`).
    Off,
    /// The balance covers the minimum bet.
    NotNeeded {
        /// The balance.
        balance: Money,
        /// The minimum bet it covers.
        minimum: Money,
    },
    /// The last top-up was less than [`TopUp::every`] ago.
    TooSoon {
        /// Seconds until the next one is possible.
        wait_secs: u64,
    },
    /// It would pass a deposit limit the player set ([`crate::limits`]).
    Limit(crate::limits::Reached),
    /// The player is on a break or excluded (the sentence says until when).
    Blocked(String),
}

impl Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Off => ApiError(
                StatusCode::FORBIDDEN,
                "top-up-off",
                "this server gives no play-money top-ups".to_string(),
            )
            .into_response(),
            Refusal::NotNeeded { balance, minimum } => ApiError(
                StatusCode::CONFLICT,
                "top-up-not-needed",
                format!(
                    "your balance of {balance} covers the minimum bet of {minimum}: a top-up \
                     is for a balance below the table's minimum"
                ),
            )
            .into_response(),
            Refusal::TooSoon { wait_secs } => {
                let mut r = ApiError(
                    StatusCode::TOO_MANY_REQUESTS,
                    "top-up-too-soon",
                    format!(
                        "you had a top-up a short while ago: the next one is possible in {}",
                        duration_words(wait_secs)
                    ),
                )
                .into_response();
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(wait_secs.max(1)));
                r
            }
            Refusal::Limit(reached) => {
                ApiError(StatusCode::FORBIDDEN, "limit-reached", reached.sentence()).into_response()
            }
            Refusal::Blocked(m) => {
                ApiError(StatusCode::FORBIDDEN, "player-blocked", m).into_response()
            }
        }
    }
}

/// `90` -> `2 minutes`, `30` -> `30 seconds`, `7200` -> `2 hours`.
fn duration_words(secs: u64) -> String {
    let plural = |n: u64, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    match secs {
        0..=59 => plural(secs.max(1), "second"),
        60..=5_399 => plural(secs.div_ceil(60), "minute"),
        _ => plural(secs.div_ceil(3_600), "hour"),
    }
}

/// Whether a player with `balance`, whose last top-up was at `last_ms` (ms since
/// the epoch), may have one at `now_ms` against a table minimum of `minimum`.
pub fn check(
    rule: TopUp,
    balance: Money,
    minimum: Money,
    last_ms: Option<i64>,
    now_ms: i64,
) -> Result<(), Refusal> {
    if rule.amount <= Money::ZERO {
        return Err(Refusal::Off);
    }
    if balance >= minimum {
        return Err(Refusal::NotNeeded { balance, minimum });
    }
    let every = i64::try_from(rule.every.as_millis()).unwrap_or(i64::MAX);
    if let Some(last) = last_ms {
        let next = last.saturating_add(every);
        if now_ms < next {
            let wait = (next - now_ms).div_euclid(1_000) + 1;
            return Err(Refusal::TooSoon {
                wait_secs: u64::try_from(wait).unwrap_or(u64::MAX),
            });
        }
    }
    Ok(())
}

/// Milliseconds since the epoch of a time the books wrote (RFC 3339).
fn parse_ms(at: &str) -> Option<i64> {
    use time::format_description::well_known::Rfc3339;
    let t = time::OffsetDateTime::parse(at, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

/// What the page needs to offer a top-up: the amount, the rule, and when the next one
/// is possible (for `GET /api/me`).
pub(crate) fn offer(rule: TopUp, last_at: Option<&str>, now_ms: i64) -> serde_json::Value {
    if rule.amount <= Money::ZERO {
        return serde_json::Value::Null;
    }
    let every = rule.every.as_secs();
    let wait = last_at.and_then(parse_ms).map_or(0, |l| {
        (l + every as i64 * 1_000 - now_ms).max(0).div_euclid(1_000)
    });
    json!({"amount": rule.amount, "every_secs": every, "next_in_secs": wait})
}

/// `POST /api/top-up` (`{"table": NAME}` or `{}`).
pub(crate) async fn top_up(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<Request>, JsonRejection>,
) -> Result<Response, Response> {
    if s.wallet().is_some() {
        return Err(crate::wallet::launch::refused_in_wallet_mode("a top-up"));
    }
    let w = who(&s, &headers)
        .await
        .map_err(IntoResponse::into_response)?;
    let Json(req) = body.map_err(|e| {
        ApiError(
            StatusCode::BAD_REQUEST,
            "bad-request",
            format!(
                "the body must be JSON {{\"table\": NAME}} or {{}}: {}",
                e.body_text()
            ),
        )
        .into_response()
    })?;
    let minimum = match &req.table {
        Some(name) => match s.table(name) {
            Some((cfg, _)) => cfg.rules.main_bet().min,
            None => {
                return Err(ApiError(
                    StatusCode::NOT_FOUND,
                    "no-table",
                    format!("there is no table `{name}`"),
                )
                .into_response())
            }
        },
        None => s.lowest_minimum(),
    };
    let rule = s.settings().top_up;
    let player = w.name.clone();
    // The check and the deposit in one call of the books' writer: two requests of one
    // player at once are one after the other.
    let (life, now) = (crate::app::life(&s), s.now_ms());
    let done = s
        .books()
        .run(move |st| -> felt_store::Result<Result<Money, Refusal>> {
            let balance = st.balance(&Account::player(player.clone()))?;
            let last = st.last_deposit(&player, MEMO)?;
            let last_ms = last.as_ref().and_then(|m| parse_ms(&m.at));
            if let Err(r) = check(rule, balance, minimum, last_ms, now) {
                return Ok(Err(r));
            }
            if let Some(e) = crate::limits::exclusion(st, &player, now)? {
                return Ok(Err(Refusal::Blocked(crate::limits::exclusion_sentence(&e))));
            }
            let deposit = [felt_store::LimitKind::Deposit];
            let none = felt_store::UsageTotals::default();
            let amount = rule.amount.as_cents();
            if let Some(r) =
                crate::limits::check(st, &player, &deposit, none, Asked::one(amount), life, now)?
            {
                return Ok(Err(Refusal::Limit(r)));
            }
            let m = Movement::new(
                Account::Cashier,
                Account::player(player.clone()),
                rule.amount,
                MovementKind::Deposit,
            )
            .with_memo(MEMO);
            st.post(&[m])?;
            st.record_usage(&player, now, &[(felt_store::UsageKind::Deposit, amount)])?;
            Ok(Ok(balance + rule.amount))
        })
        .await
        .map_err(|e| store_error(e).into_response())?;
    let balance = done.map_err(Refusal::into_response)?;
    tracing::info!(player = %w.name, amount = %rule.amount, "a play-money top-up");
    // The table the player sits at shows the new balance at once.
    if let Some(h) = s.table_of(&w.name) {
        let _ = h.tx.send(ToTable::Deposited {
            player: w.name.clone(),
        });
    }
    Ok(Json(json!({
        "player": w.name,
        "deposited": rule.amount,
        "balance": balance,
        "next_in_secs": rule.every.as_secs(),
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: TopUp = TopUp {
        amount: Money::cents(50_000),
        every: Duration::from_secs(600),
    };

    #[test]
    fn a_top_up_needs_a_short_balance_and_its_time() {
        let min = Money::cents(5_00);
        assert_eq!(check(RULE, Money::ZERO, min, None, 0), Ok(()));
        assert_eq!(check(RULE, Money::cents(4_99), min, None, 0), Ok(()));
        assert_eq!(
            check(RULE, min, min, None, 0),
            Err(Refusal::NotNeeded {
                balance: min,
                minimum: min
            })
        );
        assert_eq!(
            check(RULE, Money::ZERO, min, Some(1_000), 1_000 + 599_000),
            Err(Refusal::TooSoon { wait_secs: 2 })
        );
        assert_eq!(
            check(RULE, Money::ZERO, min, Some(1_000), 1_000 + 600_000),
            Ok(())
        );
        let off = TopUp {
            amount: Money::ZERO,
            ..RULE
        };
        assert_eq!(check(off, Money::ZERO, min, None, 0), Err(Refusal::Off));
    }

    #[test]
    fn the_books_times_are_read_and_waits_said_in_words() {
        assert_eq!(parse_ms("1970-01-01T00:00:01.500Z"), Some(1_500));
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(duration_words(1), "1 second");
        assert_eq!(duration_words(61), "2 minutes");
        assert_eq!(duration_words(7_200), "2 hours");
    }
}
