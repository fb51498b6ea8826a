//! The canonical rules text the books keep with every round: read back, it is the same
//! game, whatever file it came from.

use felt_core::{presets, Rules};

#[test]
fn every_preset_reads_back_from_its_canonical_text_as_the_same_rules() {
    for name in presets::names() {
        let rules = presets::load(name).unwrap().unwrap();
        let text = rules.canonical_toml();
        assert!(text.contains("[game]"), "{name}: {text}");
        let back = Rules::from_toml(&text, "canonical").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, rules, "{name}");
        // Canonical: the text of the text is the text.
        assert_eq!(back.canonical_toml(), text, "{name}");
    }
}

#[test]
fn comments_and_layout_do_not_change_the_canonical_text() {
    let rules = presets::load("lucky-ladies").unwrap().unwrap();
    let text = rules.canonical_toml();
    // The commented file the preset comes from is another text of the same rules.
    let file = include_str!("../../../games/lucky-ladies.toml");
    assert_ne!(file, text);
    let again = Rules::from_toml(&format!("# my copy\n\n{file}"), "copy").unwrap();
    assert_eq!(again.canonical_toml(), text);
    // A changed rule changes the text.
    let other = rules
        .modified(|f| f.game.name = format!("{} (renamed)", f.game.name))
        .unwrap();
    assert_ne!(other.canonical_toml(), text);
}
