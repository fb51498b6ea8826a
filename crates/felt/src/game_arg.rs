//! Resolving a `NAME|FILE` argument to validated rules.

use anyhow::{bail, Result};
use felt_core::{presets, Rules};
use std::path::Path;

/// Loads a preset by name, or a rules file by path (anything with a `/` or `.toml`).
pub fn load_game(arg: &str) -> Result<Rules> {
    Ok(load_game_text(arg)?.0)
}

/// As [`load_game`], with the rules file's text as written (a preset's commented
/// file, or the file read).
pub fn load_game_text(arg: &str) -> Result<(Rules, String)> {
    if let Some((_, text)) = presets::PRESETS.iter().find(|(n, _)| *n == arg) {
        let rules = Rules::from_toml(text, &format!("games/{arg}.toml"))?;
        return Ok((rules, (*text).to_string()));
    }
    let path = Path::new(arg);
    if path.exists() || arg.contains('/') || arg.ends_with(".toml") {
        let text = crate::bounded::read_text(path, "the rules file", crate::bounded::FILE_LIMIT)?;
        return Ok((Rules::from_toml(&text, arg)?, text));
    }
    bail!(
        "no game `{arg}`: give a preset ({}) or the path of a rules file",
        presets::names().collect::<Vec<_>>().join(", ")
    )
}
