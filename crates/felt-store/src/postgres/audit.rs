//! `check_books`: recompute everything from the ledger rows and compare (the same
//! findings, in the same order, as the SQLite audit; sums are taken wide, as text).

use super::conn::{get, Conn};
use super::error::{damaged, R};
use super::read::account;
use crate::books::{round_head, written_after_end, BooksReport, Discrepancy, Head};
use crate::model::{seed_hash, RoundId};
use felt_core::money::Money;

fn count(c: &mut Conn, sql: &str) -> R<usize> {
    let n: i64 = get(&c.one(sql, &[])?, 0)?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// A wide sum the server gives as text.
fn wide(text: &str) -> R<i128> {
    text.parse::<i128>().map_err(|_| {
        damaged(format!(
            "a sum of the ledger is `{text}`, not a whole number"
        ))
    })
}

fn money(v: i128) -> Money {
    Money::cents(i64::try_from(v).unwrap_or(i64::MAX))
}

/// Audits the books; only a database failure is an error, every inconsistency is a
/// [`Discrepancy`] in the report.
pub(crate) fn check(c: &mut Conn) -> R<BooksReport> {
    let mut found = Vec::new();

    // The ledger as a whole.
    let total = wide(&get::<String>(
        &c.one(
            "SELECT COALESCE(SUM(amount_cents::numeric), 0)::text FROM postings",
            &[],
        )?,
        0,
    )?)?;
    let ledger_sum = money(total);
    if total != 0 {
        found.push(Discrepancy::LedgerNotZero { sum: ledger_sum });
    }

    // Each entry: two postings that sum to zero.
    for r in c.query(
        "SELECT e.id, COUNT(p.id)::bigint, COALESCE(SUM(p.amount_cents::numeric), 0)::text \
         FROM entries e LEFT JOIN postings p ON p.entry_id = e.id GROUP BY e.id \
         HAVING COUNT(p.id) <> 2 OR COALESCE(SUM(p.amount_cents::numeric), 0) <> 0 \
         ORDER BY e.id",
        &[],
    )? {
        let entry: i64 = get(&r, 0)?;
        let n: i64 = get(&r, 1)?;
        let sum = wide(&get::<String>(&r, 2)?)?;
        if n != 2 {
            found.push(Discrepancy::EntryIncomplete {
                entry,
                postings: usize::try_from(n).unwrap_or(0),
            });
        } else if sum != 0 {
            found.push(Discrepancy::EntryUnbalanced {
                entry,
                sum: money(sum),
            });
        }
    }

    // Each account: kept balance = sum of its postings; wallets and meters >= 0.
    let mut accounts = 0usize;
    for r in c.query(
        "SELECT a.id, a.kind, a.name, a.balance_cents, \
         COALESCE((SELECT SUM(p.amount_cents::numeric) FROM postings p \
         WHERE p.account_id = a.id), 0)::text \
         FROM accounts a ORDER BY a.id",
        &[],
    )? {
        accounts += 1;
        let id: i64 = get(&r, 0)?;
        let kind: String = get(&r, 1)?;
        let kept: i64 = get(&r, 3)?;
        let acct = match account(&kind, get(&r, 2)?) {
            Ok(a) => a,
            Err(_) => {
                found.push(Discrepancy::Unreadable {
                    detail: format!("account {id} has the unknown kind `{kind}`"),
                });
                continue;
            }
        };
        let ledger = wide(&get::<String>(&r, 4)?)?;
        if i128::from(kept) != ledger {
            found.push(Discrepancy::BalanceMismatch {
                account: acct.clone(),
                kept: Money::cents(kept),
                ledger: money(ledger),
            });
        }
        if acct.must_stay_non_negative() && kept < 0 {
            found.push(Discrepancy::NegativeBalance {
                account: acct,
                balance: Money::cents(kept),
            });
        }
    }

    // Chips on a felt only while a round is open at its table.
    for r in c.query(
        "SELECT a.name, a.balance_cents FROM accounts a WHERE a.kind = 'felt' \
         AND a.balance_cents <> 0 AND NOT EXISTS \
         (SELECT 1 FROM rounds r WHERE r.status = 'open' AND r.table_id = a.name) \
         ORDER BY a.name COLLATE \"C\"",
        &[],
    )? {
        found.push(Discrepancy::FeltNotCleared {
            table: get(&r, 0)?,
            balance: Money::cents(get(&r, 1)?),
        });
    }

    check_meters(c, &mut found)?;
    let open_rounds = check_rounds(c, &mut found)?;

    Ok(BooksReport {
        accounts,
        entries: count(c, "SELECT COUNT(*)::bigint FROM entries")?,
        rounds: count(c, "SELECT COUNT(*)::bigint FROM rounds")?,
        open_rounds,
        ledger_sum,
        discrepancies: found,
    })
}

/// Each meter: `amount = seeded + contributions - awards`, counters = ledger, and only
/// meter kinds touch it.
fn check_meters(c: &mut Conn, found: &mut Vec<Discrepancy>) -> R<()> {
    let meters = c.query(
        "SELECT m.account_id, m.meter_id, a.kind, a.balance_cents, m.seeded_cents, \
         m.contributions_cents, m.awards_cents \
         FROM meters m LEFT JOIN accounts a ON a.id = m.account_id \
         ORDER BY m.meter_id COLLATE \"C\"",
        &[],
    )?;
    for r in &meters {
        let account_id: i64 = get(r, 0)?;
        let meter: String = get(r, 1)?;
        let kind: Option<String> = get(r, 2)?;
        let amount: Option<i64> = get(r, 3)?;
        let (seeded, contributions, awards): (i64, i64, i64) = (get(r, 4)?, get(r, 5)?, get(r, 6)?);
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
        for k in c.query(
            "SELECT e.kind, p.amount_cents, e.id FROM postings p \
             JOIN entries e ON e.id = p.entry_id WHERE p.account_id = $1 ORDER BY e.id",
            &[&account_id],
        )? {
            let kind: String = get(&k, 0)?;
            let v = i128::from(get::<i64>(&k, 1)?);
            match kind.as_str() {
                "seed" => l_seed += v,
                "contribution" => l_contrib += v,
                "award" => l_award -= v,
                _ => found.push(Discrepancy::MeterWrongKind {
                    meter: meter.clone(),
                    entry: get(&k, 2)?,
                    kind,
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
    for r in c.query(
        "SELECT a.name FROM accounts a LEFT JOIN meters m ON m.account_id = a.id \
         WHERE a.kind = 'meter' AND m.account_id IS NULL",
        &[],
    )? {
        found.push(Discrepancy::MeterMismatch {
            meter: get(&r, 0)?,
            detail: "its account has no meter record (reset value unknown)".to_string(),
        });
    }
    Ok(())
}

/// Each shoe's seed matches its published commitment.
fn check_shoes(c: &mut Conn, found: &mut Vec<Discrepancy>) -> R<()> {
    for r in c.query(
        "SELECT id, seed, commitment FROM shoe_seeds ORDER BY id",
        &[],
    )? {
        let shoe: i64 = get(&r, 0)?;
        let seed: &[u8] = get(&r, 1)?;
        let commitment: String = get(&r, 2)?;
        match <[u8; 32]>::try_from(seed) {
            Ok(s) if seed_hash(&s) == commitment => {}
            Ok(_) => found.push(Discrepancy::ShoeCommitmentMismatch { shoe }),
            Err(_) => found.push(Discrepancy::Unreadable {
                detail: format!("shoe {shoe} has a seed of {} bytes, not 32", seed.len()),
            }),
        }
    }
    Ok(())
}

/// Each round: its seed matches its hash; nothing written after it ended. Returns the
/// open rounds.
fn check_rounds(c: &mut Conn, found: &mut Vec<Discrepancy>) -> R<Vec<RoundId>> {
    check_shoes(c, found)?;
    let rounds = c.query(
        "SELECT r.id, r.seed, r.seed_sha256, r.status, r.last_step, r.last_entry, \
         (SELECT COUNT(*) FROM round_steps s \
          WHERE s.round_id = r.id AND s.seq > r.last_step)::bigint, \
         (SELECT COUNT(*) FROM round_events v \
          WHERE v.round_id = r.id AND v.step_seq > r.last_step)::bigint, \
         (SELECT COUNT(*) FROM entries e \
          WHERE e.round_id = r.id AND (e.id > r.last_entry OR e.step_seq > r.last_step))::bigint \
         FROM rounds r ORDER BY r.id",
        &[],
    )?;
    let mut open = Vec::new();
    for r in &rounds {
        let id: i64 = get(r, 0)?;
        let status: String = get(r, 3)?;
        let end = (get(r, 4)?, get(r, 5)?);
        match round_head(found, id, get(r, 1)?, get(r, 2)?, &status, end) {
            Head::Open => open.push(RoundId(id)),
            Head::Ended { .. } => {
                written_after_end(found, RoundId(id), get(r, 6)?, get(r, 7)?, get(r, 8)?)
            }
            Head::Unreadable => {}
        }
    }
    Ok(open)
}
