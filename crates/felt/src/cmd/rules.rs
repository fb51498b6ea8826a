//! `felt rules NAME|FILE [--toml]`: the rules card, or the rules file itself.

use anyhow::Result;
use std::io::Write as _;

/// Arguments of `felt rules`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// Print the rules file itself (a preset's commented TOML) instead of the card:
    /// `felt rules classic --toml > my-game.toml` starts a game of your own.
    #[arg(long)]
    pub toml: bool,
}

/// Prints the rules card, or with `--toml` the rules file.
pub fn run(a: &Args) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let (rules, text) = crate::game_arg::load_game_text(&a.game)?;
    if a.toml {
        write!(out, "{text}")?;
        if !text.ends_with('\n') {
            writeln!(out)?;
        }
    } else {
        write!(out, "{}", felt_core::rules::rules_card(&rules))?;
    }
    Ok(())
}
