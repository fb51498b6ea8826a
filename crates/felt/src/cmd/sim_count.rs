//! `felt sim`'s counting, risk and shard options, and `felt merge FILES...`.

use anyhow::{bail, Context, Result};
use felt_core::money::Money;
use felt_sim::count::{DeckEstimation, TcRounding};
use felt_sim::counting::{parse_ramp, CountSpec, CountingOptions, RiskOptions};
use felt_sim::{report, ShardFile};
use std::io::Write as _;
use std::path::PathBuf;

/// Counting in the simulator (`felt sim --count ...`).
#[derive(Debug, Clone, clap::Args)]
pub struct CountArgs {
    /// Count the cards with this count: a preset (hi-lo, ko, hi-opt-1, hi-opt-2,
    /// omega-2, zen, wong-halves, insurance) or a count file.
    #[arg(long, value_name = "NAME|FILE")]
    pub count: Option<String>,
    /// How the decks left are estimated for the true count: exact, quarter, half, full.
    #[arg(long, default_value = "half", value_name = "RESOLUTION")]
    pub deck_estimation: DeckEstimation,
    /// How the true count is made an integer: floor, truncate or round.
    #[arg(long, default_value = "floor")]
    pub tc_rounding: TcRounding,
    /// An unbalanced count's initial running count (default: -(deck sum) x (decks - 1)).
    #[arg(long, allow_negative_numbers = true)]
    pub irc: Option<i32>,
    /// The bet ramp, true count:units steps, e.g. `1:1,2:2,3:4,4:8` (default: flat 1 unit).
    #[arg(long, allow_hyphen_values = true, value_name = "TC:UNITS,...")]
    pub ramp: Option<String>,
    /// The betting unit, an amount (default: the table minimum).
    #[arg(long)]
    pub unit: Option<Money>,
    /// The table's minimum main bet, replacing the rules' (an amount).
    #[arg(long)]
    pub table_min: Option<Money>,
    /// The table's maximum main bet, replacing the rules' (an amount).
    #[arg(long)]
    pub table_max: Option<Money>,
    /// Back-count: sit in (each shoe) at this true count and above.
    #[arg(long, allow_negative_numbers = true)]
    pub wong_in: Option<i32>,
    /// Leave the shoe at a true count below this.
    #[arg(long, allow_negative_numbers = true)]
    pub wong_out: Option<i32>,
    /// Place the side bets only at this true count and above.
    #[arg(long, allow_negative_numbers = true)]
    pub side_at: Option<i32>,
    /// Index plays (a TOML file of [[index]] hand, up, play, index; or `felt indices --json`).
    #[arg(long, value_name = "FILE")]
    pub indices: Option<PathBuf>,
    /// Simulate the risk of ruin of this bankroll (units), beside the formula's.
    #[arg(long)]
    pub bankroll: Option<f64>,
    /// A trip ends won once the bankroll has grown by this (units).
    #[arg(long)]
    pub goal: Option<f64>,
    /// Rounds played per simulated trip (default 16,384; at most 65,536).
    #[arg(long)]
    pub hands: Option<u64>,
    /// Run one shard I of N (1-based) and write its exact sums as JSON, for `felt merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Where `--shard` writes its sums (default: standard output).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub out: Option<PathBuf>,
}

impl CountArgs {
    /// The counting options these arguments ask for.
    pub fn options(&self) -> Result<Option<CountingOptions>> {
        let Some(name) = &self.count else {
            let given = [
                (self.ramp.is_some(), "--ramp"),
                (self.unit.is_some(), "--unit"),
                (self.table_min.is_some(), "--table-min"),
                (self.table_max.is_some(), "--table-max"),
                (self.wong_in.is_some(), "--wong-in"),
                (self.wong_out.is_some(), "--wong-out"),
                (self.side_at.is_some(), "--side-at"),
                (self.indices.is_some(), "--indices"),
                (self.bankroll.is_some(), "--bankroll"),
                (self.goal.is_some(), "--goal"),
                (self.hands.is_some(), "--hands"),
                (self.irc.is_some(), "--irc"),
            ];
            if let Some((_, flag)) = given.iter().find(|(g, _)| *g) {
                bail!("{flag} needs a count: give --count hi-lo (or another count)");
            }
            return Ok(None);
        };
        let count = crate::cmd::count::load_count(name)?;
        let indices = match &self.indices {
            None => None,
            Some(p) => {
                let text = crate::bounded::read_text(
                    p,
                    "the index file",
                    felt_sim::indices::MAX_INDEX_FILE as u64,
                )?;
                Some(felt_sim::indices::parse(&text, &p.display().to_string())?)
            }
        };
        if self.bankroll.is_none() && (self.goal.is_some() || self.hands.is_some()) {
            bail!("--goal and --hands need --bankroll");
        }
        for (m, flag) in [
            (self.unit, "--unit"),
            (self.table_min, "--table-min"),
            (self.table_max, "--table-max"),
        ] {
            if let Some(m) = m.filter(|m| m.0 <= 0) {
                bail!("{flag} {m}: give an amount above zero");
            }
        }
        Ok(Some(CountingOptions {
            count: CountSpec::from(&count),
            irc: self.irc,
            estimation: self.deck_estimation,
            rounding: self.tc_rounding,
            ramp: self
                .ramp
                .as_deref()
                .map(parse_ramp)
                .transpose()?
                .unwrap_or_default(),
            unit: self.unit.map(|m| m.0),
            table_min: self.table_min.map(|m| m.0),
            table_max: self.table_max.map(|m| m.0),
            wong_in: self.wong_in,
            wong_out: self.wong_out,
            side_at: self.side_at,
            indices,
            risk: self.bankroll.map(|b| RiskOptions {
                bankroll: b,
                goal: self.goal,
                hands: self.hands,
            }),
        }))
    }

    /// `--shard I/N` as (0-based I, N).
    pub fn shard(&self) -> Result<Option<(u64, u64)>> {
        let Some(s) = &self.shard else {
            return Ok(None);
        };
        let parsed = s.split_once('/').and_then(|(i, n)| {
            Some((i.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?))
        });
        match parsed {
            Some((i, n)) if (1..=n).contains(&i) && n <= 1_000_000 => Ok(Some((i - 1, n))),
            _ => bail!("--shard {s}: give I/N, shard I of N, 1 <= I <= N <= 1000000"),
        }
    }

    /// Writes a shard's sums where `--out` says.
    pub fn write_shard(&self, f: &ShardFile) -> Result<()> {
        let text = serde_json::to_string(f)?;
        match &self.out {
            Some(p) => std::fs::write(p, text + "\n")
                .with_context(|| format!("cannot write the shard file {}", p.display())),
            None => {
                let mut out = std::io::stdout().lock();
                writeln!(out, "{text}")?;
                Ok(())
            }
        }
    }
}

/// Arguments of `felt merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shard files (`felt sim --shard I/N`), every shard of one run once.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The largest shard file read (its sums are a few hundred KB at most).
const MAX_SHARD_FILE: u64 = 64 << 20;

/// Merges shard files into the run's report.
pub fn merge(a: &MergeArgs) -> Result<()> {
    let mut files = Vec::new();
    for p in &a.files {
        let text = crate::bounded::read_text(p, "the shard file", MAX_SHARD_FILE)?;
        let f: ShardFile = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a shard file of felt sim --shard", p.display()))?;
        files.push(f);
    }
    let r = felt_sim::merge_shards(&files)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", report::text(&r))?;
    }
    Ok(())
}
