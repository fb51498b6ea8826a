//! Exact side-bet analysis: every side bet of every preset, 1 to 8 decks.

use criterion::Criterion;
use felt_core::presets;
use felt_core::Rules;
use felt_math::sidebet::analyse_all;
use std::hint::black_box;

fn all_presets(c: &mut Criterion) {
    let games: Vec<Rules> = presets::names()
        .filter_map(|n| presets::load(n).and_then(Result::ok))
        .collect();
    c.bench_function("all presets x 1..8 decks", |b| {
        b.iter(|| {
            let mut n = 0;
            for rules in &games {
                for decks in 1..=8 {
                    n += analyse_all(black_box(rules), decks, None)
                        .map(|v| v.len())
                        .unwrap_or(0);
                }
            }
            n
        })
    });
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    all_presets(&mut c);
    c.final_summary();
}
