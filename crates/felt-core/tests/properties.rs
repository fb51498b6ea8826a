//! Property tests: for every preset (and rule variants), many rounds of random
//! legal and illegal actions. Every cent is conserved, the ledger balances, every
//! card is in exactly one place, nothing panics, and every refused action changes
//! nothing (state, balances, shoe, meters, log).

mod common;

use common::Tee;
use felt_core::check::{check_cards, check_money};
use felt_core::round::{Decisions, Turn};
use felt_core::rules::{Peek, RulesFile, Surrender};
use felt_core::{
    presets, Action, Decision, MemoryMeters, Meters, Money, Phase, Round, Rules, Shoe, Table,
};
use rand::{Rng, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

const ROUNDS_PER_PRESET: usize = 100_000;

fn amount(rng: &mut ChaCha8Rng, min: Money, max: Money, inc: Money) -> Money {
    match rng.gen_range(0..10) {
        0 => Money(rng.gen_range(-100..=max.0 * 2 + 1)),
        1 => max + inc,
        2 => min - inc,
        3 => max,
        _ => {
            let steps = ((max.0 - min.0) / inc.0.max(1)).min(20);
            Money(min.0 + inc.0 * rng.gen_range(0..=steps))
        }
    }
}

fn random_decision(rng: &mut ChaCha8Rng, legal: &felt_core::Legal) -> Decision {
    let all = [
        Decisions::HIT,
        Decisions::STAND,
        Decisions::DOUBLE,
        Decisions::SPLIT,
        Decisions::SURRENDER,
        Decisions::INSURE,
        Decisions::EVEN_MONEY,
        Decisions::DECLINE,
    ];
    let offered: Vec<Decisions> = all
        .iter()
        .copied()
        .filter(|d| legal.decisions.contains(*d))
        .collect();
    let pick = if offered.is_empty() {
        all[rng.gen_range(0..all.len())]
    } else {
        offered[rng.gen_range(0..offered.len())]
    };
    let pick_amount = |rng: &mut ChaCha8Rng, r: Option<felt_core::round::AmountRange>| match r {
        Some(r) => match rng.gen_range(0..4) {
            0 => r.min,
            1 => r.max,
            2 => r.full,
            _ => {
                let steps = (r.max.0 - r.min.0) / r.step.0.max(1);
                Money(r.min.0 + r.step.0 * rng.gen_range(0..=steps.max(0)))
            }
        },
        None => Money(rng.gen_range(0..2000)),
    };
    match pick {
        Decisions::HIT => Decision::Hit,
        Decisions::STAND => Decision::Stand,
        Decisions::DOUBLE => Decision::Double(pick_amount(rng, legal.double)),
        Decisions::SPLIT => Decision::Split,
        Decisions::SURRENDER => Decision::Surrender,
        Decisions::INSURE => Decision::Insure(pick_amount(rng, legal.insurance)),
        Decisions::EVEN_MONEY => Decision::EvenMoney,
        _ => Decision::Decline,
    }
}

fn random_illegal(rng: &mut ChaCha8Rng, table: &Table, seats: u8) -> Action {
    let seat = rng.gen_range(0..=seats);
    let spot = rng.gen_range(0..=table.spots_per_seat());
    let ds = [
        Decision::Hit,
        Decision::Stand,
        Decision::Double(Money(rng.gen_range(0..100_000))),
        Decision::Split,
        Decision::Surrender,
        Decision::Insure(Money(rng.gen_range(0..100_000))),
        Decision::EvenMoney,
        Decision::Decline,
    ];
    match rng.gen_range(0..6) {
        0 => Action::Bet {
            seat,
            spot,
            amount: Money(rng.gen_range(0..100_000)),
        },
        1 => Action::SideBet {
            seat,
            spot,
            bet: rng.gen_range(0..=table.side_bets().len() as u8),
            amount: Money(rng.gen_range(0..10_000)),
        },
        2 => Action::Withdraw { seat, spot },
        3 => Action::Deal,
        _ => Action::Play {
            seat,
            at: None,
            decision: ds[rng.gen_range(0..ds.len())],
        },
    }
}

struct Driver {
    table: Table,
    round: Round<ChaCha20Rng>,
    meters: MemoryMeters,
    sink: Tee,
    start: Vec<Money>,
    meters_start: Money,
    refused: u64,
    applied: u64,
}

impl Driver {
    fn new(rules: &Rules, seats: u8, seed: u64) -> Driver {
        let table = Table::new(rules).unwrap();
        let shoe: Shoe = table.new_shoe();
        let start = vec![Money(100_000); usize::from(seats)];
        let round = table
            .round(shoe, ChaCha20Rng::seed_from_u64(seed), &start)
            .unwrap();
        let meters = MemoryMeters::for_table(&table);
        let meters_start = meters.total();
        Driver {
            table,
            round,
            meters,
            sink: Tee::default(),
            start,
            meters_start,
            refused: 0,
            applied: 0,
        }
    }

    fn check(&self) {
        if let Err(e) = check_cards(&self.round) {
            panic!("cards: {e}\n{:#?}", self.sink.events);
        }
        if let Err(e) = check_money(&self.round, &self.start, &self.sink.ledger) {
            panic!("money: {e}\n{:#?}", self.sink.events);
        }
        for (id, v) in self.meters.iter() {
            let _ = v;
            assert!(self.meters.value(&id).is_some());
        }
        assert_eq!(
            self.meters.total(),
            self.meters_start
                + self
                    .sink
                    .ledger
                    .meters
                    .iter()
                    .map(|(_, m)| *m)
                    .sum::<Money>(),
            "meters moved without a ledger entry"
        );
    }

    /// Applies `a`; a refused action must change nothing at all.
    fn try_apply(&mut self, a: Action) -> bool {
        let before = self.round.clone();
        let meters = self.meters.clone();
        let n = self.sink.events.len();
        match self.round.apply(a, &mut self.meters, &mut self.sink) {
            Ok(()) => {
                self.applied += 1;
                true
            }
            Err(e) => {
                self.refused += 1;
                assert!(
                    self.round == before,
                    "{a:?} refused ({e}) but the round changed"
                );
                assert_eq!(self.meters, meters, "{a:?} refused but the meters changed");
                assert_eq!(self.sink.events.len(), n, "{a:?} refused but logged events");
                let _ = e.to_string();
                false
            }
        }
    }

    fn play_round(&mut self, rng: &mut ChaCha8Rng) {
        if std::env::var("FELT_STATS").is_ok() {
            STATS.with(|st| {
                let mut st = st.borrow_mut();
                for e in &self.sink.events {
                    let k = match e {
                        felt_core::Event::Settled(s) => {
                            format!("settled {:?} {:?} {:?}", s.bet, s.outcome, s.line)
                        }
                        felt_core::Event::Decided { decision, .. } => {
                            format!("decided {:?}", std::mem::discriminant(decision))
                        }
                        felt_core::Event::Meter { why, .. } => format!("meter {why:?}"),
                        felt_core::Event::Shuffled { why, .. } => format!("shuffled {why:?}"),
                        e => serde_json::to_value(e).unwrap()["event"]
                            .as_str()
                            .unwrap()
                            .to_string(),
                    };
                    *st.entry(k).or_insert(0u64) += 1;
                }
            });
        }
        self.sink.events.clear();
        let seats = self.round.seats();
        for s in 0..seats {
            if self.round.balance(s).unwrap() < Money(20_000) {
                self.round.deposit(s, Money(100_000)).unwrap();
                self.start[usize::from(s)] += Money(100_000);
            }
        }
        self.round.begin(&mut self.sink).unwrap();
        self.check();
        let spots = self.table.spots_per_seat();
        let main = self.table.rules().main_bet().limits();
        // Betting: random bets, side bets, withdrawals and illegal actions.
        for _ in 0..rng.gen_range(0..14) {
            let extra = u8::from(rng.gen_ratio(1, 20));
            let seat = rng.gen_range(0..seats + extra);
            let extra = u8::from(rng.gen_ratio(1, 20));
            let spot = rng.gen_range(0..spots + extra);
            let a = match rng.gen_range(0..10) {
                0..=3 => Action::Bet {
                    seat,
                    spot,
                    amount: amount(
                        rng,
                        main.min,
                        main.max.min(Money(main.min.0 * 20)),
                        main.increment,
                    ),
                },
                4..=7 if !self.table.side_bets().is_empty() => {
                    let n = self.table.side_bets().len();
                    let extra = usize::from(rng.gen_ratio(1, 20));
                    let bet = rng.gen_range(0..n + extra);
                    let l = self.table.side_bets().get(bet).map_or(main, |b| b.limits);
                    Action::SideBet {
                        seat,
                        spot,
                        bet: bet as u8,
                        amount: amount(rng, l.min, l.max, l.increment),
                    }
                }
                8 => Action::Withdraw { seat, spot },
                _ => random_illegal(rng, &self.table, seats),
            };
            self.try_apply(a);
        }
        if self.round.phase() == Phase::Betting && !self.try_apply(Action::Deal) {
            let ok = self.try_apply(Action::Bet {
                seat: 0,
                spot: 0,
                amount: main.min,
            });
            assert!(ok, "a minimum bet on an empty spot is refused");
            assert!(self.try_apply(Action::Deal));
        }
        self.check();
        let mut guard = 0;
        while self.round.phase() != Phase::Done {
            guard += 1;
            assert!(guard < 10_000, "the round does not end");
            let legal = self.round.legal_actions();
            match legal.turn {
                Turn::Chance => {
                    self.round
                        .advance(&mut self.meters, &mut self.sink)
                        .unwrap();
                }
                Turn::Seat { seat, .. } => {
                    let a = if rng.gen_ratio(1, 5) {
                        random_illegal(rng, &self.table, seats)
                    } else {
                        Action::Play {
                            seat,
                            at: None,
                            decision: random_decision(rng, &legal),
                        }
                    };
                    self.try_apply(a);
                }
                t => panic!("unexpected turn {t:?} in phase {:?}", self.round.phase()),
            }
            self.check();
        }
        self.check();
        assert_eq!(self.round.felt(), Money::ZERO);
    }
}

thread_local! {
    static STATS: std::cell::RefCell<std::collections::BTreeMap<String, u64>> = Default::default();
}

fn fuzz(rules: &Rules, rounds: usize, seed: u64) -> (u64, u64) {
    let r = fuzz_inner(rules, rounds, seed);
    if std::env::var("FELT_STATS").is_ok() {
        STATS.with(|st| {
            let mut out = format!("== {} applied {} refused {}\n", rules.game().id, r.0, r.1);
            for (k, v) in st.borrow_mut().iter() {
                out += &format!("{v:>9} {k}\n");
            }
            st.borrow_mut().clear();
            eprintln!("{out}");
        });
    }
    r
}

fn fuzz_inner(rules: &Rules, rounds: usize, seed: u64) -> (u64, u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut done = 0;
    let (mut applied, mut refused) = (0, 0);
    while done < rounds {
        let seats = rng.gen_range(1..=rules.table().seats);
        let mut d = Driver::new(rules, seats, rng.gen());
        d.round.set_auto(rng.gen_ratio(1, 2));
        let n = rng.gen_range(50..400).min(rounds - done);
        for _ in 0..n {
            d.play_round(&mut rng);
        }
        done += n;
        applied += d.applied;
        refused += d.refused;
    }
    (applied, refused)
}

fn preset(name: &str) -> Rules {
    presets::load(name).unwrap().unwrap()
}

macro_rules! preset_property {
    ($name:ident, $preset:expr, $seed:expr) => {
        #[test]
        fn $name() {
            let (applied, refused) = fuzz(&preset($preset), ROUNDS_PER_PRESET, $seed);
            assert!(
                applied > ROUNDS_PER_PRESET as u64 && refused > 10_000,
                "{applied} {refused}"
            );
        }
    };
}

preset_property!(c_10_c_11_property_classic, "classic", 1);
preset_property!(c_10_c_11_property_lucky_7, "lucky-7", 2);
preset_property!(c_10_c_11_property_lucky_lucky, "lucky-lucky", 3);
preset_property!(c_10_c_11_property_blazing_7s, "blazing-7s", 4);
preset_property!(c_10_c_11_property_blackjack_bonus, "blackjack-bonus", 5);
preset_property!(c_10_c_11_property_lucky_ladies, "lucky-ladies", 6);

fn variant(name: &str, f: impl FnOnce(&mut RulesFile)) -> Rules {
    preset(name).modified(f).unwrap()
}

/// Rule variants the presets do not exercise: no peek, ace-only peek, early
/// surrender, resplit and hit split aces, a CSM, down rounding with odd cents, the
/// up-card third card, and a one-deck table crowded enough to run the shoe dry.
#[test]
fn c_12_la_3_property_rule_variants() {
    let variants = [
        variant("lucky-ladies", |f| {
            f.dealer.peek = Peek::None;
            f.dealer.late_natural = felt_core::rules::LateNatural::AllBetsLose;
        }),
        variant("classic", |f| {
            f.dealer.peek = Peek::AceOnly;
            f.player.surrender = Surrender::Early;
            f.player.surrender_after_split = true;
        }),
        variant("classic", |f| {
            f.player.resplit_aces = true;
            f.player.one_card_split_aces = false;
            f.player.hit_split_aces = true;
            f.player.hit_soft_21 = true;
            f.shoe.csm = true;
        }),
        variant("lucky-ladies", |f| {
            f.table.rounding = felt_core::rules::Rounding::Down;
            f.main_bet.min = Money(101);
            f.main_bet.increment = Money(1);
            f.insurance.offer = felt_core::rules::InsuranceOffer::Half;
            f.player.double = felt_core::rules::DoubleOn::NineToEleven;
            f.side_bets[0].increment = Money(1);
        }),
        variant("blazing-7s", |f| {
            f.side_bets[0].third_card = Some(felt_core::rules::ThirdCard::UpCard);
            f.side_bets[0].pays[2].basis = felt_core::Basis::For;
            f.side_bets[0].pays[1].basis = felt_core::Basis::For;
        }),
        variant("blazing-7s", |f| {
            // Meter lines on common hands, so awards, resets and B7-6 ordering run often.
            f.side_bets[0].pays[3].pay = felt_core::rules::LinePay::Meter(10);
            f.side_bets[0].pays[4].pay = felt_core::rules::LinePay::Meter(100);
            f.side_bets[0].pays[4].basis = felt_core::Basis::For;
        }),
        variant("lucky-7", |f| {
            // One deck, 3 seats of 7 spots (44 cards to deal; more seats could never
            // finish a round and are refused): the shoe runs out, the rack is
            // reshuffled, rounds are voided.
            f.shoe.decks = 1;
            f.shoe.penetration = 0.95;
            f.table.seats = 3;
            f.table.max_spots_per_player = 7;
            f.player.max_split_hands = 8;
        }),
    ];
    for (i, r) in variants.iter().enumerate() {
        fuzz(r, 15_000, 100 + i as u64);
    }
}
