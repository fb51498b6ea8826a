//! The books through the binary: money and meters carry over between sessions,
//! `felt books`, `felt history`, `felt replay` (and a tampered log), `on_crash = "void"`,
//! and bad databases (corrupt, foreign, newer schema, locked): a clear error, a
//! non-zero exit, nothing lost.

mod common;

use common::{stderr as err, stdout as out};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The felt command line for `args` on the books at `db`.
fn args_at<'a>(db: &'a Path, args: &[&'a str]) -> Vec<&'a OsStr> {
    let mut all: Vec<&OsStr> = args.iter().map(|a| OsStr::new(*a)).collect();
    all.extend([OsStr::new("--db"), db.as_os_str()]);
    all
}

fn felt(db: &Path, args: &[&str], stdin: &str) -> Output {
    common::run(args_at(db, args), db.with_extension("unused"), stdin)
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}\n{}", out(o), err(o));
    out(o)
}

fn books_json(db: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&felt(db, &["books", "--json"], ""))).unwrap()
}

fn balance(v: &serde_json::Value, kind: &str, name: &str) -> String {
    v["balances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["account"]["kind"] == kind && b["account"]["name"] == name)
        .map(|b| b["balance"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

fn shoe_file(dir: &Path, cards: &str) -> PathBuf {
    let p = dir.join("shoe.txt");
    std::fs::write(&p, cards).unwrap();
    p
}

#[test]
fn balances_and_meters_carry_over_between_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let shoe = shoe_file(dir.path(), "7s 9c 7s Th 7s");
    let s = shoe.to_str().unwrap();
    // Session 1: the stacked shoe wins the meter (2000.20, stake back too).
    let t = ok(&felt(
        &db,
        &[
            "play",
            "blazing-7s",
            "--seed",
            "7",
            "--shoe",
            s,
            "--player",
            "ann",
        ],
        "10\ny\nh\nq\n",
    ));
    assert!(
        t.contains("New player ann: 1000.00 from the cashier."),
        "{t}"
    );
    assert!(t.contains("Seat 1 balance: 3010.20"), "{t}");
    // Session 2: ann is known, --bankroll does not fund her again; the meter carries.
    let t = ok(&felt(
        &db,
        &[
            "play",
            "blazing-7s",
            "--bankroll",
            "5",
            "--player",
            "ann",
            "--seed",
            "8",
        ],
        "10\ny\ns\nn\nq\n",
    ));
    assert!(!t.contains("New player"), "{t}");
    assert!(t.contains("(balance 3010.20)"), "{t}");
    let v = books_json(&db);
    assert_eq!(v["sound"], true);
    let m = &v["meters"][0];
    assert_eq!(m["id"], "blazing-7s");
    // Reset 2000.00, refilled once, two contributions of 0.20, one award of 2000.20.
    assert_eq!(m["contributions"], "0.40");
    assert_eq!(m["awards"], "2000.20");
    assert_eq!(m["amount"], "2000.20");
    assert_eq!(m["recent_awards"][0]["amount"], "2000.20");
    // A second player at the same game shares the meter.
    let t = ok(&felt(
        &db,
        &["play", "blazing-7s", "--player", "bob", "--seed", "9"],
        "q\n",
    ));
    assert!(t.contains("New player bob"), "{t}");
    let text = ok(&felt(&db, &["books"], ""));
    assert!(
        text.contains("player ann") && text.contains("player bob"),
        "{text}"
    );
    assert!(text.contains("the books balance"), "{text}");
    assert!(text.contains("2000.20 to player ann"), "{text}");
}

#[test]
fn seats_play_as_name_2_and_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let t = ok(&felt(
        &db,
        &[
            "play", "classic", "--seats", "3", "--player", "zoe", "--seed", "1",
        ],
        "q\n",
    ));
    for n in ["zoe:", "zoe-2:", "zoe-3:"] {
        assert!(t.contains(&format!("New player {n}")), "{t}");
    }
    let v = books_json(&db);
    assert_eq!(balance(&v, "player", "zoe-3"), "1000.00");
}

#[test]
fn history_shows_cards_actions_wagers_results_and_keeps_the_shoe_seed_while_it_is_in_play() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let shoe = shoe_file(dir.path(), "7h Ts 7h 9c 7h");
    ok(&felt(
        &db,
        &[
            "play",
            "lucky-7",
            "--seed",
            "7",
            "--shoe",
            shoe.to_str().unwrap(),
        ],
        // Round 1 ends; round 2 is left mid-hand (the input ends).
        "10\ny\nh\n10\nn\n",
    ));
    let t = ok(&felt(&db, &["history", "--last", "5"], ""));
    let r1 = &t[t.find("Round 1 ").unwrap()..];
    assert!(r1.contains("finished"), "{t}");
    assert!(
        r1.contains("shoe 1 (its round 1), commitment: seed SHA-256 "),
        "{t}"
    );
    // The round is over but its shoe is in play: its seed would give the next cards.
    assert!(
        r1.contains("shoe seed: kept secret until the shoe is retired"),
        "{t}"
    );
    assert!(
        r1.contains("TEST LAB ROUND (test lab: --seed 7, --shoe "),
        "{t}"
    );
    assert!(
        r1.contains("cards: seat 1 spot 1 hand 1: 7♥ 7♥ 7♥ | dealer: 10♠ 9♣"),
        "{t}"
    );
    assert!(
        r1.contains(
            "actions: seat 1 spot 1 bets 10.00; seat 1 spot 1 lucky-7 1.00; deal; seat 1 spot 1 hand 1: hit"
        ),
        "{t}"
    );
    assert!(
        r1.contains("wagers: seat 1 spot 1 hand 1 main 10.00; seat 1 spot 1 hand 1 lucky-7 1.00"),
        "{t}"
    );
    assert!(
        r1.contains("lucky-7 win (three-sevens-suited) +500.00"),
        "{t}"
    );
    assert!(r1.contains("net: player +510.00"), "{t}");
    let r2 = &t[t.find("Round 2 ").unwrap()..t.find("Round 1 ").unwrap()];
    assert!(r2.contains("open"), "{t}");
    assert!(r2.contains("shoe seed: kept secret"), "{t}");
    assert!(
        r2.contains("[hole]"),
        "the hole card of an open round stays hidden: {t}"
    );
    // --last 1: only the newest; JSON hides the seeds of a shoe in play.
    let t = ok(&felt(&db, &["history", "--last", "1"], ""));
    assert!(t.contains("Round 2 ") && !t.contains("Round 1 "), "{t}");
    let v: serde_json::Value =
        serde_json::from_str(&ok(&felt(&db, &["history", "--json"], ""))).unwrap();
    assert_eq!(v[0]["status"], "open");
    for r in [&v[0], &v[1]] {
        assert!(r["seed"].is_null(), "{r}");
        assert!(r["shoe"]["seed"].is_null(), "{r}");
        assert_eq!(r["shoe"]["commitment"].as_str().unwrap().len(), 64);
        assert!(r["lab"].as_str().unwrap().contains("--seed 7"), "{r}");
    }
    // No face-down card has a value in a player's history.
    for e in v[0]["events"].as_array().unwrap() {
        if e["face_up"] == false {
            assert!(e.get("card").is_none(), "{e}");
        }
    }
    // The next session completes round 2 where it stopped.
    let t = ok(&felt(&db, &["play", "lucky-7", "--seed", "7"], "s\nq\n"));
    assert!(
        t.contains("Round 2 was interrupted: it resumes where it stopped"),
        "{t}"
    );
    assert!(t.contains("Seat 1 balance:"), "{t}");
    let t = ok(&felt(&db, &["replay", "2"], ""));
    assert!(t.contains("identical to the stored log"), "{t}");
}

#[test]
fn replay_proves_a_round_and_reports_a_tampered_event() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let shoe = shoe_file(dir.path(), "Qh 5c Kh Ah");
    ok(&felt(
        &db,
        &[
            "play",
            "blackjack-bonus",
            "--seed",
            "3",
            "--shoe",
            shoe.to_str().unwrap(),
        ],
        "10\n1\n0\nn\ns\nq\n",
    ));
    let t = ok(&felt(&db, &["replay", "1"], ""));
    assert!(
        t.contains("Round 1: ") && t.contains("identical to the stored log"),
        "{t}"
    );

    // A copy of the books with one stored event changed (a card).
    let copy = dir.path().join("tampered.db");
    std::fs::copy(&db, &copy).unwrap();
    for ext in ["db-wal", "db-shm"] {
        let from = db.with_extension(ext);
        if from.exists() {
            std::fs::copy(&from, copy.with_extension(ext)).unwrap();
        }
    }
    {
        let c = rusqlite::Connection::open(&copy).unwrap();
        c.execute_batch("DROP TRIGGER events_append_only_u")
            .unwrap();
        let n = c
            .execute(
                "UPDATE round_events SET event_json = replace(event_json, '\"rank\":\"Queen\"', \
                 '\"rank\":\"Jack\"') WHERE round_id = 1 AND seq = (SELECT MIN(seq) FROM \
                 round_events WHERE round_id = 1 AND event_json LIKE '%\"rank\":\"Queen\"%')",
                [],
            )
            .unwrap();
        assert_eq!(n, 1, "one event tampered");
    }
    let o = felt(&copy, &["replay", "1"], "");
    assert!(!o.status.success(), "a tampered log must fail: {}", out(&o));
    let t = out(&o);
    assert!(t.contains("DIFFERS"), "{t}");
    assert!(
        t.contains("stored {") && t.contains("\"Jack\"") && t.contains("\"Queen\""),
        "{t}"
    );
    assert!(err(&o).contains("differ"), "{}", err(&o));
    // The original is untouched and still proves identical.
    ok(&felt(&db, &["replay", "--all"], ""));
    // An unknown round is a clear error.
    let o = felt(&db, &["replay", "99"], "");
    assert!(!o.status.success());
    assert!(err(&o).contains("no round 99"), "{}", err(&o));
}

#[test]
fn on_crash_void_voids_the_interrupted_round_and_returns_the_stakes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let classic = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../games/classic.toml"
    ))
    .unwrap();
    let rules = dir.path().join("void.toml");
    std::fs::write(
        &rules,
        classic.replace("[table]", "[table]\non_crash = \"void\""),
    )
    .unwrap();
    let r = rules.to_str().unwrap();
    let t = ok(&common::run(["rules", r], common::NO_DB, ""));
    assert!(t.contains("interrupted by a crash is void"), "{t}");
    // Bet 25 and leave mid-hand (the input ends at the decision).
    let t = ok(&felt(&db, &["play", r, "--seed", "5"], "25\n"));
    assert!(t.contains("voids it"), "{t}");
    let v = books_json(&db);
    assert_eq!(balance(&v, "player", "player"), "975.00");
    assert_eq!(v["check"]["open_rounds"][0], 1);
    // The incomplete-games report: the round, the 25.00 it holds, and its end by the
    // rules (void), before anything is done with it.
    let report: serde_json::Value =
        serde_json::from_str(&ok(&felt(&db, &["books", "--incomplete", "--json"], ""))).unwrap();
    assert_eq!(report.as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report[0]["round"], 1);
    assert_eq!(report[0]["stakes"][0]["player"], "player");
    assert_eq!(report[0]["stakes"][0]["amount"], "25.00");
    assert_eq!(report[0]["state"]["state"], "interrupted");
    assert_eq!(report[0]["ending"]["ending"], "voids", "{report}");
    assert!(report[0]["ending"]["reason"]
        .as_str()
        .unwrap()
        .contains("on_crash"));
    let t = ok(&felt(&db, &["play", r, "--seed", "6"], "q\n"));
    assert!(t.contains("Round 1 was interrupted: it is void"), "{t}");
    let v = books_json(&db);
    assert_eq!(balance(&v, "player", "player"), "1000.00");
    assert_eq!(balance(&v, "felt", "classic/player"), "0.00");
    let t = ok(&felt(&db, &["books", "--incomplete"], ""));
    assert!(t.contains("No incomplete game"), "{t}");
    let h = ok(&felt(&db, &["history"], ""));
    assert!(
        h.contains("Round 1  classic  table classic/player  voided"),
        "{h}"
    );
    // A voided round is over: its seed is shown, so its shuffle can be checked.
    let v: serde_json::Value =
        serde_json::from_str(&ok(&felt(&db, &["history", "--json"], ""))).unwrap();
    let voided = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "voided")
        .expect("the voided round is listed");
    assert_eq!(voided["seed"].as_str().map(str::len), Some(64), "{voided}");
}

#[test]
fn a_corrupt_file_is_refused_by_play_books_and_history_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&db, &garbage).unwrap();
    for args in [
        &["play", "classic"][..],
        &["books"][..],
        &["history"][..],
        &["replay", "1"][..],
    ] {
        let o = felt(&db, args, "10\ns\nq\n");
        assert!(!o.status.success(), "{args:?}");
        let e = err(&o);
        assert!(e.contains("is not a felt database"), "{args:?}: {e}");
        assert!(
            e.contains("point felt at another database"),
            "{args:?}: {e}"
        );
        assert!(!e.contains("panicked"), "{e}");
    }
    assert_eq!(
        std::fs::read(&db).unwrap(),
        garbage,
        "the file is untouched"
    );
    // A foreign SQLite database too.
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    let o = felt(&other, &["play", "classic"], "q\n");
    assert!(!o.status.success());
    assert!(
        err(&o).contains("belongs to another program"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_newer_schema_is_refused_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    ok(&felt(
        &db,
        &["play", "classic", "--seed", "1"],
        "10\ns\nq\n",
    ));
    let before = books_json(&db);
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    for args in [&["play", "classic"][..], &["books"][..], &["history"][..]] {
        let o = felt(&db, args, "q\n");
        assert!(!o.status.success(), "{args:?}");
        let e = err(&o);
        assert!(e.contains("written by a newer felt"), "{args:?}: {e}");
        assert!(e.contains("schema 99"), "{args:?}: {e}");
    }
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", felt_store::sqlite::schema::LATEST)
        .unwrap();
    let after = books_json(&db);
    assert_eq!(before["balances"], after["balances"], "nothing lost");
}

#[test]
fn a_locked_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    ok(&felt(&db, &["play", "classic", "--seed", "1"], "q\n"));
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let o = felt(&db, &["play", "classic", "--seed", "2"], "10\ns\nq\n");
    assert!(!o.status.success());
    let e = err(&o);
    assert!(e.contains("locked by another process"), "{e}");
    c.execute_batch("ROLLBACK").unwrap();
    drop(c);
    assert_eq!(books_json(&db)["sound"], true);
}

#[test]
fn books_without_a_database_says_how_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    let o = felt(&db, &["books"], "");
    assert!(!o.status.success());
    assert!(err(&o).contains("felt play"), "{}", err(&o));
    assert!(!db.exists(), "books does not create a database");
}

/// Starts `felt play` on `db` and waits (at most a minute) until it asks for the first
/// bet: from then on it holds its seats. Its standard input stays open.
fn seated(db: &Path, args: &[&str]) -> (std::process::Child, std::process::ChildStdin) {
    use std::io::Read;
    let mut child = common::command(args_at(db, args), db.with_extension("unused"))
        .spawn()
        .expect("felt runs");
    let stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !String::from_utf8_lossy(&seen).contains("main bet") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => seen.extend(chunk),
            Err(_) => panic!(
                "no bet prompt: {}",
                String::from_utf8_lossy(&seen).into_owned()
            ),
        }
    }
    (child, stdin)
}

#[test]
fn a_second_session_of_the_same_player_is_refused_until_the_first_ends_even_by_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let (mut first, stdin) = seated(&db, &["play", "classic", "--player", "ann", "--seats", "2"]);
    let before = books_json(&db);
    // An event log of an earlier session, which a refused session must leave alone.
    let log = dir.path().join("events.jsonl");
    std::fs::write(&log, "earlier\n").unwrap();
    let new_log = dir.path().join("new-events.jsonl");
    for (who, args) in [
        // The same table; another game (ann's wallet is the same); ann's second seat.
        (
            "ann",
            &["play", "classic", "--player", "ann", "--deposit", "50"][..],
        ),
        (
            "ann",
            &[
                "play",
                "lucky-7",
                "--player",
                "ann",
                "--events",
                log.to_str().unwrap(),
            ][..],
        ),
        ("ann-2", &["play", "blazing-7s", "--player", "ann-2"][..]),
        (
            "ann",
            &[
                "play",
                "classic",
                "--player",
                "ann",
                "--events",
                new_log.to_str().unwrap(),
            ][..],
        ),
    ] {
        let o = felt(&db, args, "10\ns\nq\n");
        let e = err(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        let says = format!(
            "player `{who}`'s seat at the books {} is in use by another session (process {})",
            db.display(),
            first.id()
        );
        assert!(e.contains(&says), "{args:?}: {e}");
        assert!(e.contains("nothing was changed"), "{e}");
        assert!(out(&o).is_empty(), "{args:?}: {}", out(&o));
    }
    assert_eq!(books_json(&db), before, "a refused session changes nothing");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "earlier\n");
    assert!(!new_log.exists(), "a refused session leaves no new file");
    // Another player plays meanwhile.
    let t = ok(&felt(&db, &["play", "classic", "--player", "bob"], "q\n"));
    assert!(t.contains("New player bob"), "{t}");

    // The first session dies without a word (SIGKILL): its seat is free at once. It
    // was at its first bet prompt, so no round of it is in the books: the next session
    // opens round 1 afresh.
    first.kill().unwrap();
    first.wait().unwrap();
    drop(stdin);
    let t = ok(&felt(&db, &["play", "classic", "--player", "ann"], "q\n"));
    assert!(!t.contains("interrupted"), "{t}");
    assert!(t.contains("\nRound 1\n"), "{t}");
    assert_eq!(books_json(&db)["sound"], true);
}

#[test]
fn sessions_and_inspectors_on_new_books_at_once_all_succeed() {
    // `rm -f q.db*; felt play --db q.db & felt play --db q.db & felt books --db q.db`:
    // the first creates the books, the others wait for it and then open them.
    let dir = tempfile::tempdir().unwrap();
    for t in 0..10 {
        let db = dir.path().join(format!("q{t}.db"));
        let plays: Vec<_> = ["ann", "bob", "cy"]
            .iter()
            .map(|p| {
                common::spawn(
                    args_at(&db, &["play", "classic", "--seed", "1", "--player", p]),
                    db.with_extension("unused"),
                    "q\n",
                )
            })
            .collect();
        // `felt books` on a path that does not exist yet says so: it looks once the file
        // is there (being created, or made).
        while !db.exists() {
            std::thread::yield_now();
        }
        let looks: Vec<_> = (0..3)
            .map(|_| common::spawn(args_at(&db, &["books"]), db.with_extension("unused"), ""))
            .collect();
        for c in plays.into_iter().chain(looks) {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "try {t}: {}\n{}", out(&o), err(&o));
        }
        let v = books_json(&db);
        assert_eq!(v["sound"], true, "{v:#}");
        for p in ["ann", "bob", "cy"] {
            assert_eq!(balance(&v, "player", p), "1000.00", "{v:#}");
        }
    }
}

#[test]
fn the_incomplete_games_report_says_a_round_of_resume_rules_goes_on_and_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // Bet 25 and leave at the decision (the input ends).
    let t = ok(&felt(&db, &["play", "classic", "--seed", "5"], "25\n"));
    assert!(t.contains("is not finished"), "{t}");
    let t = ok(&felt(&db, &["books", "--incomplete"], ""));
    assert!(
        t.contains("Round 1 at table classic/player (classic)"),
        "{t}"
    );
    assert!(t.contains("player holds 25.00"), "{t}");
    assert!(t.contains("interrupted"), "{t}");
    assert!(t.contains("resumes where it stopped"), "{t}");
    // And it does: the player comes back to the same hand.
    let t = ok(&felt(&db, &["play", "classic", "--seed", "5"], "s\nq\n"));
    assert!(t.contains("Round 1"), "{t}");
    let t = ok(&felt(&db, &["books", "--incomplete"], ""));
    assert!(t.contains("No incomplete game"), "{t}");
}
