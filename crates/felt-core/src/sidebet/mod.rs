//! Side bets as data: each bet has a kind (which cards it reads) and a pay table of
//! named hands. This module says which hand a set of cards makes; the round decides
//! when the cards are known, and the analysis enumerates them.

mod hands;
mod lookup;

pub use hands::{classify, HandContext, HandName};
pub use lookup::LineTable;

use serde::{Deserialize, Serialize};

/// Which cards a side bet reads, and so which hands its pay table may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SideBetKind {
    /// Player's first two cards and the dealer's up card: totals 19-21, 6-7-8, 7-7-7 (LL-1).
    LuckyLucky,
    /// Player's first two cards and the dealer's up card as a three-card poker hand (BB-1, 21+3).
    ThreeCardPoker,
    /// The player's first two cards totalling 20; one line needs the dealer's natural (LA-1).
    LuckyLadies,
    /// Sevens among the spot's first one, two and three cards (L7-2, BB-2, B7-2).
    Sevens,
}

impl SideBetKind {
    /// A short description of the cards the kind reads.
    pub fn cards_read(self) -> &'static str {
        match self {
            SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => {
                "the player's first two cards and the dealer's up card"
            }
            SideBetKind::LuckyLadies => "the player's first two cards",
            SideBetKind::Sevens => "the first one, two or three cards dealt to the spot",
        }
    }
}
