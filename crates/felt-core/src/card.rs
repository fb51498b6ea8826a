//! Cards: rank, suit, blackjack value, and the short text form `7h`, `Ts`, `10d`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A card rank, ace low in the enum order (ace = 1 .. king = 13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Rank {
    /// Ace: counts 1 or 11.
    Ace = 1,
    /// Two.
    Two,
    /// Three.
    Three,
    /// Four.
    Four,
    /// Five.
    Five,
    /// Six.
    Six,
    /// Seven.
    Seven,
    /// Eight.
    Eight,
    /// Nine.
    Nine,
    /// Ten.
    Ten,
    /// Jack.
    Jack,
    /// Queen.
    Queen,
    /// King.
    King,
}

impl Rank {
    /// All thirteen ranks, ace first.
    pub const ALL: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// The rank from its number, ace = 1 .. king = 13.
    pub fn from_number(n: u8) -> Option<Rank> {
        Rank::ALL.get(usize::from(n).checked_sub(1)?).copied()
    }

    /// The rank's number, ace = 1 .. king = 13.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// Blackjack value: ace 1 (an ace's 11 is the hand's business), face cards 10.
    pub fn value(self) -> u8 {
        (self as u8).min(10)
    }

    /// Whether the rank counts ten (T, J, Q, K).
    pub fn is_ten_value(self) -> bool {
        self.value() == 10
    }

    /// The one-character symbol: `A 2 .. 9 T J Q K`.
    pub fn symbol(self) -> char {
        b"A23456789TJQK"[usize::from(self as u8 - 1)] as char
    }
}

/// A suit. Diamonds and hearts are red; clubs and spades black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Suit {
    /// Clubs (black).
    Clubs = 0,
    /// Diamonds (red).
    Diamonds,
    /// Hearts (red).
    Hearts,
    /// Spades (black).
    Spades,
}

impl Suit {
    /// All four suits.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// Whether the suit is red (diamonds, hearts).
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// The lower-case letter: `c d h s`.
    pub fn letter(self) -> char {
        b"cdhs"[self as usize] as char
    }

    /// The suit symbol for display: ♣ ♦ ♥ ♠.
    pub fn symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self as usize]
    }
}

/// A playing card. Two bytes, rank then suit, aligned as one 16-bit word so a card is
/// copied with one load and one store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(C, align(2))]
pub struct Card {
    /// The rank.
    pub rank: Rank,
    /// The suit.
    pub suit: Suit,
}

impl Card {
    /// A card of this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// Blackjack value of the card (ace 1, faces 10).
    pub fn value(self) -> u8 {
        self.rank.value()
    }

    /// A compact index 0..52 (rank-major), for tables and bit sets.
    pub fn index(self) -> usize {
        usize::from(self.rank as u8 - 1) * 4 + self.suit as usize
    }

    /// The card at a compact index 0..52.
    pub fn from_index(i: usize) -> Option<Card> {
        let rank = Rank::from_number(u8::try_from(i / 4 + 1).ok()?)?;
        Some(Card::new(rank, Suit::ALL[i % 4]))
    }

    /// The card with its suit symbol, e.g. `7♥`, `10♠`.
    pub fn pretty(self) -> String {
        let r = if self.rank == Rank::Ten {
            "10".to_string()
        } else {
            self.rank.symbol().to_string()
        };
        format!("{r}{}", self.suit.symbol())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.symbol(), self.suit.letter())
    }
}

/// Why a card's text form was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a card (write rank then suit, e.g. 7h, Ts, 10d, Qs)")]
pub struct ParseCardError {
    /// The text that was refused.
    pub text: String,
}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError {
            text: s.to_string(),
        };
        let t = s.trim();
        let mut chars: Vec<char> = t.chars().collect();
        let suit_char = chars.pop().ok_or_else(err)?;
        let suit = match suit_char.to_ascii_lowercase() {
            'c' | '♣' => Suit::Clubs,
            'd' | '♦' => Suit::Diamonds,
            'h' | '♥' => Suit::Hearts,
            's' | '♠' => Suit::Spades,
            _ => return Err(err()),
        };
        let rank_text: String = chars.into_iter().collect::<String>().to_ascii_uppercase();
        let rank = match rank_text.as_str() {
            "A" | "1" => Rank::Ace,
            "T" | "10" => Rank::Ten,
            "J" => Rank::Jack,
            "Q" => Rank::Queen,
            "K" => Rank::King,
            d if d.len() == 1 => {
                let n = d.parse::<u8>().map_err(|_| err())?;
                if !(2..=9).contains(&n) {
                    return Err(err());
                }
                Rank::from_number(n).ok_or_else(err)?
            }
            _ => return Err(err()),
        };
        Ok(Card::new(rank, suit))
    }
}

/// Parses a whitespace- or comma-separated list of cards, e.g. `7h 7h Ks`.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, ParseCardError> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(str::parse)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_1_ten_and_faces_count_ten_ace_counts_one() {
        assert_eq!(Rank::Ace.value(), 1);
        for r in [Rank::Ten, Rank::Jack, Rank::Queen, Rank::King] {
            assert_eq!(r.value(), 10);
        }
        assert_eq!(Rank::Seven.value(), 7);
    }

    #[test]
    fn card_text_round_trips_for_all_52() {
        for i in 0..52 {
            let c = Card::from_index(i).unwrap();
            assert_eq!(c.index(), i);
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!(
            "10d".parse::<Card>().unwrap(),
            Card::new(Rank::Ten, Suit::Diamonds)
        );
        assert!("1x".parse::<Card>().is_err());
        assert!("".parse::<Card>().is_err());
        assert!("11h".parse::<Card>().is_err());
        assert_eq!(parse_cards("7h, 7h Ks").unwrap().len(), 3);
    }
}
