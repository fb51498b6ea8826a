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

/// Earlier texts of presets, frozen: (name, TOML text). A round written before the
/// books kept each round's rules names its preset and the SHA-256 of the rules' JSON
/// form; when the preset has changed since, the round replays under the earlier text
/// whose rules hash to it. Add the old text here whenever a preset changes its rules.
pub const LEGACY: [(&str, &str); 4] = [
    (
        "classic",
        include_str!("presets_legacy/classic-half-insurance.toml"),
    ),
    (
        "lucky-lucky",
        include_str!("presets_legacy/lucky-lucky-half-insurance.toml"),
    ),
    (
        "blazing-7s",
        include_str!("presets_legacy/blazing-7s-half-insurance.toml"),
    ),
    (
        "blackjack-bonus",
        include_str!("presets_legacy/blackjack-bonus-half-insurance.toml"),
    ),
];

/// The earlier rules of preset `name`, newest first, parsed and validated.
pub fn legacy(name: &str) -> impl Iterator<Item = Result<Rules, RulesError>> + '_ {
    LEGACY
        .iter()
        .filter(move |(n, _)| *n == name)
        .map(|(n, text)| Rules::from_toml(text, &format!("the earlier {n} preset")))
}
