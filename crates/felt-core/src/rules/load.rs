//! Reading a rules file: TOML into [`RulesFile`], with errors that name the file,
//! the line and the key.

use super::RulesFile;
use std::fmt;

/// What is wrong with a rules file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesErrorKind {
    /// Not TOML, an unknown key, a wrong type or a missing key.
    Syntax(String),
    /// Well-formed but impossible (e.g. resplit aces with a hand limit of 2).
    Invalid(String),
}

/// A rules file was refused: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RulesError {
    /// The file name (or preset name) the text came from.
    pub origin: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The dotted key, e.g. `player.max_split_hands` or `side_bets[0].pays[2].odds`.
    pub key: Option<String>,
    /// What is wrong.
    pub kind: RulesErrorKind,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(l) = self.line {
            write!(f, ", line {l}")?;
        }
        if let Some(k) = &self.key {
            write!(f, ", key `{k}`")?;
        }
        match &self.kind {
            RulesErrorKind::Syntax(m) => write!(f, ": {m}"),
            RulesErrorKind::Invalid(m) => write!(f, ": invalid rules: {m}"),
        }
    }
}

impl RulesError {
    /// A validation error at `key`, with the line looked up in `text`.
    pub(super) fn invalid(origin: &str, text: &str, key: &str, message: String) -> RulesError {
        RulesError {
            origin: origin.to_string(),
            line: line_of_key(text, key),
            key: Some(key.to_string()),
            kind: RulesErrorKind::Invalid(message),
        }
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line of a dotted key path (`a.b[2].c`) in the TOML text, or of its nearest parent.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item: &toml_edit::Item = doc.as_item();
    let mut best = None;
    for part in key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some(next) = item.get(name) else { break };
        item = next;
        if let Some(span) = item.span() {
            best = Some(span.start);
        }
        if let Some(i) = index {
            let elem = match item {
                toml_edit::Item::ArrayOfTables(a) => a.get(i).and_then(|t| t.span()),
                toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
                    a.get(i).and_then(|v| v.span())
                }
                _ => None,
            };
            if let Some(s) = elem {
                best = Some(s.start);
            }
            let Some(next) = item.get(i) else { break };
            item = next;
        }
    }
    best.map(|o| line_of_offset(text, o))
}

/// Parses the TOML text (unknown keys and wrong types are errors).
pub(super) fn parse(text: &str, origin: &str) -> Result<RulesFile, RulesError> {
    toml::from_str::<RulesFile>(text).map_err(|e| {
        let line = e.span().map(|s| line_of_offset(text, s.start));
        let key = e
            .span()
            .and_then(|s| key_at(text, s.start))
            .filter(|k| !k.is_empty());
        RulesError {
            origin: origin.to_string(),
            line,
            key,
            kind: RulesErrorKind::Syntax(e.message().trim().to_string()),
        }
    })
}

/// The key written on the line holding `offset` (`key = ...`), or the table header.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?.trim();
    if line.starts_with('[') {
        return Some(line.trim_matches(|c| c == '[' || c == ']').to_string());
    }
    let (k, _) = line.split_once('=')?;
    let header = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|h| h.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match header {
        Some(h) => format!("{h}.{}", k.trim()),
        None => k.trim().to_string(),
    })
}
