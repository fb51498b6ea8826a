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
use super::fxhash::FxHashMap;
use super::rules::{MainGameRules, Prepared};
use super::shoe::{rank_index, Shoe};

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
    /// Decision and chance states of the round valued.
    pub states: usize,
    /// Distinct sets of cards left whose dealer outcomes were computed.
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

/// A state of the round, packed into a `u128` key: the count of each value
/// dealt (7 bits each), the finished hands, the current hand (hard total,
/// ace held, cards held: 1, 2 or 3 and more) and the hands waiting.
#[derive(Clone, Copy)]
struct State {
    dealt: [u8; 10],
    done: [Outcome; 4],
    ndone: u8,
    hard: u8,
    ace: bool,
    ncards: u8,
    waiting: u8,
}

impl State {
    fn key(&self) -> u128 {
        let mut k: u128 = 0;
        for &d in &self.dealt {
            k = (k << 7) | u128::from(d);
        }
        let mut done = self.done;
        done[..usize::from(self.ndone)].sort_unstable();
        for &o in &done {
            k = (k << 4) | u128::from(o);
        }
        k = (k << 3) | u128::from(self.ndone);
        k = (k << 5) | u128::from(self.hard);
        k = (k << 1) | u128::from(self.ace);
        k = (k << 2) | u128::from(self.ncards.min(3));
        (k << 2) | u128::from(self.waiting)
    }

    /// Best total of the current hand and whether it is soft.
    fn total(&self) -> (u8, bool) {
        if self.ace && self.hard + 10 <= 21 {
            (self.hard + 10, true)
        } else {
            (self.hard, false)
        }
    }
}

struct Search<'a> {
    r: Prepared,
    shoe: [u32; 10],
    pair: usize,
    up: usize,
    max_hands: u32,
    table: &'a dealer::DealerTable,
    memo: FxHashMap<u128, f64>,
    dealer: FxHashMap<u128, [f64; 7]>,
}

impl Search<'_> {
    fn left(&self, s: &State) -> [u32; 10] {
        std::array::from_fn(|i| self.shoe[i] - u32::from(s.dealt[i]))
    }

    /// Chance of each next card and the state with it dealt.
    fn draws(&self, s: &State) -> Vec<(usize, f64)> {
        let left = self.left(s);
        let n: u32 = left.iter().sum();
        (0..10)
            .filter(|&x| left[x] > 0)
            .map(|x| (x, f64::from(left[x]) / f64::from(n)))
            .collect()
    }

    fn value(&mut self, s: State) -> f64 {
        let key = s.key();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let v = if s.ncards == 1 {
            self.second_card(s)
        } else {
            self.decide(s)
        };
        self.memo.insert(key, v);
        v
    }

    /// The current hand holds only its pair card: its second card, and a
    /// resplit where one is allowed and pays.
    fn second_card(&mut self, s: State) -> f64 {
        let made = u32::from(s.ndone) + 1 + u32::from(s.waiting);
        let mut v = 0.0;
        for (x, p) in self.draws(&s) {
            let mut t = s;
            t.dealt[x] += 1;
            let mut two = t;
            two.ncards = 2;
            two.hard += x as u8 + 1;
            two.ace |= x == 0;
            let mut best = self.value(two);
            if x == self.pair && made < self.max_hands {
                let mut again = t;
                again.waiting += 1;
                best = best.max(self.value(again));
            }
            v += p * best;
        }
        v
    }

    /// The best of the current hand's options.
    fn decide(&mut self, s: State) -> f64 {
        let (total, soft) = s.total();
        let stand = self.finish(s, total_outcome(total) * 2);
        if self.pair == 0 && s.ncards == 2 && !self.r.play_split_aces {
            return stand;
        }
        let mut best = stand.max(self.draw(s, false));
        if s.ncards == 2 {
            if self.r.das && self.r.can_double(total, soft) {
                best = best.max(self.draw(s, true));
            }
            if self.r.sas {
                best = best.max(self.finish(s, SURRENDERED * 2));
            }
        }
        best
    }

    /// Hit (playing on) or double (one card, twice the stake).
    fn draw(&mut self, s: State, double: bool) -> f64 {
        let mut v = 0.0;
        for (x, p) in self.draws(&s) {
            let mut t = s;
            t.dealt[x] += 1;
            t.hard += x as u8 + 1;
            t.ace |= x == 0;
            t.ncards = 3;
            let (total, _) = t.total();
            let outcome = if total > 21 {
                BUSTED
            } else {
                total_outcome(total)
            };
            v += p * if double {
                self.finish(t, outcome * 2 + 1)
            } else if total > 21 {
                self.finish(t, BUSTED * 2)
            } else {
                self.value(t)
            };
        }
        v
    }

    /// The current hand ends with `outcome`: the next waiting hand, or the
    /// dealer.
    fn finish(&mut self, s: State, outcome: Outcome) -> f64 {
        let mut t = s;
        t.done[usize::from(t.ndone)] = outcome;
        t.ndone += 1;
        if t.waiting == 0 {
            return self.settle(&t);
        }
        t.waiting -= 1;
        t.hard = self.pair as u8 + 1;
        t.ace = self.pair == 0;
        t.ncards = 1;
        self.value(t)
    }

    /// The round's value against the dealer once every hand is over.
    fn settle(&mut self, s: &State) -> f64 {
        let mut dk = 0u128;
        for &d in &s.dealt {
            dk = (dk << 7) | u128::from(d);
        }
        let pr = match self.dealer.get(&dk) {
            Some(p) => *p,
            None => {
                let mut n = self.left(s).map(f64::from);
                n[self.up] += 1.0; // the dealer's table takes the up card out itself
                let mut out = [[0.0; 7]; 10];
                self.table.eval(&n, &mut out);
                self.dealer.insert(dk, out[self.up]);
                out[self.up]
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
/// cards (`split_by_rank` is refused).
pub fn optimal_split(
    rules: &MainGameRules,
    shoe: &Shoe,
    pair: u8,
    up: u8,
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
        table: dealer::table(r.h17),
        r,
        shoe: counts,
        pair: p,
        up: u,
        max_hands,
        memo: FxHashMap::default(),
        dealer: FxHashMap::default(),
    };
    let mut dealt = [0u8; 10];
    dealt[p] += 2;
    dealt[u] += 1;
    let start = State {
        dealt,
        done: [0; 4],
        ndone: 0,
        hard: p as u8 + 1,
        ace: p == 0,
        ncards: 1,
        waiting: 1,
    };
    let ev = s.value(start);
    let left = s.left(&start);
    let n: u32 = left.iter().sum();
    let dealer_natural = match u {
        0 => f64::from(left[9]) / f64::from(n),
        9 => f64::from(left[0]) / f64::from(n),
        _ => 0.0,
    };
    Ok(OptimalSplit {
        ev,
        dealer_natural,
        states: s.memo.len(),
        dealer_evaluations: s.dealer.len(),
    })
}
