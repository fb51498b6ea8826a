//! The simulation: the real felt-core engine, every round played through
//! [`Round::play_auto`](felt_core::Round::play_auto) with the strategy the exact
//! analysis computes, every side bet of the game on every spot, results tallied from
//! the engine's own settlement events.
//!
//! # Reproducibility
//!
//! The run is cut into fixed chunks of [`CHUNK_ROUNDS`] rounds ([`crate::runner`]).
//! Each chunk has its own ChaCha8 stream derived from the seed and the chunk's index,
//! starts a fresh shoe (shuffled from that stream), fresh balances and fresh meters at
//! their reset values, and tallies into exact integer sums that are merged in chunk
//! order. So the same seed and options give bit-identical figures whatever the number
//! of threads; only the timings differ.

use crate::counting::{CountPlan, CountSums, CountingOptions, CountingReport};
use crate::runner::{run_chunk_range, shard_chunks, RunError, MAX_THREADS};
use crate::sides::{FlatSums, LineNets, MeterLineNets, SideLookup};
use crate::stats::{BetAccumulator, BetSummary};
use crate::strategy::{StrategyKind, StrategyTable};
use felt_core::id::ShortId;
use felt_core::meter::{MemoryMeters, MeterId};
use felt_core::money::Money;
use felt_core::round::{
    ActionError, BetKind, MeterWhy, Outcome, Pays, Settlement, SpotBets, TableError, MAX_BALANCE,
    MAX_SIDE_BETS,
};
use felt_core::rules::RulesError;
use felt_core::sidebet::HandName;
use felt_core::{Decision, Event, EventSink, Round, Rules, Strategy, Table};
use felt_math::main_game::{analyse, MainGameError};
use felt_math::sidebet::{analyse_all, SideBetError};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Called with the number of rounds just finished (after each chunk), from any thread.
pub type ProgressFn = Arc<dyn Fn(u64) + Send + Sync>;

/// What to simulate and how.
#[derive(Clone)]
pub struct SimOptions {
    /// Rounds to play (each round: every spot's main bet and side bets).
    pub rounds: u64,
    /// The seed; `None` draws one from the operating system (reported in
    /// [`SimReport::seed`]).
    pub seed: Option<u64>,
    /// Worker threads; 0 = every available core.
    pub threads: usize,
    /// Seats in play (1..= the table's seats).
    pub seats: u8,
    /// Betting spots each seat plays (1..= the table's spots per player).
    pub spots: u8,
    /// Overrides the rules' deck count.
    pub decks: Option<u8>,
    /// Overrides the rules' penetration (fraction of the shoe dealt before the cut card).
    pub penetration: Option<f64>,
    /// Deals from a continuous shuffling machine: the full shoe every round (off the top).
    pub csm: bool,
    /// Main bets only: no side bet is placed.
    pub main_only: bool,
    /// The players' strategy.
    pub strategy: StrategyKind,
    /// Counting: a count, a bet ramp, index plays (see [`crate::counting`]).
    pub counting: Option<CountingOptions>,
    /// Progress callback.
    pub progress: Option<ProgressFn>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            rounds: 1_000_000,
            seed: None,
            threads: 0,
            seats: 1,
            spots: 1,
            decks: None,
            penetration: None,
            csm: false,
            main_only: false,
            strategy: StrategyKind::Basic,
            counting: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for SimOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimOptions")
            .field("rounds", &self.rounds)
            .field("seed", &self.seed)
            .field("threads", &self.threads)
            .field("seats", &self.seats)
            .field("spots", &self.spots)
            .field("decks", &self.decks)
            .field("penetration", &self.penetration)
            .field("csm", &self.csm)
            .field("main_only", &self.main_only)
            .field("strategy", &self.strategy)
            .field("counting", &self.counting)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// An option is out of range.
    #[error("{0}")]
    Options(String),
    /// The rules after the overrides do not validate.
    #[error("the rules with the simulation's overrides are not valid")]
    Rules(#[from] RulesError),
    /// The engine refused the table.
    #[error("the engine cannot set up the table")]
    Table(#[from] TableError),
    /// The main game's analysis failed (no strategy).
    #[error("the main game cannot be analysed (no strategy to play)")]
    Analysis(#[from] MainGameError),
    /// A side bet's exact analysis failed.
    #[error("a side bet cannot be analysed")]
    SideBet(#[from] SideBetError),
    /// The engine refused an action of the simulated players.
    #[error("the engine refused the simulated player's action")]
    Engine(#[from] ActionError),
    /// The worker threads could not start.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The counting options cannot be used.
    #[error(transparent)]
    Counting(#[from] crate::counting::CountingError),
    /// Shard files that do not make one run.
    #[error("{0}")]
    Shard(String),
}

/// A count and its frequency.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Freq {
    /// How many times.
    pub count: u64,
    /// Per hand (main game) or per wager (side bets).
    pub frequency: f64,
}

fn freq(count: u64, of: u64) -> Freq {
    Freq {
        count,
        frequency: if of == 0 {
            0.0
        } else {
            count as f64 / of as f64
        },
    }
}

/// How the main game's hands ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MainOutcomes {
    /// Won 1:1 (dealer bust or higher total).
    pub win: Freq,
    /// A natural paid the blackjack payout.
    pub blackjack: Freq,
    /// Pushed (a tie, or a natural against the dealer's).
    pub push: Freq,
    /// Lost to a higher dealer total or a dealer natural.
    pub lose: Freq,
    /// Busted.
    pub bust: Freq,
    /// Surrendered.
    pub surrender: Freq,
    /// Even money taken (never, with this strategy).
    pub even_money: Freq,
    /// Returned without a decision (a void round, LA-3 returns).
    pub returned: Freq,
}

/// The main wager's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MainReport {
    /// Edge, SE, interval, SD and sums, per unit of the initial bet.
    #[serde(flatten)]
    pub summary: BetSummary,
    /// The exact off-the-top figure for the strategy played (basic: felt-math's
    /// `ev_basic`; composition: `ev_cd`, see the notes), house edge.
    pub exact_house_edge: Option<f64>,
    /// Hands settled (split hands count one each).
    pub hands: u64,
    /// How the hands ended, per hand.
    pub outcomes: MainOutcomes,
    /// Doubles, per hand.
    pub doubles: Freq,
    /// Splits, per hand.
    pub splits: Freq,
}

/// One pay line's hits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineReport {
    /// The line's hand.
    pub hand: HandName,
    /// Its description.
    pub name: String,
    /// Times paid, and per wager.
    #[serde(flatten)]
    pub hits: Freq,
    /// The exact probability per wager, off the top.
    pub exact_probability: Option<f64>,
}

/// A progressive bet's meter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgressiveReport {
    /// The meter's id.
    pub meter: String,
    /// Its reset (start) value, cents.
    pub reset: i64,
    /// The meter's average value when a wager was made, cents.
    pub average_meter: f64,
    /// Meter shares paid.
    pub awards: u64,
    /// Cents paid from the meter.
    pub award_amount: i128,
    /// Share of the player's return that came from the meter, per unit wagered.
    pub meter_return: f64,
    /// Exact house edge at the reset meter.
    pub exact_house_edge_at_reset: Option<f64>,
    /// Exact house edge at the simulated average meter (the edge is linear in the
    /// meter): the figure the simulated edge estimates.
    pub exact_house_edge_at_average: Option<f64>,
}

/// One side bet's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideBetReport {
    /// The bet's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Edge, SE, interval, SD and sums, per unit wagered.
    #[serde(flatten)]
    pub summary: BetSummary,
    /// Wagers made (rounds x spots).
    pub wagers: u64,
    /// Wagers paid something, per wager.
    pub hit_frequency: f64,
    /// Exact house edge off the top (for a progressive: at the reset meter).
    pub exact_house_edge: Option<f64>,
    /// Every line in force, best first.
    pub lines: Vec<LineReport>,
    /// Wagers lost.
    pub loses: Freq,
    /// The meter, for a progressive.
    pub progressive: Option<ProgressiveReport>,
}

/// What a simulation found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimReport {
    /// The game's id.
    pub game: String,
    /// Rounds played.
    pub rounds: u64,
    /// The seed (give it again to repeat the run exactly).
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Seats in play.
    pub seats: u8,
    /// Spots per seat.
    pub spots: u8,
    /// Decks.
    pub decks: u8,
    /// Continuous shuffling machine.
    pub csm: bool,
    /// Penetration (ignored by a CSM).
    pub penetration: f64,
    /// The players' strategy.
    pub strategy: StrategyKind,
    /// Main bets only.
    pub main_only: bool,
    /// Seconds spent on the analysis and the strategy before the first round.
    pub setup_seconds: f64,
    /// Seconds of play (wall clock).
    pub elapsed_seconds: f64,
    /// Rounds per second, all threads.
    pub rounds_per_second: f64,
    /// Rounds per second of one thread (rounds over the summed busy time of the chunks).
    pub rounds_per_second_per_thread: f64,
    /// Rounds the engine voided (the shoe ran out with nothing to reshuffle).
    pub voided_rounds: u64,
    /// The main wager.
    pub main: MainReport,
    /// Every side bet, in the rules file's order (none with `main_only`).
    pub side_bets: Vec<SideBetReport>,
    /// What the figures mean and what they do not model.
    pub notes: Vec<String>,
    /// The counter's figures, with a count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counting: Option<CountingReport>,
}

/// A side bet as the tally sees it.
#[derive(Debug, Clone)]
pub(crate) struct SideInfo {
    pub(crate) id: ShortId,
    pub(crate) lines: Vec<HandName>,
    pub(crate) meter: Option<MeterId>,
}

/// Everything a chunk needs, shared read-only by the workers.
pub(crate) struct Plan {
    pub(crate) table: Table,
    pub(crate) strategy: StrategyTable,
    /// With a count: the strategy flagged where the counter's index plays may apply.
    pub(crate) indexed: Option<StrategyTable>,
    /// With a count: its index plays worked out ahead on `indexed`, where they can be.
    pub(crate) resolved: Option<crate::strategy::ResolvedIndices>,
    pub(crate) sides: Vec<SideInfo>,
    /// Seat 0..seats, each with `spots` spots: the bets of one round, in order (the
    /// side bets at their minimums, none with `--main-only`).
    pub(crate) bets: Vec<SpotBets>,
    pub(crate) seats: u8,
    /// Spots per seat.
    pub(crate) spots: u8,
    nspots: u64,
    main_min: i64,
    pub(crate) side_min: Vec<i64>,
    /// The side bets' round sums worked out from their line counts at a chunk's end
    /// instead of recorded each round, where that gives the same integers.
    pub(crate) side_nets: Option<Vec<LineNets>>,
    /// Counting, when asked for.
    pub(crate) count: Option<CountPlan>,
}

const OUTCOMES: usize = 8;

fn outcome_index(o: Outcome) -> usize {
    match o {
        Outcome::Win => 0,
        Outcome::Blackjack => 1,
        Outcome::Push => 2,
        Outcome::Lose => 3,
        Outcome::Bust => 4,
        Outcome::Surrender => 5,
        Outcome::EvenMoney => 6,
        Outcome::Returned => 7,
    }
}

/// Exact integer sums of a progressive meter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterAcc {
    /// Sum over wagers of the meter's value at the round's start (cents).
    pub value_sum: i128,
    /// Wagers sampled.
    pub samples: u64,
    /// Shares paid.
    pub awards: u64,
    /// Cents paid.
    pub award_amount: i128,
}

/// A chunk's (or a shard's) exact sums, as a shard file keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TallySums {
    /// The main wager.
    pub main: BetAccumulator,
    /// Hands by outcome (win, blackjack, push, lose, bust, surrender, even money, returned).
    pub outcomes: Vec<u64>,
    /// Doubles.
    pub doubles: u64,
    /// Splits.
    pub splits: u64,
    /// Each side bet.
    pub sides: Vec<BetAccumulator>,
    /// Side bets lost.
    pub side_loses: Vec<u64>,
    /// Progressive meters.
    pub meters: Vec<MeterAcc>,
    /// Voided rounds.
    pub voided: u64,
    /// Busy time of the chunks, nanoseconds.
    pub busy_nanos: u128,
}

/// A chunk's tally: the event sink of its rounds and the sums they add to.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    lookup: SideLookup,
    meter_ids: Vec<Option<MeterId>>,
    // This round.
    pub(crate) main_net: i64,
    pub(crate) main_wagered: i64,
    pub(crate) side_net: [i64; MAX_SIDE_BETS],
    // Sums.
    pub(crate) main: BetAccumulator,
    /// The main wager's rounds not yet in `main` (its stake is the same every round
    /// without a count).
    main_flat: FlatSums,
    /// Each side bet's rounds not yet in `sides`.
    side_flat: [FlatSums; MAX_SIDE_BETS],
    outcomes: [u64; OUTCOMES],
    pub(crate) doubles: u64,
    pub(crate) splits: u64,
    pub(crate) sides: Vec<BetAccumulator>,
    side_loses: Vec<u64>,
    /// Each side bet's wins on lines paid from its meter not yet in `sides` (their
    /// nets change with the meter, so their line counts do not give their sums).
    meter_line_nets: [MeterLineNets; MAX_SIDE_BETS],
    pub(crate) meters: Vec<MeterAcc>,
    pub(crate) voided: u64,
    pub(crate) busy: Duration,
}

impl Tally {
    /// The sums, for a shard file.
    fn to_sums(&self) -> TallySums {
        TallySums {
            main: self.main.clone(),
            outcomes: self.outcomes.to_vec(),
            doubles: self.doubles,
            splits: self.splits,
            sides: self.sides.clone(),
            side_loses: self.side_loses.clone(),
            meters: self.meters.clone(),
            voided: self.voided,
            busy_nanos: self.busy.as_nanos(),
        }
    }

    /// A tally holding a shard file's sums; `None` if they do not fit this game.
    fn from_sums(sides: &[SideInfo], s: &TallySums) -> Option<Tally> {
        let mut t = Tally::new(sides);
        if s.outcomes.len() != OUTCOMES
            || s.sides.len() != sides.len()
            || s.side_loses.len() != sides.len()
            || s.meters.len() != sides.len()
            || s.sides
                .iter()
                .zip(sides)
                .any(|(a, b)| a.line_hits.len() != b.lines.len())
        {
            return None;
        }
        t.main = s.main.clone();
        t.outcomes.copy_from_slice(&s.outcomes);
        t.doubles = s.doubles;
        t.splits = s.splits;
        t.sides = s.sides.clone();
        t.side_loses = s.side_loses.clone();
        t.meters = s.meters.clone();
        t.voided = s.voided;
        t.busy = Duration::from_nanos(u64::try_from(s.busy_nanos).unwrap_or(u64::MAX));
        Some(t)
    }

    pub(crate) fn new(sides: &[SideInfo]) -> Tally {
        let ids: Vec<ShortId> = sides.iter().map(|s| s.id).collect();
        let lines: Vec<Vec<HandName>> = sides.iter().map(|s| s.lines.clone()).collect();
        Tally {
            lookup: SideLookup::new(&ids, &lines),
            meter_ids: sides.iter().map(|s| s.meter).collect(),
            main_net: 0,
            main_wagered: 0,
            side_net: [0; MAX_SIDE_BETS],
            main: BetAccumulator::new(0),
            main_flat: FlatSums::default(),
            side_flat: [FlatSums::default(); MAX_SIDE_BETS],
            outcomes: [0; OUTCOMES],
            doubles: 0,
            splits: 0,
            sides: sides
                .iter()
                .map(|s| BetAccumulator::new(s.lines.len()))
                .collect(),
            side_loses: vec![0; sides.len()],
            meter_line_nets: [MeterLineNets::default(); MAX_SIDE_BETS],
            meters: vec![MeterAcc::default(); sides.len()],
            voided: 0,
            busy: Duration::ZERO,
        }
    }

    #[inline(always)]
    pub(crate) fn settled(&mut self, s: &Settlement) {
        let net = s.returned.0 - s.stake.0;
        match &s.bet {
            BetKind::Main => {
                self.main_net += net;
                self.main_wagered += s.stake.0;
                self.outcomes[outcome_index(s.outcome)] += 1;
            }
            BetKind::Side(id) => {
                if let Some(b) = self.lookup.bet(id) {
                    self.side_settled(b, s);
                }
            }
            // Insurance is never taken; doubles and splits settle with their hand.
            _ => {}
        }
    }

    /// Side bet `b` (the table's index) settled.
    #[inline(always)]
    pub(crate) fn side_settled(&mut self, b: usize, s: &Settlement) {
        let Some(net) = self.side_net.get_mut(b) else {
            return;
        };
        let this = s.returned.0 - s.stake.0;
        *net += this;
        match (s.outcome, s.line) {
            (Outcome::Win, Some(h)) => {
                if let Some(l) = self.lookup.line(b, h) {
                    self.sides[b].hit(l);
                }
                if let (Some(Pays::Meter { .. }), Some(m)) =
                    (s.pays, self.meter_line_nets.get_mut(b))
                {
                    m.record(this);
                }
            }
            (Outcome::Lose, _) => self.side_loses[b] += 1,
            _ => {}
        }
    }

    #[cold]
    pub(crate) fn award(&mut self, id: &MeterId, paid: i64) {
        for (b, m) in self.meter_ids.iter().enumerate() {
            if m.as_ref() == Some(id) {
                self.meters[b].awards += 1;
                self.meters[b].award_amount += i128::from(paid);
                return;
            }
        }
    }

    /// Closes the round: its sums go to the accumulators.
    #[inline]
    fn end_round(&mut self, plan: &Plan, side_sums: bool) {
        self.main_flat.record(self.main_wagered, self.main_net);
        self.main_net = 0;
        self.main_wagered = 0;
        if side_sums {
            let n = self.sides.len().min(MAX_SIDE_BETS);
            for b in 0..n {
                let s = plan.side_min[b] * plan.nspots as i64;
                self.side_flat[b].record(s, self.side_net[b]);
                self.side_net[b] = 0;
            }
        }
    }

    /// The side bets' sums of the rounds closed by [`Tally::end_round`], worked out from
    /// their line counts (see [`LineNets`]). Out of line, like the rest of a chunk's end:
    /// a larger chunk function was no longer inlined into its caller and the main game
    /// alone ran about 5% slower.
    #[inline(never)]
    fn side_sums_from_lines(&mut self, nets: &[LineNets]) {
        let rounds = self.main_flat.rounds();
        for (b, n) in nets.iter().enumerate().take(MAX_SIDE_BETS) {
            let meter = std::mem::take(&mut self.meter_line_nets[b]);
            let f = n.sums(rounds, &self.sides[b].line_hits, meter, self.side_loses[b]);
            debug_assert_eq!(i128::from(self.side_net[b]), f.net());
            self.side_net[b] = 0;
            self.side_flat[b] = f;
        }
    }

    /// Folds the rounds closed by [`Tally::end_round`] into the accumulators.
    fn fold(&mut self, plan: &Plan) {
        let nspots = plan.nspots as i64;
        if let Some(nets) = &plan.side_nets {
            self.side_sums_from_lines(nets);
        }
        self.main_flat
            .fold_into(&mut self.main, plan.main_min * nspots);
        for (b, acc) in self.sides.iter_mut().enumerate() {
            self.side_flat[b].fold_into(acc, plan.side_min[b] * nspots);
        }
    }

    fn merge(&mut self, o: Tally) {
        self.main.merge(&o.main);
        for (a, b) in self.outcomes.iter_mut().zip(o.outcomes) {
            *a += b;
        }
        self.doubles += o.doubles;
        self.splits += o.splits;
        for (a, b) in self.sides.iter_mut().zip(&o.sides) {
            a.merge(b);
        }
        for (a, b) in self.side_loses.iter_mut().zip(&o.side_loses) {
            *a += b;
        }
        for (a, b) in self.meters.iter_mut().zip(&o.meters) {
            a.value_sum += b.value_sum;
            a.samples += b.samples;
            a.awards += b.awards;
            a.award_amount += b.award_amount;
        }
        self.voided += o.voided;
        self.busy += o.busy;
    }
}

impl EventSink for Tally {
    #[inline(always)]
    fn event(&mut self, e: &Event) {
        match e {
            Event::Settled(s) => self.settled(s),
            Event::Decided { decision, .. } => match decision {
                Decision::Double(_) => self.doubles += 1,
                Decision::Split => self.splits += 1,
                _ => {}
            },
            Event::Meter {
                change,
                why: MeterWhy::Award,
            } => self.award(&change.id, change.before.0 - change.after.0),
            Event::Voided => self.voided += 1,
            _ => {}
        }
    }

    #[inline(always)]
    fn side_settled(&mut self, b: usize, s: &Settlement) {
        Tally::side_settled(self, b, s)
    }
}

/// Plays `n` rounds from a fresh shoe, tallying them. Inlined into its caller: out
/// of line the main game and the side bets ran 3-6% slower.
#[inline(always)]
fn run_chunk(plan: &Plan, n: u64, rng: &mut ChaCha8Rng) -> Result<Tally, SimError> {
    let start = Instant::now();
    let table = &plan.table;
    // Half the largest balance: a chunk never comes near zero or the top.
    let balances = vec![Money(MAX_BALANCE.0 / 2); usize::from(plan.seats)];
    let mut round = table.round(table.new_shoe(), rng.clone(), &balances)?;
    let mut meters = MemoryMeters::for_table(table);
    let mut tally = Tally::new(&plan.sides);
    let with_sides = !plan.sides.is_empty();
    let side_sums = with_sides && plan.side_nets.is_none();
    // Each side bet with a meter: the bet, where the meters hold its meter (looked up
    // once, not each round) and the meter's values at the start of a round, summed over
    // the rounds (every spot of a round sees the same value: the spots multiply in at
    // the end).
    let mut sampled: Vec<(usize, Option<usize>, i128)> = plan
        .sides
        .iter()
        .enumerate()
        .filter_map(|(b, s)| s.meter.as_ref().map(|id| (b, meters.position(id), 0)))
        .collect();
    let strategy = &plan.strategy;
    let mut decide = |c: &felt_core::DecisionContext<'_>| strategy.decide(c);
    for _ in 0..n {
        for (_, at, sum) in &mut sampled {
            *sum += i128::from(at.and_then(|at| meters.value_at(at)).map_or(0, |v| v.0));
        }
        play_round(
            &mut round,
            plan,
            &mut decide,
            &mut meters,
            &mut tally,
            side_sums,
        )?;
    }
    for &(b, _, sum) in &sampled {
        tally.meters[b].value_sum += sum * i128::from(plan.nspots);
        tally.meters[b].samples += n * plan.nspots;
    }
    tally.fold(plan);
    tally.busy = start.elapsed();
    Ok(tally)
}

/// One round: begun, bet, played and tallied. Kept out of the chunk's loop: compiled
/// into it, the loop was one function of 33 KB whose speed depended on where the
/// copy's code landed in physical memory (from layout to layout, a median of 11.3-13.4
/// M rounds a second and a lower quartile of 8.4-10.4), against 13.6 (13.1-13.4) out
/// of line, for 87 instructions a round more (docs/architecture.md, "The round out of
/// line").
#[inline(never)]
fn play_round<F: Strategy + ?Sized>(
    round: &mut Round<ChaCha8Rng>,
    plan: &Plan,
    decide: &mut F,
    meters: &mut MemoryMeters,
    tally: &mut Tally,
    side_sums: bool,
) -> Result<(), SimError> {
    round.begin(tally)?;
    for b in &plan.bets {
        round.place_spot(b, tally)?;
    }
    round.play_auto(decide, meters, tally)?;
    tally.end_round(plan, side_sums);
    Ok(())
}

fn draw_seed() -> u64 {
    rand::rngs::OsRng.next_u64()
}

/// The rules after the simulation's overrides.
fn apply_overrides(rules: &Rules, opts: &SimOptions) -> Result<Rules, SimError> {
    let mut r = rules.clone();
    if let Some(d) = opts.decks {
        r = r.with_decks(d)?;
    }
    if opts.penetration.is_some() || opts.csm {
        let (p, csm) = (opts.penetration, opts.csm);
        r = r.modified(|f| {
            if let Some(p) = p {
                f.shoe.penetration = p;
            }
            if csm {
                f.shoe.csm = true;
            }
        })?;
    }
    if let Some(c) = &opts.counting {
        if c.table_min.is_some() || c.table_max.is_some() {
            let (lo, hi) = (c.table_min, c.table_max);
            r = r.modified(|f| {
                if let Some(lo) = lo {
                    f.main_bet.min = Money(lo);
                }
                if let Some(hi) = hi {
                    f.main_bet.max = Money(hi);
                }
            })?;
        }
    }
    Ok(r)
}

/// Simulates `opts.rounds` rounds of the game `rules` on the engine; see the module docs.
pub fn simulate(rules: &Rules, opts: &SimOptions) -> Result<SimReport, SimError> {
    Simulator::new(rules, opts)?.run()
}

/// A prepared simulation: the rules with their overrides, the table, the strategy and
/// the exact figures, ready to [`run`](Simulator::run) (as often as wanted: each run
/// plays the same rounds from the same seed).
pub struct Simulator {
    opts: SimOptions,
    rules: Rules,
    plan: Plan,
    seed: u64,
    threads: usize,
    exact_main: f64,
    exact_sides: Vec<felt_math::sidebet::SideBetAnalysis>,
    notes: Vec<String>,
    setup_seconds: f64,
}

impl Simulator {
    /// Checks the options, applies the overrides, analyses the game and compiles the
    /// strategy (the composition strategy takes a few seconds).
    pub fn new(rules: &Rules, opts: &SimOptions) -> Result<Simulator, SimError> {
        prepare(rules, opts)
    }

    /// The seed the run uses (drawn from the OS if the options gave none).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Plays the rounds and makes the report.
    pub fn run(&self) -> Result<SimReport, SimError> {
        let range = 0..crate::runner::chunk_count(self.opts.rounds);
        let (chunk, elapsed) = play(self, range)?;
        Ok(report(self, chunk, elapsed, self.threads))
    }

    /// Plays shard `shard` (0-based) of `shards` of the run (a contiguous run of its
    /// chunks) and returns its exact sums, for [`merge_shards`].
    pub fn run_shard(&self, shard: u64, shards: u64) -> Result<ShardFile, SimError> {
        if shards == 0 || shard >= shards {
            return Err(SimError::Shard(format!(
                "shard {}/{shards}: give I/N with 1 <= I <= N",
                shard.saturating_add(1)
            )));
        }
        let range = shard_chunks(self.opts.rounds, shard, shards);
        let (chunk, elapsed) = play(self, range)?;
        Ok(ShardFile {
            format: SHARD_FORMAT.to_string(),
            shard,
            shards,
            spec: self.spec(),
            sums: chunk.tally.to_sums(),
            count: chunk.count,
            threads: self.threads,
            elapsed_seconds: elapsed,
        })
    }

    /// What makes the run: the rules (after overrides) and the options.
    fn spec(&self) -> RunSpec {
        let o = &self.opts;
        RunSpec {
            rules: self.rules.canonical_toml(),
            rounds: o.rounds,
            seed: self.seed,
            seats: o.seats,
            spots: o.spots,
            decks: o.decks,
            penetration: o.penetration,
            csm: o.csm,
            main_only: o.main_only,
            strategy: o.strategy,
            counting: o.counting.clone(),
        }
    }
}

/// The format tag of a shard file.
pub const SHARD_FORMAT: &str = "felt-sim-shard/1";

/// Everything that decides a run's figures (the thread count does not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// The rules after the run's overrides, as canonical TOML.
    pub rules: String,
    /// Rounds of the whole run.
    pub rounds: u64,
    /// The seed.
    pub seed: u64,
    /// Seats.
    pub seats: u8,
    /// Spots per seat.
    pub spots: u8,
    /// Deck override.
    pub decks: Option<u8>,
    /// Penetration override.
    pub penetration: Option<f64>,
    /// CSM.
    pub csm: bool,
    /// Main bets only.
    pub main_only: bool,
    /// Strategy.
    pub strategy: StrategyKind,
    /// Counting.
    pub counting: Option<CountingOptions>,
}

/// One shard's exact sums (`felt sim --shard I/N`), merged by [`merge_shards`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardFile {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// This shard, 0-based.
    pub shard: u64,
    /// Shards in the run.
    pub shards: u64,
    /// The run.
    pub spec: RunSpec,
    /// The wagers' sums.
    pub sums: TallySums,
    /// The counter's sums.
    pub count: Option<CountSums>,
    /// Threads the shard ran on.
    pub threads: usize,
    /// Its wall-clock seconds of play.
    pub elapsed_seconds: f64,
}

/// Combines the shard files of one run into the report the unsharded run gives: the
/// same figures (identical JSON but for the timings and thread count: the threads
/// are the shards' summed, the elapsed time the longest shard's).
pub fn merge_shards(files: &[ShardFile]) -> Result<SimReport, SimError> {
    let first = files
        .first()
        .ok_or_else(|| SimError::Shard("no shard file to merge".into()))?;
    let n = first.shards;
    let mut seen = vec![false; usize::try_from(n.min(1 << 20)).unwrap_or(0)];
    for f in files {
        if f.format != SHARD_FORMAT {
            return Err(SimError::Shard(format!(
                "shard {}/{}: format `{}`, expected `{SHARD_FORMAT}`",
                f.shard + 1,
                f.shards,
                f.format
            )));
        }
        if f.shards != n || f.spec != first.spec {
            return Err(SimError::Shard(format!(
                "shard {}/{} is not from the same run as shard {}/{} (other rules, options, seed or shard count)",
                f.shard + 1,
                f.shards,
                first.shard + 1,
                n
            )));
        }
        let slot = usize::try_from(f.shard)
            .ok()
            .and_then(|i| seen.get_mut(i))
            .ok_or_else(|| SimError::Shard(format!("shard {}/{n} is out of range", f.shard + 1)))?;
        if std::mem::replace(slot, true) {
            return Err(SimError::Shard(format!(
                "shard {}/{n} given twice",
                f.shard + 1
            )));
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| !**s)
        .map(|(i, _)| format!("{}/{n}", i + 1))
        .take(10)
        .collect();
    if !missing.is_empty() || u64::try_from(seen.len()).ok() != Some(n) {
        return Err(SimError::Shard(format!(
            "shards missing: {}",
            missing.join(", ")
        )));
    }
    let spec = &first.spec;
    let rules = Rules::from_toml(&spec.rules, "the shard file's rules")?;
    let opts = SimOptions {
        rounds: spec.rounds,
        seed: Some(spec.seed),
        threads: 1,
        seats: spec.seats,
        spots: spec.spots,
        decks: spec.decks,
        penetration: spec.penetration,
        csm: spec.csm,
        main_only: spec.main_only,
        strategy: spec.strategy,
        counting: spec.counting.clone(),
        progress: None,
    };
    let sim = Simulator::new(&rules, &opts)?;
    let mut ordered: Vec<&ShardFile> = files.iter().collect();
    ordered.sort_by_key(|f| f.shard);
    let mut total: Option<Chunk> = None;
    let mut threads = 0usize;
    let mut elapsed = 0f64;
    for f in ordered {
        let tally = Tally::from_sums(&sim.plan.sides, &f.sums).ok_or_else(|| {
            SimError::Shard(format!(
                "shard {}/{n}: its sums do not fit the game",
                f.shard + 1
            ))
        })?;
        // Each shard played exactly its chunks' rounds.
        let expected: u64 = shard_chunks(spec.rounds, f.shard, n)
            .map(|c| crate::runner::chunk_len(spec.rounds, c))
            .sum();
        let played = f.count.as_ref().map_or(f.sums.main.rounds, |c| c.seen);
        if played != expected {
            return Err(SimError::Shard(format!(
                "shard {}/{n} holds {played} rounds, not the {expected} of its chunks",
                f.shard + 1
            )));
        }
        if f.count.is_some() != sim.plan.count.is_some() {
            return Err(SimError::Shard(format!(
                "shard {}/{n}: counting sums missing or unexpected",
                f.shard + 1
            )));
        }
        let c = Chunk {
            tally,
            count: f.count.clone(),
        };
        match total.as_mut() {
            Some(t) => t.merge(c),
            None => total = Some(c),
        }
        threads = threads.saturating_add(f.threads);
        elapsed = elapsed.max(f.elapsed_seconds);
    }
    let total = total.ok_or_else(|| SimError::Shard("no shard file to merge".into()))?;
    Ok(report(&sim, total, elapsed, threads))
}

/// A chunk's results: the wagers' tally and, with a count, the counter's sums.
pub(crate) struct Chunk {
    pub(crate) tally: Tally,
    pub(crate) count: Option<CountSums>,
}

impl Chunk {
    fn empty(plan: &Plan) -> Chunk {
        Chunk {
            tally: Tally::new(&plan.sides),
            count: plan
                .count
                .as_ref()
                .map(|_| CountSums::new(plan.sides.len())),
        }
    }

    fn merge(&mut self, o: Chunk) {
        self.tally.merge(o.tally);
        match (self.count.as_mut(), o.count) {
            (Some(a), Some(b)) => a.merge(&b),
            (None, Some(b)) => self.count = Some(b),
            _ => {}
        }
    }
}

/// Plays the chunks `range`: their merged results and the seconds taken.
fn play(sim: &Simulator, range: std::ops::Range<u64>) -> Result<(Chunk, f64), SimError> {
    let (opts, plan) = (&sim.opts, &sim.plan);
    let started = Instant::now();
    let progress = |n: u64| {
        if let Some(p) = &opts.progress {
            p(n)
        }
    };
    let merged = run_chunk_range(
        opts.rounds,
        sim.seed,
        sim.threads,
        range,
        |_, n, rng| -> Result<Chunk, SimError> {
            match &plan.count {
                None => Ok(Chunk {
                    tally: run_chunk(plan, n, rng)?,
                    count: None,
                }),
                Some(cp) => {
                    let (tally, count) = crate::counting::run_chunk(plan, cp, n, rng)?;
                    Ok(Chunk {
                        tally,
                        count: Some(count),
                    })
                }
            }
        },
        |acc: &mut Result<Chunk, SimError>, next| match (acc.as_mut(), next) {
            (Ok(a), Ok(b)) => a.merge(b),
            (Ok(_), Err(e)) => *acc = Err(e),
            (Err(_), _) => {}
        },
        progress,
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    let chunk = match merged {
        Some(r) => r?,
        None => Chunk::empty(plan),
    };
    Ok((chunk, elapsed))
}

fn prepare(rules: &Rules, opts: &SimOptions) -> Result<Simulator, SimError> {
    let setup = Instant::now();
    if opts.rounds == 0 {
        return Err(SimError::Options("at least one round is needed".into()));
    }
    let rules = apply_overrides(rules, opts)?;
    let table = Table::new(&rules)?;
    if opts.seats == 0 || opts.seats > table.seats() {
        return Err(SimError::Options(format!(
            "seats must be 1 to {} at this table, not {}",
            table.seats(),
            opts.seats
        )));
    }
    if opts.spots == 0 || opts.spots > table.spots_per_seat() {
        return Err(SimError::Options(format!(
            "spots per seat must be 1 to {} at this table, not {}",
            table.spots_per_seat(),
            opts.spots
        )));
    }
    if opts.threads > MAX_THREADS {
        return Err(SimError::Options(format!(
            "threads must be 1 to {MAX_THREADS} (or 0 for every core), not {}",
            opts.threads
        )));
    }
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let seed = opts.seed.unwrap_or_else(draw_seed);
    let decks = rules.shoe().decks;
    let mut notes = Vec::new();

    // The strategy, from the exact analysis of this game.
    let mapped = felt_math::mapping::main_game_rules(&rules, decks);
    let analysis = analyse(&mapped.main)?;
    let strategy = match opts.strategy {
        StrategyKind::Basic => StrategyTable::basic(&analysis.basic_strategy, &mapped.main),
        StrategyKind::Composition => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.max(1))
                .build()
                .map_err(|source| RunError::ThreadPool { threads, source })?;
            pool.install(|| StrategyTable::composition(&analysis.basic_strategy, &mapped.main))?
        }
    };
    let exact_main = match opts.strategy {
        StrategyKind::Basic => -analysis.ev_basic,
        StrategyKind::Composition => {
            notes.push(
                "composition strategy: exact composition-dependent decisions for every two-card \
                 hand (first two cards and split hands) from the full shoe; hands of three or \
                 more cards play the basic strategy. Its exact figure is between the basic and \
                 the CD figures; the exact column shows the optimal CD figure (ev_cd)."
                    .to_string(),
            );
            -analysis.ev_cd
        }
    };
    notes.push(
        "the exact figures are off the top of a full shoe; with a cut card the simulated edge \
         also includes the cut-card effect (use a CSM to compare off the top)"
            .to_string(),
    );
    for n in &mapped.not_analysed {
        if !n.contains("felt sim") && !n.contains("CSM returns") {
            notes.push(format!("exact main figure: {n}"));
        }
    }

    // Side bets: ids, lines as the table pays them, meters, exact figures.
    let sb = table.side_bets();
    let sides: Vec<SideInfo> = if opts.main_only {
        Vec::new()
    } else {
        sb.iter()
            .map(|b| SideInfo {
                id: b.id,
                lines: b.lines.iter().map(|l| l.hand).collect(),
                meter: b.progressive.map(|p| p.meter),
            })
            .collect()
    };
    let exact_sides = if opts.main_only || sb.is_empty() {
        Vec::new()
    } else {
        analyse_all(&rules, decks, None)?
    };
    if sides.iter().any(|s| s.meter.is_some()) {
        notes.push(
            "progressive meters start at their reset value in every chunk of 65,536 rounds \
             (so results do not depend on the thread count); the exact edge at the simulated \
             average meter is the figure to compare"
                .to_string(),
        );
    }
    if !opts.main_only
        && sb.iter().any(|b| {
            b.kind == felt_core::sidebet::SideBetKind::Sevens
                && b.third_card == felt_core::rules::ThirdCard::NextCard
        })
    {
        notes.push(
            "7s bets: the engine deals the third card only when the hand takes one (a hit, a \
             double, the first split hand's card); the exact analysis assumes a hand on two 7s \
             always takes one. They agree whenever the strategy never stands on 7-7 (basic \
             strategy splits or hits it at every preset)"
                .to_string(),
        );
    }

    let main_min = rules.main_bet().min;
    let mut sides_min = [Money::ZERO; MAX_SIDE_BETS];
    if !opts.main_only {
        for (m, b) in sides_min.iter_mut().zip(sb) {
            *m = b.limits.min;
        }
    }
    let mut bets = Vec::new();
    for seat in 0..opts.seats {
        for spot in 0..opts.spots {
            bets.push(SpotBets {
                seat,
                spot,
                main: main_min,
                sides: sides_min,
            });
        }
    }
    let nspots = u64::from(opts.seats) * u64::from(opts.spots);
    let count = match &opts.counting {
        None => None,
        Some(c) => {
            let mb = rules.main_bet();
            let cp = CountPlan::new(c, decks, mb.min.0, mb.max.0, mb.increment.0)?;
            notes.extend(crate::counting::notes(&cp, opts.seats));
            Some(cp)
        }
    };
    let indexed = count.as_ref().map(|cp| strategy.flag_indexed(&cp.indices));
    let resolved = count
        .as_ref()
        .zip(indexed.as_ref())
        .and_then(|(cp, t)| t.resolve_indices(&cp.indices));
    let plan = Plan {
        table: table.clone(),
        strategy,
        indexed,
        resolved,
        side_min: sb.iter().map(|b| b.limits.min.0).collect(),
        side_nets: if opts.main_only {
            None
        } else {
            LineNets::for_bets(sb, nspots)
        },
        sides,
        bets,
        seats: opts.seats,
        spots: opts.spots,
        nspots,
        main_min: main_min.0,
        count,
    };
    Ok(Simulator {
        opts: opts.clone(),
        rules,
        plan,
        seed,
        threads,
        exact_main,
        exact_sides,
        notes,
        setup_seconds: setup.elapsed().as_secs_f64(),
    })
}

/// The report of a run's (or merged shards') results.
fn report(sim: &Simulator, chunk: Chunk, elapsed: f64, threads: usize) -> SimReport {
    let Simulator {
        opts,
        rules,
        plan,
        seed,
        exact_main,
        exact_sides,
        notes,
        setup_seconds,
        ..
    } = sim;
    let (seed, exact_main, setup_seconds) = (*seed, *exact_main, *setup_seconds);
    let sb = plan.table.side_bets();
    let nspots = plan.nspots;
    let counting = match (&plan.count, &chunk.count) {
        (Some(cp), Some(sums)) => Some(crate::counting::report(cp, sums)),
        _ => None,
    };
    let t = chunk.tally;

    // The report.
    let hands: u64 = t.outcomes.iter().sum();
    let o = |k: usize| freq(t.outcomes[k], hands);
    let main = MainReport {
        summary: t.main.summary(),
        // A ramp, wonging or index plays change what the main wager's edge measures.
        exact_house_edge: plan
            .count
            .as_ref()
            .is_none_or(|c| c.plays_flat_basic())
            .then_some(exact_main),
        hands,
        outcomes: MainOutcomes {
            win: o(0),
            blackjack: o(1),
            push: o(2),
            lose: o(3),
            bust: o(4),
            surrender: o(5),
            even_money: o(6),
            returned: o(7),
        },
        doubles: freq(t.doubles, hands),
        splits: freq(t.splits, hands),
    };
    let mut side_bets = Vec::new();
    for (b, acc) in t.sides.iter().enumerate() {
        // Rounds the bet was made on (every round, without a count's side-bet limit).
        let per_round = if plan.count.is_some() {
            u64::from(plan.spots)
        } else {
            nspots
        };
        let wagers = acc.rounds.saturating_mul(per_round);
        let bet = &sb[b];
        let ex = exact_sides.get(b);
        let exact_p = |h: HandName| {
            ex.and_then(|a| a.outcomes.iter().find(|o| o.hand == Some(h)))
                .map(|o| o.probability)
        };
        let lines: Vec<LineReport> = bet
            .lines
            .iter()
            .zip(&acc.line_hits)
            .map(|(l, &c)| LineReport {
                hand: l.hand,
                name: l.hand.describe().to_string(),
                hits: freq(c, wagers),
                exact_probability: exact_p(l.hand),
            })
            .collect();
        let hits: u64 = acc.line_hits.iter().sum();
        let progressive = bet.progressive.map(|p| {
            let m = &t.meters[b];
            let average = if m.samples == 0 {
                0.0
            } else {
                m.value_sum as f64 / m.samples as f64
            };
            let unit = bet.limits.min.0 as f64;
            let at_average = ex
                .and_then(|a| a.meter.as_ref())
                .map(|ma| ma.edge_at_zero_meter - ma.edge_per_meter_unit * average / unit);
            let staked = acc.staked as f64;
            ProgressiveReport {
                meter: p.meter.to_string(),
                reset: p.reset.0,
                average_meter: average,
                awards: m.awards,
                award_amount: m.award_amount,
                meter_return: if staked > 0.0 {
                    m.award_amount as f64 / staked
                } else {
                    0.0
                },
                exact_house_edge_at_reset: ex.map(|a| a.house_edge),
                exact_house_edge_at_average: at_average,
            }
        });
        side_bets.push(SideBetReport {
            id: bet.id.to_string(),
            name: rules.side_bets()[b].name.clone(),
            summary: acc.summary(),
            wagers,
            hit_frequency: if wagers == 0 {
                0.0
            } else {
                hits as f64 / wagers as f64
            },
            exact_house_edge: ex.map(|a| a.house_edge),
            lines,
            loses: freq(t.side_loses[b], wagers),
            progressive,
        });
    }
    let busy = t.busy.as_secs_f64();
    SimReport {
        game: rules.game().id.clone(),
        rounds: opts.rounds,
        seed,
        threads,
        seats: opts.seats,
        spots: opts.spots,
        decks: rules.shoe().decks,
        csm: rules.shoe().csm,
        penetration: rules.shoe().penetration,
        strategy: opts.strategy,
        main_only: opts.main_only,
        setup_seconds,
        elapsed_seconds: elapsed,
        rounds_per_second: opts.rounds as f64 / elapsed.max(1e-9),
        rounds_per_second_per_thread: opts.rounds as f64 / busy.max(1e-9),
        voided_rounds: t.voided,
        main,
        side_bets,
        notes: notes.clone(),
        counting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_core::presets;
    use rand::SeedableRng;

    /// The side bets' sums worked out from their line counts (and their wins paid
    /// from a meter) are the integers that recording every round gives, for every
    /// preset with side bets; more than one spot records every round.
    #[test]
    fn side_sums_from_line_counts_are_the_recorded_sums() {
        let mut derived_presets = 0;
        for name in presets::names() {
            let rules = presets::load(name).unwrap().unwrap();
            let sim = prepare(&rules, &SimOptions::default()).unwrap();
            assert_eq!(
                sim.plan.side_nets.is_some(),
                !sim.plan.sides.is_empty(),
                "{name}"
            );
            let two_spots = SimOptions {
                spots: 2,
                ..SimOptions::default()
            };
            if rules.table().max_spots_per_player >= 2 {
                let sim2 = prepare(&rules, &two_spots).unwrap();
                assert!(sim2.plan.side_nets.is_none(), "{name}: two spots");
            }
            let Some(nets) = sim.plan.side_nets.clone() else {
                continue;
            };
            derived_presets += 1;
            assert_eq!(nets.len(), sim.plan.sides.len());
            derived_sums_are_recorded_sums(name, sim.plan);
        }
        assert!(derived_presets >= 5, "{derived_presets} presets derived");
    }

    /// Runs one chunk of `plan` with its side sums worked out from the line counts and
    /// one recording every round, and checks that they agree.
    fn derived_sums_are_recorded_sums(name: &str, mut plan: Plan) {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let derived = run_chunk(&plan, 40_000, &mut rng).unwrap();
        plan.side_nets = None;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let recorded = run_chunk(&plan, 40_000, &mut rng).unwrap();
        assert_eq!(derived.main, recorded.main, "{name}");
        assert_eq!(derived.sides, recorded.sides, "{name}");
        for (b, acc) in recorded.sides.iter().enumerate() {
            assert!(
                acc.line_hits.iter().sum::<u64>() > 0,
                "{name}: bet {b} never won"
            );
            assert!(acc.net_sq > 0 && acc.rounds == 40_000, "{name}: bet {b}");
        }
    }

    /// The rules file `games/NAME.toml` with each `(from, to)` of `edits` made once.
    fn edited_game(name: &str, edits: &[(&str, &str)]) -> Rules {
        let path = format!("{}/../../games/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let mut text = std::fs::read_to_string(path).unwrap();
        for (from, to) in edits {
            assert!(text.contains(from), "{from}");
            text = text.replacen(from, to, 1);
        }
        Rules::from_toml(&text, &format!("{name}, edited")).unwrap()
    }

    /// The same when lines paid from the meter win often, the meter's share taken
    /// `to` and `for` the stake (in the preset they are three 7s, too rare to be hit
    /// in a chunk of the test).
    #[test]
    fn side_sums_from_line_counts_hold_for_lines_paid_from_the_meter() {
        let rules = edited_game(
            "blazing-7s",
            &[
                (
                    r#"{ hand = "two-sevens",               odds = "25:1",       basis = "to" }"#,
                    r#"{ hand = "two-sevens",               meter_percent = 5,   basis = "for" }"#,
                ),
                (
                    r#"{ hand = "one-seven",                odds = "2:1",        basis = "to" }"#,
                    r#"{ hand = "one-seven",                meter_percent = 1,   basis = "to" }"#,
                ),
            ],
        );
        let sim = prepare(&rules, &SimOptions::default()).unwrap();
        let nets = sim.plan.side_nets.clone().unwrap();
        assert_eq!(nets[0].net_of_line(4), None);
        // Three 7s pay 200 to 1 on a 1.00 stake: 200.00 won.
        assert_eq!(nets[0].net_of_line(2), Some(20_000));
        // Many wins are paid from the meter, each its own amount.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let t = run_chunk(&sim.plan, 40_000, &mut rng).unwrap();
        assert!(t.meters[0].awards > 2_000, "{} awards", t.meters[0].awards);
        assert!(t.sides[0].line_hits[3] > 50 && t.sides[0].line_hits[4] > 2_000);
        derived_sums_are_recorded_sums("blazing-7s, edited", sim.plan);
    }

    /// The same with lines paid `for` and payouts rounded down to the cent (10 to 3 on
    /// a 1.00 stake), which no preset has.
    #[test]
    fn side_sums_from_line_counts_hold_for_lines_paid_for_and_rounded_down() {
        let rules = edited_game(
            "lucky-ladies",
            &[
                (r#"rounding = "exact""#, r#"rounding = "down""#),
                (
                    r#"odds = "4:1",    basis = "to""#,
                    r#"odds = "10:3",   basis = "to""#,
                ),
                (
                    r#"odds = "9:1",    basis = "to""#,
                    r#"odds = "29:3",   basis = "for""#,
                ),
            ],
        );
        let sim = prepare(&rules, &SimOptions::default()).unwrap();
        let nets = sim.plan.side_nets.clone().unwrap();
        // any-20 pays 333 on 100 (the third of a cent dropped); suited-20 returns 966.
        assert_eq!(nets[0].net_of_line(4), Some(333));
        assert_eq!(nets[0].net_of_line(3), Some(866));
        derived_sums_are_recorded_sums("lucky-ladies, edited", sim.plan);
    }
}
