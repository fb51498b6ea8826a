//! `Round::place_spot` is a spot's bets placed one by one (`SpotBets::actions`), all or
//! nothing (C-10): the same events and the same round when the actions pass; the same
//! error when one of them is refused, funds included, and then nothing placed.

use felt_core::round::{ActionError, SpotBets, MAX_BALANCE, MAX_SIDE_BETS};
use felt_core::{presets, Action, Event, MemoryMeters, Money, NoopSink, Round, Table};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A table of preset `name` with three seats holding `balance` each, betting open.
fn open(name: &str, balance: Money) -> (Table, Round<ChaCha8Rng>) {
    let rules = presets::load(name).unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(3),
            &[balance; 3],
        )
        .unwrap();
    round.begin(&mut NoopSink).unwrap();
    (table, round)
}

/// An amount near the limits `min..=max` by `inc`: mostly good, sometimes not.
fn amount(rng: &mut ChaCha8Rng, min: Money, max: Money, inc: Money) -> Money {
    match rng.gen_range(0..12) {
        0 => Money::ZERO,
        1 => Money(rng.gen_range(-100..=max.0 * 2 + 1)),
        2 => max + inc,
        3 => min - inc,
        4 => min + Money(1),
        _ => {
            let steps = ((max.0 - min.0) / inc.0.max(1)).min(20);
            Money(min.0 + inc.0 * rng.gen_range(0..=steps))
        }
    }
}

/// Random bets on a random spot of `table`, a few of them on seats, spots or side bets
/// the table does not have.
fn random_bets(rng: &mut ChaCha8Rng, table: &Table) -> SpotBets {
    let rules = table.rules();
    let main = rules.main_bet();
    let mut sides = [Money::ZERO; MAX_SIDE_BETS];
    for (k, s) in sides.iter_mut().enumerate() {
        *s = match rules.side_bets().get(k) {
            Some(b) if rng.gen_bool(0.8) => {
                amount(rng, b.limits().min, b.limits().max, b.limits().increment)
            }
            Some(_) => Money::ZERO,
            None if rng.gen_bool(0.05) => main.min,
            None => Money::ZERO,
        };
    }
    SpotBets {
        seat: rng.gen_range(0..4),
        spot: rng.gen_range(0..=table.spots_per_seat()),
        main: amount(rng, main.min, main.max, main.increment),
        sides,
    }
}

/// The bets placed one action at a time: the events, or the first refusal.
fn one_by_one(round: &mut Round<ChaCha8Rng>, bets: &SpotBets) -> Result<Vec<Event>, ActionError> {
    let mut events = Vec::new();
    let mut meters = MemoryMeters::default();
    for a in bets.actions() {
        round.apply(a, &mut meters, &mut events)?;
    }
    Ok(events)
}

/// A seat's balance: none, a little, some, plenty, or above what a seat may bet from.
fn balance(rng: &mut ChaCha8Rng) -> Money {
    match rng.gen_range(0..6) {
        0 => Money::ZERO,
        1 => Money(rng.gen_range(1..=2_000)),
        2 => Money(rng.gen_range(2_000..=200_000)),
        3 => MAX_BALANCE + Money(1),
        _ => Money::cents(100_000_000),
    }
}

/// A round of preset `name` whose seats hold random balances, at a random point:
/// mostly betting (some spots already bet), sometimes not yet begun or dealt.
fn some_round(rng: &mut ChaCha8Rng, name: &str) -> (Table, Round<ChaCha8Rng>) {
    let rules = presets::load(name).unwrap().unwrap();
    let table = Table::new(&rules).unwrap();
    let balances = [balance(rng), balance(rng), balance(rng)];
    let mut round = table
        .round(
            table.new_shoe(),
            ChaCha8Rng::seed_from_u64(rng.gen()),
            &balances,
        )
        .unwrap();
    if rng.gen_range(0..20) == 0 {
        return (table, round); // not begun: no betting
    }
    round.begin(&mut NoopSink).unwrap();
    for _ in 0..rng.gen_range(0..3) {
        let earlier = random_bets(rng, &table);
        let _ = round.place_spot(&earlier, &mut NoopSink);
    }
    match rng.gen_range(0..20) {
        // Dealt: too late to bet.
        0 => {
            let _ = round.apply(
                Action::Deal,
                &mut MemoryMeters::for_table(&table),
                &mut NoopSink,
            );
        }
        // A spot's bets withdrawn: an empty spot again.
        1 => {
            let (seat, spot) = (
                rng.gen_range(0..3),
                rng.gen_range(0..table.spots_per_seat()),
            );
            let _ = round.apply(
                Action::Withdraw { seat, spot },
                &mut MemoryMeters::default(),
                &mut NoopSink,
            );
        }
        _ => {}
    }
    (table, round)
}

#[test]
fn c_10_a_spots_bets_placed_together_are_its_actions_one_by_one() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut placed = 0;
    let mut refused = std::collections::BTreeMap::<String, u32>::new();
    for name in presets::names() {
        for _ in 0..3_000 {
            let (table, round) = some_round(&mut rng, name);
            let bets = random_bets(&mut rng, &table);
            let mut together = round.clone();
            let mut events = Vec::new();
            let got = together.place_spot(&bets, &mut events);
            match one_by_one(&mut round.clone(), &bets) {
                Ok(expected) => {
                    let mut apart = round.clone();
                    one_by_one(&mut apart, &bets).unwrap();
                    assert_eq!(got, Ok(()), "{name}: {bets:?}");
                    assert_eq!(events, expected, "{name}: {bets:?}");
                    assert!(together == apart, "{name}: {bets:?} left another round");
                    placed += 1;
                }
                Err(e) => {
                    assert_eq!(got, Err(e), "{name}: {bets:?}");
                    assert!(events.is_empty(), "{name}: a refusal told {events:?}");
                    assert!(together == round, "{name}: {bets:?} refused, but placed");
                    let kind = format!("{e:?}");
                    *refused
                        .entry(kind[..kind.find([' ', '{']).unwrap_or(kind.len())].to_string())
                        .or_default() += 1;
                }
            }
        }
    }
    // Both courses were taken often, and the refusals include every kind of check.
    assert!(placed > 2_000, "{placed} placed");
    for kind in [
        "BetOutsideLimits",
        "WrongIncrement",
        "UnknownSeat",
        "UnknownSpot",
        "UnknownSideBet",
        "AlreadyBet",
        "InsufficientBalance",
        "BalanceOverLimit",
        "NotBetting",
        "LateBet",
    ] {
        assert!(
            refused.get(kind).copied().unwrap_or(0) > 10,
            "{kind}: {refused:?}"
        );
    }
}

#[test]
fn c_10_a_spots_bets_are_refused_whole_where_the_actions_stop_at_the_last() {
    let (table, _) = open("blackjack-bonus", Money::ZERO);
    let rules = table.rules();
    let main = rules.main_bet().min;
    let mut sides = [Money::ZERO; MAX_SIDE_BETS];
    for (s, b) in sides.iter_mut().zip(rules.side_bets()) {
        *s = b.limits().min;
    }
    let last = sides[rules.side_bets().len() - 1];
    let total = sides.iter().fold(main, |t, &s| t + s);
    let bets = SpotBets {
        seat: 0,
        spot: 0,
        main,
        sides,
    };
    // One cent short of the whole: the actions place every bet but the last.
    let (_, mut round) = open("blackjack-bonus", total - Money(1));
    let refusal = ActionError::InsufficientBalance {
        needed: last,
        balance: last - Money(1),
    };
    let mut apart = round.clone();
    assert_eq!(one_by_one(&mut apart, &bets), Err(refusal));
    assert_eq!(apart.balance(0), Some(last - Money(1)));
    let before = round.clone();
    let mut events = Vec::new();
    assert_eq!(round.place_spot(&bets, &mut events), Err(refusal));
    assert!(events.is_empty() && round == before);
    // With the whole, every bet is placed and the seat holds nothing more.
    let (_, mut round) = open("blackjack-bonus", total);
    round.place_spot(&bets, &mut events).unwrap();
    assert_eq!(events.len(), 1 + rules.side_bets().len());
    assert_eq!(round.balance(0), Some(Money::ZERO));
}

/// A round remembers the main-bet amount that last passed its checks and skips the
/// checks for it: an amount it never checked (the least amount money holds among them)
/// is checked and refused as on a fresh round, whatever amounts came before (a
/// counter's ramp bets several in turn).
#[test]
fn c_10_a_main_bet_is_refused_as_on_a_fresh_round_whatever_was_bet_before() {
    use felt_core::round::Phase;
    use felt_core::{Decision, DecisionContext};
    let rules = presets::load("blackjack-bonus").unwrap().unwrap();
    let l = rules.main_bet();
    let good: Vec<Money> = (0..6).map(|k| l.min + Money(l.increment.0 * k)).collect();
    let bad = [
        Money(i64::MIN),
        l.min - l.increment,
        l.max + l.increment,
        Money::ZERO,
    ];
    let refusal = |amount: Money| {
        let (_, mut fresh) = open("blackjack-bonus", Money(1_000_000));
        let bets = SpotBets {
            seat: 0,
            spot: 0,
            main: amount,
            sides: [Money::ZERO; MAX_SIDE_BETS],
        };
        fresh.place_spot(&bets, &mut NoopSink).unwrap_err()
    };
    let (_, mut round) = open("blackjack-bonus", Money(1_000_000));
    let mut meters = MemoryMeters::new();
    let mut stand = |c: &DecisionContext<'_>| match c.phase {
        Phase::PlayerTurns => Decision::Stand,
        _ => Decision::Decline,
    };
    for r in 0..40 {
        let bets = |main| SpotBets {
            seat: 0,
            spot: 0,
            main,
            sides: [Money::ZERO; MAX_SIDE_BETS],
        };
        // Every amount refused, as on a fresh round, and nothing changed.
        for &b in &bad {
            let before = round.clone();
            assert_eq!(
                round.place_spot(&bets(b), &mut NoopSink),
                Err(refusal(b)),
                "{b:?}"
            );
            assert!(round == before);
        }
        // A ramp: six amounts in turn.
        round
            .place_spot(&bets(good[r % good.len()]), &mut NoopSink)
            .unwrap();
        round
            .play_auto(&mut stand, &mut meters, &mut NoopSink)
            .unwrap();
        round.begin(&mut NoopSink).unwrap();
    }
}
