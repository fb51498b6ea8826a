//! The fuzz targets `engine_actions` and `rules_toml` as property tests, with a modest
//! number of cases so CI runs them on every change. They run the fuzz crate's own
//! driver (`fuzz/src/session.rs`, included here by path): any valid rules file (a
//! preset with fields edited), played one step at a time and automatically, legal and
//! illegal actions; after every step cards and cents are conserved, a refused action
//! changes nothing, and no seat's view depends on a hidden card (the round replayed
//! with the hole card and the undealt cards permuted shows the same views).

#[allow(dead_code)]
#[path = "../../../fuzz/src/session.rs"]
mod session;

use felt_core::presets::PRESETS;
use felt_core::Rules;
use proptest::prelude::*;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use session::{play_bytes, play_rules, rules_from, Src, Stats};

fn add(t: &mut Stats, s: Stats) {
    t.rounds += s.rounds;
    t.steps += s.steps;
    t.refused += s.refused;
    t.replays += s.replays;
    t.hole_replays += s.hole_replays;
    t.views_compared += s.views_compared;
    t.replays_skipped += s.replays_skipped;
    t.unbettable += s.unbettable;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// `engine_actions`: any bytes as a valid game and a session on it.
    #[test]
    fn c_10_c_11_any_valid_game_any_session(data in proptest::collection::vec(any::<u8>(), 0..700)) {
        let _ = play_bytes(&data);
    }

    /// `rules_toml`: a valid game written as a rules file reads back as the same game,
    /// and plays.
    #[test]
    fn c_11_accepted_rules_files_play(data in proptest::collection::vec(any::<u8>(), 0..40), seed: u64) {
        let rules = rules_from(&mut Src::new(&data));
        let text = toml::to_string(rules.spec()).expect("rules serialize to TOML");
        let read = Rules::from_toml(&text, "fuzz.toml").expect("a valid game's file is accepted");
        prop_assert_eq!(read.spec(), rules.spec());
        let _ = play_rules(&read, seed);
    }
}

/// Every preset file plays as the `rules_toml` target plays an accepted file.
#[test]
fn c_11_presets_play_as_accepted_files() {
    for (name, text) in PRESETS {
        let rules = Rules::from_toml(text, name).unwrap();
        for seed in 0..8 {
            let s = play_rules(&rules, seed).expect("a preset's table");
            assert!(s.rounds >= 3, "{name}: {s:?}");
        }
    }
}

/// The checks are not vacuous: over fixed inputs, rounds are replayed with another
/// hole card, views are compared, actions are refused.
#[test]
fn c_11_the_hidden_card_check_compares_views() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut total = Stats::default();
    for _ in 0..60 {
        let mut data = vec![0u8; 600];
        rng.fill_bytes(&mut data);
        if let Some(s) = play_bytes(&data) {
            add(&mut total, s);
        }
    }
    assert!(total.rounds > 200, "{total:?}");
    assert!(total.refused > 500, "{total:?}");
    assert!(total.replays > 100, "{total:?}");
    assert!(total.hole_replays > 40, "{total:?}");
    assert!(total.views_compared > 5000, "{total:?}");
}

/// Found by `engine_actions`: a bet of -1 cent on a new round was accepted (the
/// "no amount verified yet" sentinel is -1, and an amount equal to it skipped the
/// limit checks): the seat gained a cent and the felt held -1. Every amount at or
/// below zero is refused, main bet and side bet, and changes nothing.
#[test]
fn c_10_a_bet_at_or_below_zero_is_refused_on_a_new_round() {
    use felt_core::{Action, MemoryMeters, Money, Table};
    for (name, text) in PRESETS {
        let rules = Rules::from_toml(text, name).unwrap();
        let table = Table::new(&rules).unwrap();
        for amount in [Money(-1), Money(0), Money(i64::MIN)] {
            let rng = <rand_chacha::ChaCha20Rng as SeedableRng>::seed_from_u64(1);
            let mut round = table
                .round(table.new_shoe(), rng, &[Money(100_000)])
                .unwrap();
            let mut meters = MemoryMeters::for_table(&table);
            round.begin(&mut Vec::new()).unwrap();
            let before = round.clone();
            let bet = Action::Bet {
                seat: 0,
                spot: 0,
                amount,
            };
            assert!(
                round.apply(bet, &mut meters, &mut Vec::new()).is_err(),
                "{name} {amount:?}"
            );
            assert!(round == before);
            if table.side_bets().is_empty() {
                continue;
            }
            let bet = Action::Bet {
                seat: 0,
                spot: 0,
                amount: rules.main_bet().min,
            };
            round.apply(bet, &mut meters, &mut Vec::new()).unwrap();
            let before = round.clone();
            let side = Action::SideBet {
                seat: 0,
                spot: 0,
                bet: 0,
                amount,
            };
            assert!(
                round.apply(side, &mut meters, &mut Vec::new()).is_err(),
                "{name} {amount:?}"
            );
            assert!(round == before);
        }
    }
}
