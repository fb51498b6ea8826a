//! Resolving a `NAME|FILE` argument to validated rules.

use anyhow::{bail, Result};
use felt_core::{presets, Rules};
use std::path::Path;

/// Loads a preset by name, or a rules file by path (anything with a `/` or `.toml`).
pub fn load_game(arg: &str) -> Result<Rules> {
    if let Some(r) = presets::load(arg) {
        return Ok(r?);
    }
    let path = Path::new(arg);
    if path.exists() || arg.contains('/') || arg.ends_with(".toml") {
        let text = crate::bounded::read_text(path, "the rules file", crate::bounded::FILE_LIMIT)?;
        return Ok(Rules::from_toml(&text, arg)?);
    }
    bail!(
        "no game `{arg}`: give a preset ({}) or the path of a rules file",
        presets::names().collect::<Vec<_>>().join(", ")
    )
}
