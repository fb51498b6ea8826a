//! `felt count NAME|FILE`: each wager's betting correlation with each count, and
//! the best simple count for it, written as a count file.

use anyhow::{Context, Result};
use felt_math::count::{self, count_report, CountReport, CountSystem, LABELS};
use felt_math::eor::effects_of_removal;
use std::fmt::Write;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `felt count`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset game (see `felt games`) or the path of a rules file.
    pub game: String,
    /// Decks to analyse (default: the rules file's).
    #[arg(long)]
    pub decks: Option<u8>,
    /// Progressive meter, in units of the wager (default: the meter's reset).
    #[arg(long, allow_negative_numbers = true)]
    pub meter: Option<f64>,
    /// Compare these counts (a preset: hi-lo, ko, hi-opt-1, hi-opt-2, omega-2, zen,
    /// wong-halves, insurance; or a count file), instead of every preset. Repeatable.
    #[arg(long = "with", value_name = "NAME|FILE")]
    pub with: Vec<String>,
    /// Write each wager's best simple count as a count file in this directory.
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// The operator's vulnerability report instead: for each side bet, with its best
    /// simple count and with Hi-Lo, the true count at which it turns positive and,
    /// simulated at the game's penetration, how often a counter bets it, the advantage
    /// when betting and the win per 100 rounds; a progressive's break-even meter by count.
    #[arg(long)]
    pub report: bool,
    /// With --report: rounds simulated per count.
    #[arg(long, default_value_t = 10_000_000, requires = "report")]
    pub rounds: u64,
    /// With --report: the simulation's seed.
    #[arg(long, default_value_t = 1, requires = "report")]
    pub seed: u64,
    /// With --report: worker threads (default: every core).
    #[arg(long, requires = "report")]
    pub threads: Option<usize>,
    /// With --report: draw, as an SVG file, each progressive's break-even meter by true
    /// count and each other side bet's advantage by true count, one line per count.
    #[arg(long, value_name = "FILE.svg", requires = "report")]
    pub plot: Option<PathBuf>,
}

/// Loads a count by preset name or file path.
pub fn load_count(arg: &str) -> Result<CountSystem> {
    if let Some(c) = count::preset(arg) {
        return Ok(c?);
    }
    let path = Path::new(arg);
    if path.exists() || arg.contains('/') || arg.ends_with(".toml") {
        let text = crate::bounded::read_text(path, "the count file", count::MAX_COUNT_FILE as u64)?;
        return Ok(count::parse(&text, arg)?);
    }
    anyhow::bail!(
        "no count `{arg}`: give a preset ({}) or the path of a count file",
        count::PRESETS
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Prints the report (and writes the fitted counts with `--write`).
pub fn run(a: &Args) -> Result<()> {
    let meter = a.meter.map(crate::cmd::edge::check_meter).transpose()?;
    let counts: Vec<CountSystem> = if a.with.is_empty() {
        count::PRESETS
            .iter()
            .map(|(n, _)| load_count(n))
            .collect::<Result<_>>()?
    } else {
        a.with
            .iter()
            .map(|n| load_count(n))
            .collect::<Result<_>>()?
    };
    let rules = crate::game_arg::load_game(&a.game)?;
    let eor = effects_of_removal(&rules, a.decks, meter)?;
    let report = count_report(&eor, &counts);
    if a.report {
        return vulnerability(a, &rules, &report);
    }
    if let Some(dir) = &a.write {
        for w in &report.wagers {
            let path = dir.join(format!("{}-{}.toml", report.game, w.wager));
            let text = w.best.count.to_toml(&comment(&report, w));
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", render(&report))?;
    }
    Ok(())
}

/// `--report`: each side bet's vulnerability, simulated.
fn vulnerability(a: &Args, rules: &felt_core::Rules, report: &CountReport) -> Result<()> {
    use felt_sim::vulnerability::{self, VulnerabilityOptions};
    if a.rounds < 100_000 {
        anyhow::bail!(
            "--rounds {}: give at least 100000 rounds per count",
            a.rounds
        );
    }
    if let Some(t) = a
        .threads
        .filter(|t| !(1..=felt_sim::MAX_THREADS).contains(t))
    {
        anyhow::bail!("--threads {t}: give 1 to {}", felt_sim::MAX_THREADS);
    }
    let best: Vec<CountSystem> = rules
        .side_bets()
        .iter()
        .map(|b| {
            report
                .wagers
                .iter()
                .find(|w| w.wager == b.id)
                .map(|w| w.best.count.clone())
                .with_context(|| format!("no fitted count for the side bet {}", b.id))
        })
        .collect::<Result<_>>()?;
    if let Some(p) = &a.plot {
        crate::cmd::plot::check(p)?;
    }
    let hi_lo = load_count("hi-lo")?;
    let r = vulnerability::vulnerability(
        rules,
        &best,
        &hi_lo,
        &VulnerabilityOptions {
            rounds: a.rounds,
            seed: a.seed,
            threads: a.threads.unwrap_or(0),
            decks: a.decks,
        },
    )?;
    if let Some(p) = &a.plot {
        crate::cmd::plot::write(p, &vulnerability_panels(&r))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        write!(out, "{}", vulnerability::text(&r))?;
    }
    Ok(())
}

/// One chart per side bet: a progressive's break-even meter by true count (one point
/// per row of the report's meter table), another bet's advantage by true count.
fn vulnerability_panels(
    r: &felt_sim::vulnerability::VulnerabilityReport,
) -> Vec<crate::cmd::plot::Panel> {
    use crate::cmd::plot::{Line, Panel};
    r.bets
        .iter()
        .map(|b| {
            let meter = b.counts.iter().any(|c| !c.meter.is_empty());
            let lines = b
                .counts
                .iter()
                .map(|c| Line {
                    name: c.count.clone(),
                    points: if meter {
                        // at or below zero the bet is positive at any meter
                        c.meter
                            .iter()
                            .filter(|m| m.meter_units > 0.0)
                            .map(|m| (f64::from(m.tc), m.meter_units))
                            .collect()
                    } else {
                        c.by_true_count
                            .iter()
                            .filter_map(|t| t.advantage.map(|e| (f64::from(t.tc), e.value * 100.0)))
                            .collect()
                    },
                })
                .filter(|l| !l.points.is_empty())
                .collect();
            Panel {
                title: if meter {
                    format!("{}: break-even meter by true count", b.name)
                } else {
                    format!("{}: advantage by true count", b.name)
                },
                x_label: "true count".into(),
                y_label: if meter {
                    "break-even meter, units of the wager".into()
                } else {
                    "player advantage, %".into()
                },
                lines,
                band: None,
            }
        })
        .collect()
}

fn comment(r: &CountReport, w: &felt_math::count::WagerCounts) -> String {
    format!(
        "The best simple count for `{}` in {} ({} decks), fitted by `felt count` to the\n\
         wager's exact effects of removal: level {}, betting correlation {}.",
        w.wager,
        r.game,
        r.decks,
        w.best.level,
        bc(w.best.bc)
    )
}

fn bc(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.3}"))
}

/// The report as text: a table of betting correlations, then each best count.
pub fn render(r: &CountReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "BETTING CORRELATIONS  {}, {} deck(s): each count's tags against each wager's exact \
         effects of removal",
        r.game, r.decks
    );
    let _ = writeln!(o);
    let _ = write!(o, "{:<16}", "count");
    for w in &r.wagers {
        let _ = write!(o, "{:>14}", w.wager);
    }
    let _ = writeln!(o);
    for (i, c) in r.counts.iter().enumerate() {
        let _ = write!(o, "{:<16}", c.name);
        for w in &r.wagers {
            let _ = write!(o, "{:>14}", bc(w.correlations[i].bc));
        }
        let _ = writeln!(o);
        if c.side_count.is_some() {
            let _ = write!(o, "{:<16}", "  + side count");
            for w in &r.wagers {
                let _ = write!(o, "{:>14}", bc(w.correlations[i].bc_with_side_count));
            }
            let _ = writeln!(o);
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "BEST SIMPLE COUNT per wager (tags A 2 3 4 5 6 7 8 9 T)");
    for w in &r.wagers {
        let tags: Vec<String> = LABELS
            .iter()
            .zip(w.best.count.tags)
            .map(|(_, t)| format!("{:+}", t + 0.0))
            .collect();
        let _ = writeln!(
            o,
            "  {:<14} level {}  BC {}  {}  [{}]",
            w.wager,
            w.best.level,
            bc(w.best.bc),
            if w.best.count.balanced {
                "balanced  "
            } else {
                "unbalanced"
            },
            tags.join(" ")
        );
    }
    o
}
