//! Benchmarks of the exact main-game analysis.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use felt_math::main_game::{analyse, MainGameRules, PostSplit, Surrender};

fn full_analysis(c: &mut Criterion) {
    // the exact par sheet of 6 decks H17 DAS RSP4 LS under each post-split model
    // (docs/analysis.md, "Speed"): CDZ- keeps the bench's first name
    for post in PostSplit::ALL {
        let six = MainGameRules {
            post_split: post,
            ..MainGameRules::default()
        };
        let name = match post {
            PostSplit::Cdz => "main_game_analyse_6d_h17_das_rsp4_ls".to_string(),
            _ => format!(
                "main_game_analyse_6d_h17_das_rsp4_ls_{}",
                post.name().to_lowercase()
            ),
        };
        c.bench_function(&name, |b| {
            b.iter(|| analyse(black_box(&six)).map(|a| a.ev_cd))
        });
    }
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
