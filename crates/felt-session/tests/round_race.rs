//! The round-id race: a round set up in memory expects the id the books give next;
//! another table may take it first, and the round is written under the next one. If
//! its first bet then fails, the round must not stay open with its setup step only
//! (`felt books` would report it open for ever, and a restart would resume it).
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

use felt_core::{presets, Action, Money};
use felt_session::dealing::{next_dealing, Seeds};
use felt_session::journal::{Ctx, Live, Stepped};
use felt_store::{RoundStatus, SqliteStore, Store};

fn ctx(table: &str) -> Ctx {
    let rules = presets::load("classic").unwrap().unwrap();
    Ctx::new(rules, "classic", table.to_string()).unwrap()
}

fn begin(store: &mut SqliteStore, ctx: &Ctx, player: &str) -> Live {
    let dealing =
        next_dealing(store, ctx, ctx.table.new_shoe(), &mut Seeds::Entropy, None).unwrap();
    Live::begin(store, ctx, dealing, &[player.to_string()], 1)
        .unwrap()
        .0
}

fn bet_ten() -> [Action; 1] {
    [Action::Bet {
        seat: 0,
        spot: 0,
        amount: Money::cents(10_00),
    }]
}

#[test]
fn a_first_bet_that_fails_after_the_round_was_written_leaves_no_round_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    store.deposit("ann", Money::cents(100_00)).unwrap();
    store.deposit("bob", Money::cents(100_00)).unwrap();
    let (c1, c2) = (ctx("online/t1"), ctx("online/t2"));
    // Both tables set a round up expecting the same id.
    let mut ann = begin(&mut store, &c1, "ann");
    let mut bob = begin(&mut store, &c2, "bob");
    assert_eq!(ann.id, bob.id);
    let expected = ann.id;
    // Bob bets first: his table takes the id.
    let s = bob
        .step_batch(&mut store, &c2, expected, "b-1", &bet_ten())
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");
    // Ann's wallet moves meanwhile (a cashier's withdrawal): 5.00 left.
    store.withdraw("ann", Money::cents(95_00)).unwrap();
    // Her bet of 10.00 is for the round her table announced: it opens under the next
    // id, and cannot be staked.
    let s = ann.step_batch(&mut store, &c1, expected, "a-1", &bet_ten());
    assert!(!matches!(s, Ok(Stepped::Done(_))), "the bet was staked");
    // Nothing of it stays open: only bob's round is.
    let open: Vec<_> = store
        .unfinished_rounds()
        .unwrap()
        .into_iter()
        .map(|r| (r.table_id, r.steps.len()))
        .collect();
    assert_eq!(open, [("online/t2".to_string(), 2)], "{open:?}");
    let ann_round = store
        .history(5)
        .unwrap()
        .into_iter()
        .find(|r| r.table_id == "online/t1");
    if let Some(r) = ann_round {
        assert_eq!(r.status, RoundStatus::Voided, "{r:?}");
        assert!(r.void_reason.unwrap_or_default().contains("first"));
    }
    assert_eq!(
        store.balance(&felt_store::Account::player("ann")).unwrap(),
        Money::cents(5_00)
    );
    assert!(store.check_books().unwrap().is_sound());
}

#[test]
fn a_table_resumes_its_newest_round_with_a_bet_and_voids_the_others() {
    use felt_session::recovery::{has_bet, pick};
    use felt_store::{NewRound, Step};
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    let mut open = |steps: usize| {
        let id = store
            .begin_round(&NewRound {
                game_id: "classic".into(),
                table_id: "online/t1".into(),
                seed: [steps as u8; 32],
                ..Default::default()
            })
            .unwrap();
        for _ in 0..steps {
            store.record_step(id, &Step::default()).unwrap();
        }
        id
    };
    let ids = [open(1), open(2), open(3), open(1), open(0)];
    let rounds = store.unfinished_rounds().unwrap();
    assert_eq!(rounds.iter().filter(|r| has_bet(r)).count(), 2);
    let (resume, void) = pick(rounds);
    assert_eq!(resume.map(|r| r.id), Some(ids[2]));
    let mut voided: Vec<_> = void
        .iter()
        .map(|(r, why)| (r.id, why.contains("before any bet")))
        .collect();
    voided.sort();
    assert_eq!(
        voided,
        [
            (ids[0], true),
            (ids[1], false),
            (ids[3], true),
            (ids[4], true)
        ]
    );
    assert!(void
        .iter()
        .any(|(_, why)| why.contains(&format!("round {}", ids[2]))));
}
