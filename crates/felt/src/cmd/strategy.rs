//! `felt strategy NAME|FILE`: the computed basic strategy chart.

use anyhow::Result;
use felt_math::main_game::{analyse, Cell, HandKind};
use felt_math::mapping::main_game_rules;
use std::io::Write as _;

/// Arguments of `felt strategy`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// Decks (default: the rules file's).
    #[arg(long)]
    pub decks: Option<u8>,
    /// Also print each cell's expected values.
    #[arg(long)]
    pub ev: bool,
}

/// Prints the chart (and the EVs with `--ev`).
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    let decks = a.decks.unwrap_or(rules.shoe().decks);
    anyhow::ensure!((1..=8).contains(&decks), "--decks {decks}: 1 to 8");
    let mapped = main_game_rules(&rules, decks);
    let analysis = analyse(&mapped.main)?;
    writeln!(
        out,
        "Basic strategy for {} ({} deck(s)), computed from the rules",
        rules.game().name,
        decks
    )?;
    write!(out, "{}", analysis.basic_strategy.to_chart())?;
    writeln!(out)?;
    write!(out, "{}", analysis.basic_strategy.post_split_chart())?;
    if a.ev {
        writeln!(out)?;
        writeln!(out, "Cell EVs per unit bet, up cards 2..10, A; S stand, H hit, D double, P split, R surrender:")?;
        for kind in [HandKind::Hard, HandKind::Soft, HandKind::Pair] {
            let range: Vec<u8> = match kind {
                HandKind::Hard => (5..=20).collect(),
                HandKind::Soft => (13..=20).collect(),
                HandKind::Pair => (1..=10).collect(),
            };
            for t in range {
                let mut row = format!("{:<5}{:>3}:", format!("{kind:?}"), t);
                for up in [2u8, 3, 4, 5, 6, 7, 8, 9, 10, 1] {
                    let cell = analysis.basic_strategy.cell(kind, t, up)?;
                    row.push_str(&format!(" {}", cell_ev_text(cell)));
                }
                writeln!(out, "{row}")?;
            }
        }
    }
    Ok(())
}

fn cell_ev_text(cell: &Cell) -> String {
    let mut parts = vec![format!("S{:+.3}", cell.stand), format!("H{:+.3}", cell.hit)];
    if let Some(d) = cell.double {
        parts.push(format!("D{d:+.3}"));
    }
    if let Some(p) = cell.split {
        parts.push(format!("P{p:+.3}"));
    }
    if let Some(r) = cell.surrender {
        parts.push(format!("R{r:+.3}"));
    }
    format!("[{}]", parts.join(" "))
}
