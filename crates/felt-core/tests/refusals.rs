//! C-10: a bet of any amount outside the limits is refused on a fresh round too,
//! whatever amount checks the engine skips for an amount it has already checked.

use felt_core::{presets, Action, MemoryMeters, Money, NoopSink, Table};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn fresh(name: &str) -> (Table, felt_core::Round<ChaCha20Rng>, MemoryMeters) {
    let rules = presets::load(name).unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let shoe = table.new_shoe();
    let mut round = table
        .round(
            shoe,
            ChaCha20Rng::seed_from_u64(7),
            &[Money::cents(100_000)],
        )
        .unwrap();
    round.begin(&mut NoopSink).unwrap();
    let meters = MemoryMeters::for_table(&table);
    (table, round, meters)
}

#[test]
fn c_10_a_negative_or_zero_main_bet_is_refused_on_a_fresh_round() {
    for cents in [-1, 0, -100] {
        let (_, mut round, mut meters) = fresh("classic");
        let before = round.clone();
        let bet = Action::Bet {
            seat: 0,
            spot: 0,
            amount: Money::cents(cents),
        };
        assert!(
            round.apply(bet, &mut meters, &mut NoopSink).is_err(),
            "{cents} cents accepted"
        );
        assert!(round == before, "{cents}: a refused bet changed the round");
    }
}

#[test]
fn c_10_a_negative_or_zero_side_bet_is_refused_on_a_fresh_round() {
    for cents in [-1, 0, -100] {
        let (table, mut round, mut meters) = fresh("blackjack-bonus");
        let main = table.rules().main_bet().min;
        let bet = Action::Bet {
            seat: 0,
            spot: 0,
            amount: main,
        };
        round.apply(bet, &mut meters, &mut NoopSink).unwrap();
        let before = round.clone();
        let side = Action::SideBet {
            seat: 0,
            spot: 0,
            bet: 1,
            amount: Money::cents(cents),
        };
        assert!(
            round.apply(side, &mut meters, &mut NoopSink).is_err(),
            "{cents} cents accepted"
        );
        assert!(
            round == before,
            "{cents}: a refused side bet changed the round"
        );
    }
}
