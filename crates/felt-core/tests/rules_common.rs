//! The common rules (C-1 .. C-12 in docs/rules.md), each on a stacked shoe
//! with exact amounts.

mod common;

use common::*;
use felt_core::round::{
    BetKind, Decisions, Event, NotOfferedWhy, Offer, Outcome, ShuffleWhy, Target, Turn,
};
use felt_core::rules::{DoubleOn, InsuranceOffer, Rounding, SplitPairs, Surrender};
use felt_core::{Action, ActionError, Decision, Money, Phase, Ratio};

fn dealt_to(t: &T) -> Vec<(Target, String, bool)> {
    t.sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Dealt {
                to, card, face_up, ..
            } => Some((*to, card.to_string(), *face_up)),
            _ => None,
        })
        .collect()
}

fn is_settled(e: &Event, bet: &str, outcome: Outcome) -> bool {
    matches!(e, Event::Settled(s) if s.outcome == outcome && match s.bet {
        BetKind::Main => bet == "main",
        BetKind::Insurance => bet == "insurance",
        BetKind::Side(id) => id == bet,
        _ => false,
    })
}

// ---- C-1 -------------------------------------------------------------------

#[test]
fn c_1_face_cards_count_ten_and_pair_by_value() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Jh Qd"], "9c", "7s", "5h 6h Tc"),
    );
    t.bet(0, 0, "10");
    t.deal();
    assert!(t.round.legal_actions().decisions.contains(Decisions::SPLIT));
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Stand); // J 5 = 15
    t.ok(0, Decision::Stand); // Q 6 = 16
    assert!(t.done());
    // Dealer 9 7 T = 26: both split hands win.
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.result(0, 0, 1, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.net(0), m("20"));
    t.check();
}

#[test]
fn c_1_same_rank_pairs_only_when_the_rules_say_rank() {
    let r = rules_with("classic", |f| f.player.split_pairs = SplitPairs::Rank);
    let mut t = T::new(&r, 1, &stack(&["Jh Qd"], "9c", "7s", ""));
    t.bet(0, 0, "10");
    t.deal();
    assert!(!t.round.legal_actions().decisions.contains(Decisions::SPLIT));
    assert_eq!(
        t.play(0, Decision::Split),
        Err(ActionError::NotOffered {
            decision: Decision::Split,
            why: NotOfferedWhy::NotAPair { by_rank: true },
        })
    );
}

#[test]
fn c_1_an_ace_counts_one_or_eleven() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Ah 6d"], "Tc", "7s", "Td"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Hit); // A 6 T = hard 17
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Push, m("10")));
    assert_eq!(t.net(0), Money::ZERO);
}

// ---- C-2 -------------------------------------------------------------------

#[test]
fn c_2_blackjack_pays_three_to_two_in_whole_cents() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Ah Kd"], "9c", "7s", ""));
    t.bet(0, 0, "5");
    t.deal();
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Blackjack, m("12.50")));
    assert_eq!(t.net(0), m("7.50"));
    t.check();
}

#[test]
fn c_2_an_exact_table_refuses_a_bet_whose_payout_is_not_whole_cents() {
    let r = rules_with("classic", |f| {
        f.main_bet.min = m("0.05");
        f.main_bet.increment = m("0.05");
        f.main_bet.blackjack_pays = Ratio::new(2, 1).unwrap();
        f.insurance.offer = InsuranceOffer::Half;
        f.table.rounding = Rounding::Exact;
    });
    let mut t = T::new(&r, 1, &[]);
    let e = t.try_act(Action::Bet {
        seat: 0,
        spot: 0,
        amount: m("0.15"),
    });
    assert!(matches!(e, Err(ActionError::InexactPayout { amount, .. }) if amount == m("0.15")));
    assert_eq!(t.round.balance(0), Some(m("1000")));
    t.bet(0, 0, "0.10");
}

#[test]
fn c_2_rounding_down_pays_the_cent_below_and_logs_the_fraction() {
    let r = rules_with("classic", |f| {
        f.main_bet.min = m("1.00");
        f.main_bet.increment = m("0.01");
        f.table.rounding = Rounding::Down;
    });
    let mut t = T::new(&r, 1, &stack(&["Ah Kd"], "9c", "7s", ""));
    t.bet(0, 0, "1.01");
    t.deal();
    // 1.01 x 3/2 = 1.515: 1.51 paid, half a cent logged.
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Blackjack, m("2.52")));
    assert!(t
        .sink
        .events
        .iter()
        .any(|e| matches!(e, Event::Rounding { num: 1, den: 2, .. })));
    t.check();
}

// ---- C-3 -------------------------------------------------------------------

#[test]
fn c_3_a_side_bet_needs_a_main_bet_on_the_same_spot() {
    let mut t = T::new(&rules("lucky-lucky"), 1, &[]);
    let e = t.try_act(Action::SideBet {
        seat: 0,
        spot: 1,
        bet: 0,
        amount: m("1"),
    });
    assert_eq!(
        e,
        Err(ActionError::SideBetWithoutMainBet { seat: 0, spot: 1 })
    );
    t.bet(0, 1, "5");
    t.side(0, 1, "lucky-lucky", "1");
    t.check();
}

#[test]
fn c_3_bets_outside_their_limits_or_increment_are_refused() {
    let mut t = T::new(&rules("lucky-lucky"), 1, &[]);
    let bet = |a: &str| Action::Bet {
        seat: 0,
        spot: 0,
        amount: m(a),
    };
    assert!(matches!(
        t.try_act(bet("4")),
        Err(ActionError::BetOutsideLimits { .. })
    ));
    assert!(matches!(
        t.try_act(bet("501")),
        Err(ActionError::BetOutsideLimits { .. })
    ));
    assert!(matches!(
        t.try_act(bet("5.50")),
        Err(ActionError::WrongIncrement { .. })
    ));
    t.bet(0, 0, "5");
    let side = |a: &str| Action::SideBet {
        seat: 0,
        spot: 0,
        bet: 0,
        amount: m(a),
    };
    assert!(matches!(
        t.try_act(side("101")),
        Err(ActionError::BetOutsideLimits { .. })
    ));
    assert!(matches!(
        t.try_act(side("1.50")),
        Err(ActionError::WrongIncrement { .. })
    ));
    assert_eq!(t.round.balance(0), Some(m("995")));
}

#[test]
fn c_3_no_bet_is_accepted_after_the_first_card() {
    let mut t = T::new(&rules("lucky-lucky"), 1, &[]);
    t.round.set_auto(false);
    t.bet(0, 0, "5");
    t.deal();
    t.round.advance(&mut t.meters, &mut t.sink).unwrap();
    let e = t.try_act(Action::Bet {
        seat: 0,
        spot: 1,
        amount: m("5"),
    });
    assert_eq!(e, Err(ActionError::LateBet));
    let e = t.try_act(Action::SideBet {
        seat: 0,
        spot: 0,
        bet: 0,
        amount: m("5"),
    });
    assert_eq!(e, Err(ActionError::LateBet));
}

#[test]
fn c_3_a_seat_plays_one_to_max_spots() {
    let mut t = T::new(&rules("classic"), 1, &[]);
    for spot in 0..3 {
        t.bet(0, spot, "5");
    }
    let e = t.try_act(Action::Bet {
        seat: 0,
        spot: 3,
        amount: m("5"),
    });
    assert_eq!(e, Err(ActionError::UnknownSpot { spot: 3, max: 2 }));
    let e = t.try_act(Action::Bet {
        seat: 1,
        spot: 0,
        amount: m("5"),
    });
    assert_eq!(e, Err(ActionError::UnknownSeat { seat: 1 }));
}

// ---- C-4 -------------------------------------------------------------------

#[test]
fn c_4_one_card_to_each_spot_then_the_hole_card_down_then_seconds_then_the_up_card() {
    let r = rules("classic");
    let mut t = T::new(&r, 2, &stack(&["Th 9c", "8h 8d", "7c 7d"], "Kd", "6s", ""));
    t.bet(1, 0, "5");
    t.bet(0, 1, "5");
    t.bet(0, 0, "5");
    t.deal();
    let p = |seat, spot| {
        Target::Player(felt_core::round::Place {
            seat,
            spot,
            hand: 0,
        })
    };
    let d = dealt_to(&t);
    let want = vec![
        (p(0, 0), "Th".to_string(), true),
        (p(0, 1), "8h".into(), true),
        (p(1, 0), "7c".into(), true),
        (Target::Dealer, "Kd".into(), false),
        (p(0, 0), "9c".into(), true),
        (p(0, 1), "8d".into(), true),
        (p(1, 0), "7d".into(), true),
        (Target::Dealer, "6s".into(), true),
    ];
    assert_eq!(d, want);
}

// ---- C-5 -------------------------------------------------------------------

#[test]
fn c_5_side_bets_settle_before_any_decision_in_the_rules_order() {
    let mut t = T::new(
        &rules("blackjack-bonus"),
        1,
        &stack(&["7h 8h"], "5c", "9h", ""),
    );
    t.bet(0, 0, "2");
    t.side(0, 0, "bonus-7s", "1");
    t.side(0, 0, "poker-bonus", "1");
    t.deal();
    assert_eq!(t.result(0, 0, 0, "poker-bonus"), (Outcome::Win, m("31")));
    assert_eq!(t.result(0, 0, 0, "bonus-7s"), (Outcome::Win, m("4")));
    let poker = t
        .index_of(|e| is_settled(e, "poker-bonus", Outcome::Win))
        .unwrap();
    let sevens = t
        .index_of(|e| is_settled(e, "bonus-7s", Outcome::Win))
        .unwrap();
    assert!(poker < sevens, "the rules file lists the poker bonus first");
    assert_eq!(t.round.phase(), Phase::PlayerTurns);
    assert!(t.index_of(|e| matches!(e, Event::Decided { .. })).is_none());
}

#[test]
fn c_5_a_bet_that_needs_a_later_card_waits_for_it() {
    let mut t = T::new(
        &rules("blackjack-bonus"),
        1,
        &stack(&["7h 7d"], "5c", "9h", "7c"),
    );
    t.bet(0, 0, "2");
    t.side(0, 0, "bonus-7s", "1");
    t.deal();
    assert!(t.find(0, 0, 0, "bonus-7s").is_none());
    t.ok(0, Decision::Hit);
    assert_eq!(t.result(0, 0, 0, "bonus-7s"), (Outcome::Win, m("251")));
}

// ---- C-6 -------------------------------------------------------------------

#[test]
fn c_6_insurance_is_any_amount_up_to_half_in_classic() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 9c"], "Kd", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    let r = t.round.legal_actions().insurance.unwrap();
    assert_eq!((r.min, r.max, r.step), (m("1"), m("5"), m("1")));
    assert!(matches!(
        t.play(0, Decision::Insure(m("2.50"))),
        Err(ActionError::WrongAmount { .. })
    ));
    t.ok(0, Decision::Insure(m("2")));
    assert_eq!(t.result(0, 0, 0, "insurance"), (Outcome::Win, m("6")));
    assert_eq!(t.net(0), m("-6")); // the main bet lost to the natural, +4.00 insured
    t.check();
}

#[test]
fn c_6_insurance_up_to_what_the_balance_covers_and_that_amount_is_allowed() {
    // Two spots of 500.00 and 499.00 leave 1.00: each may insure for 1.00 at most,
    // and the offer's full amount is that 1.00, not the half it cannot cover.
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Th 9c", "Td 8c"], "7d", "As", ""),
    );
    t.bet(0, 0, "500");
    t.bet(0, 1, "499");
    t.deal();
    let r = t.round.legal_actions().insurance.unwrap();
    assert_eq!((r.min, r.max, r.full), (m("1"), m("1"), m("1")));
    assert!(matches!(
        t.play(0, Decision::Insure(m("250"))),
        Err(ActionError::InsufficientBalance { .. })
    ));
    t.ok(0, Decision::Insure(r.full));
    assert_eq!(t.round.balance(0), Some(Money::ZERO));
}

#[test]
fn c_6_insurance_is_exactly_half_in_lucky_7_and_pays_two_to_one_at_the_peek() {
    let mut t = T::new(&rules("lucky-7"), 1, &stack(&["Th 9c"], "Kd", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(t.round.phase(), Phase::Insurance);
    let legal = t.round.legal_actions();
    assert_eq!(legal.decisions, Decisions::INSURE | Decisions::DECLINE);
    assert_eq!(legal.insurance.unwrap().min, m("5"));
    assert!(matches!(
        t.play(0, Decision::Insure(m("4"))),
        Err(ActionError::WrongAmount { .. })
    ));
    t.ok(0, Decision::Insure(m("5")));
    assert!(t.done());
    assert_eq!(t.result(0, 0, 0, "insurance"), (Outcome::Win, m("15")));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.net(0), Money::ZERO);
    t.check();
}

#[test]
fn c_6_insurance_is_lost_without_a_natural_and_play_goes_on() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 9c"], "6d", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Insure(m("5")));
    assert_eq!(t.result(0, 0, 0, "insurance"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.round.phase(), Phase::PlayerTurns);
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.net(0), m("5"));
}

#[test]
fn c_6_even_money_pays_one_to_one_at_once_whatever_the_hole_card() {
    for hole in ["Kc", "6c"] {
        let mut t = T::new(&rules("classic"), 1, &stack(&["Ah Kd"], hole, "As", ""));
        t.bet(0, 0, "10");
        t.deal();
        assert_eq!(
            t.round.legal_actions().decisions,
            Decisions::EVEN_MONEY | Decisions::DECLINE
        );
        t.ok(0, Decision::EvenMoney);
        assert!(t.done());
        assert_eq!(t.result(0, 0, 0, "main"), (Outcome::EvenMoney, m("20")));
        let paid = t
            .index_of(|e| is_settled(e, "main", Outcome::EvenMoney))
            .unwrap();
        let peek = t.index_of(|e| matches!(e, Event::Peeked { .. })).unwrap();
        assert!(paid < peek, "even money is paid at once");
        assert_eq!(t.net(0), m("10"));
        t.check();
    }
}

#[test]
fn c_6_ten_up_peeks_without_insurance_and_a_natural_ends_the_round() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Th 9c", "Ah Kd"], "Ac", "Ks", ""),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    assert!(t.done());
    assert!(t.index_of(|e| matches!(e, Event::Decided { .. })).is_none());
    assert!(t.sink.events.contains(&Event::Peeked { natural: true }));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.result(0, 1, 0, "main"), (Outcome::Push, m("10")));
    assert_eq!(t.net(0), m("-10"));
    t.check();
}

#[test]
fn c_6_up_to_half_insurance_takes_any_amount_from_the_minimum() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["Th 9c"], "Kd", "As", ""),
    );
    t.bet(0, 0, "10");
    t.deal();
    let r = t.round.legal_actions().insurance.unwrap();
    assert_eq!((r.min, r.max), (m("1"), m("5")));
    for bad in ["6", "0.50", "0"] {
        assert!(matches!(
            t.play(0, Decision::Insure(m(bad))),
            Err(ActionError::WrongAmount { .. })
        ));
    }
    t.ok(0, Decision::Insure(m("3")));
    assert_eq!(t.result(0, 0, 0, "insurance"), (Outcome::Win, m("9")));
    assert_eq!(t.net(0), m("-4"));
}

// ---- C-7 -------------------------------------------------------------------

#[test]
fn c_7_a_natural_is_paid_once_the_dealer_has_none() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Ah Kd", "Th 7c"], "9c", "Ts", ""),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Blackjack, m("25")));
    // Classic pays naturals at the settlement, after the hole card.
    let paid = t
        .index_of(|e| is_settled(e, "main", Outcome::Blackjack))
        .unwrap();
    let hole = t
        .index_of(|e| matches!(e, Event::HoleCardTurned { .. }))
        .unwrap();
    assert!(paid > hole);
}

#[test]
fn c_7_naturals_paid_in_turn_before_the_dealer_plays() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["Ah Kd", "Th 6c"], "9c", "7s", "5d"),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    let paid = t
        .index_of(|e| is_settled(e, "main", Outcome::Blackjack))
        .unwrap();
    assert!(t
        .index_of(|e| matches!(e, Event::HoleCardTurned { .. }))
        .is_none());
    t.ok(0, Decision::Stand);
    let hole = t
        .index_of(|e| matches!(e, Event::HoleCardTurned { .. }))
        .unwrap();
    assert!(paid < hole);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Blackjack, m("25")));
}

#[test]
fn c_7_two_card_21_after_a_split_pays_one_to_one() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Ah Ad"], "9c", "7s", "Kh Qd 2c"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert!(t.done());
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.result(0, 0, 1, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.net(0), m("20"));
}

#[test]
fn c_7_blackjack_pays_two_to_one_where_posted() {
    let r = rules_with("blackjack-bonus", |f| {
        f.main_bet.blackjack_pays = Ratio::new(2, 1).unwrap()
    });
    let mut t = T::new(&r, 1, &stack(&["Ah Kd"], "9c", "7s", ""));
    t.bet(0, 0, "2");
    t.deal();
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Blackjack, m("6")));
}

// ---- C-8 -------------------------------------------------------------------

#[test]
fn c_8_a_busted_hand_loses_at_once_whatever_the_dealer_does() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Th 6c"], "6d", "Ts", "Kc 9h"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Hit);
    let bust = t
        .index_of(|e| is_settled(e, "main", Outcome::Bust))
        .unwrap();
    assert!(t.done());
    let hole = t
        .index_of(|e| matches!(e, Event::HoleCardTurned { .. }))
        .unwrap();
    assert!(bust < hole);
    assert_eq!(t.net(0), m("-10"));
}

#[test]
fn c_8_double_adds_the_bet_and_takes_exactly_one_card() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["6h 5c"], "9c", "7s", "Th 8d"),
    );
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(t.round.legal_actions().double.unwrap().min, m("10"));
    t.ok(0, Decision::Double(m("10")));
    assert!(t.done(), "no decision after a double");
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("40")));
    assert_eq!(t.net(0), m("20"));
}

#[test]
fn c_8_double_for_less_down_to_the_table_minimum() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["6h 5c"], "9c", "7s", "Th 8d"),
    );
    t.bet(0, 0, "20");
    t.deal();
    let r = t.round.legal_actions().double.unwrap();
    assert_eq!((r.min, r.max), (m("5"), m("20")));
    for bad in ["3", "25"] {
        assert!(matches!(
            t.play(0, Decision::Double(m(bad))),
            Err(ActionError::WrongAmount { .. })
        ));
    }
    t.ok(0, Decision::Double(m("5")));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("50")));
    assert_eq!(t.net(0), m("25"));
}

#[test]
fn c_8_double_only_on_the_totals_the_rules_allow() {
    let r = rules_with("classic", |f| f.player.double = DoubleOn::TenToEleven);
    let mut t = T::new(&r, 1, &stack(&["5h 4c"], "9c", "7s", ""));
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(
        t.play(0, Decision::Double(m("10"))),
        Err(ActionError::NotOffered {
            decision: Decision::Double(m("10")),
            why: NotOfferedWhy::DoubleNotOnTotal {
                total: 9,
                totals: 1 << 10 | 1 << 11
            },
        })
    );
}

#[test]
fn c_8_split_respects_the_hand_limit() {
    let mut t = T::new(&rules("lucky-7"), 1, &stack(&["8h 8d"], "9c", "7s", "8c"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert!(!t.round.legal_actions().decisions.contains(Decisions::SPLIT));
}

#[test]
fn c_8_resplit_up_to_four_hands() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8d"], "9c", "7s", "8c 8s 8h"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Split);
    assert_eq!(t.round.view(0).spots[0].hands.len(), 4);
    assert!(!t.round.legal_actions().decisions.contains(Decisions::SPLIT));
    assert_eq!(t.round.balance(0), Some(m("960")));
}

#[test]
fn c_8_aces_split_once_and_take_one_card_each() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Ah Ad"], "9c", "7s", "As 5c 2c"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert!(t.done(), "split aces stand by themselves, no resplit");
    let v = t.round.view(0);
    assert_eq!(v.spots[0].hands.len(), 2);
    assert!(v.spots[0].hands.iter().all(|h| h.cards.len() == 2));
}

#[test]
fn c_8_resplit_aces_where_the_rules_allow() {
    let r = rules_with("classic", |f| f.player.resplit_aces = true);
    let mut t = T::new(&r, 1, &stack(&["Ah Ad"], "9c", "7s", "As 5c 2c 3c"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert_eq!(
        t.round.legal_actions().decisions,
        Decisions::SPLIT | Decisions::STAND
    );
    t.ok(0, Decision::Split);
    assert_eq!(t.round.view(0).spots[0].hands.len(), 3);
}

#[test]
fn c_8_hit_split_aces_where_the_rules_allow() {
    let r = rules_with("classic", |f| {
        f.player.one_card_split_aces = false;
        f.player.hit_split_aces = true;
    });
    let mut t = T::new(&r, 1, &stack(&["Ah Ad"], "9c", "7s", "5c 2c 3c"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert!(t.round.legal_actions().decisions.contains(Decisions::HIT));
    t.ok(0, Decision::Hit);
    assert_eq!(t.round.view(0).spots[0].hands[0].cards.len(), 3);
}

#[test]
fn c_8_late_surrender_returns_half_after_the_peek() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["Th 6c"], "7d", "Ts", ""),
    );
    t.bet(0, 0, "10");
    t.deal();
    assert!(t.sink.events.contains(&Event::Peeked { natural: false }));
    t.ok(0, Decision::Surrender);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Surrender, m("5")));
    assert_eq!(t.net(0), m("-5"));
}

#[test]
fn c_8_late_surrender_of_a_two_card_split_hand() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["8h 8d"], "7d", "Ts", "2c 9c"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    assert!(t
        .round
        .legal_actions()
        .decisions
        .contains(Decisions::SURRENDER));
    t.ok(0, Decision::Surrender);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Surrender, m("5")));
}

#[test]
fn c_8_early_surrender_before_the_peek() {
    let r = rules_with("classic", |f| f.player.surrender = Surrender::Early);
    let mut t = T::new(&r, 1, &stack(&["Th 6c"], "Kd", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(t.round.phase(), Phase::EarlySurrender);
    t.ok(0, Decision::Surrender);
    assert!(t.done(), "a surrendered spot is not offered insurance");
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Surrender, m("5")));
    assert_eq!(t.net(0), m("-5"));
}

#[test]
fn c_8_no_surrender_where_the_rules_have_none() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 6c"], "7d", "Ts", ""));
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(
        t.play(0, Decision::Surrender),
        Err(ActionError::NotOffered {
            decision: Decision::Surrender,
            why: NotOfferedWhy::NoSurrender,
        })
    );
}

// ---- C-8a ------------------------------------------------------------------

#[test]
fn c_8a_the_first_split_hand_is_played_out_before_the_next_gets_its_card() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8d"], "9c", "7s", "3c Th 2d 9s Kc"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Hit); // 8 3 T = 21 stands by itself
    let stood = t
        .index_of(|e| matches!(e, Event::Stood { at, .. } if at.hand == 0))
        .unwrap();
    let second = t
        .index_of(|e| matches!(e, Event::Dealt { to: Target::Player(p), .. } if p.hand == 1))
        .unwrap();
    let d = dealt_to(&t);
    assert!(d.iter().any(|(_, c, _)| c == "2d"));
    assert!(
        stood < second,
        "hand 1 gets its second card after hand 0 is done"
    );
}

#[test]
fn c_8a_a_resplit_hand_sits_right_after_its_source() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8d"], "9c", "7s", "8c 2d 3h 4s Kc"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split); // 8h | 8d ; 8h gets 8c
    t.ok(0, Decision::Split); // 8h | 8c | 8d ; 8h gets 2d
    t.ok(0, Decision::Stand);
    t.ok(0, Decision::Stand); // 8c 3h
    t.ok(0, Decision::Stand); // 8d 4s
    let v = t.round.view(0);
    let hands: Vec<String> = v.spots[0]
        .hands
        .iter()
        .map(|h| {
            h.cards
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(hands, ["8h 2d", "8c 3h", "8d 4s"]);
}

#[test]
fn c_8a_a_hard_21_stands_by_itself() {
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["5h 6c", "Th 7c"], "9c", "7s", "Tc"),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Hit);
    assert!(t
        .sink
        .events
        .iter()
        .any(|e| matches!(e, Event::Stood { total: 21, .. })));
    assert!(matches!(t.round.turn(), Turn::Seat { spot: 1, .. }));
}

#[test]
fn c_8a_a_soft_21_stands_unless_the_rules_allow_hitting_it() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Ah 5c", "Th 7c"], "9c", "7s", "5d"),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Hit);
    assert!(matches!(t.round.turn(), Turn::Seat { spot: 1, .. }));
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["Ah 5c", "Th 7c"], "9c", "7s", "5d"),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Hit);
    assert!(matches!(t.round.turn(), Turn::Seat { spot: 0, .. }));
    assert!(t.round.legal_actions().decisions.contains(Decisions::HIT));
}

#[test]
fn c_8a_insurance_is_never_offered_to_a_natural_even_money_is() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Ah Kd", "Th 9c"], "6c", "As", ""),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    assert_eq!(
        t.play(0, Decision::Insure(m("5"))),
        Err(ActionError::NotOffered {
            decision: Decision::Insure(m("5")),
            why: NotOfferedWhy::InsuranceToNatural,
        })
    );
    t.ok(0, Decision::Decline);
    assert!(t
        .round
        .legal_actions()
        .decisions
        .contains(Decisions::INSURE));
}

// ---- C-9 -------------------------------------------------------------------

#[test]
fn c_9_the_dealer_stands_on_soft_17_under_s17() {
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 7c"], "6d", "As", "Tc"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Decline);
    t.ok(0, Decision::Stand);
    assert_eq!(
        dealt_to(&t)
            .iter()
            .filter(|d| d.0 == Target::Dealer)
            .count(),
        2
    );
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Push, m("10")));
}

#[test]
fn c_9_the_dealer_hits_soft_17_under_h17() {
    let mut t = T::new(
        &rules("blackjack-bonus"),
        1,
        &stack(&["Th 7c"], "6d", "As", "Tc"),
    );
    t.bet(0, 0, "2");
    t.deal();
    t.ok(0, Decision::Decline);
    t.ok(0, Decision::Stand);
    assert_eq!(
        dealt_to(&t)
            .iter()
            .filter(|d| d.0 == Target::Dealer)
            .count(),
        3
    );
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Push, m("2")));
}

#[test]
fn c_9_a_dealer_bust_pays_every_live_hand_and_ties_push() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["Th 2c", "Th 6c"], "Tc", "6s", "9h"),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Stand);
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("20")));
    assert_eq!(t.result(0, 1, 0, "main"), (Outcome::Win, m("20")));
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 8c"], "Tc", "8s", ""));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Push, m("10")));
}

// ---- C-10 ------------------------------------------------------------------

#[test]
fn c_10_a_decision_for_another_hand_is_refused_and_changes_nothing() {
    use felt_core::round::HandRef;
    // Eights split against a 6: a "hit" meant for the first hand, sent again after it
    // has stood (a retry), must not land on the second hand.
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8c"], "Td", "6s", "3c 2d 9h"),
    );
    t.bet(0, 0, "10");
    t.deal();
    let first = Some(HandRef { spot: 0, hand: 0 });
    let second = Some(HandRef { spot: 0, hand: 1 });
    let play = |at, decision| Action::Play {
        seat: 0,
        at,
        decision,
    };
    t.try_act(play(first, Decision::Split)).unwrap();
    t.try_act(play(first, Decision::Hit)).unwrap();
    t.try_act(play(first, Decision::Stand)).unwrap();
    let before = (t.round.clone(), t.sink.events.len());
    assert_eq!(
        t.try_act(play(first, Decision::Hit)),
        Err(ActionError::NotThisHand {
            asked: HandRef { spot: 0, hand: 0 },
            turn: HandRef { spot: 0, hand: 1 },
        })
    );
    assert_eq!(
        t.try_act(play(Some(HandRef { spot: 1, hand: 0 }), Decision::Stand))
            .map_err(|e| e.to_string()),
        Err(
            "the decision is for spot 2 hand 1, but it is spot 1 hand 2's turn: nothing was done"
                .to_string()
        )
    );
    assert!(t.round == before.0, "a refused decision changed the round");
    assert_eq!(t.sink.events.len(), before.1);
    // The hand in turn takes it; a decision stored without its hand still reads.
    t.try_act(play(second, Decision::Stand)).unwrap();
    let old: Action = serde_json::from_str(r#"{"play":{"seat":0,"decision":"hit"}}"#).unwrap();
    assert_eq!(old, play(None, Decision::Hit));
    assert_eq!(
        serde_json::to_string(&play(second, Decision::Hit)).unwrap(),
        r#"{"play":{"seat":0,"at":{"spot":0,"hand":1},"decision":"hit"}}"#
    );
}

#[test]
fn c_10_a_timeout_stands_the_hand_or_declines_the_offer_and_is_in_the_log() {
    use felt_core::round::{HandRef, Place};
    // The dealer shows an ace: the timer runs out on the insurance offer (declined),
    // then on the hand (it stands).
    let mut t = T::new(&rules("classic"), 1, &stack(&["Th 6c"], "9d", "As", "5c"));
    t.bet(0, 0, "10");
    t.deal();
    let at = Place {
        seat: 0,
        spot: 0,
        hand: 0,
    };
    let offered = t.round.legal_actions().decisions;
    assert!(offered.contains(Decisions::INSURE));
    let n = t.sink.events.len();
    // Another hand's timer is refused, and changes nothing.
    assert!(matches!(
        t.try_act(Action::Timeout {
            seat: 0,
            at: Some(HandRef { spot: 1, hand: 0 })
        }),
        Err(ActionError::NotThisHand { .. })
    ));
    assert_eq!(t.sink.events.len(), n);
    t.try_act(Action::Timeout { seat: 0, at: None }).unwrap();
    assert_eq!(t.sink.events[n], Event::TimedOut { at });
    assert_eq!(
        t.sink.events[n + 1],
        Event::Decided {
            at,
            decision: Decision::Decline
        }
    );
    assert!(!t
        .round
        .legal_actions()
        .decisions
        .contains(Decisions::INSURE));
    let n = t.sink.events.len();
    t.try_act(Action::Timeout {
        seat: 0,
        at: Some(HandRef { spot: 0, hand: 0 }),
    })
    .unwrap();
    assert_eq!(t.sink.events[n], Event::TimedOut { at });
    assert!(t.sink.events[n..].contains(&Event::Decided {
        at,
        decision: Decision::Stand
    }));
    assert_eq!(t.round.turn(), Turn::Done);
    // Nothing to time out once the round is over.
    assert!(t.try_act(Action::Timeout { seat: 0, at: None }).is_err());
}

#[test]
fn c_10_a_refused_action_says_why_and_changes_nothing() {
    let mut t = T::new(
        &rules("classic"),
        2,
        &stack(&["Th 6c", "9h 8c"], "7d", "9s", "Kc 9h"),
    );
    t.bet(0, 0, "10");
    t.bet(1, 0, "10");
    t.deal();
    let attempts = [
        (
            Action::Play {
                seat: 1,
                at: None,
                decision: Decision::Hit,
            },
            ActionError::NotYourTurn { seat: 1, turn: 0 },
        ),
        (
            Action::Play {
                seat: 0,
                at: None,
                decision: Decision::Split,
            },
            ActionError::NotOffered {
                decision: Decision::Split,
                why: NotOfferedWhy::NotAPair { by_rank: false },
            },
        ),
        (
            Action::Play {
                seat: 0,
                at: None,
                decision: Decision::EvenMoney,
            },
            ActionError::NotOffered {
                decision: Decision::EvenMoney,
                why: NotOfferedWhy::OfferOver(Offer::EvenMoney),
            },
        ),
        (
            Action::Play {
                seat: 9,
                at: None,
                decision: Decision::Hit,
            },
            ActionError::UnknownSeat { seat: 9 },
        ),
        (
            Action::Bet {
                seat: 0,
                spot: 1,
                amount: m("5"),
            },
            ActionError::LateBet,
        ),
        (Action::Deal, ActionError::LateBet),
        (
            Action::Play {
                seat: 0,
                at: None,
                decision: Decision::Double(m("7")),
            },
            ActionError::WrongAmount {
                amount: m("7"),
                min: m("10"),
                max: m("10"),
            },
        ),
    ];
    for (a, want) in attempts {
        let before = t.round.clone();
        let meters = t.meters.clone();
        let n = t.sink.events.len();
        assert_eq!(t.try_act(a), Err(want));
        assert!(t.round == before, "{a:?} changed the round");
        assert_eq!(t.meters, meters);
        assert_eq!(t.sink.events.len(), n);
    }
    t.check();
}

/// Refuses `d` for seat 0 and checks the refusal: the engine's reason, in its words,
/// the same from [`felt_core::Round::check_decision`] as from the action, and nothing
/// changed.
fn refused_with(t: &mut T, d: Decision, want: ActionError, words: &str) {
    let before = t.round.clone();
    let n = t.sink.events.len();
    assert_eq!(t.round.check_decision(0, None, d), Err(want), "{d:?}");
    assert_eq!(t.play(0, d), Err(want), "{d:?}");
    assert_eq!(want.to_string(), words);
    assert!(t.round == before, "{d:?} changed the round");
    assert_eq!(t.sink.events.len(), n);
}

fn not_offered(decision: Decision, why: NotOfferedWhy) -> ActionError {
    ActionError::NotOffered { decision, why }
}

#[test]
fn c_10_a_refused_decision_says_the_rule_that_refuses_it() {
    // The hand limit of 4 (classic): a fourth pair of 8s is not split.
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8d"], "9c", "7s", "8c 8s 8h"),
    );
    t.bet(0, 0, "10");
    t.deal();
    for _ in 0..3 {
        t.ok(0, Decision::Split);
    }
    let want = not_offered(Decision::Split, NotOfferedWhy::HandLimit { max: 4 });
    refused_with(
        &mut t,
        Decision::Split,
        want,
        "the hand limit of 4 is reached",
    );

    // Lucky 7 splits once.
    let mut t = T::new(&rules("lucky-7"), 1, &stack(&["8h 8d"], "9c", "7s", "8c"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    let want = not_offered(Decision::Split, NotOfferedWhy::NoResplit);
    refused_with(
        &mut t,
        Decision::Split,
        want,
        "no resplit in this game: a spot is split once",
    );

    // Surrender on the first two cards only (Lucky Ladies has late surrender).
    let mut t = T::new(
        &rules("lucky-ladies"),
        1,
        &stack(&["5h 4d"], "9c", "7s", "2c"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Hit);
    let want = not_offered(Decision::Surrender, NotOfferedWhy::SurrenderFirstTwoCards);
    refused_with(
        &mut t,
        Decision::Surrender,
        want,
        "surrender only on the first two cards",
    );
    let d = Decision::Double(m("10"));
    let want = not_offered(d, NotOfferedWhy::DoubleFirstTwoCards);
    refused_with(&mut t, d, want, "double only on the first two cards");

    // A blackjack against an ace is offered even money, not insurance; a hand
    // without one is offered insurance, not even money; and the offer comes first.
    let mut t = T::new(&rules("classic"), 2, &stack(&["Ah Kd"], "6c", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    let d = Decision::Insure(m("5"));
    let want = not_offered(d, NotOfferedWhy::InsuranceToNatural);
    refused_with(
        &mut t,
        d,
        want,
        "insurance is not offered to a blackjack: even money is",
    );
    let want = not_offered(
        Decision::Hit,
        NotOfferedWhy::AnswerOfferFirst {
            offer: Offer::EvenMoney,
        },
    );
    refused_with(
        &mut t,
        Decision::Hit,
        want,
        "first answer the even-money offer (take it, or n for no thanks)",
    );
    let mut t = T::new(&rules("classic"), 1, &stack(&["9h 7d"], "6c", "As", ""));
    t.bet(0, 0, "10");
    t.deal();
    let want = not_offered(Decision::EvenMoney, NotOfferedWhy::EvenMoneyNeedsNatural);
    refused_with(
        &mut t,
        Decision::EvenMoney,
        want,
        "even money is only for a blackjack: this hand is offered insurance",
    );
    t.ok(0, Decision::Decline);
    // The offer is over once answered.
    let d = Decision::Insure(m("5"));
    let want = not_offered(d, NotOfferedWhy::OfferOver(Offer::Insurance));
    refused_with(
        &mut t,
        d,
        want,
        "insurance is offered only when the dealer shows an ace, before the hands are played",
    );

    // No double after a split where the rules say so.
    let r = rules_with("classic", |f| f.player.double_after_split = false);
    let mut t = T::new(&r, 1, &stack(&["8h 8d"], "9c", "7s", "3c"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    let d = Decision::Double(m("10"));
    let want = not_offered(d, NotOfferedWhy::NoDoubleAfterSplit);
    refused_with(&mut t, d, want, "no double after a split in this game");

    // A double the balance cannot cover: two spots of 500.00 leave nothing.
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["5h 6d", "Th 9c"], "9c", "7s", ""),
    );
    t.bet(0, 0, "500");
    t.bet(0, 1, "500");
    t.deal();
    let d = Decision::Double(m("500"));
    let want = ActionError::InsufficientBalance {
        needed: m("500"),
        balance: m("0"),
    };
    refused_with(&mut t, d, want, "the balance of 0.00 does not cover 500.00");
}

#[test]
fn c_10_the_refusal_is_small_and_copy() {
    fn copy<T: Copy>() {}
    copy::<ActionError>();
    assert!(std::mem::size_of::<ActionError>() <= 40);
}

#[test]
fn c_10_a_bet_above_the_balance_is_refused() {
    let table = felt_core::Table::new(&rules("classic")).unwrap();
    let mut rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(1);
    let shoe =
        felt_core::Shoe::stacked(6, &stack(&["6h 5c"], "9c", "7s", "Th 8d"), &mut rng).unwrap();
    let mut r = table.round(shoe, rng, &[m("15")]).unwrap();
    let mut meters = felt_core::NoMeters;
    let mut sink = Vec::new();
    r.begin(&mut sink).unwrap();
    let bet = |a| Action::Bet {
        seat: 0,
        spot: 0,
        amount: m(a),
    };
    assert_eq!(
        r.apply(bet("20"), &mut meters, &mut sink),
        Err(ActionError::InsufficientBalance {
            needed: m("20"),
            balance: m("15")
        })
    );
    r.apply(bet("10"), &mut meters, &mut sink).unwrap();
    r.apply(Action::Deal, &mut meters, &mut sink).unwrap();
    assert!(!r.legal_actions().decisions.contains(Decisions::DOUBLE));
    assert_eq!(
        r.apply(
            Action::Play {
                seat: 0,
                at: None,
                decision: Decision::Double(m("10"))
            },
            &mut meters,
            &mut sink
        ),
        Err(ActionError::InsufficientBalance {
            needed: m("10"),
            balance: m("5")
        })
    );
    let e = r.apply(
        Action::SideBet {
            seat: 0,
            spot: 0,
            bet: 3,
            amount: m("1"),
        },
        &mut meters,
        &mut sink,
    );
    assert_eq!(e, Err(ActionError::LateBet));
}

#[test]
fn c_10_an_unknown_side_bet_is_refused() {
    let mut t = T::new(&rules("lucky-lucky"), 1, &[]);
    t.bet(0, 0, "5");
    let e = t.try_act(Action::SideBet {
        seat: 0,
        spot: 0,
        bet: 1,
        amount: m("1"),
    });
    assert_eq!(e, Err(ActionError::UnknownSideBet { bet: 1 }));
}

// ---- C-11 ------------------------------------------------------------------

#[test]
fn c_11_a_view_never_holds_the_hole_card_or_an_undealt_card() {
    // Two shoes that agree on every face-up card of the initial deal and differ in the
    // hole card and in the undealt cards: what a seat sees must not tell them apart.
    let deal = |hole: &str, rest: &str| {
        let mut t = T::new(
            &rules("classic"),
            2,
            &stack(&["Th 6c", "9h 8c"], hole, "5s", rest),
        );
        t.bet(0, 0, "10");
        t.bet(1, 0, "10");
        t.deal();
        t
    };
    let mut a = deal("Qd", "4h 3h 2h");
    let mut b = deal("2c", "Kc Ks Kh");
    let undealt = |t: &T| t.round.shoe().undealt().to_vec();
    assert_eq!(undealt(&a)[..3], cards("4h 3h 2h")[..]);
    assert_eq!(undealt(&b)[..3], cards("Kc Ks Kh")[..]);
    assert_ne!(undealt(&a), undealt(&b));
    assert_ne!(
        a.sink.events, b.sink.events,
        "the house logs hold the hole card"
    );
    let public = |t: &T| -> Vec<String> {
        t.sink
            .events
            .iter()
            .map(|e| serde_json::to_string(&e.public()).unwrap())
            .collect()
    };
    assert_eq!(public(&a), public(&b));
    let face_up = cards("Th 6c 9h 8c 5s");
    for seat in 0..2 {
        let v = a.round.view(seat);
        assert_eq!(v.dealer.hole, None);
        assert!(v.dealer.hole_face_down);
        let json = serde_json::to_string(&v).unwrap();
        // Nothing in the view depends on the hole card or on an undealt card.
        assert_eq!(json, serde_json::to_string(&b.round.view(seat)).unwrap());
        // The hole card (the only queen of diamonds dealt) appears nowhere.
        assert!(!json.contains("Queen"), "{json}");
        // The cards in the view are exactly the face-up cards dealt: no undealt one.
        let mut shown: Vec<_> = v
            .spots
            .iter()
            .flat_map(|s| s.hands.iter().flat_map(|h| h.cards.iter().copied()))
            .chain(v.dealer.cards.iter().copied())
            .collect();
        shown.sort();
        let mut want = face_up.clone();
        want.sort();
        assert_eq!(shown, want);
        assert_eq!(v.shoe.remaining, undealt(&a).len());
        assert!(!json.contains("undealt"), "{json}");
    }
    assert!(a.round.view(0).legal.is_some());
    assert!(a.round.view(1).legal.is_none());
    for t in [&mut a, &mut b] {
        t.ok(0, Decision::Stand);
        t.ok(1, Decision::Stand);
    }
    // Turned, the hole card is in every view, and the views part.
    let hole = |t: &T| t.round.view(0).dealer.hole.map(|c| c.to_string());
    assert_eq!(hole(&a), Some("Qd".to_string()));
    assert_eq!(hole(&b), Some("2c".to_string()));
    assert_ne!(public(&a), public(&b));
}

#[test]
fn c_11_every_card_and_every_chip_moved_is_an_event() {
    let mut t = T::new(
        &rules("classic"),
        1,
        &stack(&["8h 8d"], "9c", "7s", "3c Th 2d 9s Kc"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Hit);
    t.ok(0, Decision::Double(m("10")));
    assert!(t.done());
    let dealt = dealt_to(&t).len();
    let v = t.round.view(0);
    let on_table: usize = v
        .spots
        .iter()
        .flat_map(|s| s.hands.iter())
        .map(|h| h.cards.len())
        .sum::<usize>()
        + v.dealer.cards.len();
    assert_eq!(dealt, on_table);
    assert_eq!(dealt, 9);
    assert_eq!(t.sink.ledger.sum(), Money::ZERO);
    assert_eq!(t.sink.ledger.felt, Money::ZERO);
    t.check();
}

// ---- C-12 ------------------------------------------------------------------

#[test]
fn c_12_a_new_shoe_is_shuffled_then_one_card_burned() {
    let table = felt_core::Table::new(&rules("classic")).unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(5);
    let mut r = table.round(table.new_shoe(), rng, &[m("100")]).unwrap();
    let mut ev = Vec::new();
    r.begin(&mut ev).unwrap();
    assert!(matches!(
        ev[1],
        Event::Shuffled {
            cards: 312,
            why: ShuffleWhy::NewShoe
        }
    ));
    assert!(matches!(ev[2], Event::Burned { face_up: false, .. }));
    assert_eq!(r.shoe().discards(), 1);
    let next = r.shoe().undealt()[0];
    r.apply(
        Action::Bet {
            seat: 0,
            spot: 0,
            amount: m("5"),
        },
        &mut felt_core::NoMeters,
        &mut ev,
    )
    .unwrap();
    r.apply(Action::Deal, &mut felt_core::NoMeters, &mut ev)
        .unwrap();
    let first = ev.iter().find_map(|e| match e {
        Event::Dealt { card, .. } => Some(*card),
        _ => None,
    });
    assert_eq!(first, Some(next));
}

#[test]
fn c_12_the_shoe_is_reshuffled_after_the_round_the_cut_card_comes_out() {
    let r = rules_with("classic", |f| {
        f.shoe.decks = 1;
        f.shoe.penetration = 0.1;
    });
    let table = felt_core::Table::new(&r).unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(5);
    let mut round = table.round(table.new_shoe(), rng, &[m("100")]).unwrap();
    let mut rounds = Vec::new();
    for _ in 0..2 {
        let mut ev = Vec::new();
        round.begin(&mut ev).unwrap();
        round
            .apply(
                Action::Bet {
                    seat: 0,
                    spot: 0,
                    amount: m("5"),
                },
                &mut felt_core::NoMeters,
                &mut ev,
            )
            .unwrap();
        round
            .apply(Action::Deal, &mut felt_core::NoMeters, &mut ev)
            .unwrap();
        while round.phase() != Phase::Done {
            let d = match round.legal_actions().decisions {
                d if d.contains(Decisions::DECLINE) => Decision::Decline,
                _ => Decision::Stand,
            };
            round
                .apply(
                    Action::Play {
                        seat: 0,
                        at: None,
                        decision: d,
                    },
                    &mut felt_core::NoMeters,
                    &mut ev,
                )
                .unwrap();
        }
        rounds.push(ev);
    }
    // Cut at 5 of 52: burn + 4 cards out, the 6th card brings the cut card out.
    let cut = rounds[0]
        .iter()
        .position(|e| matches!(e, Event::CutCardOut { .. }))
        .unwrap();
    let end = rounds[0]
        .iter()
        .position(|e| matches!(e, Event::RoundEnded { .. }))
        .unwrap();
    assert!(
        cut < end,
        "the round with the cut card is played to its end"
    );
    assert!(!rounds[0]
        .iter()
        .skip(2)
        .any(|e| matches!(e, Event::Shuffled { .. })));
    assert!(matches!(
        rounds[1][1],
        Event::Shuffled {
            why: ShuffleWhy::CutCard,
            ..
        }
    ));
}

#[test]
fn c_12_a_csm_takes_every_card_back_and_reshuffles_before_every_round() {
    let r = rules_with("classic", |f| f.shoe.csm = true);
    let table = felt_core::Table::new(&r).unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(5);
    let mut round = table.round(table.new_shoe(), rng, &[m("100")]).unwrap();
    for _ in 0..3 {
        let mut ev = Vec::new();
        round.begin(&mut ev).unwrap();
        assert!(matches!(
            ev[1],
            Event::Shuffled {
                cards: 312,
                why: ShuffleWhy::Csm
            }
        ));
        assert_eq!(round.shoe().discards(), 1, "only the burn card is out");
        round
            .apply(
                Action::Bet {
                    seat: 0,
                    spot: 0,
                    amount: m("5"),
                },
                &mut felt_core::NoMeters,
                &mut ev,
            )
            .unwrap();
        round
            .play_auto(
                &mut |c: &felt_core::DecisionContext<'_>| {
                    if c.legal.decisions.contains(Decisions::DECLINE) {
                        Decision::Decline
                    } else {
                        Decision::Stand
                    }
                },
                &mut felt_core::NoMeters,
                &mut ev,
            )
            .unwrap();
    }
}

#[test]
fn c_12_a_shoe_that_runs_dry_with_an_empty_rack_voids_the_round() {
    // One deck at a full table of 7 seats x 3 spots: the initial deal takes 44 of the
    // 52 cards (a table whose deal alone exceeds the shoe is refused by validation);
    // every hand hits while it may, and the 8 cards left run out with nothing in the
    // rack (a stacked shoe burns nothing).
    let r = rules_with("classic", |f| {
        f.shoe.decks = 1;
        f.table.max_spots_per_player = 3;
    });
    let mut t = T::new(&r, 7, &[]);
    for seat in 0..7 {
        for spot in 0..3 {
            t.bet(seat, spot, "5");
        }
    }
    t.deal();
    while let Turn::Seat { seat, .. } = t.round.turn() {
        let offered = t.round.legal_actions().decisions;
        let d = if offered.contains(Decisions::HIT) {
            Decision::Hit
        } else if offered.contains(Decisions::DECLINE) {
            Decision::Decline
        } else {
            Decision::Stand
        };
        t.ok(seat, d);
    }
    assert!(t.done());
    let void = t
        .index_of(|e| *e == Event::Voided)
        .expect("the round is voided");
    // A hand that busted before the shoe ran dry had lost at once (C-8); every stake
    // still on the felt comes back.
    for seat in 0..7 {
        let busted: Money = t.sink.events[..void]
            .iter()
            .filter_map(|e| match e {
                Event::Settled(s) if s.at.seat == seat && s.outcome == Outcome::Bust => {
                    Some(s.stake)
                }
                _ => None,
            })
            .sum();
        assert_eq!(t.net(seat), -busted);
    }
    assert!(t.sink.events[..void]
        .iter()
        .any(|e| matches!(e, Event::Settled(s) if s.outcome == Outcome::Returned)));
    t.check();
}

#[test]
fn c_12_a_full_table_whose_deal_fills_the_shoe_can_finish_a_round() {
    // The largest table validation accepts for one deck: 25 spots, whose initial deal
    // takes all 52 cards. With a dealer natural found at the peek the round finishes
    // on those cards: the check refuses only tables that can never finish a round.
    let r = rules_with("classic", |f| {
        f.shoe.decks = 1;
        f.table.seats = 5;
        f.table.max_spots_per_player = 5;
    });
    let deck: Vec<felt_core::Card> = felt_core::shoe::full_decks(1).collect();
    let (hole, up) = (cards("As")[0], cards("Kd")[0]);
    let rest: Vec<felt_core::Card> = deck.into_iter().filter(|&c| c != hole && c != up).collect();
    let mut stacked = rest[..25].to_vec();
    stacked.push(hole);
    stacked.extend_from_slice(&rest[25..]);
    stacked.push(up);
    assert_eq!(stacked.len(), 52);
    let mut t = T::new(&r, 5, &stacked);
    for seat in 0..5 {
        for spot in 0..5 {
            t.bet(seat, spot, "5");
        }
    }
    t.deal();
    assert!(t.done());
    assert!(!t.sink.events.contains(&Event::Voided));
    assert!(t.sink.events.contains(&Event::Peeked { natural: true }));
    assert_eq!(t.round.shoe().remaining(), 0);
    t.check();
}

#[test]
fn c_10_balances_stay_between_zero_and_the_limit() {
    let mut t = T::new(&rules("classic"), 1, &[]);
    assert_eq!(
        t.round.deposit(0, m("1")),
        Err(ActionError::RoundInProgress)
    );
    t.bet(0, 0, "5");
    t.try_act(Action::Withdraw { seat: 0, spot: 0 }).unwrap();
    let table = felt_core::Table::new(&rules("classic")).unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(1);
    let mut r = table.round(table.new_shoe(), rng, &[m("10")]).unwrap();
    assert!(r.deposit(0, Money(i64::MAX)).is_err());
    assert!(r.deposit(0, m("-11")).is_err());
    assert_eq!(r.deposit(0, m("-10")), Ok(Money::ZERO));
    let rng = <rand_chacha::ChaCha20Rng as rand::SeedableRng>::seed_from_u64(1);
    assert!(table.round(table.new_shoe(), rng, &[Money(-1)]).is_err());
}
