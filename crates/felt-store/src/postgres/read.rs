//! Reading rounds, balances and meters back. Nothing here trusts the database: a row
//! that does not make sense is an `Inconsistent` error, never a panic.

use super::conn::{get, Conn, Params};
use super::error::{damaged, R};
use crate::ledger::{movement_records, PostingRow};
use crate::model::{
    Account, AwardRecord, Balance, EventRecord, MeterInfo, MovementRecord, RoundId, RoundRecord,
    RoundStatus, ShoeSeed, StepRecord, RECENT_AWARDS,
};
use ::postgres::Row;
use felt_core::money::Money;

/// The ids a query returns, in its order.
pub(crate) fn ids(c: &mut Conn, sql: &str, p: Params<'_>) -> R<Vec<RoundId>> {
    c.query(sql, p)?
        .iter()
        .map(|r| get::<i64>(r, 0).map(RoundId))
        .collect()
}

/// The rounds with these ids, in the same order.
pub(crate) fn rounds(c: &mut Conn, ids: &[RoundId]) -> R<Vec<RoundRecord>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(r) = round(c, *id)? {
            out.push(r);
        }
    }
    Ok(out)
}

fn seq(v: i64, what: &str) -> R<u32> {
    u32::try_from(v).map_err(|_| damaged(format!("{what} has sequence number {v}")))
}

/// Reads an account from its stored kind and name.
pub(crate) fn account(kind: &str, name: &str) -> R<Account> {
    Account::from_parts(kind, name)
        .ok_or_else(|| damaged(format!("an account has the unknown kind `{kind}`")))
}

fn seed32(seed: &[u8], what: &str) -> R<[u8; 32]> {
    seed.try_into()
        .map_err(|_| damaged(format!("{what} has a seed of {} bytes, not 32", seed.len())))
}

/// One round with its steps, events and movements.
pub(crate) fn round(c: &mut Conn, id: RoundId) -> R<Option<RoundRecord>> {
    let Some(h) = c.opt(
        "SELECT game_id, table_id, seed, seed_sha256, status, started_at, ended_at, \
         shoe_before, shoe_after, result_json, void_reason, \
         shoe_id, shoe_round, rules_sha256, lab FROM rounds WHERE id = $1",
        &[&id.0],
    )?
    else {
        return Ok(None);
    };
    let shoe_id: Option<i64> = get(&h, 11)?;
    let shoe = match shoe_id {
        None => None,
        Some(s) => Some(
            shoe_seed(c, s)?
                .ok_or_else(|| damaged(format!("round {id} names shoe {s}, which is missing")))?,
        ),
    };
    let shoe_round = get::<Option<i64>>(&h, 12)?
        .map(|n| {
            u32::try_from(n).map_err(|_| damaged(format!("round {id} is round {n} of its shoe")))
        })
        .transpose()?;
    let seed = seed32(get::<&[u8]>(&h, 2)?, &format!("round {id}"))?;
    let status: String = get(&h, 4)?;
    let status = RoundStatus::parse(&status)
        .ok_or_else(|| damaged(format!("round {id} has the unknown status `{status}`")))?;

    let mut steps = Vec::new();
    for r in c.query(
        "SELECT seq, action_json, created_at FROM round_steps WHERE round_id = $1 ORDER BY seq",
        &[&id.0],
    )? {
        steps.push(StepRecord {
            seq: seq(get(&r, 0)?, &format!("a step of round {id}"))?,
            action: get(&r, 1)?,
            at: get(&r, 2)?,
        });
    }
    let mut events = Vec::new();
    for r in c.query(
        "SELECT seq, step_seq, event_json FROM round_events WHERE round_id = $1 ORDER BY seq",
        &[&id.0],
    )? {
        events.push(EventRecord {
            seq: seq(get(&r, 0)?, &format!("an event of round {id}"))?,
            step_seq: seq(get(&r, 1)?, &format!("an event of round {id}"))?,
            json: get(&r, 2)?,
        });
    }
    let movements = movements(c, "e.round_id = $1", &[&id.0])?;
    Ok(Some(RoundRecord {
        id,
        game_id: get(&h, 0)?,
        table_id: get(&h, 1)?,
        seed,
        seed_sha256: get(&h, 3)?,
        status,
        started_at: get(&h, 5)?,
        ended_at: get(&h, 6)?,
        shoe_before: get(&h, 7)?,
        shoe_after: get(&h, 8)?,
        result: get(&h, 9)?,
        void_reason: get(&h, 10)?,
        steps,
        events,
        movements,
        shoe,
        shoe_round,
        rules_sha256: get(&h, 13)?,
        lab: get(&h, 14)?,
    }))
}

const SHOE_COLUMNS: &str =
    "SELECT id, table_id, seed, commitment, lab, committed_at, retired_at FROM shoe_seeds";

fn shoe_row(r: &Row) -> R<ShoeSeed> {
    let id: i64 = get(r, 0)?;
    Ok(ShoeSeed {
        id,
        table_id: get(r, 1)?,
        seed: seed32(get::<&[u8]>(r, 2)?, &format!("shoe {id}"))?,
        commitment: get(r, 3)?,
        lab: get(r, 4)?,
        committed_at: get(r, 5)?,
        retired_at: get(r, 6)?,
    })
}

/// One shoe commitment.
pub(crate) fn shoe_seed(c: &mut Conn, id: i64) -> R<Option<ShoeSeed>> {
    c.opt(&format!("{SHOE_COLUMNS} WHERE id = $1"), &[&id])?
        .map(|r| shoe_row(&r))
        .transpose()
}

/// Every shoe commitment, oldest first.
pub(crate) fn shoe_seeds(c: &mut Conn) -> R<Vec<ShoeSeed>> {
    c.query(&format!("{SHOE_COLUMNS} ORDER BY id"), &[])?
        .iter()
        .map(shoe_row)
        .collect()
}

/// The ledger entries matching `filter` (on `entries e`), as movements, oldest first.
pub(crate) fn movements(c: &mut Conn, filter: &str, p: Params<'_>) -> R<Vec<MovementRecord>> {
    let sql = format!(
        "SELECT e.id, e.round_id, e.step_seq, e.kind, e.memo, e.created_at, \
         a.kind, a.name, p.amount_cents \
         FROM entries e JOIN postings p ON p.entry_id = e.id \
         JOIN accounts a ON a.id = p.account_id \
         WHERE {filter} ORDER BY e.id, p.id"
    );
    let mut postings = Vec::new();
    for r in c.query(&sql, p)? {
        postings.push(PostingRow {
            entry: get(&r, 0)?,
            round: get(&r, 1)?,
            step: get(&r, 2)?,
            kind: get(&r, 3)?,
            memo: get(&r, 4)?,
            at: get(&r, 5)?,
            account: account(get(&r, 6)?, get(&r, 7)?)?,
            amount: get(&r, 8)?,
        });
    }
    movement_records(postings).map_err(damaged)
}

/// Every account and its kept balance, by kind then name (byte order, as SQLite).
pub(crate) fn balances(c: &mut Conn) -> R<Vec<Balance>> {
    c.query(
        "SELECT kind, name, balance_cents FROM accounts \
         ORDER BY kind COLLATE \"C\", name COLLATE \"C\"",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(Balance {
            account: account(get(r, 0)?, get(r, 1)?)?,
            balance: Money::cents(get(r, 2)?),
        })
    })
    .collect()
}

/// Every meter, by id.
pub(crate) fn meters(c: &mut Conn) -> R<Vec<MeterInfo>> {
    let names: Vec<String> = c
        .query(
            "SELECT meter_id FROM meters ORDER BY meter_id COLLATE \"C\"",
            &[],
        )?
        .iter()
        .map(|r| get(r, 0))
        .collect::<R<_>>()?;
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        if let Some(m) = meter_info(c, &n)? {
            out.push(m);
        }
    }
    Ok(out)
}

/// One meter with its latest awards.
pub(crate) fn meter_info(c: &mut Conn, meter: &str) -> R<Option<MeterInfo>> {
    let Some(row) = c.opt(
        "SELECT m.account_id, a.balance_cents, m.reset_cents, m.seeded_cents, \
         m.contributions_cents, m.awards_cents \
         FROM meters m JOIN accounts a ON a.id = m.account_id WHERE m.meter_id = $1",
        &[&meter],
    )?
    else {
        return Ok(None);
    };
    let account_id: i64 = get(&row, 0)?;
    let limit = i64::try_from(RECENT_AWARDS).unwrap_or(i64::MAX);
    let mut recent = Vec::new();
    for r in c.query(
        "SELECT e.id, e.round_id, e.created_at, -p.amount_cents, a2.kind, a2.name \
         FROM entries e \
         JOIN postings p ON p.entry_id = e.id AND p.account_id = $1 AND p.amount_cents < 0 \
         JOIN postings p2 ON p2.entry_id = e.id AND p2.id <> p.id \
         JOIN accounts a2 ON a2.id = p2.account_id \
         WHERE e.kind = 'award' ORDER BY e.id DESC LIMIT $2",
        &[&account_id, &limit],
    )? {
        recent.push(AwardRecord {
            entry_id: get(&r, 0)?,
            round: get::<Option<i64>>(&r, 1)?.map(RoundId),
            at: get(&r, 2)?,
            amount: Money::cents(get(&r, 3)?),
            to: account(get(&r, 4)?, get(&r, 5)?)?,
        });
    }
    Ok(Some(MeterInfo {
        id: meter.to_string(),
        amount: Money::cents(get(&row, 1)?),
        reset: Money::cents(get(&row, 2)?),
        seeded: Money::cents(get(&row, 3)?),
        contributions: Money::cents(get(&row, 4)?),
        awards: Money::cents(get(&row, 5)?),
        recent_awards: recent,
    }))
}
