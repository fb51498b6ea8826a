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
    for name in felt_core::presets::names() {
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
    for game in felt_core::presets::names() {
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
            t.contains(&format!("[i]nsurance {min} to 5.00")),
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

#[test]
fn b7_1_each_progressive_meter_is_shown_before_the_bet_and_its_pay_table_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let t = common::play_stacked(
        &db,
        "blazing-7s",
        "Th 9c 7d 8s",
        &[],
        "pays\n10\ny\ns\n\n\nq\n",
    );
    let meter = t.find("Blazing 7s meter: 2000.00").expect("the meter");
    let bet = t.find("main bet [").expect("the bet question");
    assert!(meter < bet, "{t}");
    // `pays` at the bet question: the pay table and the meter now.
    let pays = &t[bet..];
    assert!(
        pays.contains("first three cards 7s of one suit             100% of the meter"),
        "{t}"
    );
    assert!(pays.contains("The meter stands at 2000.00 now."), "{t}");
    // The next round's question comes after the meter as the first wager left it.
    let round2 = &t[t.find("\nRound 2\n").expect("round 2")..];
    let meter = round2.find("Blazing 7s meter: 2000.20").expect("{t}");
    assert!(meter < round2.find("main bet [").unwrap(), "{t}");
}

#[test]
fn bets_default_to_the_last_ones_side_bets_too_and_r_rebets_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // T 7 against an 8: stand.
    let t = common::play_stacked(&db, "lucky-ladies", "Th 9c 7d 8s", &[], "12\n3\ns\nq\n");
    assert!(t.contains("main bet [5.00]? 12"), "{t}");
    assert!(t.contains("Lucky Ladies side bet [0.00]? 3"), "{t}");
    // A returning player starts at the last bets the books hold.
    let t = common::play_stacked(&db, "lucky-ladies", "Th 9c 7d 8s", &[], "\n\ns\nr\ns\nq\n");
    assert!(t.contains("main bet [12.00]? \n"), "{t}");
    assert!(t.contains("Lucky Ladies side bet [3.00]? \n"), "{t}");
    assert!(t.contains("Seat 1: 10♥ 7♦  (17)  bet 12.00"), "{t}");
    // `r` places the main bet and every side bet of last time, without a question.
    let round = &t[t.find("main bet [12.00]? r").expect("rebet")..];
    assert!(!round.contains("side bet ["), "{t}");
    assert!(round.contains("Seat 1 also: Lucky Ladies 3.00"), "{t}");
    // A side bet of a fixed amount defaults to yes once taken.
    let t = common::play_stacked(&db, "blazing-7s", "Th 9c 7d 8s", &[], "10\ny\ns\n\n\nq\n");
    assert!(t.contains("Blazing 7s side bet of 1.00? [y/N] y"), "{t}");
    assert!(t.contains("Blazing 7s side bet of 1.00? [Y/n] \n"), "{t}");
}

#[test]
fn a_player_without_money_is_told_how_to_add_some_and_bankroll_is_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // 10.00 lost on a bust: nothing left for the next round's minimum.
    let t = common::play_stacked(
        &db,
        "classic",
        "Th 6c 6d 9s Kc",
        &["--bankroll", "10", "--player", "ann"],
        "10\nh\n10\n10\n",
    );
    let db_arg = db.to_str().unwrap();
    assert!(
        t.contains("Seat 1 has 0.00, less than the 5.00 minimum bet. To add money,"),
        "{t}"
    );
    let command = format!("  felt play classic --player ann --db {db_arg} --deposit AMOUNT");
    assert!(t.lines().any(|l| l == command), "{t}");
    assert!(
        t.contains("No seat can cover the minimum bet: you leave the table."),
        "{t}"
    );
    // `--bankroll` for a player the books know: the books' balance is kept, and said.
    let t = at(
        &db,
        &["play", "classic", "--player", "ann", "--bankroll", "500"],
        "q\n",
    );
    assert!(
        t.contains("ann is known to the books: the balance of 0.00 is kept (--bankroll is"),
        "{t}"
    );
    assert!(t.lines().any(|l| l == command), "{t}");
    // What it says works.
    let t = at(
        &db,
        &["play", "classic", "--player", "ann", "--deposit", "50"],
        "q\n",
    );
    assert!(t.contains("Seat 1 leaves the table with 50.00."), "{t}");
}

#[test]
fn help_rules_and_a_hint_at_any_question() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // Lucky Ladies: 10 6 against a 10 (no blackjack): surrender is offered.
    let t = common::play_stacked(
        &db,
        "lucky-ladies",
        "Tc 9d 6h Ts",
        &[],
        "?\nrules\n10\nhelp\n0\n?\nhint\ns\nq\n",
    );
    // The bet question's choices, then the rules card with its pay tables.
    assert!(t.contains("  0: no bet on this spot"), "{t}");
    assert!(t.contains("  r: all of this spot's last bets"), "{t}");
    assert!(t.contains("Lucky Ladies (side bet `lucky-ladies`)"), "{t}");
    assert!(t.contains("Dealer hits soft 17 (H17)."), "{t}");
    assert!(t.contains("  0: none"), "{t}");
    // At the decision: each choice offered, and the hint.
    assert!(t.contains("  h, hit: take a card"), "{t}");
    assert!(
        t.contains("  r, surrender: give up the hand and half the bet"),
        "{t}"
    );
    assert!(t.contains("  hint: the basic strategy's play"), "{t}");
    let hint = t[t.find("Hint: ").expect("a hint")..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        hint.starts_with("Hint: surrender (hard 16 against 10♠"),
        "{hint}"
    );
    // Its values are `felt strategy`'s, given no dealer blackjack.
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["strategy", "lucky-ladies", "--json"])).unwrap();
    let cell = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["row"] == "16" && c["up"] == "T")
        .unwrap();
    let evs = &cell["ev_given_no_blackjack"];
    for action in ["surrender", "hit", "stand", "double"] {
        let x = evs[action].as_f64().unwrap();
        assert!(
            hint.contains(&format!("{action} {x:+.3}")),
            "{action} {x}: {hint}"
        );
    }
    assert!(hint.contains("given the dealer has no blackjack"), "{hint}");
}

/// The lines of `text` wider than a terminal's 80 columns (characters, not bytes).
fn too_wide(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.chars().count() > 80)
        .map(|l| format!("{} columns: {l}", l.chars().count()))
        .collect()
}

#[test]
fn every_line_of_the_table_fits_in_80_columns() {
    assert_eq!(too_wide("♥".repeat(80).as_str()), Vec::<String>::new());
    assert_eq!(too_wide("a".repeat(81).as_str()).len(), 1);
    let dir = tempfile::tempdir().unwrap();
    // Every answer a question may take, and some it refuses, round after round.
    let answers = "?\npays\nrules\n10\n?\n\n1\ny\nhint\n?\ni 2\nn\nx\np\nd\nr\nh\ns\n".repeat(16);
    for game in felt_core::presets::names() {
        let db = dir.path().join(format!("{game}.db"));
        let db_arg = db.to_str().unwrap();
        for args in [
            // A new player, two seats of two spots, a test lab's seed.
            vec![
                "play",
                game,
                "--seed",
                "5",
                "--seats",
                "2",
                "--spots",
                "2",
                "--player",
                "newcomer-with-a-long-name",
            ],
            // A returning session on the same books: from the entropy, a known
            // player's --bankroll, a deposit, an event file added to.
            vec![
                "play",
                game,
                "--seats",
                "2",
                "--spots",
                "2",
                "--player",
                "newcomer-with-a-long-name",
                "--bankroll",
                "20",
                "--deposit",
                "5",
            ],
        ] {
            let mut args = args;
            args.extend(["--db", db_arg]);
            let o = common::run(&args, NO_DB, &answers);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            let t = stdout(&o);
            assert!(t.contains("leaves the table"), "{args:?}: {t}");
            assert_eq!(too_wide(&t), Vec::<String>::new(), "{args:?}");
        }
        // A seat with no money left, told how to add some.
        let t = at(
            &db,
            &[
                "play",
                game,
                "--player",
                "broke-player-with-a-long-name",
                "--bankroll",
                "0.50",
            ],
            "1\n",
        );
        assert!(t.contains("--deposit AMOUNT"), "{t}");
        assert_eq!(too_wide(&t), Vec::<String>::new());
    }
}
