//! The audit of the books: what [`Store::check_books`](crate::Store::check_books) finds.

use crate::model::{Account, RoundId};
use felt_core::money::Money;
use serde::Serialize;
use std::fmt;

/// The result of an audit of the books.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BooksReport {
    /// How many accounts there are.
    pub accounts: usize,
    /// How many ledger entries (movements) there are.
    pub entries: usize,
    /// How many rounds there are.
    pub rounds: usize,
    /// Rounds begun and not ended (to replay or void).
    pub open_rounds: Vec<RoundId>,
    /// The sum of all postings (zero in sound books).
    pub ledger_sum: Money,
    /// Everything that does not add up; empty in sound books.
    pub discrepancies: Vec<Discrepancy>,
}

impl BooksReport {
    /// Whether the books are sound: no discrepancy at all.
    pub fn is_sound(&self) -> bool {
        self.discrepancies.is_empty()
    }
}

impl fmt::Display for BooksReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} accounts, {} ledger entries, {} rounds ({} open); ledger sum {}",
            self.accounts,
            self.entries,
            self.rounds,
            self.open_rounds.len(),
            self.ledger_sum
        )?;
        if self.discrepancies.is_empty() {
            write!(f, "the books balance")
        } else {
            write!(f, "{} discrepancies:", self.discrepancies.len())?;
            for d in &self.discrepancies {
                write!(f, "\n  - {d}")?;
            }
            Ok(())
        }
    }
}

/// One thing that does not add up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Discrepancy {
    /// The postings of all entries do not sum to zero.
    LedgerNotZero {
        /// Their sum.
        sum: Money,
    },
    /// One entry's postings do not sum to zero.
    EntryUnbalanced {
        /// The entry.
        entry: i64,
        /// The sum of its postings.
        sum: Money,
    },
    /// An entry without its two postings.
    EntryIncomplete {
        /// The entry.
        entry: i64,
        /// How many postings it has.
        postings: usize,
    },
    /// An account's kept balance differs from the sum of its postings.
    BalanceMismatch {
        /// The account.
        account: Account,
        /// The balance kept in the accounts table.
        kept: Money,
        /// The sum of its postings.
        ledger: Money,
    },
    /// A player wallet or a meter is below zero.
    NegativeBalance {
        /// The account.
        account: Account,
        /// Its balance.
        balance: Money,
    },
    /// Chips left on a table's felt while no round is open at that table.
    FeltNotCleared {
        /// The table.
        table: String,
        /// The chips left.
        balance: Money,
    },
    /// A meter is not `seeds + contributions - awards`, or its kept counters differ from
    /// its ledger.
    MeterMismatch {
        /// The meter id.
        meter: String,
        /// What was found.
        detail: String,
    },
    /// A meter was moved by a kind other than seed, contribution or award.
    MeterWrongKind {
        /// The meter id.
        meter: String,
        /// The entry.
        entry: i64,
        /// Its kind.
        kind: String,
    },
    /// A round that ended has steps, events or money written after its end.
    AfterEnd {
        /// The round.
        round: RoundId,
        /// What was found.
        detail: String,
    },
    /// A round's seed does not hash to the hash written before its first card.
    SeedHashMismatch {
        /// The round.
        round: RoundId,
    },
    /// A shoe's seed does not match the commitment published before its first card.
    ShoeCommitmentMismatch {
        /// The shoe.
        shoe: i64,
    },
    /// A row the books cannot read (an unknown kind or status, a bad seed).
    Unreadable {
        /// What was found.
        detail: String,
    },
}

impl fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Discrepancy::LedgerNotZero { sum } => {
                write!(
                    f,
                    "the ledger sums to {sum}, not 0.00: money was created or lost"
                )
            }
            Discrepancy::EntryUnbalanced { entry, sum } => {
                write!(f, "ledger entry {entry} sums to {sum}, not 0.00")
            }
            Discrepancy::EntryIncomplete { entry, postings } => {
                write!(f, "ledger entry {entry} has {postings} postings, not 2")
            }
            Discrepancy::BalanceMismatch {
                account,
                kept,
                ledger,
            } => write!(
                f,
                "{account}: balance {kept} but its ledger rows sum to {ledger} (off by {})",
                *kept - *ledger
            ),
            Discrepancy::NegativeBalance { account, balance } => {
                write!(f, "{account} is below zero: {balance}")
            }
            Discrepancy::FeltNotCleared { table, balance } => write!(
                f,
                "felt {table}: {balance} in play while no round is open at the table"
            ),
            Discrepancy::MeterMismatch { meter, detail } => write!(f, "meter {meter}: {detail}"),
            Discrepancy::MeterWrongKind { meter, entry, kind } => write!(
                f,
                "meter {meter}: ledger entry {entry} moved it as `{kind}` (only seed, \
                 contribution and award may)"
            ),
            Discrepancy::AfterEnd { round, detail } => {
                write!(f, "round {round}: {detail} after the round ended")
            }
            Discrepancy::SeedHashMismatch { round } => write!(
                f,
                "round {round}: its seed does not match the SHA-256 written before the first card"
            ),
            Discrepancy::ShoeCommitmentMismatch { shoe } => write!(
                f,
                "shoe {shoe}: its seed does not match the commitment published before its \
                 first card"
            ),
            Discrepancy::Unreadable { detail } => write!(f, "unreadable row: {detail}"),
        }
    }
}

/// A meter's counters as kept (cents) and as its ledger rows sum them.
pub(crate) struct MeterTally {
    pub meter: String,
    pub amount: i64,
    pub seeded: i64,
    pub contributions: i64,
    pub awards: i64,
    pub ledger_seeds: i128,
    pub ledger_contributions: i128,
    pub ledger_awards: i128,
}

impl MeterTally {
    /// What is wrong with the meter: its amount is not seeds + contributions - awards,
    /// or a counter disagrees with its ledger rows (the same check on every engine).
    pub(crate) fn discrepancies(&self) -> Vec<Discrepancy> {
        let money = |v: i128| Money::cents(i64::try_from(v).unwrap_or(i64::MAX));
        let mut found = Vec::new();
        let expected =
            i128::from(self.seeded) + i128::from(self.contributions) - i128::from(self.awards);
        if i128::from(self.amount) != expected {
            found.push(Discrepancy::MeterMismatch {
                meter: self.meter.clone(),
                detail: format!(
                    "it holds {} but seeds {} + contributions {} - awards {} = {}",
                    Money::cents(self.amount),
                    Money::cents(self.seeded),
                    Money::cents(self.contributions),
                    Money::cents(self.awards),
                    money(expected)
                ),
            });
        }
        for (what, kept, ledger) in [
            ("seeds", self.seeded, self.ledger_seeds),
            (
                "contributions",
                self.contributions,
                self.ledger_contributions,
            ),
            ("awards", self.awards, self.ledger_awards),
        ] {
            if i128::from(kept) != ledger {
                found.push(Discrepancy::MeterMismatch {
                    meter: self.meter.clone(),
                    detail: format!(
                        "its {what} are kept as {} but its ledger rows say {}",
                        Money::cents(kept),
                        money(ledger)
                    ),
                });
            }
        }
        found
    }
}

/// What the audit goes on to check of a round, after [`round_head`].
pub(crate) enum Head {
    /// Open: listed, nothing more to check.
    Open,
    /// Ended at this step and this ledger entry: nothing may follow them.
    Ended { last_step: i64, last_entry: i64 },
    /// Unreadable (already reported).
    Unreadable,
}

/// Checks a round's seed against its hash and reads its status and end (the same
/// check on every engine); what is wrong goes to `found`.
pub(crate) fn round_head(
    found: &mut Vec<Discrepancy>,
    id: i64,
    seed: &[u8],
    seed_sha256: &str,
    status: &str,
    end: (Option<i64>, Option<i64>),
) -> Head {
    let round = RoundId(id);
    match <[u8; 32]>::try_from(seed) {
        Ok(s) if crate::model::seed_hash(&s) == seed_sha256 => {}
        Ok(_) => found.push(Discrepancy::SeedHashMismatch { round }),
        Err(_) => found.push(Discrepancy::Unreadable {
            detail: format!("round {id} has a seed of {} bytes, not 32", seed.len()),
        }),
    }
    match (status, end) {
        ("open", _) => Head::Open,
        ("finished" | "voided", (Some(last_step), Some(last_entry))) => Head::Ended {
            last_step,
            last_entry,
        },
        ("finished" | "voided", _) => {
            found.push(Discrepancy::Unreadable {
                detail: format!("round {id} is {status} but does not say where it ended"),
            });
            Head::Unreadable
        }
        (other, _) => {
            found.push(Discrepancy::Unreadable {
                detail: format!("round {id} has the unknown status `{other}`"),
            });
            Head::Unreadable
        }
    }
}

/// Reports what was written to a round after it ended: steps, events, ledger entries.
pub(crate) fn written_after_end(
    found: &mut Vec<Discrepancy>,
    round: RoundId,
    steps: i64,
    events: i64,
    entries: i64,
) {
    for (n, what) in [
        (steps, "steps"),
        (events, "events"),
        (entries, "ledger entries"),
    ] {
        if n > 0 {
            found.push(Discrepancy::AfterEnd {
                round,
                detail: format!("{n} {what} written"),
            });
        }
    }
}
