//! Exact side-bet analysis: the published figures of the rules (docs/rules.md), the pay-table and
//! third-card rules, and a brute-force check of the fast enumerator against a naive
//! one over physical cards.

use felt_core::card::{parse_cards, Card, Rank};
use felt_core::money::Basis;
use felt_core::presets;
use felt_core::rules::{Peek, Rules, SideBetRules, ThirdCard};
use felt_core::sidebet::{classify, HandContext, HandName, SideBetKind};
use felt_math::sidebet::{
    analyse_all, analyse_side_bet, count_deals, DealCounts, ShoeCounts, SideBetAnalysis,
    SideBetError,
};

fn preset(name: &str) -> Rules {
    presets::load(name).unwrap().unwrap()
}

fn fixture(name: &str) -> Rules {
    let text = match name {
        "super-sevens" => include_str!("fixtures/super-sevens.toml"),
        "twenty-one-plus-three" => include_str!("fixtures/twenty-one-plus-three.toml"),
        _ => unreachable!("no fixture {name}"),
    };
    Rules::from_toml(text, name).unwrap()
}

fn bet<'a>(rules: &'a Rules, id: &str) -> &'a SideBetRules {
    rules.side_bets().iter().find(|b| b.id == id).unwrap()
}

fn analyse(rules: &Rules, id: &str, decks: u8) -> SideBetAnalysis {
    analyse_side_bet(rules, bet(rules, id), decks, None).unwrap()
}

/// The edge in percent rounded to two decimals, as published.
fn pct2(x: f64) -> f64 {
    (x * 10_000.0).round() / 100.0
}

fn count_of(a: &SideBetAnalysis, hand: HandName) -> u128 {
    a.outcomes
        .iter()
        .find(|o| o.hand == Some(hand))
        .map(|o| o.count)
        .unwrap()
}

fn assert_consistent(a: &SideBetAnalysis) {
    let sum: u128 = a.outcomes.iter().map(|o| o.count).sum();
    assert_eq!(sum, a.total, "{}: counts add up to the total", a.id);
    let p: f64 = a.outcomes.iter().map(|o| o.probability).sum();
    assert!((p - 1.0).abs() < 1e-12, "{}", a.id);
    let ret: f64 = a.outcomes.iter().map(|o| o.contribution).sum();
    assert!((ret + a.house_edge).abs() < 1e-12, "{}", a.id);
    assert_eq!(a.outcomes.last().unwrap().name, "loses");
    assert!(a.std_dev > 0.0 && a.hit_frequency > 0.0 && a.hit_frequency < 1.0);
}

#[test]
fn ll_5_published_house_edge_one_to_eight_decks() {
    let rules = preset("lucky-lucky");
    let published = [2.61, 2.82, 2.77, 2.72, 2.68, 2.66, 2.63, 2.62];
    for (d, want) in (1..=8).zip(published) {
        let a = analyse(&rules, "lucky-lucky", d);
        assert_consistent(&a);
        assert_eq!(a.cards, 3);
        assert_eq!(
            a.total,
            (52 * u128::from(d)) * (52 * u128::from(d) - 1) * (52 * u128::from(d) - 2)
        );
        assert_eq!(pct2(a.house_edge), want, "{d} decks: {}", a.house_edge);
    }
    // Exact one-deck counts of ordered (player, player, up) deals.
    let a = analyse(&rules, "lucky-lucky", 1);
    let counts: Vec<u128> = a.outcomes.iter().map(|o| o.count).collect();
    assert_eq!(
        counts,
        [0, 24, 24, 360, 648, 11_016, 10_128, 9_840, 100_560]
    );
    assert_eq!(a.total, 132_600);
}

#[test]
fn ll_3_suited_777_cannot_occur_in_one_or_two_decks() {
    let rules = preset("lucky-lucky");
    for d in 1..=8 {
        let a = analyse(&rules, "lucky-lucky", d);
        let n = count_of(&a, HandName::Suited777);
        if d <= 2 {
            assert_eq!(n, 0, "{d} decks");
        } else {
            // Ordered: 4 suits x N (N-1) (N-2).
            let n_d = u128::from(d);
            assert_eq!(n, 4 * n_d * (n_d - 1) * (n_d - 2), "{d} decks");
        }
    }
}

#[test]
fn ll_6_csm_gives_the_n_deck_figure() {
    let shoe = preset("lucky-lucky");
    let csm = shoe.modified(|f| f.shoe.csm = true).unwrap();
    for d in [1, 6, 8] {
        let a = analyse(&shoe, "lucky-lucky", d);
        let b = analyse(&csm, "lucky-lucky", d);
        assert!(!a.csm && b.csm);
        assert_eq!(a.outcomes, b.outcomes);
        assert_eq!(a.house_edge, b.house_edge);
    }
    // The seed's "a six-deck CSM behaves like eight decks" is not exact: six decks
    // dealt from a CSM give the six-deck figure.
    assert_eq!(pct2(analyse(&csm, "lucky-lucky", 6).house_edge), 2.66);
}

#[test]
fn la_2_lucky_ladies_table_a_six_decks() {
    let rules = preset("lucky-ladies");
    let a = analyse(&rules, "lucky-ladies", 6);
    assert_consistent(&a);
    assert_eq!(a.cards, 4);
    assert_eq!(a.total, 9_294_695_280);
    let counts: Vec<u128> = a.outcomes.iter().map(|o| o.count).collect();
    assert_eq!(
        counts,
        [
            135_360,
            2_738_340,
            43_105_500,
            193_112_640,
            744_863_040,
            9_294_695_280 - 135_360 - 2_738_340 - 43_105_500 - 193_112_640 - 744_863_040
        ]
    );
    assert_eq!(pct2(a.house_edge), 24.71);
}

#[test]
fn la_2_lucky_ladies_table_b_and_queen_of_hearts_needs_two_decks() {
    let rules = preset("lucky-ladies")
        .modified(|f| {
            for (line, odds) in f.side_bets[0].pays.iter_mut().zip([1000, 200, 25, 10, 4]) {
                line.pay = felt_core::rules::LinePay::Odds(felt_core::Ratio::new(odds, 1).unwrap());
            }
        })
        .unwrap();
    let a = analyse(&rules, "lucky-ladies", 1);
    assert_eq!(count_of(&a, HandName::QueenHeartsPair), 0);
    assert_eq!(count_of(&a, HandName::Matched20), 0);
    let b = analyse(&rules, "lucky-ladies", 6);
    // Table B pays more on the same counts as table A.
    assert_eq!(b.total, 9_294_695_280);
    assert_eq!(count_of(&b, HandName::QueenHeartsPair), 2_738_340);
    assert!(b.house_edge < analyse(&preset("lucky-ladies"), "lucky-ladies", 6).house_edge);
    assert_consistent(&b);
}

#[test]
fn super_sevens_fixture_six_and_eight_decks() {
    let rules = fixture("super-sevens");
    let six = analyse(&rules, "super-sevens", 6);
    let eight = analyse(&rules, "super-sevens", 8);
    assert_consistent(&six);
    assert_eq!(six.cards, 5);
    assert_eq!(pct2(six.house_edge), 11.40);
    assert_eq!(pct2(eight.house_edge), 9.01);
}

#[test]
fn bb_1_twenty_one_plus_three_fixture_six_decks_and_one() {
    let rules = fixture("twenty-one-plus-three");
    assert_eq!(pct2(analyse(&rules, "21-plus-3", 6).house_edge), 3.24);
    assert_eq!(pct2(analyse(&rules, "21-plus-3", 1).house_edge), 13.30);
}

#[test]
fn bb_1_poker_bonus_one_deck_counts_are_the_combinatorial_ones() {
    let rules = preset("blackjack-bonus");
    let a = analyse(&rules, "poker-bonus", 1);
    assert_consistent(&a);
    // Ordered 3-card hands: 3! orders of each set. 12 straights (A-2-3 .. Q-K-A).
    let sets_sf = 12 * 4;
    let sets_trips = 13 * 4; // C(4,3) suits per rank
    let sets_straight = 12 * 64 - sets_sf;
    let sets_flush = 4 * 286 - sets_sf; // C(13,3) = 286
    let counts: Vec<u128> = a.outcomes.iter().map(|o| o.count).collect();
    assert_eq!(
        counts[..5],
        [
            0,
            6 * sets_sf,
            6 * sets_trips,
            6 * sets_straight,
            6 * sets_flush
        ]
    );
    // Six decks: suited trips 4 suits x 13 ranks x 6*5*4.
    let six = analyse(&rules, "poker-bonus", 6);
    assert_eq!(
        count_of(&six, HandName::SuitedThreeOfAKind),
        13 * 4 * 6 * 5 * 4
    );
    assert!(
        six.house_edge > 0.2 && six.house_edge < 0.3,
        "{}",
        six.house_edge
    );
}

/// Counts of the 7s lines from a closed form: ordered (p1, p2, hole, up, next)
/// deals of `n` decks, the third card withheld on a peeked natural when
/// `withheld`. Returns [3 suited, 3 unsuited, 2 suited, 2 unsuited, first 7].
fn sevens_closed_form(n: u128, withheld: bool) -> [u128; 5] {
    let m = 52 * n;
    let sevens = 4 * n;
    let rest3 = (m - 2) * (m - 3) * (m - 4);
    // Ordered (hole, up) naturals after two 7s: ace and ten either way round.
    let naturals = if withheld { 2 * (4 * n) * (16 * n) } else { 0 };
    // (hole, up, next) with the next card in a set of k cards (not aces or tens)
    // and no withheld natural: k (m-3)(m-4) - naturals * k.
    let third_in = |k: u128| k * ((m - 3) * (m - 4) - naturals);
    let suited = 4 * n * (n - 1); // ordered p1, p2 7s of one suit
    let unsuited = sevens * (sevens - n);
    let same_suit_left = n.saturating_sub(2); // with one deck no pair is suited anyway
    let three_suited = suited * third_in(same_suit_left);
    let three_unsuited =
        suited * third_in(sevens - 2 - same_suit_left) + unsuited * third_in(sevens - 2);
    let two_suited = suited * rest3 - suited * third_in(sevens - 2);
    let two_unsuited = unsuited * rest3 - unsuited * third_in(sevens - 2);
    let first = sevens * (m - sevens) * rest3;
    [
        three_suited,
        three_unsuited,
        two_suited,
        two_unsuited,
        first,
    ]
}

#[test]
fn l7_3_lucky_7_dealer_natural_withholds_the_third_card() {
    let rules = preset("lucky-7");
    for d in 1..=8 {
        let a = analyse(&rules, "lucky-7", d);
        assert_consistent(&a);
        let counts: Vec<u128> = a.outcomes.iter().take(5).map(|o| o.count).collect();
        assert_eq!(counts, sevens_closed_form(u128::from(d), true), "{d} decks");
    }
    let six = analyse(&rules, "lucky-7", 6);
    // First card a 7 is hit 1/13 of the time, whatever follows.
    assert!((six.hit_frequency - 1.0 / 13.0).abs() < 1e-15);
    assert!(
        six.house_edge > 0.45 && six.house_edge < 0.55,
        "{}",
        six.house_edge
    );
}

#[test]
fn bb_3_bonus_7s_dealer_natural_pays_two_sevens() {
    let rules = preset("blackjack-bonus");
    let a = analyse(&rules, "bonus-7s", 6);
    assert_consistent(&a);
    let counts: Vec<u128> = a.outcomes.iter().take(5).map(|o| o.count).collect();
    let want = sevens_closed_form(6, true);
    assert_eq!(counts, want);
    let total = a.total as f64;
    let ret: f64 = [500.0, 250.0, 100.0, 50.0, 3.0]
        .iter()
        .zip(want)
        .map(|(pay, c)| pay * c as f64 / total)
        .sum::<f64>()
        - (1.0 - 1.0 / 13.0);
    assert!((a.house_edge + ret).abs() < 1e-12);
    // Dealing the third card on a natural too would help the player.
    let dealt = rules
        .modified(|f| f.side_bets[1].third_card_on_dealer_natural = true)
        .unwrap();
    let b = analyse(&dealt, "bonus-7s", 6);
    let counts: Vec<u128> = b.outcomes.iter().take(5).map(|o| o.count).collect();
    assert_eq!(counts, sevens_closed_form(6, false));
    assert!(b.house_edge < a.house_edge);
}

#[test]
fn b7_4_third_card_dealt_on_dealer_natural() {
    let rules = preset("blazing-7s");
    let a = analyse(&rules, "blazing-7s", 6);
    assert_consistent(&a);
    let [s3, u3, s2, u2, _] = sevens_closed_form(6, false);
    // Pay table A: suited, same colour, any three, two 7s, one 7.
    let n = 6u128;
    let suited_pairs = 4 * n * (n - 1);
    let same_colour_other_suit = suited_pairs * n * 309 * 308; // third the other suit of the colour
    let unsuited_same_colour_pairs = 4 * n * n; // ordered: p1 any 7, p2 the other suit of its colour
    let same_colour_unsuited = unsuited_same_colour_pairs * (2 * n - 2) * 309 * 308;
    assert_eq!(count_of(&a, HandName::ThreeSevensSuited), s3);
    assert_eq!(
        count_of(&a, HandName::ThreeSevensSameColour),
        same_colour_other_suit + same_colour_unsuited
    );
    assert_eq!(
        count_of(&a, HandName::ThreeSevens),
        u3 - same_colour_other_suit - same_colour_unsuited
    );
    assert_eq!(count_of(&a, HandName::TwoSevens), s2 + u2);
    // One 7 in the first two cards, not two.
    assert_eq!(
        count_of(&a, HandName::OneSeven),
        2 * 24 * 288 * 310 * 309 * 308
    );
}

#[test]
fn b7_3a_to_and_for_basis_at_six_decks_and_a_2000_unit_meter() {
    let to = preset("blazing-7s");
    let for_ = to
        .modified(|f| {
            f.side_bets[0]
                .pays
                .iter_mut()
                .for_each(|l| l.basis = Basis::For)
        })
        .unwrap();
    let a = analyse_side_bet(&to, bet(&to, "blazing-7s"), 6, Some(2000.0)).unwrap();
    let b = analyse_side_bet(&for_, bet(&for_, "blazing-7s"), 6, Some(2000.0)).unwrap();
    assert_consistent(&a);
    assert_consistent(&b);
    // The default meter is the reset over the minimum wager: 2,000 units.
    assert_eq!(analyse(&to, "blazing-7s", 6), a);
    // "to" returns the stake on every win as well: its edge is the LOWER one, by
    // exactly the hit frequency.
    assert_eq!(pct2(a.house_edge), 32.53);
    assert_eq!(pct2(b.house_edge), 47.35);
    assert!((b.house_edge - a.house_edge - a.hit_frequency).abs() < 1e-12);
    let (ma, mb) = (a.meter.clone().unwrap(), b.meter.clone().unwrap());
    assert_eq!(ma.meter_units, 2000.0);
    assert_eq!(ma.edge_per_meter_unit, mb.edge_per_meter_unit);
    for (x, m) in [(&a, &ma), (&b, &mb)] {
        let line = m.edge_at_zero_meter - m.edge_per_meter_unit * m.meter_units;
        assert!((line - x.house_edge).abs() < 1e-12);
    }
}

#[test]
fn b7_1_blazing_7s_edge_is_linear_in_the_meter_with_a_break_even_meter() {
    let rules = preset("blazing-7s");
    let b = bet(&rules, "blazing-7s");
    let m = analyse(&rules, "blazing-7s", 6).meter.unwrap();
    let even = m.break_even_meter.unwrap();
    let at = |meter: f64| {
        analyse_side_bet(&rules, b, 6, Some(meter))
            .unwrap()
            .house_edge
    };
    assert!(at(even).abs() < 1e-12, "{}", at(even));
    assert!(at(even * 0.9) > 0.0 && at(even * 1.1) < 0.0);
    assert!((at(0.0) - m.edge_at_zero_meter).abs() < 1e-15);
    // Six decks, pay table A, "to": the meter must reach about 16,059 units.
    assert_eq!(even.round(), 16_059.0);
    // One or two decks: no suited three 7s; one deck: no meter line can be hit.
    assert_eq!(
        analyse(&rules, "blazing-7s", 1)
            .meter
            .unwrap()
            .break_even_meter,
        None
    );
    // The meter lines pay their share of the meter, on their basis.
    let a = analyse_side_bet(&rules, b, 6, Some(5000.0)).unwrap();
    assert_eq!(a.outcomes[0].pays, 5000.0);
    assert_eq!(a.outcomes[0].meter_percent, Some(100));
    assert_eq!(a.outcomes[1].pays, 500.0);
}

#[test]
fn b7_1_the_meter_line_gives_both_terms_in_percent() {
    let rules = preset("blazing-7s");
    let m = analyse(&rules, "blazing-7s", 6).meter.unwrap();
    // 37.1586% at a zero meter, 0.002314% of the wager off per meter unit
    assert_eq!(m.edge_line(), "edge = 37.1586% - 0.002314% x meter");
    let per = m.edge_per_meter_unit * 100.0;
    assert_eq!(format!("{per:.6}"), "0.002314");
    assert_eq!(format!("{:.4}", m.edge_at_zero_meter * 100.0), "37.1586");
}

#[test]
fn b7_3_one_seven_pays_both_readings() {
    let rules = preset("blazing-7s");
    let loses = rules
        .modified(|f| f.side_bets[0].one_seven_pays = false)
        .unwrap();
    let a = analyse(&rules, "blazing-7s", 6);
    let b = analyse(&loses, "blazing-7s", 6);
    assert_consistent(&b);
    assert_eq!(a.outcomes.len(), 6);
    assert_eq!(b.outcomes.len(), 5);
    assert!(b
        .outcomes
        .iter()
        .all(|o| o.hand != Some(HandName::OneSeven)));
    // The one-7 deals lose instead; the other lines are unchanged.
    assert_eq!(
        b.outcomes[4].count,
        a.outcomes[5].count + count_of(&a, HandName::OneSeven)
    );
    let one_seven_p = count_of(&a, HandName::OneSeven) as f64 / a.total as f64;
    assert!((b.house_edge - a.house_edge - 3.0 * one_seven_p).abs() < 1e-12);
    assert!(b.house_edge > 0.7, "{}", b.house_edge);
}

#[test]
fn b7_5_up_card_as_third_card() {
    let rules = preset("blazing-7s");
    let up = rules
        .modified(|f| f.side_bets[0].third_card = Some(ThirdCard::UpCard))
        .unwrap();
    for d in [1, 3, 6, 8] {
        let a = analyse(&rules, "blazing-7s", d);
        let b = analyse(&up, "blazing-7s", d);
        assert_consistent(&b);
        // The up card is as random as the next card, and the next card is dealt on
        // a natural too (B7-4): the same counts.
        assert_eq!(a.outcomes, b.outcomes, "{d} decks");
    }
    // With the third card withheld on a natural, the up card (always there) differs.
    let l7 = preset("lucky-7");
    let l7_up = l7
        .modified(|f| f.side_bets[0].third_card = Some(ThirdCard::UpCard))
        .unwrap();
    let (a, b) = (analyse(&l7, "lucky-7", 6), analyse(&l7_up, "lucky-7", 6));
    assert_eq!(
        b.outcomes
            .iter()
            .take(5)
            .map(|o| o.count)
            .collect::<Vec<_>>(),
        sevens_closed_form(6, false)
    );
    assert!(b.house_edge < a.house_edge);
}

#[test]
fn every_preset_side_bet_analyses_one_to_eight_decks() {
    for name in presets::names() {
        let rules = preset(name);
        for d in 1..=8 {
            let all = analyse_all(&rules, d, None).unwrap();
            assert_eq!(all.len(), rules.side_bets().len());
            for a in &all {
                assert_consistent(a);
                assert_eq!(a.decks, d);
                assert!(a.house_edge > 0.0, "{name} {} {d}", a.id);
            }
        }
    }
}

#[test]
fn c_1_decks_outside_one_to_eight_and_bad_meters_are_refused() {
    let rules = preset("blazing-7s");
    let b = bet(&rules, "blazing-7s");
    assert_eq!(
        analyse_side_bet(&rules, b, 0, None).unwrap_err(),
        SideBetError::Decks(0)
    );
    assert_eq!(
        analyse_all(&rules, 9, None).unwrap_err(),
        SideBetError::Decks(9)
    );
    assert!(matches!(
        analyse_side_bet(&rules, b, 6, Some(-1.0)),
        Err(SideBetError::Meter(_))
    ));
    assert!(matches!(
        analyse_side_bet(&rules, b, 6, Some(f64::NAN)),
        Err(SideBetError::Meter(_))
    ));
    let mut no_meter = b.clone();
    no_meter.progressive = None;
    assert_eq!(
        analyse_side_bet(&rules, &no_meter, 6, None).unwrap_err(),
        SideBetError::NoMeter("blazing-7s".into())
    );
    assert!(analyse_side_bet(&rules, &no_meter, 6, Some(100.0)).is_ok());
    let mut wrong = b.clone();
    wrong.pays[0].hand = HandName::Flush;
    assert!(matches!(
        analyse_side_bet(&rules, &wrong, 6, None),
        Err(SideBetError::HandOfOtherKind { line: 0, .. })
    ));
}

// ---------------------------------------------------------------------------
// Brute force: a naive enumerator over physical cards, calling `classify`.
// ---------------------------------------------------------------------------

/// Every ordered deal of distinct physical cards of `shoe`, classified by the
/// first active line; returns (per active line, loses, total).
fn naive(rules: &Rules, bet: &SideBetRules, shoe: &[Card]) -> (Vec<u128>, u128, u128) {
    let hands: Vec<HandName> = bet.active_lines().map(|(_, l)| l.hand).collect();
    let len = match bet.kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => 3,
        SideBetKind::LuckyLadies => 4,
        SideBetKind::Sevens => 5,
    };
    let mut out = vec![0u128; hands.len() + 1];
    let mut total = 0u128;
    let mut deal = Vec::with_capacity(len);
    let mut used = vec![false; shoe.len()];
    walk(shoe, len, &mut deal, &mut used, &mut |deal: &[Card]| {
        total += 1;
        let ctx = context(rules, bet, deal);
        let line = hands
            .iter()
            .position(|&h| classify(h, &ctx))
            .unwrap_or(hands.len());
        out[line] += 1;
    });
    let loses = out.pop().unwrap_or(0);
    (out, loses, total)
}

fn walk(
    shoe: &[Card],
    len: usize,
    deal: &mut Vec<Card>,
    used: &mut [bool],
    f: &mut impl FnMut(&[Card]),
) {
    if deal.len() == len {
        f(deal);
        return;
    }
    for i in 0..shoe.len() {
        if !used[i] {
            used[i] = true;
            deal.push(shoe[i]);
            walk(shoe, len, deal, used, f);
            deal.pop();
            used[i] = false;
        }
    }
}

fn is_natural(a: Card, b: Card) -> bool {
    let ace = |c: Card| c.rank == Rank::Ace;
    let ten = |c: Card| c.rank.is_ten_value();
    (ace(a) && ten(b)) || (ten(a) && ace(b))
}

/// The cards each kind reads, from the rules as written in docs/rules.md.
fn context(rules: &Rules, bet: &SideBetRules, deal: &[Card]) -> HandContext {
    match bet.kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => HandContext {
            first_two: [deal[0], deal[1]],
            third: None,
            up: deal[2],
            dealer_natural: false,
        },
        SideBetKind::LuckyLadies => HandContext {
            first_two: [deal[0], deal[1]],
            third: None,
            up: deal[3],
            dealer_natural: is_natural(deal[2], deal[3]),
        },
        SideBetKind::Sevens => {
            let (hole, up, next) = (deal[2], deal[3], deal[4]);
            let natural = is_natural(hole, up);
            let peeked = match rules.dealer().peek {
                Peek::TenAndAce => up.rank == Rank::Ace || up.rank.is_ten_value(),
                Peek::AceOnly => up.rank == Rank::Ace,
                Peek::None => false,
            };
            let third = match bet.third_card_source() {
                ThirdCard::UpCard => Some(up),
                ThirdCard::NextCard => {
                    // The player draws on every hand unless a peeked natural ends
                    // the round for this bet too.
                    let withheld = natural && peeked && !bet.third_card_on_dealer_natural;
                    (!withheld).then_some(next)
                }
            };
            HandContext {
                first_two: [deal[0], deal[1]],
                third,
                up,
                dealer_natural: natural,
            }
        }
    }
}

fn assert_brute_force(rules: &Rules, id: &str, cards: &[Card]) {
    let b = bet(rules, id);
    let (lines, loses, total) = naive(rules, b, cards);
    let shoe = ShoeCounts::from_cards(cards).unwrap();
    let fast: DealCounts = count_deals(rules, b, &shoe).unwrap();
    assert_eq!(fast.total, total, "{id}: total");
    assert_eq!(fast.loses, loses, "{id}: loses");
    let fast_lines: Vec<u128> = fast.lines.iter().map(|l| l.count).collect();
    assert_eq!(fast_lines, lines, "{id}: lines");
    // The shoe has every paying line at least once, so the check is not vacuous.
    assert!(lines.iter().all(|&c| c > 0), "{id}: {lines:?}");
}

fn full_deck() -> Vec<Card> {
    (0..52).filter_map(Card::from_index).collect()
}

/// Ranks in every suit, `copies` of each card.
fn shoe_of(ranks: &[Rank], copies: usize) -> Vec<Card> {
    let mut v = Vec::new();
    for c in full_deck() {
        if ranks.contains(&c.rank) {
            v.extend(std::iter::repeat_n(c, copies));
        }
    }
    v
}

#[test]
fn brute_force_three_card_kinds_full_deck() {
    let deck = full_deck();
    let lucky = preset("lucky-lucky");
    let poker = preset("blackjack-bonus");
    let plus3 = fixture("twenty-one-plus-three");
    for (rules, id) in [(&poker, "poker-bonus"), (&plus3, "21-plus-3")] {
        let b = bet(rules, id);
        let (lines, loses, total) = naive(rules, b, &deck);
        let fast = analyse_side_bet(rules, b, 1, None).unwrap();
        let mut want = lines.clone();
        want.push(loses);
        assert_eq!(fast.total, total);
        let got: Vec<u128> = fast.outcomes.iter().map(|o| o.count).collect();
        assert_eq!(got, want, "{id}");
    }
    let b = bet(&lucky, "lucky-lucky");
    let (mut lines, loses, _) = naive(&lucky, b, &deck);
    lines.push(loses);
    let got: Vec<u128> = analyse_side_bet(&lucky, b, 1, None)
        .unwrap()
        .outcomes
        .iter()
        .map(|o| o.count)
        .collect();
    assert_eq!(got, lines);
}

#[test]
fn brute_force_three_card_kinds_three_copies() {
    use Rank::*;
    // Three copies of each card: suited trips and suited 7-7-7 can occur.
    let cards = shoe_of(&[Ace, Two, Three, Six, Seven, Eight, Queen, King], 3);
    assert_brute_force(&preset("lucky-lucky"), "lucky-lucky", &cards);
    assert_brute_force(&preset("blackjack-bonus"), "poker-bonus", &cards);
    assert_brute_force(&fixture("twenty-one-plus-three"), "21-plus-3", &cards);
}

#[test]
fn brute_force_lucky_ladies() {
    let cards = parse_cards("Qh Qh Qh Qs Qs Kh Kh Jh Ah As As 9h 9h 5c Td 6c").unwrap();
    assert_brute_force(&preset("lucky-ladies"), "lucky-ladies", &cards);
    // The natural counts however late it is found (LA-3): the peek does not matter.
    let no_peek = preset("lucky-ladies")
        .modified(|f| f.dealer.peek = Peek::None)
        .unwrap();
    assert_brute_force(&no_peek, "lucky-ladies", &cards);
}

#[test]
fn brute_force_sevens_third_card_and_dealer_natural() {
    // Three copies of every 7 (suited three 7s can occur), aces and ten-values for
    // dealer naturals under either up card, and other cards.
    let mut cards = shoe_of(&[Rank::Seven], 3);
    cards.extend(parse_cards("As As Kh Kh Td 2c").unwrap());
    let lucky7 = preset("lucky-7");
    let bonus = preset("blackjack-bonus");
    let blazing = preset("blazing-7s");
    assert_brute_force(&lucky7, "lucky-7", &cards);
    assert_brute_force(&bonus, "bonus-7s", &cards);
    assert_brute_force(&blazing, "blazing-7s", &cards);
    assert_brute_force(&fixture("super-sevens"), "super-sevens", &cards);
    for peek in [Peek::AceOnly, Peek::None] {
        let r = lucky7.modified(|f| f.dealer.peek = peek).unwrap();
        assert_brute_force(&r, "lucky-7", &cards);
    }
    for change in [
        |f: &mut felt_core::rules::RulesFile| f.side_bets[0].one_seven_pays = false,
        |f: &mut felt_core::rules::RulesFile| f.side_bets[0].third_card = Some(ThirdCard::UpCard),
        |f: &mut felt_core::rules::RulesFile| {
            f.side_bets[0].third_card_on_dealer_natural = false;
            f.side_bets[0].pays[0].hand = HandName::ThreeSevensDiamonds;
        },
    ] {
        let r = blazing.modified(change).unwrap();
        assert_brute_force(&r, "blazing-7s", &cards);
    }
    // A withheld third card differs from a dealt one on this shoe.
    let shoe = ShoeCounts::from_cards(&cards).unwrap();
    let withheld = count_deals(&lucky7, bet(&lucky7, "lucky-7"), &shoe).unwrap();
    let dealt_rules = lucky7
        .modified(|f| f.side_bets[0].third_card_on_dealer_natural = true)
        .unwrap();
    let dealt = count_deals(&dealt_rules, bet(&dealt_rules, "lucky-7"), &shoe).unwrap();
    assert!(withheld.lines[0].count < dealt.lines[0].count);
}
