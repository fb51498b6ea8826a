//! Bad options and files end to end: each is refused with a clear message naming the
//! option, a non-zero exit, and no change to the books.

mod common;

use std::path::Path;
use std::process::{Output, Stdio};

fn felt(args: &[&str], stdin: &str) -> Output {
    common::run(args, common::NO_DB, stdin)
}

/// Runs felt, expects a refusal, and returns its message.
fn refused(args: &[&str]) -> String {
    let o = felt(args, "q\n");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

fn books(db: &Path) -> String {
    let o = felt(&["books", "--json", "--db", db.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn sim_refuses_out_of_range_options_naming_the_option() {
    let sim = |extra: &[&str]| {
        let mut args = vec!["sim", "classic", "--rounds", "1000", "--seed", "1"];
        args.extend_from_slice(extra);
        refused(&args)
    };
    for t in ["0", "1025", "100000"] {
        let e = sim(&["--threads", t]);
        assert!(e.contains(&format!("--threads {t}: give 1 to 1024")), "{e}");
    }
    for p in ["2", "0", "101", "NaN", "inf", "0.05", "-0.5"] {
        let e = sim(&[&format!("--penetration={p}")]);
        assert!(
            e.contains("--penetration") && e.contains("a fraction from 0.1 to 0.95"),
            "{p}: {e}"
        );
    }
    // Refused while the options are read (clap's usage error, exit code 2).
    let o = felt(&["sim", "classic", "--rounds", "0"], "");
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--rounds") && e.contains("`0` is no rounds"),
        "{e}"
    );
}

#[test]
fn sim_takes_a_penetration_as_a_fraction_or_a_percentage() {
    for p in ["0.8", "80"] {
        let o = felt(
            &[
                "sim",
                "classic",
                "--rounds",
                "2000",
                "--seed",
                "1",
                "--threads",
                "1",
                "--penetration",
                p,
            ],
            "",
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn an_error_with_a_cause_says_it_once() {
    let e = refused(&["edge", "blazing-7s", "--meter", "NaN"]);
    assert_eq!(
        e.matches("the meter must be a finite amount").count(),
        1,
        "{e}"
    );
    let e = refused(&["sim", "classic", "--rounds", "10", "--decks", "9"]);
    assert_eq!(
        e.matches("9 is not a whole number from 1 to 8").count(),
        1,
        "{e}"
    );
}

#[test]
fn edge_refuses_an_absurd_meter_naming_the_option() {
    for m in [
        "NaN",
        "inf",
        "-inf",
        "-1",
        "-0.5",
        "1000000000.5",
        "1e10",
        "1e300",
    ] {
        let e = refused(&["edge", "blazing-7s", &format!("--meter={m}")]);
        assert!(
            e.contains("--meter") && e.contains("0 to 1000000000 units of the wager"),
            "{m}: {e}"
        );
    }
    // Written as two words, a negative number is still the option's value.
    let e = refused(&["edge", "blazing-7s", "--meter", "-3"]);
    assert!(e.contains("--meter -3:"), "{e}");
    // The limit itself, and zero, are analysed.
    for m in ["0", "1000000000"] {
        let o = felt(&["edge", "blazing-7s", "--meter", m, "--json"], "");
        assert!(o.status.success(), "{m}: {}", common::stderr(&o));
    }
}

#[test]
fn history_refuses_last_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let e = refused(&["history", "--last", "0", "--db", db.to_str().unwrap()]);
    assert!(e.contains("--last 0: give 1 or more"), "{e}");
}

#[test]
fn play_with_a_bad_shoe_file_or_name_changes_nothing_in_the_books() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let db_arg = db.to_str().unwrap();
    let bad_shoe = dir.path().join("shoe.txt");
    std::fs::write(&bad_shoe, "7h Zz").unwrap();
    let shoe_arg = bad_shoe.to_str().unwrap();

    // On books that do not exist yet: they are not even created.
    let e = refused(&["play", "classic", "--db", db_arg, "--shoe", shoe_arg]);
    assert!(e.contains("`Zz` is not a card"), "{e}");
    assert!(!db.exists(), "the books were created for a refused session");

    // On books that hold a player: no deposit, no new player, no meter.
    let o = felt(&["play", "classic", "--db", db_arg], "q\n");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = books(&db);
    let e = refused(&[
        "play",
        "blazing-7s",
        "--db",
        db_arg,
        "--seats",
        "2",
        "--deposit",
        "100",
        "--shoe",
        shoe_arg,
    ]);
    assert!(e.contains("in the shoe file"), "{e}");
    let long = "a".repeat(196);
    let e = refused(&[
        "play",
        "blazing-7s",
        "--db",
        db_arg,
        "--seats",
        "2",
        "--player",
        &long,
    ]);
    assert!(
        e.contains("--player") && e.contains("at most 200 bytes"),
        "{e}"
    );
    let e = refused(&["play", "blazing-7s", "--db", db_arg, "--player", " "]);
    assert!(
        e.contains("--player") && e.contains("cannot be empty"),
        "{e}"
    );
    assert_eq!(books(&db), before);
}

#[test]
fn play_refuses_a_deposit_above_the_balance_limit_and_the_next_session_plays() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let db_arg = db.to_str().unwrap();
    // Above the limit on its own: refused before the books are even created.
    let e = refused(&[
        "play",
        "classic",
        "--db",
        db_arg,
        "--bankroll",
        "100000000000000.01",
    ]);
    assert!(
        e.contains("--bankroll 100000000000000.01") && e.contains("100000000000000.00"),
        "{e}"
    );
    let e = refused(&[
        "play",
        "classic",
        "--db",
        db_arg,
        "--deposit",
        "100000000000000.01",
    ]);
    assert!(e.contains("--deposit 100000000000000.01"), "{e}");
    assert!(!db.exists(), "the books were created for a refused session");

    // A known player's balance plus the deposit is checked before anything is written.
    let o = felt(
        &["play", "classic", "--db", db_arg],
        "q
",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = books(&db);
    let e = refused(&[
        "play",
        "classic",
        "--db",
        db_arg,
        "--deposit",
        "99999999999000.01",
    ]);
    assert!(
        e.contains("player holds 1000.00") && e.contains("nothing was deposited"),
        "{e}"
    );
    assert_eq!(books(&db), before);

    // The next session plays rounds on the books as they were.
    let o = felt(
        &["play", "classic", "--db", db_arg, "--seed", "3"],
        &format!("{}q\n", "10\nn\ns\n".repeat(2)),
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("Seat 1 balance:"), "{out}");
    assert!(!out.contains("deposited"), "{out}");

    // A deposit up to the limit exactly is taken, and the table opens with it.
    let o = felt(
        &["play", "classic", "--db", db_arg, "--deposit", "1.00"],
        "q\n",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let now: serde_json::Value = serde_json::from_str(&books(&db)).unwrap();
    let held: felt_core::Money = now["balances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["account"]["kind"] == "player")
        .and_then(|b| b["balance"].as_str())
        .unwrap_or_else(|| panic!("no player balance in {now}"))
        .parse()
        .unwrap();
    let to_limit = (felt_core::round::MAX_BALANCE - held).to_string();
    let o = felt(
        &["play", "classic", "--db", db_arg, "--deposit", &to_limit],
        "q\n",
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("leaves the table with 100000000000000.00"),
        "{out}"
    );
}

#[test]
fn a_reader_that_goes_away_is_not_a_crash() {
    // `felt strategy classic --ev | head -1`: the pipe closes before felt writes.
    let mut child = common::command(["strategy", "classic", "--ev"], common::NO_DB)
        .stdin(Stdio::null())
        .spawn()
        .expect("felt runs");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("felt ends");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.is_empty(),
        "{:?}: {err}",
        o.status
    );
}

#[test]
fn serve_refuses_the_test_mode_on_an_address_that_is_not_loopback() {
    let e = refused(&["serve", "--test-shoes", "--addr", "0.0.0.0:0"]);
    assert!(
        e.contains("--test-shoes") && e.contains("loopback") && e.contains("0.0.0.0:0"),
        "{e}"
    );
}

#[test]
fn serve_refuses_a_wallet_without_a_secret_file_or_over_plain_http() {
    let e = refused(&["serve", "--wallet", "https://wallet.example.com/felt"]);
    assert!(e.contains("--wallet-secret-file"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("wallet.secret");
    std::fs::write(&secret, "0123456789abcdef0123456789abcdef\n").unwrap();
    let secret = secret.to_str().unwrap();
    let e = refused(&[
        "serve",
        "--wallet",
        "http://wallet.example.com/felt",
        "--wallet-secret-file",
        secret,
    ]);
    assert!(
        e.contains("plain http://") && e.contains("wallet.example.com"),
        "{e}"
    );
    let short = dir.path().join("short.secret");
    std::fs::write(&short, "too short").unwrap();
    let e = refused(&[
        "serve",
        "--wallet",
        "http://127.0.0.1:9/wallet",
        "--wallet-secret-file",
        short.to_str().unwrap(),
    ]);
    assert!(e.contains("at least 32"), "{e}");
}

#[test]
fn serve_refuses_a_reality_check_outside_its_range_and_an_empty_help_line() {
    let e = refused(&["serve", "--reality-check-mins", "90"]);
    assert!(
        e.contains("--reality-check-") && e.contains("90") && e.contains("15-60"),
        "{e}"
    );
    let e = refused(&[
        "serve",
        "--reality-check-shortest",
        "30",
        "--reality-check-longest",
        "20",
    ]);
    assert!(e.contains("range 30-20") && e.contains("empty"), "{e}");
    let e = refused(&["serve", "--help-line", "  "]);
    assert!(e.contains("--help-line"), "{e}");
}
