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

#[test]
fn sim_reads_rounds_as_people_write_them() {
    let plain = ok(&[
        "sim", "classic", "--rounds", "2000", "--seed", "5", "--json",
    ]);
    for written in ["2e3", "2_000", "2,000", "2.0e3"] {
        let o = ok(&[
            "sim", "classic", "--rounds", written, "--seed", "5", "--json",
        ]);
        let a: serde_json::Value = serde_json::from_str(&o).unwrap();
        let b: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(a["rounds"], 2000, "{written}");
        assert_eq!(a["main"], b["main"], "{written}: the same run");
    }
    let o = felt(&["sim", "classic", "--rounds", "1.5"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("1e6"), "{}", stderr(&o));
}

#[test]
fn sim_of_one_round_says_it_has_no_standard_error() {
    let out = ok(&["sim", "lucky-lucky", "--rounds", "1", "--seed", "3"]);
    assert!(!out.contains("SE)"), "{out}");
    assert!(!out.contains("SE 0.0000%"), "{out}");
    assert!(out.contains("one round has no standard error"), "{out}");
    assert!(out.contains("\n1 round, seed 3"), "{out}");
    // With rounds enough, the comparison in standard errors is there.
    let out = ok(&["sim", "lucky-lucky", "--rounds", "2000", "--seed", "3"]);
    assert!(out.contains(" SE)"), "{out}");
}

#[test]
fn the_readme_shows_sim_rounds_as_optional_with_its_default() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `felt sim"))
        .unwrap();
    assert!(
        row.contains("[--rounds N]") && row.contains("defaults to 1,000,000"),
        "{row}"
    );
    let help = ok(&["sim", "--help"]);
    assert!(help.contains("[default: 1000000]"), "{help}");
}
