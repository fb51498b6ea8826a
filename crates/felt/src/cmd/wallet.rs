//! `felt wallet`: the calls to the operator's wallet in the books' outbox, with their
//! state (pending, acknowledged, rolled back, failed and why), for the staff who
//! reconcile felt's rounds with the operator's ledger.

use anyhow::Result;
use felt_store::{RoundId, WalletCall, WalletQuery, WalletState};
use std::io::Write as _;

/// Arguments of `felt wallet`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The books: an SQLite file, or a PostgreSQL database (`postgres://...`).
    /// Default: $FELT_DB, else felt.db in the user's data directory.
    #[arg(long)]
    pub db: Option<String>,
    /// Only the calls not yet answered definitively.
    #[arg(long)]
    pub pending: bool,
    /// Only the calls of this round.
    #[arg(long, value_name = "ID")]
    pub round: Option<i64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Lists the calls, oldest first.
pub fn run(a: &Args) -> Result<()> {
    let (_, store) = super::books::open_books(a.db.as_deref())?;
    let calls = store.wallet_calls(&WalletQuery {
        round: a.round.map(RoundId),
        state: a.pending.then_some(WalletState::Pending),
        ..WalletQuery::default()
    })?;
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &calls)?;
        writeln!(out)?;
        return Ok(());
    }
    if calls.is_empty() {
        writeln!(out, "no wallet calls")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:>8}  {:<28} {:<8} {:<16} {:>12}  {:<12} {:>8}  note",
        "round", "transaction", "call", "player", "amount", "state", "attempts"
    )?;
    for c in &calls {
        let line = format!(
            "{:>8}  {:<28} {:<8} {:<16} {:>12}  {:<12} {:>8}  {}",
            c.round.0,
            c.transaction_id,
            c.kind.as_str(),
            c.player,
            c.amount.to_string(),
            c.state.as_str(),
            c.attempts,
            note(c)
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// What the staff need to know beside the state.
fn note(c: &WalletCall) -> String {
    let mut parts = Vec::new();
    if let Some(r) = &c.rolls_back {
        parts.push(format!("rolls back {r}"));
    }
    if let Some(r) = &c.rollback {
        parts.push(format!("rolled back by {r}"));
    }
    if let Some(b) = c.balance {
        parts.push(format!("balance {b}"));
    }
    if let Some(r) = &c.reason {
        parts.push(r.clone());
    } else if c.state == WalletState::Pending {
        if let Some(e) = &c.last_error {
            parts.push(format!("last: {e}"));
        }
    }
    parts.join("; ")
}
