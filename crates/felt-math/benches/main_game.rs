//! Benchmarks of the exact main-game analysis.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use felt_math::main_game::{analyse, MainGameRules, Surrender};

fn full_analysis(c: &mut Criterion) {
    let six = MainGameRules::default();
    c.bench_function("main_game_analyse_6d_h17_das_rsp4_ls", |b| {
        b.iter(|| analyse(black_box(&six)).map(|a| a.ev_cd))
    });
    let one = MainGameRules {
        decks: 1,
        dealer_hits_soft_17: false,
        double_after_split: false,
        max_split_hands: 2,
        surrender: Surrender::None,
        ..MainGameRules::default()
    };
    c.bench_function("main_game_analyse_1d_s17_nodas_spl1", |b| {
        b.iter(|| analyse(black_box(&one)).map(|a| a.ev_cd))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = full_analysis
}
criterion_main!(benches);
