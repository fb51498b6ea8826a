//! The `felt` binary end to end: listing, rules cards, errors, and the terminal
//! table driven from piped standard input.

mod common;

use common::stdout as text;
use std::path::Path;
use std::process::Output;

fn felt(args: &[&str], stdin: &str) -> Output {
    // Every run gets fresh books in a temporary directory (removed after the run):
    // tests never touch the user's data directory.
    let books = tempfile::tempdir().expect("temp dir");
    felt_at(&books.path().join("felt.db"), args, stdin)
}

/// Runs felt with the books at `db` (a `play` gets `--db db`).
fn felt_at(db: &Path, args: &[&str], stdin: &str) -> Output {
    let mut args: Vec<&str> = args.to_vec();
    if args.first() == Some(&"play") {
        args.extend(["--db", db.to_str().expect("utf-8 temp path")]);
    }
    common::run(&args, db.with_extension("unused"), stdin)
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
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
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
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shoe.txt");
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
    assert!(
        t.contains("Seat 1 (dealer ace): [i]nsurance 0.50 to 5.00, [n]o thanks?"),
        "{t}"
    );
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
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("events.jsonl");
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

/// After a split, every line about the spot's hands names the hand, the first one
/// too (its events carry hand index 0, like an unsplit hand's); a side bet belongs to
/// the spot and names no hand; an unsplit spot's lines name no hand.
#[test]
fn play_names_every_split_hand_in_cards_and_settlements_and_no_unsplit_one() {
    // Seat 1: 8 8 (splits, draws 3 and 3), seat 2: 10 9 (stands); dealer 8 hole, 9 up.
    let (t, _) = play_with_shoe(
        "classic",
        "8h Tc 8c 8d 9d 9s 3c 3d",
        &["--seats", "2"],
        "10\n10\np\ns\ns\ns\nq\n",
    );
    for line in [
        "Seat 1: 8♥\n",
        "Seat 1: 8♦\n",
        "Seat 1 hand 1: 3♣\n",
        "Seat 1 hand 2: 3♦\n",
        "Seat 1 hand 1 Main bet: loses: -10.00\n",
        "Seat 1 hand 2 Main bet: loses: -10.00\n",
        "Seat 2 Main bet: wins, 1 to 1: +10.00\n",
    ] {
        assert!(t.contains(line), "missing {line:?} in\n{t}");
    }
    assert!(!t.contains("Seat 2 hand"), "{t}");
    assert!(!t.contains("Seat 1 Main bet"), "{t}");

    // A side bet settled after the split names the spot, the main bets their hands.
    let (t, _) = play_with_shoe("lucky-7", "7h Tc 7d 9s 3c 3d", &[], "10\ny\np\ns\ns\nq\n");
    for line in [
        "Seat 1 Lucky 7: first two cards 7s, 25 to 1: +25.00\n",
        "Seat 1 hand 1 Main bet: loses: -10.00\n",
        "Seat 1 hand 2 Main bet: loses: -10.00\n",
    ] {
        assert!(t.contains(line), "missing {line:?} in\n{t}");
    }
}

/// The same `--seed` on fresh books replays a session byte for byte; on books where the
/// table has played, it starts new shuffles instead of dealing the earlier session's
/// round seeds again (and says so).
#[test]
fn play_same_seed_replays_on_fresh_books_and_deals_new_shuffles_later() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let answers = "10\nh\ns\n10\ns\nq\n";
    let args = ["play", "classic", "--seed", "7"];
    let first = felt_at(&a, &args, answers);
    let twin = felt_at(&b, &args, answers);
    assert!(first.status.success() && twin.status.success());
    let strip = |o: &Output| {
        text(o)
            .lines()
            .filter(|l| !l.starts_with("Books: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&twin), "fresh books, same seed");
    assert!(text(&first).starts_with("Classic Blackjack - seed 7\n"));

    // A second session with the same seed on the same books.
    let later = felt_at(&a, &args, answers);
    assert!(later.status.success());
    let t = text(&later);
    // Two rounds each: the `q` at the third round's bet prompt begins no round.
    assert!(
        t.contains("seed 7, mixed with the 2 round(s) this table has begun"),
        "{t}"
    );
    // No round seed of the books is used twice (the books', not shown to a player
    // while the shoe is in play).
    let conn = rusqlite::Connection::open(&a).unwrap();
    let seeds: Vec<Vec<u8>> = conn
        .prepare("SELECT seed FROM rounds ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let rounds = seeds.len();
    assert_eq!(rounds, 4);
    let distinct: std::collections::BTreeSet<&Vec<u8>> = seeds.iter().collect();
    assert_eq!(
        distinct.len(),
        seeds.len(),
        "a round seed repeats: {seeds:?}"
    );
}

#[test]
fn play_even_money_on_a_natural_against_an_ace_pays_one_to_one() {
    // Player A K, dealer 9 in the hole under an ace: even money offered and taken.
    let (t, _) = play_with_shoe("classic", "Ah 9c Kd As", &[], "10\ne\nq\n");
    assert!(
        t.contains("Seat 1 (dealer ace): [e]ven money, [n]o thanks?"),
        "{t}"
    );
    assert!(
        t.contains("Seat 1 Main bet: even money, 1 to 1: +10.00"),
        "{t}"
    );
    // Paid at once, before the dealer's hole card is known (it is not a blackjack).
    let paid = t.find("even money, 1 to 1").unwrap();
    let peek = t
        .find("The dealer checks the hole card: no blackjack.")
        .unwrap();
    assert!(paid < peek, "{t}");
    assert!(!t.contains("blackjack, 3 to 2"), "{t}");
    assert!(t.contains("Seat 1 balance: 1010.00"), "{t}");
    assert!(t.contains("leaves the table with 1010.00"), "{t}");
}

#[test]
fn play_late_surrender_returns_half_the_bet() {
    // Lucky Ladies: late surrender. Player 10 6 against a dealer 10 (9 in the hole,
    // no blackjack): surrender after the peek.
    let (t, _) = play_with_shoe("lucky-ladies", "Tc 9d 6h Ts", &[], "10\n0\nr\nq\n");
    assert!(
        t.contains("The dealer checks the hole card: no blackjack."),
        "{t}"
    );
    assert!(t.contains("su[r]render"), "{t}");
    assert!(t.contains("Seat 1 Main bet: surrendered: -5.00"), "{t}");
    assert!(t.contains("Seat 1 balance: 995.00"), "{t}");
    assert!(t.contains("leaves the table with 995.00"), "{t}");
}

#[test]
fn play_double_for_less_stakes_only_the_amount_chosen() {
    // Lucky Ladies: double for less. Player 6 5 (11) doubles for 5.00 of a 10.00
    // bet, draws a 10; the dealer 10 6 hits a 9 and busts: 15.00 won.
    let (t, _) = play_with_shoe("lucky-ladies", "6c Td 5h 6s Th 9c", &[], "10\n0\nd 5\nq\n");
    assert!(t.contains("[d]ouble 5.00 to 10.00"), "{t}");
    assert!(t.contains("Seat 1: 10♥"), "{t}");
    assert!(t.contains("Dealer busts with 25."), "{t}");
    assert!(t.contains("Seat 1 Main bet: wins, 1 to 1: +15.00"), "{t}");
    assert!(t.contains("Seat 1 balance: 1015.00"), "{t}");
    assert!(t.contains("leaves the table with 1015.00"), "{t}");
}

#[test]
fn play_two_spots_bet_and_settle_each_spot_on_its_own() {
    // Deal order: spot 1, spot 2, hole; spot 1, spot 2, up card. Spot 1: 10 10 (20),
    // spot 2: 9 7 (16), dealer 10 8 (18): spot 1 wins 10.00, spot 2 loses 20.00.
    let (t, _) = play_with_shoe(
        "classic",
        "Tc 9d Th Th 7d 8s",
        &["--spots", "2"],
        "10\n20\ns\ns\nq\n",
    );
    assert!(
        t.contains("Seat 1 spot 1 (balance 1000.00): main bet"),
        "{t}"
    );
    assert!(
        t.contains("Seat 1 spot 2 (balance 990.00): main bet"),
        "{t}"
    );
    assert!(
        t.contains("  Seat 1 spot 1: 10♣ 10♥  (20)  bet 10.00"),
        "{t}"
    );
    assert!(t.contains("  Seat 1 spot 2: 9♦ 7♦  (16)  bet 20.00"), "{t}");
    assert!(
        t.contains("Dealer turns the hole card: 10♥ (total 18)."),
        "{t}"
    );
    assert!(
        t.contains("Seat 1 spot 1 Main bet: wins, 1 to 1: +10.00"),
        "{t}"
    );
    assert!(t.contains("Seat 1 spot 2 Main bet: loses: -20.00"), "{t}");
    assert!(t.contains("Seat 1 balance: 990.00"), "{t}");
    assert!(t.contains("leaves the table with 990.00"), "{t}");
}
