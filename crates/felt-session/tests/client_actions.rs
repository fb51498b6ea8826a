//! A client's actions through the session layer: an action names its round and carries
//! the client's id; a late one (another round) or a retried one (an id already
//! applied) changes nothing, and a resumed round still knows the ids it applied.

use felt_core::round::HandRef;
use felt_core::{card, presets, Action, Decision, Money, Shoe};
use felt_session::dealing::{next_dealing, Seeds};
use felt_session::journal::{replay, Ctx, Live, Stepped};
use felt_store::{Account, RoundId, SqliteStore, Store};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn table() -> (tempfile::TempDir, SqliteStore, Ctx) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    store.deposit("ann", Money::cents(100_000)).unwrap();
    let rules = presets::load("classic").unwrap().unwrap();
    let ctx = Ctx::new(rules, "classic", "classic/ann".to_string()).unwrap();
    (dir, store, ctx)
}

/// A round on a stacked shoe: ann 10 6 against a dealer 9 (a ten in the hole).
fn begin(store: &mut SqliteStore, ctx: &Ctx) -> Live {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let stacked = Shoe::stacked(6, &card::parse_cards("Tc 9d 6h Ts").unwrap(), &mut rng).unwrap();
    let mut seeds = Seeds::Lab {
        rng: Box::new(rng),
        mark: "test".to_string(),
    };
    let dealing =
        next_dealing(store, ctx, ctx.table.new_shoe(), &mut seeds, Some(stacked)).unwrap();
    Live::begin(store, ctx, dealing, &["ann".to_string()], 1)
        .unwrap()
        .0
}

/// Ann's 10.00 main bet.
fn bet_ten() -> Action {
    Action::Bet {
        seat: 0,
        spot: 0,
        amount: Money::cents(10_00),
    }
}

fn balance(store: &SqliteStore) -> Money {
    store.balance(&Account::player("ann")).unwrap()
}

#[test]
fn a_late_or_retried_client_action_changes_nothing_and_a_resumed_round_knows_its_ids() {
    let (_dir, mut store, ctx) = table();
    let mut live = begin(&mut store, &ctx);
    let round = live.id;
    let bet = bet_ten();
    // For another round: refused, nothing written.
    let late = live
        .step_client(&mut store, &ctx, RoundId(round.0 + 7), "b1", bet)
        .unwrap();
    assert!(matches!(late, Stepped::OtherRound { .. }), "{late}");
    assert!(live.is_pending());
    for bad in ["", "with space", &"x".repeat(65)] {
        let s = live.step_client(&mut store, &ctx, round, bad, bet).unwrap();
        assert!(matches!(s, Stepped::BadActionId), "{bad:?}: {s}");
    }
    let s = live
        .step_client(&mut store, &ctx, round, "b1", bet)
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");
    assert_eq!(balance(&store), Money::cents(99_000));
    // The same id again (a retry): not applied twice.
    let again = live
        .step_client(&mut store, &ctx, round, "b1", bet)
        .unwrap();
    assert!(matches!(again, Stepped::AlreadyApplied), "{again}");
    assert_eq!(balance(&store), Money::cents(99_000));
    let s = live
        .step_client(&mut store, &ctx, round, "d1", Action::Deal)
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");

    // The round as the books hold it: its replay knows the ids, and a round resumed
    // from it refuses them again.
    let rec = store.round(round).unwrap().unwrap();
    let r = replay(&ctx, &rec).unwrap();
    assert!(r.differences.is_empty(), "{:?}", r.differences);
    assert_eq!(r.client_ids, ["b1", "d1"]);
    let mut resumed =
        Live::resumed(round, r.engine.unwrap(), r.setup.unwrap()).with_applied(r.client_ids);
    let stand = Action::Play {
        seat: 0,
        at: Some(HandRef { spot: 0, hand: 0 }),
        decision: Decision::Stand,
    };
    let s = resumed
        .step_client(&mut store, &ctx, round, "d1", stand)
        .unwrap();
    assert!(matches!(s, Stepped::AlreadyApplied), "{s}");
    let s = resumed
        .step_client(&mut store, &ctx, round, "s1", stand)
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");
    assert!(resumed.is_done());
    // 16 against 19: the bet is lost, once.
    assert_eq!(balance(&store), Money::cents(99_000));
    assert!(store.check_books().unwrap().is_sound());
}

#[test]
fn a_round_with_a_timeout_replays_byte_for_byte() {
    let (_dir, mut store, ctx) = table();
    let mut live = begin(&mut store, &ctx);
    let round = live.id;
    let bet = bet_ten();
    for a in [bet, Action::Deal, Action::Timeout { seat: 0, at: None }] {
        let s = live.step(&mut store, &ctx, Some(a)).unwrap();
        assert!(matches!(s, Stepped::Done(_)), "{s}");
    }
    assert!(
        live.is_done(),
        "the timed-out hand stood and the round ended"
    );
    let rec = store.round(round).unwrap().unwrap();
    assert!(rec.events.iter().any(|e| e.json.contains("\"timed-out\"")));
    let r = replay(&ctx, &rec).unwrap();
    assert!(r.differences.is_empty(), "{:?}", r.differences);
    assert_eq!(r.steps, rec.steps.len());
}

#[test]
fn a_batch_of_bets_is_applied_whole_or_not_at_all_once_and_replays() {
    let (_dir, mut store, ctx) = table();
    let mut live = begin(&mut store, &ctx);
    let round = live.id;
    let over_limit = Action::Bet {
        seat: 0,
        spot: 1,
        amount: Money::cents(100_000_000),
    };
    // The second bet is refused: the first is not placed either, nothing is written.
    let s = live
        .step_batch(&mut store, &ctx, round, "b1", &[bet_ten(), over_limit])
        .unwrap();
    assert!(matches!(s, Stepped::Refused(_)), "{s}");
    assert_eq!(balance(&store), Money::cents(100_000));
    assert!(
        store.round(round).unwrap().is_none(),
        "a refused first batch opens nothing"
    );
    assert!(matches!(
        live.step_batch(&mut store, &ctx, round, "b0", &[]).unwrap(),
        Stepped::BadBatch
    ));
    let two = [
        bet_ten(),
        Action::Bet {
            seat: 0,
            spot: 0,
            amount: Money::cents(5_00),
        },
    ];
    // Two bets on one spot: the engine refuses the second, so neither stands.
    assert!(matches!(
        live.step_batch(&mut store, &ctx, round, "b2", &two)
            .unwrap(),
        Stepped::Refused(_)
    ));
    let s = live
        .step_batch(&mut store, &ctx, round, "b3", &[bet_ten()])
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");
    assert_eq!(balance(&store), Money::cents(99_000));
    // The same id again: not applied twice.
    assert!(matches!(
        live.step_batch(&mut store, &ctx, round, "b3", &[bet_ten()])
            .unwrap(),
        Stepped::AlreadyApplied
    ));
    assert_eq!(balance(&store), Money::cents(99_000));
    let rec = store.round(round).unwrap().unwrap();
    let r = replay(&ctx, &rec).unwrap();
    assert!(r.differences.is_empty(), "{:?}", r.differences);
    assert_eq!(r.client_ids, ["b3"]);
}

#[test]
fn an_action_the_books_cannot_fund_is_refused_and_leaves_the_round_as_it_was() {
    let (_dir, mut store, ctx) = table();
    let mut live = begin(&mut store, &ctx);
    let round = live.id;
    // Ann's first bet opens the round; then her wallet is emptied behind the round's
    // back (set up with 1000.00): the engine would let her double, the books cannot.
    live.step_client(&mut store, &ctx, round, "b1", bet_ten())
        .unwrap();
    live.step(&mut store, &ctx, Some(Action::Deal)).unwrap();
    store.withdraw("ann", balance(&store)).unwrap();
    let before = live.engine.clone();
    let double = Action::Play {
        seat: 0,
        at: Some(HandRef { spot: 0, hand: 0 }),
        decision: Decision::Double(Money::cents(10_00)),
    };
    let s = live
        .step_client(&mut store, &ctx, round, "d1", double)
        .unwrap();
    assert!(
        matches!(s, Stepped::Unfunded { balance, amount } if balance == Money::ZERO && amount == Money::cents(10_00)),
        "{s}"
    );
    assert_eq!(live.engine.view(0), before.view(0));
    // The id was not used up, and the hand plays on: a stand is taken and written.
    let stand = Action::Play {
        seat: 0,
        at: Some(HandRef { spot: 0, hand: 0 }),
        decision: Decision::Stand,
    };
    let s = live
        .step_client(&mut store, &ctx, round, "d1", stand)
        .unwrap();
    assert!(matches!(s, Stepped::Done(_)), "{s}");
    assert!(live.is_done());
    let rec = store.round(round).unwrap().unwrap();
    let replayed = replay(&ctx, &rec).unwrap();
    assert!(
        replayed.differences.is_empty(),
        "{:?}",
        replayed.differences
    );
    assert!(store.check_books().unwrap().is_sound());
}
