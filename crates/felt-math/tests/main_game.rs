//! Exact main-game analysis: published combinatorial-analyser figures, a
//! brute-force enumerator on tiny shoes, and properties of the computed
//! basic strategy.

mod common;

use common::{brute_dealer, hard_total};
use felt_math::main_game::*;

fn six_deck_h17_das_rsp4_ls() -> MainGameRules {
    MainGameRules {
        decks: 6,
        dealer_hits_soft_17: true,
        peek: Peek::TenAndAce,
        no_peek_loss: NoPeekLoss::AllBets,
        blackjack_pays: (3, 2),
        double: DoubleOn::AnyTwo,
        double_after_split: true,
        max_split_hands: 4,
        resplit_aces: false,
        one_card_to_split_aces: true,
        hit_split_aces: false,
        surrender: Surrender::Late,
        surrender_after_split: false,
        split_by_rank: false,
        post_split: PostSplit::Cdz,
    }
}

fn one_deck_s17_nodas_split_once() -> MainGameRules {
    MainGameRules {
        decks: 1,
        dealer_hits_soft_17: false,
        double_after_split: false,
        max_split_hands: 2,
        surrender: Surrender::None,
        ..six_deck_h17_das_rsp4_ls()
    }
}

fn pct6(x: f64) -> String {
    format!("{:.6}", x * 100.0)
}

// ---------------------------------------------------------------- figures

#[test]
fn six_decks_h17_das_resplit_to_four_late_surrender_cd_ev_is_minus_0_527192_percent() {
    let a = analyse(&six_deck_h17_das_rsp4_ls()).unwrap();
    assert_eq!(pct6(a.ev_cd), "-0.527192");
    // basic strategy can only do worse than composition-dependent play
    assert!(a.ev_basic < a.ev_cd);
    assert!(a.ev_cd - a.ev_basic < 0.0002);
    let sd = a.sd_cd.unwrap();
    assert!((1.1..1.2).contains(&sd), "sd {sd}");
}

#[test]
fn one_deck_s17_double_any_no_das_split_once_cd_ev_is_plus_0_024274_percent() {
    let a = analyse(&one_deck_s17_nodas_split_once()).unwrap();
    assert_eq!(pct6(a.ev_cd), "0.024274");
    assert!(a.ev_basic < a.ev_cd);
}

#[test]
fn per_up_card_figures_add_up_to_the_overall_ev() {
    let a = analyse(&one_deck_s17_nodas_split_once()).unwrap();
    let p: f64 = a.per_up.iter().map(|s| s.probability).sum();
    let ev: f64 = a.per_up.iter().map(|s| s.probability * s.ev_cd).sum();
    let evb: f64 = a.per_up.iter().map(|s| s.probability * s.ev_basic).sum();
    assert!((p - 1.0).abs() < 1e-12);
    assert!((ev - a.ev_cd).abs() < 1e-12);
    assert!((evb - a.ev_basic).abs() < 1e-12);
    for s in &a.per_up {
        let total: f64 = s.dealer.totals.iter().sum::<f64>() + s.dealer.bust + s.dealer.natural;
        assert!((total - 1.0).abs() < 1e-12);
    }
}

// ------------------------------------------------------------ rule effects

#[test]
fn no_hole_card_with_original_bets_only_equals_the_peek_game() {
    let peek = MainGameRules {
        surrender: Surrender::None,
        ..six_deck_h17_das_rsp4_ls()
    };
    let obo = MainGameRules {
        peek: Peek::None,
        no_peek_loss: NoPeekLoss::OriginalBetsOnly,
        ..peek.clone()
    };
    let (a, b) = (analyse(&peek).unwrap(), analyse(&obo).unwrap());
    assert!((a.ev_cd - b.ev_cd).abs() < 1e-13);
    assert!((a.ev_basic - b.ev_basic).abs() < 1e-13);
}

#[test]
fn european_no_hole_card_losing_all_bets_costs_the_player() {
    let peek = MainGameRules {
        surrender: Surrender::None,
        ..six_deck_h17_das_rsp4_ls()
    };
    let enhc = MainGameRules {
        peek: Peek::None,
        no_peek_loss: NoPeekLoss::AllBets,
        ..peek.clone()
    };
    let ace_only = MainGameRules {
        peek: Peek::AceOnly,
        no_peek_loss: NoPeekLoss::AllBets,
        ..peek.clone()
    };
    let (a, b, c) = (
        analyse(&peek).unwrap(),
        analyse(&enhc).unwrap(),
        analyse(&ace_only).unwrap(),
    );
    assert!(b.ev_cd < c.ev_cd && c.ev_cd < a.ev_cd);
    // ENHC basic strategy does not double 11 against a ten
    let s = &b.basic_strategy;
    assert_eq!(
        s.action(
            HandKind::Hard,
            11,
            10,
            Allowed {
                double: true,
                ..Allowed::default()
            }
        )
        .unwrap(),
        Action::Hit
    );
    // nor split 8,8 against an ace
    assert_ne!(
        s.action(
            HandKind::Pair,
            8,
            1,
            Allowed {
                split: true,
                ..Allowed::default()
            }
        )
        .unwrap(),
        Action::Split
    );
}

#[test]
fn early_surrender_beats_late_surrender_beats_none() {
    let base = one_deck_s17_nodas_split_once();
    let ev = |s: Surrender| {
        analyse(&MainGameRules {
            surrender: s,
            ..base.clone()
        })
        .unwrap()
        .ev_cd
    };
    let (none, late, early) = (
        ev(Surrender::None),
        ev(Surrender::Late),
        ev(Surrender::Early),
    );
    assert!(none < late && late < early);
}

#[test]
fn six_to_five_blackjack_costs_exactly_three_tenths_of_the_undisputed_naturals() {
    let r = six_deck_h17_das_rsp4_ls();
    let a = analyse(&r).unwrap();
    let b = analyse(&MainGameRules {
        blackjack_pays: (6, 5),
        ..r
    })
    .unwrap();
    // P(player natural and dealer no natural), from the 6-deck shoe
    let (n, a4, t16) = (312.0f64, 24.0f64, 96.0f64);
    let mut p = 0.0;
    for up in 1..=10u8 {
        let (cnt, aces, tens) = match up {
            1 => (a4, a4 - 1.0, t16),
            10 => (t16, a4, t16 - 1.0),
            _ => (24.0, a4, t16),
        };
        let pu = cnt / n;
        let pnat = 2.0 * aces * tens / ((n - 1.0) * (n - 2.0));
        let dealer_nat = match up {
            1 => (tens - 1.0) / (n - 3.0),
            10 => (aces - 1.0) / (n - 3.0),
            _ => 0.0,
        };
        p += pu * pnat * (1.0 - dealer_nat);
    }
    assert!(((a.ev_cd - b.ev_cd) - 0.3 * p).abs() < 1e-12);
}

#[test]
fn no_splitting_at_all_costs_the_player() {
    let r = one_deck_s17_nodas_split_once();
    let a = analyse(&r).unwrap();
    let b = analyse(&MainGameRules {
        max_split_hands: 1,
        ..r
    })
    .unwrap();
    assert!(b.ev_cd < a.ev_cd);
    assert!(b.ev_basic < a.ev_basic);
}

#[test]
fn resplits_and_resplitting_aces_help_the_player() {
    let r = MainGameRules {
        decks: 2,
        ..six_deck_h17_das_rsp4_ls()
    };
    let ev = |m: u32, rsa: bool| {
        analyse(&MainGameRules {
            max_split_hands: m,
            resplit_aces: rsa,
            ..r.clone()
        })
        .unwrap()
        .ev_cd
    };
    let (two, three, four, four_rsa) = (ev(2, false), ev(3, false), ev(4, false), ev(4, true));
    assert!(two < three && three < four && four < four_rsa);
}

#[test]
fn splitting_tens_only_by_rank_never_helps() {
    let r = one_deck_s17_nodas_split_once();
    let a = analyse(&r).unwrap();
    let b = analyse(&MainGameRules {
        split_by_rank: true,
        ..r
    })
    .unwrap();
    assert!(b.ev_cd <= a.ev_cd + 1e-15);
}

#[test]
fn hitting_split_aces_and_das_help_and_surrender_after_split_matters_little() {
    let r = MainGameRules {
        decks: 2,
        ..six_deck_h17_das_rsp4_ls()
    };
    let a = analyse(&r).unwrap();
    let hit_aces = MainGameRules {
        one_card_to_split_aces: false,
        hit_split_aces: true,
        ..r.clone()
    };
    let nodas = MainGameRules {
        double_after_split: false,
        ..r.clone()
    };
    let sas = MainGameRules {
        surrender_after_split: true,
        ..r.clone()
    };
    assert!(analyse(&hit_aces).unwrap().ev_cd > a.ev_cd);
    assert!(analyse(&nodas).unwrap().ev_cd < a.ev_cd);
    // post-split surrender is decided on the unsplit composition (CDZ-) or
    // the cell average (basic strategy): it may even cost a little
    let b = analyse(&sas).unwrap();
    assert!((b.ev_cd - a.ev_cd).abs() < 1e-5 && (b.ev_basic - a.ev_basic).abs() < 1e-4);
    assert_ne!(b.ev_cd, a.ev_cd);
}

// ---------------------------------------------------------- basic strategy

fn allowed_all() -> Allowed {
    Allowed {
        double: true,
        surrender: true,
        split: true,
    }
}

#[test]
fn six_deck_h17_late_surrender_basic_strategy_has_the_known_cells() {
    let s = analyse(&six_deck_h17_das_rsp4_ls()).unwrap().basic_strategy;
    let act = |k, t, u| s.action(k, t, u, allowed_all()).unwrap();
    let no_extra = |k, t, u| s.action(k, t, u, Allowed::default()).unwrap();
    assert_eq!(act(HandKind::Hard, 16, 10), Action::Surrender);
    assert_eq!(no_extra(HandKind::Hard, 16, 10), Action::Hit);
    assert_eq!(act(HandKind::Hard, 11, 1), Action::Double);
    assert_eq!(act(HandKind::Hard, 12, 4), Action::Stand);
    assert_eq!(act(HandKind::Hard, 12, 2), Action::Hit);
    assert_eq!(act(HandKind::Hard, 17, 1), Action::Surrender);
    assert_eq!(act(HandKind::Soft, 18, 2), Action::Double);
    assert_eq!(no_extra(HandKind::Soft, 18, 2), Action::Stand);
    assert_eq!(act(HandKind::Soft, 18, 9), Action::Hit);
    assert_eq!(act(HandKind::Soft, 19, 6), Action::Double);
    for up in 1..=10 {
        assert_eq!(act(HandKind::Pair, 1, up), Action::Split, "A,A v {up}");
        assert_ne!(act(HandKind::Pair, 10, up), Action::Split, "T,T v {up}");
        assert_eq!(act(HandKind::Hard, 20, up), Action::Stand);
    }
    assert_eq!(act(HandKind::Pair, 8, 1), Action::Surrender);
    assert_eq!(
        s.action(
            HandKind::Pair,
            8,
            1,
            Allowed {
                split: true,
                ..Allowed::default()
            }
        )
        .unwrap(),
        Action::Split
    );
    assert_eq!(act(HandKind::Pair, 9, 7), Action::Stand);
    assert_eq!(act(HandKind::Pair, 4, 5), Action::Split);
    // without double after split a post-split 11 against 6 hits
    assert_eq!(
        s.action(HandKind::Hard, 11, 6, Allowed::default()).unwrap(),
        Action::Hit
    );
    let chart = s.to_chart();
    assert!(chart.contains("hard") && chart.contains("soft") && chart.contains("pair"));
    assert_eq!(chart.lines().count(), 3 + 18 + 10 + 10);
}

#[test]
fn one_deck_s17_basic_strategy_has_the_known_cells() {
    let s = analyse(&one_deck_s17_nodas_split_once())
        .unwrap()
        .basic_strategy;
    let act = |k, t, u| s.action(k, t, u, allowed_all()).unwrap();
    assert_eq!(act(HandKind::Hard, 11, 1), Action::Double);
    assert_eq!(act(HandKind::Hard, 9, 2), Action::Double);
    assert_eq!(act(HandKind::Hard, 16, 10), Action::Hit);
    assert_eq!(act(HandKind::Soft, 18, 1), Action::Stand);
    assert_eq!(act(HandKind::Pair, 8, 10), Action::Split);
    assert!(s.cell(HandKind::Hard, 3, 2).is_err());
    assert!(s.cell(HandKind::Pair, 11, 2).is_err());
    assert!(s.cell(HandKind::Soft, 18, 0).is_err());
}

// ------------------------------------------------------------- brute force

/// A tiny shoe: one of each of A..9 and four tens.
fn tiny() -> [u32; 10] {
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 4]
}

/// Distribution of the dealer's outcome for `up` and the unseen `shoe`,
/// optionally conditioned on no natural.
fn brute_dealer_from(up: usize, shoe: &[u32; 10], h17: bool, no_natural: bool) -> [f64; 7] {
    let mut out = [0.0; 7];
    let mut s = *shoe;
    brute_dealer(&mut vec![up], &mut s, h17, &mut out, 1.0);
    if no_natural {
        let keep = 1.0 - out[6];
        for x in &mut out {
            *x /= keep;
        }
        out[6] = 0.0;
    }
    out
}

fn stand_value(total: u32, d: &[f64; 7]) -> f64 {
    let mut v = d[5] - d[6];
    for (i, &p) in d.iter().enumerate().take(5) {
        let dt = 17 + i as u32;
        if total > dt {
            v += p;
        } else if total < dt {
            v -= p;
        }
    }
    v
}

/// Player state values with the hole card conditioned on "no natural":
/// the hole card is drawn first (excluding the natural-making value), then
/// the player's cards; the player decides on the cards seen only.
struct Brute {
    up: usize,
    h17: bool,
    peek: bool,
}

impl Brute {
    fn hole_allowed(&self, c: usize) -> bool {
        !(self.peek && ((self.up == 0 && c == 9) || (self.up == 9 && c == 0)))
    }

    /// (stand, hit-then-optimal) for the player's `cards` and unseen `shoe`.
    fn values(&self, cards: &mut Vec<usize>, shoe: &mut [u32; 10]) -> (f64, f64) {
        let (t, _) = hard_total(cards);
        // stand: average over the hole card
        let (mut st, mut wsum) = (0.0, 0.0);
        for h in 0..10 {
            if !self.hole_allowed(h) || shoe[h] == 0 {
                continue;
            }
            let w = f64::from(shoe[h]);
            shoe[h] -= 1;
            let mut out = [0.0; 7];
            brute_dealer(&mut vec![self.up, h], shoe, self.h17, &mut out, 1.0);
            shoe[h] += 1;
            st += w * stand_value(t, &out);
            wsum += w;
        }
        st /= wsum;
        // hit: P(next card c | hole allowed)
        let n: u32 = shoe.iter().sum();
        let mut hit = 0.0;
        let mut norm = 0.0;
        for h in (0..10).filter(|&h| self.hole_allowed(h) && shoe[h] > 0) {
            norm += f64::from(shoe[h]) * f64::from(n - 1);
        }
        for c in 0..10 {
            let mut pc = 0.0;
            for h in (0..10).filter(|&h| self.hole_allowed(h) && shoe[h] > 0) {
                let cc = shoe[c] - u32::from(c == h).min(shoe[c]);
                pc += f64::from(shoe[h]) * f64::from(cc);
            }
            if pc == 0.0 {
                continue;
            }
            let pc = pc / norm;
            cards.push(c);
            shoe[c] -= 1;
            let (t2, _) = hard_total(cards);
            let v = if t2 > 21 {
                -1.0
            } else {
                let (s2, h2) = self.values(cards, shoe);
                s2.max(h2)
            };
            shoe[c] += 1;
            cards.pop();
            hit += pc * v;
        }
        (st, hit)
    }
}

#[test]
fn dealer_probabilities_match_a_brute_force_enumerator_on_a_tiny_shoe() {
    for h17 in [false, true] {
        for up in 1..=10u8 {
            let shoe = Shoe::from_counts(tiny()).unwrap();
            let mut unseen = tiny();
            unseen[usize::from(up - 1)] -= 1;
            for peek in [false, true] {
                let got = dealer_probabilities(&shoe, up, peek, h17).unwrap();
                let want = brute_dealer_from(usize::from(up - 1), &unseen, h17, peek);
                for (i, (g, w)) in got.totals.iter().zip(&want).enumerate() {
                    assert!((g - w).abs() < 1e-13, "up {up} h17 {h17} total {}", 17 + i);
                }
                assert!((got.bust - want[5]).abs() < 1e-13);
                assert!((got.natural - want[6]).abs() < 1e-13);
            }
        }
    }
}

#[test]
fn stand_and_hit_values_match_a_brute_force_enumerator_on_a_tiny_shoe() {
    let rules = MainGameRules {
        decks: 1,
        surrender: Surrender::None,
        ..six_deck_h17_das_rsp4_ls()
    };
    let shoe = Shoe::from_counts(tiny()).unwrap();
    let cases: [(&[u8], u8); 7] = [
        (&[2, 3], 4),
        (&[10, 6], 10),
        (&[3, 5], 1),
        (&[1, 5], 10),
        (&[9, 7], 1),
        (&[4, 8, 2], 7),
        (&[10, 2], 6),
    ];
    for (cards, up) in cases {
        let got = hand_evs(&rules, &shoe, cards, up).unwrap();
        let mut unseen = tiny();
        let mut cs: Vec<usize> = cards.iter().map(|&c| usize::from(c - 1)).collect();
        for &c in &cs {
            unseen[c] -= 1;
        }
        let u = usize::from(up - 1);
        unseen[u] -= 1;
        let b = Brute {
            up: u,
            h17: true,
            peek: u == 0 || u == 9,
        };
        let (st, hit) = b.values(&mut cs, &mut unseen);
        assert!(
            (got.stand - st).abs() < 1e-12,
            "{cards:?} v {up}: stand {} vs {st}",
            got.stand
        );
        let gh = got.hit.unwrap();
        assert!(
            (gh - hit).abs() < 1e-12,
            "{cards:?} v {up}: hit {gh} vs {hit}"
        );
        assert_eq!(got.conditioned, b.peek);
    }
}

// --------------------------------------------------------------- hand_evs

#[test]
fn hand_evs_of_the_full_shoe_pick_the_basic_plays() {
    let r = six_deck_h17_das_rsp4_ls();
    let shoe = Shoe::decks(6).unwrap();
    let e = hand_evs(&r, &shoe, &[10, 6], 10).unwrap();
    assert_eq!(e.best, Action::Surrender);
    assert_eq!(e.surrender, Some(-0.5));
    assert!(e.conditioned && e.split.is_none() && e.double.is_some());
    let e = hand_evs(&r, &shoe, &[8, 8], 10).unwrap();
    assert_eq!(e.best, Action::Split);
    assert!(e.split.unwrap() > e.hit.unwrap());
    let e = hand_evs(&r, &shoe, &[6, 5], 1).unwrap();
    assert_eq!(e.best, Action::Double);
    let e = hand_evs(&r, &shoe, &[1, 10], 6).unwrap();
    assert!((e.stand - 1.5).abs() < 1e-15 && e.hit.is_none());
    let e = hand_evs(&r, &shoe, &[10, 5, 6], 9).unwrap();
    assert!(e.double.is_none() && e.surrender.is_none() && e.best == Action::Stand);
}

#[test]
fn impossible_input_is_a_typed_error() {
    let r = six_deck_h17_das_rsp4_ls();
    let shoe = Shoe::decks(1).unwrap();
    assert!(matches!(
        hand_evs(&r, &shoe, &[11, 2], 3),
        Err(MainGameError::InvalidRank(11))
    ));
    assert!(matches!(
        hand_evs(&r, &shoe, &[10, 2], 0),
        Err(MainGameError::InvalidRank(0))
    ));
    assert!(matches!(
        hand_evs(&r, &shoe, &[10], 3),
        Err(MainGameError::InvalidHand(_))
    ));
    assert!(matches!(
        hand_evs(&r, &shoe, &[10, 9, 5], 3),
        Err(MainGameError::InvalidHand(_))
    ));
    assert!(matches!(
        hand_evs(&r, &shoe, &[2, 2, 2, 2, 2], 3),
        Err(MainGameError::CardsNotInShoe(_))
    ));
    let tiny_shoe = Shoe::from_counts([0, 0, 0, 0, 0, 0, 0, 0, 0, 2]).unwrap();
    assert!(matches!(
        hand_evs(&r, &tiny_shoe, &[10, 10], 10),
        Err(MainGameError::CardsNotInShoe(_))
    ));
    let small = Shoe::from_counts([1, 1, 1, 0, 0, 0, 0, 0, 0, 2]).unwrap();
    assert!(matches!(
        hand_evs(&r, &small, &[2, 3], 1),
        Err(MainGameError::ShoeTooSmall(_))
    ));
    assert!(dealer_probabilities(&small, 1, true, false).is_ok());
    let smaller = Shoe::from_counts([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    assert!(matches!(
        dealer_probabilities(&smaller, 1, false, false),
        Err(MainGameError::ShoeTooSmall(_))
    ));
    assert!(matches!(
        dealer_probabilities(&smaller, 4, false, false),
        Err(MainGameError::CardsNotInShoe(_))
    ));
    assert!(matches!(
        dealer_probabilities(&smaller, 11, false, false),
        Err(MainGameError::InvalidRank(11))
    ));
    assert!(Shoe::from_counts([0; 10]).is_err());
    assert!(Shoe::decks(0).is_err());
    for bad in [
        MainGameRules {
            decks: 0,
            ..r.clone()
        },
        MainGameRules {
            decks: 9,
            ..r.clone()
        },
        MainGameRules {
            max_split_hands: 0,
            ..r.clone()
        },
        MainGameRules {
            max_split_hands: MAX_SPLIT_HANDS + 1,
            ..r.clone()
        },
        MainGameRules {
            blackjack_pays: (3, 0),
            ..r.clone()
        },
    ] {
        assert!(matches!(analyse(&bad), Err(MainGameError::InvalidRules(_))));
    }
    assert!(matches!(
        analyse_shoe(&r, &small),
        Err(MainGameError::ShoeTooSmall(_))
    ));
}

#[test]
fn dealer_probabilities_are_distributions() {
    let shoe = Shoe::decks(2).unwrap();
    for up in 1..=10 {
        for peek in [false, true] {
            let d = dealer_probabilities(&shoe, up, peek, true).unwrap();
            let s: f64 = d.totals.iter().sum::<f64>() + d.bust + d.natural;
            assert!((s - 1.0).abs() < 1e-12);
            assert_eq!(d.conditioned_on_no_natural, peek);
            if peek || !(up == 1 || up == 10) {
                assert_eq!(d.natural, 0.0);
            }
        }
    }
}

// ------------------------------------------------------- post-split plays

fn has(s: &BasicStrategy, d: PostSplitDifference) -> bool {
    s.post_split_differences().contains(&d)
}

#[test]
fn post_split_differences_list_split_aces_and_pairs_at_the_hand_limit() {
    let s = analyse(&six_deck_h17_das_rsp4_ls()).unwrap().basic_strategy;
    let d = |kind, t, up, before, after, reason| PostSplitDifference {
        kind,
        total_or_rank: t,
        up,
        before,
        after,
        reason,
    };
    // one card to split aces, no resplitting aces
    let aces = PostSplitReason::SplitAcesStand;
    assert!(has(
        &s,
        d(HandKind::Pair, 1, 10, Action::Split, Action::Stand, aces)
    ));
    assert!(has(
        &s,
        d(HandKind::Soft, 17, 4, Action::Double, Action::Stand, aces)
    ));
    // 8-8 against a ten arriving at the fourth hand: surrender is not
    // allowed after a split, so it is hit
    let limit = PostSplitReason::NoResplit { max_hands: 4 };
    assert!(has(
        &s,
        d(HandKind::Pair, 8, 10, Action::Split, Action::Hit, limit)
    ));
    // DAS: no double cell changes; hands of the chart's plays are not listed
    assert!(s
        .post_split_differences()
        .iter()
        .all(|x| x.reason != PostSplitReason::NoDoubleAfterSplit && x.before != x.after));
    let chart = s.post_split_chart();
    assert!(
        chart.contains("  8,8      v 7,8,9,T: split -> hit (resplit up to 4 hands;"),
        "{chart}"
    );

    // no DAS, no resplit: the doubles become the chart's fallback
    let s = analyse(&one_deck_s17_nodas_split_once())
        .unwrap()
        .basic_strategy;
    let nodas = PostSplitReason::NoDoubleAfterSplit;
    assert!(has(
        &s,
        d(HandKind::Hard, 11, 6, Action::Double, Action::Hit, nodas)
    ));
    assert!(has(
        &s,
        d(HandKind::Soft, 18, 4, Action::Double, Action::Stand, nodas)
    ));
    let once = PostSplitReason::NoResplit { max_hands: 2 };
    assert!(has(
        &s,
        d(HandKind::Pair, 8, 10, Action::Split, Action::Hit, once)
    ));
    assert!(s
        .post_split_chart()
        .contains("hard 11  v 2,3,4,5,6,7,8,9,T,A: double -> hit (no double after a split)"));

    // no splitting at all: nothing to list, and the chart says so
    let s = analyse(&MainGameRules {
        max_split_hands: 1,
        ..six_deck_h17_das_rsp4_ls()
    })
    .unwrap()
    .basic_strategy;
    assert!(s.post_split_differences().is_empty());
    assert!(s.post_split_chart().contains("no differences"));
}

#[test]
fn a_small_shoe_is_analysed_with_the_split_hands_it_can_deal() {
    let r = six_deck_h17_das_rsp4_ls();
    // Cards worth 130 (aces 1, tens 10): a round with three split hands needs at most
    // 3 * 31 + 26 = 119, with four 150; so at most three hands are analysed, and the
    // figures are exactly those of the same rules with three hands.
    let shoe = Shoe::from_counts([2, 2, 2, 2, 2, 2, 2, 2, 2, 4]).unwrap();
    let got = analyse_shoe(&r, &shoe).unwrap();
    let three = MainGameRules {
        max_split_hands: 3,
        ..r.clone()
    };
    let want = analyse_shoe(&three, &shoe).unwrap();
    assert_eq!(got.split_hands, 3);
    assert_eq!(got.ev_cd, want.ev_cd);
    assert_eq!(got.ev_basic, want.ev_basic);
    assert_eq!(
        analyse_shoe(&r, &Shoe::decks(1).unwrap())
            .unwrap()
            .split_hands,
        4
    );
    // Worth 85: below two split hands (88), so no split, but one round is dealt.
    let tiny = Shoe::from_counts([1, 1, 1, 1, 1, 1, 1, 1, 1, 4]).unwrap();
    let a = analyse_shoe(&r, &tiny).unwrap();
    assert_eq!(a.split_hands, 1);
    assert!(a.split_cd.iter().flatten().all(Option::is_none));
    assert!(a.ev_cd.is_finite() && a.ev_cd >= a.ev_basic);
}

#[test]
fn a_shoe_that_cannot_deal_a_round_is_refused_with_a_sentence() {
    // Worth 56: a hand drawn to 31 and a dealer drawn to 26 could run out of cards.
    let shoe = Shoe::from_counts([0, 0, 0, 0, 0, 0, 8, 0, 0, 0]).unwrap();
    match analyse_shoe(&six_deck_h17_das_rsp4_ls(), &shoe) {
        Err(MainGameError::ShoeTooSmall(why)) => {
            assert!(why.contains("worth 56") && why.contains("57"), "{why}")
        }
        other => panic!("{other:?}"),
    }
}
