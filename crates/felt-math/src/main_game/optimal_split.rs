//! The optimal split: the expected value of splitting a pair when every
//! decision of the round (resplit or not, stand, hit, double, surrender) may
//! depend on every card seen in it, for up to four hands.
//!
//! The round is a game tree searched to the end and memoised by its state
//! (the approach of Eric Farmer's `blackjack_split`, written anew): the cards
//! dealt in the round so far (a multiset: the order they came in does not
//! matter to what follows), what the hands already finished stake on the
//! dealer's total (see [`State`]), the hand being played and how many split
//! hands still wait for their second card. A finished round is valued against
//! the dealer's outcome probabilities for the cards left. The hole card is one more unseen card, so every value is
//! unconditioned on the dealer natural, as [`super::ActionEvs`] values before
//! the peek; where the dealer peeked (or only the original bet is lost) a
//! natural costs the round exactly one unit, a constant that changes no
//! decision.

use super::dealer;
use super::error::MainGameError;
use super::rules::{MainGameRules, Prepared};
use super::shoe::{rank_index, Shoe};
use rustc_hash::FxHashMap;

mod keys;
mod levels;

/// Most hands the optimal split is computed for.
pub const MAX_OPTIMAL_SPLIT_HANDS: u32 = 4;

/// The expected value of an optimally played split, with the work it took.
#[derive(Debug, Clone, PartialEq)]
pub struct OptimalSplit {
    /// Expected value per unit initial bet, unconditioned on the dealer
    /// natural (a dealer natural counted in, as it costs the round).
    pub ev: f64,
    /// Probability of a dealer natural given the pair and the up card.
    pub dealer_natural: f64,
    /// Decision and chance states of the round valued (a state forgotten
    /// under [`SplitBounds::max_remembered`] and valued again counts again).
    pub states: u64,
    /// The states valued by the number of cards dealt in them (the pair and
    /// the up card included): index `n` counts the states with `n` cards.
    pub states_by_cards: Vec<u64>,
    /// Most states and dealer outcomes remembered at once.
    pub remembered_peak: usize,
    /// Dealer outcome evaluations (one per set of cards left, again if
    /// forgotten).
    pub dealer_evaluations: usize,
    /// States whose keys waited for their level's valuing in a temporary file
    /// (past [`SplitBounds::keys_in_memory`]).
    pub keys_on_disk: u64,
    /// Most hands the pair was split into (the rules' limit, or 2 for aces the
    /// rules do not resplit).
    pub max_hands: u32,
}

impl OptimalSplit {
    /// [`OptimalSplit::ev`] given the dealer has no natural, as a player
    /// sees it where the dealer peeked (`peeked`): a natural costs the round
    /// its one initial unit.
    pub fn given_no_natural(&self, peeked: bool) -> f64 {
        if peeked && self.dealer_natural < 1.0 {
            (self.ev + self.dealer_natural) / (1.0 - self.dealer_natural)
        } else {
            self.ev
        }
    }
}

/// How a hand ended: 0 = 16 or less, 1..=5 = 17..=21 (standing), 6 = bust,
/// 7 = surrendered.
type Outcome = u8;

const SURRENDERED: u8 = 7;
const BUSTED: u8 = 6;

/// Dealer totals a standing hand is compared with (17..=21).
const TOTALS: usize = 5;

/// What a hand of one unit with this outcome pays when the dealer busts.
fn pays_on_bust(outcome: Outcome) -> f64 {
    match outcome {
        SURRENDERED => -0.5,
        BUSTED => -1.0,
        _ => 1.0,
    }
}

/// How much less a hand of one unit with this outcome pays when the dealer
/// ends on total `17 + d` than when the dealer busts: 0, 1 or 2 for a
/// standing hand, 0 for a busted or surrendered one (it pays the same
/// whatever the dealer does).
fn shortfall(outcome: Outcome, d: usize) -> u8 {
    if outcome >= BUSTED {
        0
    } else {
        (1 - (i32::from(outcome) - (d as i32 + 1)).signum()) as u8
    }
}

/// The hand in play: its best total (above 21: bust), whether an ace counts
/// 11 in it, and its cards (1, 2, or 3 for three and more). Hands that differ
/// only in cards that no longer matter (a hard 15 with or without an ace)
/// are the same hand.
#[derive(Clone, Copy)]
struct Hand {
    total: u8,
    soft: bool,
    ncards: u8,
}

impl Hand {
    /// The split hand holding only its pair card (index `pair`).
    fn pair_card(pair: usize) -> Hand {
        Hand {
            total: if pair == 0 { 11 } else { pair as u8 + 1 },
            soft: pair == 0,
            ncards: 1,
        }
    }

    /// The hand with the card of index `x` added.
    fn with(self, x: usize) -> Hand {
        let mut total = self.total + x as u8 + 1;
        let mut soft = self.soft;
        if soft && total > 21 {
            total -= 10;
            soft = false;
        } else if !soft && x == 0 && total + 10 <= 21 {
            total += 10;
            soft = true;
        }
        Hand {
            total,
            soft,
            ncards: (self.ncards + 1).min(3),
        }
    }
}

/// A state of the round: the count of each value dealt in it, what the
/// finished hands still stake on the dealer's total, the hand in play and the
/// split hands waiting for their second card.
///
/// A finished hand's result is its pay against a dealer bust (a number the
/// search adds when the hand ends: the chance of a dealer natural is the only
/// part of it that depends on the cards still to come, and its expectation is
/// the chance now) plus its shortfall against each dealer total 17..=21
/// (`short`). Only the sum of the shortfalls matters to the rest of the
/// round, so busted and surrendered hands leave no trace in the state and
/// hands with the same sums are one state.
#[derive(Clone, Copy)]
struct State {
    dealt: [u8; 10],
    short: [u8; TOTALS],
    ndone: u8,
    hand: Hand,
    waiting: u8,
}

/// A state packed into two words (24-byte table entries with its value):
/// nine counts of 7 bits, then the tens, the shortfalls, the stage, the hand
/// in play and the hands waiting.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u64, u64);

impl State {
    fn key(&self, stage: u8) -> Key {
        let mut lo = 0u64;
        for &d in &self.dealt[..9] {
            lo = (lo << 7) | u64::from(d);
        }
        let mut hi = u64::from(self.dealt[9]);
        for &s in &self.short {
            debug_assert!(s < 16, "at most three finished hands of two units");
            hi = (hi << 4) | u64::from(s);
        }
        hi = (hi << 2) | u64::from(stage);
        hi = (hi << 5) | u64::from(self.hand.total);
        hi = (hi << 1) | u64::from(self.hand.soft);
        hi = (hi << 2) | u64::from(self.hand.ncards);
        Key((hi << 2) | u64::from(self.waiting), lo)
    }

    /// The state a key was made from (the stage stands for the hands
    /// finished, which is all they can change).
    fn from_key(key: Key) -> State {
        let Key(hi, lo) = key;
        let bits = |word: u64, at: u32, width: u32| ((word >> at) & ((1 << width) - 1)) as u8;
        let mut dealt = [0u8; 10];
        for (i, d) in dealt[..9].iter_mut().enumerate() {
            *d = bits(lo, 7 * (8 - i as u32), 7);
        }
        dealt[9] = bits(hi, 32, 7);
        State {
            dealt,
            short: std::array::from_fn(|d| bits(hi, 28 - 4 * d as u32, 4)),
            ndone: bits(hi, 10, 2),
            hand: Hand {
                total: bits(hi, 5, 5),
                soft: bits(hi, 4, 1) == 1,
                ncards: bits(hi, 2, 2),
            },
            waiting: bits(hi, 0, 2),
        }
    }

    /// The composition of the cards dealt (the dealer's cache key).
    fn dealt_key(&self) -> Key {
        let mut lo = 0u64;
        for &d in &self.dealt[..9] {
            lo = (lo << 7) | u64::from(d);
        }
        Key(u64::from(self.dealt[9]), lo)
    }

    /// Counts the hand in play as finished with `outcome` on `stake` units.
    fn add_finished(&mut self, outcome: Outcome, stake: u8) {
        for (d, short) in self.short.iter_mut().enumerate() {
            *short += stake * shortfall(outcome, d);
        }
        self.ndone += 1;
    }

    /// Cards dealt in the round, the pair and the up card included.
    fn cards(&self) -> usize {
        self.dealt.iter().map(|&d| usize::from(d)).sum()
    }
}

/// The default bound on states: enough for every pair split to three hands
/// from one to eight decks (eights against a ten, the largest, have 22.0
/// million at eight decks), a minute or two of work.
pub const DEFAULT_MAX_STATES: u64 = 30_000_000;

/// The default number of states whose keys wait in memory for their level's
/// valuing (16 bytes each: 1.6 GB).
pub const DEFAULT_KEYS_IN_MEMORY: u64 = 100_000_000;

/// Bounds on the optimal split's work and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitBounds {
    /// Most states valued (recomputations counted) before the request is
    /// refused with [`MainGameError::BeyondBound`].
    pub max_states: u64,
    /// Most values remembered at once (states and dealer outcomes, about 40
    /// bytes each) when valued depth first; past it the tables of the most
    /// cards dealt are forgotten and recomputed where needed, which costs
    /// time, never exactness.
    pub max_remembered: usize,
    /// Value the states level by level, the most cards dealt first, after
    /// counting them (a refusal comes before any valuing): memory for every
    /// state's key (16 bytes) and the values of two levels, rather than every
    /// state's value (depth first, under `max_remembered`).
    pub level_by_level: bool,
    /// Level by level, the most states whose keys wait in memory for their
    /// level's valuing; the others wait in a temporary file.
    pub keys_in_memory: u64,
}

impl Default for SplitBounds {
    fn default() -> Self {
        SplitBounds {
            max_states: DEFAULT_MAX_STATES,
            max_remembered: 40_000_000,
            level_by_level: true,
            keys_in_memory: DEFAULT_KEYS_IN_MEMORY,
        }
    }
}

/// What the round is: the rules, the shoe, the pair and the up card. It does
/// not change while the round is searched.
struct Round {
    r: Prepared,
    shoe: [u32; 10],
    pair: usize,
    up: usize,
    max_hands: u32,
    /// What a dealer natural takes from each hand (0 where it takes the
    /// round's one initial unit, whatever the hands).
    natural_per_hand: f64,
    table: &'static dealer::DealerTable,
}

impl Round {
    fn left(&self, s: &State) -> [u32; 10] {
        std::array::from_fn(|i| self.shoe[i] - u32::from(s.dealt[i]))
    }

    /// The values that can come next with their chances (zero for a value
    /// none is left of).
    fn draws(&self, s: &State) -> [f64; 10] {
        let left = self.left(s);
        let n = f64::from(left.iter().sum::<u32>());
        left.map(|c| f64::from(c) / n)
    }

    /// Each value that can come next (its index), with its chance and the
    /// state with it dealt (the hand in play as it was).
    fn each_card(&self, s: &State) -> impl Iterator<Item = (usize, f64, State)> {
        let s = *s;
        let draws = self.draws(&s);
        (0..10).filter(move |&x| draws[x] > 0.0).map(move |x| {
            let mut t = s;
            t.dealt[x] += 1;
            (x, draws[x], t)
        })
    }

    /// The chance the hole card, one of the cards left, makes a dealer
    /// natural.
    fn natural(&self, s: &State) -> f64 {
        let left = self.left(s);
        let n = f64::from(left.iter().sum::<u32>());
        match self.up {
            0 => f64::from(left[9]) / n,
            9 => f64::from(left[0]) / n,
            _ => 0.0,
        }
    }

    /// The hands finished, as far as they matter: only while a hand may
    /// still be split again, so every state of the last hand in play past its
    /// first two cards is keyed as the last stage, whatever the hands made
    /// before it.
    fn stage(&self, s: &State) -> u8 {
        if s.waiting == 0 && s.hand.ncards >= 2 {
            self.max_hands as u8 - 1
        } else {
            s.ndone
        }
    }

    /// The dealer's chances of ending on 17..=21 for the cards `s` leaves.
    fn dealer_outcomes(&self, s: &State) -> [f64; TOTALS] {
        let mut n = self.left(s).map(f64::from);
        n[self.up] += 1.0; // the dealer's table takes the up card out itself
        let all = self.table.eval_up(&n, self.up);
        std::array::from_fn(|d| all[d])
    }
}

/// What a step of the round needs from the rest of the search: the value of
/// a state that follows it, and the dealer's outcomes for a finished round.
/// The depth-first [`Search`] computes (and remembers) them; a worker valuing
/// a level looks them up in the levels already valued.
trait Next {
    fn round(&self) -> &Round;
    /// The state's value less what its finished hands pay against a dealer
    /// bust (counted when each ended).
    fn value(&mut self, s: State) -> Result<f64, MainGameError>;
    /// The dealer's chances of ending on 17..=21 for the cards `s` leaves.
    fn dealer(&mut self, s: &State) -> [f64; TOTALS];
}

/// The value of `s` from the values of the states that follow it.
fn step(n: &mut impl Next, s: State) -> Result<f64, MainGameError> {
    if s.hand.ncards == 1 {
        second_card(n, s)
    } else {
        decide(n, s)
    }
}

/// The current hand holds only its pair card: its second card, and a
/// resplit where one is allowed and pays.
fn second_card(n: &mut impl Next, s: State) -> Result<f64, MainGameError> {
    let made = u32::from(s.ndone) + 1 + u32::from(s.waiting);
    let (pair, max_hands) = (n.round().pair, n.round().max_hands);
    let mut v = 0.0;
    for (x, p, t) in n.round().each_card(&s) {
        let mut two = t;
        two.hand = s.hand.with(x);
        let mut best = n.value(two)?;
        if x == pair && made < max_hands {
            let mut again = t;
            again.waiting += 1;
            best = best.max(n.value(again)?);
        }
        v += p * best;
    }
    Ok(v)
}

/// The best of the current hand's options.
fn decide(n: &mut impl Next, s: State) -> Result<f64, MainGameError> {
    let stand = finish(n, s, total_outcome(s.hand.total), 1)?;
    let round = n.round();
    if round.pair == 0 && s.hand.ncards == 2 && !round.r.play_split_aces {
        return Ok(stand);
    }
    let may_double =
        s.hand.ncards == 2 && round.r.das && round.r.can_double(s.hand.total, s.hand.soft);
    let may_surrender = s.hand.ncards == 2 && round.r.sas;
    let mut best = stand.max(draw(n, s, false)?);
    if may_double {
        best = best.max(draw(n, s, true)?);
    }
    if may_surrender {
        best = best.max(finish(n, s, SURRENDERED, 1)?);
    }
    Ok(best)
}

/// Hit (playing on) or double (one card, twice the stake).
fn draw(n: &mut impl Next, s: State, double: bool) -> Result<f64, MainGameError> {
    let mut v = 0.0;
    for (x, p, mut t) in n.round().each_card(&s) {
        t.hand = s.hand.with(x);
        let total = t.hand.total;
        let outcome = if total > 21 {
            BUSTED
        } else {
            total_outcome(total)
        };
        v += p * if double {
            finish(n, t, outcome, 2)?
        } else if total > 21 {
            finish(n, t, BUSTED, 1)?
        } else {
            n.value(t)?
        };
    }
    Ok(v)
}

/// The current hand ends with `outcome` on `stake` units: what it pays
/// against a dealer bust (less a dealer natural's take where it takes each
/// hand's stake), then the next waiting hand or the dealer.
fn finish(n: &mut impl Next, s: State, outcome: Outcome, stake: u8) -> Result<f64, MainGameError> {
    let round = n.round();
    let natural = round.natural(&s);
    let now = f64::from(stake)
        * (pays_on_bust(outcome) * (1.0 - natural) - round.natural_per_hand * natural);
    let mut t = s;
    t.add_finished(outcome, stake);
    if t.waiting == 0 {
        let pr = n.dealer(&t);
        let settled = -pr
            .iter()
            .zip(t.short)
            .map(|(q, short)| q * f64::from(short))
            .sum::<f64>();
        return Ok(now + settled);
    }
    t.waiting -= 1;
    t.hand = Hand::pair_card(round.pair);
    Ok(now + n.value(t)?)
}

/// The search: the round, what it remembers and the work it did.
struct Search {
    round: Round,
    /// One table per number of cards dealt: a state is reached only from
    /// states with as many cards or fewer.
    memo: Vec<FxHashMap<Key, f64>>,
    /// The dealer's chances of ending on 17..=21, per set of cards dealt
    /// (one table per number of cards).
    dealer: Vec<FxHashMap<Key, [f64; TOTALS]>>,
    bounds: SplitBounds,
    valued: u64,
    by_cards: Vec<u64>,
    remembered_peak: usize,
    dealer_evaluations: usize,
    keys_spilled: u64,
}

impl Search {
    fn remembered(&self) -> usize {
        self.memo.iter().map(FxHashMap::len).sum::<usize>()
            + self.dealer.iter().map(FxHashMap::len).sum::<usize>()
    }

    /// Keeps what is remembered under its bound: the table of the most
    /// cards dealt (the quickest to rebuild) goes first, then the dealer's
    /// outcomes.
    fn make_room(&mut self) {
        self.remembered_peak = self.remembered_peak.max(self.remembered());
        while self.remembered() >= self.bounds.max_remembered {
            let first = self.memo.iter().position(|t| !t.is_empty());
            let last = self.memo.iter().rposition(|t| !t.is_empty());
            match (first, last) {
                (Some(first), Some(last)) if last > first => {
                    self.memo[last] = FxHashMap::default();
                }
                _ if self.dealer.iter().any(|t| !t.is_empty()) => self.dealer.clear(),
                _ => self.memo.clear(),
            }
        }
    }

    /// Forgets the states and dealer outcomes with more than `cards` cards
    /// dealt.
    fn forget_above(&mut self, cards: usize) {
        self.memo.truncate(cards + 1);
        self.dealer.truncate(cards + 1);
    }

    /// The table of states with `cards` cards dealt.
    fn memo_of(&mut self, cards: usize) -> &mut FxHashMap<Key, f64> {
        if self.memo.len() <= cards {
            self.memo.resize_with(cards + 1, FxHashMap::default);
        }
        &mut self.memo[cards]
    }

    /// The dealer's table of sets of `cards` cards dealt.
    fn dealer_of(&mut self, cards: usize) -> &mut FxHashMap<Key, [f64; TOTALS]> {
        if self.dealer.len() <= cards {
            self.dealer.resize_with(cards + 1, FxHashMap::default);
        }
        &mut self.dealer[cards]
    }

    /// Counts `n` states valued with `cards` cards dealt.
    fn count_valued(&mut self, cards: usize, n: u64) {
        self.valued += n;
        if self.by_cards.len() <= cards {
            self.by_cards.resize(cards + 1, 0);
        }
        self.by_cards[cards] += n;
    }
}

impl Next for Search {
    fn round(&self) -> &Round {
        &self.round
    }

    fn value(&mut self, s: State) -> Result<f64, MainGameError> {
        let key = s.key(self.round.stage(&s));
        let cards = s.cards();
        if let Some(&v) = self.memo_of(cards).get(&key) {
            return Ok(v);
        }
        self.count_valued(cards, 1);
        if self.valued > self.bounds.max_states {
            return Err(self.beyond_bound(""));
        }
        let v = step(self, s)?;
        if self.valued.is_multiple_of(65_536) {
            self.make_room();
        }
        self.memo_of(cards).insert(key, v);
        Ok(v)
    }

    fn dealer(&mut self, s: &State) -> [f64; TOTALS] {
        let dk = s.dealt_key();
        if let Some(p) = self.dealer_of(s.cards()).get(&dk) {
            return *p;
        }
        let p = self.round.dealer_outcomes(s);
        self.dealer_evaluations += 1;
        self.dealer_of(s.cards()).insert(dk, p);
        p
    }
}

/// The outcome of standing on `total` (at most 21).
fn total_outcome(total: u8) -> u8 {
    total.saturating_sub(16).min(5)
}

/// The expected value of splitting the pair `pair` (1 = ace ..= 10) against
/// the up card `up`, the round dealt from `shoe` (which still holds the pair
/// and the up card), every decision optimal for every card seen in the round;
/// pairs may be resplit (never forced) up to `rules.max_split_hands` hands
/// (aces as `rules.resplit_aces` allows), at most
/// [`MAX_OPTIMAL_SPLIT_HANDS`]. Ten-valued pairs are any two ten-valued
/// cards (`split_by_rank` is refused). Within the default [`SplitBounds`].
pub fn optimal_split(
    rules: &MainGameRules,
    shoe: &Shoe,
    pair: u8,
    up: u8,
) -> Result<OptimalSplit, MainGameError> {
    optimal_split_within(rules, shoe, pair, up, SplitBounds::default())
}

/// [`optimal_split`] within the given bounds on work and memory.
pub fn optimal_split_within(
    rules: &MainGameRules,
    shoe: &Shoe,
    pair: u8,
    up: u8,
    bounds: SplitBounds,
) -> Result<OptimalSplit, MainGameError> {
    let (mut s, start) = Search::new(rules, shoe, pair, up, bounds)?;
    let value = if bounds.level_by_level {
        s.bounds.max_remembered = usize::MAX;
        levels::value(&mut s, start)?
    } else {
        Next::value(&mut s, start)?
    };
    // A natural that takes the one initial unit whatever the hands: its
    // chance now is its chance at the end.
    let ev = value - (1.0 - s.round.natural_per_hand) * s.round.natural(&start);
    let dealer_natural = s.round.natural(&start);
    s.make_room();
    Ok(OptimalSplit {
        ev,
        dealer_natural,
        states: s.valued,
        states_by_cards: s.by_cards,
        remembered_peak: s.remembered_peak,
        dealer_evaluations: s.dealer_evaluations,
        keys_on_disk: s.keys_spilled,
        max_hands: s.round.max_hands,
    })
}

impl OptimalSplit {
    /// The states [`optimal_split`] would value, counted by the number of
    /// cards dealt in them (entry `n`: the states with `n` cards dealt) without
    /// valuing them: the round is enumerated forward a number of cards at a
    /// time, holding two such levels at once. Past `max_states` the count
    /// stops with [`MainGameError::BeyondBound`], its sentence giving the
    /// levels counted in full.
    pub fn count_states(
        rules: &MainGameRules,
        shoe: &Shoe,
        pair: u8,
        up: u8,
        max_states: u64,
    ) -> Result<Vec<u64>, MainGameError> {
        let bounds = SplitBounds {
            max_states,
            ..SplitBounds::default()
        };
        let (s, start) = Search::new(rules, shoe, pair, up, bounds)?;
        levels::count(&s, start)
    }
}

impl Search {
    /// The search for splitting `pair` against `up` from `shoe`, and the
    /// round's first state, once the request is checked.
    fn new(
        rules: &MainGameRules,
        shoe: &Shoe,
        pair: u8,
        up: u8,
        bounds: SplitBounds,
    ) -> Result<(Search, State), MainGameError> {
        let r = Prepared::new(rules)?;
        let (p, u) = (rank_index(pair)?, rank_index(up)?);
        let max_hands = r.max_hands[p];
        if max_hands < 2 {
            return Err(MainGameError::InvalidRules(
                "these rules do not split this pair".into(),
            ));
        }
        if max_hands > MAX_OPTIMAL_SPLIT_HANDS {
            return Err(MainGameError::InvalidRules(format!(
                "the optimal split is computed for up to {MAX_OPTIMAL_SPLIT_HANDS} hands, the \
                 rules allow {max_hands}"
            )));
        }
        if p == 9 && r.split_by_rank {
            return Err(MainGameError::InvalidRules(
                "the optimal split takes any two ten-valued cards as a pair (not split by rank)"
                    .into(),
            ));
        }
        let counts = shoe.counts();
        if counts[p] < 2 + u32::from(p == u) || counts[u] == 0 {
            return Err(MainGameError::CardsNotInShoe(format!(
                "the pair {pair},{pair} and the up card {up}"
            )));
        }
        if counts.iter().any(|&c| c > 2000) {
            return Err(MainGameError::InvalidShoe(
                "the optimal split takes at most 2,000 cards of a value".into(),
            ));
        }
        let need = 31 * max_hands + 26;
        if shoe.hard_value() < need {
            return Err(MainGameError::ShoeTooSmall(format!(
                "an optimal split to {max_hands} hands needs cards worth at least {need}"
            )));
        }
        let natural_per_hand = if r.corr[u] > 0.0 { 0.0 } else { 1.0 };
        let round = Round {
            table: dealer::up_table(r.h17, u),
            r,
            shoe: counts,
            pair: p,
            up: u,
            max_hands,
            natural_per_hand,
        };
        let search = Search {
            round,
            memo: Vec::new(),
            dealer: Vec::new(),
            bounds,
            valued: 0,
            by_cards: Vec::new(),
            remembered_peak: 0,
            dealer_evaluations: 0,
            keys_spilled: 0,
        };
        let mut dealt = [0u8; 10];
        dealt[p] += 2;
        dealt[u] += 1;
        let start = State {
            dealt,
            short: [0; TOTALS],
            ndone: 0,
            hand: Hand::pair_card(p),
            waiting: 1,
        };
        Ok((search, start))
    }

    /// The error past the bound on states.
    fn beyond_bound(&self, counted: &str) -> MainGameError {
        MainGameError::BeyondBound(format!(
            "the optimal split of {p},{p} against {u} to {m} hands passed {b} states (the \
             bound) without finishing{counted}; fewer hands or a smaller shoe are within reach",
            p = self.round.pair + 1,
            u = self.round.up + 1,
            m = self.round.max_hands,
            b = self.bounds.max_states
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(outcomes: &[(Outcome, u8)]) -> State {
        let mut s = State {
            dealt: [0; 10],
            short: [0; TOTALS],
            ndone: 0,
            hand: Hand::pair_card(7),
            waiting: 0,
        };
        for &(outcome, stake) in outcomes {
            s.add_finished(outcome, stake);
        }
        s
    }

    #[test]
    fn busted_and_surrendered_hands_leave_no_trace_in_the_state() {
        let gone = after(&[(BUSTED, 1), (SURRENDERED, 1), (BUSTED, 2)]);
        assert_eq!(gone.short, [0; TOTALS]);
        let stood = after(&[(total_outcome(18), 1)]);
        let stood_then_busted = after(&[(total_outcome(18), 1), (BUSTED, 2)]);
        assert_eq!(stood.short, stood_then_busted.short);
    }

    #[test]
    fn a_standing_hand_is_kept_as_its_shortfall_against_each_dealer_total() {
        // 16 or less loses to every dealer total (two units short of a bust's
        // win), 21 only pushes a dealer 21, a doubled 18 wins against 17.
        assert_eq!(after(&[(total_outcome(14), 1)]).short, [2; TOTALS]);
        assert_eq!(after(&[(total_outcome(21), 1)]).short, [0, 0, 0, 0, 1]);
        assert_eq!(after(&[(total_outcome(18), 2)]).short, [0, 2, 4, 4, 4]);
        // the order hands finished in changes nothing
        let a = after(&[(total_outcome(20), 1), (total_outcome(17), 2)]);
        let b = after(&[(total_outcome(17), 2), (total_outcome(20), 1)]);
        assert_eq!(a.short, b.short);
    }
}
