//! `felt rules NAME|FILE`: the rules card.

use anyhow::Result;
use std::io::Write as _;

/// Arguments of `felt rules`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
}

/// Prints the rules card.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let rules = crate::game_arg::load_game(&a.game)?;
    write!(out, "{}", felt_core::rules::rules_card(&rules))?;
    Ok(())
}
