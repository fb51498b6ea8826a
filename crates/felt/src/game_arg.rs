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

/// The rules a stored round was played under, as the session layer reads them from
/// the books; for a round older than the rules kept in the books, those it names
/// (loaded here); `over` (a preset or a file) replaces them, for a lab that replays
/// under rules of its own (the replay then checks they are the same rules).
pub fn round_ctx(
    store: &dyn felt_store::Store,
    rec: &felt_store::RoundRecord,
    over: Option<&str>,
) -> Result<felt_session::journal::Ctx> {
    use anyhow::Context;
    use felt_session::journal::Ctx;
    if let Some(source) = over {
        let rules = load_game(source)
            .with_context(|| format!("round {}: loading the rules `{source}`", rec.id))?;
        return Ok(Ctx::new(rules, source, rec.table_id.clone())?);
    }
    match felt_session::journal::ctx_for(store, rec) {
        Err(felt_session::SessionError::RulesNotKept { named, .. }) => {
            let rules = load_game(&named).with_context(|| {
                format!(
                    "round {}: loading its rules `{named}` (the round is older than the rules \
                     kept in the books)",
                    rec.id
                )
            })?;
            let rules = legacy_preset(rec, &named)?.unwrap_or(rules);
            Ok(Ctx::new(rules, &named, rec.table_id.clone())?)
        }
        other => Ok(other?),
    }
}

/// For a round older than the rules kept in the books that names preset `named`: the
/// earlier text of that preset its setup's rules hash names, if the preset has changed
/// since (`None`: the preset as it is now, or no earlier text that matches).
fn legacy_preset(rec: &felt_store::RoundRecord, named: &str) -> Result<Option<Rules>> {
    use felt_session::journal::{legacy_rules_hash, setup_of};
    let Some(setup) = setup_of(rec)? else {
        return Ok(None);
    };
    for rules in presets::legacy(named) {
        let rules = rules?;
        if legacy_rules_hash(&rules) == setup.rules_sha256 {
            return Ok(Some(rules));
        }
    }
    Ok(None)
}
