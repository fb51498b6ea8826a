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
    /// Draw, as an SVG file, the 5%, 25%, 50%, 75% and 95% quantiles of simulated
    /// bankroll walks over `--hands` hands (default 10,000), ruined walks held at 0.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,
    /// With --plot: walks simulated.
    #[arg(long, default_value_t = 2000, requires = "plot")]
    pub walks: u32,
    /// With --plot: the walks' seed.
    #[arg(long, default_value_t = 1, requires = "plot")]
    pub seed: u64,
}

/// The quantiles drawn.
pub const QUANTILES: [f64; 5] = [0.05, 0.25, 0.5, 0.75, 0.95];

/// Steps of a walk: each a normal increment of the hands it stands for (the diffusion
/// the formulas assume), so long horizons cost no more than short ones.
const STEPS: u64 = 1000;

/// Quantiles of `walks` bankroll walks of `hands` hands from `bankroll` (win `win`, SD
/// `sd` a hand), ruined at 0 and, with a goal, stopped at `bankroll + goal`: per
/// quantile, (hands played, bankroll) at every step.
pub fn walk_quantiles(
    win: f64,
    sd: f64,
    bankroll: f64,
    goal: Option<f64>,
    hands: u64,
    walks: u32,
    seed: u64,
) -> Vec<Vec<(f64, f64)>> {
    use rand::{Rng, SeedableRng};
    let steps = hands.clamp(1, STEPS);
    let per = hands as f64 / steps as f64;
    let (mean, spread) = (win * per, sd * per.sqrt());
    let top = goal.map(|g| bankroll + g);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    // rows: step; columns: walk
    let mut at: Vec<Vec<f64>> = vec![Vec::with_capacity(walks as usize); steps as usize + 1];
    for _ in 0..walks {
        let mut b = bankroll;
        at[0].push(b);
        for row in at.iter_mut().skip(1) {
            let stopped = b <= 0.0 || top.is_some_and(|t| b >= t);
            if !stopped {
                // Box-Muller: a standard normal from two uniforms
                let (u1, u2): (f64, f64) = (rng.gen_range(f64::EPSILON..1.0), rng.gen());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                b = (b + mean + spread * z).max(0.0);
                if let Some(t) = top {
                    b = b.min(t);
                }
            }
            row.push(b);
        }
    }
    QUANTILES
        .iter()
        .map(|&q| {
            at.iter_mut()
                .enumerate()
                .map(|(i, row)| {
                    row.sort_by(f64::total_cmp);
                    let k = ((row.len() - 1) as f64 * q).round() as usize;
                    (i as f64 * per, row[k])
                })
                .collect()
        })
        .collect()
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
    if let Some(path) = &a.plot {
        if a.walks == 0 {
            anyhow::bail!("--walks 0: give at least one walk");
        }
        let hands = a.hands.unwrap_or(10_000);
        let q = walk_quantiles(a.win, a.sd, a.bankroll, a.goal, hands, a.walks, a.seed);
        let lines = q
            .into_iter()
            .zip(QUANTILES)
            .map(|(points, p)| crate::cmd::plot::Line {
                name: format!("{:.0}% quantile", p * 100.0),
                points,
            })
            .collect();
        let panel = crate::cmd::plot::Panel {
            title: format!(
                "Bankroll walks: {} walks, win {} and SD {} a hand, from {} units",
                a.walks, a.win, a.sd, a.bankroll
            ),
            x_label: "hands played".into(),
            y_label: "bankroll, units".into(),
            lines,
            band: None,
        };
        crate::cmd::plot::write(path, &[panel])?;
    }
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
