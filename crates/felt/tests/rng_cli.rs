//! `felt rng-test` through the binary: felt's dealing path passes and is reproducible
//! from a lab seed, a planted bias fails with a non-zero exit, recorded shoes are read
//! from a file (a bad line named), and the books' retired shoes are tested.

mod common;

use common::{stderr as err, stdout as out};
use felt_session::dealing::shoe_order;
use std::path::Path;
use std::process::Output;

fn felt(db: &Path, args: &[&str], stdin: &str) -> Output {
    common::run(args.iter().copied(), db, stdin)
}

fn report(o: &Output) -> serde_json::Value {
    serde_json::from_str(&out(o)).unwrap_or_else(|e| panic!("{e}: {}\n{}", out(o), err(o)))
}

#[test]
fn the_dealing_path_passes_and_a_lab_seed_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let args = ["rng-test", "--seed", "3", "--shuffles", "1500", "--json"];
    let first = felt(&db, &args, "");
    assert!(first.status.success(), "{}\n{}", out(&first), err(&first));
    let r = report(&first);
    assert_eq!(r["passes"], true);
    assert_eq!(r["shoes"], 1500);
    assert_eq!(r["seeds"], 1500);
    assert!(r["scaling"]["proof"]
        .as_str()
        .unwrap()
        .contains("floor(2^64 / P)"));
    let names: Vec<&str> = r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for n in [
        "position/Ah",
        "position/all",
        "serial-correlation/lag-1",
        "runs/colour",
        "first-card",
        "permutation/one-deck-5-cards",
        "seed/runs",
    ] {
        assert!(names.contains(&n), "{n} missing: {names:?}");
    }
    assert_eq!(out(&felt(&db, &args, "")), out(&first), "not reproducible");
    // Without --seed the seeds come from the operating system: another report.
    let entropy = felt(&db, &["rng-test", "--shuffles", "300", "--json"], "");
    assert_ne!(
        report(&entropy)["tests"][0]["statistic"],
        r["tests"][0]["statistic"]
    );
}

#[test]
fn a_planted_bias_fails_with_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let o = felt(
        &db,
        &[
            "rng-test",
            "--planted",
            "naive-swap",
            "--decks",
            "1",
            "--shuffles",
            "3000",
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(out(&o).contains("Verdict: FAIL"), "{}", out(&o));
    assert!(
        err(&o).contains("the battery rejects the shuffle"),
        "{}",
        err(&o)
    );
    // A planted source is not felt's: no scaling statement.
    assert!(!out(&o).contains("Why unbiased"));
}

#[test]
fn recorded_shoes_are_tested_and_a_bad_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let mut text = String::from("# one-deck shoes from felt's dealing path\n");
    for i in 0..700u32 {
        let mut seed = [0u8; 32];
        seed[..4].copy_from_slice(&i.to_le_bytes());
        let line: Vec<String> = shoe_order(1, &seed).iter().map(|c| c.to_string()).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    let file = dir.path().join("shoes.txt");
    std::fs::write(&file, &text).unwrap();
    let args = [
        "rng-test",
        "--input",
        file.to_str().unwrap(),
        "--decks",
        "1",
        "--json",
    ];
    let o = felt(&db, &args, "");
    assert!(o.status.success(), "{}\n{}", out(&o), err(&o));
    let r = report(&o);
    assert_eq!(r["shoes"], 700);
    // No seeds in a file of shoes: no seed tests.
    assert_eq!(r["seeds"], 0);
    text.push_str("Ah Kd Qs\n");
    std::fs::write(&file, &text).unwrap();
    let o = felt(&db, &args, "");
    assert!(!o.status.success());
    assert!(err(&o).contains("line 702"), "{}", err(&o));
    assert!(err(&o).contains("3 cards"), "{}", err(&o));
}

#[test]
fn the_books_retired_shoes_are_tested_with_their_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // A one-deck game whose cut card comes out after half the deck: twenty rounds
    // retire a few shoes.
    let rules_file = common::short_shoe_rules(dir.path());
    let db_arg = db.to_str().unwrap();
    let played = felt(
        &db,
        &["play", rules_file.to_str().unwrap(), "--db", db_arg],
        &"10\nn\ns\n".repeat(20),
    );
    assert!(played.status.success(), "{}", err(&played));
    let verify: serde_json::Value =
        serde_json::from_str(&out(&felt(&db, &["verify", "--json", "--db", db_arg], ""))).unwrap();
    let retired = verify
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["seed"].is_null())
        .count();
    assert!(retired >= 2, "{verify}");
    let o = felt(&db, &["rng-test", "--db", db_arg, "--json"], "");
    // So few shoes tell little: the report says so, whatever its verdict.
    let r = report(&o);
    assert_eq!(r["decks"], 1);
    assert_eq!(r["shoes"], retired);
    assert_eq!(r["seeds"], retired);
    assert!(
        r["warnings"][0]
            .as_str()
            .unwrap()
            .contains("run more shuffles"),
        "{r}"
    );
    let empty = dir.path().join("empty.db");
    let o = felt(&db, &["rng-test", "--db", empty.to_str().unwrap()], "");
    assert!(!o.status.success());
}
