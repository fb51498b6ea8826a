//! Property tests of the rules parser: any text, and any mutation of a preset, is
//! either a valid game or a located error; never a panic.

use felt_core::presets::PRESETS;
use felt_core::rules::rules_card;
use felt_core::Rules;
use proptest::prelude::*;

fn check(text: &str) {
    match Rules::from_toml(text, "fuzz.toml") {
        Ok(r) => {
            assert!(!rules_card(&r).is_empty());
        }
        Err(e) => {
            assert_eq!(e.origin, "fuzz.toml");
            assert!(!e.to_string().is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        check(&text);
    }

    #[test]
    fn mutated_presets_never_panic(
        which in 0usize..6,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, ".{0,3}"), 1..6),
    ) {
        let mut text = PRESETS[which].1.to_string();
        for (at, op, s) in edits {
            let mut i = at.index(text.len().max(1));
            while i > 0 && !text.is_char_boundary(i) {
                i -= 1;
            }
            let end = text[i..].char_indices().nth(s.chars().count().max(1)).map_or(text.len(), |(j, _)| i + j);
            match op {
                0 => text.insert_str(i, &s),
                1 => text.replace_range(i..end, &s),
                2 => text.replace_range(i..end, ""),
                _ => {
                    // Swap a number for a nearby extreme value.
                    text.replace_range(i..end, ["0", "-1", "99999999999", "\"x\""][s.len() % 4]);
                }
            }
        }
        check(&text);
    }
}
