//! Reading a rules file: TOML into [`RulesFile`], with errors that name the file,
//! the line and the key.

use super::RulesFile;
use std::fmt;
use std::ops::Range;

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

/// The 1-based line of byte `offset` in `text` (past the end: the last line). Every
/// data file felt reads with spans (rules, counts, index plays) names lines this way.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
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
        let span = e.span();
        let line = span.as_ref().map(|s| line_of_offset(text, s.start));
        let key = span.and_then(|s| key_at(text, s)).filter(|k| !k.is_empty());
        let message = plain_words(e.message().trim(), key.as_deref());
        RulesError {
            origin: origin.to_string(),
            line,
            key,
            kind: RulesErrorKind::Syntax(message),
        }
    })
}

/// What the rules file may write at `key` (`shoe.decks`, `side_bets[1].pays[0].odds`),
/// in a player's words; `None` for a key the file format does not have.
pub(super) fn expected_at(key: &str) -> Option<&'static str> {
    // The key without its indices: `side_bets.pays.odds`.
    let mut bare = String::with_capacity(key.len());
    let mut depth = 0;
    for c in key.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    const WHOLE_1_8: &str = "a whole number from 1 to 8";
    const YES_NO: &str = "true or false";
    const AMOUNT: &str = "an amount: a whole number (25) or a decimal in quotes (\"2.50\")";
    const RATIO: &str = "a payout ratio in quotes, a:b (\"3:2\", \"200:1\")";
    const ID: &str = "an id in quotes: 1 to 31 letters, digits, `-` or `_`";
    const TEXT: &str = "text in quotes";
    Some(match bare.as_str() {
        "game" => "the table [game] (id, name, summary)",
        "game.id" => ID,
        "game.name" | "game.summary" | "side_bets.name" => TEXT,
        "shoe" => "the table [shoe] (decks, csm, penetration, burn)",
        "shoe.decks" => WHOLE_1_8,
        "shoe.penetration" => "a number from 0.1 to 0.95 (the part of the shoe dealt)",
        "shoe.burn" => "a whole number from 0 to 10",
        "shoe.csm"
        | "insurance.even_money"
        | "player.double_after_split"
        | "player.double_for_less"
        | "player.resplit_aces"
        | "player.one_card_split_aces"
        | "player.hit_split_aces"
        | "player.surrender_after_split"
        | "player.hit_soft_21"
        | "table.naturals_paid_in_turn"
        | "side_bets.third_card_on_dealer_natural"
        | "side_bets.one_seven_pays" => YES_NO,
        "dealer" => "the table [dealer] (soft_17, peek, late_natural)",
        "dealer.soft_17" => "\"stand\" or \"hit\"",
        "dealer.peek" => "\"ten-and-ace\", \"ace-only\" or \"none\"",
        "dealer.late_natural" => "\"original-bets-only\" or \"all-bets-lose\"",
        "insurance" => "the table [insurance] (offer, even_money, pays, min)",
        "insurance.offer" => "\"off\", \"half\" or \"up-to-half\"",
        "insurance.pays" | "main_bet.blackjack_pays" | "side_bets.pays.odds" => RATIO,
        "insurance.min"
        | "main_bet.min"
        | "main_bet.max"
        | "main_bet.increment"
        | "side_bets.min"
        | "side_bets.max"
        | "side_bets.increment"
        | "side_bets.progressive.reset"
        | "side_bets.progressive.increment" => AMOUNT,
        "player" => "the table [player] (double, split and surrender rules)",
        "player.double" => "\"any-two\", \"9-11\", \"10-11\" or \"none\"",
        "player.max_split_hands" => WHOLE_1_8,
        "player.split_pairs" => "\"value\" or \"rank\"",
        "player.surrender" => "\"none\", \"late\" or \"early\"",
        "table" => "the table [table] (seats, spots, payment and rounding rules)",
        "table.seats" => "a whole number from 1 to 7",
        "table.max_spots_per_player" => "a whole number from 1 to 7",
        "table.rounding" => "\"down\" or \"exact\"",
        "table.on_crash" => "\"resume\" or \"void\"",
        "main_bet" => "the table [main_bet] (min, max, increment, blackjack_pays)",
        "side_bets" => "a side bet: a [[side_bets]] table",
        "side_bets.id" | "side_bets.progressive.meter" => ID,
        "side_bets.kind" => "\"lucky-lucky\", \"three-card-poker\", \"lucky-ladies\" or \"sevens\"",
        "side_bets.pays" => "a list of pay lines, { hand = ..., odds = ..., basis = ... }",
        "side_bets.pays.hand" => "a hand name in quotes, of the bet's kind",
        "side_bets.pays.meter_percent" => "a whole number from 1 to 100",
        "side_bets.pays.basis" => "\"to\" or \"for\"",
        "side_bets.third_card" => "\"next-card\" or \"up-card\"",
        "side_bets.progressive" => "the table [side_bets.progressive] (meter, reset, increment)",
        _ => return None,
    })
}

/// A TOML or serde message in a player's words: what was found, and what the rules
/// file may write there ([`expected_at`]), never a Rust type (`u8`, `a boolean`, an
/// enum's or a struct's name). Messages that are already plain (the TOML syntax's own,
/// or an amount's or ratio's) pass through.
fn plain_words(message: &str, key: Option<&str>) -> String {
    let wanted = key.and_then(expected_at);
    let or_rust = |rust: &str| wanted.map_or_else(|| rust_words(rust), str::to_string);
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some((found, rust)) = rest.rsplit_once(", expected ") {
                return format!("{} is not {}", found_words(found), or_rust(rust));
            }
        }
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        if let Some((found, choices)) = rest.split_once(", expected ") {
            let choices = choices.strip_prefix("one of ").unwrap_or(choices);
            return format!(
                "{} is not {}",
                found.replace('`', "\""),
                wanted.map_or_else(|| choices.replace('`', "\""), str::to_string)
            );
        }
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (found, keys) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let keys = keys.strip_prefix("one of ").unwrap_or(keys);
        let here = key
            .and_then(|k| k.rsplit_once('.').map(|(t, _)| t.to_string()))
            .map_or("here".to_string(), |t| format!("in `{t}`"));
        return if keys.is_empty() || keys.starts_with("there are no") {
            format!("there is no key {found} {here}")
        } else {
            format!("there is no key {found} {here}; the keys are {keys}")
        };
    }
    if let Some(field) = message.strip_prefix("missing field ") {
        let name = field.trim_matches('`');
        let full = key.map_or_else(|| name.to_string(), |k| format!("{k}.{name}"));
        return match expected_at(&full) {
            Some(w) => format!("the key {field} is missing: give {w}"),
            None => format!("the key {field} is missing"),
        };
    }
    if message.starts_with("wanted ") {
        // The TOML reader's words for a value of the wrong type where one of several
        // words is expected (`soft_17 = 17`).
        if let Some(w) = wanted {
            return format!("give {w}");
        }
    }
    message.to_string()
}

/// serde's words for a value found (`integer \`300\``, `string "six"`) as written.
fn found_words(found: &str) -> String {
    for prefix in [
        "integer ",
        "floating point ",
        "boolean ",
        "string ",
        "character ",
    ] {
        if let Some(v) = found.strip_prefix(prefix) {
            return v.trim_matches('`').to_string();
        }
    }
    match found {
        "sequence" => "a list".to_string(),
        "map" => "a table".to_string(),
        other => other.to_string(),
    }
}

/// serde's words for what was expected, for a key [`expected_at`] does not know.
fn rust_words(rust: &str) -> String {
    let whole = |lo: i128, hi: i128| format!("a whole number from {lo} to {hi}");
    match rust {
        "u8" => whole(0, u8::MAX.into()),
        "u16" => whole(0, u16::MAX.into()),
        "u32" => whole(0, u32::MAX.into()),
        "u64" => whole(0, u64::MAX.into()),
        "i64" => whole(i64::MIN.into(), i64::MAX.into()),
        "f64" | "f32" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" => "text in quotes".to_string(),
        "a sequence" => "a list [ ... ]".to_string(),
        other => other.replace('`', "\""),
    }
}

/// The exact dotted key path (`side_bets[1].pays[2].basis`) of the deepest key or value
/// whose span holds the error span `span`.
///
/// A document that parses as TOML (the error is a type, an unknown key, a bad value)
/// is walked with `toml_edit`, which keeps every key's and value's byte span. A
/// document that does not parse is named by the table in effect where the error is
/// (the text before its line, parsed alone) and the bare key written on that line.
fn key_at(text: &str, span: Range<usize>) -> Option<String> {
    let start = floor_char_boundary(text, span.start);
    let end = floor_char_boundary(text, span.end.max(start));
    let span = start..end;
    match toml_edit::ImDocument::parse(text) {
        Ok(doc) => {
            let mut path = Vec::new();
            find_in_table(doc.as_table(), &span, &mut path);
            Some(join(&path))
        }
        Err(_) => key_of_broken_line(text, start),
    }
}

/// One step of a key path: a key, or an index into an array (of tables).
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn join(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&quote_key(k));
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A key as written in TOML: bare if it can be, else quoted.
fn quote_key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// Whether the node at `node` holds the error span (an empty error span at the node's
/// end counts, e.g. a missing value).
fn holds(node: Option<Range<usize>>, span: &Range<usize>) -> bool {
    node.is_some_and(|n| n.start <= span.start && span.end <= n.end.max(n.start + 1))
}

/// Extends `path` with the deepest key under `table` holding `span`; true if found.
fn find_in_table(table: &toml_edit::Table, span: &Range<usize>, path: &mut Vec<Step>) -> bool {
    for (name, item) in table.iter() {
        let key_span = table.key(name).and_then(|k| k.span());
        path.push(Step::Key(name.to_string()));
        if holds(key_span, span) || find_in_item(item, span, path) {
            return true;
        }
        path.pop();
    }
    false
}

/// Extends `path` (which names `item`) with the deepest step inside `item` holding
/// `span`; true if `item` itself or something in it holds it.
fn find_in_item(item: &toml_edit::Item, span: &Range<usize>, path: &mut Vec<Step>) -> bool {
    match item {
        toml_edit::Item::None => false,
        toml_edit::Item::Value(v) => find_in_value(v, span, path),
        // A `[table]`'s span is its header; its keys may be anywhere after it.
        toml_edit::Item::Table(t) => find_in_table(t, span, path) || holds(t.span(), span),
        toml_edit::Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                path.push(Step::Index(i));
                if find_in_table(t, span, path) || holds(t.span(), span) {
                    return true;
                }
                path.pop();
            }
            false
        }
    }
}

/// As [`find_in_item`], for a value (inline tables and arrays are walked).
fn find_in_value(value: &toml_edit::Value, span: &Range<usize>, path: &mut Vec<Step>) -> bool {
    if !holds(value.span(), span) {
        return false;
    }
    match value {
        toml_edit::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(Step::Index(i));
                if find_in_value(v, span, path) {
                    return true;
                }
                path.pop();
            }
        }
        toml_edit::Value::InlineTable(t) => {
            for (name, v) in t.iter() {
                let key_span = t.key(name).and_then(|k| k.span());
                path.push(Step::Key(name.to_string()));
                if holds(key_span, span) || find_in_value(v, span, path) {
                    return true;
                }
                path.pop();
            }
        }
        _ => {}
    }
    true
}

/// For text that is not TOML: the table in effect at `offset` (found by parsing the
/// lines before it) and the bare key `key =` written on its line, if any.
fn key_of_broken_line(text: &str, offset: usize) -> Option<String> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let doc = toml_edit::ImDocument::parse(&text[..line_start]).ok()?;
    let mut table = Vec::new();
    let mut best = None;
    last_header(doc.as_table(), &mut table, &mut best);
    let mut path = best.map(|(_, p)| p).unwrap_or_default();
    if line.starts_with('[') {
        // The header itself is broken; the table before it is not the one meant.
        return None;
    }
    let (k, _) = line.split_once('=')?;
    let k = k.trim();
    if k.is_empty()
        || !k
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
    {
        return Some(join(&path)).filter(|p| !p.is_empty());
    }
    path.extend(k.split('.').map(|p| Step::Key(p.to_string())));
    Some(join(&path))
}

/// The path of the table whose header comes last in the text (`best`: its offset and path).
fn last_header(
    table: &toml_edit::Table,
    path: &mut Vec<Step>,
    best: &mut Option<(usize, Vec<Step>)>,
) {
    for (name, item) in table.iter() {
        path.push(Step::Key(name.to_string()));
        let mut visit = |t: &toml_edit::Table, path: &mut Vec<Step>| {
            if let Some(s) = t.span() {
                if best.as_ref().is_none_or(|(b, _)| s.start >= *b) {
                    *best = Some((s.start, path.clone()));
                }
            }
            last_header(t, path, best);
        };
        match item {
            toml_edit::Item::Table(t) => visit(t, path),
            toml_edit::Item::ArrayOfTables(a) => {
                for (i, t) in a.iter().enumerate() {
                    path.push(Step::Index(i));
                    visit(t, path);
                    path.pop();
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// The largest char boundary at or below `i` (and within `text`).
fn floor_char_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
