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

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).unwrap()
}

#[test]
fn strategy_is_a_chart_a_person_reads() {
    for game in ["classic", "lucky-ladies", "lucky-7", "blackjack-bonus"] {
        for ev in [None, Some("--ev"), Some("--ev=before-peek")] {
            let mut args = vec!["strategy", game];
            args.extend(ev);
            let out = ok(&args);
            for line in out.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "{args:?}: {} columns: {line}",
                    line.len()
                );
                assert_eq!(line.trim_end(), line, "{args:?}: trailing blanks: {line:?}");
            }
            // No soft 12 (A,1) row: two aces are the pair A,A.
            assert!(!out.lines().any(|l| l.starts_with("A,1 ")), "{args:?}");
            // Every code the chart uses has its words in the legend.
            let chart: Vec<&str> = out
                .lines()
                .take_while(|l| !l.starts_with("Legend:"))
                .collect();
            let legend: String = out
                .lines()
                .skip_while(|l| !l.starts_with("Legend:"))
                .take_while(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            for code in ["S", "H", "P", "Dh", "Ds", "Rh", "Rs", "Rp"] {
                let used = chart
                    .iter()
                    .any(|l| l.split_whitespace().skip(1).any(|c| c == code));
                if used {
                    assert!(
                        legend.contains(&format!("{code} ")),
                        "{args:?}: {code} not in {legend}"
                    );
                }
            }
            // One line per cell after a split.
            let after: Vec<&str> = out
                .lines()
                .skip_while(|l| !l.starts_with("After a split"))
                .skip(1)
                .take_while(|l| !l.is_empty())
                .filter(|l| l.starts_with("    "))
                .collect();
            assert!(
                !after.is_empty(),
                "{args:?}: every preset splits somewhere differently"
            );
            let mut names: Vec<&str> = after.iter().map(|l| &l[4..15]).collect();
            let n = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), n, "{args:?}: a cell on two lines: {after:#?}");
        }
    }
}

#[test]
fn strategy_ev_offers_values_given_no_dealer_blackjack_and_says_so() {
    let v = json(&["strategy", "lucky-ladies", "--json"]);
    let cells = v["cells"].as_array().unwrap();
    let cell = |row: &str, up: &str| {
        cells
            .iter()
            .find(|c| c["row"] == row && c["up"] == up)
            .unwrap_or_else(|| panic!("no cell {row} v {up}"))
    };
    // Late surrender given no dealer blackjack is half the bet exactly; before the
    // peek a dealer blackjack costs the whole bet.
    for (row, up) in [("16", "T"), ("15", "A"), ("8,8", "A")] {
        let c = cell(row, up);
        assert_eq!(c["dealer_peeks"], true);
        let given = c["ev_given_no_blackjack"]["surrender"].as_f64().unwrap();
        let before = c["ev_before_peek"]["surrender"].as_f64().unwrap();
        let p = c["dealer_blackjack_probability"].as_f64().unwrap();
        assert!((given + 0.5).abs() < 1e-12, "{row} v {up}: {given}");
        assert!(
            (before - (-0.5 - 0.5 * p)).abs() < 1e-12,
            "{row} v {up}: {before}"
        );
        // Every action on both bases: before = (1 - p) given - p.
        for a in ["stand", "hit", "double"] {
            let g = c["ev_given_no_blackjack"][a].as_f64().unwrap();
            let b = c["ev_before_peek"][a].as_f64().unwrap();
            assert!((b - ((1.0 - p) * g - p)).abs() < 1e-12, "{row} v {up} {a}");
        }
    }
    // No peek under a 5: one basis only.
    assert!(cell("16", "5")["ev_given_no_blackjack"].is_null());
    // The chart's plays in JSON are the text chart's.
    let text = ok(&["strategy", "lucky-ladies"]);
    let row16 = text.lines().find(|l| l.starts_with("16 ")).unwrap();
    let plays: Vec<&str> = row16.split_whitespace().skip(1).collect();
    let chart = v["chart"].as_array().unwrap();
    let j16 = chart.iter().find(|r| r["row"] == "16").unwrap();
    assert_eq!(j16["plays"].as_array().unwrap().len(), 10);
    for (i, p) in plays.iter().enumerate() {
        assert_eq!(j16["plays"][i], *p);
    }

    // The text says which basis it shows, and shows it.
    let ev = ok(&["strategy", "lucky-ladies", "--ev"]);
    assert!(ev.contains("given the dealer has no blackjack"), "{ev}");
    let block: Vec<&str> = ev
        .lines()
        .skip_while(|l| !l.starts_with("hard 16 "))
        .take(7)
        .collect();
    let surrender = block.iter().find(|l| l.starts_with("surrender")).unwrap();
    assert!(
        surrender.split_whitespace().skip(1).all(|x| x == "-0.500"),
        "{surrender}"
    );
    let before = ok(&["strategy", "lucky-ladies", "--ev", "before-peek"]);
    assert!(before.contains("Before the peek"), "{before}");
    let block: Vec<&str> = before
        .lines()
        .skip_while(|l| !l.starts_with("hard 16 "))
        .take(7)
        .collect();
    let surrender = block.iter().find(|l| l.starts_with("surrender")).unwrap();
    let vals: Vec<&str> = surrender.split_whitespace().skip(1).collect();
    assert_eq!(vals[..8], ["-0.500"; 8], "{surrender}");
    assert!(vals[8] != "-0.500" && vals[9] != "-0.500", "{surrender}");
}

/// Digit runs of four or more that are not grouped with commas, outside decimal
/// fractions and seeds (an identifier, copied as it is).
fn ungrouped(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let before = if start > 0 { b[start - 1] } else { b' ' };
        let is_seed = text[..start].ends_with("seed ");
        if i - start >= 4 && before != b'.' && before != b',' && !is_seed {
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            found.push(text[line_start..line_end].to_string());
        }
    }
    found
}

#[test]
fn analysis_numbers_are_grouped_with_two_decimal_amounts() {
    assert_eq!(
        ungrouped("a 1234 b 1,234 c 0.12345 seed 98765"),
        ["a 1234 b 1,234 c 0.12345 seed 98765"]
    );
    for game in [
        "classic",
        "lucky-7",
        "lucky-lucky",
        "blazing-7s",
        "blackjack-bonus",
        "lucky-ladies",
    ] {
        let edge = ok(&["edge", game]);
        assert!(
            ungrouped(&edge).is_empty(),
            "felt edge {game}: {:#?}",
            ungrouped(&edge)
        );
        let sim = ok(&["sim", game, "--rounds", "3000", "--seed", "4"]);
        assert!(
            ungrouped(&sim).is_empty(),
            "felt sim {game}: {:#?}",
            ungrouped(&sim)
        );
    }
    // The big ones: a par sheet's deal counts.
    let edge = ok(&["edge", "blazing-7s"]);
    assert!(
        edge.contains("2,862,766,146,240 ordered 5-card deals"),
        "{edge}"
    );
    assert!(edge.contains("Meter 2,000.00 units"), "{edge}");
}

#[test]
fn b7_1_the_meter_curve_reads_at_round_meters_through_break_even() {
    for meter in [None, Some("500"), Some("100000")] {
        let mut args = vec!["edge", "blazing-7s", "--json"];
        if let Some(m) = meter {
            args.extend(["--meter", m]);
        }
        let v = json(&args);
        let points = v["meter_curves"][0][1].as_array().unwrap();
        let meters: Vec<f64> = points
            .iter()
            .map(|p| p["meter"].as_f64().unwrap())
            .collect();
        let step = meters[1];
        // A step of 1, 2, 2.5 or 5 times a power of ten, every meter a multiple of it.
        let scale = 10f64.powf(step.log10().floor());
        assert!(
            [1.0, 2.0, 2.5, 5.0]
                .iter()
                .any(|f| (step / scale - f).abs() < 1e-9),
            "{args:?}: step {step}"
        );
        for (i, m) in meters.iter().enumerate() {
            assert!((m - step * i as f64).abs() < 1e-6, "{args:?}: {meters:?}");
        }
        assert!((5..=21).contains(&meters.len()), "{args:?}: {meters:?}");
        let edges: Vec<f64> = points
            .iter()
            .map(|p| p["house_edge"].as_f64().unwrap())
            .collect();
        assert!(
            edges[0] > 0.0 && *edges.last().unwrap() < 0.0,
            "{args:?}: {edges:?}"
        );
        let analysed = v["side_bets"][0]["meter"]["meter_units"].as_f64().unwrap();
        assert!(*meters.last().unwrap() >= analysed, "{args:?}");
    }
}

/// `felt play ARGS --db DB` (or any command) on `input`, which must succeed.
fn at(db: &std::path::Path, args: &[&str], input: &str) -> String {
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--db", db.to_str().unwrap()]);
    let o = common::run(&args, NO_DB, input);
    assert!(o.status.success(), "felt {args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn c_6_insurance_is_any_amount_up_to_half_in_four_presets_and_exactly_half_in_lucky_7() {
    let dir = tempfile::tempdir().unwrap();
    // Player 9 7 against a dealer ace (hole 6).
    let shoe = dir.path().join("shoe.txt");
    std::fs::write(&shoe, "9h 6c 7d As").unwrap();
    let shoe = shoe.to_str().unwrap();
    // (game, answers to its side-bet questions, the smallest insurance: the increment)
    for (game, side, min) in [
        ("classic", "", "1.00"),
        ("lucky-lucky", "0\n", "1.00"),
        ("blazing-7s", "n\n", "1.00"),
        ("blackjack-bonus", "0\n0\n", "0.50"),
    ] {
        let db = dir.path().join(format!("{game}.db"));
        let t = at(
            &db,
            &["play", game, "--seed", "1", "--shoe", shoe],
            &format!("10\n{side}i 2.00\ns\nq\n"),
        );
        assert!(
            t.contains(&format!("[i]nsurance (i AMOUNT, {min} to 5.00)")),
            "{game}: {t}"
        );
        assert!(t.contains("Seat 1 Insurance: loses: -2.00"), "{game}: {t}");
        assert!(t.contains("Seat 1 balance: 988.00"), "{game}: {t}");
        let card = ok(&["rules", game]);
        assert!(
            card.contains("any amount up to half the bet"),
            "{game}: {card}"
        );
    }
    // Lucky 7 keeps exactly half.
    let db = dir.path().join("lucky-7.db");
    let t = at(
        &db,
        &["play", "lucky-7", "--seed", "1", "--shoe", shoe],
        "10\nn\ni 2.00\ni\ns\nq\n",
    );
    assert!(t.contains("[i]nsurance 5.00"), "{t}");
    assert!(t.contains("Seat 1 Insurance: loses: -5.00"), "{t}");
}

/// Books written by felt before schema 2 (`fixtures/books-v1.db`) name their rules by
/// preset and by the SHA-256 of the rules' JSON form. Classic and Blazing 7s have
/// changed since (insurance up to half): their rounds replay under the presets' frozen
/// earlier texts, identical to their logs.
#[test]
fn c_11_a_v1_round_replays_identical_after_its_preset_changed() {
    use felt_session::journal::{legacy_rules_hash, setup_of};
    use felt_store::Store;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/books-v1.db"),
        &db,
    )
    .unwrap();
    // Opened once for writing (another player's table: round 6 stays open).
    at(&db, &["play", "lucky-7", "--player", "someone-else"], "q\n");
    let store = felt_store::SqliteStore::open(&db).unwrap();
    let mut changed = Vec::new();
    for id in 1..=6 {
        let rec = store.round(felt_store::RoundId(id)).unwrap().unwrap();
        let setup = setup_of(&rec).unwrap().unwrap();
        let now = felt_core::presets::load(&setup.rules).unwrap().unwrap();
        if legacy_rules_hash(&now) != setup.rules_sha256 {
            changed.push(setup.rules.clone());
        }
    }
    drop(store);
    changed.dedup();
    assert!(
        changed.contains(&"classic".to_string()) && changed.contains(&"blazing-7s".to_string()),
        "the presets these rounds name have changed since: {changed:?}"
    );
    let t = at(&db, &["replay", "--all"], "");
    assert!(
        t.contains("6 rounds replayed: 6 identical to their stored log, 0 differ."),
        "{t}"
    );
    // The open classic round resumes under its rules and finishes.
    let t = at(&db, &["play", "classic"], "s\nq\n");
    assert!(t.contains("Round 6 was interrupted: it resumes"), "{t}");
    let t = at(&db, &["replay", "--all"], "");
    assert!(t.contains(" 0 differ."), "{t}");
}
