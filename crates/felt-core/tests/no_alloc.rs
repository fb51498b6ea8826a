//! The automated path allocates nothing per round or per card: the heap blocks
//! allocated over many rounds do not grow with the number of rounds (issue 2, item 5;
//! the simulator plays billions of rounds through this path). Every preset, every
//! spot of three seats, every side bet on, progressive meters included.
//!
//! dhat's heap profiler counts every allocation of the process, so this file is its own
//! program (`harness = false` in Cargo.toml): libtest's main thread allocates a few
//! blocks of its own when a test runs long on a busy machine, which made the count
//! flaky under load. `cargo test` runs it; a failure panics and exits non-zero.

mod common;

use common::bet_every_spot;
use felt_core::round::Decisions;
use felt_core::{presets, Decision, DecisionContext, MemoryMeters, Money, NoopSink, Round, Table};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Hit below 17, split pairs, double on 10 and 11, never insure.
fn simple(c: &DecisionContext<'_>) -> Decision {
    let d = c.legal.decisions;
    if d.contains(Decisions::DECLINE) {
        Decision::Decline
    } else if d.contains(Decisions::SPLIT) {
        Decision::Split
    } else if (c.total == 10 || c.total == 11) && d.contains(Decisions::DOUBLE) {
        Decision::Double(c.legal.double.map_or(c.stake, |r| r.full))
    } else if c.total < 17 && d.contains(Decisions::HIT) {
        Decision::Hit
    } else {
        Decision::Stand
    }
}

/// `n` rounds with every bet on every spot.
fn play(round: &mut Round<ChaCha8Rng>, meters: &mut MemoryMeters, n: usize) {
    for _ in 0..n {
        round.begin(&mut NoopSink).unwrap();
        bet_every_spot(round, meters, &mut NoopSink, 3);
        round.play_auto(&mut simple, meters, &mut NoopSink).unwrap();
    }
}

fn main() {
    automated_rounds_allocate_nothing_per_round_or_card();
    println!("test automated_rounds_allocate_nothing_per_round_or_card ... ok");
}

fn automated_rounds_allocate_nothing_per_round_or_card() {
    let _profiler = dhat::Profiler::builder().testing().build();
    for game in presets::names() {
        let rules = presets::load(game).unwrap().unwrap();
        let table = Table::new(&rules).unwrap();
        let balances = [Money(1_000_000_000_000); 3];
        let mut round = table
            .round(table.new_shoe(), ChaCha8Rng::seed_from_u64(3), &balances)
            .unwrap();
        let mut meters = MemoryMeters::for_table(&table);
        // Warm up: the first shuffle, the first split, the first meter award.
        play(&mut round, &mut meters, 2_000);
        let before = dhat::HeapStats::get();
        play(&mut round, &mut meters, 20_000);
        let after = dhat::HeapStats::get();
        assert_eq!(
            after.total_blocks,
            before.total_blocks,
            "{game}: {} heap blocks allocated in 20,000 rounds",
            after.total_blocks - before.total_blocks
        );
        assert!(round.number() == 22_000, "{game}: every round was played");
    }
}
