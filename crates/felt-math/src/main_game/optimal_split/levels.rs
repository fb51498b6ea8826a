//! The optimal split's states counted level by level (by the number of cards
//! dealt) without valuing them: what the valuation would remember, and how
//! wide each level is, at the memory of two levels.
//!
//! Every step of the round either deals a card (one level up) or moves on to
//! the next split hand with the same cards (a later stage of the same level),
//! so a level is complete once the one below it is enumerated, stage by stage.

use super::keys::KeyStore;
use super::{
    step, total_outcome, Hand, Key, Next, Round, Search, State, BUSTED, SURRENDERED, TOTALS,
};
use crate::main_game::error::MainGameError;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

impl Round {
    /// Calls `reach` with each state the round can move to from `s`, in the
    /// steps [`Search::value`] takes (a state may come more than once).
    fn successors(&self, s: &State, mut reach: impl FnMut(State)) {
        let left = self.left(s);
        let cards = || (0..10).filter(move |&x| left[x] > 0);
        let pair = self.pair;
        let finish = |t: State, outcome: u8, stake: u8, reach: &mut dyn FnMut(State)| {
            let mut t = t;
            t.add_finished(outcome, stake);
            if t.waiting > 0 {
                t.waiting -= 1;
                t.hand = Hand::pair_card(pair);
                reach(t);
            }
        };
        let dealt = |x: usize| {
            let mut t = *s;
            t.dealt[x] += 1;
            t.hand = s.hand.with(x);
            t
        };
        if s.hand.ncards == 1 {
            let made = u32::from(s.ndone) + 1 + u32::from(s.waiting);
            for x in cards() {
                reach(dealt(x));
                if x == pair && made < self.max_hands {
                    let mut again = *s;
                    again.dealt[x] += 1;
                    again.waiting += 1;
                    reach(again);
                }
            }
            return;
        }
        finish(*s, total_outcome(s.hand.total), 1, &mut reach);
        if pair == 0 && s.hand.ncards == 2 && !self.r.play_split_aces {
            return;
        }
        for x in cards() {
            let t = dealt(x);
            if t.hand.total > 21 {
                finish(t, BUSTED, 1, &mut reach);
            } else {
                reach(t);
            }
        }
        if s.hand.ncards == 2 {
            if self.r.das && self.r.can_double(s.hand.total, s.hand.soft) {
                for x in cards() {
                    let t = dealt(x);
                    let outcome = if t.hand.total > 21 {
                        BUSTED
                    } else {
                        total_outcome(t.hand.total)
                    };
                    finish(t, outcome, 2, &mut reach);
                }
            }
            if self.r.sas {
                finish(*s, SURRENDERED, 1, &mut reach);
            }
        }
    }
}

/// The states reachable from `start`, by the number of cards dealt in them;
/// past the search's bound on states, [`MainGameError::BeyondBound`] naming
/// the levels counted in full.
pub(super) fn count(search: &Search, start: State) -> Result<Vec<u64>, MainGameError> {
    walk(search, start, |_| Ok(()))
}

/// The value of `start`: every state reachable from it valued level by
/// level, the most cards dealt first and each level's last stage first, so
/// that every step finds what follows it remembered; a level's values are
/// forgotten once the level below it is valued. The states of a stage depend
/// only on later stages and levels, so they are valued in parallel (the same
/// values, bit for bit, whatever the threads). The levels' keys are held from
/// the forward count to their valuing, past [`super::SplitBounds::keys_in_memory`]
/// in a temporary file.
pub(super) fn value(search: &mut Search, start: State) -> Result<f64, MainGameError> {
    let mut keys = KeyStore::new(search.bounds.keys_in_memory);
    walk(search, start, |stages| {
        keys.push(
            stages
                .into_iter()
                .map(|k| k.into_iter().collect())
                .collect(),
        )
    })?;
    search.keys_spilled = keys.spilled();
    let first = start.cards();
    while let Some(level) = keys.pop()? {
        let cards = first + keys.len();
        for stage in level.iter().rev() {
            value_stage(search, cards, stage)?;
        }
        search.make_room(); // the peak: this level and the one above it
        search.forget_above(cards);
    }
    Next::value(search, start)
}

/// Most states valued by one task at a time.
const MAX_CHUNK: usize = 1 << 14;

/// Values the states of one stage of the level of `cards` cards dealt, in
/// parallel, and remembers them with the dealer outcomes they needed.
fn value_stage(search: &mut Search, cards: usize, stage: &[Key]) -> Result<(), MainGameError> {
    let shared = &*search;
    // Several tasks a thread, for the threads to share a stage evenly.
    let chunk = (stage.len() / (8 * rayon::current_num_threads())).clamp(64, MAX_CHUNK);
    let done = stage
        .par_chunks(chunk)
        .map(|chunk| {
            let mut w = Worker {
                search: shared,
                fresh: FxHashMap::default(),
            };
            let values = chunk
                .iter()
                .map(|&k| step(&mut w, State::from_key(k)))
                .collect::<Result<Vec<f64>, _>>()?;
            Ok((values, w.fresh))
        })
        .collect::<Result<Vec<_>, MainGameError>>()?;
    search.count_valued(cards, stage.len() as u64);
    let mut keys = stage.iter();
    for (values, fresh) in done {
        for (dk, (c, p)) in fresh {
            if let std::collections::hash_map::Entry::Vacant(e) = search.dealer_of(c).entry(dk) {
                e.insert(p);
                search.dealer_evaluations += 1;
            }
        }
        let memo = search.memo_of(cards);
        memo.reserve(values.len());
        // (the values first: a zip that ran out of keys would lose one)
        for (v, &k) in values.into_iter().zip(keys.by_ref()) {
            memo.insert(k, v);
        }
    }
    Ok(())
}

/// Values states of one stage from the levels and stages valued before it,
/// which it only reads; the dealer outcomes it computes are kept for the
/// search to remember.
struct Worker<'a> {
    search: &'a Search,
    /// Dealer outcomes computed here: by the cards dealt, with their number.
    fresh: FxHashMap<Key, (usize, [f64; TOTALS])>,
}

impl Next for Worker<'_> {
    fn round(&self) -> &Round {
        &self.search.round
    }

    fn value(&mut self, s: State) -> Result<f64, MainGameError> {
        let key = s.key(self.search.round.stage(&s));
        match self.search.memo.get(s.cards()).and_then(|m| m.get(&key)) {
            Some(&v) => Ok(v),
            None => {
                // Every state that follows one of the stage was counted ahead of
                // it and is valued: never reached, and exact if it were.
                debug_assert!(false, "a state valued before what follows it");
                step(self, s)
            }
        }
    }

    fn dealer(&mut self, s: &State) -> [f64; TOTALS] {
        let dk = s.dealt_key();
        let cards = s.cards();
        if let Some(p) = self.search.dealer.get(cards).and_then(|t| t.get(&dk)) {
            return *p;
        }
        let round = &self.search.round;
        self.fresh
            .entry(dk)
            .or_insert_with(|| (cards, round.dealer_outcomes(s)))
            .1
    }
}

/// Enumerates the states reachable from `start` a number of cards dealt at a
/// time, each level stage by stage, handing each complete level (its keys by
/// stage) to `level`, and returns the number of states per level.
fn walk(
    search: &Search,
    start: State,
    mut level_done: impl FnMut(Vec<FxHashSet<Key>>) -> Result<(), MainGameError>,
) -> Result<Vec<u64>, MainGameError> {
    let stages = search.round.max_hands as usize;
    let key = |s: &State| s.key(search.round.stage(s));
    let mut by_cards = vec![0u64; start.cards()];
    let mut level: Vec<FxHashSet<Key>> = vec![FxHashSet::default(); stages];
    level[usize::from(search.round.stage(&start))].insert(key(&start));
    let mut total = 0u64;
    while level.iter().any(|stage| !stage.is_empty()) {
        let cards = by_cards.len();
        let mut above: Vec<FxHashSet<Key>> = vec![FxHashSet::default(); stages];
        let mut done: Vec<FxHashSet<Key>> = Vec::with_capacity(stages);
        let mut width = 0u64;
        for stage in 0..stages {
            let here = std::mem::take(&mut level[stage]);
            width += here.len() as u64;
            total += here.len() as u64;
            if total > search.bounds.max_states {
                return Err(search.beyond_bound(&format!(
                    " (states by cards dealt, the levels counted in full: {by_cards:?})"
                )));
            }
            for &k in &here {
                search.round.successors(&State::from_key(k), |t| {
                    let to = usize::from(search.round.stage(&t));
                    if t.cards() == cards {
                        debug_assert!(to > stage, "a step without a card moves on a hand");
                        level[to].insert(key(&t));
                    } else {
                        above[to].insert(key(&t));
                    }
                });
            }
            done.push(here);
        }
        level_done(done)?;
        by_cards.push(width);
        level = above;
    }
    Ok(by_cards)
}
