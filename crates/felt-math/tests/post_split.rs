//! The three post-split models of the composition-dependent figures (CDZ-, CDP1,
//! CDP; docs/analysis.md): Eric Farmer's figures, the order they come in for every
//! preset and deck count, and what holds by definition without resplits.

use felt_core::presets;
use felt_math::exact::ExactInput;
use felt_math::main_game::{
    analyse, analyse_shoe, MainGameRules, PostSplit, Shoe, Surrender, MAX_SPLIT_HANDS,
};
use felt_math::mapping::main_game_rules;
use felt_math::parsheet::par_sheet_for;

fn with(rules: &MainGameRules, post_split: PostSplit) -> MainGameRules {
    MainGameRules {
        post_split,
        ..rules.clone()
    }
}

fn ev(rules: &MainGameRules, post: PostSplit) -> f64 {
    analyse(&with(rules, post)).unwrap().ev_cd
}

/// 6 decks, H17, double any two, DAS, resplit to four hands (not aces), late
/// surrender, 3:2: Farmer's `strategy` program (possibly-wrong/blackjack at commit
/// a1f7dbb, src/strategy.cpp, built here with g++ -O2) answers these overall expected
/// values in percent (its output file's "Total" line) to the input
/// "6 y y y n y y n y y 1.5" (CDZ-), "6 y y y n y y n n y y 1.5" (CDP1) and
/// "6 y y y n y y n n n y 1.5" (CDP):
///   CDZ-  Total |   -0.527191547
///   CDP1  Total |   -0.527191547
///   CDP   Total |   -0.527189519
const FARMER_6D_H17_DAS_SPL3_LS: [(PostSplit, f64); 3] = [
    (PostSplit::Cdz, -0.527191547),
    (PostSplit::Cdp1, -0.527191547),
    (PostSplit::Cdp, -0.527189519),
];

#[test]
fn six_deck_h17_das_rsp4_ls_matches_farmers_program_in_every_model() {
    let rules = MainGameRules::default();
    for (post, want) in FARMER_6D_H17_DAS_SPL3_LS {
        let got = ev(&rules, post) * 100.0;
        assert!(
            (got - want).abs() < 5e-9,
            "{}: {got:.9}% against Farmer's {want:.9}%",
            post.name()
        );
    }
}

#[test]
fn without_resplits_cdp1_and_cdp_agree_and_gain_on_cdz() {
    for decks in [1, 2, 6] {
        let rules = MainGameRules {
            decks,
            max_split_hands: 2,
            ..MainGameRules::default()
        };
        let a = analyse(&with(&rules, PostSplit::Cdz)).unwrap();
        let b = analyse(&with(&rules, PostSplit::Cdp1)).unwrap();
        let c = analyse(&with(&rules, PostSplit::Cdp)).unwrap();
        assert_eq!(b.ev_cd, c.ev_cd, "{decks} decks");
        assert!(
            b.ev_cd >= a.ev_cd - 1e-14,
            "{decks} decks: {} vs {}",
            b.ev_cd,
            a.ev_cd
        );
        if decks == 1 {
            // one deck: the other pair card changes some post-split plays
            assert!(b.ev_cd > a.ev_cd + 1e-7, "{} vs {}", b.ev_cd, a.ev_cd);
        }
        // and pair by pair: the first hand's optimal play is never worse
        for p in 0..10 {
            for u in 0..10 {
                if let (Some(x), Some(y)) = (a.split_cd[p][u], b.split_cd[p][u]) {
                    assert!(
                        y >= x - 1e-15,
                        "{decks}d pair {} v {}: {y} < {x}",
                        p + 1,
                        u + 1
                    );
                }
            }
        }
    }
}

#[test]
fn every_preset_and_deck_count_orders_cdz_cdp1_cdp() {
    for name in presets::names() {
        let file = presets::load(name).unwrap().unwrap();
        for decks in 1..=8u8 {
            let rules = main_game_rules(&file, decks).main;
            let [z, p1, p] = PostSplit::ALL.map(|m| ev(&rules, m));
            assert!(
                z <= p1 + 1e-15 && p1 <= p + 1e-15,
                "{name} {decks}d: CDZ- {z}, CDP1 {p1}, CDP {p}"
            );
        }
    }
}

#[test]
fn basic_strategy_figures_do_not_depend_on_the_post_split_model() {
    let rules = MainGameRules {
        decks: 2,
        max_split_hands: MAX_SPLIT_HANDS,
        surrender: Surrender::None,
        ..MainGameRules::default()
    };
    let base = analyse(&rules).unwrap();
    for post in [PostSplit::Cdp1, PostSplit::Cdp] {
        let a = analyse(&with(&rules, post)).unwrap();
        assert_eq!(a.ev_basic, base.ev_basic, "{}", post.name());
        assert_eq!(a.basic_strategy, base.basic_strategy, "{}", post.name());
    }
}

#[test]
fn a_shoe_of_full_decks_gives_the_deck_figures_and_a_depleted_shoe_its_own() {
    let file = presets::load("classic").unwrap().unwrap();
    let decks = ExactInput::decks(Some(6));
    let six = ExactInput {
        shoe: Some(Shoe::decks(6).unwrap()),
        ..decks
    };
    let a = par_sheet_for(&file, &decks, None).unwrap();
    let b = par_sheet_for(&file, &six, None).unwrap();
    assert_eq!(a.main.ev_cd, b.main.ev_cd);
    assert_eq!(a.main.ev_basic, b.main.ev_basic);
    assert_eq!(a.main.per_up_card, b.main.per_up_card);
    assert_eq!(b.shoe, Some([24, 24, 24, 24, 24, 24, 24, 24, 24, 96]));
    assert!(b.side_bets.is_empty() || file.side_bets().is_empty());
    // a shoe rich in tens and aces is worth more to the player
    let rich = Shoe::from_counts([20, 14, 14, 14, 14, 16, 16, 16, 16, 88]).unwrap();
    let mapped = main_game_rules(&file, 6).main;
    let c = analyse_shoe(&mapped, &rich).unwrap();
    assert!(
        c.ev_cd > a.main.ev_cd + 0.005,
        "{} vs {}",
        c.ev_cd,
        a.main.ev_cd
    );
}

/// 1 deck, S17, double any two, DAS, resplit to four hands (not aces), no surrender,
/// 3:2: Farmer's `strategy` program (as above) answers "1 n y y n y y n y n 1.5"
/// (CDZ-), "1 n y y n y y n n y n 1.5" (CDP1) and "1 n y y n y y n n n n 1.5" (CDP):
///   CDZ-  Total |    0.181934306
///   CDP1  Total |    0.183073339
///   CDP   Total |    0.183111744
const FARMER_1D_S17_DAS_SPL3: [(PostSplit, f64); 3] = [
    (PostSplit::Cdz, 0.181934306),
    (PostSplit::Cdp1, 0.183073339),
    (PostSplit::Cdp, 0.183111744),
];

#[test]
fn one_deck_s17_das_rsp4_matches_farmers_program_in_every_model() {
    let rules = MainGameRules {
        decks: 1,
        dealer_hits_soft_17: false,
        surrender: Surrender::None,
        ..MainGameRules::default()
    };
    for (post, want) in FARMER_1D_S17_DAS_SPL3 {
        let got = ev(&rules, post) * 100.0;
        assert!(
            (got - want).abs() < 5e-9,
            "{}: {got:.9}% against Farmer's {want:.9}%",
            post.name()
        );
    }
}
