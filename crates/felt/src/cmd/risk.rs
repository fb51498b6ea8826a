//! `felt risk`: risk of ruin, the bankroll for a target risk, N0, DI and SCORE.

use anyhow::Result;
use felt_math::risk::risk;
use std::io::Write as _;

/// Arguments of `felt risk` (amounts in betting units).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Expected win per hand, in units (negative for a losing game).
    #[arg(long, allow_negative_numbers = true)]
    pub win: f64,
    /// Standard deviation per hand, in units.
    #[arg(long)]
    pub sd: f64,
    /// Bankroll, in units.
    #[arg(long)]
    pub bankroll: f64,
    /// Risk of ruin within this many hands as well (a trip).
    #[arg(long)]
    pub hands: Option<u64>,
    /// Risk of ruin before winning this many units as well.
    #[arg(long)]
    pub goal: Option<f64>,
    /// A further target risk, in percent, for the bankroll table.
    #[arg(long)]
    pub target: Option<f64>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.4}%", v * 100.0))
}

fn num(x: Option<f64>, d: usize) -> String {
    x.map_or("- (no edge)".into(), |v| format!("{v:.d$}"))
}

/// Prints the risk figures.
pub fn run(a: &Args) -> Result<()> {
    let r = risk(a.win, a.sd, a.bankroll, a.hands, a.goal, a.target)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "RISK  win {} units a hand, SD {} units a hand, bankroll {} units",
        a.win, a.sd, a.bankroll
    )?;
    writeln!(out, "risk of ruin (playing for ever)  {}", pct(Some(r.ror)))?;
    if let Some(h) = a.hands {
        writeln!(out, "within {h} hands                {}", pct(r.ror_trip))?;
    }
    if let Some(g) = a.goal {
        writeln!(out, "before winning {g} units        {}", pct(r.ror_goal))?;
    }
    writeln!(out, "bankroll for a risk of")?;
    for (k, v) in &r.bankroll_for_ror {
        writeln!(out, "  {k:>6}  {} units", num(*v, 1))?;
    }
    writeln!(
        out,
        "N0 {}  DI {:.2}  SCORE {}",
        num(r.n0, 0),
        r.di,
        num(r.score, 2)
    )?;
    writeln!(
        out,
        "Diffusion formulas (Blackjack Attack): exact for Brownian motion, close for a game \
         whose bet is small against the bankroll."
    )?;
    Ok(())
}
