//! Writing the books: accounts locked in a fixed order, movements, steps, round ends,
//! shoes. Each function runs inside the call's transaction.
//!
//! The lock order of every call is: the table's lease (shared), the round, the meters
//! (by meter id), the accounts (by id). Two calls that touch the same rows therefore
//! wait for each other in one direction only, and no deadlock can form between calls
//! that each name their rows up front.

use super::conn::{get, Conn};
use super::error::{damaged, R};
use crate::error::StoreError;
use crate::ledger::Limit;
use crate::ledger::{balances_after, too_large};
use crate::model::{
    seed_hash, Account, Ended, Movement, MovementKind, NewShoe, RoundId, RoundStatus, Step,
};
use std::collections::HashMap;

/// The accounts a call has locked: their ids and balances as this transaction sees
/// them (kept up to date by [`apply_movement`]).
#[derive(Debug, Default)]
pub(crate) struct Locked {
    accounts: HashMap<(&'static str, String), (i64, i64)>,
}

/// Locks the rows `movements` touch, in the books' order: the meters (by id; a meter
/// that does not exist is left for [`apply_movement`] to refuse, in its turn), then
/// the accounts (by id), created first if new (a player's wallet on first use).
pub(crate) fn lock_accounts(c: &mut Conn, movements: &[Movement], locked: &mut Locked) -> R<()> {
    let mut meters: Vec<&str> = movements
        .iter()
        .flat_map(|m| [&m.from, &m.to])
        .filter_map(|a| match a {
            Account::Meter(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    meters.sort_unstable();
    meters.dedup();
    lock_meters(c, &meters)?;
    // New accounts in the order the movements name them (the ids SQLite would give).
    let mut kinds: Vec<&str> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut new_kinds: Vec<&str> = Vec::new();
    let mut new_names: Vec<&str> = Vec::new();
    for a in movements.iter().flat_map(|m| [&m.from, &m.to]) {
        let key = (a.kind_str(), a.name());
        if locked.accounts.contains_key(&(key.0, key.1.to_string()))
            || kinds.iter().zip(&names).any(|(k, n)| (*k, *n) == key)
        {
            continue;
        }
        kinds.push(key.0);
        names.push(key.1);
        if !matches!(a, Account::Meter(_)) {
            new_kinds.push(key.0);
            new_names.push(key.1);
        }
    }
    if kinds.is_empty() {
        return Ok(());
    }
    if !new_kinds.is_empty() {
        c.exec(
            "INSERT INTO accounts (kind, name) \
             SELECT k, n FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t (k, n, i) \
             ORDER BY i ON CONFLICT (kind, name) DO NOTHING",
            &[&new_kinds, &new_names],
        )?;
    }
    let rows = c.query(
        "SELECT id, kind, name, balance_cents FROM accounts \
         WHERE (kind, name) IN (SELECT k, n FROM unnest($1::text[], $2::text[]) AS t (k, n)) \
         ORDER BY id FOR UPDATE",
        &[&kinds, &names],
    )?;
    for r in &rows {
        let kind: String = get(r, 1)?;
        let Some(kind) = ["cashier", "player", "house", "felt", "meter"]
            .into_iter()
            .find(|k| *k == kind)
        else {
            return Err(damaged(format!("an account has the unknown kind `{kind}`")));
        };
        locked
            .accounts
            .insert((kind, get(r, 2)?), (get(r, 0)?, get(r, 3)?));
    }
    Ok(())
}

/// Locks the meters rows of `meters` (sorted, without repeats); returns the ids found.
pub(crate) fn lock_meters(c: &mut Conn, meters: &[&str]) -> R<Vec<String>> {
    if meters.is_empty() {
        return Ok(Vec::new());
    }
    let rows = c.query(
        "SELECT meter_id FROM meters WHERE meter_id = ANY($1) ORDER BY meter_id FOR UPDATE",
        &[&meters],
    )?;
    rows.iter().map(|r| get(r, 0)).collect()
}

/// The id and balance of a locked account, or `UnknownMeter` for a meter that does
/// not exist.
fn account(locked: &Locked, a: &Account) -> R<(i64, i64)> {
    match locked.accounts.get(&(a.kind_str(), a.name().to_string())) {
        Some(v) => Ok(*v),
        None => match a {
            Account::Meter(m) => Err(StoreError::UnknownMeter { meter: m.clone() }.into()),
            _ => Err(damaged(format!("{a} was not locked before it was written"))),
        },
    }
}

/// Writes one movement (its accounts locked by [`lock_accounts`]): an entry, its two
/// postings, the kept balances and meter counters; returns the entry id. The caller
/// has validated it.
pub(crate) fn apply_movement(
    c: &mut Conn,
    locked: &mut Locked,
    m: &Movement,
    round: Option<i64>,
    step: Option<i64>,
    limit: Limit,
) -> R<i64> {
    let amount = m.amount.as_cents();
    let (from, from_bal) = account(locked, &m.from)?;
    let (to, to_bal) = account(locked, &m.to)?;
    let (new_from, new_to) = balances_after(m, from_bal, to_bal, limit)?;
    let row = c.one(
        "WITH e AS (INSERT INTO entries (round_id, step_seq, kind, memo) \
         VALUES ($1, $2, $3, $4) RETURNING id), \
         p AS (INSERT INTO postings (entry_id, account_id, amount_cents) \
         SELECT e.id, v.account, v.amount FROM e, \
         (VALUES (1, $5::bigint, -$7::bigint), (2, $6::bigint, $7::bigint)) AS v (i, account, amount) \
         ORDER BY v.i), \
         u AS (UPDATE accounts SET balance_cents = CASE WHEN id = $5 THEN $8::bigint ELSE $9::bigint END \
         WHERE id IN ($5, $6)) \
         SELECT id FROM e",
        &[
            &round,
            &step,
            &m.kind.as_str(),
            &m.memo,
            &from,
            &to,
            &amount,
            &new_from,
            &new_to,
        ],
    )?;
    let entry: i64 = get(&row, 0)?;
    let key = |a: &Account| (a.kind_str(), a.name().to_string());
    locked.accounts.insert(key(&m.from), (from, new_from));
    locked.accounts.insert(key(&m.to), (to, new_to));
    if let Account::Meter(_) = m.to {
        bump_meter(c, to, m, amount)?;
    }
    if let Account::Meter(_) = m.from {
        bump_meter(c, from, m, -amount)?;
    }
    Ok(entry)
}

/// Updates a meter's kept counters for `delta` cents moved into it (negative: out).
fn bump_meter(c: &mut Conn, account: i64, m: &Movement, delta: i64) -> R<()> {
    let (column, signed) = match m.kind {
        MovementKind::Seed => ("seeded_cents", delta),
        MovementKind::Contribution => ("contributions_cents", delta),
        MovementKind::Award => ("awards_cents", -delta),
        other => {
            return Err(StoreError::InvalidMovement {
                reason: format!("a {other} cannot touch a progressive meter"),
            }
            .into())
        }
    };
    let current: i64 = match c.opt(
        &format!("SELECT {column} FROM meters WHERE account_id = $1"),
        &[&account],
    )? {
        Some(r) => get(&r, 0)?,
        None => {
            return Err(damaged(format!(
                "meter account {account} has no meters row"
            )))
        }
    };
    let next = current.checked_add(signed).ok_or_else(|| too_large(m))?;
    c.exec(
        &format!("UPDATE meters SET {column} = $2 WHERE account_id = $1"),
        &[&account, &next],
    )?;
    Ok(())
}

/// Writes movements outside a round (or a round's refunds), all or none.
pub(crate) fn post(
    c: &mut Conn,
    movements: &[Movement],
    round: Option<i64>,
    limit: Limit,
) -> R<Vec<i64>> {
    let mut locked = Locked::default();
    lock_accounts(c, movements, &mut locked)?;
    movements
        .iter()
        .map(|m| apply_movement(c, &mut locked, m, round, None, limit))
        .collect()
}

/// The table a round is played at, or `UnknownRound`.
pub(crate) fn round_table(c: &mut Conn, round: RoundId) -> R<String> {
    match c.opt("SELECT table_id FROM rounds WHERE id = $1", &[&round.0])? {
        Some(r) => get(&r, 0),
        None => Err(StoreError::UnknownRound { round: round.0 }.into()),
    }
}

/// Checks that `round` may be written by this connection and is open, and locks it:
/// an unknown round first, then a lost lease, then an ended round.
pub(crate) fn require_open(c: &mut Conn, round: RoundId, fence: Option<&str>) -> R<()> {
    let table = round_table(c, round)?;
    super::leases::check_fence(c, fence, &table)?;
    let status: String = match c.opt(
        "SELECT status FROM rounds WHERE id = $1 FOR UPDATE",
        &[&round.0],
    )? {
        Some(r) => get(&r, 0)?,
        None => return Err(StoreError::UnknownRound { round: round.0 }.into()),
    };
    match RoundStatus::parse(&status) {
        Some(RoundStatus::Open) => Ok(()),
        Some(s) => Err(StoreError::RoundClosed {
            round: round.0,
            status: s.to_string(),
        }
        .into()),
        None => Err(damaged(format!("round {round} has status `{status}`"))),
    }
}

/// Writes a step of an open round (locked by [`require_open`]); returns its seq.
pub(crate) fn insert_step(c: &mut Conn, round: RoundId, step: &Step) -> R<u32> {
    let mut locked = Locked::default();
    lock_accounts(c, &step.movements, &mut locked)?;
    let row = c.one(
        "SELECT (SELECT COALESCE(MAX(seq), 0) + 1 FROM round_steps WHERE round_id = $1), \
         (SELECT COALESCE(MAX(seq), 0) FROM round_events WHERE round_id = $1)",
        &[&round.0],
    )?;
    let (seq, events_before): (i64, i64) = (get(&row, 0)?, get(&row, 1)?);
    c.exec(
        "INSERT INTO round_steps (round_id, seq, action_json) VALUES ($1, $2, $3)",
        &[&round.0, &seq, &step.action],
    )?;
    if !step.events.is_empty() {
        c.exec(
            "INSERT INTO round_events (round_id, seq, step_seq, event_json) \
             SELECT $1, $2 + i, $3, e FROM unnest($4::text[]) WITH ORDINALITY AS t (e, i) \
             ORDER BY i",
            &[&round.0, &events_before, &seq, &step.events],
        )?;
    }
    for m in &step.movements {
        apply_movement(c, &mut locked, m, Some(round.0), Some(seq), Limit::Round)?;
    }
    super::wallet::insert(c, round, &step.wallet)?;
    u32::try_from(seq).map_err(|_| damaged(format!("round {round} has step {seq}")))
}

/// Marks a round ended, recording where its steps and entries stop.
pub(crate) fn close_round(
    c: &mut Conn,
    round: RoundId,
    status: RoundStatus,
    result: Option<&str>,
    void_reason: Option<&str>,
    shoe_after: Option<&[u8]>,
) -> R<()> {
    c.exec(
        "UPDATE rounds SET status = $2, result_json = $3, void_reason = $4, shoe_after = $5, \
         last_step = (SELECT COALESCE(MAX(seq), 0) FROM round_steps WHERE round_id = $1), \
         last_entry = (SELECT COALESCE(MAX(id), 0) FROM entries WHERE round_id = $1), \
         ended_at = felt_now() WHERE id = $1",
        &[
            &round.0,
            &status.as_str(),
            &result,
            &void_reason,
            &shoe_after,
        ],
    )?;
    Ok(())
}

/// Writes a new shoe's commitment for `table` and retires the table's previous shoe;
/// returns the new shoe's id.
pub(crate) fn commit_shoe(c: &mut Conn, table: &str, new: &NewShoe) -> R<i64> {
    c.exec(
        "UPDATE shoe_seeds SET retired_at = felt_now() \
         WHERE table_id = $1 AND retired_at IS NULL",
        &[&table],
    )?;
    let row = c.one(
        "INSERT INTO shoe_seeds (table_id, seed, commitment, lab) VALUES ($1, $2, $3, $4) \
         RETURNING id",
        &[&table, &&new.seed[..], &seed_hash(&new.seed), &new.lab],
    )?;
    get(&row, 0)
}

/// Retires the shoe round `round` was dealt from (if it has one and it is in play).
pub(crate) fn retire_round_shoe(c: &mut Conn, round: RoundId) -> R<()> {
    c.exec(
        "UPDATE shoe_seeds SET retired_at = felt_now() \
         WHERE id = (SELECT shoe_id FROM rounds WHERE id = $1) AND retired_at IS NULL",
        &[&round.0],
    )?;
    Ok(())
}

/// How a round ends, as [`finish_in`] writes it.
pub(crate) struct End<'a> {
    pub(crate) result_json: &'a str,
    pub(crate) shoe_after: Option<&'a [u8]>,
    pub(crate) ended: &'a Ended,
    pub(crate) retire_shoe: bool,
    pub(crate) counted_at_ms: Option<i64>,
}

/// Writes a round's last step (if any), closes it (finished, or voided by the game)
/// and keeps the shoe it leaves, retiring its commitment if asked, and counts the
/// round against its players' limits if asked; returns the number of its last step.
pub(crate) fn finish_in(c: &mut Conn, round: RoundId, last: &Step, end: &End<'_>) -> R<u32> {
    let seq = if last.is_empty() {
        let n: i64 = get(
            &c.one(
                "SELECT COALESCE(MAX(seq), 0) FROM round_steps WHERE round_id = $1",
                &[&round.0],
            )?,
            0,
        )?;
        u32::try_from(n).map_err(|_| damaged(format!("round {round} has step {n}")))?
    } else {
        insert_step(c, round, last)?
    };
    let (status, reason) = match end.ended {
        Ended::Finished => (RoundStatus::Finished, None),
        Ended::Voided(why) => (RoundStatus::Voided, Some(why.as_str())),
    };
    close_round(
        c,
        round,
        status,
        Some(end.result_json),
        reason,
        end.shoe_after,
    )?;
    if let Some(shoe) = end.shoe_after {
        c.exec(
            "INSERT INTO shoes (table_id, state, round_id, seed_id) \
             SELECT table_id, $2, id, shoe_id FROM rounds WHERE id = $1 \
             ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, \
             round_id = excluded.round_id, seed_id = excluded.seed_id, \
             updated_at = excluded.updated_at",
            &[&round.0, &shoe],
        )?;
    }
    if end.retire_shoe || status == RoundStatus::Voided {
        retire_round_shoe(c, round)?;
    }
    super::wallet::close_round(c, round, status == RoundStatus::Voided)?;
    if let Some(at_ms) = end.counted_at_ms {
        super::protection::count_round(c, round, at_ms)?;
    }
    Ok(seq)
}
