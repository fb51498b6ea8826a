//! The command line as a newcomer with only the installed binary finds it: a preset's
//! rules file to start from, the strategy chart and its expected values, one number
//! style, and `felt sim`'s options and report.

mod common;

use common::{stderr, stdout, NO_DB};
use std::process::Output;

fn felt(args: &[&str]) -> Output {
    common::run(args, NO_DB, "")
}

fn ok(args: &[&str]) -> String {
    let o = felt(args);
    assert!(o.status.success(), "felt {args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn rules_toml_prints_each_presets_file_which_plays_as_the_preset() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "classic",
        "lucky-7",
        "lucky-lucky",
        "blazing-7s",
        "blackjack-bonus",
        "lucky-ladies",
    ] {
        let toml = ok(&["rules", name, "--toml"]);
        let file = std::fs::read_to_string(format!(
            "{}/../../games/{name}.toml",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert_eq!(
            toml, file,
            "{name}: --toml prints the preset's file as written"
        );
        // Written out, it is a rules file with the preset's card.
        let path = dir.path().join(format!("my-{name}.toml"));
        std::fs::write(&path, &toml).unwrap();
        assert_eq!(ok(&["rules", path.to_str().unwrap()]), ok(&["rules", name]));
        // And a file's own text comes back as it is.
        assert_eq!(ok(&["rules", path.to_str().unwrap(), "--toml"]), toml);
    }
}

#[test]
fn games_says_how_to_start_a_game_of_your_own_with_the_installed_binary() {
    let out = ok(&["games"]);
    assert!(!out.contains("games/NAME.toml"), "{out}");
    assert!(
        out.contains("felt rules NAME --toml > my-game.toml"),
        "{out}"
    );
    assert!(out.contains("felt play my-game.toml"), "{out}");
    // What it says works.
    ok(&["rules", "classic", "--toml"]);
}
