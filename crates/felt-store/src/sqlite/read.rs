//! Reading rounds, balances and meters back. Nothing here trusts the file: a row that
//! does not make sense is a `Damaged` error, never a panic.

use super::{damaged, R};
use crate::ledger::{movement_records, PostingRow};
use crate::model::{
    Account, AwardRecord, Balance, EventRecord, MeterInfo, MovementRecord, RoundId, RoundRecord,
    RoundStatus, ShoeSeed, StepRecord, RECENT_AWARDS,
};
use felt_core::money::Money;
use rusqlite::{params, Connection, OptionalExtension, Params};

/// The ids a query returns, in its order.
pub(crate) fn ids(c: &Connection, sql: &str, p: impl Params) -> R<Vec<RoundId>> {
    let mut st = c.prepare(sql)?;
    let ids = st
        .query_map(p, |r| r.get::<_, i64>(0).map(RoundId))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ids)
}

/// The rounds with these ids, in the same order.
pub(crate) fn rounds(c: &Connection, ids: &[RoundId]) -> R<Vec<RoundRecord>> {
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

/// One round with its steps, events and movements.
pub(crate) fn round(c: &Connection, id: RoundId) -> R<Option<RoundRecord>> {
    type Head = (
        String,
        String,
        Vec<u8>,
        String,
        String,
        String,
        Option<String>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<String>,
        Option<String>,
    );
    type Tail = (Option<i64>, Option<i64>, Option<String>, Option<String>);
    let head: Option<(Head, Tail)> = c
        .prepare_cached(
            "SELECT game_id, table_id, seed, seed_sha256, status, started_at, ended_at, \
             shoe_before, shoe_after, result_json, void_reason, \
             shoe_id, shoe_round, rules_sha256, lab FROM rounds WHERE id = ?1",
        )?
        .query_row([id.0], |r| {
            Ok((
                (
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                ),
                (r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?),
            ))
        })
        .optional()?;
    let Some((
        (game, table, seed, hash, status, started, ended, before, after, result, void),
        (shoe_id, shoe_round, rules_sha256, lab),
    )) = head
    else {
        return Ok(None);
    };
    let shoe = match shoe_id {
        None => None,
        Some(s) => Some(
            shoe_seed(c, s)?
                .ok_or_else(|| damaged(format!("round {id} names shoe {s}, which is missing")))?,
        ),
    };
    let shoe_round = shoe_round
        .map(|n| {
            u32::try_from(n).map_err(|_| damaged(format!("round {id} is round {n} of its shoe")))
        })
        .transpose()?;
    let seed: [u8; 32] = seed.as_slice().try_into().map_err(|_| {
        damaged(format!(
            "round {id} has a seed of {} bytes, not 32",
            seed.len()
        ))
    })?;
    let status = RoundStatus::parse(&status)
        .ok_or_else(|| damaged(format!("round {id} has the unknown status `{status}`")))?;

    let mut steps = Vec::new();
    {
        let mut st = c.prepare_cached(
            "SELECT seq, action_json, created_at FROM round_steps WHERE round_id = ?1 ORDER BY seq",
        )?;
        let mut rows = st.query([id.0])?;
        while let Some(r) = rows.next()? {
            steps.push(StepRecord {
                seq: seq(r.get(0)?, &format!("a step of round {id}"))?,
                action: r.get(1)?,
                at: r.get(2)?,
            });
        }
    }
    let mut events = Vec::new();
    {
        let mut st = c.prepare_cached(
            "SELECT seq, step_seq, event_json FROM round_events WHERE round_id = ?1 ORDER BY seq",
        )?;
        let mut rows = st.query([id.0])?;
        while let Some(r) = rows.next()? {
            events.push(EventRecord {
                seq: seq(r.get(0)?, &format!("an event of round {id}"))?,
                step_seq: seq(r.get(1)?, &format!("an event of round {id}"))?,
                json: r.get(2)?,
            });
        }
    }
    let movements = movements(c, "e.round_id = ?1", params![id.0])?;
    Ok(Some(RoundRecord {
        id,
        game_id: game,
        table_id: table,
        seed,
        seed_sha256: hash,
        status,
        started_at: started,
        ended_at: ended,
        shoe_before: before,
        shoe_after: after,
        result,
        void_reason: void,
        steps,
        events,
        movements,
        shoe,
        shoe_round,
        rules_sha256,
        lab,
    }))
}

const SHOE_COLUMNS: &str =
    "SELECT id, table_id, seed, commitment, lab, committed_at, retired_at FROM shoe_seeds";

fn shoe_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(ShoeSeed, Vec<u8>)> {
    Ok((
        ShoeSeed {
            id: r.get(0)?,
            table_id: r.get(1)?,
            seed: [0; 32],
            commitment: r.get(3)?,
            lab: r.get(4)?,
            committed_at: r.get(5)?,
            retired_at: r.get(6)?,
        },
        r.get(2)?,
    ))
}

fn with_seed((mut s, seed): (ShoeSeed, Vec<u8>)) -> R<ShoeSeed> {
    s.seed = seed.as_slice().try_into().map_err(|_| {
        damaged(format!(
            "shoe {} has a seed of {} bytes, not 32",
            s.id,
            seed.len()
        ))
    })?;
    Ok(s)
}

/// One shoe commitment.
pub(crate) fn shoe_seed(c: &Connection, id: i64) -> R<Option<ShoeSeed>> {
    let row = c
        .prepare_cached(&format!("{SHOE_COLUMNS} WHERE id = ?1"))?
        .query_row([id], shoe_row)
        .optional()?;
    row.map(with_seed).transpose()
}

/// Every shoe commitment, oldest first.
pub(crate) fn shoe_seeds(c: &Connection) -> R<Vec<ShoeSeed>> {
    let mut st = c.prepare(&format!("{SHOE_COLUMNS} ORDER BY id"))?;
    let rows = st
        .query_map([], shoe_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter().map(with_seed).collect()
}

/// The ledger entries matching `filter` (on `entries e`), as movements, oldest first.
pub(crate) fn movements(c: &Connection, filter: &str, p: impl Params) -> R<Vec<MovementRecord>> {
    let sql = format!(
        "SELECT e.id, e.round_id, e.step_seq, e.kind, e.memo, e.created_at, \
         a.kind, a.name, p.amount_cents \
         FROM entries e JOIN postings p ON p.entry_id = e.id \
         JOIN accounts a ON a.id = p.account_id \
         WHERE {filter} ORDER BY e.id, p.id"
    );
    let mut st = c.prepare_cached(&sql)?;
    let mut rows = st.query(p)?;
    let mut postings = Vec::new();
    while let Some(r) = rows.next()? {
        postings.push(PostingRow {
            entry: r.get(0)?,
            round: r.get(1)?,
            step: r.get(2)?,
            kind: r.get(3)?,
            memo: r.get(4)?,
            at: r.get(5)?,
            account: account(&r.get::<_, String>(6)?, &r.get::<_, String>(7)?)?,
            amount: r.get(8)?,
        });
    }
    movement_records(postings).map_err(damaged)
}

/// Every account and its kept balance, by kind then name.
pub(crate) fn balances(c: &Connection) -> R<Vec<Balance>> {
    let mut st = c.prepare("SELECT kind, name, balance_cents FROM accounts ORDER BY kind, name")?;
    let mut rows = st.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(Balance {
            account: account(&r.get::<_, String>(0)?, &r.get::<_, String>(1)?)?,
            balance: Money::cents(r.get(2)?),
        });
    }
    Ok(out)
}

/// Every meter, by id.
pub(crate) fn meters(c: &Connection) -> R<Vec<MeterInfo>> {
    let names: Vec<String> = {
        let mut st = c.prepare("SELECT meter_id FROM meters ORDER BY meter_id")?;
        let names = st
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        names
    };
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        if let Some(m) = meter_info(c, &n)? {
            out.push(m);
        }
    }
    Ok(out)
}

/// One meter with its latest awards.
pub(crate) fn meter_info(c: &Connection, meter: &str) -> R<Option<MeterInfo>> {
    type Row = (i64, i64, i64, i64, i64, i64);
    let row: Option<Row> = c
        .prepare_cached(
            "SELECT m.account_id, a.balance_cents, m.reset_cents, m.seeded_cents, \
             m.contributions_cents, m.awards_cents \
             FROM meters m JOIN accounts a ON a.id = m.account_id WHERE m.meter_id = ?1",
        )?
        .query_row([meter], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .optional()?;
    let Some((account_id, amount, reset, seeded, contributions, awards)) = row else {
        return Ok(None);
    };
    let mut st = c.prepare_cached(
        "SELECT e.id, e.round_id, e.created_at, -p.amount_cents, a2.kind, a2.name \
         FROM entries e \
         JOIN postings p ON p.entry_id = e.id AND p.account_id = ?1 AND p.amount_cents < 0 \
         JOIN postings p2 ON p2.entry_id = e.id AND p2.id <> p.id \
         JOIN accounts a2 ON a2.id = p2.account_id \
         WHERE e.kind = 'award' ORDER BY e.id DESC LIMIT ?2",
    )?;
    let limit = i64::try_from(RECENT_AWARDS).unwrap_or(i64::MAX);
    let mut rows = st.query(params![account_id, limit])?;
    let mut recent = Vec::new();
    while let Some(r) = rows.next()? {
        recent.push(AwardRecord {
            entry_id: r.get(0)?,
            round: r.get::<_, Option<i64>>(1)?.map(RoundId),
            at: r.get(2)?,
            amount: Money::cents(r.get(3)?),
            to: account(&r.get::<_, String>(4)?, &r.get::<_, String>(5)?)?,
        });
    }
    Ok(Some(MeterInfo {
        id: meter.to_string(),
        amount: Money::cents(amount),
        reset: Money::cents(reset),
        seeded: Money::cents(seeded),
        contributions: Money::cents(contributions),
        awards: Money::cents(awards),
        recent_awards: recent,
    }))
}
