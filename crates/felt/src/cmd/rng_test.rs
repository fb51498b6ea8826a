//! `felt rng-test`: a battery of statistical tests on shoes shuffled by felt's own
//! dealing path (seeds from the operating system, or `--seed`), on recorded shoes
//! (`--input FILE`, one shoe a line), or on the books' retired shoes (`--db`), with a
//! verdict for each test at the 99% level and one for the battery under Holm's
//! correction. `--planted KIND` runs it on a source with a planted bias instead, to show
//! that it fails. Exits non-zero when the battery rejects the shuffle.

use anyhow::{bail, Context, Result};
use felt_core::Shoe;
use felt_rngtest::source::{self, Planted};
use felt_rngtest::{Battery, Report};
use felt_session::dealing::{shoe_order, Seeds};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;

/// Arguments of `felt rng-test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Shoes to shuffle (felt's dealing path, or a planted source).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub shuffles: u64,
    /// Decks a shoe (1 to 8). With --db: only the retired shoes of this many decks
    /// (default: the count most of them have).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub decks: Option<u8>,
    /// Draw the shoes' seeds from this lab seed instead of the operating system's
    /// entropy (the same seed gives the same report).
    #[arg(long, conflicts_with_all = ["input", "db"])]
    pub seed: Option<u64>,
    /// Test recorded shoes: one shoe a line, its cards as `felt play --shoe` reads
    /// them (`Ah 10d 7s ...`); `#` starts a comment line.
    #[arg(long, conflicts_with_all = ["db", "planted"])]
    pub input: Option<PathBuf>,
    /// Test the retired shoes of these books (SQLite file or postgres:// URL): the
    /// order each revealed seed shuffles, as `felt verify` checks it against the cards
    /// dealt, and the seeds themselves.
    #[arg(long, conflicts_with = "planted")]
    pub db: Option<String>,
    /// Run the battery on a source with a bias planted on purpose (it must fail).
    #[arg(long, value_enum)]
    pub planted: Option<Planted>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the battery.
pub fn run(a: &Args) -> Result<()> {
    let report = if let Some(path) = &a.input {
        recorded(path, a.decks.unwrap_or(6))?
    } else if a.db.is_some() {
        books(a.db.as_deref(), a.decks)?
    } else {
        let mut battery = Battery::new(a.decks.unwrap_or(6));
        if let Some(kind) = a.planted {
            source::plant(&mut battery, kind, a.shuffles, a.seed.unwrap_or(0))?;
            let mut report = battery.finish();
            report.scaling = None;
            return print(a, &report);
        } else {
            let mut seeds = match a.seed {
                Some(s) => Seeds::Lab {
                    rng: Box::new(ChaCha20Rng::seed_from_u64(s)),
                    mark: format!("--seed {s}"),
                },
                None => Seeds::Entropy,
            };
            source::deal(&mut battery, &mut seeds, a.shuffles)?;
        }
        battery.finish()
    };
    print(a, &report)
}

/// Prints the report; an error (a non-zero exit) when the battery rejects the shuffle.
fn print(a: &Args, report: &Report) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, report)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", report.text())?;
    }
    out.flush()?;
    if !report.passes {
        bail!(
            "the battery rejects the shuffle ({} of {} tests after Holm's correction)",
            report.rejected,
            report.tests.len()
        );
    }
    Ok(())
}

fn recorded(path: &std::path::Path, decks: u8) -> Result<Report> {
    let text = crate::bounded::read_text(path, "the shoes file", 256 << 20)?;
    let mut battery = Battery::new(decks);
    source::read_shoes(&mut battery, &text)
        .with_context(|| format!("in the shoes file {}", path.display()))?;
    if battery.shoes() == 0 {
        bail!("no shoe in {}", path.display());
    }
    Ok(battery.finish())
}

fn books(db: Option<&str>, decks: Option<u8>) -> Result<Report> {
    let (_, store) = crate::cmd::books::open_books(db)?;
    let store = store.as_ref();
    // Each retired shoe with the decks its first round was dealt from.
    let mut shoes = Vec::new();
    for shoe in store.shoe_seeds()? {
        let Some(seed) = shoe.revealed() else {
            continue;
        };
        if shoe.lab.as_deref().is_some_and(|l| l.contains("--shoe")) {
            continue;
        }
        let first = store.rounds_of_shoe(shoe.id)?;
        let shoe_decks = first
            .first()
            .and_then(|r| r.shoe_before.as_deref())
            .and_then(|b| Shoe::from_bytes(b).ok())
            .map(|s| s.decks());
        if let Some(d) = shoe_decks {
            shoes.push((d, seed));
        }
    }
    let mut by_decks: BTreeMap<u8, usize> = BTreeMap::new();
    for (d, _) in &shoes {
        *by_decks.entry(*d).or_default() += 1;
    }
    let Some(decks) = decks.or_else(|| by_decks.iter().max_by_key(|(_, n)| **n).map(|(d, _)| *d))
    else {
        bail!("these books hold no retired shoe (a shoe's seed is revealed once it is retired)");
    };
    let mut battery = Battery::new(decks);
    for (_, seed) in shoes.iter().filter(|(d, _)| *d == decks) {
        battery.add_seed(seed);
        battery.add_shoe(&shoe_order(decks, seed))?;
    }
    if battery.shoes() == 0 {
        bail!("these books hold no retired shoe of {decks} deck(s)");
    }
    let mut report = battery.finish();
    let other = shoes.len() - battery.shoes() as usize;
    if other > 0 {
        report.warnings.push(format!(
            "{other} retired shoe(s) of other deck counts left out (--decks)"
        ));
    }
    Ok(report)
}
