//! `felt sim NAME|FILE --rounds N ...`: Monte Carlo on the real engine, every core,
//! reproducible from the seed.

use anyhow::{bail, Result};
use felt_sim::{report, simulate, SimOptions, Simulator, StrategyKind, MAX_THREADS};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::RngCore;
use std::io::IsTerminal;
use std::io::Write as _;
use std::sync::Arc;

/// Arguments of `felt sim`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// Rounds to play (each round: every spot's main bet and side bets).
    #[arg(long, default_value_t = 1_000_000)]
    pub rounds: u64,
    /// Seed of the run; without it one is drawn from the operating system and printed.
    /// The same seed gives the same figures whatever the thread count.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads, 1 to 1024 (default: every available core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Betting spots each seat plays (1 to the table's spots per player).
    #[arg(long, default_value_t = 1)]
    pub spots: u8,
    /// Seats in play (1 to the table's seats).
    #[arg(long, default_value_t = 1)]
    pub seats: u8,
    /// Number of decks, overriding the rules file (1 to 8).
    #[arg(long)]
    pub decks: Option<u8>,
    /// Penetration: the fraction of the shoe dealt before the cut card (0.75 or 75).
    #[arg(long)]
    pub penetration: Option<f64>,
    /// Deal from a continuous shuffling machine (a full shoe every round).
    #[arg(long)]
    pub csm: bool,
    /// Main bets only: no side bet.
    #[arg(long)]
    pub main_only: bool,
    /// The players' strategy: basic (computed total-dependent) or composition
    /// (exact composition-dependent two-card decisions).
    #[arg(long, default_value = "basic")]
    pub strategy: StrategyKind,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Counting, bet ramp, indices, risk of ruin and sharding.
    #[command(flatten)]
    pub count: crate::cmd::sim_count::CountArgs,
}

/// Runs the simulation and prints the report.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    if a.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    if let Some(t) = a.threads.filter(|t| !(1..=MAX_THREADS).contains(t)) {
        bail!("--threads {t}: give 1 to {MAX_THREADS}, or leave it out to use every core");
    }
    let penetration = a.penetration.map(penetration_fraction).transpose()?;
    let counting = a.count.options()?;
    let shard = a.count.shard()?;
    if shard.is_some() && a.seed.is_none() {
        bail!("--shard needs --seed: every shard of a run must play from the same seed");
    }
    let seed = match a.seed {
        Some(s) => s,
        None => {
            let s = rand::rngs::OsRng.next_u64();
            eprintln!("felt sim: seed {s} (give --seed {s} to repeat this run)");
            s
        }
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let rounds = shard.map_or(a.rounds, |(i, n)| {
            felt_sim::runner::shard_chunks(a.rounds, i, n)
                .map(|c| felt_sim::runner::chunk_len(a.rounds, c))
                .sum()
        });
        let bar = ProgressBar::with_draw_target(Some(rounds), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} rounds (eta {eta})",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let progress = bar
        .clone()
        .map(|b| Arc::new(move |n: u64| b.inc(n)) as Arc<dyn Fn(u64) + Send + Sync>);
    let opts = SimOptions {
        rounds: a.rounds,
        seed: Some(seed),
        threads: a.threads.unwrap_or(0),
        seats: a.seats,
        spots: a.spots,
        decks: a.decks,
        penetration,
        csm: a.csm,
        main_only: a.main_only,
        strategy: a.strategy,
        counting,
        progress,
    };
    if let Some((i, n)) = shard {
        let result = Simulator::new(&rules, &opts).and_then(|s| s.run_shard(i, n));
        if let Some(b) = &bar {
            b.finish_and_clear();
        }
        return a.count.write_shard(&result?);
    }
    let result = simulate(&rules, &opts);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let r = result?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", report::text(&r))?;
    }
    Ok(())
}

/// `--penetration` as a fraction of the shoe: a fraction (0.75) is taken as it is, a
/// percentage (75) is divided by 100.
fn penetration_fraction(p: f64) -> Result<f64> {
    let fraction = if p > 1.0 && p <= 100.0 { p / 100.0 } else { p };
    let allowed = felt_core::rules::PENETRATION;
    if !(fraction.is_finite() && allowed.contains(&fraction)) {
        bail!(
            "--penetration {p}: give the part of the shoe dealt before the cut card, \
             a fraction from {} to {} or a percentage from {} to {}",
            allowed.start(),
            allowed.end(),
            allowed.start() * 100.0,
            allowed.end() * 100.0
        );
    }
    Ok(fraction)
}
