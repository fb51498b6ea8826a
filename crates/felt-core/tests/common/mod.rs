//! Shared scenario helpers: a stacked shoe, a round with a ledger, short lookups.
#![allow(dead_code)]

use felt_core::card::parse_cards;
use felt_core::check::{check_cards, check_money, Ledger};
use felt_core::round::{BetKind, Event, EventSink, Outcome, Settlement};
use felt_core::rules::RulesFile;
use felt_core::{
    presets, Action, ActionError, Card, Decision, MemoryMeters, Money, Round, Rules, Shoe, Table,
};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Money from text: `m("12.50")`.
pub fn m(s: &str) -> Money {
    s.parse().unwrap()
}

/// Cards from text.
pub fn cards(s: &str) -> Vec<Card> {
    parse_cards(s).unwrap()
}

/// A preset's rules.
pub fn rules(name: &str) -> Rules {
    presets::load(name).unwrap().unwrap()
}

/// A preset's rules, changed.
pub fn rules_with(name: &str, f: impl FnOnce(&mut RulesFile)) -> Rules {
    rules(name).modified(f).unwrap()
}

/// The cards in dealing order (C-4) for these spots' first two cards, the dealer's
/// hole and up cards, then the rest in order.
pub fn stack(players: &[&str], hole: &str, up: &str, rest: &str) -> Vec<Card> {
    let p: Vec<Vec<Card>> = players.iter().map(|s| cards(s)).collect();
    let mut v: Vec<Card> = p.iter().map(|c| c[0]).collect();
    v.extend(cards(hole));
    v.extend(p.iter().map(|c| c[1]));
    v.extend(cards(up));
    v.extend(cards(rest));
    v
}

/// Events and the ledger at once.
#[derive(Default)]
pub struct Tee {
    pub events: Vec<Event>,
    pub ledger: Ledger,
}

impl EventSink for Tee {
    fn event(&mut self, e: &Event) {
        self.events.push(*e);
        self.ledger.event(e);
    }
}

/// A scenario: a round on a stacked shoe, 1000.00 per seat.
pub struct T {
    pub round: Round<ChaCha20Rng>,
    pub meters: MemoryMeters,
    pub sink: Tee,
    pub start: Vec<Money>,
}

impl T {
    pub fn new(rules: &Rules, seats: usize, stacked: &[Card]) -> T {
        let table = Table::new(rules).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let shoe = Shoe::stacked(rules.shoe().decks, stacked, &mut rng).unwrap();
        let start = vec![m("1000"); seats];
        let mut round = table.round(shoe, rng, &start).unwrap();
        let meters = MemoryMeters::for_table(&table);
        let mut sink = Tee::default();
        round.begin(&mut sink).unwrap();
        T {
            round,
            meters,
            sink,
            start,
        }
    }

    pub fn try_act(&mut self, a: Action) -> Result<(), ActionError> {
        self.round.apply(a, &mut self.meters, &mut self.sink)
    }

    pub fn bet(&mut self, seat: u8, spot: u8, amount: &str) {
        self.try_act(Action::Bet {
            seat,
            spot,
            amount: m(amount),
        })
        .unwrap();
    }

    pub fn side(&mut self, seat: u8, spot: u8, id: &str, amount: &str) {
        let bet = self.round.table().side_bet_index(id).unwrap();
        self.try_act(Action::SideBet {
            seat,
            spot,
            bet,
            amount: m(amount),
        })
        .unwrap();
    }

    pub fn deal(&mut self) {
        self.try_act(Action::Deal).unwrap();
    }

    pub fn play(&mut self, seat: u8, d: Decision) -> Result<(), ActionError> {
        self.try_act(Action::Play {
            seat,
            at: None,
            decision: d,
        })
    }

    pub fn ok(&mut self, seat: u8, d: Decision) {
        self.play(seat, d).unwrap();
    }

    /// The seat's balance minus its start.
    pub fn net(&self, seat: u8) -> Money {
        self.round.balance(seat).unwrap() - self.start[usize::from(seat)]
    }

    pub fn settlements(&self) -> Vec<Settlement> {
        self.sink
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Settled(s) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// The settlement of a wager: `bet` is "main", "insurance" or a side-bet id.
    pub fn settled(&self, seat: u8, spot: u8, hand: u8, bet: &str) -> Settlement {
        self.find(seat, spot, hand, bet).unwrap_or_else(|| {
            panic!(
                "no settlement of {bet} at {seat}/{spot}/{hand}: {:#?}",
                self.sink.events
            )
        })
    }

    pub fn find(&self, seat: u8, spot: u8, hand: u8, bet: &str) -> Option<Settlement> {
        self.settlements().into_iter().find(|s| {
            s.at.seat == seat
                && s.at.spot == spot
                && s.at.hand == hand
                && match s.bet {
                    BetKind::Main => bet == "main",
                    BetKind::Insurance => bet == "insurance",
                    BetKind::Side(id) => id == bet,
                    _ => false,
                }
        })
    }

    /// (outcome, total returned) of a wager.
    pub fn result(&self, seat: u8, spot: u8, hand: u8, bet: &str) -> (Outcome, Money) {
        let s = self.settled(seat, spot, hand, bet);
        (s.outcome, s.returned)
    }

    /// The index in the log of the first event matching `f`.
    pub fn index_of(&self, f: impl Fn(&Event) -> bool) -> Option<usize> {
        self.sink.events.iter().position(f)
    }

    /// Checks cards and money.
    pub fn check(&self) {
        check_cards(&self.round).unwrap();
        check_money(&self.round, &self.start, &self.sink.ledger).unwrap();
    }

    pub fn done(&self) -> bool {
        self.round.phase() == felt_core::Phase::Done
    }
}

/// A decision drawn at random among those `l` offers (a double for its full amount,
/// insurance for its least).
pub fn random_legal(l: &felt_core::round::Legal, rng: &mut impl rand::Rng) -> Decision {
    use felt_core::round::Decisions;
    let options = [
        (Decisions::HIT, Decision::Hit),
        (Decisions::STAND, Decision::Stand),
        (Decisions::SPLIT, Decision::Split),
        (
            Decisions::DOUBLE,
            Decision::Double(l.double.map_or(Money::ZERO, |r| r.full)),
        ),
        (Decisions::SURRENDER, Decision::Surrender),
        (
            Decisions::INSURE,
            Decision::Insure(l.insurance.map_or(Money::ZERO, |r| r.min)),
        ),
        (Decisions::EVEN_MONEY, Decision::EvenMoney),
        (Decisions::DECLINE, Decision::Decline),
    ];
    let offered: Vec<Decision> = options
        .iter()
        .filter(|(d, _)| l.decisions.contains(*d))
        .map(|(_, d)| *d)
        .collect();
    offered[rng.gen_range(0..offered.len())]
}

/// Bets the table minimum, and every side bet's minimum, on the first `spots` spots of
/// every seat (each spot the table allows, at most).
pub fn bet_every_spot<S: EventSink + ?Sized>(
    round: &mut Round<rand_chacha::ChaCha8Rng>,
    meters: &mut MemoryMeters,
    sink: &mut S,
    spots: u8,
) {
    let table = round.table().clone();
    for seat in 0..round.seats() {
        for spot in 0..table.spots_per_seat().min(spots) {
            let amount = table.rules().main_bet().min;
            round
                .apply(Action::Bet { seat, spot, amount }, meters, sink)
                .unwrap();
            for (bet, b) in table.side_bets().iter().enumerate() {
                let side = Action::SideBet {
                    seat,
                    spot,
                    bet: bet as u8,
                    amount: b.limits.min,
                };
                round.apply(side, meters, sink).unwrap();
            }
        }
    }
}
