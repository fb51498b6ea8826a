//! Index plays: where the count changes a decision, read from a file.
//!
//! # The file
//!
//! TOML, one `[[index]]` table per play (the JSON that `felt indices --json` is to
//! write, `{"indices": [{"hand": "16", "up": "T", "play": "stand", "index": 0}]}`, is
//! read too):
//!
//! ```toml
//! name = "Illustrious 18 and Fab 4, Hi-Lo"   # optional
//!
//! [[index]]
//! hand = "insurance"    # take insurance (and even money) at +3 and above
//! index = 3
//!
//! [[index]]
//! hand = "16"           # hard 16 ...
//! up = "T"              # ... against a ten ...
//! play = "stand"        # ... stands at a true count of 0 and above, never below
//! index = 0
//!
//! [[index]]
//! hand = "15"
//! up = "T"
//! play = "surrender"
//! index = 0
//! ```
//!
//! - `hand`: a hard total `4` to `21`, a soft hand `A2` to `A9` (soft 13 to 20, any
//!   number of cards), a pair `22` to `99`, `TT`, `AA`, or `insurance`.
//! - `up`: the dealer's up card, `A`, `2` to `9`, `T` (`10`, `J`, `Q`, `K` are read as
//!   `T`); none for insurance.
//! - `play`: `hit`, `stand`, `double`, `split` or `surrender` (for insurance: none, or
//!   `insure`).
//! - `index`: the true count (an integer) at which the play changes.
//! - `when`: `"at-or-above"` (the default: the play is made at the index and above,
//!   and never below it) or `"at-or-below"` (made at the index and below, never above).
//! - `to`: an integer at least `index`, with `at-or-above`: the play is made from the
//!   index up to `to` (both included) and not outside (a play best only in a band of
//!   counts, as `felt indices` finds a few).
//!
//! Both sides of an index are defined, as the Illustrious 18 are read: "16 v T stand
//! at 0" stands at 0 and above and does not stand below 0 (it plays the basic
//! strategy's best other option). A hand is looked up by its pair first (a pair's
//! entries), then, if the pair is not split, by its total (hard or soft). A cell's
//! entries are tried in the file's order: the first whose play the engine offers and
//! whose count condition holds is played; an offered play whose condition fails is
//! struck from the options; what is left is played by the strategy table. So list
//! a surrender before a stand for the same cell (the Fab 4 before the Illustrious 18)
//! to surrender where one may and stand where one may not.

use crate::strategy::{DOUBLE, HIT, MASKS, PAIR_ROW, ROWS, SOFT_ROW, SPLIT, STAND, SURRENDER, UPS};
use felt_core::round::Decisions;
use serde::{Deserialize, Serialize};
use toml_edit::{ImDocument, Item, Value};

/// The largest index file read.
pub const MAX_INDEX_FILE: usize = 256 * 1024;

/// One index play as the file gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexPlay {
    /// The hand: `16`, `A7`, `TT` or `insurance`.
    pub hand: String,
    /// The up card (`A`, `2`..`9`, `T`); none for insurance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up: Option<String>,
    /// The play: hit, stand, double, split, surrender (or insure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play: Option<String>,
    /// The true count where the play changes.
    pub index: i32,
    /// `at-or-above` (default) or `at-or-below`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// The top of a band: the play is made from `index` to `to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<i32>,
}

/// A set of index plays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct IndexSet {
    /// Its name (the file's `name`, else the file's own name).
    pub name: String,
    /// The plays, in the file's order.
    pub plays: Vec<IndexPlay>,
}

/// What is wrong with an index file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IndexProblem {
    /// Not TOML (or not JSON, for a file starting with `{`).
    #[error("cannot be read: {0}")]
    Syntax(String),
    /// A required key is absent.
    #[error("missing")]
    Missing,
    /// A key the format does not have.
    #[error("unknown key (allowed: name, [[index]] hand up play index when to)")]
    Unknown,
    /// A value of the wrong type.
    #[error("expected {0}")]
    WrongType(&'static str),
    /// A value the format does not know.
    #[error("`{value}` is not {what}")]
    Bad {
        /// The value.
        value: String,
        /// What it should be.
        what: &'static str,
    },
    /// The file is too large.
    #[error("the file is {0} bytes; an index file is at most {MAX_INDEX_FILE}")]
    TooLarge(usize),
}

/// Why an index file was refused: the file, the line, the key and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}{}{}: {problem}", line.map(|l| format!(", line {l}")).unwrap_or_default(), key.as_ref().map(|k| format!(", key `{k}`")).unwrap_or_default())]
pub struct IndexError {
    /// The file.
    pub origin: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The key, e.g. `index[3].play`.
    pub key: Option<String>,
    /// What is wrong.
    pub problem: IndexProblem,
}

/// Reads an index file's text (TOML, or JSON when it starts with `{`); `origin`
/// names it in errors. Every play is checked ([`IndexTable::compile`]'s checks).
pub fn parse(text: &str, origin: &str) -> Result<IndexSet, IndexError> {
    let err = |line: Option<usize>, key: Option<String>, problem| IndexError {
        origin: origin.to_string(),
        line,
        key,
        problem,
    };
    if text.len() > MAX_INDEX_FILE {
        return Err(err(None, None, IndexProblem::TooLarge(text.len())));
    }
    let default_name = std::path::Path::new(origin)
        .file_stem()
        .map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned());
    if text.trim_start().starts_with('{') {
        // `felt indices --json` adds what the set was computed for; it is not read
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Json {
            #[serde(default)]
            name: Option<String>,
            indices: Vec<IndexPlay>,
            #[serde(default)]
            game: Option<serde_json::Value>,
            #[serde(default)]
            count: Option<serde_json::Value>,
            #[serde(default)]
            decks: Option<serde_json::Value>,
            #[serde(default)]
            decks_left: Option<serde_json::Value>,
            #[serde(default)]
            tc_range: Option<serde_json::Value>,
        }
        let j: Json = serde_json::from_str(text)
            .map_err(|e| err(Some(e.line()), None, IndexProblem::Syntax(e.to_string())))?;
        let set = IndexSet {
            name: j.name.unwrap_or(default_name),
            plays: j.indices,
        };
        for (i, p) in set.plays.iter().enumerate() {
            check(p).map_err(|(k, pr)| err(None, Some(format!("indices[{i}].{k}")), pr))?;
        }
        return Ok(set);
    }
    let doc = ImDocument::parse(text).map_err(|e| {
        err(
            e.span()
                .map(|s| felt_core::rules::line_of_offset(text, s.start)),
            None,
            IndexProblem::Syntax(e.message().to_string()),
        )
    })?;
    let root = doc.as_table();
    let at = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| felt_core::rules::line_of_offset(text, s.start))
    };
    for (k, item) in root.iter() {
        if k != "name" && k != "index" {
            return Err(err(
                at(item.span()),
                Some(k.to_string()),
                IndexProblem::Unknown,
            ));
        }
    }
    let name = match root.get("name") {
        None => default_name,
        Some(i) => i
            .as_str()
            .ok_or_else(|| {
                err(
                    at(i.span()),
                    Some("name".into()),
                    IndexProblem::WrongType("a string"),
                )
            })?
            .to_string(),
    };
    let mut plays = Vec::new();
    if let Some(item) = root.get("index") {
        let arr = item.as_array_of_tables().ok_or_else(|| {
            err(
                at(item.span()),
                Some("index".into()),
                IndexProblem::WrongType("[[index]] tables"),
            )
        })?;
        for (i, t) in arr.iter().enumerate() {
            let key = |k: &str| Some(format!("index[{i}].{k}"));
            for (k, v) in t.iter() {
                if !["hand", "up", "play", "index", "when", "to"].contains(&k) {
                    return Err(err(at(v.span()), key(k), IndexProblem::Unknown));
                }
            }
            let string = |k: &str| -> Result<Option<String>, IndexError> {
                match t.get(k) {
                    None => Ok(None),
                    Some(v) => v.as_str().map(|s| Some(s.to_string())).ok_or_else(|| {
                        err(at(v.span()), key(k), IndexProblem::WrongType("a string"))
                    }),
                }
            };
            let hand = string("hand")?
                .ok_or_else(|| err(at(t.span()), key("hand"), IndexProblem::Missing))?;
            let integer = |k: &str| -> Result<Option<i32>, IndexError> {
                match t.get(k) {
                    None => Ok(None),
                    Some(Item::Value(Value::Integer(n))) => {
                        i32::try_from(*n.value()).map(Some).map_err(|_| {
                            err(
                                at(n.span()),
                                key(k),
                                IndexProblem::WrongType("an integer from -1000 to 1000"),
                            )
                        })
                    }
                    Some(v) => Err(err(
                        at(v.span()),
                        key(k),
                        IndexProblem::WrongType("an integer true count"),
                    )),
                }
            };
            let index = integer("index")?
                .ok_or_else(|| err(at(t.span()), key("index"), IndexProblem::Missing))?;
            let play = IndexPlay {
                hand,
                up: string("up")?,
                play: string("play")?,
                index,
                when: string("when")?,
                to: integer("to")?,
            };
            check(&play).map_err(|(k, pr)| {
                let span = t.get(k).and_then(Item::span).or_else(|| t.span());
                err(at(span), key(k), pr)
            })?;
            plays.push(play);
        }
    }
    Ok(IndexSet { name, plays })
}

/// A compiled index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The play's action code (strategy.rs codes).
    pub code: u8,
    /// Its bit in [`Decisions`].
    pub bit: u8,
    /// The lowest true count the play is made at.
    pub lo: i32,
    /// The highest.
    pub hi: i32,
}

impl Entry {
    #[inline]
    pub fn holds(&self, tc: i32) -> bool {
        self.lo <= tc && tc <= self.hi
    }
}

/// Index plays compiled for the strategy table: per (row, up card), the entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexTable {
    /// `(first entry, entries)` per `row * UPS + up`.
    cells: Vec<(u32, u8)>,
    entries: Vec<Entry>,
    /// Insurance and even money: (index, at or below).
    pub(crate) insurance: Option<Entry>,
    plays: usize,
}

fn value_of(s: &str) -> Option<usize> {
    match s {
        "A" | "a" => Some(0),
        "T" | "t" | "10" | "J" | "Q" | "K" => Some(9),
        _ => s
            .parse::<usize>()
            .ok()
            .filter(|v| (2..=9).contains(v))
            .map(|v| v - 1),
    }
}

/// The hand's row: `None` for insurance.
fn row_of(hand: &str) -> Result<Option<usize>, IndexProblem> {
    let bad = || IndexProblem::Bad {
        value: hand.to_string(),
        what: "a hand (hard 4..21, soft A2..A9, a pair 22..99, TT, AA, or insurance)",
    };
    if hand == "insurance" {
        return Ok(None);
    }
    // a number is a hard total, except 22..99 with two equal digits: a pair
    if let Ok(t) = hand.parse::<usize>() {
        if (4..=21).contains(&t) {
            return Ok(Some(t));
        }
    }
    let chars: Vec<char> = hand.chars().collect();
    if let [a, b] = chars[..] {
        let (va, vb) = (value_of(&a.to_string()), value_of(&b.to_string()));
        if let (Some(va), Some(vb)) = (va, vb) {
            if va == vb {
                return Ok(Some(PAIR_ROW + va));
            }
            if va == 0 && (1..=8).contains(&vb) {
                // A2..A9: soft 13..20, rows SOFT_ROW + (total - 12).
                return Ok(Some(SOFT_ROW + vb));
            }
        }
    }
    Err(bad())
}

fn play_of(p: &str) -> Result<(u8, u8), IndexProblem> {
    Ok(match p {
        "hit" => (HIT, Decisions::HIT.0),
        "stand" => (STAND, Decisions::STAND.0),
        "double" => (DOUBLE, Decisions::DOUBLE.0),
        "split" => (SPLIT, Decisions::SPLIT.0),
        "surrender" => (SURRENDER, Decisions::SURRENDER.0),
        _ => {
            return Err(IndexProblem::Bad {
                value: p.to_string(),
                what: "a play (hit, stand, double, split, surrender)",
            })
        }
    })
}

/// Checks one play; the error names the key at fault.
fn check(p: &IndexPlay) -> Result<(), (&'static str, IndexProblem)> {
    compile_one(p).map(|_| ())
}

type Compiled = (Option<(usize, usize)>, Entry);

fn compile_one(p: &IndexPlay) -> Result<Compiled, (&'static str, IndexProblem)> {
    let row = row_of(&p.hand).map_err(|e| ("hand", e))?;
    let below = match p.when.as_deref() {
        None | Some("at-or-above") => false,
        Some("at-or-below") => true,
        Some(w) => {
            return Err((
                "when",
                IndexProblem::Bad {
                    value: w.to_string(),
                    what: "at-or-above or at-or-below",
                },
            ))
        }
    };
    if !(-1000..=1000).contains(&p.index) {
        return Err((
            "index",
            IndexProblem::WrongType("an integer from -1000 to 1000"),
        ));
    }
    let (lo, hi) = match (below, p.to) {
        (false, None) => (p.index, i32::MAX),
        (true, None) => (i32::MIN, p.index),
        (false, Some(to)) if (p.index..=1000).contains(&to) => (p.index, to),
        (_, Some(to)) => {
            return Err((
                "to",
                IndexProblem::Bad {
                    value: to.to_string(),
                    what: "the top of a band: at least `index`, at most 1000, with at-or-above",
                },
            ))
        }
    };
    match row {
        None => {
            if let Some(u) = p.up.as_deref().filter(|u| value_of(u) != Some(0)) {
                return Err((
                    "up",
                    IndexProblem::Bad {
                        value: u.to_string(),
                        what: "an ace (insurance is offered on an ace only)",
                    },
                ));
            }
            if let Some(pl) = p
                .play
                .as_deref()
                .filter(|x| !matches!(*x, "insure" | "insurance"))
            {
                return Err((
                    "play",
                    IndexProblem::Bad {
                        value: pl.to_string(),
                        what: "insure (or left out) for insurance",
                    },
                ));
            }
            Ok((
                None,
                Entry {
                    code: 0,
                    bit: 0,
                    lo,
                    hi,
                },
            ))
        }
        Some(r) => {
            let up = p.up.as_deref().ok_or(("up", IndexProblem::Missing))?;
            let u = value_of(up).ok_or((
                "up",
                IndexProblem::Bad {
                    value: up.to_string(),
                    what: "an up card (A, 2..9, T)",
                },
            ))?;
            let play = p.play.as_deref().ok_or(("play", IndexProblem::Missing))?;
            let (code, bit) = play_of(play).map_err(|e| ("play", e))?;
            if code == SPLIT && r < PAIR_ROW {
                return Err((
                    "play",
                    IndexProblem::Bad {
                        value: play.to_string(),
                        what: "a play of this hand (only a pair splits)",
                    },
                ));
            }
            Ok((Some((r, u)), Entry { code, bit, lo, hi }))
        }
    }
}

impl IndexTable {
    /// Compiles a set of plays (already checked by [`parse`]; a play that fails the
    /// checks is an error here too).
    pub fn compile(set: &IndexSet) -> Result<IndexTable, IndexError> {
        let mut per: Vec<Vec<Entry>> = vec![Vec::new(); ROWS * UPS];
        let mut insurance = None;
        for (i, p) in set.plays.iter().enumerate() {
            let (cell, e) = compile_one(p).map_err(|(k, problem)| IndexError {
                origin: set.name.clone(),
                line: None,
                key: Some(format!("index[{i}].{k}")),
                problem,
            })?;
            match cell {
                None => {
                    if insurance.is_none() {
                        insurance = Some(e);
                    }
                }
                Some((r, u)) => {
                    if let Some(v) = per.get_mut(r * UPS + u) {
                        if v.len() < usize::from(u8::MAX) {
                            v.push(e);
                        }
                    }
                }
            }
        }
        let mut cells = Vec::with_capacity(ROWS * UPS);
        let mut entries = Vec::new();
        for v in per {
            cells.push((entries.len() as u32, v.len() as u8));
            entries.extend(v);
        }
        Ok(IndexTable {
            cells,
            entries,
            insurance,
            plays: set.plays.len(),
        })
    }

    /// Plays in the set.
    pub fn len(&self) -> usize {
        self.plays
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.plays == 0
    }

    /// Whether the cell of hand row `row` against up card `up` (0 = ace) has entries.
    /// The least and the greatest bound (not open) of the hands' entries: every entry
    /// holds or not alike at every true count below the least, and alike above the
    /// greatest. `None` without a bound.
    pub(crate) fn count_range(&self) -> Option<(i32, i32)> {
        let bounds = self
            .entries
            .iter()
            .flat_map(|e| [e.lo, e.hi])
            .filter(|&b| b != i32::MIN && b != i32::MAX);
        let lo = bounds.clone().min()?;
        Some((lo, bounds.max()?))
    }

    pub(crate) fn has_entries(&self, row: usize, up: usize) -> bool {
        self.cells.get(row * UPS + up).is_some_and(|&(_, n)| n != 0)
    }

    /// Applies the cell's entries: the code to play, or `None` with `mask` narrowed to
    /// the options left. `tc` is asked at most once.
    #[inline]
    pub(crate) fn apply(
        &self,
        row: usize,
        up: usize,
        mask: &mut usize,
        tc: &mut impl FnMut() -> i32,
        cached: &mut Option<i32>,
    ) -> Option<u8> {
        let &(start, len) = self.cells.get(row * UPS + up)?;
        if len == 0 {
            return None;
        }
        let start = start as usize;
        for e in &self.entries[start..start + usize::from(len)] {
            let bit = usize::from(e.bit);
            if *mask & bit == 0 {
                continue;
            }
            let t = *cached.get_or_insert_with(&mut *tc);
            if e.holds(t) {
                return Some(e.code);
            }
            let narrowed = *mask & !bit & (MASKS - 1);
            if narrowed != 0 {
                *mask = narrowed;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I18: &str = r#"
name = "test"
[[index]]
hand = "insurance"
index = 3
[[index]]
hand = "16"
up = "T"
play = "stand"
index = 0
[[index]]
hand = "A8"
up = "6"
play = "double"
index = 1
[[index]]
hand = "TT"
up = "5"
play = "split"
index = 5
[[index]]
hand = "13"
up = "2"
play = "hit"
index = -2
when = "at-or-below"
"#;

    #[test]
    fn reads_toml_and_json_alike() {
        let t = parse(I18, "i18.toml").unwrap();
        assert_eq!(t.name, "test");
        assert_eq!(t.plays.len(), 5);
        assert_eq!(t.plays[1].up.as_deref(), Some("T"));
        let json = r#"{"indices": [{"hand": "16", "up": "T", "play": "stand", "index": 0}]}"#;
        let j = parse(json, "x.json").unwrap();
        assert_eq!(j.plays[0], t.plays[1]);
        assert_eq!(j.name, "x");
        let table = IndexTable::compile(&t).unwrap();
        assert_eq!(table.len(), 5);
        assert_eq!(table.insurance.map(|e| (e.lo, e.hi)), Some((3, i32::MAX)));
        assert_eq!(row_of("A8").unwrap(), Some(SOFT_ROW + 19 - 12));
        assert_eq!(row_of("A2").unwrap(), Some(SOFT_ROW + 13 - 12));
        assert_eq!(row_of("TT").unwrap(), Some(PAIR_ROW + 9));
        assert_eq!(row_of("AA").unwrap(), Some(PAIR_ROW));
        assert_eq!(row_of("22").unwrap(), Some(PAIR_ROW + 1));
        assert_eq!(row_of("99").unwrap(), Some(PAIR_ROW + 8));
        assert_eq!(row_of("21").unwrap(), Some(21));
        assert!(row_of("23").is_err() && row_of("3").is_err() && row_of("A1").is_err());
    }

    #[test]
    fn errors_name_line_and_key() {
        let bad = "[[index]]\nhand = \"16\"\nup = \"T\"\nplay = \"stnad\"\nindex = 0\n";
        let e = parse(bad, "f.toml").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert_eq!(e.key.as_deref(), Some("index[0].play"));
        let e = parse(
            "[[index]]\nhand = \"23\"\nup = \"T\"\nplay = \"hit\"\nindex = 0\n",
            "f",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("index[0].hand"));
        let e = parse(
            "[[index]]\nhand = \"16\"\nup = \"T\"\nplay = \"split\"\nindex = 0\n",
            "f",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("index[0].play"));
        let e = parse(
            "[[index]]\nhand = \"16\"\nup = \"T\"\nplay = \"hit\"\nindex = 0.5\n",
            "f",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(5));
        let e = parse("[[index]]\nhand = \"16\"\nplay = \"hit\"\nindex = 0\n", "f").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("index[0].up"));
        assert!(parse("nonsense = [", "f").is_err());
        assert!(parse("{\"indices\": 3}", "f").is_err());
        assert!(parse("extra = 1", "f").is_err());
    }

    #[test]
    fn a_cell_strikes_a_failed_play_and_keeps_the_rest() {
        let t = IndexTable::compile(&parse(I18, "f").unwrap()).unwrap();
        let all = usize::from(Decisions::HIT.0 | Decisions::STAND.0 | Decisions::DOUBLE.0);
        let mut mask = all;
        let mut cached = None;
        // 16 v T at +1: stand.
        assert_eq!(
            t.apply(16, 9, &mut mask, &mut || 1, &mut cached),
            Some(STAND)
        );
        // At -1: stand struck.
        let mut mask = all;
        let mut cached = None;
        assert_eq!(t.apply(16, 9, &mut mask, &mut || -1, &mut cached), None);
        assert_eq!(mask & usize::from(Decisions::STAND.0), 0);
        // 13 v 2 at -2 and below: hit.
        let mut mask = all;
        let mut cached = None;
        assert_eq!(
            t.apply(13, 1, &mut mask, &mut || -3, &mut cached),
            Some(HIT)
        );
        // A band: 17 v A surrenders from -8 to -6 only.
        let band =
            "[[index]]\nhand = \"17\"\nup = \"A\"\nplay = \"surrender\"\nindex = -8\nto = -6\n";
        let t = IndexTable::compile(&parse(band, "f").unwrap()).unwrap();
        let all = usize::from(Decisions::HIT.0 | Decisions::STAND.0 | Decisions::SURRENDER.0);
        for (tc, want) in [
            (-9, None),
            (-8, Some(SURRENDER)),
            (-6, Some(SURRENDER)),
            (-5, None),
        ] {
            let mut mask = all;
            assert_eq!(
                t.apply(17, 0, &mut mask, &mut || tc, &mut None),
                want,
                "{tc}"
            );
        }
        let e = parse(&band.replace("-6", "-9"), "f").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("index[0].to"));
        // A cell without entries asks nothing.
        let mut mask = all;
        let mut cached = None;
        assert_eq!(
            t.apply(12, 1, &mut mask, &mut || panic!("not asked"), &mut cached),
            None
        );
    }
}
