//! `felt books`: balances, progressive meters (with their last awards) and the audit of
//! the books. Exits non-zero when the books do not balance.

use anyhow::{bail, Result};
use felt_store::{BooksAt, Store};
use std::io::Write as _;

/// Arguments of `felt books`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The books: an SQLite file, or a PostgreSQL database (`postgres://...`).
    /// Default: $FELT_DB, else felt.db in the user's data directory.
    #[arg(long)]
    pub db: Option<String>,
    /// Print JSON (balances, meters, the audit) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only the incomplete games: every unfinished round, the stakes it holds per
    /// player, and how it will end (resumed or voided by its rules).
    #[arg(long)]
    pub incomplete: bool,
}

/// Opens the books for reading (they must exist already).
pub fn open_books(db: Option<&str>) -> Result<(BooksAt, Box<dyn Store + Send>)> {
    let at = felt_store::resolve_books(db)?;
    if let BooksAt::Sqlite(path) = &at {
        if !path.exists() {
            bail!(
                "there are no books at {} yet: `felt play` creates them (or pass --db PATH / set \
                 FELT_DB to the file you meant)",
                path.display()
            );
        }
    }
    let store = felt_store::open_books_read_only(&at)?;
    Ok((at, store))
}

/// Prints the books.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let (at, store) = open_books(a.db.as_deref())?;
    if a.incomplete {
        return incomplete(&mut out, store.as_ref(), a.json);
    }
    let balances = store.balances()?;
    let meters = store.meters()?;
    let report = store.check_books()?;
    if a.json {
        let v = serde_json::json!({
            "db": at.to_string(),
            "sound": report.is_sound(),
            "balances": balances,
            "meters": meters,
            "check": report,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "Books: {at}")?;
        writeln!(out)?;
        writeln!(out, "Balances")?;
        for b in &balances {
            writeln!(
                out,
                "  {:<40} {:>16}",
                b.account.to_string(),
                b.balance.to_string()
            )?;
        }
        if !meters.is_empty() {
            writeln!(out)?;
            writeln!(out, "Progressive meters")?;
            for m in &meters {
                writeln!(
                    out,
                    "  {}: {} (reset {}; funded {} + contributions {} - awards {})",
                    m.id, m.amount, m.reset, m.seeded, m.contributions, m.awards
                )?;
                if m.recent_awards.is_empty() {
                    writeln!(out, "    no award yet")?;
                }
                for w in &m.recent_awards {
                    let round = w.round.map_or(String::new(), |r| format!(" in round {r}"));
                    writeln!(out, "    {} to {}{round} at {}", w.amount, w.to, w.at)?;
                }
            }
        }
        writeln!(out)?;
        writeln!(out, "Check")?;
        for line in report.to_string().lines() {
            writeln!(out, "  {line}")?;
        }
    }
    if !report.is_sound() {
        bail!(
            "the books at {} do not balance ({} discrepancies): restore a backup, or keep \
             this file for an audit",
            at,
            report.discrepancies.len()
        );
    }
    Ok(())
}

/// `felt books --incomplete`.
fn incomplete(out: &mut impl std::io::Write, store: &dyn Store, json: bool) -> Result<()> {
    use felt_session::incomplete::{report, State};
    use felt_session::recovery::Ending;
    let rounds = report(store)?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&rounds)?)?;
        return Ok(());
    }
    if rounds.is_empty() {
        writeln!(
            out,
            "No incomplete game: every round in the books has ended."
        )?;
    }
    for r in &rounds {
        let state = match &r.state {
            State::InPlay { server } => format!("in play at server {server}"),
            State::Interrupted => "interrupted".to_string(),
        };
        writeln!(
            out,
            "Round {} at table {} ({}), begun {}: {state}",
            r.round.0, r.table, r.game, r.started_at
        )?;
        if r.stakes.is_empty() {
            writeln!(out, "  no stake")?;
        }
        for s in &r.stakes {
            writeln!(out, "  {} holds {}", s.player, s.amount)?;
        }
        let ending = match &r.ending {
            Ending::Opens => "opens from its stored shoe (nothing was dealt)".to_string(),
            Ending::Resumes { steps } => {
                format!("resumes where it stopped ({steps} step(s) replayed identical)")
            }
            Ending::Voids { reason } => format!("is voided and its stakes returned: {reason}"),
        };
        let when = match r.state {
            State::InPlay { .. } => "if its server stops, it",
            State::Interrupted => "when its table is taken up, it",
        };
        writeln!(out, "  {when} {ending}")?;
    }
    Ok(())
}
