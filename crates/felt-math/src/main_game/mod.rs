//! Exact analysis of the blackjack main game.
//!
//! A self-contained, exact (no simulation, no infinite-deck shortcut)
//! analyser with its own rules type [`MainGameRules`] and shoe type
//! [`Shoe`] (counts of A, 2, ..., 9, ten-valued).
//!
//! * [`dealer_probabilities`]: the dealer's final outcomes for any shoe and
//!   up card, optionally conditioned on no natural (the dealer peeked).
//! * [`hand_evs`]: stand / hit / double / split / surrender values of any
//!   hand against any up card from any composition.
//! * [`optimal_split`]: the value of a split when every decision may depend
//!   on every card seen in the round (up to four hands).
//! * [`analyse`] / [`analyse_shoe`]: the expected value of a round off the
//!   top for the optimal composition-dependent strategy and for the computed
//!   total-dependent [`BasicStrategy`], per up card and overall.
//!
//! # Model
//!
//! Every decision sees the exact composition: the full shoe less the
//! player's cards and the up card. Insurance is never taken. A player
//! natural is paid (never split or doubled) and pushes a dealer natural.
//! Dealer naturals follow [`Peek`] and [`NoPeekLoss`].
//!
//! After a split the model is [`PostSplit`]: by default **CDZ-** (Eric
//! Farmer's and MGP's combinatorial analysers), or CDP1 or CDP. Under CDZ-
//! each split hand is played with the action the same cards would get as an
//! unsplit hand (optimal for the full shoe less
//! that hand's cards and the up card), among the options allowed after a
//! split; its expected value is then computed exactly, including the other
//! split cards removed. Pairs are resplit whenever allowed, up to
//! `max_split_hands` (exact for every limit 1..=[`MAX_SPLIT_HANDS`] = 8,
//! all the engine accepts). See [`split`](self) internals for the algorithm.
//!
//! # Speed
//!
//! Dealer probabilities are memoised by the removed-card multiset (a packed
//! `u64` key, FxHash map) and computed for all ten up cards at once by
//! summing over the ~1,700 final dealer compositions with precomputed order
//! multipliers, sixteen removals at a time (vectorised lanes, AVX2 or
//! AVX-512 chosen at run time) through a product trie; player values are
//! swept over a static index of the ~3,000 player hands with precomputed
//! hit links, no allocation in the loops.
//! Split hands are valued only where a split hand can actually arrive
//! (hits and doubles of either strategy). A full six-deck analysis needs
//! about 20,400 dealer evaluations (CDZ-), one pair's split removals
//! memoised at a time.

// The numeric kernels index several parallel per-card arrays with one
// loop variable; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

mod analysis;
mod dealer;
mod engine;
mod error;
mod evs;
mod hands;
mod optimal_split;
mod post_split;
mod rules;
mod shoe;
mod split;
mod strategy;

pub(crate) use analysis::dealable_hands;
pub use analysis::{
    analyse, analyse_composition, analyse_shoe, analyse_shoe_with_strategy, MainGameAnalysis,
    UpCardSummary,
};
pub use dealer::{dealer_probabilities, DealerProbs};
pub use error::MainGameError;
pub use evs::{hand_evs, ActionEvs};
pub use optimal_split::{
    optimal_split, optimal_split_within, OptimalSplit, SplitBounds, DEFAULT_KEYS_IN_MEMORY,
    DEFAULT_MAX_STATES, MAX_OPTIMAL_SPLIT_HANDS,
};
pub use post_split::PostSplit;
pub use rules::{DoubleOn, MainGameRules, NoPeekLoss, Peek, Surrender, MAX_SPLIT_HANDS};
pub use shoe::Shoe;
pub use strategy::{
    Action, Allowed, BasicStrategy, Cell, HandKind, PostSplitDifference, PostSplitReason,
};
