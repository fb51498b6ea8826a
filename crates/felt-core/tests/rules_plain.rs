//! A rules file is refused in a player's words, and validation refuses everything the
//! table would: a file that validates always makes a table, and each refusal names the
//! file, the line and the key.

use felt_core::presets;
use felt_core::round::MAX_SIDE_BETS;
use felt_core::rules::{LinePay, RulesErrorKind, RulesFile};
use felt_core::{Rules, RulesError, Table};

fn preset(name: &str) -> &'static str {
    presets::PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap()
}

/// The 1-based line of the `nth` (0-based) line of `text` containing `needle`.
fn nth_line_of(text: &str, needle: &str, nth: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .map(|(i, _)| i + 1)
        .unwrap_or_else(|| panic!("no occurrence {nth} of {needle}"))
}

fn refused(text: &str) -> RulesError {
    match Rules::from_toml(text, "mine.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Words of Rust, serde or the engine's types that a player should never read.
const RUST_WORDS: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "i64",
    "f64",
    "a boolean",
    "a string",
    "untagged",
    "enum",
    "variant",
    "struct",
    "field",
    "Raw",
    "invalid type",
    "invalid value",
    "expected",
    "LuckyLucky",
    "ThreeCardPoker",
    "LuckyLadies",
    "Sevens",
    "Option",
    "sequence",
];

fn assert_plain(e: &RulesError, context: &str) {
    let shown = e.to_string();
    for w in RUST_WORDS {
        let hit = shown
            .split(|c: char| !(c.is_alphanumeric() || c == ' '))
            .any(|part| {
                part == *w
                    || part.split(' ').any(|word| word == *w)
                    || part.contains(w) && w.contains(' ')
            });
        assert!(!hit, "{context}: `{w}` in: {shown}");
    }
    assert!(e.line.is_some() && e.key.is_some(), "{context}: {shown}");
}

#[test]
fn c_1_a_wrong_deck_count_reads_as_a_whole_number_from_1_to_8() {
    for (value, found) in [
        ("300", "300"),
        ("-1", "-1"),
        ("\"six\"", "\"six\""),
        ("1.5", "1.5"),
    ] {
        let text = preset("classic").replacen("decks = 6", &format!("decks = {value}"), 1);
        let e = refused(&text);
        assert_eq!(e.key.as_deref(), Some("shoe.decks"), "{e}");
        assert_eq!(e.line, Some(nth_line_of(&text, "decks = ", 0)), "{e}");
        assert!(
            e.to_string()
                .ends_with(&format!("{found} is not a whole number from 1 to 8")),
            "{e}"
        );
        assert_plain(&e, value);
    }
    // In range for the type, out of range for the rule: the same words.
    let text = preset("classic").replacen("decks = 6", "decks = 9", 1);
    let e = refused(&text);
    assert!(
        e.to_string()
            .contains("9 is not a whole number from 1 to 8"),
        "{e}"
    );
}

#[test]
fn a_hand_of_another_bet_names_the_bet_kind_as_the_file_writes_it() {
    let text = preset("lucky-lucky").replacen(r#"hand = "777","#, r#"hand = "three-sevens","#, 1);
    let e = refused(&text);
    assert_eq!(e.key.as_deref(), Some("side_bets[0].pays[2].hand"), "{e}");
    assert!(e.to_string().contains("\"lucky-lucky\""), "{e}");
    assert!(e.to_string().contains("Lucky Lucky bet"), "{e}");
    assert_plain(&e, "three-sevens");
}

#[test]
fn an_amount_or_a_ratio_of_the_wrong_type_says_how_to_write_one() {
    let text = preset("classic").replacen(r#"min = "5.00""#, "min = 5.5", 1);
    let e = refused(&text);
    assert!(
        e.to_string()
            .contains(r#"write a decimal amount in quotes, "5.50""#),
        "{e}"
    );
    assert_plain(&e, "min = 5.5");
    let text = preset("classic").replacen(r#"min = "5.00""#, "min = true", 1);
    let e = refused(&text);
    assert!(
        e.to_string().ends_with(
            "true is not an amount: a whole number (25) or a decimal in quotes (\"2.50\")"
        ),
        "{e}"
    );
    let text = preset("classic").replacen(r#"blackjack_pays = "3:2""#, "blackjack_pays = 1.5", 1);
    let e = refused(&text);
    assert!(
        e.to_string()
            .ends_with("1.5 is not a payout ratio in quotes, a:b (\"3:2\", \"200:1\")"),
        "{e}"
    );
}

#[test]
fn a_missing_or_unknown_key_is_named_with_what_belongs_there() {
    let text = preset("classic").replacen("decks = 6 ", "# decks = 6 ", 1);
    let e = refused(&text);
    assert!(
        e.to_string()
            .ends_with("the key `decks` is missing: give a whole number from 1 to 8"),
        "{e}"
    );
    let text = preset("classic").replacen("decks = 6", "deck = 6", 1);
    let e = refused(&text);
    assert!(
        e.to_string()
            .contains("there is no key `deck` in `shoe`; the keys are `decks`"),
        "{e}"
    );
    let text = preset("classic").replacen(r#"soft_17 = "stand""#, "soft_17 = 17", 1);
    let e = refused(&text);
    assert!(e.to_string().ends_with(r#"give "stand" or "hit""#), "{e}");
}

/// Every `key = value` of every preset, the keys inside inline pay lines included,
/// given a value of each wrong kind: whatever is refused is refused in plain words,
/// with its line and key.
#[test]
fn every_key_of_every_preset_is_refused_in_plain_words() {
    let wrong = ["\"x y\"", "300", "-3", "1.5", "true", "[1, 2]", "{ a = 1 }"];
    let mut refusals = 0;
    for (name, text) in presets::PRESETS {
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with('#') || t.starts_with('[') || !t.contains(" = ") {
                continue;
            }
            // The values on this line: one for `key = value`, one per key of a
            // `{ k = v, ... }` pay line.
            let mut values: Vec<(usize, usize)> = Vec::new();
            if let Some(inner) = t.strip_prefix('{') {
                let base = line.len() - inner.len();
                let mut at = 0;
                for part in inner.trim_end_matches(['}', ',', ' ']).split(',') {
                    if let Some((_, v)) = part.split_once('=') {
                        let start = base + at + part.find('=').unwrap() + 1;
                        values.push((start, start + v.len()));
                    }
                    at += part.len() + 1;
                }
            } else if let Some(eq) = line.find(" = ") {
                let end = line.find(" #").unwrap_or(line.len());
                values.push((eq + 3, end));
            }
            for (start, end) in values {
                for w in wrong {
                    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                    lines[i] = format!("{} {w} {}", &line[..start], &line[end..]);
                    let edited = lines.join("\n");
                    let Err(e) = Rules::from_toml(&edited, "mine.toml") else {
                        continue;
                    };
                    refusals += 1;
                    assert_plain(&e, &format!("{name}.toml line {}: {}", i + 1, lines[i]));
                }
            }
        }
    }
    assert!(refusals > 500, "only {refusals} refusals were tried");
}

// ---- Validation refuses what the table would ----

/// `blackjack-bonus` with `extra` more side bets (copies of its first, renamed).
fn with_more_side_bets(extra: usize) -> String {
    let text = preset("blackjack-bonus");
    let start = text.find("[[side_bets]]").unwrap();
    let second = start + 1 + text[start + 1..].find("[[side_bets]]").unwrap();
    let first = &text[start..second];
    let mut out = text.to_string();
    for k in 0..extra {
        out.push('\n');
        out.push_str(&first.replacen(
            r#"id = "poker-bonus""#,
            &format!(r#"id = "poker-bonus-{k}""#),
            1,
        ));
    }
    out
}

#[test]
fn c_3_five_side_bets_are_refused_at_the_fifth_with_its_line() {
    let four = with_more_side_bets(MAX_SIDE_BETS - 2);
    let rules = Rules::from_toml(&four, "four.toml").expect("four side bets are a table");
    assert!(Table::new(&rules).is_ok());

    let five = with_more_side_bets(MAX_SIDE_BETS - 1);
    let e = refused(&five);
    assert_eq!(e.key.as_deref(), Some("side_bets[4]"), "{e}");
    assert_eq!(e.line, Some(nth_line_of(&five, "[[side_bets]]", 4)), "{e}");
    assert!(matches!(e.kind, RulesErrorKind::Invalid(_)));
    assert!(
        e.to_string()
            .contains("at most 4 side bets, but this file has 5"),
        "{e}"
    );
}

#[test]
fn an_id_the_table_cannot_hold_is_refused_with_its_line_and_key() {
    let ok = "a".repeat(31);
    let long = "a".repeat(32);
    // A side bet's id.
    let text =
        preset("lucky-lucky").replacen(r#"id = "lucky-lucky""#, &format!(r#"id = "{ok}""#), 2);
    let rules = Rules::from_toml(&text, "mine.toml").unwrap();
    assert!(Table::new(&rules).is_ok());
    let text = preset("lucky-lucky").replacen(r#"id = "lucky-lucky""#, "id = \"x\"", 1);
    let text = text.replacen(r#"id = "lucky-lucky""#, &format!(r#"id = "{long}""#), 1);
    let e = refused(&text);
    assert_eq!(e.key.as_deref(), Some("side_bets[0].id"), "{e}");
    assert_eq!(e.line, Some(nth_line_of(&text, &long, 0)), "{e}");
    assert!(e.to_string().contains("32 bytes long"), "{e}");
    // A meter's id.
    let text = preset("blazing-7s").replacen(
        r#"meter = "blazing-7s""#,
        &format!(r#"meter = "{long}""#),
        1,
    );
    let e = refused(&text);
    assert_eq!(
        e.key.as_deref(),
        Some("side_bets[0].progressive.meter"),
        "{e}"
    );
    assert_eq!(e.line, Some(nth_line_of(&text, &long, 0)), "{e}");
    // A character the books would not keep as written.
    let text = preset("classic").replacen(r#"id = "classic""#, "id = \"my game\"", 1);
    let e = refused(&text);
    assert_eq!(e.key.as_deref(), Some("game.id"), "{e}");
    assert!(e.to_string().contains("' '"), "{e}");
}

#[test]
fn b7_1_two_bets_sharing_a_meter_must_agree_on_its_reset() {
    let text = preset("blazing-7s");
    let start = text.find("[[side_bets]]").unwrap();
    let copy = text[start..]
        .replacen(r#"id = "blazing-7s""#, r#"id = "blazing-7s-b""#, 1)
        .replacen(r#"reset = "2000.00""#, r#"reset = "3000.00""#, 1);
    assert!(
        copy.contains("3000.00"),
        "the preset's reset is written \"2000.00\""
    );
    let two = format!("{text}\n{copy}");
    let e = refused(&two);
    assert_eq!(
        e.key.as_deref(),
        Some("side_bets[1].progressive.reset"),
        "{e}"
    );
    assert_eq!(e.line, Some(nth_line_of(&two, "3000.00", 0)), "{e}");
}

/// Every file validation accepts makes a table: mutations of each preset at the
/// limits the table has (side bets, id lengths), accepted or refused together.
#[test]
fn c_10_a_file_that_validates_always_makes_a_table() {
    let mut texts: Vec<String> = presets::PRESETS
        .iter()
        .map(|(_, t)| t.to_string())
        .collect();
    for extra in 0..=3 {
        texts.push(with_more_side_bets(extra));
    }
    for len in [1, 30, 31, 32, 33, 64] {
        let id = "b".repeat(len);
        texts.push(preset("blazing-7s").replacen(
            r#"meter = "blazing-7s""#,
            &format!(r#"meter = "{id}""#),
            1,
        ));
        texts.push(
            preset("lucky-7")
                .replacen(r#"id = "lucky-7""#, "id = \"g\"", 1)
                .replacen(r#"id = "lucky-7""#, &format!(r#"id = "{id}""#), 1),
        );
    }
    let mut accepted = 0;
    for t in &texts {
        if let Ok(rules) = Rules::from_toml(t, "mine.toml") {
            accepted += 1;
            Table::new(&rules).unwrap_or_else(|e| panic!("validated but the table refuses: {e}"));
        }
    }
    assert!(
        accepted > presets::PRESETS.len() && accepted < texts.len(),
        "{accepted}"
    );
}

#[test]
fn a_pay_line_without_odds_or_a_meter_share_cannot_be_read() {
    let text = preset("lucky-lucky").replacen(
        r#"{ hand = "777",        odds = "50:1",  basis = "to" }"#,
        r#"{ hand = "777",        basis = "to" }"#,
        1,
    );
    // Not as rules...
    let e = refused(&text);
    assert_eq!(e.key.as_deref(), Some("side_bets[0].pays[2]"), "{e}");
    assert_eq!(
        e.line,
        Some(nth_line_of(&text, r#"hand = "777","#, 0)),
        "{e}"
    );
    assert!(
        e.to_string().contains("says nothing about what it pays"),
        "{e}"
    );
    // ...nor as the file's plain form, which the engine could otherwise read as 0:1.
    assert!(toml::from_str::<RulesFile>(&text).is_err());
    // Both is refused the same way.
    let both = preset("lucky-lucky").replacen(
        r#"odds = "50:1","#,
        r#"odds = "50:1", meter_percent = 10,"#,
        1,
    );
    let e = refused(&both);
    assert!(
        e.to_string()
            .contains("gives both `odds` and `meter_percent`"),
        "{e}"
    );
    // A line reads as what it says.
    let r = Rules::from_toml(preset("blazing-7s"), "b.toml").unwrap();
    let pays: Vec<LinePay> = r.side_bets()[0].pays.iter().map(|l| l.pay).collect();
    assert!(matches!(pays[0], LinePay::Meter(100)), "{pays:?}");
    assert!(pays
        .iter()
        .all(|p| !matches!(p, LinePay::Odds(r) if r.num == 0)));
}
