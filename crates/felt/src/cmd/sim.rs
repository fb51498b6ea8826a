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
    /// Rounds to play (each round: every spot's main bet and side bets): a whole
    /// number, written 1000000, 1_000_000, 1,000,000 or 1e6.
    #[arg(long, default_value = "1000000", value_parser = parse_rounds)]
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
    /// With --count: draw the main game's edge by true count with its 95% interval, and
    /// the true count's frequency, as an SVG file.
    #[arg(long, value_name = "FILE.svg", requires = "count")]
    pub plot: Option<std::path::PathBuf>,
    /// Counting, bet ramp, indices, risk of ruin and sharding.
    #[command(flatten)]
    pub count: crate::cmd::sim_count::CountArgs,
}

/// Runs the simulation and prints the report.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    if let Some(t) = a.threads.filter(|t| !(1..=MAX_THREADS).contains(t)) {
        bail!("--threads {t}: give 1 to {MAX_THREADS}, or leave it out to use every core");
    }
    let penetration = a.penetration.map(penetration_fraction).transpose()?;
    let counting = a.count.options()?;
    let shard = a.count.shard()?;
    if let Some(p) = &a.plot {
        if shard.is_some() {
            bail!("--plot draws a whole run: merge the shards with `felt merge` first");
        }
        crate::cmd::plot::check(p)?;
    }
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
    let bar = std::io::stderr()
        .is_terminal()
        .then(|| progress_bar(a.strategy, ProgressDrawTarget::stderr()));
    // A shard's bar counts its own rounds.
    let bar_rounds = shard.map_or(a.rounds, |(i, n)| {
        felt_sim::runner::shard_chunks(a.rounds, i, n)
            .map(|c| felt_sim::runner::chunk_len(a.rounds, c))
            .sum()
    });
    let progress = bar.clone().map(|b| {
        Arc::new(move |n: u64| on_rounds(&b, bar_rounds, n)) as Arc<dyn Fn(u64) + Send + Sync>
    });
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
    if let (Some(path), Some(c)) = (&a.plot, &r.counting) {
        crate::cmd::plot::write(path, &crate::cmd::plot::true_count_panels(c))?;
    }
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", report::text(&r))?;
    }
    Ok(())
}

/// The progress line on standard error (shown only on a terminal): first a spinner
/// naming the set-up (the composition-dependent strategy takes seconds to compute),
/// then, from the first rounds played, a bar of rounds.
fn progress_bar(strategy: StrategyKind, target: ProgressDrawTarget) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, target);
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}") {
        bar.set_style(style);
    }
    bar.set_message(match strategy {
        StrategyKind::Composition => {
            "setting up: computing the composition-dependent strategy for every two-card hand"
                .to_string()
        }
        _ => "setting up: computing the basic strategy".to_string(),
    });
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// `n` more rounds played: the set-up line becomes the bar of `rounds` rounds.
fn on_rounds(bar: &ProgressBar, rounds: u64, n: u64) {
    if bar.length().is_none() {
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} rounds (eta {eta})",
        ) {
            bar.set_style(style);
        }
        bar.set_message("");
        bar.set_length(rounds);
    }
    bar.inc(n);
}

/// `--rounds`: a whole number of rounds, at least 1, written with digits, with `_` or
/// `,` between groups of digits (`1_000_000`, `1,000,000`), or in scientific notation
/// (`1e6`, `2.5e6`) when that is a whole number.
fn parse_rounds(text: &str) -> Result<u64, String> {
    let how = "write a whole number of rounds, e.g. 1000000, 1_000_000, 1,000,000 or 1e6";
    let t = text.trim();
    let refuse = |why: &str| format!("`{text}` {why}: {how}");
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => {
            let e: u32 = e
                .strip_prefix('+')
                .unwrap_or(e)
                .parse()
                .map_err(|_| refuse("has no whole exponent"))?;
            (m, e)
        }
        None => (t, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let grouped = |s: &str| {
        !s.is_empty()
            && !s.starts_with(['_', ','])
            && !s.ends_with(['_', ','])
            && !s.contains("__")
            && !s.contains(",,")
            && s.chars()
                .all(|c| c.is_ascii_digit() || c == '_' || c == ',')
    };
    if !grouped(whole) || !(fraction.is_empty() || fraction.chars().all(|c| c.is_ascii_digit())) {
        return Err(refuse("is not a number of rounds"));
    }
    let digits: String = whole.chars().filter(char::is_ascii_digit).collect();
    let fraction = fraction.trim_end_matches('0');
    let shift = exponent
        .checked_sub(u32::try_from(fraction.len()).unwrap_or(u32::MAX))
        .ok_or_else(|| refuse("is not a whole number"))?;
    let too_large = || {
        refuse(&format!(
            "is more rounds than felt counts (at most {})",
            u64::MAX
        ))
    };
    let value: u64 = format!("{digits}{fraction}")
        .parse::<u128>()
        .ok()
        .and_then(|v| 10u128.checked_pow(shift).and_then(|p| v.checked_mul(p)))
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(too_large)?;
    if value == 0 {
        return Err(refuse("is no rounds"));
    }
    Ok(value)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_are_read_as_people_write_them() {
        for (text, n) in [
            ("1000000", 1_000_000),
            ("1_000_000", 1_000_000),
            ("1,000,000", 1_000_000),
            ("1e6", 1_000_000),
            ("1E6", 1_000_000),
            ("2.5e6", 2_500_000),
            ("1.50e2", 150),
            ("1", 1),
            ("1e0", 1),
        ] {
            assert_eq!(parse_rounds(text), Ok(n), "{text}");
        }
        for text in [
            "0", "0e6", "1.5", "1.5e0", "-1", "1e", "e6", "1__000", "_1", "1,", "x", "", "1e20",
            "1e-3",
        ] {
            let e = parse_rounds(text).unwrap_err();
            assert!(
                e.contains(&format!("`{text}`")) && e.contains("1e6"),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn the_progress_line_names_the_set_up_until_rounds_are_played() {
        let bar = progress_bar(StrategyKind::Composition, ProgressDrawTarget::hidden());
        assert!(
            bar.message().contains("composition-dependent strategy"),
            "{}",
            bar.message()
        );
        assert_eq!(bar.length(), None);
        on_rounds(&bar, 10, 3);
        assert_eq!((bar.length(), bar.position()), (Some(10), 3));
        assert!(bar.message().is_empty());
        on_rounds(&bar, 10, 7);
        assert_eq!(bar.position(), 10);
    }
}
