//! A round's end counts what each player staked and got back against their limits in
//! the books' transaction that ends it (issue 26 item 1): a crash after the round is
//! written cannot lose its usage.

use felt_core::{card, presets, Action, Money, Shoe};
use felt_session::dealing::{next_dealing, Seeds};
use felt_session::journal::{Ctx, Live, Stepped};
use felt_store::{SqliteStore, Store, UsageTotals};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// Plays ann's 10.00 bet on 10 6 against a dealer 9 (a ten in the hole), the hand
/// timed out (it stands): lost.
fn play_a_lost_round(usage_clock: Option<i64>) -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(dir.path().join("felt.db")).unwrap();
    store.deposit("ann", Money::cents(100_000)).unwrap();
    let rules = presets::load("classic").unwrap().unwrap();
    let ctx = Ctx::new(rules, "classic", "classic/ann".to_string()).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let cards = card::parse_cards("Tc 9d 6h Ts").unwrap();
    let stacked = Shoe::stacked(6, &cards, &mut rng).unwrap();
    let mut seeds = Seeds::Lab {
        rng: Box::new(rng),
        mark: "test".to_string(),
    };
    let dealing = next_dealing(
        &store,
        &ctx,
        ctx.table.new_shoe(),
        &mut seeds,
        Some(stacked),
    )
    .unwrap();
    let mut live = Live::begin(&mut store, &ctx, dealing, &["ann".to_string()], 1)
        .unwrap()
        .0;
    live.usage_clock = usage_clock.map(|at| Arc::new(move || at) as _);
    let bet = Action::Bet {
        seat: 0,
        spot: 0,
        amount: Money::cents(10_00),
    };
    for a in [bet, Action::Deal, Action::Timeout { seat: 0, at: None }] {
        let s = live.step(&mut store, &ctx, Some(a)).unwrap();
        assert!(matches!(s, Stepped::Done(_)), "{s}");
    }
    assert!(live.is_done());
    (dir, store)
}

#[test]
fn the_step_that_ends_a_round_counts_its_usage_at_the_clock_given() {
    let (_dir, store) = play_a_lost_round(Some(42_000));
    let lost = UsageTotals {
        staked: 10_00,
        ..Default::default()
    };
    assert_eq!(store.usage_since("ann", 42_000).unwrap(), lost);
    assert_eq!(
        store.usage_since("ann", 42_001).unwrap(),
        UsageTotals::default()
    );
    // Without a clock nothing is counted (a replay, a tool).
    let (_dir, store) = play_a_lost_round(None);
    assert_eq!(store.usage_since("ann", 0).unwrap(), UsageTotals::default());
}
