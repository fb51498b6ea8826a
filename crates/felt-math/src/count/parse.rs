//! Reading a count file: TOML with typed errors naming the file, the line and the key.

use super::{CountSystem, SideCount};
use toml_edit::{ImDocument, Item, Table, Value};

/// The largest count file read (a count file is a few hundred bytes).
pub const MAX_COUNT_FILE: usize = 64 * 1024;

/// What is wrong with a key of a count file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CountProblem {
    /// The text is not TOML.
    #[error("not TOML: {0}")]
    Syntax(String),
    /// A required key is absent.
    #[error("missing (a count file needs `name` and a `[tags]` table with A, 2..9, T)")]
    Missing,
    /// A key the format does not have.
    #[error("unknown key (allowed: name, balanced, [tags] A 2 3 4 5 6 7 8 9 T, [side_count] ranks betting_tag)")]
    Unknown,
    /// A value of the wrong type.
    #[error("expected {0}")]
    WrongType(&'static str),
    /// A tag or betting tag outside -100..=100 or not finite.
    #[error("a tag of {0}: tags are finite numbers from -100 to 100")]
    OutOfRange(f64),
    /// The file says `balanced = true` but a deck's tags do not sum to zero.
    #[error("the file says balanced, but a deck's tags sum to {0} (4 x A..9 + 16 x T)")]
    NotBalanced(f64),
    /// A side count names something that is not a card value.
    #[error("`{0}` is not a card value (A, 2..9, T)")]
    NotAValue(String),
    /// Every tag is zero: the count counts nothing.
    #[error("every tag is zero")]
    AllZero,
    /// The file is larger than [`MAX_COUNT_FILE`].
    #[error("the file is {0} bytes; a count file is at most {MAX_COUNT_FILE}")]
    TooLarge(usize),
}

/// Why a count file was refused: the file, the 1-based line and the key, and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}{}{}: {problem}", line.map(|l| format!(", line {l}")).unwrap_or_default(), key.as_ref().map(|k| format!(", key `{k}`")).unwrap_or_default())]
pub struct CountError {
    /// The file (or preset) the text came from.
    pub origin: String,
    /// The line of the offending key or value, when known.
    pub line: Option<usize>,
    /// The key path, e.g. `tags.T` or `side_count.ranks`.
    pub key: Option<String>,
    /// What is wrong.
    pub problem: CountProblem,
}

/// The card values in file order, with their labels.
pub const LABELS: [&str; 10] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"];

struct Ctx<'a> {
    text: &'a str,
    origin: &'a str,
}

impl Ctx<'_> {
    fn err(
        &self,
        span: Option<std::ops::Range<usize>>,
        key: &str,
        problem: CountProblem,
    ) -> CountError {
        CountError {
            origin: self.origin.to_string(),
            line: span.map(|s| felt_core::rules::line_of_offset(self.text, s.start)),
            key: (!key.is_empty()).then(|| key.to_string()),
            problem,
        }
    }

    fn number(&self, item: &Item, key: &str) -> Result<f64, CountError> {
        let v = match item.as_value() {
            Some(Value::Integer(i)) => *i.value() as f64,
            Some(Value::Float(f)) => *f.value(),
            _ => {
                return Err(self.err(item.span(), key, CountProblem::WrongType("a number")));
            }
        };
        if !v.is_finite() || v.abs() > 100.0 {
            return Err(self.err(item.span(), key, CountProblem::OutOfRange(v)));
        }
        Ok(v)
    }

    fn unknown_keys(&self, t: &Table, prefix: &str, allowed: &[&str]) -> Result<(), CountError> {
        for (k, item) in t.iter() {
            if !allowed.contains(&k) {
                let span = t.key(k).and_then(|key| key.span()).or_else(|| item.span());
                return Err(self.err(span, &format!("{prefix}{k}"), CountProblem::Unknown));
            }
        }
        Ok(())
    }
}

/// Parses a count file's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<CountSystem, CountError> {
    let cx = Ctx { text, origin };
    if text.len() > MAX_COUNT_FILE {
        return Err(cx.err(None, "", CountProblem::TooLarge(text.len())));
    }
    let doc = ImDocument::parse(text)
        .map_err(|e| cx.err(e.span(), "", CountProblem::Syntax(e.message().to_string())))?;
    let root = doc.as_table();
    cx.unknown_keys(root, "", &["name", "balanced", "tags", "side_count"])?;
    let name = match root.get("name") {
        None => return Err(cx.err(None, "name", CountProblem::Missing)),
        Some(i) => i
            .as_str()
            .ok_or_else(|| cx.err(i.span(), "name", CountProblem::WrongType("a string")))?
            .to_string(),
    };
    let claims_balanced = match root.get("balanced") {
        None => None,
        Some(i) => Some(i.as_bool().ok_or_else(|| {
            cx.err(
                i.span(),
                "balanced",
                CountProblem::WrongType("true or false"),
            )
        })?),
    };
    let tags_item = root
        .get("tags")
        .ok_or_else(|| cx.err(None, "tags", CountProblem::Missing))?;
    let tags_t = tags_item
        .as_table()
        .ok_or_else(|| cx.err(tags_item.span(), "tags", CountProblem::WrongType("a table")))?;
    cx.unknown_keys(tags_t, "tags.", &LABELS)?;
    let mut tags = [0.0; 10];
    for (slot, label) in tags.iter_mut().zip(LABELS) {
        let key = format!("tags.{label}");
        let item = tags_t
            .get(label)
            .ok_or_else(|| cx.err(tags_t.span(), &key, CountProblem::Missing))?;
        *slot = cx.number(item, &key)?;
    }
    if tags.iter().all(|&t| t == 0.0) {
        return Err(cx.err(tags_t.span(), "tags", CountProblem::AllZero));
    }
    let sum = super::deck_sum(&tags);
    if claims_balanced == Some(true) && sum.abs() > 1e-9 {
        let span = root.get("balanced").and_then(Item::span);
        return Err(cx.err(span, "balanced", CountProblem::NotBalanced(sum)));
    }
    let side_count = match root.get("side_count") {
        None => None,
        Some(item) => {
            let t = item.as_table().ok_or_else(|| {
                cx.err(
                    item.span(),
                    "side_count",
                    CountProblem::WrongType("a table"),
                )
            })?;
            cx.unknown_keys(t, "side_count.", &["ranks", "betting_tag"])?;
            let ranks_item = t
                .get("ranks")
                .ok_or_else(|| cx.err(t.span(), "side_count.ranks", CountProblem::Missing))?;
            let arr = ranks_item.as_array().ok_or_else(|| {
                cx.err(
                    ranks_item.span(),
                    "side_count.ranks",
                    CountProblem::WrongType("an array of card values"),
                )
            })?;
            let mut ranks = Vec::new();
            for v in arr.iter() {
                let s = v.as_str().ok_or_else(|| {
                    cx.err(
                        v.span(),
                        "side_count.ranks",
                        CountProblem::WrongType("card values as strings"),
                    )
                })?;
                let r = LABELS.iter().position(|l| *l == s).ok_or_else(|| {
                    cx.err(
                        v.span(),
                        "side_count.ranks",
                        CountProblem::NotAValue(s.to_string()),
                    )
                })?;
                ranks.push(r);
            }
            let bt_item = t
                .get("betting_tag")
                .ok_or_else(|| cx.err(t.span(), "side_count.betting_tag", CountProblem::Missing))?;
            let betting_tag = cx.number(bt_item, "side_count.betting_tag")?;
            Some(SideCount { ranks, betting_tag })
        }
    };
    Ok(CountSystem {
        name,
        tags,
        balanced: sum.abs() <= 1e-9,
        side_count,
    })
}
