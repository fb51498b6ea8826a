//! Player names that look the same are one wallet, or are refused: the books keep a
//! name's canonical form (Unicode NFKC, whitespace trimmed and runs of it made one
//! space) and refuse invisible and control characters, naming the character.

use crate::{c, Books};
use felt_core::Money;
use felt_store::{Account, HeldSeats, Movement, MovementKind, NewRound, Step, StoreError};

fn players(s: &Books) -> Vec<(String, Money)> {
    s.balances()
        .unwrap()
        .into_iter()
        .filter_map(|b| match b.account {
            Account::Player(n) => Some((n, b.balance)),
            _ => None,
        })
        .collect()
}

pub fn names_that_look_the_same_are_one_wallet(s: &mut Books) {
    for name in [
        "alice",
        "alice ",
        " alice",
        "alice\u{a0}",     // no-break space
        "\u{3000}alice\t", // ideographic space, tab
        "\u{ff41}lice",    // fullwidth a
    ] {
        s.deposit(name, c(1_00)).unwrap();
    }
    // Through a movement built by hand, and a round's step, too.
    s.post(&[Movement::new(
        Account::Cashier,
        Account::player("alice\u{2002}"), // en space
        c(1_00),
        MovementKind::Deposit,
    )])
    .unwrap();
    let round = s
        .begin_round(&NewRound {
            game_id: "classic".into(),
            table_id: "classic/alice".into(),
            seed: [1; 32],
            shoe: None,
            ..Default::default()
        })
        .unwrap();
    s.record_step(
        round,
        &Step {
            action: Some("{}".into()),
            events: vec![],
            movements: vec![Movement::new(
                Account::player(" alice "),
                Account::felt("classic/alice"),
                c(2_00),
                MovementKind::Wager,
            )],
            wallet: Vec::new(),
        },
    )
    .unwrap();
    assert_eq!(players(s), vec![("alice".to_string(), c(5_00))]);
    assert_eq!(s.balance(&Account::player("alice\u{a0}")).unwrap(), c(5_00));
    let rec = s.round(round).unwrap().unwrap();
    assert_eq!(rec.movements[0].movement.from, Account::player("alice"));
    assert!(s.check_books().unwrap().is_sound());
    // Inner whitespace: a run is one space. Case is kept: "Alice" is another wallet.
    s.deposit("mary  ann", c(1_00)).unwrap();
    s.deposit("mary\u{a0}ann", c(1_00)).unwrap();
    s.deposit("Alice", c(1_00)).unwrap();
    assert_eq!(
        players(s),
        vec![
            ("Alice".to_string(), c(1_00)),
            ("alice".to_string(), c(5_00)),
            ("mary ann".to_string(), c(2_00)),
        ]
    );
}

pub fn invisible_and_control_characters_are_refused_naming_them(s: &mut Books) {
    s.deposit("alice", c(1_00)).unwrap();
    let before = s.balances().unwrap();
    for (name, says) in [
        ("ali\u{200b}ce", "U+200B ZERO WIDTH SPACE at position 4"),
        ("alice\u{200b}", "U+200B ZERO WIDTH SPACE at position 6"),
        (
            "al\u{200c}ice",
            "U+200C ZERO WIDTH NON-JOINER at position 3",
        ),
        ("al\u{200d}ice", "U+200D ZERO WIDTH JOINER at position 3"),
        (
            "\u{202e}ecila",
            "U+202E RIGHT-TO-LEFT OVERRIDE at position 1",
        ),
        (
            "alice\u{2066}",
            "U+2066 LEFT-TO-RIGHT ISOLATE at position 6",
        ),
        ("\u{200f}alice", "U+200F RIGHT-TO-LEFT MARK at position 1"),
        (
            "\u{feff}alice",
            "U+FEFF ZERO WIDTH NO-BREAK SPACE at position 1",
        ),
        ("ali\u{ad}ce", "U+00AD SOFT HYPHEN at position 4"),
        ("alice\u{e0041}", "U+E0041"),
        ("al\u{7}ice", "U+0007 (a control character) at position 3"),
        ("al\u{1b}[31mice", "U+001B ESCAPE at position 3"),
        ("alice\u{0}", "U+0000"),
        ("\u{200b}", "U+200B ZERO WIDTH SPACE at position 1"),
    ] {
        let e = s.deposit(name, c(1_00)).unwrap_err();
        assert!(matches!(e, StoreError::InvalidName { .. }), "{name:?}: {e}");
        let msg = e.to_string();
        assert!(msg.contains(says), "{name:?}: `{says}` missing in: {msg}");
        assert!(msg.contains("player name"), "{msg}");
        // And a read by that name is refused the same way, not answered with zero.
        assert!(s.balance(&Account::player(name)).is_err(), "{name:?}");
    }
    for name in ["", "   ", "\u{a0}\u{3000}"] {
        let e = s.deposit(name, c(1_00)).unwrap_err();
        assert!(e.to_string().contains("cannot be empty"), "{name:?}: {e}");
    }
    let e = s.deposit(&"a".repeat(201), c(1_00)).unwrap_err();
    assert!(e.to_string().contains("at most 200 bytes"), "{e}");
    assert_eq!(s.balances().unwrap(), before, "nothing was written");
}

pub fn ids_must_be_given_in_their_canonical_form(s: &mut Books) {
    let round = |table: &str| NewRound {
        game_id: "classic".into(),
        table_id: table.into(),
        seed: [1; 32],
        shoe: None,
        ..Default::default()
    };
    let e = s.begin_round(&round("t1 ")).unwrap_err();
    assert!(
        e.to_string().contains("table name") && e.to_string().contains("\"t1\""),
        "{e}"
    );
    let e = s.begin_round(&round("t\u{200b}1")).unwrap_err();
    assert!(e.to_string().contains("U+200B"), "{e}");
    let e = s
        .create_meter("blazing\u{a0}", c(10_00), &Account::house("op"))
        .unwrap_err();
    assert!(e.to_string().contains("meter name"), "{e}");
    assert!(s.history(10).unwrap().is_empty());
    assert!(s.meters().unwrap().is_empty());
}

/// A seat is a wallet: held by the canonical name, whatever holds the books.
pub fn a_seat_is_held_by_the_canonical_name(s: &mut Books) {
    let at = s.at().clone();
    let held = HeldSeats::acquire(&at, &["alice".to_string()]).unwrap();
    for other in ["alice ", "alice\u{a0}", "\u{ff41}lice"] {
        let e = HeldSeats::acquire(&at, &[other.to_string()]).unwrap_err();
        assert!(
            matches!(&e, StoreError::SeatInUse { player, pid, .. }
                if player == "alice" && *pid == Some(std::process::id())),
            "{other:?}: {e}"
        );
        let said = e.to_string();
        assert!(
            said.contains(&format!("seat at the books {at} is in use")),
            "{said}"
        );
    }
    let e = HeldSeats::acquire(&at, &["ali\u{200b}ce".to_string()]).unwrap_err();
    assert!(matches!(e, StoreError::InvalidName { .. }), "{e}");
    // Another player sits; once the first session ends, alice's seat is free.
    let bob = HeldSeats::acquire(&at, &["bob".to_string(), "bob ".to_string()]).unwrap();
    assert_eq!(bob.len(), 1);
    drop(held);
    assert_eq!(
        HeldSeats::acquire(&at, &["alice".to_string()])
            .unwrap()
            .len(),
        1
    );
}
