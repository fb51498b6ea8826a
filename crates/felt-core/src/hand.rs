//! A blackjack hand of fixed capacity: cards inline, totals kept as cards arrive.

use crate::card::{Card, Rank, Suit};
use serde::Serialize;

/// The most cards a hand can hold. A hand stops at hard 21 and every card counts at
/// least 1, so 20 cards of hard 20 plus the card that busts it is the longest hand.
pub const MAX_CARDS: usize = 21;

const FILLER: Card = Card::new(Rank::Ace, Suit::Clubs);

/// The best total for a hard total without (`[0]`) or with (`[1]`) an ace: one ace
/// counts 11 when that does not bust the hand. A table: read at every card.
static BEST: [[u8; 256]; 2] = {
    let mut t = [[0u8; 256]; 2];
    let mut hard = 0;
    while hard < 256 {
        t[0][hard] = hard as u8;
        t[1][hard] = if hard <= 11 {
            hard as u8 + 10
        } else {
            hard as u8
        };
        hard += 1;
    }
    t
};

/// The best total of a hand with this hard total, holding an ace or not (C-1).
#[inline(always)]
pub(crate) fn best_total(hard: u8, has_ace: bool) -> u8 {
    BEST[usize::from(has_ace)][usize::from(hard)]
}

/// A hand's cards and running totals. `Copy`, no heap.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Hand {
    cards: [Card; MAX_CARDS],
    len: u8,
    hard: u8,
    /// The best total, kept as cards arrive (read far more often than written).
    best: u8,
    has_ace: bool,
}

impl Default for Hand {
    fn default() -> Self {
        Hand::EMPTY
    }
}

impl std::fmt::Debug for Hand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.cards()).finish()
    }
}

impl Serialize for Hand {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.cards().serialize(s)
    }
}

impl Hand {
    /// A hand with no card.
    pub const EMPTY: Hand = Hand {
        cards: [FILLER; MAX_CARDS],
        len: 0,
        hard: 0,
        best: 0,
        has_ace: false,
    };

    /// A hand of these cards (cards beyond [`MAX_CARDS`] are ignored).
    pub fn from_cards(cards: &[Card]) -> Hand {
        let mut h = Hand::EMPTY;
        for &c in cards {
            h.push(c);
        }
        h
    }

    /// Adds a card; `false` (and no change) if the hand is full.
    #[inline]
    pub fn push(&mut self, c: Card) -> bool {
        let i = usize::from(self.len);
        if i >= MAX_CARDS {
            return false;
        }
        self.cards[i] = c;
        self.len += 1;
        // At most 21 cards of at most 10 each: the hard total stays below 256.
        self.hard += c.value();
        self.has_ace |= c.rank == Rank::Ace;
        self.best = best_total(self.hard, self.has_ace);
        true
    }

    /// Removes and returns the last card (used when a pair is split).
    pub fn pop(&mut self) -> Option<Card> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let c = self.cards[usize::from(self.len)];
        let rest = Hand::from_cards(self.cards());
        *self = rest;
        Some(c)
    }

    /// Empties the hand.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.hard = 0;
        self.best = 0;
        self.has_ace = false;
    }

    /// The cards, in the order received.
    #[inline]
    pub fn cards(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    /// The number of cards.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the hand has no card.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The total counting every ace as 1.
    #[inline]
    pub fn hard_total(&self) -> u8 {
        self.hard
    }

    /// Whether the hand holds an ace.
    #[inline]
    pub(crate) fn has_ace(&self) -> bool {
        self.has_ace
    }

    /// Whether an ace counts 11 in the best total.
    #[inline]
    pub fn is_soft(&self) -> bool {
        self.best != self.hard
    }

    /// The best total: one ace counts 11 when that does not bust the hand.
    #[inline]
    pub fn total(&self) -> u8 {
        self.best
    }

    /// Whether the hand is over 21.
    #[inline]
    pub fn is_bust(&self) -> bool {
        self.hard > 21
    }

    /// Whether the hand is a two-card 21 (a natural only on an unsplit spot, C-7).
    #[inline]
    pub fn is_two_card_21(&self) -> bool {
        // The total first: 21 is rare, so one compare usually settles it.
        self.total() == 21 && self.len == 2
    }

    /// Whether the two cards are a pair: same value, or same rank when `by_rank` (C-1).
    #[inline]
    pub fn is_pair(&self, by_rank: bool) -> bool {
        self.len == 2
            && if by_rank {
                self.cards[0].rank == self.cards[1].rank
            } else {
                self.cards[0].value() == self.cards[1].value()
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn h(t: &str) -> Hand {
        Hand::from_cards(&parse_cards(t).unwrap())
    }

    #[test]
    fn c_1_totals_count_aces_one_or_eleven() {
        assert_eq!(h("Ah Kd").total(), 21);
        assert!(h("Ah Kd").is_two_card_21());
        assert_eq!(h("Ah 6d").total(), 17);
        assert!(h("Ah 6d").is_soft());
        assert_eq!(h("Ah 6d Tc").total(), 17);
        assert!(!h("Ah 6d Tc").is_soft());
        assert_eq!(h("Ah Ad").total(), 12);
        assert!(h("Jh Qd").is_pair(false));
        assert!(!h("Jh Qd").is_pair(true));
        assert!(h("Th 9d 5c").is_bust());
        let mut x = h("8h 8d");
        assert_eq!(x.pop().unwrap().to_string(), "8d");
        assert_eq!(x.total(), 8);
    }

    #[test]
    fn a_full_hand_refuses_more_cards() {
        let mut x = Hand::EMPTY;
        for _ in 0..MAX_CARDS {
            assert!(x.push(Card::new(Rank::Ace, Suit::Spades)));
        }
        assert!(!x.push(Card::new(Rank::Ace, Suit::Spades)));
        assert_eq!(x.len(), MAX_CARDS);
    }
}
