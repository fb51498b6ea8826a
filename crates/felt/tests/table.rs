//! `felt play` and the books at their edges: leaving before any bet leaves no round,
//! a round's header comes before its cards (new or resumed), a damaged database and a
//! full disk give advice that works, and lose nothing already committed.

mod common;

use common::{stderr, stdout};
use std::path::Path;
use std::process::Output;

/// Runs `felt ARGS --db DB` on `input`.
fn felt(db: &Path, args: &[&str], input: &str) -> Output {
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--db", db.to_str().expect("utf-8 temp path")]);
    common::run(&args, common::NO_DB, input)
}

/// Standard output of a run that must succeed.
fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// `felt history --json` of the books.
fn history(db: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&felt(db, &["history", "--json", "--last", "1000"], ""))).unwrap()
}

/// The answers for `n` rounds of classic: bet 10, no to insurance / even money if
/// asked, stand. An answer a prompt does not take is refused and the next line is
/// tried, so the answers stay in step whatever the cards.
fn stand_rounds(n: usize) -> String {
    "10\nn\ns\n".repeat(n)
}

#[test]
fn quitting_at_the_bet_prompt_leaves_no_round_in_the_books() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // One round played, then q at the next round's bet prompt.
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "4"],
        &format!("{}q\n", stand_rounds(1)),
    ));
    assert!(t.contains("Seat 1 balance:"), "{t}");
    let before = history(&db);
    assert_eq!(before.as_array().unwrap().len(), 1, "{before}");
    let books = ok(&felt(&db, &["books", "--json"], ""));
    // Two more sessions that leave at once.
    for _ in 0..2 {
        let t = ok(&felt(&db, &["play", "classic", "--seed", "4"], "q\n"));
        assert!(t.contains("leaves the table"), "{t}");
        assert!(!t.contains("void"), "{t}");
    }
    assert_eq!(history(&db), before, "history unchanged");
    assert_eq!(
        ok(&felt(&db, &["books", "--json"], "")),
        books,
        "books unchanged"
    );
    let h = ok(&felt(&db, &["history"], ""));
    assert!(!h.contains("voided"), "{h}");
    // The next round played is round 2: no number was used up.
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "4"],
        &format!("{}q\n", stand_rounds(1)),
    ));
    assert!(t.contains("\nRound 2\n"), "{t}");
    let after = history(&db);
    let ids: Vec<i64> = after
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [2, 1], "{after}");
    assert!(after
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "finished"));
}

#[test]
fn quitting_after_a_bet_but_before_the_deal_still_voids_and_returns_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // Two spots: a bet on the first, q at the second's prompt.
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "4", "--spots", "2"],
        "10\nq\n",
    ));
    assert!(t.contains("leaves the table with 1000.00"), "{t}");
    let h = history(&db);
    assert_eq!(h.as_array().unwrap().len(), 1, "{h}");
    assert_eq!(h[0]["status"], "voided", "{h}");
    ok(&felt(&db, &["books"], ""));
}

#[test]
fn a_rounds_header_comes_before_its_cards_new_or_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let shoe = dir.path().join("shoe.txt");
    // Player 9 7 (16) against a dealer 6: hit is asked.
    std::fs::write(&shoe, "9c Ts 7d 6h").unwrap();
    let shoe = shoe.to_str().unwrap();
    // The input ends at the decision: the round is left open.
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "1", "--shoe", shoe],
        "10\n",
    ));
    let header = t.find("\nRound 1\n").expect("header");
    let first_card = t.find("Seat 1: 9♣").expect("the first card");
    assert!(header < first_card, "new round: header first\n{t}");
    assert!(t.contains("Round 1 is not finished"), "{t}");
    // Resumed: the header, then the replayed cards.
    let t = ok(&felt(&db, &["play", "classic", "--seed", "1"], "s\nq\n"));
    let resumed = t
        .find("Round 1 was interrupted: it resumes")
        .expect("resume");
    let header = t.find("\nRound 1\n").expect("header");
    let first_card = t.find("Seat 1: 9♣").expect("the replayed first card");
    assert!(
        resumed < header && header < first_card,
        "resumed round: header before its cards\n{t}"
    );
    assert!(t.contains("Seat 1 balance:"), "{t}");
}

/// Overwrites every page of the file but the first (its header and schema) with junk.
fn damage(db: &Path) {
    let mut bytes = std::fs::read(db).unwrap();
    assert!(bytes.len() > 8192);
    for b in &mut bytes[4096..] {
        *b = 0x5a;
    }
    std::fs::write(db, bytes).unwrap();
}

#[test]
fn a_damaged_database_gives_advice_that_does_not_need_felt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    ok(&felt(
        &db,
        &["play", "classic", "--seed", "2"],
        &format!("{}q\n", stand_rounds(2)),
    ));
    damage(&db);
    for args in [
        &["books"][..],
        &["history"][..],
        &["play", "classic", "--seed", "2"][..],
    ] {
        let o = felt(&db, args, "10\ns\nq\n");
        assert!(!o.status.success(), "{args:?}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(e.contains("is damaged"), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
        // `felt books` fails on this file too: it must not be the advice.
        assert!(!e.contains("run `felt books`"), "{args:?}: {e}");
        assert!(e.contains("PRAGMA integrity_check"), "{args:?}: {e}");
        assert!(e.contains("restore a backup"), "{args:?}: {e}");
        assert!(
            e.contains(&format!("mv '{}' '{}.damaged'", db.display(), db.display())),
            "{args:?}: {e}"
        );
        assert!(
            e.contains("point felt at another database"),
            "{args:?}: {e}"
        );
    }
    // Following the advice works: the file moved aside, the next `felt play` starts
    // new books.
    std::fs::rename(&db, dir.path().join("felt.db.damaged")).unwrap();
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "2"],
        &format!("{}q\n", stand_rounds(1)),
    ));
    assert!(t.contains("New player player"), "{t}");
}

/// The balances of `felt books --json`, as (account, balance) text pairs, after
/// checking that the books are sound.
fn sound_balances(db: &Path) -> Vec<(String, String)> {
    let v: serde_json::Value =
        serde_json::from_str(&ok(&felt(db, &["books", "--json"], ""))).unwrap();
    assert_eq!(v["sound"], true, "{v:#}");
    v["balances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["account"].to_string(), b["balance"].to_string()))
        .collect()
}

/// Cents from `1234.50`.
fn money_cents(s: &str) -> i64 {
    let (units, cents) = s.split_once('.').unwrap_or((s, "00"));
    units.parse::<i64>().unwrap() * 100 + cents.parse::<i64>().unwrap()
}

/// The last `Seat 1 balance: X` or `Seat 1 (balance X)` the table showed.
fn last_shown_balance(t: &str) -> String {
    let a = t.rfind("Seat 1 balance: ").map(|i| {
        let s = &t[i + "Seat 1 balance: ".len()..];
        (i, s[..s.find('\n').unwrap_or(s.len())].to_string())
    });
    let b = t.rfind("Seat 1 (balance ").map(|i| {
        let s = &t[i + "Seat 1 (balance ".len()..];
        (i, s[..s.find(')').unwrap()].to_string())
    });
    match (a, b) {
        (Some(a), Some(b)) => {
            if a.0 > b.0 {
                a.1
            } else {
                b.1
            }
        }
        (Some(a), None) => a.1,
        (None, Some(b)) => b.1,
        (None, None) => panic!("no balance shown:\n{t}"),
    }
}

#[cfg(unix)]
#[test]
fn a_full_disk_or_file_size_limit_stops_play_with_a_clear_error_and_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    // Books with a few rounds, made without any limit.
    ok(&felt(
        &db,
        &["play", "classic", "--seed", "3"],
        &format!("{}q\n", stand_rounds(3)),
    ));
    let rounds_before = history(&db).as_array().unwrap().len();
    assert_eq!(rounds_before, 3);
    let size = std::fs::metadata(&db).unwrap().len();
    // (Each table and index of the schema is a page of its own: about 50 pages now.)
    assert!(size < 240 * 1024, "the books are small: {size} bytes");
    // The same books under a file-size limit of 512 blocks (256 KiB with dash's
    // 512-byte blocks, 512 KiB where they are 1 KiB): enough to open the books, too
    // little for the write-ahead log of 300 rounds. SIGXFSZ is left as the shell
    // has it (its default action ends a process): felt itself must survive it and say
    // what happened.
    let script = format!(
        "ulimit -f 512 || exit 99; exec '{}' play classic --seed 9 --db '{}'",
        env!("CARGO_BIN_EXE_felt"),
        db.display()
    );
    let mut c = std::process::Command::new("sh");
    c.args(["-c", &script])
        .env("FELT_DB", common::NO_DB)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("sh runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = format!("{}q\n", stand_rounds(300));
    std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let o = child.wait_with_output().unwrap();
    let (t, e) = (stdout(&o), stderr(&o));
    assert_ne!(o.status.code(), Some(99), "ulimit -f is not available: {e}");
    assert!(!o.status.success(), "the limit was never reached:\n{t}");
    assert_eq!(
        o.status.code(),
        Some(1),
        "an error exit, not a signal ({:?}): {e}",
        o.status
    );
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        e.contains("file-size limit") && e.contains("full"),
        "the error says the disk or file is full: {e}"
    );
    assert!(
        e.contains("everything committed before it is safe"),
        "and what is safe: {e}"
    );
    assert!(
        !t.contains("leaves the table with"),
        "the table stopped at the failed step:\n{t}"
    );
    let shown = last_shown_balance(&t);

    // Without the limit: the books balance, and hold every round and the balance the
    // table showed before the failure.
    // A round the failure left open holds its stakes on the felt: the player's wallet
    // and the felt together are what the table last showed.
    let balances = sound_balances(&db);
    let cents = |who: &str| -> i64 {
        balances
            .iter()
            .find(|(a, _)| a.contains(who))
            .map_or(0, |(_, b)| money_cents(b.trim_matches('"')))
    };
    assert_eq!(
        cents("\"player\"") + cents("\"felt\""),
        money_cents(&shown),
        "{balances:?}\n{t}"
    );
    let h = history(&db);
    let played = t.matches("Seat 1 balance: ").count();
    let finished = h
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "finished")
        .count();
    assert_eq!(finished, rounds_before + played, "{h:#}");
    // And play goes on: an open round (if the failure left one) is completed.
    let t = ok(&felt(
        &db,
        &["play", "classic", "--seed", "9"],
        &format!("{}q\n", stand_rounds(2)),
    ));
    assert!(t.contains("leaves the table with"), "{t}");
    sound_balances(&db);
}

/// Plays `game` (a preset or a rules file) on fresh books, dealing `cards` first.
fn play_stacked(game: &str, cards: &str, extra: &[&str], input: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    common::play_stacked(&dir.path().join("felt.db"), game, cards, extra, input)
}

/// The line after the answer `answer` to the question `question`.
fn reply_to(t: &str, question: &str, answer: &str) -> String {
    let lines: Vec<&str> = t.lines().collect();
    let i = lines
        .iter()
        .position(|l| *l == format!("{question}? {answer}"))
        .unwrap_or_else(|| panic!("no `{question}` answered `{answer}` in\n{t}"));
    lines[i + 1].to_string()
}

#[test]
fn c_10_a_refused_choice_is_answered_with_the_engines_reason_and_asked_again() {
    // Classic resplits to four hands: a fourth pair is not split.
    let t = play_stacked(
        "classic",
        "8h 9c 8d 7s 8c 8s 8h",
        &[],
        "10\np\np\np\np\nq\n",
    );
    let menu = "Seat 1 hand 1: [h]it, [s]tand, [d]ouble 10.00?";
    assert_eq!(
        reply_to(&t, &menu[..menu.len() - 1], "p"),
        "  ! the hand limit of 4 is reached",
        "{t}"
    );
    // Asked again, with the choices.
    let after = &t[t.find("hand limit of 4").unwrap()..];
    assert!(after.lines().nth(1).unwrap().starts_with(menu), "{t}");

    // Lucky 7 splits once.
    let t = play_stacked("lucky-7", "8h 9c 8d 7s 8c", &[], "10\nn\np\np\nq\n");
    assert_eq!(
        reply_to(&t, "Seat 1 hand 1: [h]it, [s]tand, [d]ouble 10.00", "p"),
        "  ! no resplit in this game: a spot is split once",
        "{t}"
    );

    // Even money, not insurance, for a blackjack against an ace.
    let t = play_stacked("classic", "Ah 6c Kd As", &[], "10\ni\nn\nq\n");
    assert_eq!(
        reply_to(&t, "Seat 1 (dealer ace): [e]ven money, [n]o thanks", "i"),
        "  ! insurance is not offered to a blackjack: even money is",
        "{t}"
    );

    // Surrender on the first two cards only (Lucky Ladies surrenders late).
    let t = play_stacked("lucky-ladies", "5h 9c 4d 7s 2c", &[], "10\n0\nh\nr\nq\n");
    assert_eq!(
        reply_to(&t, "Seat 1: [h]it, [s]tand", "r"),
        "  ! surrender only on the first two cards",
        "{t}"
    );

    // A double the balance cannot cover.
    let t = play_stacked(
        "classic",
        "5h 9c 6d 7s",
        &["--bankroll", "10"],
        "10\nd\nq\n",
    );
    assert_eq!(
        reply_to(&t, "Seat 1: [h]it, [s]tand", "d"),
        "  ! the balance of 0.00 does not cover 10.00",
        "{t}"
    );

    // No double after a split, in a game of one's own.
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("no-das.toml");
    let classic = ok(&common::run(
        ["rules", "classic", "--toml"],
        common::NO_DB,
        "",
    ));
    std::fs::write(
        &game,
        classic.replace("double_after_split = true", "double_after_split = false"),
    )
    .unwrap();
    let t = play_stacked(
        game.to_str().unwrap(),
        "8h 9c 8d 7s 3c",
        &[],
        "10\np\nd\nq\n",
    );
    assert_eq!(
        reply_to(&t, "Seat 1 hand 1: [h]it, [s]tand", "d"),
        "  ! no double after a split in this game",
        "{t}"
    );
}

#[test]
fn c_9_soft_totals_say_soft_and_a_dealer_with_no_hand_to_beat_does_not_draw() {
    // Split aces take one card each: A 9 stands on soft 20.
    let t = play_stacked("classic", "Ah 6c Ad 5s 9h 9d", &[], "10\np\nq\n");
    assert!(t.contains("Seat 1 hand 1 stands on soft 20."), "{t}");
    assert!(t.contains("Seat 1 hand 2 stands on soft 20."), "{t}");
    assert!(t.contains("  Seat 1: A♥ A♦  (soft 12)  bet 10.00"), "{t}");
    // Lucky Ladies hits soft 17 (H17): the dealer's soft totals are named.
    let t = play_stacked("lucky-ladies", "5h Ac 6d 6s 9c 3d", &[], "10\n5\nd\nq\n");
    assert!(
        t.contains("Dealer turns the hole card: A♣ (total soft 17)."),
        "{t}"
    );
    assert!(t.contains("Dealer draws 3♦ (total soft 20)."), "{t}");
    assert!(t.contains("Dealer stands on soft 20."), "{t}");
    // Every player hand busted: the dealer turns the hole card and draws nothing.
    let t = play_stacked("classic", "Th 6c 6d 9s Kc", &[], "10\nh\nq\n");
    assert!(
        t.contains("Dealer turns the hole card: 6♣ (total 15).\nNo hand is left in play: the dealer does not draw.\n"),
        "{t}"
    );
    assert!(!t.contains("Dealer stands on 15"), "{t}");
    // Even money taken on the only hand: the same.
    let t = play_stacked("classic", "Ah 6c Kd As", &[], "10\ne\nq\n");
    assert!(
        t.contains("No hand is left in play: the dealer does not draw."),
        "{t}"
    );
    // A hand still standing: the dealer plays.
    let t = play_stacked("classic", "Th 6c 7d 9s 2h", &[], "10\ns\nq\n");
    assert!(
        t.contains("Dealer draws 2♥ (total 17).\nDealer stands on 17.\n"),
        "{t}"
    );
}

#[test]
fn the_table_shows_doubles_even_money_side_bets_and_insurance() {
    // Spot 1 doubles 5 6; spot 2's question shows it doubled.
    let t = play_stacked(
        "classic",
        "5h Th 6c 6d 7c 9s 9c",
        &["--spots", "2"],
        "10\n10\nd\ns\nq\n",
    );
    assert!(
        t.contains("  Seat 1 spot 1: 5♥ 6♦ 9♣  (20)  bet 20.00 doubled  [stood]\n"),
        "{t}"
    );
    // Spot 1 takes even money; spot 2 insures 2.00 and then plays.
    let t = play_stacked(
        "classic",
        "Ah Th 6c Kd 9c As",
        &["--spots", "2"],
        "10\n10\ne\ni 2\ns\nq\n",
    );
    let asked = &t[t.find("Seat 1 spot 2: [h]it").expect("spot 2 plays")..];
    let before = &t[..t.len() - asked.len()];
    let table: Vec<&str> = before.lines().rev().take(4).collect();
    assert!(
        table.contains(&"  Seat 1 spot 1: A♥ K♦  (21)  bet 10.00  [even money]"),
        "{t}"
    );
    assert!(
        table.contains(&"  Seat 1 spot 2 also: insurance 2.00 (settled)"),
        "{t}"
    );
    // A side bet, settled on the first cards, is shown beside its spot.
    let t = play_stacked("lucky-ladies", "5h Ac 6d 6s 9c 3d", &[], "10\n5\ns\nq\n");
    assert!(
        t.contains("  Seat 1 also: Lucky Ladies 5.00 (settled)\n"),
        "{t}"
    );
}
