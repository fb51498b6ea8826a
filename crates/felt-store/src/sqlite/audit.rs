//! `check_books`: recompute everything from the ledger rows and compare.

use super::read::account;
use super::R;
use crate::books::{round_head, written_after_end, BooksReport, Discrepancy, Head};
use crate::model::{seed_hash, RoundId};
use felt_core::money::Money;
use rusqlite::Connection;

fn count(c: &Connection, sql: &str) -> R<usize> {
    let n: i64 = c.query_row(sql, [], |r| r.get(0))?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// Audits the books; only a database failure is an error, every inconsistency is a
/// [`Discrepancy`] in the report.
pub(crate) fn check(c: &Connection) -> R<BooksReport> {
    let mut found = Vec::new();

    // The file itself.
    {
        let mut st = c.prepare("PRAGMA quick_check")?;
        let lines = st
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        if lines != ["ok"] {
            for l in lines.into_iter().take(20) {
                found.push(Discrepancy::Unreadable {
                    detail: format!("integrity check: {l}"),
                });
            }
        }
        let mut st = c.prepare("PRAGMA foreign_key_check")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let table: String = r.get(0)?;
            let rowid: Option<i64> = r.get(1)?;
            let parent: String = r.get(2)?;
            found.push(Discrepancy::Unreadable {
                detail: format!(
                    "{table} row {} points to a missing {parent} row",
                    rowid.map_or_else(|| "?".to_string(), |v| v.to_string())
                ),
            });
        }
    }

    // The ledger as a whole: wide sums, so a huge tampered value cannot overflow.
    let total: i128 = {
        let mut st = c.prepare("SELECT amount_cents FROM postings")?;
        let mut rows = st.query([])?;
        let mut t: i128 = 0;
        while let Some(r) = rows.next()? {
            t += i128::from(r.get::<_, i64>(0)?);
        }
        t
    };
    let ledger_sum = Money::cents(i64::try_from(total).unwrap_or(i64::MAX));
    if total != 0 {
        found.push(Discrepancy::LedgerNotZero { sum: ledger_sum });
    }

    // Each entry: two postings that sum to zero (summed wide, in order of entry).
    {
        let mut st = c.prepare(
            "SELECT e.id, p.amount_cents FROM entries e \
             LEFT JOIN postings p ON p.entry_id = e.id ORDER BY e.id, p.id",
        )?;
        let mut rows = st.query([])?;
        let mut current: Option<(i64, usize, i128)> = None;
        let close = |e: Option<(i64, usize, i128)>, found: &mut Vec<Discrepancy>| {
            if let Some((entry, n, sum)) = e {
                if n != 2 {
                    found.push(Discrepancy::EntryIncomplete { entry, postings: n });
                } else if sum != 0 {
                    found.push(Discrepancy::EntryUnbalanced {
                        entry,
                        sum: Money::cents(i64::try_from(sum).unwrap_or(i64::MAX)),
                    });
                }
            }
        };
        while let Some(r) = rows.next()? {
            let entry: i64 = r.get(0)?;
            let amount: Option<i64> = r.get(1)?;
            if current.map(|c| c.0) != Some(entry) {
                close(current.take(), &mut found);
                current = Some((entry, 0, 0));
            }
            if let (Some(cur), Some(a)) = (current.as_mut(), amount) {
                cur.1 += 1;
                cur.2 += i128::from(a);
            }
        }
        close(current.take(), &mut found);
    }

    // Each account: kept balance = sum of its postings; wallets and meters >= 0.
    let mut accounts = 0usize;
    {
        let mut st = c.prepare("SELECT id, kind, name, balance_cents FROM accounts ORDER BY id")?;
        let mut rows = st.query([])?;
        let mut sum_st = c.prepare("SELECT amount_cents FROM postings WHERE account_id = ?1")?;
        while let Some(r) = rows.next()? {
            accounts += 1;
            let id: i64 = r.get(0)?;
            let kind: String = r.get(1)?;
            let name: String = r.get(2)?;
            let kept: i64 = r.get(3)?;
            let acct = match account(&kind, &name) {
                Ok(a) => a,
                Err(_) => {
                    found.push(Discrepancy::Unreadable {
                        detail: format!("account {id} has the unknown kind `{kind}`"),
                    });
                    continue;
                }
            };
            let mut ledger: i128 = 0;
            let mut ps = sum_st.query([id])?;
            while let Some(p) = ps.next()? {
                ledger += i128::from(p.get::<_, i64>(0)?);
            }
            if i128::from(kept) != ledger {
                found.push(Discrepancy::BalanceMismatch {
                    account: acct.clone(),
                    kept: Money::cents(kept),
                    ledger: Money::cents(i64::try_from(ledger).unwrap_or(i64::MAX)),
                });
            }
            if acct.must_stay_non_negative() && kept < 0 {
                found.push(Discrepancy::NegativeBalance {
                    account: acct,
                    balance: Money::cents(kept),
                });
            }
        }
    }

    // Chips on a felt only while a round is open at its table.
    {
        let mut st = c.prepare(
            "SELECT a.name, a.balance_cents FROM accounts a WHERE a.kind = 'felt' \
             AND a.balance_cents <> 0 AND NOT EXISTS \
             (SELECT 1 FROM rounds r WHERE r.status = 'open' AND r.table_id = a.name) \
             ORDER BY a.name",
        )?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            found.push(Discrepancy::FeltNotCleared {
                table: r.get(0)?,
                balance: Money::cents(r.get(1)?),
            });
        }
    }

    check_meters(c, &mut found)?;
    let open_rounds = check_rounds(c, &mut found)?;

    Ok(BooksReport {
        accounts,
        entries: count(c, "SELECT COUNT(*) FROM entries")?,
        rounds: count(c, "SELECT COUNT(*) FROM rounds")?,
        open_rounds,
        ledger_sum,
        discrepancies: found,
    })
}

/// Each meter: `amount = seeded + contributions - awards`, counters = ledger, and only
/// meter kinds touch it.
fn check_meters(c: &Connection, found: &mut Vec<Discrepancy>) -> R<()> {
    type Row = (i64, String, Option<String>, Option<i64>, i64, i64, i64);
    let meters: Vec<Row> = {
        let mut st = c.prepare(
            "SELECT m.account_id, m.meter_id, a.kind, a.balance_cents, m.seeded_cents, \
             m.contributions_cents, m.awards_cents \
             FROM meters m LEFT JOIN accounts a ON a.id = m.account_id ORDER BY m.meter_id",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    let mut by_kind = c.prepare(
        "SELECT e.kind, p.amount_cents, e.id FROM postings p JOIN entries e ON e.id = p.entry_id \
         WHERE p.account_id = ?1 ORDER BY e.id",
    )?;
    for (account_id, meter, kind, amount, seeded, contributions, awards) in meters {
        let (Some(kind), Some(amount)) = (kind, amount) else {
            found.push(Discrepancy::MeterMismatch {
                meter,
                detail: "its account is missing".to_string(),
            });
            continue;
        };
        if kind != "meter" {
            found.push(Discrepancy::MeterMismatch {
                meter,
                detail: format!("its account is a `{kind}` account, not a meter"),
            });
            continue;
        }
        let (mut l_seed, mut l_contrib, mut l_award) = (0i128, 0i128, 0i128);
        let mut rows = by_kind.query([account_id])?;
        while let Some(r) = rows.next()? {
            let k: String = r.get(0)?;
            let v = i128::from(r.get::<_, i64>(1)?);
            match k.as_str() {
                "seed" => l_seed += v,
                "contribution" => l_contrib += v,
                "award" => l_award -= v,
                _ => found.push(Discrepancy::MeterWrongKind {
                    meter: meter.clone(),
                    entry: r.get(2)?,
                    kind: k,
                }),
            }
        }
        found.extend(
            crate::books::MeterTally {
                meter: meter.clone(),
                amount,
                seeded,
                contributions,
                awards,
                ledger_seeds: l_seed,
                ledger_contributions: l_contrib,
                ledger_awards: l_award,
            }
            .discrepancies(),
        );
    }
    // A meter account without its meters row.
    let mut st = c.prepare(
        "SELECT a.name FROM accounts a LEFT JOIN meters m ON m.account_id = a.id \
         WHERE a.kind = 'meter' AND m.account_id IS NULL",
    )?;
    let orphans = st
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for meter in orphans {
        found.push(Discrepancy::MeterMismatch {
            meter,
            detail: "its account has no meter record (reset value unknown)".to_string(),
        });
    }
    Ok(())
}

/// Each round: its seed matches its hash; nothing written after it ended. Returns the
/// open rounds.
/// Each shoe's seed matches its published commitment.
fn check_shoes(c: &Connection, found: &mut Vec<Discrepancy>) -> R<()> {
    let mut st = c.prepare("SELECT id, seed, commitment FROM shoe_seeds ORDER BY id")?;
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Vec<u8>>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (shoe, seed, commitment) in rows {
        match <[u8; 32]>::try_from(seed.as_slice()) {
            Ok(s) if seed_hash(&s) == commitment => {}
            Ok(_) => found.push(Discrepancy::ShoeCommitmentMismatch { shoe }),
            Err(_) => found.push(Discrepancy::Unreadable {
                detail: format!("shoe {shoe} has a seed of {} bytes, not 32", seed.len()),
            }),
        }
    }
    Ok(())
}

fn check_rounds(c: &Connection, found: &mut Vec<Discrepancy>) -> R<Vec<RoundId>> {
    check_shoes(c, found)?;
    type Row = (i64, Vec<u8>, String, String, Option<i64>, Option<i64>);
    let mut st = c.prepare(
        "SELECT id, seed, seed_sha256, status, last_step, last_entry FROM rounds ORDER BY id",
    )?;
    let rounds = st
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<Row>>>()?;
    let mut steps_after =
        c.prepare("SELECT COUNT(*) FROM round_steps WHERE round_id = ?1 AND seq > ?2")?;
    let mut events_after =
        c.prepare("SELECT COUNT(*) FROM round_events WHERE round_id = ?1 AND step_seq > ?2")?;
    let mut entries_after = c.prepare(
        "SELECT COUNT(*) FROM entries WHERE round_id = ?1 AND (id > ?2 OR step_seq > ?3)",
    )?;
    let mut open = Vec::new();
    for (id, seed, hash, status, last_step, last_entry) in rounds {
        match round_head(found, id, &seed, &hash, &status, (last_step, last_entry)) {
            Head::Open => open.push(RoundId(id)),
            Head::Ended {
                last_step,
                last_entry,
            } => {
                let steps: i64 = steps_after.query_row([id, last_step], |r| r.get(0))?;
                let events: i64 = events_after.query_row([id, last_step], |r| r.get(0))?;
                let entries: i64 =
                    entries_after.query_row([id, last_entry, last_step], |r| r.get(0))?;
                written_after_end(found, RoundId(id), steps, events, entries);
            }
            Head::Unreadable => {}
        }
    }
    Ok(open)
}
