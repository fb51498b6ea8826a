//! Rules-file errors name the file, the line and the exact key, wherever the fault is:
//! inside an inline pay line, in a later `[[side_bets]]` table, in a nested table, or
//! in text that is not TOML at all. No input panics.

use felt_core::presets;
use felt_core::rules::{RulesError, RulesErrorKind};
use felt_core::{Money, Rules};

fn preset(name: &str) -> &'static str {
    presets::PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap()
}

/// `name`'s preset text with the `nth` (0-based) occurrence of `from` replaced by `to`.
fn edited(name: &str, from: &str, nth: usize, to: &str) -> String {
    let text = preset(name);
    let (at, _) = text
        .match_indices(from)
        .nth(nth)
        .unwrap_or_else(|| panic!("{name}.toml lacks occurrence {nth} of {from}"));
    format!("{}{}{}", &text[..at], to, &text[at + from.len()..])
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Loads `text`, expects a syntax error and checks file, line and key, and that the
/// message shown to the user carries all three.
fn refused(text: &str, line: usize, key: &str) -> RulesError {
    let err = Rules::from_toml(text, "mine.toml").unwrap_err();
    assert_eq!(err.origin, "mine.toml", "{err}");
    assert_eq!(err.key.as_deref(), Some(key), "{err}");
    assert_eq!(err.line, Some(line), "{err}");
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("mine.toml, line {line}, key `{key}`: ")),
        "{shown}"
    );
    err
}

#[test]
fn bad_basis_in_an_inline_pay_line_names_the_line_entry_and_field() {
    let text = edited(
        "lucky-lucky",
        r#"{ hand = "777",        odds = "50:1",  basis = "to" }"#,
        0,
        r#"{ hand = "777",        odds = "50:1",  basis = "ot" }"#,
    );
    let err = refused(
        &text,
        line_of(&text, "basis = \"ot\""),
        "side_bets[0].pays[2].basis",
    );
    assert!(matches!(err.kind, RulesErrorKind::Syntax(_)));
}

#[test]
fn bad_odds_in_an_inline_pay_line_names_the_odds() {
    let text = edited("lucky-lucky", r#"odds = "30:1""#, 0, r#"odds = "30/1""#);
    refused(&text, line_of(&text, "30/1"), "side_bets[0].pays[3].odds");
}

#[test]
fn wrong_type_in_an_inline_pay_line_names_the_field() {
    let text = edited("lucky-lucky", r#"odds = "15:1""#, 0, "odds = 15");
    refused(
        &text,
        line_of(&text, "odds = 15,"),
        "side_bets[0].pays[4].odds",
    );
}

#[test]
fn unknown_key_in_an_inline_pay_line_names_that_key() {
    let text = edited(
        "lucky-lucky",
        r#"basis = "to" }"#,
        1,
        r#"basis = "to", colour = "red" }"#,
    );
    refused(
        &text,
        line_of(&text, "colour"),
        "side_bets[0].pays[1].colour",
    );
}

#[test]
fn errors_in_the_second_side_bet_table_keep_its_index() {
    // A bad value of a plain key of `[[side_bets]]` number 2.
    let text = edited(
        "blackjack-bonus",
        r#"third_card = "next-card""#,
        0,
        r#"third_card = "the-next-card""#,
    );
    refused(
        &text,
        line_of(&text, "the-next-card"),
        "side_bets[1].third_card",
    );

    // A wrong type there.
    let text = edited(
        "blackjack-bonus",
        "third_card_on_dealer_natural = false",
        0,
        "third_card_on_dealer_natural = \"no\"",
    );
    refused(
        &text,
        line_of(&text, "third_card_on_dealer_natural"),
        "side_bets[1].third_card_on_dealer_natural",
    );

    // An unknown key there.
    let text = edited(
        "blackjack-bonus",
        "third_card_on_dealer_natural = false",
        0,
        "third_card_on_dealer_natural = false\nthird_card_on_tuesdays = true",
    );
    refused(
        &text,
        line_of(&text, "third_card_on_tuesdays"),
        "side_bets[1].third_card_on_tuesdays",
    );

    // A bad pay line in it.
    let text = edited(
        "blackjack-bonus",
        r#"{ hand = "two-sevens",          odds = "50:1",  basis = "to" }"#,
        0,
        r#"{ hand = "two-sevens",          odds = "50:1",  basis = "for-ever" }"#,
    );
    refused(
        &text,
        line_of(&text, "for-ever"),
        "side_bets[1].pays[3].basis",
    );
}

#[test]
fn errors_in_nested_tables_name_the_full_path() {
    // A progressive's settings are a table inside `[[side_bets]]`.
    let text = preset("blazing-7s");
    let (from, to) = text
        .lines()
        .find(|l| l.trim_start().starts_with("reset ="))
        .map(|l| (l.to_string(), "reset = true".to_string()))
        .expect("blazing-7s.toml has a progressive reset");
    let text = text.replacen(&from, &to, 1);
    assert!(text.contains("[side_bets.progressive]"));
    refused(
        &text,
        line_of(&text, "reset = true"),
        "side_bets[0].progressive.reset",
    );

    // A dotted key spelled out in a plain table.
    let text = edited("classic", "decks = 6", 0, "decks.count = 6");
    refused(&text, line_of(&text, "decks.count"), "shoe.decks");

    // An inline table where a table is expected, with an unknown key in it.
    let text = edited("classic", "[table]\n", 0, "[table]\nlimits = { max = 3 }\n");
    refused(&text, line_of(&text, "limits = "), "table.limits");
}

#[test]
fn plain_keys_are_still_exact() {
    let text = edited("classic", "decks = 6", 0, "decks = \"six\"");
    refused(&text, line_of(&text, "decks = \"six\""), "shoe.decks");
    let text = edited("classic", "surrender = ", 0, "surender = ");
    refused(&text, line_of(&text, "surender"), "player.surender");
}

#[test]
fn text_that_is_not_toml_names_the_key_on_its_line_with_the_table_index() {
    // A value that is not TOML at all, in the second side bet.
    let text = edited(
        "blackjack-bonus",
        r#"third_card = "next-card""#,
        0,
        "third_card = next card",
    );
    refused(
        &text,
        line_of(&text, "third_card = next card"),
        "side_bets[1].third_card",
    );
}

#[test]
fn any_prefix_or_byte_change_of_a_preset_never_panics() {
    for (_, text) in presets::PRESETS {
        let bytes = text.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            if let Ok(t) = std::str::from_utf8(&bytes[..cut]) {
                let _ = Rules::from_toml(t, "cut.toml");
            }
        }
        for at in (0..bytes.len()).step_by(13) {
            for b in [b'"', b'{', b']', b'=', b'\n', b'x'] {
                let mut v = bytes.to_vec();
                v[at] = b;
                if let Ok(t) = std::str::from_utf8(&v) {
                    if let Err(e) = Rules::from_toml(t, "x.toml") {
                        let _ = e.to_string();
                    }
                }
            }
        }
    }
    for t in [
        "",
        "=",
        "[",
        "[[",
        "a.b.c = 1\n[a]",
        "é = {",
        "[x]\né",
        "\"\u{1F600}\" = [",
    ] {
        let _ = Rules::from_toml(t, "odd.toml");
    }
}

// ---- Limits checked before anything is written (issue 11, item 5) -------------------

/// Loads `text`, expects a validation error at `key` on `line`, returns its message.
fn invalid(text: &str, line: usize, key: &str) -> String {
    let err = refused(text, line, key);
    match err.kind {
        RulesErrorKind::Invalid(m) => m,
        other => panic!("not a validation error: {other:?}"),
    }
}

/// `text` with the first occurrence of `from` replaced by `to`.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the text lacks {from}");
    text.replacen(from, to, 1)
}

#[test]
fn c_2_a_payout_that_could_overflow_the_books_is_refused_at_its_line() {
    // Lucky Ladies with the largest side-bet maximum the limits allow (10,000,000.00)
    // and the largest odds a ratio can hold: 10^9 cents at 4294967295:1 pays 4.3 x
    // 10^18 cents, which the books' i64 cents cannot add to a house or a wallet twice.
    let big = edited(
        "lucky-ladies",
        r#"max = "500.00"     #"#,
        0,
        r#"max = "10000000.00" #"#,
    );
    let r = Rules::from_toml(&big, "big.toml").unwrap();
    assert_eq!(r.payout_bound().largest_key, "side_bets[0].pays[0].odds");
    let text = replaced(&big, r#"odds = "1000:1""#, r#"odds = "4294967295:1""#);
    let m = invalid(
        &text,
        line_of(&text, "4294967295:1"),
        "side_bets[0].pays[0].odds",
    );
    // The message gives the payout, the seat's round, the spots and the limit.
    assert!(m.contains("42,949,672,960,000,000.00"), "{m}");
    assert!(m.contains("3 spot(s)"), "{m}");
    assert!(m.contains("10,000,000,000,000,000.00"), "{m}");

    // The same odds on the preset's maximum are fine: the bound is the product.
    let small = edited(
        "lucky-ladies",
        r#"odds = "1000:1""#,
        0,
        r#"odds = "4294967295:1""#,
    );
    let b = Rules::from_toml(&small, "small.toml")
        .unwrap()
        .payout_bound();
    assert_eq!(b.largest_key, "side_bets[0].pays[0].odds");
    assert_eq!(b.largest, Money::cents(50_000 + 50_000 * 4_294_967_295));
    assert_eq!(b.per_seat, Money::cents(3 * b.per_spot.as_cents()));

    // The blackjack payout and the insurance payout are bounded too.
    let main = edited("classic", r#"max = "500.00""#, 0, r#"max = "10000000.00""#);
    Rules::from_toml(&main, "main.toml").unwrap();
    let text = replaced(
        &main,
        r#"blackjack_pays = "3:2""#,
        r#"blackjack_pays = "4294967295:1""#,
    );
    invalid(
        &text,
        line_of(&text, "4294967295:1"),
        "main_bet.blackjack_pays",
    );
    let text = replaced(&main, r#"pays = "2:1""#, r#"pays = "4294967295:1""#);
    invalid(&text, line_of(&text, "4294967295:1"), "insurance.pays");
}

#[test]
fn c_2_every_preset_pays_within_the_bound_and_a_meter_line_is_bounded_by_the_meter() {
    use felt_core::round::MAX_ROUND_PAYOUT;
    use felt_core::rules::METER_BOUND;
    for name in presets::names() {
        let b = presets::load(name).unwrap().unwrap().payout_bound();
        assert!(b.per_seat <= MAX_ROUND_PAYOUT, "{name}: {b:?}");
        assert!(b.largest <= b.per_spot, "{name}: {b:?}");
    }
    // Lucky Ladies: 500.00 on the 1000:1 line, stake returned.
    let ll = presets::load("lucky-ladies")
        .unwrap()
        .unwrap()
        .payout_bound();
    assert_eq!(ll.largest, Money::cents(50_050_000));
    // Blazing 7s: the 100% line pays the whole meter (taken at its bound), plus the
    // 1.00 stake on `to`.
    let b7 = presets::load("blazing-7s").unwrap().unwrap().payout_bound();
    assert_eq!(b7.largest_key, "side_bets[0].pays[0].meter_percent");
    assert_eq!(b7.largest, METER_BOUND + Money::cents(100));
    // A meter reset above the bound is refused at its line.
    let text = edited(
        "blazing-7s",
        r#"reset = "2000.00""#,
        0,
        r#"reset = "200000000000000.00""#,
    );
    invalid(
        &text,
        line_of(&text, "reset = "),
        "side_bets[0].progressive.reset",
    );
}

#[test]
fn c_12_a_table_whose_initial_deal_alone_exceeds_the_shoe_is_refused() {
    // One deck, 7 seats of 7 spots: the initial deal needs 2 x 49 + 2 = 100 cards of
    // 52, so every round at a full table would be voided.
    let text = edited(
        "classic",
        "max_spots_per_player = 3",
        0,
        "max_spots_per_player = 7",
    );
    Rules::from_toml(&text, "seven.toml").unwrap();
    let text = replaced(&text, "decks = 6 ", "decks = 1 ");
    let m = invalid(&text, line_of(&text, "decks = 1 "), "shoe.decks");
    for n in ["49 spots", "100 cards", "hold 52", "at least 2 decks"] {
        assert!(m.contains(n), "{n}: {m}");
    }
    // Changing the decks of valid rules is checked the same way.
    let seven = Rules::from_toml(&text.replace("decks = 1 ", "decks = 2 "), "x").unwrap();
    let e = seven.with_decks(1).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("shoe.decks"));
    // A deal that fills the shoe exactly (25 spots: 52 cards) is accepted.
    let full = seven
        .modified(|f| {
            f.shoe.decks = 1;
            f.table.seats = 5;
            f.table.max_spots_per_player = 5;
        })
        .unwrap();
    assert_eq!(full.shoe().decks, 1);
    let e = seven
        .modified(|f| {
            f.shoe.decks = 1;
            f.table.seats = 4;
            f.table.max_spots_per_player = 7;
        })
        .unwrap_err();
    assert!(e.to_string().contains("58 cards"), "{e}");
    // No preset is refused at any deck count the engine allows.
    for name in presets::names() {
        let r = presets::load(name).unwrap().unwrap();
        for d in 1..=8 {
            r.with_decks(d)
                .unwrap_or_else(|e| panic!("{name} at {d} decks: {e}"));
        }
    }
}
