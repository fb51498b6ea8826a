//! The preset games of `games/`, compiled in so `felt` works from any directory.

use crate::rules::{Rules, RulesError};

/// Every preset: (name, TOML text).
pub const PRESETS: [(&str, &str); 6] = [
    ("classic", include_str!("../../../games/classic.toml")),
    ("lucky-7", include_str!("../../../games/lucky-7.toml")),
    (
        "lucky-lucky",
        include_str!("../../../games/lucky-lucky.toml"),
    ),
    ("blazing-7s", include_str!("../../../games/blazing-7s.toml")),
    (
        "blackjack-bonus",
        include_str!("../../../games/blackjack-bonus.toml"),
    ),
    (
        "lucky-ladies",
        include_str!("../../../games/lucky-ladies.toml"),
    ),
];

/// The names of the presets.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(n, _)| *n)
}

/// A preset by name, parsed and validated; `None` if there is no such preset.
pub fn load(name: &str) -> Option<Result<Rules, RulesError>> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| Rules::from_toml(text, &format!("games/{n}.toml")))
}
