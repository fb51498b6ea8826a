//! The wallet outbox in SQLite (schema 7). Writes are serialized by SQLite's write
//! lock, so a call is read and changed with no other writer between.

use super::{damaged, leases, R};
use crate::model::RoundId;
use crate::wallet::{
    closing_credits, funding_memo, limit_of, rollback_id, transition, unknown, NewWalletCall,
    Transition, WalletAnswer, WalletCall, WalletQuery, WalletRow, COLUMNS,
};
use crate::StoreError;
use rusqlite::{params, Connection, OptionalExtension, Row};

fn row(r: &Row<'_>) -> rusqlite::Result<WalletRow> {
    Ok(WalletRow {
        seq: r.get(0)?,
        transaction_id: r.get(1)?,
        kind: r.get(2)?,
        round: r.get(3)?,
        table: r.get(4)?,
        player: r.get(5)?,
        amount_cents: r.get(6)?,
        detail_json: r.get(7)?,
        rolls_back: r.get(8)?,
        rollback: r.get(9)?,
        state: r.get(10)?,
        reason: r.get(11)?,
        balance_cents: r.get(12)?,
        attempts: r.get(13)?,
        next_attempt_ms: r.get(14)?,
        last_error: r.get(15)?,
        created_ms: r.get(16)?,
        settled_ms: r.get(17)?,
    })
}

/// The call of transaction id `id`, if any.
fn one(c: &Connection, id: &str) -> R<Option<WalletCall>> {
    let found = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM wallet_calls WHERE transaction_id = ?1"
        ))?
        .query_row([id], row)
        .optional()?;
    found.map(|r| r.into_call().map_err(damaged)).transpose()
}

/// Puts `calls` in the outbox for `round` (open, checked by the caller).
pub(crate) fn insert(c: &Connection, round: RoundId, calls: &[NewWalletCall]) -> R<()> {
    if calls.is_empty() {
        return Ok(());
    }
    let now = leases::now_ms();
    for call in calls {
        if one(c, &call.transaction_id)?.is_some() {
            return Err(StoreError::WalletCallExists {
                id: call.transaction_id.clone(),
            }
            .into());
        }
        c.prepare_cached(
            "INSERT INTO wallet_calls (transaction_id, kind, round_id, table_id, player, \
             amount_cents, detail_json, next_attempt_ms, created_ms) \
             SELECT ?1, ?2, id, table_id, ?3, ?4, ?5, ?6, ?6 FROM rounds WHERE id = ?7",
        )?
        .execute(params![
            call.transaction_id,
            call.kind.as_str(),
            call.player,
            call.amount.as_cents(),
            call.detail_json,
            now,
            round.0
        ])?;
    }
    Ok(())
}

/// Writes the rollback of debit `debit` (pending, without one yet).
fn roll_back(c: &Connection, debit: &WalletCall, now: i64) -> R<()> {
    let id = rollback_id(&debit.transaction_id);
    c.prepare_cached(
        "INSERT INTO wallet_calls (transaction_id, kind, round_id, table_id, player, \
         amount_cents, detail_json, rolls_back, next_attempt_ms, created_ms) \
         VALUES (?1, 'rollback', ?2, ?3, ?4, ?5, '{}', ?6, ?7, ?7)",
    )?
    .execute(params![
        id,
        debit.round.0,
        debit.table,
        debit.player,
        debit.amount.as_cents(),
        debit.transaction_id,
        now
    ])?;
    c.prepare_cached("UPDATE wallet_calls SET rollback = ?2 WHERE transaction_id = ?1")?
        .execute(params![debit.transaction_id, id])?;
    Ok(())
}

/// The calls of `round`, oldest first.
fn round_calls(c: &Connection, round: RoundId) -> R<Vec<WalletCall>> {
    let q = WalletQuery {
        round: Some(round),
        ..WalletQuery::default()
    };
    list(c, &q)
}

/// Closes `round` at the operator as it ends: rolls back each debit not refused that
/// has no rollback (when the round is voided, every one; when it finished, each whose
/// money no step of the round brought in: the operator took it while felt stopped
/// before the step that would have used it), then writes the closing credit of `0.00`
/// of each player with a debit and no credit.
pub(crate) fn close_round(c: &Connection, round: RoundId, voided: bool) -> R<()> {
    let calls = round_calls(c, round)?;
    let funded: std::collections::HashSet<String> = c
        .prepare_cached(
            "SELECT memo FROM entries WHERE round_id = ?1 AND kind = 'deposit' \
             AND memo IS NOT NULL",
        )?
        .query_map(params![round.0], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let now = leases::now_ms();
    for d in calls.iter().filter(|d| d.needs_rollback_when_voided()) {
        if voided || !funded.contains(&funding_memo(&d.transaction_id)) {
            roll_back(c, d, now)?;
        }
    }
    insert(c, round, &closing_credits(&calls))
}

/// The calls `q` asks for, oldest first.
pub(crate) fn list(c: &Connection, q: &WalletQuery) -> R<Vec<WalletCall>> {
    let rows = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM wallet_calls WHERE (?1 IS NULL OR round_id = ?1) \
             AND (?2 IS NULL OR table_id = ?2) AND (?3 IS NULL OR state = ?3) \
             AND (?4 IS NULL OR created_ms >= ?4) AND (?5 IS NULL OR next_attempt_ms <= ?5) \
             ORDER BY seq LIMIT ?6"
        ))?
        .query_map(
            params![
                q.round.map(|r| r.0),
                q.table,
                q.state.map(|s| s.as_str()),
                q.since_ms,
                q.due_at_ms,
                limit_of(q)
            ],
            row,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|r| r.into_call().map_err(damaged))
        .collect()
}

/// Counts an attempt at call `id`.
pub(crate) fn attempt(c: &Connection, id: &str, retry_at_ms: i64) -> R<WalletCall> {
    c.prepare_cached(
        "UPDATE wallet_calls SET attempts = attempts + 1, next_attempt_ms = ?2 \
         WHERE transaction_id = ?1 AND state = 'pending'",
    )?
    .execute(params![id, retry_at_ms])?;
    Ok(one(c, id)?.ok_or_else(|| unknown(id))?)
}

/// Records what came of sending call `id`.
pub(crate) fn answer(c: &Connection, id: &str, answer: &WalletAnswer) -> R<WalletCall> {
    let call = one(c, id)?.ok_or_else(|| unknown(id))?;
    let now = leases::now_ms();
    match transition(&call, answer)? {
        Transition::None => {}
        Transition::Settle {
            state,
            reason,
            balance,
            debit_rolled_back,
        } => {
            c.prepare_cached(
                "UPDATE wallet_calls SET state = ?2, reason = ?3, balance_cents = ?4, \
                 settled_ms = ?5 WHERE transaction_id = ?1",
            )?
            .execute(params![id, state.as_str(), reason, balance, now])?;
            if let Some(debit) = debit_rolled_back {
                c.prepare_cached(
                    "UPDATE wallet_calls SET state = 'rolled-back', settled_ms = ?2 \
                     WHERE transaction_id = ?1 AND state IN ('pending', 'acknowledged')",
                )?
                .execute(params![debit, now])?;
            }
        }
        Transition::Lost { detail, roll_back } => {
            c.prepare_cached("UPDATE wallet_calls SET last_error = ?2 WHERE transaction_id = ?1")?
                .execute(params![id, detail])?;
            if roll_back {
                self::roll_back(c, &call, now)?;
            }
        }
    }
    Ok(one(c, id)?.ok_or_else(|| unknown(id))?)
}
