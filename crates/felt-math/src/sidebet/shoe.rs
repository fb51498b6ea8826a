//! The composition of a shoe by card class (rank and suit), the input of the
//! exact enumeration.

use super::SideBetError;
use felt_core::card::Card;

/// The most cards a [`ShoeCounts`] may hold: it keeps every count of ordered
/// five-card deals (at most `MAX_CARDS^5 = 2^100`) well inside a `u128`.
pub const MAX_CARDS: u64 = 1 << 20;

/// How many physical cards of each of the 52 classes (rank and suit) a shoe holds.
///
/// A standard shoe of N decks holds N of each class ([`ShoeCounts::decks`]); any
/// other composition (a depleted shoe, a test shoe of a few ranks) can be given
/// with [`ShoeCounts::from_counts`] or [`ShoeCounts::from_cards`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShoeCounts {
    counts: [u32; 52],
}

impl ShoeCounts {
    /// A full shoe of `decks` 52-card decks (1..=8, C-1).
    pub fn decks(decks: u8) -> Result<ShoeCounts, SideBetError> {
        if !(1..=8).contains(&decks) {
            return Err(SideBetError::Decks(decks));
        }
        Ok(ShoeCounts {
            counts: [u32::from(decks); 52],
        })
    }

    /// A shoe from the count of each class, indexed by [`Card::index`].
    pub fn from_counts(counts: [u32; 52]) -> Result<ShoeCounts, SideBetError> {
        let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        if total > MAX_CARDS {
            return Err(SideBetError::ShoeTooLarge(total));
        }
        Ok(ShoeCounts { counts })
    }

    /// A shoe holding exactly these physical cards (repeats allowed).
    pub fn from_cards(cards: &[Card]) -> Result<ShoeCounts, SideBetError> {
        if cards.len() as u64 > MAX_CARDS {
            return Err(SideBetError::ShoeTooLarge(cards.len() as u64));
        }
        let mut counts = [0u32; 52];
        for c in cards {
            counts[c.index()] += 1;
        }
        Ok(ShoeCounts { counts })
    }

    /// How many cards of this rank and suit the shoe holds.
    pub fn count(&self, card: Card) -> u32 {
        self.counts[card.index()]
    }

    /// The count of every class, indexed by [`Card::index`].
    pub fn counts(&self) -> &[u32; 52] {
        &self.counts
    }

    /// The number of physical cards in the shoe.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).sum()
    }
}
