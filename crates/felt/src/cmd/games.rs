//! `felt games`: the presets, one a line.

use anyhow::Result;
use felt_core::presets;
use std::io::Write as _;

/// Prints each preset's name, title and side bets.
pub fn run() -> Result<()> {
    let mut out = std::io::stdout().lock();
    for name in presets::names() {
        let r = crate::game_arg::load_game(name)?;
        let bets: Vec<&str> = r.side_bets().iter().map(|b| b.id.as_str()).collect();
        let bets = if bets.is_empty() {
            "no side bet".to_string()
        } else {
            format!("side bets: {}", bets.join(", "))
        };
        writeln!(out, "{name:<16} {:<30} {bets}", r.game().name)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "`felt rules NAME` prints a game's rules card. To make a game of your own:"
    )?;
    writeln!(
        out,
        "  felt rules NAME --toml > my-game.toml   (its rules file, commented)"
    )?;
    writeln!(
        out,
        "  then change any rule or pay line, and: felt play my-game.toml"
    )?;
    Ok(())
}
