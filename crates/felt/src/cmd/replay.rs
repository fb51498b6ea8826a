//! `felt replay ROUND`: replays a stored round through the engine from its stored shoe,
//! seed and actions, and proves the result identical to the stored log (or reports
//! every difference, and exits non-zero).

use anyhow::{bail, Result};
use felt_session::journal;
use felt_store::{RoundId, RoundRecord, RoundStatus};
use std::io::Write as _;

/// Arguments of `felt replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The round id (see `felt history`).
    #[arg(required_unless_present = "all")]
    pub round: Option<i64>,
    /// Replay every round in the books.
    #[arg(long, conflicts_with = "round")]
    pub all: bool,
    /// The rules to replay under (a preset or a rules file). Default: the rules the
    /// books keep with the round; others must be the same rules (their hash is checked).
    #[arg(long)]
    pub rules: Option<String>,
    /// The books (an SQLite file). Default: $FELT_DB, else felt.db in the user's data
    /// directory.
    #[arg(long)]
    pub db: Option<String>,
}

/// Replays and reports.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let (_, store) = crate::cmd::books::open_books(a.db.as_deref())?;
    let store = store.as_ref();
    let rounds: Vec<RoundRecord> = if a.all {
        let mut v = store.history(usize::MAX)?;
        v.reverse();
        v
    } else {
        let id = a.round.unwrap_or_default();
        match store.round(RoundId(id))? {
            Some(r) => vec![r],
            None => bail!("there is no round {id} in the books: list them with `felt history`"),
        }
    };
    let mut bad = 0usize;
    for rec in &rounds {
        let what = match rec.status {
            RoundStatus::Finished => "",
            RoundStatus::Open => " (open: replayed as far as it went)",
            RoundStatus::Voided => " (voided: replayed up to the void)",
        };
        // A round that cannot be replayed at all is one more difference: the others
        // are still replayed.
        let replayed = crate::game_arg::round_ctx(store, rec, a.rules.as_deref())
            .and_then(|ctx| Ok(journal::replay(&ctx, rec)?));
        let differences = match replayed {
            Ok(r) if r.differences.is_empty() => {
                if !a.all {
                    writeln!(
                        out,
                        "Round {}{what}: {} steps replayed from its stored shoe, seed (SHA-256 \
                         {}), rules and actions: identical to the stored log ({} events, {} \
                         movements{}).",
                        rec.id,
                        r.steps,
                        rec.seed_sha256,
                        rec.events.len(),
                        rec.movements.len(),
                        if rec.status == RoundStatus::Finished {
                            ", result and shoe"
                        } else {
                            ""
                        }
                    )?;
                }
                continue;
            }
            Ok(r) => r.differences,
            Err(e) => vec![format!("it cannot be replayed: {e:#}")],
        };
        bad += 1;
        writeln!(
            out,
            "Round {}{what}: the replay DIFFERS from the stored log:",
            rec.id
        )?;
        for d in &differences {
            writeln!(out, "  - {d}")?;
        }
    }
    if a.all {
        writeln!(
            out,
            "{} rounds replayed: {} identical to their stored log, {} differ.",
            rounds.len(),
            rounds.len() - bad,
            bad
        )?;
    }
    if bad > 0 {
        bail!("{bad} round(s) differ from their stored log");
    }
    Ok(())
}
