//! `felt edge NAME|FILE`: the par sheet.

use crate::exact_arg::{shoe_text, ExactArgs};
use crate::numbers::{amount, count};
use anyhow::Result;
use felt_math::parsheet::{par_sheet_for, ParSheet};
use std::fmt::Write;
use std::io::Write as _;

/// Arguments of `felt edge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// The shoe and the post-split model.
    #[command(flatten)]
    pub exact: ExactArgs,
    /// Progressive meter, in units of the wager (default: the meter's reset over the
    /// wager): a finite number from 0 to 1000000000.
    #[arg(long, allow_negative_numbers = true)]
    pub meter: Option<f64>,
    /// Print the par sheet as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The largest `--meter` taken, in units of the wager: far beyond any real meter (a
/// billion 1.00 wagers), and small enough for the analysis to stay exact in `f64`.
pub const MAX_METER_UNITS: f64 = 1e9;

/// Checks `--meter M`: a finite number of wager units from 0 to [`MAX_METER_UNITS`].
pub fn check_meter(m: f64) -> Result<f64> {
    anyhow::ensure!(
        m.is_finite() && (0.0..=MAX_METER_UNITS).contains(&m),
        "--meter {m}: the meter must be a finite amount of 0 to {MAX_METER_UNITS:.0} units of \
         the wager"
    );
    Ok(m)
}

/// Prints the par sheet.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.meter.map(check_meter).transpose()?;
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    let sheet = par_sheet_for(&rules, &a.exact.input(), meter)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&sheet)?)?;
    } else {
        write!(out, "{}", render(&rules, &sheet))?;
    }
    Ok(())
}

fn pct(x: f64) -> String {
    format!("{:.4}%", x * 100.0)
}

/// The par sheet as text.
pub fn render(rules: &felt_core::Rules, s: &ParSheet) -> String {
    let mut o = String::new();
    let shoe = match &s.shoe {
        Some(c) => format!("the shoe A-T {}", shoe_text(c)),
        None => format!("{} deck(s)", s.decks),
    };
    let _ = writeln!(
        o,
        "PAR SHEET  {} ({}), {shoe}{}",
        s.name,
        s.game,
        if s.csm && s.shoe.is_none() {
            ", continuous shuffler (exactly the full-shoe figures, LL-6)"
        } else {
            ""
        }
    );
    let _ = writeln!(o);
    let _ = writeln!(o, "RULES");
    // The main game's part of the rules card (side bets follow with their tables).
    let card = felt_core::rules::rules_card(rules);
    let mut seen_table = false;
    for line in card.lines().skip_while(|l| *l != "Shoe") {
        if line.is_empty() && seen_table {
            break;
        }
        seen_table |= line == "Table";
        let _ = writeln!(o, "  {line}");
    }
    let m = &s.main;
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "MAIN GAME (exact, off the top, per initial bet; {})",
        m.split_model
    );
    let _ = writeln!(
        o,
        "  House edge, computed basic strategy:            {}",
        pct(m.house_edge)
    );
    let _ = writeln!(
        o,
        "  House edge, composition-dependent strategy:     {}",
        pct(m.house_edge_cd)
    );
    if let Some(sd) = m.std_dev {
        let _ = writeln!(
            o,
            "  Standard deviation per round:                   {sd:.4}"
        );
    }
    let _ = writeln!(
        o,
        "  Up card   probability   EV basic     EV comp.-dep.  dealer busts"
    );
    for u in &m.per_up_card {
        let up = if u.up == 1 {
            "A".to_string()
        } else {
            u.up.to_string()
        };
        let _ = writeln!(
            o,
            "  {up:>7}   {:>11.6}   {:>+10.6}   {:>+13.6}   {:>12.6}",
            u.probability, u.ev_basic, u.ev_cd, u.dealer_bust
        );
    }
    if !m.not_analysed.is_empty() {
        let _ = writeln!(o, "  Not analysed / assumptions:");
        for n in &m.not_analysed {
            let _ = writeln!(o, "    - {n}");
        }
    }
    for b in &s.side_bets {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "SIDE BET {} (`{}`), {} ordered {}-card deals",
            b.name,
            b.id,
            count(b.total),
            b.cards
        );
        let _ = writeln!(
            o,
            "  {:<40} {:>17} {:>11} {:>8} {:>11}",
            "outcome", "count", "probability", "pays", "return"
        );
        for out in &b.outcomes {
            let _ = writeln!(
                o,
                "  {:<40} {:>17} {:>11.8} {:>8} {:>+11.8}",
                out.name,
                count(out.count),
                out.probability,
                amount(out.pays, 2),
                out.contribution
            );
        }
        let _ = writeln!(
            o,
            "  House edge {}   standard deviation {:.4}   hit frequency {}",
            pct(b.house_edge),
            b.std_dev,
            pct(b.hit_frequency)
        );
        if let Some(mt) = &b.meter {
            let _ = writeln!(
                o,
                "  Meter {} units: {}; break-even meter {}",
                amount(mt.meter_units, 2),
                mt.edge_line(),
                mt.break_even_meter.map_or(
                    "none (no meter line can be hit)".to_string(),
                    |m| format!("{} units", amount(m, 2))
                )
            );
        }
    }
    for (id, points) in &s.meter_curves {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "METER CURVE `{id}` (meter in units of the wager -> house edge)"
        );
        for p in points {
            let _ = writeln!(o, "  {:>14}  {:>9}", amount(p.meter, 2), pct(p.house_edge));
        }
    }
    o
}
