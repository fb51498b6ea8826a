//! The wallet outbox in PostgreSQL (schema 7). A call is locked (`FOR UPDATE`) before
//! it is changed, so two servers recording answers to one call at once are one after
//! the other, and the first definitive answer stands.

use super::conn::{get, Conn};
use super::error::{damaged, R};
use crate::model::RoundId;
use crate::wallet::{
    closing_credits, funding_memo, limit_of, rollback_id, transition, unknown, NewWalletCall,
    Transition, WalletAnswer, WalletCall, WalletQuery, WalletRow, COLUMNS,
};
use crate::StoreError;
use ::postgres::Row;

fn call_of(r: &Row) -> R<WalletCall> {
    let row = WalletRow {
        seq: get(r, 0)?,
        transaction_id: get(r, 1)?,
        kind: get(r, 2)?,
        round: get(r, 3)?,
        table: get(r, 4)?,
        player: get(r, 5)?,
        amount_cents: get(r, 6)?,
        detail_json: get(r, 7)?,
        rolls_back: get(r, 8)?,
        rollback: get(r, 9)?,
        state: get(r, 10)?,
        reason: get(r, 11)?,
        balance_cents: get(r, 12)?,
        attempts: get(r, 13)?,
        next_attempt_ms: get(r, 14)?,
        last_error: get(r, 15)?,
        created_ms: get(r, 16)?,
        settled_ms: get(r, 17)?,
    };
    row.into_call().map_err(damaged)
}

/// The call of transaction id `id`, locked for the transaction, if any.
fn locked(c: &mut Conn, id: &str) -> R<Option<WalletCall>> {
    let sql = format!("SELECT {COLUMNS} FROM wallet_calls WHERE transaction_id = $1 FOR UPDATE");
    c.opt(&sql, &[&id])?.map(|r| call_of(&r)).transpose()
}

/// Puts `calls` in the outbox for `round` (open and locked, checked by the caller).
pub(crate) fn insert(c: &mut Conn, round: RoundId, calls: &[NewWalletCall]) -> R<()> {
    for call in calls {
        let inserted = c.exec(
            "INSERT INTO wallet_calls (transaction_id, kind, round_id, table_id, player, \
             amount_cents, detail_json, next_attempt_ms) \
             SELECT $1, $2, id, table_id, $3, $4, $5, felt_now_ms() FROM rounds WHERE id = $6 \
             ON CONFLICT (transaction_id) DO NOTHING",
            &[
                &call.transaction_id,
                &call.kind.as_str(),
                &call.player,
                &call.amount.as_cents(),
                &call.detail_json,
                &round.0,
            ],
        )?;
        if inserted != 1 {
            return Err(StoreError::WalletCallExists {
                id: call.transaction_id.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// Writes the rollback of debit `debit` (locked, pending, without one yet).
fn roll_back(c: &mut Conn, debit: &WalletCall) -> R<()> {
    let id = rollback_id(&debit.transaction_id);
    c.exec(
        "INSERT INTO wallet_calls (transaction_id, kind, round_id, table_id, player, \
         amount_cents, detail_json, rolls_back, next_attempt_ms) \
         VALUES ($1, 'rollback', $2, $3, $4, $5, '{}', $6, felt_now_ms())",
        &[
            &id,
            &debit.round.0,
            &debit.table,
            &debit.player,
            &debit.amount.as_cents(),
            &debit.transaction_id,
        ],
    )?;
    c.exec(
        "UPDATE wallet_calls SET rollback = $2 WHERE transaction_id = $1",
        &[&debit.transaction_id, &id],
    )?;
    Ok(())
}

/// The calls of `round`, oldest first, locked until the transaction ends.
fn round_calls_locked(c: &mut Conn, round: RoundId) -> R<Vec<WalletCall>> {
    let sql =
        format!("SELECT {COLUMNS} FROM wallet_calls WHERE round_id = $1 ORDER BY seq FOR UPDATE");
    c.query(&sql, &[&round.0])?.iter().map(call_of).collect()
}

/// Closes `round` at the operator as it ends: rolls back each debit not refused that
/// has no rollback (when the round is voided, every one; when it finished, each whose
/// money no step of the round brought in: the operator took it while felt stopped
/// before the step that would have used it), then writes the closing credit of `0.00`
/// of each player with a debit and no credit.
pub(crate) fn close_round(c: &mut Conn, round: RoundId, voided: bool) -> R<()> {
    let calls = round_calls_locked(c, round)?;
    let funded = c
        .query(
            "SELECT memo FROM entries WHERE round_id = $1 AND kind = 'deposit' \
             AND memo IS NOT NULL",
            &[&round.0],
        )?
        .iter()
        .map(|r| get::<String>(r, 0))
        .collect::<R<std::collections::HashSet<String>>>()?;
    for d in calls.iter().filter(|d| d.needs_rollback_when_voided()) {
        if voided || !funded.contains(&funding_memo(&d.transaction_id)) {
            roll_back(c, d)?;
        }
    }
    insert(c, round, &closing_credits(&calls))
}

/// The calls `q` asks for, oldest first.
pub(crate) fn list(c: &mut Conn, q: &WalletQuery) -> R<Vec<WalletCall>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM wallet_calls WHERE ($1::BIGINT IS NULL OR round_id = $1) \
         AND ($2::TEXT IS NULL OR table_id = $2) AND ($3::TEXT IS NULL OR state = $3) \
         AND ($4::BIGINT IS NULL OR created_ms >= $4) \
         AND ($5::BIGINT IS NULL OR next_attempt_ms <= $5) ORDER BY seq LIMIT $6"
    );
    let state = q.state.map(|s| s.as_str());
    c.query(
        &sql,
        &[
            &q.round.map(|r| r.0),
            &q.table,
            &state,
            &q.since_ms,
            &q.due_at_ms,
            &limit_of(q),
        ],
    )?
    .iter()
    .map(call_of)
    .collect()
}

/// Counts an attempt at call `id`.
pub(crate) fn attempt(c: &mut Conn, id: &str, retry_at_ms: i64) -> R<WalletCall> {
    c.exec(
        "UPDATE wallet_calls SET attempts = attempts + 1, next_attempt_ms = $2 \
         WHERE transaction_id = $1 AND state = 'pending'",
        &[&id, &retry_at_ms],
    )?;
    Ok(locked(c, id)?.ok_or_else(|| unknown(id))?)
}

/// Records what came of sending call `id`.
pub(crate) fn answer(c: &mut Conn, id: &str, answer: &WalletAnswer) -> R<WalletCall> {
    let call = locked(c, id)?.ok_or_else(|| unknown(id))?;
    match transition(&call, answer)? {
        Transition::None => {}
        Transition::Settle {
            state,
            reason,
            balance,
            debit_rolled_back,
        } => {
            c.exec(
                "UPDATE wallet_calls SET state = $2, reason = $3, balance_cents = $4, \
                 settled_ms = felt_now_ms() WHERE transaction_id = $1",
                &[&id, &state.as_str(), &reason, &balance],
            )?;
            if let Some(debit) = debit_rolled_back {
                c.exec(
                    "UPDATE wallet_calls SET state = 'rolled-back', settled_ms = felt_now_ms() \
                     WHERE transaction_id = $1 AND state IN ('pending', 'acknowledged')",
                    &[&debit],
                )?;
            }
        }
        Transition::Lost { detail, roll_back } => {
            c.exec(
                "UPDATE wallet_calls SET last_error = $2 WHERE transaction_id = $1",
                &[&id, &detail],
            )?;
            if roll_back {
                self::roll_back(c, &call)?;
            }
        }
    }
    Ok(locked(c, id)?.ok_or_else(|| unknown(id))?)
}
