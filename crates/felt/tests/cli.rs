//! The `felt` binary end to end: listing, rules cards, errors, and the terminal
//! table driven from piped standard input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn felt(args: &[&str], stdin: &str) -> Output {
    // Every run gets fresh books in a temporary directory: tests never touch the
    // user's data directory.
    let books = tempfile::tempdir().expect("temp dir");
    let db = books.path().join("felt.db");
    let mut args: Vec<&str> = args.to_vec();
    if args.first() == Some(&"play") {
        args.extend(["--db", db.to_str().expect("utf-8 temp path")]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(&args)
        .env("FELT_DB", books.path().join("unused.db"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("felt runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("felt ends")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn games_lists_every_preset() {
    let o = felt(&["games"], "");
    assert!(o.status.success());
    for g in [
        "classic",
        "lucky-7",
        "lucky-lucky",
        "blazing-7s",
        "blackjack-bonus",
        "lucky-ladies",
    ] {
        assert!(text(&o).contains(g), "{g} missing");
    }
}

#[test]
fn rules_prints_every_pay_table() {
    let o = felt(&["rules", "blackjack-bonus"], "");
    assert!(o.status.success());
    let t = text(&o);
    assert!(
        t.contains("Three Card Poker Bonus") && t.contains("100 to 1"),
        "{t}"
    );
    assert!(t.contains("Bonus 7's") && t.contains("500 to 1"), "{t}");
}

#[test]
fn malformed_rules_file_names_file_line_and_key_and_fails() {
    let dir = std::env::temp_dir().join(format!("felt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    let classic = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../games/classic.toml"
    ))
    .unwrap();
    std::fs::write(&path, classic.replace("burn = 1 ", "burn = \"one\" ")).unwrap();
    let o = felt(&["rules", path.to_str().unwrap()], "");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("line 14") && err.contains("shoe.burn"),
        "{err}"
    );
    let o = felt(&["rules", "no-such-game"], "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("classic"));
}

fn play_with_shoe(game: &str, shoe: &str, extra: &[&str], answers: &str) -> (String, Output) {
    let dir = std::env::temp_dir().join(format!("felt-play-{}-{game}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shoe.txt");
    std::fs::write(&path, shoe).unwrap();
    let mut args = vec![
        "play",
        game,
        "--seed",
        "7",
        "--shoe",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = felt(&args, answers);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (text(&o), o)
}

#[test]
fn play_lucky_7_three_suited_sevens_pays_500_to_1() {
    let (t, _) = play_with_shoe("lucky-7", "7h Ts 7h 9c 7h", &[], "10\ny\nh\nq\n");
    assert!(
        t.contains("Lucky 7: first three cards 7s of one suit, 500 to 1: +500.00"),
        "{t}"
    );
    assert!(t.contains("Main bet: wins, 1 to 1: +10.00"), "{t}");
    assert!(t.contains("Seat 1 balance: 1510.00"), "{t}");
}

#[test]
fn play_lucky_lucky_suited_678_pays_100_to_1() {
    let (t, _) = play_with_shoe("lucky-lucky", "7d 2c 8d 6d", &[], "10\n1\ns\nq\n");
    assert!(
        t.contains("Lucky Lucky: suited 6-7-8, 100 to 1: +100.00"),
        "{t}"
    );
}

#[test]
fn play_blazing_7s_three_suited_sevens_takes_the_meter() {
    let (t, _) = play_with_shoe("blazing-7s", "7s 9c 7s Th 7s", &[], "10\ny\nh\nq\n");
    // The meter stood at 2000.00 + 0.20 (this wager's increment); 100% to 1 returns the stake too.
    assert!(
        t.contains("Blazing 7s: first three cards 7s of one suit, 100% of meter"),
        "{t}"
    );
    assert!(t.contains("+2000.20"), "{t}");
    assert!(t.contains("blazing-7s meter: 2000.00"), "{t}");
}

#[test]
fn play_blackjack_bonus_straight_flush_and_insurance_question() {
    let (t, _) = play_with_shoe("blackjack-bonus", "Qh 5c Kh Ah", &[], "10\n1\n0\nn\ns\nq\n");
    assert!(
        t.contains("Three Card Poker Bonus: straight flush, 30 to 1: +30.00"),
        "{t}"
    );
    assert!(t.contains("insurance?"), "{t}");
    assert!(t.contains("no blackjack"), "{t}");
}

#[test]
fn play_lucky_ladies_queen_of_hearts_pair() {
    let (t, _) = play_with_shoe("lucky-ladies", "Qh 9c Qh Ts", &[], "10\n1\ns\nq\n");
    assert!(
        t.contains("Lucky Ladies: queen of hearts pair, 125 to 1: +125.00"),
        "{t}"
    );
}

#[test]
fn play_classic_two_seats_bad_input_is_refused_and_asked_again() {
    let (t, _) = play_with_shoe(
        "classic",
        "Tc Td 9s Th Tc 7h",
        &["--seats", "2"],
        "abc\n3.333\n100000\n10\n10\nx\nh 5\ns\ns\nq\n",
    );
    assert!(t.contains("`abc` is not an amount"), "{t}");
    assert!(t.contains("`3.333` is not an amount"), "{t}");
    assert!(t.contains("outside the limits"), "{t}");
    assert!(t.contains("`x` is not a choice"), "{t}");
    assert!(t.contains("`h` takes no amount"), "{t}");
    assert!(t.contains("Seat 2: 10♦"), "{t}");
    assert!(t.contains("Seat 2 balance:"), "{t}");
}

#[test]
fn play_writes_the_event_log_as_json_lines() {
    let dir = std::env::temp_dir().join(format!("felt-events-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("events.jsonl");
    let (_, _) = play_with_shoe(
        "lucky-7",
        "7h Ts 7h 9c 7h",
        &["--events", log.to_str().unwrap()],
        "10\ny\nh\nq\n",
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().any(|e| e["event"] == "dealt"));
    assert!(events.iter().any(|e| e["event"] == "settled"));
    // The ledger of the round balances: every move leaves one account and enters another.
    assert!(events
        .iter()
        .filter(|e| e["event"] == "moved")
        .all(|e| e["from"] != e["to"]));
}

#[test]
fn play_after_a_split_names_the_first_hand_too() {
    let (t, _) = play_with_shoe(
        "classic",
        "8h 8c 8d 9s 3c 3d 5h Tc",
        &[],
        "10\np\ns\ns\nq\n",
    );
    assert!(
        t.contains("Seat 1: [h]it, [s]tand, [d]ouble 10.00, s[p]lit?"),
        "{t}"
    );
    assert!(t.contains("Seat 1 hand 1: [h]it"), "{t}");
    assert!(t.contains("Seat 1 hand 2: [h]it"), "{t}");
}
