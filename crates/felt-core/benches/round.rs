//! Whole rounds through the engine: one spot, six decks, dealing and dealer play
//! automated, a fixed simple strategy (hit below 17, stand otherwise), no-op sink.
#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use felt_core::round::Decisions;
use felt_core::{presets, Action, Decision, DecisionContext, Money, NoMeters, NoopSink, Table};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn simple(c: &DecisionContext<'_>) -> Decision {
    if c.legal.decisions.contains(Decisions::DECLINE) {
        Decision::Decline
    } else if c.total < 17 && c.legal.decisions.contains(Decisions::HIT) {
        Decision::Hit
    } else {
        Decision::Stand
    }
}

fn rounds(c: &mut Criterion) {
    let rules = presets::load("classic").unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(1),
            &[Money(1_000_000_000_000_000)],
        )
        .unwrap();
    let bet = Action::Bet {
        seat: 0,
        spot: 0,
        amount: rules.main_bet().min,
    };
    let mut g = c.benchmark_group("round");
    g.throughput(Throughput::Elements(1));
    g.bench_function("classic_one_spot_hit_to_17", |b| {
        b.iter(|| {
            round.begin(&mut NoopSink).unwrap();
            round.apply(bet, &mut NoMeters, &mut NoopSink).unwrap();
            round
                .play_auto(&mut simple, &mut NoMeters, &mut NoopSink)
                .unwrap();
            black_box(round.balance(0))
        })
    });
    g.finish();
}

criterion_group!(benches, rounds);
criterion_main!(benches);
