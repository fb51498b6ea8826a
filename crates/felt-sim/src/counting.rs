//! Counting in the simulator: a count, a true count method, a bet ramp with wonging
//! and side bets above a count, index plays, and the counter's figures (win rate,
//! standard deviation, N0, DI and SCORE with their standard errors, the edge and
//! frequency at each true count, simulated risk of ruin beside the formula's).
//!
//! # The table
//!
//! The counter plays seat 1 (index 0) with its spots. Other seats (`--seats`) are
//! players who bet the table minimum on every spot, play the basic strategy, take no
//! side bet and are not in the figures: they use up cards, as at a real table. While
//! the counter is wonged out, its spots are played by such a player too (someone
//! else's hands it watches), so the shoe is dealt as it would be and the count runs
//! on; those rounds are *seen* and not *played*.
//!
//! # Betting
//!
//! The true count at a round's bet (after any shuffle and burn) picks the bet: the
//! ramp's units at the largest step at or below it (the first step's below them),
//! times the unit, down to a multiple of the table's increment, within the table's
//! minimum and maximum. Wonging: with `wong_in`, the counter starts each shoe out
//! and sits in at a true count at or above it; with `wong_out`, it leaves at a true
//! count below it and (without `wong_in`) waits for the next shoe. Side bets are
//! placed, at their minimum, on every round played, or with `side_at` only where the
//! true count is at least that.
//!
//! # Figures
//!
//! A round's result is everything the counter's spots won or lost (main bets,
//! doubles, splits, insurance, side bets), in units. Win rate and standard deviation
//! are per round played; the standard errors of the win rate, the standard deviation,
//! N0, DI and SCORE come from the delta method with the covariance of the first two
//! moments estimated over whole shoes (a shoe's rounds are correlated through its
//! count; shoes are independent), so they hold for a counter's correlated rounds.
//! Every sum is an integer (cents), so shards merge exactly.

use crate::count::{CountCells, DeckEstimation, TcRounding, TrueCounter};
use crate::indices::{IndexSet, IndexTable};
use crate::sides::FlatSums;
use crate::sim::{Plan, SimError, Tally};
use crate::stats::BetAccumulator;
use crate::strategy::{decision_of, full_double, HandAsk, ResolvedIndices, StrategyTable};
use felt_core::meter::{MemoryMeters, Meters};
use felt_core::money::Money;
use felt_core::round::{BetKind, MeterWhy, SpotBets, MAX_BALANCE, MAX_SIDE_BETS};
use felt_core::{ActionError, Decision, DecisionContext, Event, EventSink, Phase, Round, Strategy};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::time::Instant;

/// The lowest true count with a row of its own (lower counts share it).
pub const TC_LOW: i32 = -40;
/// The highest true count with a row of its own (higher counts share it).
pub const TC_HIGH: i32 = 40;
const BINS: usize = (TC_HIGH - TC_LOW + 1) as usize;

/// The trip length of the simulated risk of ruin when `hands` is not given.
pub const DEFAULT_TRIP: u64 = 16_384;

/// A count as the options carry it (a [`felt_math::count::CountSystem`]'s figures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountSpec {
    /// Its name.
    pub name: String,
    /// Tags of A, 2..9, T.
    pub tags: [f64; 10],
    /// Balanced (true count conversion) or not (the running count is used).
    pub balanced: bool,
}

impl From<&felt_math::count::CountSystem> for CountSpec {
    fn from(c: &felt_math::count::CountSystem) -> Self {
        CountSpec {
            name: c.name.clone(),
            tags: c.tags,
            balanced: c.balanced,
        }
    }
}

/// One step of a bet ramp: at this true count and above (to the next step), this
/// many units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RampStep {
    /// The true count.
    pub tc: i32,
    /// Units bet.
    pub units: f64,
}

/// The simulated risk of ruin's parameters, in units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RiskOptions {
    /// The bankroll a trip starts with.
    pub bankroll: f64,
    /// Stop a trip (won) once the bankroll has grown by this.
    pub goal: Option<f64>,
    /// Rounds played per trip (default [`DEFAULT_TRIP`]).
    pub hands: Option<u64>,
}

/// What the counter does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountingOptions {
    /// The count.
    pub count: CountSpec,
    /// An unbalanced count's initial running count (default `-(deck sum) x (decks - 1)`).
    pub irc: Option<i32>,
    /// Decks-left estimation.
    pub estimation: DeckEstimation,
    /// True count rounding.
    pub rounding: TcRounding,
    /// The bet ramp, steps by rising true count; empty: one unit always.
    pub ramp: Vec<RampStep>,
    /// The unit, cents (default: the table minimum).
    pub unit: Option<i64>,
    /// The table's minimum main bet, cents (default: the rules').
    pub table_min: Option<i64>,
    /// The table's maximum main bet, cents (default: the rules').
    pub table_max: Option<i64>,
    /// Sit in at this true count and above (out at the start of each shoe).
    pub wong_in: Option<i32>,
    /// Leave at a true count below this.
    pub wong_out: Option<i32>,
    /// Place side bets only at this true count and above.
    pub side_at: Option<i32>,
    /// Index plays.
    pub indices: Option<IndexSet>,
    /// Simulated risk of ruin.
    pub risk: Option<RiskOptions>,
}

impl CountingOptions {
    /// Flat betting with a count, no index, no wonging: the count is only watched.
    pub fn watch(count: &felt_math::count::CountSystem) -> CountingOptions {
        CountingOptions {
            count: count.into(),
            irc: None,
            estimation: DeckEstimation::default(),
            rounding: TcRounding::default(),
            ramp: Vec::new(),
            unit: None,
            table_min: None,
            table_max: None,
            wong_in: None,
            wong_out: None,
            side_at: None,
            indices: None,
            risk: None,
        }
    }
}

/// Why counting options were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CountingError {
    /// A ramp written `TC:UNITS,...` could not be read.
    #[error("--ramp `{text}`: {why} (write true count:units pairs, e.g. 1:1,2:2,3:4,4:8)")]
    Ramp {
        /// The text.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// An option out of range.
    #[error("{0}")]
    Options(String),
    /// The count cannot be run.
    #[error(transparent)]
    Count(#[from] crate::count::CountSetupError),
    /// The index plays cannot be compiled.
    #[error(transparent)]
    Indices(#[from] crate::indices::IndexError),
}

/// Reads a ramp `TC:UNITS,TC:UNITS,...` (true counts rising, units positive).
pub fn parse_ramp(text: &str) -> Result<Vec<RampStep>, CountingError> {
    let bad = |why: String| CountingError::Ramp {
        text: text.chars().take(200).collect(),
        why,
    };
    let mut steps: Vec<RampStep> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (tc, units) = part
            .split_once(':')
            .ok_or_else(|| bad(format!("`{part}` has no `:`")))?;
        let tc: i32 = tc
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{tc}` is not an integer true count")))?;
        let units: f64 = units
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{units}` is not a number of units")))?;
        if !(TC_LOW..=TC_HIGH).contains(&tc) {
            return Err(bad(format!(
                "true count {tc} is outside {TC_LOW}..={TC_HIGH}"
            )));
        }
        if !(units.is_finite() && (0.0..=1e6).contains(&units)) {
            return Err(bad(format!("{units} units: give 0 to 1,000,000")));
        }
        if let Some(last) = steps.last() {
            if tc <= last.tc {
                return Err(bad("true counts must rise from step to step".into()));
            }
        }
        steps.push(RampStep { tc, units });
        if steps.len() > BINS {
            return Err(bad("too many steps".into()));
        }
    }
    if steps.is_empty() {
        return Err(bad("no step".into()));
    }
    Ok(steps)
}

#[inline]
pub(crate) fn bin_of(tc: i32) -> usize {
    (tc.clamp(TC_LOW, TC_HIGH) - TC_LOW) as usize
}

/// The counting options compiled for the chunks.
#[derive(Debug, Clone)]
pub(crate) struct CountPlan {
    pub counter: TrueCounter,
    pub indices: IndexTable,
    /// Main bet per spot (cents) by true count bin.
    pub bet_by_bin: Vec<i64>,
    /// Side bets placed, by bin.
    pub side_by_bin: Vec<bool>,
    pub wong_in: Option<i32>,
    pub wong_out: Option<i32>,
    /// The table's minimum main bet (the other players' and a watched spot's bet).
    pub table_min: i64,
    pub unit: i64,
    /// Risk: bankroll and goal (cents), trip length.
    pub walk: Option<(i128, Option<i128>, u64)>,
    pub options: CountingOptions,
}

impl CountPlan {
    /// Compiles the options for a table of `decks` decks whose main bet runs from
    /// `min` to `max` in steps of `increment` (cents).
    pub fn new(
        o: &CountingOptions,
        decks: u8,
        min: i64,
        max: i64,
        increment: i64,
    ) -> Result<CountPlan, CountingError> {
        if let Some(t) = o
            .count
            .tags
            .iter()
            .find(|t| !(t.is_finite() && t.abs() <= 100.0))
        {
            return Err(CountingError::Options(format!(
                "count `{}`: a tag of {t}; tags are finite numbers from -100 to 100",
                o.count.name
            )));
        }
        if let Some(irc) = o.irc.filter(|i| i.abs() > 100_000) {
            return Err(CountingError::Options(format!(
                "--irc {irc}: give an initial running count from -100000 to 100000"
            )));
        }
        let system = felt_math::count::CountSystem {
            name: o.count.name.clone(),
            tags: o.count.tags,
            balanced: o.count.balanced,
            side_count: None,
        };
        let counter = TrueCounter::new(&system, decks, o.estimation, o.rounding, o.irc)?;
        let indices = match &o.indices {
            Some(s) => IndexTable::compile(s)?,
            None => IndexTable::default(),
        };
        let unit = o.unit.unwrap_or(min);
        if unit <= 0 {
            return Err(CountingError::Options(format!(
                "the unit must be above zero, not {unit} cents"
            )));
        }
        let inc = increment.max(1);
        let mut bet_by_bin = Vec::with_capacity(BINS);
        for b in 0..BINS {
            let tc = TC_LOW + b as i32;
            let units = o
                .ramp
                .iter()
                .rev()
                .find(|s| s.tc <= tc)
                .or(o.ramp.first())
                .map_or(1.0, |s| s.units);
            let cents = (units * unit as f64).floor();
            let cents = if cents.is_finite() && cents < 1e15 {
                cents as i64
            } else {
                max
            };
            let on_step = min + (cents - min).max(0) / inc * inc;
            bet_by_bin.push(on_step.clamp(min, max));
        }
        let side_by_bin = (0..BINS)
            .map(|b| o.side_at.is_none_or(|s| TC_LOW + b as i32 >= s))
            .collect();
        if let (Some(i), Some(out)) = (o.wong_in, o.wong_out) {
            if out > i {
                return Err(CountingError::Options(format!(
                    "--wong-out {out} is above --wong-in {i}: the counter would leave as it sits in"
                )));
            }
        }
        let walk = match o.risk {
            None => None,
            Some(r) => {
                let hands = r.hands.unwrap_or(DEFAULT_TRIP);
                if hands == 0 || hands > crate::CHUNK_ROUNDS {
                    return Err(CountingError::Options(format!(
                        "--hands {hands}: a simulated trip is 1 to {} rounds (one chunk)",
                        crate::CHUNK_ROUNDS
                    )));
                }
                if !(r.bankroll.is_finite() && r.bankroll > 0.0 && r.bankroll < 1e12) {
                    return Err(CountingError::Options(format!(
                        "--bankroll {}: a positive number of units",
                        r.bankroll
                    )));
                }
                if let Some(g) = r.goal.filter(|g| !(g.is_finite() && *g > 0.0 && *g < 1e12)) {
                    return Err(CountingError::Options(format!(
                        "--goal {g}: a positive number of units"
                    )));
                }
                let cents = |u: f64| (u * unit as f64).round() as i128;
                Some((cents(r.bankroll), r.goal.map(cents), hands))
            }
        };
        Ok(CountPlan {
            counter,
            indices,
            bet_by_bin,
            side_by_bin,
            wong_in: o.wong_in,
            wong_out: o.wong_out,
            table_min: min,
            unit,
            walk,
            options: o.clone(),
        })
    }

    /// Whether the counter bets flat, every round, without index plays: the main
    /// wager's edge is then the exact off-the-top figure's (plus the cut-card effect).
    pub fn plays_flat_basic(&self) -> bool {
        self.indices.is_empty()
            && self.wong_in.is_none()
            && self.wong_out.is_none()
            && self.bet_by_bin.windows(2).all(|w| w[0] == w[1])
    }

    /// The fresh counting state of a chunk whose shoe holds `cards` undealt cards.
    pub fn cells(&self, cards: usize) -> CountCells {
        let c = CountCells::default();
        c.rc.set(self.counter.irc);
        c.left.set(i32::try_from(cards).unwrap_or(i32::MAX));
        c
    }
}

/// What the report's notes say of the counter.
pub(crate) fn notes(cp: &CountPlan, seats: u8) -> Vec<String> {
    let mut v = vec![
        "counting: the counter plays seat 1's spots and is the only player in the figures; \
         it sees each card dealt face up, the hole card when turned, never a face-down burn; \
         the cards left for the true count are the shoe's undealt cards"
            .to_string(),
    ];
    if seats > 1 {
        v.push(format!(
            "counting: the other {} seat(s) bet the table minimum, play basic strategy and \
             take no side bet; they use up cards and are not in the figures",
            seats - 1
        ));
    }
    if cp.wong_in.is_some() || cp.wong_out.is_some() {
        v.push(
            "counting: while wonged out, the counter's spots are played by someone else \
             (table minimum, basic strategy) and watched: those rounds are seen, not played"
                .to_string(),
        );
    }
    if !cp.plays_flat_basic() {
        v.push(
            "counting: with a ramp, wonging or index plays the main wager's edge is the \
             counter's (per unit bet), not comparable with the exact flat-bet figure"
                .to_string(),
        );
    }
    v.push(
        "counting: the main wager's figures include insurance; a round's result is the \
         counter's main, insurance and side bets together"
            .to_string(),
    );
    v
}

/// The counter's event sink: counts what a player sees and tallies the counter's
/// settlements (seat 1, while it plays).
struct CountTally<'a> {
    tally: Tally,
    cells: &'a CountCells,
    counter: &'a TrueCounter,
    playing: &'a Cell<bool>,
}

impl EventSink for CountTally<'_> {
    #[inline(always)]
    fn event(&mut self, e: &Event) {
        self.cells.see(self.counter, e);
        match e {
            Event::Settled(s) if s.at.seat == 0 && self.playing.get() => {
                if s.bet == BetKind::Insurance {
                    self.tally.main_net += s.returned.0 - s.stake.0;
                } else {
                    self.tally.settled(s);
                }
            }
            Event::Decided { at, decision } if at.seat == 0 && self.playing.get() => match decision
            {
                Decision::Double(_) => self.tally.doubles += 1,
                Decision::Split => self.tally.splits += 1,
                _ => {}
            },
            Event::Meter {
                change,
                why: MeterWhy::Award,
            } if self.playing.get() => self
                .tally
                .award(&change.id, change.before.0 - change.after.0),
            Event::Voided => self.tally.voided += 1,
            _ => {}
        }
    }
}

/// The counter's decisions where an index play may apply, out of line so the
/// counter's decision ([`CounterStrategy`]), inlined into the round, stays small: a
/// hand's from a few values ([`HandAsk`]), an offer's (rare) from the context.
struct Indexed<'a> {
    strategy: &'a StrategyTable,
    indices: &'a IndexTable,
    /// The index plays worked out ahead, where they could be.
    resolved: Option<&'a ResolvedIndices>,
    cells: &'a CountCells,
    counter: &'a TrueCounter,
}

impl Indexed<'_> {
    /// The action code of a hand whose cell has index plays.
    #[inline(never)]
    fn hand(&self, ask: HandAsk<'_>) -> u8 {
        let tc = || self.cells.true_count(self.counter);
        if let Some(code) = self.resolved.and_then(|r| r.code(&ask, tc())) {
            return code;
        }
        self.strategy.hand_indexed(ask, self.indices, tc)
    }

    /// An offer (insurance, even money, early surrender); index plays apply when
    /// `indexed` (the counter's seat, in play).
    #[inline(never)]
    fn offer(&self, c: &DecisionContext<'_>, indexed: bool) -> Decision {
        if indexed && self.indices.insurance.is_some() {
            self.strategy
                .offer_indexed(c, self.indices, || self.cells.true_count(self.counter))
        } else {
            self.strategy.decide(c)
        }
    }
}

/// The table's decisions with the counter at seat 1: the flagged table's code, and
/// the index plays where it is flagged and the counter plays.
struct CounterStrategy<'a> {
    /// The strategy flagged where the counter's index plays may apply.
    strategy: &'a StrategyTable,
    indexed: Indexed<'a>,
    playing: &'a Cell<bool>,
}

impl Strategy for CounterStrategy<'_> {
    /// Inlined into the engine's round (a closure there was not): the context is then
    /// read from registers, not from the memory it was just written to.
    #[inline(always)]
    fn decide(&mut self, c: &DecisionContext<'_>) -> Decision {
        let indexed = c.at.seat == 0 && self.playing.get();
        if c.phase != Phase::PlayerTurns {
            return self.indexed.offer(c, indexed);
        }
        let code = match self.strategy.hand_unless_indexed(c, indexed) {
            Ok(code) => code,
            Err(ask) => self.indexed.hand(ask),
        };
        decision_of(code, || full_double(c))
    }
}

/// Plays `n` rounds from a fresh shoe with the counter at seat 1: out of line, so
/// that the plain chunk's loop, inlined into its caller, is compiled as without it.
#[inline(never)]
pub(crate) fn run_chunk(
    plan: &Plan,
    cp: &CountPlan,
    n: u64,
    rng: &mut ChaCha8Rng,
) -> Result<(Tally, CountSums), SimError> {
    let start = Instant::now();
    let table = &plan.table;
    let balances = vec![Money(MAX_BALANCE.0 / 2); usize::from(plan.seats)];
    let mut round = table.round(table.new_shoe(), rng.clone(), &balances)?;
    let mut meters = MemoryMeters::for_table(table);
    let mut sums = CountSums::new(plan.sides.len());
    let cells = cp.cells(round.shoe().remaining());
    let playing = Cell::new(false);
    let counter = &cp.counter;
    let mut sink = CountTally {
        tally: Tally::new(&plan.sides),
        cells: &cells,
        counter,
        playing: &playing,
    };
    // The table flagged where the counter's index plays may apply.
    let strategy = plan.indexed.as_ref().unwrap_or(&plan.strategy);
    let indexed = Indexed {
        strategy,
        indices: &cp.indices,
        resolved: plan.resolved.as_ref(),
        cells: &cells,
        counter,
    };
    let mut decide = CounterStrategy {
        strategy,
        indexed,
        playing: &playing,
    };
    let nsides = plan.sides.len();
    let spots = i64::from(plan.spots);
    let mut run = Running::new(cp);
    let mut in_play = cp.wong_in.is_none();
    // The bins' rounds, folded into their accumulators at the end: a bin's stakes are
    // the same every round (its ramp bet, the side bets' minimums).
    let mut flat = vec![[FlatSums::default(); 1 + MAX_SIDE_BETS]; BINS];
    for _ in 0..n {
        round.begin(&mut sink)?;
        if cells.shuffled.replace(false) {
            run.end_shoe(&mut sums);
            in_play = cp.wong_in.is_none();
        }
        let tc = cells.true_count(counter);
        let bin = bin_of(tc);
        sums.bins[bin].seen += 1;
        if in_play {
            if cp.wong_out.is_some_and(|o| tc < o) {
                in_play = false;
            }
        } else if cp.wong_in.is_some_and(|i| tc >= i) {
            in_play = true;
        }
        playing.set(in_play);
        let bet = if in_play {
            cp.bet_by_bin[bin]
        } else {
            cp.table_min
        };
        let sides = in_play && nsides > 0 && cp.side_by_bin[bin];
        if sides {
            for (b, s) in plan.sides.iter().enumerate() {
                if let Some(id) = &s.meter {
                    let v = meters.value(id).unwrap_or(Money::ZERO);
                    let m = &mut sink.tally.meters[b];
                    m.value_sum += i128::from(v.0) * i128::from(spots);
                    m.samples += spots as u64;
                }
            }
        }
        // The plan's spots in order, the counter (seat 0) at its ramp's bet and with the
        // side bets (at their minimums) where the count calls for them.
        for b in &plan.bets {
            let counter = b.seat == 0;
            let bets = SpotBets {
                main: Money(if counter { bet } else { cp.table_min }),
                sides: if counter && sides {
                    b.sides
                } else {
                    [Money::ZERO; MAX_SIDE_BETS]
                },
                ..*b
            };
            round.place_spot(&bets, &mut sink)?;
        }
        play_out_of_line(&mut round, &mut decide, &mut meters, &mut sink)?;
        let t = &mut sink.tally;
        if in_play {
            let (main_net, wagered) = (t.main_net, t.main_wagered);
            // The tally's main and side sums are the bins' sums, added at the end.
            let f = &mut flat[bin];
            f[0].record(wagered, main_net);
            let mut net = main_net;
            if sides {
                for k in 0..nsides.min(MAX_SIDE_BETS) {
                    let sn = t.side_net[k];
                    f[1 + k].record(plan.side_min[k] * spots, sn);
                    net += sn;
                }
            }
            run.played(cp, &mut sums, net);
        }
        t.main_net = 0;
        t.main_wagered = 0;
        t.side_net = [0; MAX_SIDE_BETS];
    }
    run.end_shoe(&mut sums);
    // A bin's figures from its rounds: seen, the initial bets, and the counter's whole
    // result (the main wager's and the side bets').
    for ((b, f), &bet) in sums.bins.iter_mut().zip(&mut flat).zip(&cp.bet_by_bin) {
        sums.seen += b.seen;
        sums.bet += i128::from(f[0].rounds()) * i128::from(bet * spots);
        b.net += f[..=nsides.min(MAX_SIDE_BETS)]
            .iter()
            .map(FlatSums::net)
            .sum::<i128>();
        f[0].fold_into(&mut b.main, bet * spots);
        for (k, acc) in b.sides.iter_mut().enumerate() {
            f[1 + k].fold_into(acc, plan.side_min[k] * spots);
        }
    }
    let mut tally = sink.tally;
    for b in &sums.bins {
        tally.main.merge(&b.main);
        for (t, x) in tally.sides.iter_mut().zip(&b.sides) {
            t.merge(x);
        }
    }
    tally.busy = start.elapsed();
    Ok((tally, sums))
}

/// [`felt_core::Round::play_auto`] kept out of the counter's loop, as the simulator
/// keeps its round out of its loop ([`crate::sim`]'s `play_round`; here the bets depend
/// on the count and stay in the loop). Compiled into the loop, the count's speed
/// depended on where the copy's code landed in physical memory (from layout to layout,
/// a median of 10.4-11.7 M rounds a second and a lower quartile of 8.9-11.2), against
/// 11.0 (10.9) out of line, for 181 instructions a round more (docs/architecture.md,
/// "The round out of line").
#[inline(never)]
fn play_out_of_line<F, M, S>(
    round: &mut Round<ChaCha8Rng>,
    decide: &mut F,
    meters: &mut M,
    sink: &mut S,
) -> Result<(), ActionError>
where
    F: Strategy + ?Sized,
    M: Meters + ?Sized,
    S: EventSink + ?Sized,
{
    round.play_auto(decide, meters, sink)
}

/// One true count's sums.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinSums {
    /// Rounds seen at this true count.
    pub seen: u64,
    /// The counter's main wager (insurance included) on rounds played here.
    pub main: BetAccumulator,
    /// Each side bet on rounds it was placed here.
    pub sides: Vec<BetAccumulator>,
    /// The counter's whole result on rounds played here, cents.
    pub net: i128,
}

/// The counter's exact sums (cents), mergeable in any order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountSums {
    /// Rounds seen.
    pub seen: u64,
    /// Rounds played.
    pub played: u64,
    /// Sum of the initial main bets (all spots), cents.
    pub bet: i128,
    /// Sum of round results.
    pub net: i128,
    /// Sum of squared round results.
    pub net_sq: i128,
    /// Shoes (with a round played) as clusters: their number, and sums over them of
    /// n^2, S^2, Q^2, nS, nQ, SQ (n rounds played, S their net, Q their squared nets).
    pub shoes: u64,
    /// Sum of n^2.
    pub n2: i128,
    /// Sum of S^2.
    pub s2: i128,
    /// Sum of Q^2.
    pub q2: i128,
    /// Sum of nS.
    pub ns: i128,
    /// Sum of nQ.
    pub nq: i128,
    /// Sum of SQ.
    pub sq: i128,
    /// By true count, from [`TC_LOW`] to [`TC_HIGH`].
    pub bins: Vec<BinSums>,
    /// Trips of the risk simulation completed.
    pub trips: u64,
    /// Trips ruined.
    pub ruined: u64,
    /// Trips that reached the goal first.
    pub goals: u64,
}

impl CountSums {
    pub(crate) fn new(sides: usize) -> CountSums {
        CountSums {
            bins: (0..BINS)
                .map(|_| BinSums {
                    sides: vec![BetAccumulator::new(0); sides],
                    ..BinSums::default()
                })
                .collect(),
            ..CountSums::default()
        }
    }

    /// Adds another's sums.
    pub fn merge(&mut self, o: &CountSums) {
        self.seen += o.seen;
        self.played += o.played;
        self.bet += o.bet;
        self.net += o.net;
        self.net_sq += o.net_sq;
        self.shoes += o.shoes;
        self.n2 += o.n2;
        self.s2 += o.s2;
        self.q2 += o.q2;
        self.ns += o.ns;
        self.nq += o.nq;
        self.sq += o.sq;
        if self.bins.len() < o.bins.len() {
            self.bins.resize(o.bins.len(), BinSums::default());
        }
        for (a, b) in self.bins.iter_mut().zip(&o.bins) {
            a.seen += b.seen;
            a.main.merge(&b.main);
            if a.sides.len() < b.sides.len() {
                a.sides.resize(b.sides.len(), BetAccumulator::new(0));
            }
            for (x, y) in a.sides.iter_mut().zip(&b.sides) {
                x.merge(y);
            }
            a.net += b.net;
        }
        self.trips += o.trips;
        self.ruined += o.ruined;
        self.goals += o.goals;
    }
}

/// The shoe being played and the trip under way, within a chunk.
#[derive(Debug, Default)]
pub(crate) struct Running {
    /// The shoe's rounds played, the sum of their results and of their squares: added
    /// to the chunk's sums when the shoe ends, not round by round.
    n: u64,
    s: i128,
    q: i128,
    bank: i128,
    trip: u64,
    /// 0 going, 1 ruined, 2 goal reached.
    ended: u8,
}

impl Running {
    pub fn new(plan: &CountPlan) -> Running {
        Running {
            bank: plan.walk.map_or(0, |w| w.0),
            ..Running::default()
        }
    }

    /// Closes the shoe: its rounds go to the sums, and it is one cluster.
    pub fn end_shoe(&mut self, sums: &mut CountSums) {
        if self.n > 0 {
            let n = i128::from(self.n);
            sums.played += self.n;
            sums.net += self.s;
            sums.net_sq += self.q;
            sums.shoes += 1;
            sums.n2 += n * n;
            sums.s2 += self.s * self.s;
            sums.q2 += self.q * self.q;
            sums.ns += n * self.s;
            sums.nq += n * self.q;
            sums.sq += self.s * self.q;
        }
        self.n = 0;
        self.s = 0;
        self.q = 0;
    }

    /// Records a round played: its result `net` (cents).
    #[inline(always)]
    pub fn played(&mut self, plan: &CountPlan, sums: &mut CountSums, net: i64) {
        let r = i128::from(net);
        self.n += 1;
        self.s += r;
        self.q += r * r;
        if plan.walk.is_some() {
            self.walk(plan, sums, r);
        }
    }

    /// The risk simulation's trip: the bankroll after a round's result `r`.
    #[inline(never)]
    fn walk(&mut self, plan: &CountPlan, sums: &mut CountSums, r: i128) {
        let Some((bankroll, goal, hands)) = plan.walk else {
            return;
        };
        if self.ended == 0 {
            self.bank += r;
            if self.bank <= 0 {
                self.ended = 1;
            } else if goal.is_some_and(|g| self.bank >= bankroll + g) {
                self.ended = 2;
            }
        }
        self.trip += 1;
        if self.trip == hands {
            sums.trips += 1;
            match self.ended {
                1 => sums.ruined += 1,
                2 => sums.goals += 1,
                _ => {}
            }
            self.trip = 0;
            self.ended = 0;
            self.bank = bankroll;
        }
    }
}

/// An estimate and its standard error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// The figure.
    pub value: f64,
    /// Its standard error.
    pub se: f64,
}

/// One true count's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrueCountRow {
    /// The true count (the end rows hold every count beyond them).
    pub tc: i32,
    /// Rounds seen at it.
    pub rounds: u64,
    /// Its frequency among the rounds seen.
    pub frequency: f64,
    /// Rounds the counter played at it.
    pub played: u64,
    /// Average main bet (all the counter's spots), units.
    pub average_bet: f64,
    /// The main game's player advantage per unit initially bet, insurance included
    /// (minus the house edge), with its standard error; none without a round played.
    pub main_advantage: Option<Estimate>,
    /// Each side bet's player advantage here, by the game's order (none where not bet).
    pub side_advantage: Vec<Option<Estimate>>,
    /// The counter's win per round played here, units.
    pub win_per_round: f64,
}

/// The simulated risk of ruin beside the formula's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskReport {
    /// Bankroll, units.
    pub bankroll: f64,
    /// Goal, units.
    pub goal: Option<f64>,
    /// Rounds played per simulated trip.
    pub hands: u64,
    /// Trips simulated.
    pub trips: u64,
    /// Share of trips ruined (before the goal, with one), with its standard error.
    pub simulated_ror: Option<Estimate>,
    /// Share of trips that reached the goal first.
    pub simulated_goal: Option<f64>,
    /// The formulas (`felt risk`) at the simulated win rate and standard deviation,
    /// with the trip's length as `hands`.
    pub formula: Option<felt_math::risk::Risk>,
}

/// The counter's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountingReport {
    /// The count's name.
    pub count: String,
    /// Balanced (true count) or not (running count).
    pub balanced: bool,
    /// Initial running count of an unbalanced count.
    pub irc: Option<f64>,
    /// Decks-left estimation.
    pub deck_estimation: DeckEstimation,
    /// True count rounding.
    pub rounding: TcRounding,
    /// The unit, cents.
    pub unit: i64,
    /// The ramp (empty: flat one unit).
    pub ramp: Vec<RampStep>,
    /// Wong in / out.
    pub wong_in: Option<i32>,
    /// Wong out.
    pub wong_out: Option<i32>,
    /// Side bets at and above this true count.
    pub side_at: Option<i32>,
    /// The index set's name and size.
    pub indices: Option<String>,
    /// Index plays in it.
    pub index_plays: usize,
    /// Rounds seen.
    pub rounds_seen: u64,
    /// Rounds played.
    pub rounds_played: u64,
    /// Average initial main bet per round played (all spots), units.
    pub average_bet: f64,
    /// Win per 100 rounds played, units.
    pub win_per_100: Estimate,
    /// Win per 100 rounds seen, units.
    pub win_per_100_seen: f64,
    /// Standard deviation of a round played, units.
    pub sd_per_round: Estimate,
    /// Standard deviation per 100 rounds played, units.
    pub sd_per_100: f64,
    /// Player advantage: win over initial main bets.
    pub advantage: Estimate,
    /// N0, rounds: `(SD / win)^2`.
    pub n0: Option<Estimate>,
    /// DI, `1000 win / SD`.
    pub di: Estimate,
    /// SCORE, `10^6 (win / SD)^2` (positive win only).
    pub score: Option<Estimate>,
    /// Shoes in the standard errors.
    pub shoes: u64,
    /// By true count, every count seen.
    pub by_true_count: Vec<TrueCountRow>,
    /// Risk of ruin.
    pub risk: Option<RiskReport>,
}

fn est(acc: &BetAccumulator) -> Option<Estimate> {
    (acc.rounds > 0 && acc.staked != 0).then(|| {
        let s = acc.summary();
        Estimate {
            value: -s.house_edge,
            se: s.se,
        }
    })
}

/// The report of `sums` under `plan`.
pub(crate) fn report(plan: &CountPlan, sums: &CountSums) -> CountingReport {
    let o = &plan.options;
    let u = plan.unit as f64;
    let n = sums.played as f64;
    let (m1, m2) = if sums.played > 0 {
        (sums.net as f64 / n / u, sums.net_sq as f64 / n / (u * u))
    } else {
        (0.0, 0.0)
    };
    let var = (m2 - m1 * m1).max(0.0);
    let sd = var.sqrt();
    // Covariance of (m1, m2) from shoe clusters (ratio estimators, linearised).
    let c = sums.shoes as f64;
    let (v11, v22, v12) = if sums.shoes > 1 && sums.played > 0 {
        let (n2, ns, nq) = (sums.n2 as f64, sums.ns as f64 / u, sums.nq as f64 / (u * u));
        let (s2, q2, sq) = (
            sums.s2 as f64 / (u * u),
            sums.q2 as f64 / (u * u * u * u),
            sums.sq as f64 / (u * u * u),
        );
        let uu = s2 - 2.0 * m1 * ns + m1 * m1 * n2;
        let vv = q2 - 2.0 * m2 * nq + m2 * m2 * n2;
        let uv = sq - m2 * ns - m1 * nq + m1 * m2 * n2;
        let k = c / (c - 1.0) / (n * n);
        (uu.max(0.0) * k, vv.max(0.0) * k, uv * k)
    } else {
        (0.0, 0.0, 0.0)
    };
    // Delta method: se of g(m1, m2) with gradient (a, b).
    let se = |a: f64, b: f64| {
        (a * a * v11 + b * b * v22 + 2.0 * a * b * v12)
            .max(0.0)
            .sqrt()
    };
    let sd_est = if sd > 0.0 {
        Estimate {
            value: sd,
            se: se(-m1 / sd, 0.5 / sd),
        }
    } else {
        Estimate::default()
    };
    let di = if sd > 0.0 {
        let v = 1000.0 * m1 / sd;
        let a = 1000.0 * (1.0 / sd + m1 * m1 / (sd * sd * sd));
        let b = -1000.0 * m1 / (2.0 * sd * sd * sd);
        Estimate {
            value: v,
            se: se(a, b),
        }
    } else {
        Estimate::default()
    };
    let score = (m1 > 0.0 && sd > 0.0).then(|| Estimate {
        value: di.value * di.value,
        se: 2.0 * di.value.abs() * di.se,
    });
    let n0 = (m1 > 0.0 && sd > 0.0).then(|| {
        let v = var / (m1 * m1);
        Estimate {
            value: v,
            se: 2.0 * v * di.se / di.value.abs().max(1e-300),
        }
    });
    let bet_units = if sums.played > 0 {
        sums.bet as f64 / n / u
    } else {
        0.0
    };
    let advantage = Estimate {
        value: if sums.bet != 0 {
            sums.net as f64 / sums.bet as f64
        } else {
            0.0
        },
        se: if bet_units > 0.0 {
            v11.sqrt() / bet_units
        } else {
            0.0
        },
    };
    let by_true_count = sums
        .bins
        .iter()
        .enumerate()
        .filter(|(_, b)| b.seen > 0)
        .map(|(i, b)| TrueCountRow {
            tc: TC_LOW + i as i32,
            rounds: b.seen,
            frequency: if sums.seen > 0 {
                b.seen as f64 / sums.seen as f64
            } else {
                0.0
            },
            played: b.main.rounds,
            average_bet: if b.main.rounds > 0 {
                b.main.staked as f64 / b.main.rounds as f64 / u
            } else {
                0.0
            },
            main_advantage: est(&b.main),
            side_advantage: b.sides.iter().map(est).collect(),
            win_per_round: if b.main.rounds > 0 {
                b.net as f64 / b.main.rounds as f64 / u
            } else {
                0.0
            },
        })
        .collect();
    let risk = o.risk.map(|r| {
        let hands = r.hands.unwrap_or(DEFAULT_TRIP);
        let t = sums.trips as f64;
        let p = (sums.trips > 0).then(|| sums.ruined as f64 / t);
        RiskReport {
            bankroll: r.bankroll,
            goal: r.goal,
            hands,
            trips: sums.trips,
            simulated_ror: p.map(|p| Estimate {
                value: p,
                se: (p * (1.0 - p) / t).sqrt(),
            }),
            simulated_goal: (sums.trips > 0 && r.goal.is_some()).then(|| sums.goals as f64 / t),
            formula: felt_math::risk::risk(m1, sd, r.bankroll, Some(hands), r.goal, None).ok(),
        }
    });
    CountingReport {
        count: o.count.name.clone(),
        balanced: o.count.balanced,
        irc: (!o.count.balanced)
            .then(|| f64::from(plan.counter.irc) / f64::from(plan.counter.scale)),
        deck_estimation: o.estimation,
        rounding: o.rounding,
        unit: plan.unit,
        ramp: o.ramp.clone(),
        wong_in: o.wong_in,
        wong_out: o.wong_out,
        side_at: o.side_at,
        indices: o.indices.as_ref().map(|s| s.name.clone()),
        index_plays: plan.indices.len(),
        rounds_seen: sums.seen,
        rounds_played: sums.played,
        average_bet: bet_units,
        win_per_100: Estimate {
            value: 100.0 * m1,
            se: 100.0 * v11.sqrt(),
        },
        win_per_100_seen: if sums.seen > 0 {
            100.0 * sums.net as f64 / sums.seen as f64 / u
        } else {
            0.0
        },
        sd_per_round: sd_est,
        sd_per_100: 10.0 * sd,
        advantage,
        n0,
        di,
        score,
        shoes: sums.shoes,
        by_true_count,
        risk,
    }
}

/// The report as text (appended to the simulation's).
pub fn text(r: &CountingReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "\nCounting: {}", r.count);
    if r.balanced {
        let _ = writeln!(
            s,
            "  true count: decks left estimated {}, rounded by {}",
            r.deck_estimation, r.rounding
        );
    } else {
        let _ = writeln!(
            s,
            "  unbalanced: bets and indices by the running count (initial running count {})",
            r.irc.unwrap_or(0.0)
        );
    }
    let ramp = if r.ramp.is_empty() {
        "flat 1 unit".to_string()
    } else {
        r.ramp
            .iter()
            .map(|x| format!("{}:{}", x.tc, x.units))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(
        s,
        "  unit {}.{:02}, ramp {ramp}{}{}{}",
        r.unit / 100,
        r.unit.rem_euclid(100),
        r.wong_in
            .map(|w| format!(", wong in at {w}"))
            .unwrap_or_default(),
        r.wong_out
            .map(|w| format!(", wong out below {w}"))
            .unwrap_or_default(),
        r.side_at
            .map(|w| format!(", side bets at {w} and above"))
            .unwrap_or_default(),
    );
    if let Some(n) = &r.indices {
        let _ = writeln!(s, "  index plays: {n} ({} plays)", r.index_plays);
    }
    let _ = writeln!(
        s,
        "  rounds seen {}, played {} ({:.2}%), average bet {:.3} units, {} shoes",
        r.rounds_seen,
        r.rounds_played,
        100.0 * r.rounds_played as f64 / (r.rounds_seen.max(1)) as f64,
        r.average_bet,
        r.shoes
    );
    let _ = writeln!(
        s,
        "  win per 100 rounds {:+.4} units (SE {:.4}); per 100 rounds seen {:+.4}",
        r.win_per_100.value, r.win_per_100.se, r.win_per_100_seen
    );
    let _ = writeln!(
        s,
        "  SD per round {:.4} (SE {:.4}), per 100 rounds {:.3}; advantage {:+.4}% (SE {:.4}%)",
        r.sd_per_round.value,
        r.sd_per_round.se,
        r.sd_per_100,
        100.0 * r.advantage.value,
        100.0 * r.advantage.se
    );
    let opt = |e: &Option<Estimate>| {
        e.map_or_else(
            || "-".to_string(),
            |e| format!("{:.2} (SE {:.2})", e.value, e.se),
        )
    };
    let _ = writeln!(
        s,
        "  N0 {}  DI {:.3} (SE {:.3})  SCORE {}",
        opt(&r.n0),
        r.di.value,
        r.di.se,
        opt(&r.score)
    );
    let _ = writeln!(
        s,
        "  {:>5} {:>9} {:>12} {:>9} {:>18} {:>11}",
        "TC", "freq", "played", "avg bet", "main adv (SE)", "win/round"
    );
    for row in &r.by_true_count {
        let tc = if row.tc == TC_LOW {
            format!("<={}", row.tc)
        } else if row.tc == TC_HIGH {
            format!(">={}", row.tc)
        } else {
            format!("{:+}", row.tc)
        };
        let adv = row.main_advantage.map_or_else(
            || "-".to_string(),
            |e| format!("{:+.3}% ({:.3})", 100.0 * e.value, 100.0 * e.se),
        );
        let _ = writeln!(
            s,
            "  {tc:>5} {:>8.4}% {:>12} {:>9.3} {adv:>18} {:>+11.4}",
            100.0 * row.frequency,
            row.played,
            row.average_bet,
            row.win_per_round
        );
    }
    if let Some(k) = &r.risk {
        let _ = writeln!(
            s,
            "  risk of ruin: bankroll {} units{}, trips of {} rounds played: {} trips",
            k.bankroll,
            k.goal.map(|g| format!(", goal +{g}")).unwrap_or_default(),
            k.hands,
            k.trips
        );
        if let Some(p) = k.simulated_ror {
            let _ = writeln!(
                s,
                "    simulated {:.4}% (SE {:.4}%){}",
                100.0 * p.value,
                100.0 * p.se,
                k.simulated_goal
                    .map(|g| format!(", goal reached first {:.4}%", 100.0 * g))
                    .unwrap_or_default()
            );
        }
        if let Some(f) = &k.formula {
            let _ = writeln!(
                s,
                "    formula: within {} rounds {}, for ever {:.4}%{}",
                k.hands,
                f.ror_trip
                    .map_or("-".into(), |x| format!("{:.4}%", 100.0 * x)),
                100.0 * f.ror,
                f.ror_goal
                    .map(|x| format!(", before the goal {:.4}%", 100.0 * x))
                    .unwrap_or_default()
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_reads_and_refuses() {
        let r = parse_ramp("1:1, 2:2,3:4,4:8").unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[3], RampStep { tc: 4, units: 8.0 });
        assert!(parse_ramp("2:1,1:2").is_err());
        assert!(parse_ramp("x").is_err());
        assert!(parse_ramp("1:-1").is_err());
        assert!(parse_ramp("").is_err());
        assert!(parse_ramp("1:nan").is_err());
    }

    #[test]
    fn bets_follow_the_ramp_within_the_table() {
        let hl = felt_math::count::preset("hi-lo").unwrap().unwrap();
        let mut o = CountingOptions::watch(&hl);
        o.ramp = parse_ramp("1:1,2:2,3:4,4:8").unwrap();
        o.side_at = Some(2);
        // Table $2 to $10 by 50 cents, unit $2.
        let p = CountPlan::new(&o, 6, 200, 1000, 50).unwrap();
        assert_eq!(p.bet_by_bin[bin_of(-5)], 200);
        assert_eq!(p.bet_by_bin[bin_of(1)], 200);
        assert_eq!(p.bet_by_bin[bin_of(2)], 400);
        assert_eq!(p.bet_by_bin[bin_of(3)], 800);
        assert_eq!(p.bet_by_bin[bin_of(4)], 1000);
        assert_eq!(p.bet_by_bin[bin_of(99)], 1000);
        assert!(!p.side_by_bin[bin_of(1)]);
        assert!(p.side_by_bin[bin_of(2)]);
        o.ramp = parse_ramp("0:1.3").unwrap();
        let p = CountPlan::new(&o, 6, 200, 1000, 50).unwrap();
        assert_eq!(p.bet_by_bin[bin_of(0)], 250);
        o.wong_in = Some(1);
        o.wong_out = Some(2);
        assert!(CountPlan::new(&o, 6, 200, 1000, 50).is_err());
    }
}
