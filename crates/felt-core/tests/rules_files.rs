//! Rules files: every preset loads, validates and prints; malformed files are refused
//! with the file, the line and the key.

use felt_core::presets;
use felt_core::rules::{rules_card, RulesErrorKind};
use felt_core::Rules;

#[test]
fn every_preset_loads_validates_and_prints_a_rules_card() {
    let names: Vec<_> = presets::names().collect();
    assert_eq!(
        names,
        [
            "classic",
            "lucky-7",
            "lucky-lucky",
            "blazing-7s",
            "blackjack-bonus",
            "lucky-ladies"
        ]
    );
    for name in names {
        let rules = presets::load(name).unwrap().unwrap();
        assert_eq!(rules.game().id, name);
        let card = rules_card(&rules);
        assert!(card.contains(&rules.game().name), "{name}: {card}");
        for bet in rules.side_bets() {
            assert!(card.contains(&bet.name), "{name} card lacks {}", bet.name);
            // A linked progressive's card says how hits at the same moment are paid.
            assert_eq!(
                bet.progressive.is_some(),
                card.contains("Hits at\n  the same moment are paid one after the other"),
                "{name}: {card}"
            );
            for (_, line) in bet.active_lines() {
                assert!(
                    card.contains(line.hand.describe()),
                    "{name}: {}",
                    line.hand.describe()
                );
            }
        }
    }
    // The preset files on disk are the compiled-in ones.
    for (name, text) in presets::PRESETS {
        let path = format!("{}/../../games/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    }
}

#[test]
fn section_7_side_bet_ids_are_those_of_games_md() {
    let ids = |g: &str| -> Vec<String> {
        presets::load(g)
            .unwrap()
            .unwrap()
            .side_bets()
            .iter()
            .map(|b| b.id.clone())
            .collect()
    };
    assert_eq!(ids("lucky-7"), ["lucky-7"]);
    assert_eq!(ids("lucky-lucky"), ["lucky-lucky"]);
    assert_eq!(ids("blazing-7s"), ["blazing-7s"]);
    assert_eq!(ids("blackjack-bonus"), ["poker-bonus", "bonus-7s"]);
    assert_eq!(ids("lucky-ladies"), ["lucky-ladies"]);
    assert!(ids("classic").is_empty());
}

fn classic_with(from: &str, to: &str) -> String {
    let text = presets::PRESETS[0].1;
    assert!(text.contains(from), "classic.toml lacks {from}");
    text.replacen(from, to, 1)
}

#[test]
fn unknown_key_is_refused_with_file_line_and_key() {
    let text = classic_with(
        "hit_soft_21 = false",
        "hit_soft_21 = false\nhit_hard_22 = true",
    );
    let err = Rules::from_toml(&text, "my.toml").unwrap_err();
    assert_eq!(err.origin, "my.toml");
    let line = text
        .lines()
        .position(|l| l.starts_with("hit_hard_22"))
        .unwrap()
        + 1;
    assert_eq!(err.line, Some(line));
    assert_eq!(err.key.as_deref(), Some("player.hit_hard_22"));
    assert!(matches!(err.kind, RulesErrorKind::Syntax(_)));
    let shown = err.to_string();
    assert!(
        shown.contains("my.toml") && shown.contains(&format!("line {line}")),
        "{shown}"
    );
}

#[test]
fn wrong_type_is_refused_with_line_and_key() {
    let text = classic_with("decks = 6 ", "decks = \"six\" ");
    let err = Rules::from_toml(&text, "my.toml").unwrap_err();
    let line = text.lines().position(|l| l.starts_with("decks")).unwrap() + 1;
    assert_eq!(err.line, Some(line));
    assert_eq!(err.key.as_deref(), Some("shoe.decks"));
}

#[test]
fn impossible_combination_is_refused_with_line_and_key() {
    let text = classic_with("max_split_hands = 4", "max_split_hands = 2").replacen(
        "resplit_aces = false",
        "resplit_aces = true",
        1,
    );
    let err = Rules::from_toml(&text, "my.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("player.resplit_aces"));
    let line = text
        .lines()
        .position(|l| l.starts_with("resplit_aces"))
        .unwrap()
        + 1;
    assert_eq!(err.line, Some(line));
    assert!(matches!(err.kind, RulesErrorKind::Invalid(_)));

    let text = classic_with("hit_split_aces = false", "hit_split_aces = true");
    let err = Rules::from_toml(&text, "x.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("player.hit_split_aces"));

    let text = classic_with("decks = 6 ", "decks = 9 ");
    let err = Rules::from_toml(&text, "x.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("shoe.decks"));
}

#[test]
fn side_bet_without_pay_lines_or_with_foreign_hand_is_refused() {
    let base = presets::PRESETS[2].1; // lucky-lucky
    let empty = base.replace(
        base[base.find("pays = [").unwrap()..].trim_end(),
        "pays = []",
    );
    let err = Rules::from_toml(&empty, "ll.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("side_bets[0].pays"));
    assert!(err.line.is_some());

    let foreign = base.replacen("hand = \"678\",", "hand = \"flush\",", 1);
    let err = Rules::from_toml(&foreign, "ll.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("side_bets[0].pays[3].hand"));
}

#[test]
fn meter_line_without_progressive_is_refused() {
    let base = presets::PRESETS[3].1; // blazing-7s
    let cut = &base[..base.find("[side_bets.progressive]").unwrap()];
    let err = Rules::from_toml(cut, "b7.toml").unwrap_err();
    assert_eq!(err.key.as_deref(), Some("side_bets[0].progressive"));
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "[",
        "game = 3",
        "\u{0}",
        "[[side_bets]]\nid=1",
        "[shoe]\ndecks = -1",
    ] {
        assert!(Rules::from_toml(text, "g.toml").is_err());
    }
}
