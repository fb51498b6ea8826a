//! The error type of the main-game analyser.

use thiserror::Error;

/// Why a main-game analysis request was refused.
///
/// Every public function of [`crate::main_game`] returns this instead of
/// panicking on impossible or unsupported input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MainGameError {
    /// A rules field is out of its supported range.
    #[error("invalid rules: {0}")]
    InvalidRules(String),
    /// A card rank outside 1 (ace) ..= 10 (ten-valued).
    #[error("invalid rank {0}: ranks are 1 (ace) to 10 (ten-valued)")]
    InvalidRank(u8),
    /// The shoe composition is unusable (empty, or too large).
    #[error("invalid shoe: {0}")]
    InvalidShoe(String),
    /// The requested cards are not all present in the shoe.
    #[error("the cards {0} are not available in the shoe")]
    CardsNotInShoe(String),
    /// The player's hand is not one the analyser can evaluate.
    #[error("invalid hand: {0}")]
    InvalidHand(String),
    /// The shoe is so small that the round could run out of cards.
    #[error("shoe too small: {0}")]
    ShoeTooSmall(String),
    /// The computation would go past its bound on work.
    #[error("beyond the bound: {0}")]
    BeyondBound(String),
    /// A file the computation keeps its work in failed (the disk full, say).
    #[error("a working file failed: {0}")]
    WorkingFile(String),
}
