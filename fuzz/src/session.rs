//! Driving a table from fuzzer bytes, with every invariant checked after every step.
//!
//! Shared by the fuzz targets (`rules_toml`, `engine_actions`) and, included by path,
//! by the property tests that mirror them in CI (`crates/felt-core/tests/fuzz_mirror.rs`):
//! it depends only on `felt-core`, `rand_chacha` and `serde_json`.
//!
//! - [`Src`]: the choices, read from the input's bytes (or from a generator seeded by
//!   the input, when the input is a rules file and holds no choices).
//! - [`rules_from`]: a valid rules file from bytes: a preset, then fuzzer-chosen edits
//!   to its fields, each kept only if the edited file still validates.
//! - [`Session`]: a table played round after round, bets and decisions from the bytes,
//!   one step at a time (`set_auto(false)` and [`Round::advance`]), automatically
//!   (`set_auto(true)`, [`Round::play_auto`] with a strategy reading the bytes), or
//!   mixed. After every step: cards conserved ([`check_cards`]), cents conserved and
//!   the ledger balanced ([`check_money`]), meters moved only with a ledger entry, a
//!   refused action (or refused chance step or burn) changed nothing, every seat's
//!   view serializes to JSON.
//! - The hidden-card check, after every round: the round is replayed on a second
//!   engine whose shoe holds the hidden cards in another order, and every seat's view
//!   must be the same after every step while those cards are hidden (see
//!   [`Session::hidden_cards_check`]).

use felt_core::check::{check_cards, check_money, Ledger};
use felt_core::round::{AmountRange, Decisions, HandRef, ShuffleWhy, Target, Turn};
use felt_core::rules::{
    DoubleOn, InsuranceOffer, LateNatural, LinePay, Peek, ProgressiveRules, Rounding, RulesFile,
    SideBetRules, Soft17, SplitPairs, Surrender, ThirdCard,
};
use felt_core::{
    presets, Action, ActionError, Basis, Decision, DecisionContext, Event, EventSink, Legal,
    MemoryMeters, Meters, Money, NoopSink, Phase, Ratio, Round, Rules, Shoe, Table, View,
};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};
use std::sync::OnceLock;

/// The choices of a session: the input's bytes in order; past their end, bytes of a
/// generator if the source has one, else zeros (and [`Src::exhausted`] says so).
pub struct Src<'a> {
    data: &'a [u8],
    pos: usize,
    rng: Option<ChaCha8Rng>,
}

impl<'a> Src<'a> {
    /// The bytes of `data`, then zeros.
    pub fn new(data: &'a [u8]) -> Src<'a> {
        Src {
            data,
            pos: 0,
            rng: None,
        }
    }

    /// An endless source: a generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Src<'static> {
        Src {
            data: &[],
            pos: 0,
            rng: Some(ChaCha8Rng::seed_from_u64(seed)),
        }
    }

    /// The next byte.
    pub fn u8(&mut self) -> u8 {
        if let Some(&b) = self.data.get(self.pos) {
            self.pos += 1;
            return b;
        }
        self.pos = self.pos.saturating_add(1);
        match &mut self.rng {
            Some(r) => r.next_u32() as u8,
            None => 0,
        }
    }

    /// The next two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | u16::from(self.u8()) << 8
    }

    /// A number below `n` (`n > 0`; 0 when the bytes are spent).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            usize::from(self.u8()) % n.max(1)
        } else {
            usize::from(self.u16()) % n
        }
    }

    /// A coin (false when the bytes are spent).
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// Whether the input's bytes are spent and no generator follows them.
    pub fn exhausted(&self) -> bool {
        self.rng.is_none() && self.pos >= self.data.len()
    }
}

/// An FNV-1a hash, to seed a [`Src`] from an input that holds no choices.
pub fn hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The presets, parsed once.
pub fn presets() -> &'static [Rules] {
    static P: OnceLock<Vec<Rules>> = OnceLock::new();
    P.get_or_init(|| {
        presets::names()
            .map(|n| presets::load(n).expect("a preset").expect("a valid preset"))
            .collect()
    })
}

/// Ratios an edit may give a payout: usual ones, odd ones, and extremes.
const RATIOS: [(u32, u32); 12] = [
    (3, 2),
    (6, 5),
    (1, 1),
    (2, 1),
    (7, 5),
    (1, 3),
    (1000, 1),
    (5000, 1),
    (100_000, 1),
    (u32::MAX, 1),
    (u32::MAX, u32::MAX - 1),
    (1, u32::MAX),
];

/// Increments an edit may give a wager.
const INCREMENTS: [i64; 6] = [1, 5, 25, 50, 100, 500];

fn ratio(src: &mut Src) -> Ratio {
    if src.below(4) == 0 {
        Ratio {
            num: u32::from(src.u8()) + 1,
            den: u32::from(src.u8() % 8) + 1,
        }
    } else {
        let (num, den) = RATIOS[src.below(RATIOS.len())];
        Ratio { num, den }
    }
}

/// New limits: (min, max, increment), consistent most of the time.
fn limits(src: &mut Src) -> (Money, Money, Money) {
    let inc = INCREMENTS[src.below(INCREMENTS.len())];
    let min = inc * (1 + src.below(40) as i64);
    let max = match src.below(4) {
        0 => min,
        1 => 1_000_000_000 - 1_000_000_000 % inc,
        _ => min * (1 + src.below(100) as i64),
    };
    (Money(min), Money(max), Money(inc))
}

/// Applies one fuzzer-chosen edit to a rules file (fixing the fields it depends on,
/// so most edits keep the file valid).
fn edit(f: &mut RulesFile, src: &mut Src) {
    let pick = |src: &mut Src, n: usize| src.below(n.max(1));
    match src.below(42) {
        0 => f.shoe.decks = 1 + src.below(8) as u8,
        1 => f.shoe.csm = src.bool(),
        2 => {
            f.shoe.penetration = match src.below(4) {
                0 => 0.1,
                1 => 0.95,
                _ => 0.1 + 0.85 * f64::from(src.u8()) / 255.0,
            }
        }
        3 => f.shoe.burn = src.below(11) as u8,
        4 => f.dealer.soft_17 = [Soft17::Stand, Soft17::Hit][src.below(2)],
        5 => f.dealer.peek = [Peek::TenAndAce, Peek::AceOnly, Peek::None][src.below(3)],
        6 => {
            f.dealer.late_natural =
                [LateNatural::AllBetsLose, LateNatural::OriginalBetsOnly][src.below(2)]
        }
        7 => {
            f.insurance.offer = [
                InsuranceOffer::Off,
                InsuranceOffer::Half,
                InsuranceOffer::UpToHalf,
            ][src.below(3)]
        }
        8 => f.insurance.even_money = src.bool(),
        9 => f.insurance.pays = ratio(src),
        10 => {
            f.insurance.min = match src.below(3) {
                0 => None,
                _ => Some(Money(1 + i64::from(src.u16()))),
            }
        }
        11 => {
            f.player.double = [
                DoubleOn::None,
                DoubleOn::AnyTwo,
                DoubleOn::NineToEleven,
                DoubleOn::TenToEleven,
            ][src.below(4)];
            if f.player.double == DoubleOn::None {
                f.player.double_after_split = false;
                f.player.double_for_less = false;
            }
        }
        12 | 13 => {
            if f.player.double == DoubleOn::None {
                f.player.double = DoubleOn::AnyTwo;
            }
            let v = src.bool();
            if src.bool() {
                f.player.double_after_split = v;
            } else {
                f.player.double_for_less = v;
            }
        }
        14 => {
            f.player.max_split_hands = 1 + src.below(8) as u8;
            if f.player.max_split_hands < 3 {
                f.player.resplit_aces = false;
            }
            if f.player.max_split_hands < 2 {
                f.player.surrender_after_split = false;
            }
        }
        15 => f.player.split_pairs = [SplitPairs::Value, SplitPairs::Rank][src.below(2)],
        16 => {
            f.player.resplit_aces = src.bool();
            if f.player.resplit_aces {
                f.player.max_split_hands = f.player.max_split_hands.max(3);
            }
        }
        17 | 18 => {
            // One-card split aces, or split aces that may be hit.
            let hit = src.bool();
            f.player.hit_split_aces = hit;
            f.player.one_card_split_aces = !hit && src.bool();
        }
        19 => {
            f.player.surrender = [Surrender::None, Surrender::Late, Surrender::Early][src.below(3)];
            if f.player.surrender == Surrender::None {
                f.player.surrender_after_split = false;
            }
        }
        20 => {
            f.player.surrender_after_split = src.bool();
            if f.player.surrender_after_split {
                if f.player.surrender == Surrender::None {
                    f.player.surrender = Surrender::Late;
                }
                f.player.max_split_hands = f.player.max_split_hands.max(2);
            }
        }
        21 => f.player.hit_soft_21 = src.bool(),
        22 => f.table.seats = 1 + src.below(7) as u8,
        23 => f.table.max_spots_per_player = 1 + src.below(7) as u8,
        24 => f.table.naturals_paid_in_turn = src.bool(),
        25 => f.table.rounding = [Rounding::Exact, Rounding::Down][src.below(2)],
        26 => {
            let (min, max, inc) = limits(src);
            (f.main_bet.min, f.main_bet.max, f.main_bet.increment) = (min, max, inc);
        }
        27 => f.main_bet.blackjack_pays = ratio(src),
        28 if !f.side_bets.is_empty() => {
            let k = pick(src, f.side_bets.len());
            f.side_bets.remove(k);
        }
        29 => {
            // A side bet of another preset (its own, or a second copy under a new id).
            let all: Vec<&SideBetRules> = presets().iter().flat_map(|r| r.side_bets()).collect();
            let mut b = all[pick(src, all.len())].clone();
            if f.side_bets.iter().any(|s| s.id == b.id) {
                b.id = format!("{}-{}", b.id, f.side_bets.len());
            }
            let at = pick(src, f.side_bets.len() + 1);
            f.side_bets.insert(at, b);
        }
        30 if f.side_bets.len() > 1 => {
            let (a, b) = (pick(src, f.side_bets.len()), pick(src, f.side_bets.len()));
            f.side_bets.swap(a, b);
        }
        _ if f.side_bets.is_empty() => {}
        n => {
            let k = pick(src, f.side_bets.len());
            let b = &mut f.side_bets[k];
            let j = pick(src, b.pays.len());
            match n {
                31 => {
                    let (min, max, inc) = limits(src);
                    (b.min, b.max, b.increment) = (min, max, inc);
                    if let Some(p) = &mut b.progressive {
                        p.increment = p.increment.min(b.min);
                    }
                }
                32 if !b.pays.is_empty() => {
                    b.pays[j].pay = LinePay::Odds(ratio(src));
                }
                33 if !b.pays.is_empty() => {
                    b.pays[j].basis = [Basis::To, Basis::For][src.below(2)];
                }
                34 if !b.pays.is_empty() => {
                    // A meter share, with a meter behind the bet.
                    b.pays[j].pay = LinePay::Meter(1 + src.below(100) as u8);
                    if b.progressive.is_none() {
                        b.progressive = Some(ProgressiveRules {
                            meter: format!("meter-{}", src.below(3)),
                            reset: Money(1 + i64::from(src.u16()) * 100),
                            increment: b.min.min(Money(i64::from(src.u8()))),
                        });
                    }
                }
                35 if b.pays.len() > 1 => {
                    b.pays.remove(j);
                }
                36 => {
                    b.third_card =
                        [None, Some(ThirdCard::NextCard), Some(ThirdCard::UpCard)][src.below(3)]
                }
                37 => b.third_card_on_dealer_natural = src.bool(),
                38 => b.one_seven_pays = src.bool(),
                39 => {
                    if let Some(p) = &mut b.progressive {
                        p.reset = Money(1 + i64::from(src.u16()) * i64::from(src.u8()));
                        p.increment = Money(i64::from(src.u8())).min(b.min);
                    }
                }
                40 => {
                    // No meter: every meter line back to odds.
                    b.progressive = None;
                    for l in &mut b.pays {
                        if let LinePay::Meter(_) = l.pay {
                            l.pay = LinePay::Odds(Ratio { num: 50, den: 1 });
                        }
                    }
                }
                _ => {
                    let (min, max, inc) = limits(src);
                    (f.main_bet.min, f.main_bet.max, f.main_bet.increment) = (min, max, inc);
                }
            }
        }
    }
}

/// A valid rules file from the bytes: a preset, then up to 8 edits to its fields
/// (decks, shoe, dealer, insurance, player options, seats and spots, limits and
/// payouts, side bets added, removed, reordered, their pay lines, meters and third
/// cards). An edit after which the file does not validate is dropped, so every input
/// plays a valid game and most inputs play a game no preset is.
pub fn rules_from(src: &mut Src) -> Rules {
    let all = presets();
    let mut rules = all[src.below(all.len())].clone();
    for _ in 0..src.below(9) {
        if let Ok(r) = rules.modified(|f| edit(f, src)) {
            rules = r;
        }
    }
    rules
}

/// Events and the ledger at once.
#[derive(Default)]
pub struct Sink {
    /// The events of the round in progress.
    pub events: Vec<Event>,
    /// Every chip movement since the session started.
    pub ledger: Ledger,
}

impl EventSink for Sink {
    fn event(&mut self, e: &Event) {
        self.events.push(*e);
        self.ledger.event(e);
    }
}

/// One step of a round, as the session took it (and replays it).
#[derive(Debug, Clone)]
pub enum Step {
    /// [`Round::apply`].
    Apply(Action),
    /// [`Round::advance`].
    Advance,
    /// [`Round::run_chance`].
    RunChance,
    /// [`Round::play_auto`]; the strategy's decisions, in order.
    Auto(Vec<Decision>),
    /// [`Round::set_auto`].
    SetAuto(bool),
    /// [`Round::burn`], face up or not.
    Burn(bool),
}

/// A step and what it did, for the replay on the second engine.
struct Record {
    step: Step,
    result: Option<Result<(), ActionError>>,
    /// Every seat's view after the step (the round number left out).
    views: Vec<View>,
    /// The hole card was turned during the step.
    hole_turned: bool,
    /// The rack was reshuffled during the step (the shoe's positions moved).
    rack: bool,
    /// Cards drawn from the shoe during the step (dealt or burned).
    draws: usize,
    /// The hole card was the step's i-th card drawn.
    hole: Option<usize>,
}

/// How a round's bets are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bets {
    /// Every spot of every seat, every side bet on each, amounts within the limits.
    Full,
    /// Bets, side bets, withdrawals, burns and illegal actions chosen by the bytes.
    Random,
}

/// How a round is played after the bets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Play {
    /// `set_auto(false)`: one chance step at a time, decisions by [`Round::apply`].
    Steps,
    /// `set_auto(true)`: decisions by [`Round::apply`], chance steps by themselves.
    Auto,
    /// [`Round::play_auto`] with a strategy choosing from the bytes.
    Strategy,
    /// Any of the above, switching at any step, with illegal actions among them.
    Mixed,
}

/// How the hidden cards are permuted for the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// The hole card and the cards not dealt while it is face down; views compared
    /// until the hole card is turned.
    Hole,
    /// The cards the round never dealt; views compared through the whole round.
    Tail,
    /// No replay.
    Off,
}

/// Counts, for the tests that make sure the checks are not vacuous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Rounds played to the end.
    pub rounds: u64,
    /// Steps taken.
    pub steps: u64,
    /// Actions refused (and checked to change nothing).
    pub refused: u64,
    /// Rounds replayed on a second engine with hidden cards permuted.
    pub replays: u64,
    /// Rounds replayed with a different hole card.
    pub hole_replays: u64,
    /// Views compared between the two engines.
    pub views_compared: u64,
    /// Rounds whose replay was skipped (the second engine's shoe could not be made
    /// the same but for the hidden cards, or nothing was hidden).
    pub replays_skipped: u64,
    /// Rounds that could not open (no bet the table accepts).
    pub unbettable: u64,
}

/// The most steps a round may take: a round that does not end is a bug.
const MAX_STEPS: u64 = 20_000;

/// A table played round after round, checked after every step.
pub struct Session {
    /// The table.
    pub table: Table,
    /// The round state.
    pub round: Round<ChaCha20Rng>,
    /// The meters.
    pub meters: MemoryMeters,
    /// The events and the ledger.
    pub sink: Sink,
    /// Each seat's start balance plus its deposits.
    pub start: Vec<Money>,
    meters_start: Money,
    auto: bool,
    /// What the session did.
    pub stats: Stats,
}

/// A seat's balance when it is topped up: enough to bet the maximum on every spot,
/// double and split to the limit, and every side bet.
fn rich(table: &Table) -> Money {
    let r = table.rules();
    let hands = i64::from(r.player().max_split_hands.max(1));
    let sides: i64 = r.side_bets().iter().map(|b| b.max.0).sum();
    let spot = r.main_bet().max.0 * 2 * hands + sides + r.main_bet().max.0;
    Money((spot * i64::from(table.spots_per_seat())).min(felt_core::round::MAX_BALANCE.0 / 4))
}

impl Session {
    /// A session of `seats` seats (clamped to the table's) with this generator seed;
    /// `poor` seats hold a few minimum bets, so balances run short.
    pub fn new(table: &Table, seats: u8, seed: u64, poor: bool) -> Session {
        let seats = seats.clamp(1, table.seats());
        let each = if poor {
            Money(table.rules().main_bet().min.0 * 3)
        } else {
            rich(table)
        };
        let start = vec![each; usize::from(seats)];
        let round = table
            .round(table.new_shoe(), ChaCha20Rng::seed_from_u64(seed), &start)
            .expect("a round for the table's seats");
        let meters = MemoryMeters::for_table(table);
        let meters_start = meters.total();
        Session {
            table: table.clone(),
            round,
            meters,
            sink: Sink::default(),
            start,
            meters_start,
            auto: true,
            stats: Stats::default(),
        }
    }

    /// Every invariant that holds after any step.
    pub fn check(&self) {
        if let Err(e) = check_cards(&self.round) {
            panic!("cards: {e}\n{:#?}", self.sink.events);
        }
        if let Err(e) = check_money(&self.round, &self.start, &self.sink.ledger) {
            panic!("money: {e}\n{:#?}", self.sink.events);
        }
        let moved: Money = self.sink.ledger.meters.iter().map(|(_, m)| *m).sum();
        assert_eq!(
            self.meters.total(),
            self.meters_start + moved,
            "a meter moved without a ledger entry"
        );
        for (id, _) in self.table.meters() {
            assert!(self.meters.value(&id).is_some(), "meter {id} lost");
        }
    }

    /// Every seat's view (one past the last seat too), each checked to serialize to
    /// JSON.
    fn views(&self) -> Vec<View> {
        let v = views(&self.round);
        for view in &v {
            serde_json::to_string(view).expect("a view serializes to JSON");
        }
        v
    }

    /// Plays rounds until the bytes are spent or `max_rounds` are played.
    pub fn play(&mut self, src: &mut Src, max_rounds: usize) {
        for _ in 0..max_rounds {
            if src.exhausted() {
                return;
            }
            let bets = if src.below(4) == 0 {
                Bets::Full
            } else {
                Bets::Random
            };
            let play = [Play::Steps, Play::Auto, Play::Strategy, Play::Mixed][src.below(4)];
            let hidden = [Hidden::Hole, Hidden::Hole, Hidden::Tail, Hidden::Off][src.below(4)];
            if !self.play_round(src, bets, play, hidden) {
                return;
            }
        }
    }

    /// Tops balances up between rounds (deposits are counted in the start balances).
    fn top_up(&mut self) {
        let need = Money(self.table.rules().main_bet().min.0 * 3);
        for s in 0..self.round.seats() {
            let b = self.round.balance(s).expect("a seat");
            if b < need {
                let add = Money(need.0 * 2);
                self.round
                    .deposit(s, add)
                    .expect("a deposit between rounds");
                self.start[usize::from(s)] += add;
            }
        }
    }

    /// Plays one round; `false` if it could not open (no bet is accepted).
    pub fn play_round(&mut self, src: &mut Src, bets: Bets, play: Play, hidden: Hidden) -> bool {
        self.top_up();
        self.sink.events.clear();
        self.round
            .begin(&mut self.sink)
            .expect("begin after a round");
        self.check();
        let snapshot = (self.round.clone(), self.meters.clone(), self.auto);
        let mut records = Vec::new();
        match bets {
            Bets::Full => self.bet_everything(src, &mut records),
            Bets::Random => self.bet_randomly(src, &mut records),
        }
        if !self.open(src, play, &mut records) {
            self.stats.unbettable += 1;
            return false;
        }
        let mut steps = 0u64;
        while self.round.phase() != Phase::Done {
            steps += 1;
            assert!(steps < MAX_STEPS, "the round does not end");
            let step = self.next_step(src, play);
            records.push(self.exec(step, src));
        }
        assert_eq!(self.round.felt(), Money::ZERO, "chips left on the felt");
        self.stats.rounds += 1;
        if hidden != Hidden::Off {
            self.hidden_cards_check(&snapshot, &records, hidden, src);
        }
        true
    }

    /// A bet on every spot of every seat, and every side bet on each.
    fn bet_everything(&mut self, src: &mut Src, records: &mut Vec<Record>) {
        let main = self.table.rules().main_bet().limits();
        let sides: Vec<_> = self.table.side_bets().iter().map(|b| b.limits).collect();
        for seat in 0..self.round.seats() {
            for spot in 0..self.table.spots_per_seat() {
                let amount = legal_amount(src, main.min, main.max, main.increment);
                let r = self.exec(Step::Apply(Action::Bet { seat, spot, amount }), src);
                records.push(r);
                for (bet, l) in sides.iter().enumerate() {
                    let amount = legal_amount(src, l.min, l.max, l.increment);
                    let a = Action::SideBet {
                        seat,
                        spot,
                        bet: bet as u8,
                        amount,
                    };
                    records.push(self.exec(Step::Apply(a), src));
                }
            }
        }
    }

    /// Bets, side bets, withdrawals, burns and illegal actions from the bytes.
    fn bet_randomly(&mut self, src: &mut Src, records: &mut Vec<Record>) {
        let seats = self.round.seats();
        let spots = self.table.spots_per_seat();
        let main = self.table.rules().main_bet().limits();
        let nsides = self.table.side_bets().len();
        for _ in 0..src.below(16) {
            // Now and then a seat or a spot that does not exist.
            let extra = usize::from(src.below(8) == 0);
            let seat = src.below(usize::from(seats) + extra) as u8;
            let extra = usize::from(src.below(8) == 0);
            let spot = src.below(usize::from(spots) + extra) as u8;
            let step = match src.below(12) {
                0..=3 => Step::Apply(Action::Bet {
                    seat,
                    spot,
                    amount: any_amount(src, main.min, main.max, main.increment),
                }),
                4..=7 if nsides > 0 => {
                    let extra = usize::from(src.below(8) == 0);
                    let bet = src.below(nsides + extra);
                    let l = self.table.side_bets().get(bet).map_or(main, |b| b.limits);
                    Step::Apply(Action::SideBet {
                        seat,
                        spot,
                        bet: bet as u8,
                        amount: any_amount(src, l.min, l.max, l.increment),
                    })
                }
                8 => Step::Apply(Action::Withdraw { seat, spot }),
                9 => Step::Burn(src.bool()),
                10 => Step::SetAuto(src.bool()),
                _ => Step::Apply(any_action(src, seats, spots, nsides)),
            };
            records.push(self.exec(step, src));
        }
    }

    /// Deals (by the action, or by the strategy's automated path); if no bet is on
    /// the table, tries a few amounts on the first spot first. `false` if the table
    /// accepts none.
    fn open(&mut self, src: &mut Src, play: Play, records: &mut Vec<Record>) -> bool {
        let deal = |s: &mut Session, src: &mut Src, records: &mut Vec<Record>| {
            let step = if play == Play::Strategy || (play == Play::Mixed && src.below(4) == 0) {
                Step::Auto(Vec::new())
            } else {
                Step::Apply(Action::Deal)
            };
            let r = s.exec(step, src);
            let ok = !matches!(r.result, Some(Err(ActionError::NoBets)));
            records.push(r);
            ok
        };
        if self.round.phase() != Phase::Betting {
            return true;
        }
        if play == Play::Steps {
            records.push(self.exec(Step::SetAuto(false), src));
        } else if play == Play::Auto || play == Play::Strategy {
            records.push(self.exec(Step::SetAuto(true), src));
        }
        if deal(self, src, records) {
            return true;
        }
        let l = self.table.rules().main_bet().limits();
        let mut amount = l.min;
        for _ in 0..8 {
            if amount > l.max {
                break;
            }
            let bet = Action::Bet {
                seat: 0,
                spot: 0,
                amount,
            };
            let r = self.exec(Step::Apply(bet), src);
            let ok = matches!(r.result, Some(Ok(())));
            records.push(r);
            if ok {
                return deal(self, src, records);
            }
            amount += l.increment;
        }
        false
    }

    /// The next step of a round in progress, from the bytes. Byte 0 always moves the
    /// round on (a chance step, or the first decision offered), so spent bytes finish
    /// the round.
    fn next_step(&mut self, src: &mut Src, play: Play) -> Step {
        let legal = self.round.legal_actions();
        let seats = self.round.seats();
        let spots = self.table.spots_per_seat();
        let nsides = self.table.side_bets().len();
        let wild = play == Play::Mixed || src.below(8) == 0;
        match legal.turn {
            Turn::Chance => match if wild { src.below(12) } else { 0 } {
                1 => Step::RunChance,
                2 => Step::Auto(Vec::new()),
                3 => Step::SetAuto(src.bool()),
                4 => Step::Apply(any_action(src, seats, spots, nsides)),
                _ => Step::Advance,
            },
            Turn::Seat { seat, spot, hand } => match if wild { src.below(14) } else { 0 } {
                1 => Step::Auto(Vec::new()),
                2 => Step::SetAuto(src.bool()),
                3 => Step::Apply(any_action(src, seats, spots, nsides)),
                4 => Step::Advance,
                5 => Step::Apply(Action::Play {
                    seat: (seat + 1) % (seats + 1),
                    at: None,
                    decision: legal_decision(src, &legal),
                }),
                // The decision timer runs out.
                6 => Step::Apply(Action::Timeout {
                    seat,
                    at: Some(HandRef { spot, hand }),
                }),
                // A decision for another hand (a late retry): refused.
                7 => Step::Apply(Action::Play {
                    seat,
                    at: Some(HandRef {
                        spot,
                        hand: hand.wrapping_add(1 + src.below(3) as u8),
                    }),
                    decision: legal_decision(src, &legal),
                }),
                _ if play == Play::Strategy => Step::Auto(Vec::new()),
                _ => Step::Apply(Action::Play {
                    seat,
                    at: Some(HandRef { spot, hand }),
                    decision: legal_decision(src, &legal),
                }),
            },
            // Betting, after a refused deal: deal now.
            Turn::Bets => Step::Apply(Action::Deal),
            Turn::Done => Step::Advance,
        }
    }

    /// Takes a step on the session's engine, checks every invariant, and records it.
    fn exec(&mut self, mut step: Step, src: &mut Src) -> Record {
        let before = (
            self.round.clone(),
            self.meters.clone(),
            self.sink.events.len(),
        );
        let result = match &mut step {
            Step::Apply(a) => Some(self.round.apply(*a, &mut self.meters, &mut self.sink)),
            Step::Advance => Some(self.round.advance(&mut self.meters, &mut self.sink)),
            Step::RunChance => {
                self.round.run_chance(&mut self.meters, &mut self.sink);
                None
            }
            Step::Auto(made) => {
                let mut strategy = |ctx: &DecisionContext<'_>| {
                    // Now and then a decision not offered: the round stops there.
                    let d = if src.below(32) == 31 {
                        any_decision(src)
                    } else {
                        legal_decision(src, &ctx.legal)
                    };
                    made.push(d);
                    d
                };
                Some(
                    self.round
                        .play_auto(&mut strategy, &mut self.meters, &mut self.sink),
                )
            }
            Step::SetAuto(on) => {
                self.round.set_auto(*on);
                self.auto = *on;
                None
            }
            Step::Burn(up) => Some(self.round.burn(*up, &mut self.sink).map(|_| ())),
        };
        self.stats.steps += 1;
        if let Some(Err(e)) = &result {
            self.stats.refused += 1;
            let _ = e.to_string();
            if !matches!(step, Step::Auto(_)) {
                assert!(
                    self.round == before.0,
                    "{step:?} refused ({e}) but the round changed"
                );
                assert!(
                    self.meters == before.1,
                    "{step:?} refused but a meter changed"
                );
                assert_eq!(
                    self.sink.events.len(),
                    before.2,
                    "{step:?} refused but events were logged"
                );
            }
        }
        self.check();
        let new = &self.sink.events[before.2..];
        let drawn = |e: &&Event| matches!(e, Event::Dealt { .. } | Event::Burned { .. });
        Record {
            draws: new.iter().filter(drawn).count(),
            hole: new.iter().filter(drawn).position(|e| {
                matches!(
                    e,
                    Event::Dealt {
                        to: Target::Dealer,
                        face_up: false,
                        ..
                    }
                )
            }),
            step,
            result,
            views: self.views(),
            hole_turned: new
                .iter()
                .any(|e| matches!(e, Event::HoleCardTurned { .. })),
            rack: new.iter().any(is_rack_reshuffle),
        }
    }

    /// The hidden-card check (C-11): no view may depend on a card nobody has seen.
    ///
    /// The round just played is replayed, step for step, on a second engine made
    /// from the session's state after `begin` (`snapshot`): same balances, meters and
    /// generator, and the same shoe except that the hidden cards are permuted. Which
    /// cards are hidden is read from the round as played: with [`Hidden::Hole`], the
    /// hole card and every card the shoe had not dealt when the hole card was turned
    /// (views compared until then); with [`Hidden::Tail`], every card the round never
    /// dealt (views compared through the whole round). Shuffles permute positions
    /// whatever the cards, and everything the engines do but the peek is the same
    /// until a hidden card is shown; so after every step, until either engine turns
    /// its hole card (the peek may find a natural in one only) or the rack is
    /// reshuffled, every seat's view must be the same on both, and every action
    /// accepted or refused alike.
    fn hidden_cards_check(
        &mut self,
        snapshot: &(Round<ChaCha20Rng>, MemoryMeters, bool),
        records: &[Record],
        hidden: Hidden,
        src: &mut Src,
    ) {
        let (a0, meters0, auto0) = snapshot;
        let shoe0 = a0.shoe();
        let next0 = shoe0.dealt();
        // The window: the steps before the first that turns the hole card (Hole) or
        // reshuffles the rack.
        let end = records
            .iter()
            .position(|r| r.rack || (hidden == Hidden::Hole && r.hole_turned))
            .unwrap_or(records.len());
        let hole_hidden = !records[..end].iter().any(|r| r.hole_turned);
        // The k-th card drawn after the snapshot lay at `next0 + k` (the rack is not
        // reshuffled inside the window): the window dealt `[next0, tail_from)`, and
        // the hole card lay at `hole_at`.
        let mut drawn = next0;
        let mut hole_at = None;
        for r in &records[..end] {
            if let Some(i) = r.hole {
                hole_at.get_or_insert(drawn + i);
            }
            drawn += r.draws;
        }
        let tail_from = drawn;
        let mut hidden_at: Vec<usize> = (tail_from..shoe0.len()).collect();
        let hole_at = hole_at.filter(|_| hole_hidden);
        if let Some(h) = hole_at {
            hidden_at.push(h);
        }
        if hidden_at.len() < 2 {
            self.stats.replays_skipped += 1;
            return;
        }
        let original = shoe0.to_bytes();
        let mut bytes = original.clone();
        let header = bytes.len() - shoe0.len();
        let card = |b: &[u8], p: usize| b[header + p];
        // A permutation of the hidden positions chosen by the bytes; with the hole
        // hidden, first a swap that changes the hole card's kind (ace, ten, other)
        // when the tail holds one, so the peek's answer differs now and then.
        if let Some(h) = hole_at.filter(|_| src.bool()) {
            // A card's byte is its index, rank-major: rank `i / 4` (0 the ace).
            let kind = |i: u8| match i / 4 {
                0 => 0,
                9..=12 => 1,
                _ => 2,
            };
            let want = src.below(3);
            if let Some(&q) = hidden_at
                .iter()
                .find(|&&q| q != h && kind(card(&bytes, q)) == want)
            {
                bytes.swap(header + h, header + q);
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(src.u16()));
        for i in (1..hidden_at.len()).rev() {
            let j = (rng.next_u32() as usize) % (i + 1);
            bytes.swap(header + hidden_at[i], header + hidden_at[j]);
        }
        let hole_changed = hole_at.is_some_and(|h| bytes[header + h] != original[header + h]);
        let shoe_b = Shoe::from_bytes(&bytes).expect("a permuted shoe is a valid shoe");
        if &shoe_b == shoe0 {
            self.stats.replays_skipped += 1;
            return;
        }
        let (_, rng0, balances) = a0.clone().into_parts();
        let mut b = self
            .table
            .round(shoe_b.clone(), rng0, &balances)
            .expect("a round like the session's");
        b.set_auto(*auto0);
        b.begin(&mut NoopSink).expect("begin");
        if b.shoe() != &shoe_b {
            // `begin` shuffled or burned (a CSM whose shoe is not fresh, or burns past
            // the cut card): the shoes differ by more than the hidden cards.
            self.stats.replays_skipped += 1;
            return;
        }
        let mut meters = meters0.clone();
        let mut events: Vec<Event> = Vec::new();
        assert_eq!(views(&b), views(a0), "views differ before the first bet");
        self.stats.replays += 1;
        self.stats.hole_replays += u64::from(hole_changed);
        for (k, rec) in records.iter().enumerate().take(end + 1) {
            let n = events.len();
            let result = match &rec.step {
                Step::Apply(a) => Some(b.apply(*a, &mut meters, &mut events)),
                Step::Advance => Some(b.advance(&mut meters, &mut events)),
                Step::RunChance => {
                    b.run_chance(&mut meters, &mut events);
                    None
                }
                Step::Auto(made) => {
                    let mut it = made.iter().copied();
                    let mut strategy =
                        |_: &DecisionContext<'_>| it.next().unwrap_or(Decision::Stand);
                    Some(b.play_auto(&mut strategy, &mut meters, &mut events))
                }
                Step::SetAuto(on) => {
                    b.set_auto(*on);
                    None
                }
                Step::Burn(up) => Some(b.burn(*up, &mut events).map(|_| ())),
            };
            // The second engine showed a card the first did not: its peek found a
            // natural the first did not (its hole card differs), or its rack was
            // reshuffled. The views may differ from here on.
            let turned = events[n..]
                .iter()
                .any(|e| matches!(e, Event::HoleCardTurned { .. }));
            let shown = (turned && hole_at.is_some()) || events[n..].iter().any(is_rack_reshuffle);
            // Whether an action is accepted may not depend on a hidden card. (The
            // automated path's result may, where it plays past a card shown.)
            if !matches!(rec.step, Step::Auto(_)) || (k < end && !shown) {
                assert_eq!(
                    result, rec.result,
                    "step {k} {:?}: accepted or refused differently when hidden cards differ",
                    rec.step
                );
            }
            if k >= end || shown {
                break;
            }
            let vb = views(&b);
            for (seat, (va, vb)) in rec.views.iter().zip(&vb).enumerate() {
                if va != vb {
                    let json = |v: &View| serde_json::to_string(v).unwrap_or_default();
                    panic!(
                        "seat {seat}'s view depends on a hidden card after step {k} {:?}\n\
                         with the shoe dealt: {}\nwith the hidden cards permuted: {}",
                        rec.step,
                        json(va),
                        json(vb)
                    );
                }
            }
            self.stats.views_compared += vb.len() as u64;
        }
    }
}

fn is_rack_reshuffle(e: &Event) -> bool {
    matches!(
        e,
        Event::Shuffled {
            why: ShuffleWhy::RackReshuffled,
            ..
        }
    )
}

/// Every seat's view (and one past the last seat), the round number left out (the
/// replay's engine counts its rounds from 1). Compared as values: every field a view
/// serializes is compared.
pub fn views(round: &Round<ChaCha20Rng>) -> Vec<View> {
    (0..=round.seats())
        .map(|seat| View {
            round: 0,
            ..round.view(seat)
        })
        .collect()
}

/// An amount within the limits: mostly the minimum or a few increments above it,
/// sometimes the maximum.
fn legal_amount(src: &mut Src, min: Money, max: Money, inc: Money) -> Money {
    match src.below(8) {
        0 => max,
        n => {
            let steps = ((max.0 - min.0) / inc.0.max(1)).max(0);
            let k = (i64::from(src.u8()) * i64::from(n as u8)).min(steps);
            Money(min.0 + inc.0 * k)
        }
    }
}

/// An amount, within the limits or not.
fn any_amount(src: &mut Src, min: Money, max: Money, inc: Money) -> Money {
    match src.below(12) {
        0 => max + inc,
        1 => min - inc,
        2 => Money(i64::from(src.u16() as i16)),
        3 => min + Money(1),
        4 => Money(i64::MAX - i64::from(src.u8())),
        _ => legal_amount(src, min, max, inc),
    }
}

/// An amount for a double or insurance: one the range allows, mostly.
fn range_amount(src: &mut Src, r: Option<AmountRange>) -> Money {
    match r {
        Some(r) => match src.below(8) {
            0 => r.full,
            1 => r.max,
            2 => r.min,
            3 => r.max + r.step,
            4 => r.min - Money(1),
            _ => {
                let steps = ((r.max.0 - r.min.0) / r.step.0.max(1)).max(0);
                Money(r.min.0 + r.step.0 * (i64::from(src.u8()) % (steps + 1)))
            }
        },
        None => Money(i64::from(src.u16())),
    }
}

const ALL: [Decisions; 8] = [
    Decisions::HIT,
    Decisions::STAND,
    Decisions::DOUBLE,
    Decisions::SPLIT,
    Decisions::SURRENDER,
    Decisions::INSURE,
    Decisions::EVEN_MONEY,
    Decisions::DECLINE,
];

fn decision_of(bit: Decisions, src: &mut Src, legal: &Legal) -> Decision {
    match bit {
        Decisions::HIT => Decision::Hit,
        Decisions::STAND => Decision::Stand,
        Decisions::DOUBLE => Decision::Double(range_amount(src, legal.double)),
        Decisions::SPLIT => Decision::Split,
        Decisions::SURRENDER => Decision::Surrender,
        Decisions::INSURE => Decision::Insure(range_amount(src, legal.insurance)),
        Decisions::EVEN_MONEY => Decision::EvenMoney,
        _ => Decision::Decline,
    }
}

/// One of the decisions offered (any decision if none is).
fn legal_decision(src: &mut Src, legal: &Legal) -> Decision {
    let offered: Vec<Decisions> = ALL
        .into_iter()
        .filter(|d| legal.decisions.contains(*d))
        .collect();
    let bit = if offered.is_empty() {
        ALL[src.below(ALL.len())]
    } else {
        offered[src.below(offered.len())]
    };
    decision_of(bit, src, legal)
}

/// Any decision, offered or not.
fn any_decision(src: &mut Src) -> Decision {
    let bit = ALL[src.below(ALL.len())];
    let amount = Money(i64::from(src.u16() as i16));
    match bit {
        Decisions::DOUBLE => Decision::Double(amount),
        Decisions::INSURE => Decision::Insure(amount),
        b => decision_of(
            b,
            src,
            &Legal {
                turn: Turn::Done,
                decisions: Decisions::NONE,
                double: None,
                insurance: None,
            },
        ),
    }
}

/// Any action, mostly illegal where it is taken.
fn any_action(src: &mut Src, seats: u8, spots: u8, nsides: usize) -> Action {
    let seat = src.below(usize::from(seats) + 2) as u8;
    let spot = src.below(usize::from(spots) + 2) as u8;
    let amount = Money(i64::from(src.u16() as i16) * 25);
    match src.below(7) {
        0 => Action::Bet { seat, spot, amount },
        1 => Action::SideBet {
            seat,
            spot,
            bet: src.below(nsides + 2) as u8,
            amount,
        },
        2 => Action::Withdraw { seat, spot },
        3 => Action::Deal,
        4 => Action::Timeout { seat, at: None },
        _ => Action::Play {
            seat,
            at: None,
            decision: any_decision(src),
        },
    }
}

/// The `engine_actions` target: a game from the bytes ([`rules_from`]), then 1 to 7
/// seats, rich or poor, playing up to 16 rounds while bytes remain. `None` if the
/// table cannot be built.
pub fn play_bytes(data: &[u8]) -> Option<Stats> {
    let mut src = Src::new(data);
    let rules = rules_from(&mut src);
    let table = Table::new(&rules).ok()?;
    let seats = 1 + src.below(usize::from(table.seats())) as u8;
    let seed = u64::from(src.u16());
    let poor = src.below(4) == 0;
    let mut session = Session::new(&table, seats, seed, poor);
    session.play(&mut src, 16);
    Some(session.stats)
}

/// The `rules_toml` target's play of an accepted file: up to 3 seats, choices from a
/// generator seeded with `seed`, three rounds: every spot and side bet bet and played
/// by the automated path; the same bets played one step at a time; random bets and
/// illegal actions, the round switching between the paths. `None` if the table cannot
/// be built.
pub fn play_rules(rules: &Rules, seed: u64) -> Option<Stats> {
    let table = Table::new(rules).ok()?;
    let mut src = Src::seeded(seed);
    let seats = 1 + src.below(usize::from(table.seats()).min(3)) as u8;
    let mut session = Session::new(&table, seats, u64::from(src.u16()), false);
    let rounds = [
        (Bets::Full, Play::Strategy, Hidden::Hole),
        (Bets::Full, Play::Steps, Hidden::Tail),
        (Bets::Random, Play::Mixed, Hidden::Hole),
    ];
    for (bets, play, hidden) in rounds {
        if !session.play_round(&mut src, bets, play, hidden) {
            break;
        }
    }
    Some(session.stats)
}
