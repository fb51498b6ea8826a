//! What an exact analysis is computed for: the shoe (a number of decks or any
//! composition of card values) and the post-split model of the
//! composition-dependent figures.

use crate::main_game::{PostSplit, Shoe};

/// The shoe and post-split model of an exact command (`felt edge`, `felt
/// strategy`, `felt eor`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExactInput {
    /// Full decks to analyse (default: the rules file's); ignored with `shoe`.
    pub decks: Option<u8>,
    /// A shoe composition to analyse instead of full decks: counts of A, 2,
    /// ..., 9 and ten-valued cards (a counter's depleted shoe, say).
    pub shoe: Option<Shoe>,
    /// How the composition-dependent figures play split hands.
    pub post_split: PostSplit,
}

impl ExactInput {
    /// Full decks (default: the file's), CDZ- after splits.
    pub fn decks(decks: Option<u8>) -> Self {
        ExactInput {
            decks,
            ..ExactInput::default()
        }
    }

    /// The shoe analysed: the composition given, else `decks` full decks.
    pub fn shoe_or_decks(&self, decks: u8) -> Result<Shoe, crate::main_game::MainGameError> {
        match self.shoe {
            Some(s) => Ok(s),
            None => Shoe::decks(u32::from(decks)),
        }
    }

    /// The shoe's counts when a composition was given (for reports).
    pub fn composition(&self) -> Option<[u32; 10]> {
        self.shoe.map(|s| s.counts())
    }
}

/// The note a report carries when side bets are left out for a `--shoe`.
pub const SIDE_BETS_NOT_FROM_VALUES: &str =
    "side bets: not analysed from a shoe of card values (their pays depend on suits and \
     ranks); give --decks for them";
