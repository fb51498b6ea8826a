//! The tables file: which tables a server runs.
//!
//! ```toml
//! [[table]]
//! name = "classic-1"         # unique, shown in the lobby
//! game = "classic"           # a preset, or the path of a rules file
//! seats = 7                  # optional: at most the game's seats
//! main_min = "5.00"          # optional: the main bet's limits, within the game's
//! main_max = "500.00"
//! betting_secs = 15          # the betting window
//! decision_secs = 20         # the decision timer per hand and offer
//! pause_ms = 2000            # the pause after a round's settlement
//! absent_rounds = 3          # rounds a disconnected player keeps the seat
//! reconnect_secs = 60        # how long the frames a player missed are kept once
//!                            # they have neither a seat nor a connection here
//! hints = true               # the basic-strategy hint on a player's request
//! ```
//!
//! A table's seats and limits change its rules (the books keep each round's rules, so
//! a round is always replayed under those it was dealt under).

use felt_core::{Money, Rules};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Why a tables file is refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read the tables file {path}: {cause}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The file is not a tables file.
    #[error("the tables file {path} is not valid: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line and key.
        message: String,
    },
    /// A table's game cannot be loaded or its settings do not fit it.
    #[error("the tables file {path}, table `{table}`: {message}")]
    Table {
        /// The file.
        path: PathBuf,
        /// The table.
        table: String,
        /// What is wrong.
        message: String,
    },
}

/// The largest tables file read.
const MAX_FILE: u64 = 1 << 20;

/// The tables file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablesFile {
    #[serde(default)]
    table: Vec<TableEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableEntry {
    name: String,
    game: String,
    seats: Option<u8>,
    main_min: Option<Money>,
    main_max: Option<Money>,
    betting_secs: Option<u32>,
    decision_secs: Option<u32>,
    pause_ms: Option<u32>,
    absent_rounds: Option<u32>,
    reconnect_secs: Option<u32>,
    hints: Option<bool>,
}

/// One table a server runs.
#[derive(Debug, Clone)]
pub struct TableConfig {
    /// Its name (unique on the server; the books' table id is `online/NAME`).
    pub name: String,
    /// The game as given (a preset or a rules file).
    pub game: String,
    /// The rules, with the table's seats and limits.
    pub rules: Rules,
    /// The betting window (ms).
    pub betting_ms: u64,
    /// The decision timer per hand or offer (ms).
    pub decision_ms: u64,
    /// The pause after a round's settlement (ms).
    pub pause_ms: u64,
    /// Rounds a disconnected player keeps the seat.
    pub absent_rounds: u32,
    /// How long a player's stream (the frames they missed) outlives their last seat
    /// and connection at the table (ms).
    pub reconnect_ms: u64,
    /// Players may ask for the basic-strategy hint ([`crate::hint`]).
    pub hints: bool,
}

impl TableConfig {
    /// The books' table id.
    pub fn table_id(&self) -> String {
        format!("online/{}", self.name)
    }
}

/// Default betting window (s).
pub const BETTING_SECS: u32 = 15;
/// Default decision timer (s).
pub const DECISION_SECS: u32 = 20;
/// Default pause after a round (ms).
pub const PAUSE_MS: u32 = 2_000;
/// Default rounds a disconnected player keeps the seat.
pub const ABSENT_ROUNDS: u32 = 3;
/// Default time a player's missed frames are kept once they are gone (s).
pub const RECONNECT_SECS: u32 = 60;
const MAX_TABLES: usize = 1_000;
const MAX_SECS: u32 = 3_600;

/// One table of each preset, with the default timers.
pub fn default_tables(
    load: &dyn Fn(&str) -> Result<Rules, String>,
) -> Result<Vec<TableConfig>, ConfigError> {
    let text: String = felt_core::presets::names()
        .map(|n| format!("[[table]]\nname = \"{n}\"\ngame = \"{n}\"\n"))
        .collect();
    parse(&text, Path::new("(the default tables)"), load)
}

/// Reads a tables file; `load` loads a game argument (a preset or a rules file).
pub fn read(
    path: &Path,
    load: &dyn Fn(&str) -> Result<Rules, String>,
) -> Result<Vec<TableConfig>, ConfigError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    })?;
    let mut text = String::new();
    file.take(MAX_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|cause| ConfigError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
    if text.len() as u64 > MAX_FILE {
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("it is larger than {MAX_FILE} bytes"),
        });
    }
    parse(&text, path, load)
}

/// Parses a tables file's text.
pub fn parse(
    text: &str,
    path: &Path,
    load: &dyn Fn(&str) -> Result<Rules, String>,
) -> Result<Vec<TableConfig>, ConfigError> {
    let file: TablesFile = toml::from_str(text).map_err(|e| ConfigError::Invalid {
        path: path.to_path_buf(),
        message: match e.span() {
            Some(span) => format!(
                "line {}: {}",
                felt_core::rules::line_of_offset(text, span.start),
                e.message()
            ),
            None => e.message().to_string(),
        },
    })?;
    if file.table.is_empty() {
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            message: "it names no table (write at least one [[table]] with a name and a game)"
                .to_string(),
        });
    }
    if file.table.len() > MAX_TABLES {
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "it names {} tables; a server runs at most {MAX_TABLES}",
                file.table.len()
            ),
        });
    }
    let mut out: Vec<TableConfig> = Vec::with_capacity(file.table.len());
    for t in file.table {
        let bad = |message: String| ConfigError::Table {
            path: path.to_path_buf(),
            table: t.name.clone(),
            message,
        };
        felt_store::validate_name("table", &t.name).map_err(|e| bad(e.to_string()))?;
        if t.name.len() > 40
            || !t
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(bad(
                "a table name is 1 to 40 letters, digits, `-` or `_`".to_string()
            ));
        }
        if out.iter().any(|o| o.name == t.name) {
            return Err(bad("two tables have this name".to_string()));
        }
        let rules = load(&t.game).map_err(bad)?;
        let rules = adjust(&rules, &t).map_err(bad)?;
        let secs = |v: Option<u32>, default: u32, what: &str| -> Result<u64, ConfigError> {
            let v = v.unwrap_or(default);
            if !(1..=MAX_SECS).contains(&v) {
                return Err(bad(format!("{what} is {v}: write 1 to {MAX_SECS} seconds")));
            }
            Ok(u64::from(v) * 1_000)
        };
        let betting_ms = secs(t.betting_secs, BETTING_SECS, "betting_secs")?;
        let decision_ms = secs(t.decision_secs, DECISION_SECS, "decision_secs")?;
        let pause_ms = u64::from(t.pause_ms.unwrap_or(PAUSE_MS));
        if pause_ms > 60_000 {
            return Err(bad(format!("pause_ms is {pause_ms}: write 0 to 60000")));
        }
        let absent_rounds = t.absent_rounds.unwrap_or(ABSENT_ROUNDS).min(100);
        let reconnect_ms = secs(t.reconnect_secs, RECONNECT_SECS, "reconnect_secs")?;
        out.push(TableConfig {
            name: t.name.clone(),
            game: t.game.clone(),
            rules,
            betting_ms,
            decision_ms,
            pause_ms,
            absent_rounds,
            reconnect_ms,
            hints: t.hints.unwrap_or(true),
        });
    }
    Ok(out)
}

/// The game's rules with the table's seats and limits (checked like any rules file).
fn adjust(rules: &Rules, t: &TableEntry) -> Result<Rules, String> {
    if t.seats.is_none() && t.main_min.is_none() && t.main_max.is_none() {
        return Ok(rules.clone());
    }
    let mut doc: toml::Table =
        toml::from_str(&rules.canonical_toml()).map_err(|e| e.to_string())?;
    if let Some(seats) = t.seats {
        if seats == 0 || seats > rules.table().seats {
            return Err(format!(
                "seats = {seats}: the game `{}` has 1 to {} seats",
                t.game,
                rules.table().seats
            ));
        }
        if let Some(toml::Value::Table(table)) = doc.get_mut("table") {
            table.insert("seats".into(), toml::Value::Integer(i64::from(seats)));
        } else {
            let mut table = toml::Table::new();
            table.insert("seats".into(), toml::Value::Integer(i64::from(seats)));
            doc.insert("table".into(), toml::Value::Table(table));
        }
    }
    let main = rules.main_bet();
    for (key, v) in [("min", t.main_min), ("max", t.main_max)] {
        let Some(v) = v else { continue };
        if v < main.min || v > main.max {
            return Err(format!(
                "main_{key} = {v}: the game `{}` takes main bets of {} to {}",
                t.game, main.min, main.max
            ));
        }
        if let Some(toml::Value::Table(m)) = doc.get_mut("main_bet") {
            m.insert(key.into(), toml::Value::String(v.to_string()));
        }
    }
    let text = toml::to_string(&doc).map_err(|e| e.to_string())?;
    Rules::from_toml(&text, &format!("the rules of table `{}`", t.name)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str) -> Result<Rules, String> {
        match felt_core::presets::load(name) {
            Some(r) => r.map_err(|e| e.to_string()),
            None => Err(format!("no game `{name}`")),
        }
    }

    #[test]
    fn the_default_tables_are_one_of_each_preset() {
        let t = default_tables(&preset).unwrap();
        let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, felt_core::presets::names().collect::<Vec<_>>());
        assert!(t
            .iter()
            .all(|t| t.betting_ms == 15_000 && t.decision_ms == 20_000));
    }

    #[test]
    fn seats_and_limits_change_the_rules_and_bad_ones_are_refused_with_the_table() {
        let text =
            "[[table]]\nname = \"c1\"\ngame = \"classic\"\nseats = 3\nmain_min = \"10.00\"\n";
        let t = parse(text, Path::new("t.toml"), &preset).unwrap();
        assert_eq!(t[0].rules.table().seats, 3);
        assert_eq!(t[0].rules.main_bet().min, Money::cents(10_00));
        let bad = "[[table]]\nname = \"c1\"\ngame = \"classic\"\nseats = 9\n";
        let e = parse(bad, Path::new("t.toml"), &preset)
            .unwrap_err()
            .to_string();
        assert!(e.contains("table `c1`") && e.contains("seats = 9"), "{e}");
        let e = parse(
            "[[table]]\nname = \"x\"\ngame = \"poker\"\n",
            Path::new("t.toml"),
            &preset,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no game `poker`"), "{e}");
        let e = parse(
            "[[table]]\nname = \"x\"\ngame = \"classic\"\ncolour = 1\n",
            Path::new("t.toml"),
            &preset,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 4") && e.contains("colour"), "{e}");
        let two = "[[table]]\nname = \"a\"\ngame = \"classic\"\n[[table]]\nname = \"a\"\ngame = \"lucky-7\"\n";
        let e = parse(two, Path::new("t.toml"), &preset)
            .unwrap_err()
            .to_string();
        assert!(e.contains("two tables"), "{e}");
        let e = parse("", Path::new("t.toml"), &preset)
            .unwrap_err()
            .to_string();
        assert!(e.contains("names no table"), "{e}");
    }
}
