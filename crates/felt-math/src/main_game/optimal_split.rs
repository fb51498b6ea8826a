//! The optimal split: the expected value of splitting a pair when every
//! decision of the round (resplit or not, stand, hit, double, surrender) may
//! depend on every card seen in it, for up to four hands.
//!
//! The round is a game tree searched to the end and memoised by its state
//! (the approach of Eric Farmer's `blackjack_split`, written anew): the cards
//! dealt in the round so far (a multiset: the order they came in does not
//! matter to what follows), the hands already finished (as a sorted list of
//! outcomes: standing total, bust or surrendered, and the stake), the hand
//! being played and how many split hands still wait for their second card.
//! A finished round is valued against the dealer's outcome probabilities for
//! the cards left. The hole card is one more unseen card, so every value is
//! unconditioned on the dealer natural, as [`super::ActionEvs`] values before
//! the peek; where the dealer peeked (or only the original bet is lost) a
//! natural costs the round exactly one unit, a constant that changes no
//! decision.

use super::dealer::{self, BUST, NAT};
use super::error::MainGameError;
use super::rules::{MainGameRules, Prepared};
use super::shoe::{rank_index, Shoe};
use rustc_hash::FxHashMap;

/// Most hands the optimal split is computed for.
pub const MAX_OPTIMAL_SPLIT_HANDS: u32 = 4;

/// The expected value of an optimally played split, with the work it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptimalSplit {
    /// Expected value per unit initial bet, unconditioned on the dealer
    /// natural (a dealer natural counted in, as it costs the round).
    pub ev: f64,
    /// Probability of a dealer natural given the pair and the up card.
    pub dealer_natural: f64,
    /// Decision and chance states of the round valued (a state forgotten
    /// under [`SplitBounds::max_remembered`] and valued again counts again).
    pub states: u64,
    /// Most states and dealer outcomes remembered at once.
    pub remembered_peak: usize,
    /// Dealer outcome evaluations (one per set of cards left, again if
    /// forgotten).
    pub dealer_evaluations: usize,
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

/// How a finished hand ended: 0 = 16 or less, 1..=5 = 17..=21, 6 = bust,
/// 7 = surrendered; times two, plus one when doubled.
type Outcome = u8;

const SURRENDERED: u8 = 7;
const BUSTED: u8 = 6;

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

/// A state of the round: the count of each value dealt in it, the finished
/// hands, the hand in play and the split hands waiting for their second card.
#[derive(Clone, Copy)]
struct State {
    dealt: [u8; 10],
    done: [Outcome; 4],
    ndone: u8,
    hand: Hand,
    waiting: u8,
}

/// A state packed into two words (24-byte table entries with its value):
/// nine counts of 7 bits, then the tens, the finished hands in sorted order
/// (the order they were played in changes nothing), the hand in play and the
/// hands waiting.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u64, u64);

impl State {
    fn key(&self) -> Key {
        let mut lo = 0u64;
        for &d in &self.dealt[..9] {
            lo = (lo << 7) | u64::from(d);
        }
        let mut done = self.done;
        let n = usize::from(self.ndone).min(3);
        done[..n].sort_unstable();
        let mut hi = u64::from(self.dealt[9]);
        for &o in &done[..3] {
            hi = (hi << 4) | u64::from(o);
        }
        hi = (hi << 2) | u64::from(self.ndone);
        hi = (hi << 5) | u64::from(self.hand.total);
        hi = (hi << 1) | u64::from(self.hand.soft);
        hi = (hi << 2) | u64::from(self.hand.ncards);
        Key((hi << 2) | u64::from(self.waiting), lo)
    }

    /// The composition of the cards dealt (the dealer's cache key).
    fn dealt_key(&self) -> Key {
        let mut lo = 0u64;
        for &d in &self.dealt[..9] {
            lo = (lo << 7) | u64::from(d);
        }
        Key(u64::from(self.dealt[9]), lo)
    }
}

/// The default bound on states valued: enough for every pair split to three
/// hands from one to eight decks (eights against a ten, the largest, value
/// 24.2 million at eight decks), a few minutes of work.
pub const DEFAULT_MAX_STATES: u64 = 30_000_000;

/// Bounds on the optimal split's work and memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitBounds {
    /// Most states valued (recomputations counted) before the request is
    /// refused with [`MainGameError::BeyondBound`].
    pub max_states: u64,
    /// Most values remembered at once (states and dealer outcomes, about 40
    /// bytes each); past it the deepest tables are forgotten and recomputed
    /// where needed, which costs time, never exactness.
    pub max_remembered: usize,
}

impl Default for SplitBounds {
    fn default() -> Self {
        SplitBounds {
            max_states: DEFAULT_MAX_STATES,
            max_remembered: 40_000_000,
        }
    }
}

struct Search {
    r: Prepared,
    shoe: [u32; 10],
    pair: usize,
    up: usize,
    max_hands: u32,
    table: &'static dealer::DealerTable,
    /// One table per hand in play (by the number of hands finished): a
    /// state is reached only from states of the same or earlier hands.
    memo: Vec<FxHashMap<Key, f64>>,
    dealer: FxHashMap<Key, [f64; 7]>,
    bounds: SplitBounds,
    valued: u64,
    remembered_peak: usize,
    dealer_evaluations: usize,
}

impl Search {
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

    fn remembered(&self) -> usize {
        self.memo.iter().map(FxHashMap::len).sum::<usize>() + self.dealer.len()
    }

    /// Keeps what is remembered under its bound: the deepest hand's table
    /// (the largest and the quickest to rebuild) goes first, then the
    /// dealer's outcomes.
    fn make_room(&mut self) {
        self.remembered_peak = self.remembered_peak.max(self.remembered());
        while self.remembered() >= self.bounds.max_remembered {
            if let Some(t) = self.memo.iter_mut().skip(1).rev().find(|t| !t.is_empty()) {
                *t = FxHashMap::default();
            } else if !self.dealer.is_empty() {
                self.dealer = FxHashMap::default();
            } else {
                self.memo[0] = FxHashMap::default();
            }
        }
    }

    fn value(&mut self, s: State) -> Result<f64, MainGameError> {
        let key = s.key();
        let level = usize::from(s.ndone);
        if let Some(&v) = self.memo[level].get(&key) {
            return Ok(v);
        }
        self.valued += 1;
        if self.valued > self.bounds.max_states {
            return Err(MainGameError::BeyondBound(format!(
                "the optimal split of {p},{p} against {u} to {m} hands valued {b} states (the \
                 bound) without finishing; fewer hands or a smaller shoe are within reach",
                p = self.pair + 1,
                u = self.up + 1,
                m = self.max_hands,
                b = self.bounds.max_states
            )));
        }
        let v = if s.hand.ncards == 1 {
            self.second_card(s)?
        } else {
            self.decide(s)?
        };
        if self.valued.is_multiple_of(65_536) {
            self.make_room();
        }
        self.memo[level].insert(key, v);
        Ok(v)
    }

    /// The current hand holds only its pair card: its second card, and a
    /// resplit where one is allowed and pays.
    fn second_card(&mut self, s: State) -> Result<f64, MainGameError> {
        let made = u32::from(s.ndone) + 1 + u32::from(s.waiting);
        let mut v = 0.0;
        for (x, p) in self.draws(&s).into_iter().enumerate().filter(|d| d.1 > 0.0) {
            let mut t = s;
            t.dealt[x] += 1;
            let mut two = t;
            two.hand = s.hand.with(x);
            let mut best = self.value(two)?;
            if x == self.pair && made < self.max_hands {
                let mut again = t;
                again.waiting += 1;
                best = best.max(self.value(again)?);
            }
            v += p * best;
        }
        Ok(v)
    }

    /// The best of the current hand's options.
    fn decide(&mut self, s: State) -> Result<f64, MainGameError> {
        let stand = self.finish(s, total_outcome(s.hand.total) * 2)?;
        if self.pair == 0 && s.hand.ncards == 2 && !self.r.play_split_aces {
            return Ok(stand);
        }
        let mut best = stand.max(self.draw(s, false)?);
        if s.hand.ncards == 2 {
            if self.r.das && self.r.can_double(s.hand.total, s.hand.soft) {
                best = best.max(self.draw(s, true)?);
            }
            if self.r.sas {
                best = best.max(self.finish(s, SURRENDERED * 2)?);
            }
        }
        Ok(best)
    }

    /// Hit (playing on) or double (one card, twice the stake).
    fn draw(&mut self, s: State, double: bool) -> Result<f64, MainGameError> {
        let mut v = 0.0;
        for (x, p) in self.draws(&s).into_iter().enumerate().filter(|d| d.1 > 0.0) {
            let mut t = s;
            t.dealt[x] += 1;
            t.hand = s.hand.with(x);
            let total = t.hand.total;
            let outcome = if total > 21 {
                BUSTED
            } else {
                total_outcome(total)
            };
            v += p * if double {
                self.finish(t, outcome * 2 + 1)?
            } else if total > 21 {
                self.finish(t, BUSTED * 2)?
            } else {
                self.value(t)?
            };
        }
        Ok(v)
    }

    /// The current hand ends with `outcome`: the next waiting hand, or the
    /// dealer.
    fn finish(&mut self, s: State, outcome: Outcome) -> Result<f64, MainGameError> {
        let mut t = s;
        t.done[usize::from(t.ndone)] = outcome;
        t.ndone += 1;
        if t.waiting == 0 {
            return Ok(self.settle(&t));
        }
        t.waiting -= 1;
        t.hand = Hand::pair_card(self.pair);
        self.value(t)
    }

    /// The round's value against the dealer once every hand is over.
    fn settle(&mut self, s: &State) -> f64 {
        let dk = s.dealt_key();
        let pr = match self.dealer.get(&dk) {
            Some(p) => *p,
            None => {
                let mut n = self.left(s).map(f64::from);
                n[self.up] += 1.0; // the dealer's table takes the up card out itself
                let p = self.table.eval_up(&n, self.up);
                self.dealer_evaluations += 1;
                self.dealer.insert(dk, p);
                p
            }
        };
        let hands = &s.done[..usize::from(s.ndone)];
        let mut v = 0.0;
        let mut stakes = 0.0;
        for &o in hands {
            let stake = if o % 2 == 1 { 2.0 } else { 1.0 };
            stakes += stake;
            let out = o / 2;
            for (d, &q) in pr.iter().enumerate().take(NAT) {
                v += q * stake * payoff(out, d);
            }
        }
        let natural = if self.r.corr[self.up] > 0.0 {
            1.0
        } else {
            stakes
        };
        v - pr[NAT] * natural
    }
}

/// The outcome of standing on `total` (at most 21).
fn total_outcome(total: u8) -> u8 {
    total.saturating_sub(16).min(5)
}

/// One unit's result of `outcome` when the dealer ends in slot `d` (not a
/// natural).
fn payoff(outcome: u8, d: usize) -> f64 {
    match outcome {
        SURRENDERED => -0.5,
        BUSTED => -1.0,
        _ if d == BUST => 1.0,
        o => {
            let (mine, theirs) = (i32::from(o), d as i32 + 1);
            f64::from((mine - theirs).signum())
        }
    }
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
            "the optimal split takes any two ten-valued cards as a pair (not split by rank)".into(),
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
    let mut s = Search {
        table: dealer::up_table(r.h17, u),
        r,
        shoe: counts,
        pair: p,
        up: u,
        max_hands,
        memo: vec![FxHashMap::default(); max_hands as usize],
        dealer: FxHashMap::default(),
        bounds,
        valued: 0,
        remembered_peak: 0,
        dealer_evaluations: 0,
    };
    let mut dealt = [0u8; 10];
    dealt[p] += 2;
    dealt[u] += 1;
    let start = State {
        dealt,
        done: [0; 4],
        ndone: 0,
        hand: Hand::pair_card(p),
        waiting: 1,
    };
    let ev = s.value(start)?;
    let left = s.left(&start);
    let n: u32 = left.iter().sum();
    let dealer_natural = match u {
        0 => f64::from(left[9]) / f64::from(n),
        9 => f64::from(left[0]) / f64::from(n),
        _ => 0.0,
    };
    s.make_room();
    Ok(OptimalSplit {
        ev,
        dealer_natural,
        states: s.valued,
        remembered_peak: s.remembered_peak,
        dealer_evaluations: s.dealer_evaluations,
    })
}
