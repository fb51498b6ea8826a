//! Rounds through the real engine, one thread: the blackjack-bonus preset, main bet
//! only, penetration 0.75, basic strategy, one spot. One iteration plays one chunk
//! (65,536 rounds, a fresh shoe) through `Simulator::run`, so the figure includes the
//! strategy lookups, the tally of the settlement events and the chunk's set-up; the
//! analysis and the strategy compilation are done once, outside the loop.
#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use felt_core::presets;
use felt_sim::{SimOptions, Simulator, CHUNK_ROUNDS};
use std::hint::black_box;

fn sim(c: &mut Criterion) {
    let rules = presets::load("blackjack-bonus").unwrap().unwrap();
    let opts = SimOptions {
        rounds: CHUNK_ROUNDS,
        seed: Some(1),
        threads: 1,
        main_only: true,
        penetration: Some(0.75),
        ..SimOptions::default()
    };
    let s = Simulator::new(&rules, &opts).unwrap();
    let mut g = c.benchmark_group("sim");
    g.throughput(Throughput::Elements(CHUNK_ROUNDS));
    g.sample_size(20);
    g.bench_function("blackjack_bonus_main_only_one_thread", |b| {
        b.iter(|| black_box(s.run().unwrap().main.summary.net))
    });
    let with_sides = Simulator::new(
        &rules,
        &SimOptions {
            main_only: false,
            ..opts.clone()
        },
    )
    .unwrap();
    g.bench_function("blackjack_bonus_with_side_bets_one_thread", |b| {
        b.iter(|| black_box(with_sides.run().unwrap().main.summary.net))
    });
    g.finish();
}

criterion_group!(benches, sim);
criterion_main!(benches);
