//! The shoe composition: counts of each card value.

use super::error::MainGameError;

/// Largest number of cards of one value a shoe may hold.
const MAX_PER_RANK: u32 = 100_000;

/// Checks a public rank (1 = ace, 2..=9, 10 = any ten-valued card) and
/// returns its index 0..=9.
pub(crate) fn rank_index(rank: u8) -> Result<usize, MainGameError> {
    if (1..=10).contains(&rank) {
        Ok(usize::from(rank - 1))
    } else {
        Err(MainGameError::InvalidRank(rank))
    }
}

/// A shoe composition: how many cards of each value are in it.
///
/// Index 0 holds aces, index 1 twos, ..., index 9 all ten-valued cards
/// (T, J, Q, K counted together). Public functions take ranks as `u8`
/// 1 (ace) ..= 10 (ten-valued).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shoe {
    counts: [u32; 10],
}

impl Shoe {
    /// A full shoe of `decks` 52-card decks (1..=8).
    pub fn decks(decks: u32) -> Result<Self, MainGameError> {
        if !(1..=8).contains(&decks) {
            return Err(MainGameError::InvalidShoe(format!(
                "decks must be 1..=8, got {decks}"
            )));
        }
        let mut counts = [4 * decks; 10];
        counts[9] = 16 * decks;
        Ok(Shoe { counts })
    }

    /// A shoe with the given counts of A, 2, ..., 9, ten-valued.
    pub fn from_counts(counts: [u32; 10]) -> Result<Self, MainGameError> {
        if counts.iter().any(|&c| c > MAX_PER_RANK) {
            return Err(MainGameError::InvalidShoe(format!(
                "at most {MAX_PER_RANK} cards of one value"
            )));
        }
        if counts.iter().all(|&c| c == 0) {
            return Err(MainGameError::InvalidShoe("the shoe is empty".into()));
        }
        Ok(Shoe { counts })
    }

    /// The counts of A, 2, ..., 9, ten-valued.
    pub fn counts(&self) -> [u32; 10] {
        self.counts
    }

    /// How many cards of `rank` (1 = ace ..= 10 = ten-valued) remain.
    pub fn count(&self, rank: u8) -> Result<u32, MainGameError> {
        Ok(self.counts[rank_index(rank)?])
    }

    /// Total number of cards.
    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Sum of the card values (aces counted 1).
    pub fn hard_value(&self) -> u32 {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| c * (i as u32 + 1))
            .sum()
    }

    /// Removes one card of `rank`; errors if none is left.
    pub fn remove(&mut self, rank: u8) -> Result<(), MainGameError> {
        let i = rank_index(rank)?;
        if self.counts[i] == 0 {
            return Err(MainGameError::CardsNotInShoe(format!("{rank}")));
        }
        self.counts[i] -= 1;
        Ok(())
    }

    /// Counts as the engine's numbers (exact: every count is far below 2^53).
    pub(crate) fn signed(&self) -> [f64; 10] {
        self.counts.map(f64::from)
    }
}
