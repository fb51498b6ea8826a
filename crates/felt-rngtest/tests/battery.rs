//! The battery on felt's own dealing path passes, and on every source with a planted
//! bias fails, at a size CI runs in seconds. Seeds are fixed (a lab's `--seed`), so
//! each verdict is the same on every run.

use felt_rngtest::source::{self, Planted};
use felt_rngtest::{Battery, Report};
use felt_session::dealing::Seeds;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Shoes a report reads: the default of `felt rng-test`.
const SHUFFLES: u64 = 10_000;

fn lab(seed: u64) -> Seeds {
    Seeds::Lab {
        rng: Box::new(ChaCha20Rng::seed_from_u64(seed)),
        mark: format!("--seed {seed}"),
    }
}

fn dealt(decks: u8, seed: u64) -> Report {
    let mut b = Battery::new(decks);
    source::deal(&mut b, &mut lab(seed), SHUFFLES).unwrap();
    b.finish()
}

fn planted(decks: u8, p: Planted) -> Report {
    let mut b = Battery::new(decks);
    source::plant(&mut b, p, SHUFFLES, 11).unwrap();
    b.finish()
}

fn rejected(r: &Report) -> Vec<&str> {
    r.tests
        .iter()
        .filter(|t| t.rejected_in_family)
        .map(|t| t.name.as_str())
        .collect()
}

#[test]
fn felts_dealing_path_passes_every_test_of_the_battery() {
    for (decks, seed) in [(6, 1), (1, 2), (8, 3)] {
        let r = dealt(decks, seed);
        assert_eq!(r.shoes, SHUFFLES);
        assert_eq!(r.seeds, SHUFFLES);
        // 52 cards + the table + 3 pairs + 3 lags + 2 runs + 2 first-card tests + the
        // permutation tests (one more off a one-deck game when decks > 1) + 3 seed tests.
        let permutations = if decks == 1 { 1 } else { 2 };
        assert_eq!(r.tests.len(), 52 + 1 + 3 + 3 + 2 + 3 + permutations + 3);
        assert!(r.passes, "{decks} decks: rejected {:?}", rejected(&r));
        // About 1% of the tests fail alone by chance: not many more.
        assert!(r.failed_alone <= 4, "{}", r.text());
        assert!(r
            .tests
            .iter()
            .all(|t| t.p_value.is_finite() && (0.0..=1.0).contains(&t.p_value)));
    }
}

#[test]
fn the_naive_swap_shuffle_is_rejected_by_the_position_tests() {
    for decks in [1, 6] {
        let r = planted(decks, Planted::NaiveSwap);
        assert!(!r.passes);
        let names = rejected(&r);
        assert!(names.contains(&"position/all"), "{decks} decks: {names:?}");
    }
}

#[test]
fn a_small_bias_on_the_first_card_is_rejected() {
    let r = planted(6, Planted::TenOffTop);
    assert!(!r.passes, "{}", r.text());
    // The bias is at the top only: the position tests of the whole shoe pass.
    assert!(!rejected(&r).contains(&"position/all"));
    let names = rejected(&r);
    assert!(names.iter().any(|n| n.starts_with("first-")), "{names:?}");
    // It leaves the rest of the shoe random: the seed stream is not even tested.
    assert_eq!(r.seeds, 0);
}

#[test]
fn a_biased_seed_stream_is_rejected_though_its_shoes_look_random() {
    let r = planted(6, Planted::BiasedSeeds);
    assert!(!r.passes);
    let names = rejected(&r);
    assert!(
        names.contains(&"seed/bits") && names.contains(&"seed/bytes"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.starts_with("seed/")), "{names:?}");
}

#[test]
fn recorded_shoes_are_read_one_a_line_and_a_bad_line_is_named() {
    let mut shoes = String::from("# two one-deck shoes\n\n");
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for _ in 0..2 {
        let seed: [u8; 32] = rand::Rng::gen(&mut rng);
        shoes.push_str(&source::shoe_line(&felt_session::dealing::shoe_order(
            1, &seed,
        )));
        shoes.push('\n');
    }
    let mut b = Battery::new(1);
    source::read_shoes(&mut b, &shoes).unwrap();
    assert_eq!(b.shoes(), 2);
    let short = format!("{shoes}Ah Kd\n");
    let mut b = Battery::new(1);
    let e = source::read_shoes(&mut b, &short).unwrap_err();
    assert_eq!(e.line, 5);
    assert!(e.reason.contains("2 cards"), "{e}");
    let mut b = Battery::new(1);
    let e = source::read_shoes(&mut b, "Ah Zz\n").unwrap_err();
    assert_eq!(e.line, 1);
}
