//! The side bets and their games: Lucky 7 (L7), Lucky Lucky (LL), Blazing 7s (B7),
//! Blackjack Bonus (BB) and Lucky Ladies (LA), on stacked shoes with exact amounts.

mod common;

use common::*;
use felt_core::round::{BetKind, Event, MeterWhy, Outcome};
use felt_core::rules::{LateNatural, Peek, ThirdCard};
use felt_core::sidebet::HandName;
use felt_core::{
    Action, ActionError, Basis, Decision, MemoryMeters, MeterId, Meters, Money, Phase, Rules, Table,
};

fn is_side_settled(e: &Event, id: &str) -> bool {
    matches!(e, Event::Settled(s) if matches!(s.bet, BetKind::Side(b) if b == id))
}

/// One spot, main bet `main`, side bet `id` for `amount`, on these cards; the
/// decisions in order (insurance declined by `Decline`).
fn one(
    r: &Rules,
    id: &str,
    main: &str,
    amount: &str,
    cards: &[felt_core::Card],
    ds: &[Decision],
) -> T {
    let mut t = T::new(r, 1, cards);
    t.bet(0, 0, main);
    t.side(0, 0, id, amount);
    t.deal();
    for d in ds {
        t.ok(0, *d);
    }
    t.check();
    t
}

fn side(t: &T, id: &str) -> (Outcome, Money) {
    t.result(0, 0, 0, id)
}

fn first_decision(t: &T) -> usize {
    t.index_of(|e| matches!(e, Event::Decided { .. }))
        .unwrap_or(usize::MAX)
}

fn meter_id() -> MeterId {
    MeterId::new("blazing-7s").unwrap()
}

// ---- Lucky 7 -------------------------------------------------------------------

#[test]
fn l7_1_the_lucky_7_bet_is_exactly_one_unit_on_a_spot_with_a_main_bet() {
    let mut t = T::new(&rules("lucky-7"), 1, &[]);
    let sb = |a: &str| Action::SideBet {
        seat: 0,
        spot: 0,
        bet: 0,
        amount: m(a),
    };
    assert_eq!(
        t.try_act(sb("1")),
        Err(ActionError::SideBetWithoutMainBet { seat: 0, spot: 0 })
    );
    t.bet(0, 0, "5");
    assert!(matches!(
        t.try_act(sb("2")),
        Err(ActionError::BetOutsideLimits { .. })
    ));
    assert!(matches!(
        t.try_act(sb("0.50")),
        Err(ActionError::BetOutsideLimits { .. })
    ));
    t.side(0, 0, "lucky-7", "1");
}

#[test]
fn l7_2_first_card_a_seven_pays_three() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 9c"], "9d", "7s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("4")));
}

#[test]
fn l7_2_two_sevens_pay_25_or_50_suited() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("26")));
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7h"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("51")));
}

#[test]
fn l7_2_three_sevens_pay_100_or_500_suited() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("101")));
    assert_eq!(
        t.settled(0, 0, 0, "lucky-7").line,
        Some(HandName::ThreeSevens)
    );
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7h"], "9d", "8s", "7h"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("501")));
}

#[test]
fn l7_2_four_sevens_pay_as_three_and_a_first_card_not_seven_loses() {
    // Split 7s: the third card is a 7 (three 7s), a fourth 7 changes nothing.
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c 7s 5c"),
        &[Decision::Split, Decision::Stand],
    );
    let bets: Vec<_> = t
        .settlements()
        .into_iter()
        .filter(|s| matches!(s.bet, BetKind::Side(_)))
        .collect();
    assert_eq!(bets.len(), 1);
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("101")));
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["9h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Lose, Money::ZERO));
}

#[test]
fn l7_3_dealer_blackjack_pays_two_sevens() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "Kd", "As", "7c"),
        &[Decision::Decline],
    );
    assert!(t.done());
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("26")));
    assert!(!t.sink.events.iter().any(|e| matches!(
        e,
        Event::Dealt {
            side_bet_only: true,
            ..
        }
    )));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.net(0), m("20"));
}

#[test]
fn l7_4_the_third_card_after_a_split_is_the_first_split_hand_s_card() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c 5c"),
        &[Decision::Split, Decision::Stand, Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("101")));
}

#[test]
fn l7_4_the_third_card_of_a_double_counts_and_standing_pays_two_sevens() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c"),
        &[Decision::Double(m("5"))],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("101")));
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c"),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-7"), (Outcome::Win, m("26")));
}

#[test]
fn l7_5_a_losing_bet_is_collected_and_a_win_paid_right_after_the_deal() {
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["9h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert!(t.index_of(|e| is_side_settled(e, "lucky-7")).unwrap() < first_decision(&t));
    let t = one(
        &rules("lucky-7"),
        "lucky-7",
        "5",
        "1",
        &stack(&["7h 9d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert!(t.index_of(|e| is_side_settled(e, "lucky-7")).unwrap() < first_decision(&t));
}

// ---- Lucky Lucky ----------------------------------------------------------------

fn ll(p: &str, up: &str) -> (Outcome, Money) {
    let t = one(
        &rules("lucky-lucky"),
        "lucky-lucky",
        "5",
        "1",
        &stack(&[p], "9c", up, ""),
        &[],
    );
    side(&t, "lucky-lucky")
}

#[test]
fn ll_1_the_three_cards_are_the_first_two_and_the_up_card() {
    let t = one(
        &rules("lucky-lucky"),
        "lucky-lucky",
        "5",
        "5",
        &stack(&["6h 8h"], "9c", "7h", ""),
        &[],
    );
    assert_eq!(side(&t, "lucky-lucky"), (Outcome::Win, m("505")));
    assert_eq!(
        t.settled(0, 0, 0, "lucky-lucky").line,
        Some(HandName::Suited678)
    );
}

#[test]
fn ll_2_the_pay_table_pays_only_the_highest_line() {
    assert_eq!(ll("7h 7h", "7h"), (Outcome::Win, m("201")));
    assert_eq!(ll("7h 7d", "7c"), (Outcome::Win, m("51")));
    assert_eq!(ll("6h 8d", "7c"), (Outcome::Win, m("31")));
    assert_eq!(ll("5h 6h", "Th"), (Outcome::Win, m("16")));
    assert_eq!(ll("5h 6d", "Th"), (Outcome::Win, m("4")));
    assert_eq!(ll("5h 5d", "Th"), (Outcome::Win, m("3")));
    assert_eq!(ll("5h 4d", "Th"), (Outcome::Win, m("3")));
    assert_eq!(ll("4h 4d", "Th"), (Outcome::Lose, Money::ZERO));
}

#[test]
fn ll_2_an_ace_counts_one_or_eleven() {
    assert_eq!(ll("Ah Ad", "9s"), (Outcome::Win, m("4")));
    assert_eq!(ll("Ah Ad", "As"), (Outcome::Lose, Money::ZERO));
}

#[test]
fn ll_3_one_or_two_decks_drop_the_suited_777_line() {
    let lines = |decks: u8| -> Vec<HandName> {
        let r = rules("lucky-lucky").with_decks(decks).unwrap();
        Table::new(&r).unwrap().side_bets()[0]
            .lines
            .iter()
            .map(|l| l.hand)
            .collect()
    };
    for d in [1, 2] {
        assert!(!lines(d).contains(&HandName::Suited777), "{d} decks");
        assert_eq!(lines(d).len(), 7);
    }
    for d in [3, 6, 8] {
        assert!(lines(d).contains(&HandName::Suited777));
    }
}

#[test]
fn ll_4_settled_after_the_deal_before_the_peek_the_main_bet_plays_on() {
    let t = one(
        &rules("lucky-lucky"),
        "lucky-lucky",
        "10",
        "1",
        &stack(&["9h Tc"], "6c", "As", ""),
        &[Decision::Decline, Decision::Stand],
    );
    assert_eq!(side(&t, "lucky-lucky"), (Outcome::Win, m("3")));
    let settled = t.index_of(|e| is_side_settled(e, "lucky-lucky")).unwrap();
    let peek = t.index_of(|e| matches!(e, Event::Peeked { .. })).unwrap();
    assert!(settled < first_decision(&t) && settled < peek);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Win, m("20")));
}

// ---- Blazing 7s -----------------------------------------------------------------

fn b7() -> Rules {
    rules("blazing-7s")
}

#[test]
fn b7_1_no_wager_after_the_first_card() {
    let mut t = T::new(&b7(), 1, &[]);
    t.round.set_auto(false);
    t.bet(0, 0, "5");
    t.deal();
    t.round.advance(&mut t.meters, &mut t.sink).unwrap();
    let e = t.try_act(Action::SideBet {
        seat: 0,
        spot: 0,
        bet: 0,
        amount: m("1"),
    });
    assert_eq!(e, Err(ActionError::LateBet));
}

#[test]
fn b7_1_every_wager_adds_the_increment_whatever_its_outcome() {
    let mut t = T::new(&b7(), 2, &stack(&["9h 8d", "Th 9c"], "9d", "8s", ""));
    assert_eq!(t.meters.value(&meter_id()), Some(m("2000")));
    for seat in 0..2 {
        t.bet(seat, 0, "5");
        t.side(seat, 0, "blazing-7s", "1");
    }
    t.deal();
    let changes: Vec<(Money, Money)> = t
        .sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Meter {
                change,
                why: MeterWhy::Increment,
            } => Some((change.before, change.after)),
            _ => None,
        })
        .collect();
    assert_eq!(
        changes,
        [(m("2000"), m("2000.20")), (m("2000.20"), m("2000.40"))]
    );
    t.ok(0, Decision::Stand);
    t.ok(1, Decision::Stand);
    assert_eq!(side(&t, "blazing-7s").0, Outcome::Lose);
    assert_eq!(t.meters.value(&meter_id()), Some(m("2000.40")));
    t.check();
}

/// The events that moved a meter.
fn meter_events(t: &T) -> usize {
    t.sink
        .events
        .iter()
        .filter(|e| matches!(e, Event::Meter { .. }))
        .count()
}

#[test]
fn b7_1_a_wager_whose_meter_is_missing_stops_the_deal_and_changes_nothing() {
    let mut t = T::new(&b7(), 2, &[]);
    t.bet(0, 0, "5");
    t.bet(1, 0, "5");
    t.side(1, 0, "blazing-7s", "1");
    // The store has lost the meter.
    t.meters = MemoryMeters::new();
    let (before, events) = (t.round.clone(), t.sink.events.len());
    assert_eq!(
        t.try_act(Action::Deal),
        Err(ActionError::MeterMissing { id: meter_id() })
    );
    assert!(t.round == before, "a refused deal changed the round");
    assert_eq!(t.sink.events.len(), events, "a refused deal emitted events");
    assert_eq!(t.meters, MemoryMeters::new());
    // With its meter back, the same deal goes ahead and the wager adds its increment.
    t.meters.set(meter_id(), m("2000"));
    t.deal();
    assert_eq!(t.meters.value(&meter_id()), Some(m("2000.20")));
    assert_eq!(meter_events(&t), 1);
}

#[test]
fn b7_1_a_wager_withdrawn_before_the_deal_needs_no_meter() {
    let mut t = T::new(&b7(), 2, &[]);
    t.bet(0, 0, "5");
    t.side(0, 0, "blazing-7s", "1");
    t.bet(1, 0, "5");
    t.try_act(Action::Withdraw { seat: 0, spot: 0 }).unwrap();
    t.meters = MemoryMeters::new();
    t.deal();
    assert_eq!(meter_events(&t), 0);
    assert_eq!(t.meters, MemoryMeters::new());
}

#[test]
fn b7_2_table_a_one_and_two_sevens_pay_fixed_odds() {
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["9h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("3")));
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("26")));
}

#[test]
fn b7_2_table_a_three_sevens_200_to_1_one_colour_10_percent_one_suit_the_meter() {
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201")));
    // Meter 2000.20 after the wager: 10% = 200.02, stake back too; 1800.18 stays.
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7d"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201.02")));
    assert_eq!(t.meters.value(&meter_id()), Some(m("1800.18")));
    // Three 7s of one suit: the whole meter, then the reset value.
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7h"], "9d", "8s", "7h"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("2001.20")));
    assert_eq!(t.meters.value(&meter_id()), Some(m("2000")));
}

#[test]
fn b7_2_table_b_diamonds_take_the_meter_other_suits_10_percent_one_colour_500() {
    let r = rules_with("blazing-7s", |f| {
        let p = &mut f.side_bets[0].pays;
        p[0].hand = HandName::ThreeSevensDiamonds;
        p[1].hand = HandName::ThreeSevensSuited;
        p[2].hand = HandName::ThreeSevensSameColour;
        p[2].pay = felt_core::rules::LinePay::Odds(felt_core::Ratio::new(500, 1).unwrap());
        p.insert(
            3,
            felt_core::rules::PayLine {
                hand: HandName::ThreeSevens,
                pay: felt_core::rules::LinePay::Odds(felt_core::Ratio::new(200, 1).unwrap()),
                basis: Basis::To,
            },
        );
    });
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7h"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("501")));
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7h"], "9d", "8s", "7h"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201.02")));
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7d 7d"], "9d", "8s", "7d"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("2001.20")));
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7c 7d"], "9d", "8s", "7s"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201")));
}

#[test]
fn b7_3_one_seven_pays_two_to_one_unless_the_switch_says_otherwise() {
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 9d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("3")));
    let r = rules_with("blazing-7s", |f| f.side_bets[0].one_seven_pays = false);
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 9d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Lose, Money::ZERO));
}

#[test]
fn b7_3a_a_for_basis_line_does_not_return_the_stake() {
    let r = rules_with("blazing-7s", |f| {
        for l in &mut f.side_bets[0].pays {
            l.basis = Basis::For;
        }
    });
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("25")));
    assert_eq!(t.net(0), m("19"), "-5 main, -1 stake, +25");
}

#[test]
fn b7_4_on_a_dealer_natural_two_sevens_still_get_a_third_card() {
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "Kd", "As", "7c"),
        &[Decision::Decline],
    );
    assert!(t.done());
    assert!(t.sink.events.iter().any(|e| matches!(
        e,
        Event::Dealt {
            side_bet_only: true,
            ..
        }
    )));
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201")));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
}

#[test]
fn b7_4_the_third_card_after_a_split_and_standing_on_two_sevens() {
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7c 5c"),
        &[Decision::Split, Decision::Stand, Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201")));
    let t = one(
        &b7(),
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("26")));
}

#[test]
fn b7_5_the_up_card_as_the_third_card() {
    let r = rules_with("blazing-7s", |f| {
        f.side_bets[0].third_card = Some(ThirdCard::UpCard)
    });
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "7c", ""),
        &[Decision::Stand],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("201")));
    assert!(t.index_of(|e| is_side_settled(e, "blazing-7s")).unwrap() < first_decision(&t));
}

#[test]
fn b7_5a_a_meter_line_pays_its_share_on_the_line_s_basis() {
    let r = rules_with("blazing-7s", |f| f.side_bets[0].pays[1].basis = Basis::For);
    let t = one(
        &r,
        "blazing-7s",
        "5",
        "1",
        &stack(&["7h 7d"], "9d", "8s", "7d"),
        &[Decision::Hit],
    );
    assert_eq!(side(&t, "blazing-7s"), (Outcome::Win, m("200.02")));
}

#[test]
fn b7_6_several_winners_in_seat_order_each_from_the_meter_as_it_stands() {
    let r = rules_with("blazing-7s", |f| {
        f.side_bets[0].third_card = Some(ThirdCard::UpCard)
    });
    // Two 10% winners: 2000.40 -> 200.04 paid; 1800.36 -> 180.03 paid (180.036 rounded down).
    let mut t = T::new(&r, 2, &stack(&["7h 7d", "7d 7h"], "9c", "7d", ""));
    for seat in 0..2 {
        t.bet(seat, 0, "5");
        t.side(seat, 0, "blazing-7s", "1");
    }
    t.deal();
    assert_eq!(t.result(0, 0, 0, "blazing-7s"), (Outcome::Win, m("201.04")));
    assert_eq!(t.result(1, 0, 0, "blazing-7s"), (Outcome::Win, m("181.03")));
    assert_eq!(t.meters.value(&meter_id()), Some(m("1620.33")));
    let awards: Vec<(Money, Money)> = t
        .sink
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Meter {
                change,
                why: MeterWhy::Award,
            } => Some((change.before, change.after)),
            _ => None,
        })
        .collect();
    assert_eq!(
        awards,
        [(m("2000.40"), m("1800.36")), (m("1800.36"), m("1620.33"))]
    );
    t.check();
}

#[test]
fn b7_6_a_full_meter_award_resets_to_the_reset_value_for_the_next_winner() {
    let r = rules_with("blazing-7s", |f| {
        f.side_bets[0].third_card = Some(ThirdCard::UpCard)
    });
    let mut t = T::new(&r, 2, &stack(&["7h 7h", "7h 7h"], "9c", "7h", ""));
    for seat in 0..2 {
        t.bet(seat, 0, "5");
        t.side(seat, 0, "blazing-7s", "1");
    }
    t.deal();
    assert_eq!(
        t.result(0, 0, 0, "blazing-7s"),
        (Outcome::Win, m("2001.40"))
    );
    assert_eq!(t.result(1, 0, 0, "blazing-7s"), (Outcome::Win, m("2001")));
    assert_eq!(t.meters.value(&meter_id()), Some(m("2000")));
    let resets = t
        .sink
        .events
        .iter()
        .filter(|e| matches!(e, Event::Meter { why: MeterWhy::Reset, change } if change.after == m("2000")))
        .count();
    assert_eq!(resets, 2);
    t.check();
}

#[test]
fn b7_7_other_optional_wagers_settle_before_the_progressive() {
    let text = format!(
        "{}\n[[side_bets]]\nid = \"lucky-lucky\"\nname = \"Lucky Lucky\"\nkind = \"lucky-lucky\"\nmin = \"1.00\"\nmax = \"100.00\"\nincrement = \"1.00\"\npays = [ {{ hand = \"21\", odds = \"3:1\", basis = \"to\" }} ]\n",
        felt_core::presets::PRESETS[3].1
    );
    let r = Rules::from_toml(&text, "b7-and-ll.toml").unwrap();
    let mut t = T::new(&r, 1, &stack(&["7h 4d"], "9c", "Ts", ""));
    t.bet(0, 0, "5");
    t.side(0, 0, "blazing-7s", "1");
    t.side(0, 0, "lucky-lucky", "1");
    t.deal();
    let ll = t.index_of(|e| is_side_settled(e, "lucky-lucky")).unwrap();
    let b7 = t.index_of(|e| is_side_settled(e, "blazing-7s")).unwrap();
    assert!(
        ll < b7,
        "the progressive settles last although the file lists it first"
    );
    assert_eq!(t.result(0, 0, 0, "lucky-lucky"), (Outcome::Win, m("4")));
    assert_eq!(t.result(0, 0, 0, "blazing-7s"), (Outcome::Win, m("3")));
}

// ---- Blackjack Bonus ------------------------------------------------------------

fn poker(p: &str, up: &str) -> (Outcome, Money) {
    let t = one(
        &rules("blackjack-bonus"),
        "poker-bonus",
        "2",
        "1",
        &stack(&[p], "5c", up, ""),
        &[],
    );
    assert!(t.index_of(|e| is_side_settled(e, "poker-bonus")).unwrap() < first_decision(&t));
    side(&t, "poker-bonus")
}

#[test]
fn bb_1_three_card_poker_bonus_pays_the_highest_hand() {
    assert_eq!(poker("7h 7h", "7h"), (Outcome::Win, m("101")));
    assert_eq!(poker("Qh Kh", "Ah"), (Outcome::Win, m("31")));
    assert_eq!(poker("7h 7d", "7c"), (Outcome::Win, m("21")));
    assert_eq!(poker("Ah 2d", "3c"), (Outcome::Win, m("8")));
    assert_eq!(poker("Qh Kd", "Ac"), (Outcome::Win, m("8")));
    assert_eq!(poker("2h 9h", "Kh"), (Outcome::Win, m("5")));
    assert_eq!(poker("2h 9d", "Kh"), (Outcome::Lose, Money::ZERO));
}

fn bonus7(cards: &[felt_core::Card], ds: &[Decision]) -> T {
    one(&rules("blackjack-bonus"), "bonus-7s", "2", "1", cards, ds)
}

#[test]
fn bb_2_bonus_7s_pays_first_cards_not_cumulative() {
    let t = bonus7(&stack(&["7h 9d"], "9c", "8s", ""), &[Decision::Stand]);
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("4")));
    let t = bonus7(&stack(&["7h 7d"], "9c", "8s", ""), &[Decision::Stand]);
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("51")));
    let t = bonus7(&stack(&["7h 7h"], "9c", "8s", ""), &[Decision::Stand]);
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("101")));
    let t = bonus7(&stack(&["7h 7d"], "9c", "8s", "7c"), &[Decision::Hit]);
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("251")));
    let t = bonus7(&stack(&["7h 7h"], "9c", "8s", "7h"), &[Decision::Hit]);
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("501")));
    assert_eq!(
        t.settlements()
            .iter()
            .filter(|s| matches!(s.bet, BetKind::Side(_)))
            .count(),
        1
    );
}

#[test]
fn bb_3_a_dealer_natural_pays_two_sevens_without_a_third_card() {
    let t = bonus7(&stack(&["7h 7d"], "Kd", "As", "7c"), &[Decision::Decline]);
    assert!(t.done());
    assert_eq!(side(&t, "bonus-7s"), (Outcome::Win, m("51")));
    assert!(!t.sink.events.iter().any(|e| matches!(
        e,
        Event::Dealt {
            side_bet_only: true,
            ..
        }
    )));
}

// ---- Lucky Ladies ---------------------------------------------------------------

fn ladies(p: &str, hole: &str, up: &str, ds: &[Decision]) -> T {
    one(
        &rules("lucky-ladies"),
        "lucky-ladies",
        "10",
        "1",
        &stack(&[p], hole, up, ""),
        ds,
    )
}

#[test]
fn la_1_any_two_card_twenty_wins_settled_before_the_peek() {
    let t = ladies("Kh Td", "7c", "Ts", &[Decision::Stand]);
    assert_eq!(side(&t, "lucky-ladies"), (Outcome::Win, m("5")));
    let settled = t.index_of(|e| is_side_settled(e, "lucky-ladies")).unwrap();
    let peek = t.index_of(|e| matches!(e, Event::Peeked { .. })).unwrap();
    assert!(settled < peek);
}

#[test]
fn la_1_the_dealer_natural_line_settles_when_the_hole_card_is_known() {
    let t = ladies("Qh Qh", "Ac", "Ks", &[]);
    assert_eq!(side(&t, "lucky-ladies"), (Outcome::Win, m("1001")));
    let settled = t.index_of(|e| is_side_settled(e, "lucky-ladies")).unwrap();
    let peek = t.index_of(|e| matches!(e, Event::Peeked { .. })).unwrap();
    assert!(settled > peek);
    let t = ladies("Qh Qh", "7c", "Ks", &[Decision::Stand]);
    assert_eq!(side(&t, "lucky-ladies"), (Outcome::Win, m("126")));
    let settled = t.index_of(|e| is_side_settled(e, "lucky-ladies")).unwrap();
    assert!(settled > t.index_of(|e| matches!(e, Event::Peeked { .. })).unwrap());
    // A 9 up cannot make a natural: paid at once.
    let t = ladies("Qh Qh", "7c", "9s", &[Decision::Stand]);
    assert_eq!(side(&t, "lucky-ladies"), (Outcome::Win, m("126")));
    assert!(t.index_of(|e| is_side_settled(e, "lucky-ladies")).unwrap() < first_decision(&t));
}

#[test]
fn la_2_pay_table_a() {
    assert_eq!(
        side(
            &ladies("Kh Kh", "7c", "9s", &[Decision::Stand]),
            "lucky-ladies"
        ),
        (Outcome::Win, m("20"))
    );
    assert_eq!(
        side(
            &ladies("Kh Qh", "7c", "9s", &[Decision::Stand]),
            "lucky-ladies"
        ),
        (Outcome::Win, m("10"))
    );
    assert_eq!(
        side(
            &ladies("Kh Qd", "7c", "9s", &[Decision::Stand]),
            "lucky-ladies"
        ),
        (Outcome::Win, m("5"))
    );
    assert_eq!(
        side(
            &ladies("Ah 9d", "7c", "9s", &[Decision::Stand]),
            "lucky-ladies"
        ),
        (Outcome::Win, m("5"))
    );
    assert_eq!(
        side(
            &ladies("Kh 8d", "7c", "9s", &[Decision::Stand]),
            "lucky-ladies"
        ),
        (Outcome::Lose, Money::ZERO)
    );
}

fn no_peek(late: LateNatural) -> Rules {
    rules_with("lucky-ladies", |f| {
        f.dealer.peek = Peek::None;
        f.dealer.late_natural = late;
    })
}

#[test]
fn la_3_a_late_natural_takes_only_the_original_bet() {
    let mut t = T::new(
        &no_peek(LateNatural::OriginalBetsOnly),
        1,
        &stack(&["6h 5c"], "Ac", "Ts", "9d"),
    );
    t.bet(0, 0, "10");
    t.deal();
    assert_eq!(t.round.phase(), Phase::PlayerTurns);
    t.ok(0, Decision::Double(m("10")));
    assert!(t.done());
    let s = t.settled(0, 0, 0, "main");
    assert_eq!(
        (s.outcome, s.stake, s.returned),
        (Outcome::Lose, m("20"), m("10"))
    );
    assert_eq!(t.net(0), m("-10"));
    t.check();
}

#[test]
fn la_3_a_late_natural_under_all_bets_lose() {
    let mut t = T::new(
        &no_peek(LateNatural::AllBetsLose),
        1,
        &stack(&["6h 5c"], "Ac", "Ts", "9d"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Double(m("10")));
    assert_eq!(t.net(0), m("-20"));
}

#[test]
fn la_3_a_late_natural_returns_split_hands_beyond_the_original_bet() {
    let mut t = T::new(
        &no_peek(LateNatural::OriginalBetsOnly),
        1,
        &stack(&["8h 8d"], "Ac", "Ts", "9d Tc"),
    );
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Split);
    t.ok(0, Decision::Stand);
    t.ok(0, Decision::Stand);
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.result(0, 0, 1, "main"), (Outcome::Returned, m("10")));
    assert_eq!(t.net(0), m("-10"));
}

#[test]
fn la_3_a_late_natural_pays_insurance_and_pushes_naturals() {
    let mut t = T::new(
        &no_peek(LateNatural::OriginalBetsOnly),
        1,
        &stack(&["Th 9c", "Ah Kd"], "Kc", "As", ""),
    );
    t.bet(0, 0, "10");
    t.bet(0, 1, "10");
    t.deal();
    t.ok(0, Decision::Insure(m("5")));
    t.ok(0, Decision::Decline);
    assert_eq!(t.round.phase(), Phase::PlayerTurns, "no peek");
    t.ok(0, Decision::Stand);
    assert!(t.done());
    assert_eq!(t.result(0, 0, 0, "insurance"), (Outcome::Win, m("15")));
    assert_eq!(t.result(0, 1, 0, "main"), (Outcome::Push, m("10")));
    assert_eq!(t.result(0, 0, 0, "main"), (Outcome::Lose, Money::ZERO));
    assert_eq!(t.net(0), Money::ZERO);
}

#[test]
fn la_3_an_ace_only_peek_finds_a_ten_up_natural_late() {
    let r = rules_with("classic", |f| f.dealer.peek = Peek::AceOnly);
    let mut t = T::new(&r, 1, &stack(&["5h 4c"], "Ac", "Ks", "2d"));
    t.bet(0, 0, "10");
    t.deal();
    t.ok(0, Decision::Double(m("10")));
    assert!(t
        .sink
        .events
        .iter()
        .all(|e| !matches!(e, Event::Peeked { .. })));
    assert_eq!(t.net(0), m("-10"));
}

#[test]
fn la_4_a_burned_card_is_taken_out_of_play_and_logged() {
    let mut t = T::new(&rules("lucky-ladies"), 1, &cards("Qh 9c Th 8c 7c 6c"));
    let before = t.round.shoe().discards();
    let c = t.round.burn(true, &mut t.sink).unwrap();
    assert_eq!(c.to_string(), "Qh");
    assert!(t.sink.events.contains(&Event::Burned {
        card: c,
        face_up: true
    }));
    assert_eq!(t.round.shoe().discards(), before + 1);
    t.bet(0, 0, "10");
    t.deal();
    let first = t.sink.events.iter().find_map(|e| match e {
        Event::Dealt { card, .. } => Some(card.to_string()),
        _ => None,
    });
    assert_eq!(first.as_deref(), Some("9c"));
    t.check();
}
