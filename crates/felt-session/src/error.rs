//! What can go wrong joining the engine to the books.

use felt_core::{RulesError, ShoeError, TableError};
use felt_store::{RoundId, StoreError};

/// A session's result.
pub type Result<T, E = SessionError> = std::result::Result<T, E>;

/// Why a session step failed. Each names what and where; none changes the books
/// beyond what they already committed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The books refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A step of a round could not be written: the round stays open and the next
    /// session of its table completes it.
    #[error(
        "round {round} could not be written; it stays open and the next session of this \
         table completes it: {source}"
    )]
    StepNotWritten {
        /// The round.
        round: RoundId,
        /// Why.
        source: StoreError,
    },
    /// The engine refused to seat the table (seats, balances, the shoe's decks).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The engine refused to open a round (e.g. betting already open).
    #[error("the engine refused to open the round: {0}")]
    Begin(#[from] felt_core::ActionError),
    /// Rules that cannot be read.
    #[error("round {round}: {what}: {source}")]
    Rules {
        /// The round.
        round: RoundId,
        /// Which rules.
        what: String,
        /// Why.
        source: Box<RulesError>,
    },
    /// A round written before the books kept rules names them by a preset or a file:
    /// the caller loads them (`named`) and asks again with them.
    #[error(
        "round {round} is older than the rules kept in the books: it names its rules \
         `{named}`"
    )]
    RulesNotKept {
        /// The round.
        round: RoundId,
        /// The preset or file its setup names.
        named: String,
    },
    /// Something in the books that the books' own checks should have kept out.
    #[error("round {round}: {what}: the books are damaged")]
    Damaged {
        /// The round.
        round: RoundId,
        /// What is wrong.
        what: String,
    },
    /// A stored shoe that cannot be read.
    #[error("round {round}: its stored shoe: {source}")]
    Shoe {
        /// The round.
        round: RoundId,
        /// Why.
        source: ShoeError,
    },
    /// An engine value that would not serialise (never expected).
    #[error("a value could not be written as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A round's first bet could not be written once the round was (another table took
    /// the round's expected id, and the books then refused the bet): the round was
    /// voided, nothing staked. The table sets a new round up.
    #[error(
        "round {round} could not take its first bet ({why}): it was voided, nothing was \
         staked; bet again in the next round"
    )]
    NotOpened {
        /// The round (voided).
        round: RoundId,
        /// Why the bet was not written.
        why: String,
    },
    /// The operating system gave no entropy for a shoe's seed.
    #[error("the operating system gave no entropy for a shoe's seed: {0}")]
    Entropy(String),
}
