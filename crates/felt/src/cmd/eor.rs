//! `felt eor NAME|FILE`: the exact effects of removal of every wager.

use crate::exact_arg::{shoe_text, ExactArgs};
use anyhow::Result;
use felt_math::eor::{effects_of_removal_for, EorReport, RankValues, RANK_LABELS};
use std::fmt::Write;
use std::io::Write as _;

/// Arguments of `felt eor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// The shoe and the post-split model.
    #[command(flatten)]
    pub exact: ExactArgs,
    /// Progressive meter, in units of the wager (default: the meter's reset).
    #[arg(long, allow_negative_numbers = true)]
    pub meter: Option<f64>,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Prints the effects of removal.
pub fn run(a: &Args) -> Result<()> {
    let meter = a.meter.map(crate::cmd::edge::check_meter).transpose()?;
    let rules = crate::game_arg::load_game(&a.game)?;
    let report = effects_of_removal_for(&rules, &a.exact.input(), meter)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", render(&report))?;
    }
    Ok(())
}

fn row(o: &mut String, name: &str, edge: f64, v: &RankValues) {
    let _ = write!(o, "{name:<24}{:>9.4}%", edge * 100.0);
    for x in v.0 {
        let _ = write!(o, "{x:>9.4}");
    }
    let _ = writeln!(o);
}

/// The effects of removal as a table: one row per wager, one column per card value.
pub fn render(r: &EorReport) -> String {
    let mut o = String::new();
    let shoe = match &r.shoe {
        Some(c) => format!("the shoe A-T {}", shoe_text(c)),
        None => format!("{} deck(s)", r.decks),
    };
    let _ = writeln!(
        o,
        "EFFECTS OF REMOVAL  {}, {shoe}: the change in the player's expected value, in \
         percent of the wager, when one card of each value leaves the shoe",
        r.game
    );
    let _ = writeln!(o);
    let _ = write!(o, "{:<24}{:>10}", "wager", "edge");
    for l in RANK_LABELS {
        let _ = write!(o, "{l:>9}");
    }
    let _ = writeln!(o);
    row(
        &mut o,
        "main (basic strategy)",
        r.main.house_edge,
        &r.main.eor_percent,
    );
    row(
        &mut o,
        &format!("main (CD play, {})", r.post_split),
        r.main.house_edge,
        &r.main.eor_percent_cd,
    );
    row(
        &mut o,
        "insurance (ace up)",
        r.insurance.house_edge,
        &r.insurance.eor_percent,
    );
    for b in &r.side_bets {
        row(&mut o, &b.id, b.house_edge, &b.eor_percent);
    }
    for b in &r.side_bets {
        if let Some(cards) = &b.eor_card_percent {
            let _ = writeln!(o);
            let _ = writeln!(o, "{}: cards of one value differ (per card, percent)", b.id);
            let mut line = String::new();
            for (i, v) in cards.0.iter().enumerate() {
                if let (Some(c), Some(v)) = (felt_core::card::Card::from_index(i), v) {
                    let _ = write!(line, "  {c} {v:+.4}");
                    if line.len() > 90 {
                        let _ = writeln!(o, "{}", line.trim_end());
                        line.clear();
                    }
                }
            }
            if !line.is_empty() {
                let _ = writeln!(o, "{}", line.trim_end());
            }
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "The main game keeps the basic strategy computed off the top (CD play: each depleted \
         shoe's optimal play);"
    );
    let _ = writeln!(
        o,
        "a value's figure is the average over its cards (T: the sixteen ten-valued cards a deck). \
         Edges are off the top."
    );
    if r.shoe.is_some() {
        let _ = writeln!(o, "{}", felt_math::exact::SIDE_BETS_NOT_FROM_VALUES);
    }
    o
}
