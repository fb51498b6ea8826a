//! The hand vocabulary of the side bets and the test of whether cards make a hand.

use super::SideBetKind;
use crate::card::{Card, Rank, Suit};
use serde::{Deserialize, Serialize};

/// A hand a pay-table line can name. Each belongs to one [`SideBetKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HandName {
    // Lucky Lucky (LL-2).
    /// Three suited 7s.
    #[serde(rename = "suited-777")]
    Suited777,
    /// Suited 6-7-8.
    #[serde(rename = "suited-678")]
    Suited678,
    /// Three 7s.
    #[serde(rename = "777")]
    Any777,
    /// 6-7-8 in any suits.
    #[serde(rename = "678")]
    Any678,
    /// Three suited cards totalling 21.
    #[serde(rename = "suited-21")]
    Suited21,
    /// A three-card total of 21.
    #[serde(rename = "21")]
    Total21,
    /// A three-card total of 20.
    #[serde(rename = "20")]
    Total20,
    /// A three-card total of 19.
    #[serde(rename = "19")]
    Total19,
    // Three-card poker (BB-1).
    /// Three of a kind, all one suit.
    #[serde(rename = "suited-three-of-a-kind")]
    SuitedThreeOfAKind,
    /// Straight flush (A-2-3 and Q-K-A count).
    #[serde(rename = "straight-flush")]
    StraightFlush,
    /// Three of a kind.
    #[serde(rename = "three-of-a-kind")]
    ThreeOfAKind,
    /// Straight (A-2-3 and Q-K-A count).
    #[serde(rename = "straight")]
    Straight,
    /// Flush.
    #[serde(rename = "flush")]
    Flush,
    // Lucky Ladies (LA-2).
    /// Two queens of hearts, and the dealer has a natural.
    #[serde(rename = "queen-hearts-pair-dealer-blackjack")]
    QueenHeartsPairDealerBlackjack,
    /// Two queens of hearts.
    #[serde(rename = "queen-hearts-pair")]
    QueenHeartsPair,
    /// A 20 of two cards of the same rank and suit.
    #[serde(rename = "matched-20")]
    Matched20,
    /// A 20 of two suited cards.
    #[serde(rename = "suited-20")]
    Suited20,
    /// Any two-card 20.
    #[serde(rename = "any-20")]
    Any20,
    // Sevens (L7-2, BB-2, B7-2).
    /// The first card is a 7.
    #[serde(rename = "first-card-seven")]
    FirstCardSeven,
    /// At least one 7 among the first two cards (Blazing 7s).
    #[serde(rename = "one-seven")]
    OneSeven,
    /// The first two cards are 7s of one suit.
    #[serde(rename = "two-sevens-suited")]
    TwoSevensSuited,
    /// The first two cards are 7s.
    #[serde(rename = "two-sevens")]
    TwoSevens,
    /// The first three cards are 7s of diamonds.
    #[serde(rename = "three-sevens-diamonds")]
    ThreeSevensDiamonds,
    /// The first three cards are 7s of one suit.
    #[serde(rename = "three-sevens-suited")]
    ThreeSevensSuited,
    /// The first three cards are 7s of one colour.
    #[serde(rename = "three-sevens-same-colour")]
    ThreeSevensSameColour,
    /// The first three cards are 7s.
    #[serde(rename = "three-sevens")]
    ThreeSevens,
}

impl HandName {
    /// The side-bet kind whose pay table may name this hand.
    pub fn kind(self) -> SideBetKind {
        use HandName::*;
        match self {
            Suited777 | Suited678 | Any777 | Any678 | Suited21 | Total21 | Total20 | Total19 => {
                SideBetKind::LuckyLucky
            }
            SuitedThreeOfAKind | StraightFlush | ThreeOfAKind | Straight | Flush => {
                SideBetKind::ThreeCardPoker
            }
            QueenHeartsPairDealerBlackjack | QueenHeartsPair | Matched20 | Suited20 | Any20 => {
                SideBetKind::LuckyLadies
            }
            FirstCardSeven
            | OneSeven
            | TwoSevensSuited
            | TwoSevens
            | ThreeSevensDiamonds
            | ThreeSevensSuited
            | ThreeSevensSameColour
            | ThreeSevens => SideBetKind::Sevens,
        }
    }

    /// Plain-language name for rules cards and settlement lines.
    pub fn describe(self) -> &'static str {
        use HandName::*;
        match self {
            Suited777 => "suited 7-7-7",
            Suited678 => "suited 6-7-8",
            Any777 => "7-7-7",
            Any678 => "6-7-8",
            Suited21 => "suited 21",
            Total21 => "21",
            Total20 => "20",
            Total19 => "19",
            SuitedThreeOfAKind => "suited three of a kind",
            StraightFlush => "straight flush",
            ThreeOfAKind => "three of a kind",
            Straight => "straight",
            Flush => "flush",
            QueenHeartsPairDealerBlackjack => "queen of hearts pair with dealer blackjack",
            QueenHeartsPair => "queen of hearts pair",
            Matched20 => "matched 20 (same rank and suit)",
            Suited20 => "suited 20",
            Any20 => "any 20",
            FirstCardSeven => "first card a 7",
            OneSeven => "one 7 in the first two cards",
            TwoSevensSuited => "first two cards suited 7s",
            TwoSevens => "first two cards 7s",
            ThreeSevensDiamonds => "first three cards 7s of diamonds",
            ThreeSevensSuited => "first three cards 7s of one suit",
            ThreeSevensSameColour => "first three cards 7s of one colour",
            ThreeSevens => "first three cards 7s",
        }
    }

    /// The smallest number of decks in which the hand can occur (suited 7-7-7 needs 3).
    pub fn min_decks(self) -> u8 {
        use HandName::*;
        match self {
            Suited777 | SuitedThreeOfAKind | ThreeSevensDiamonds | ThreeSevensSuited => 3,
            QueenHeartsPairDealerBlackjack | QueenHeartsPair | Matched20 | TwoSevensSuited => 2,
            _ => 1,
        }
    }

    /// Whether the hand needs the third card of a 7s bet.
    pub fn needs_third_card(self) -> bool {
        matches!(
            self,
            HandName::ThreeSevensDiamonds
                | HandName::ThreeSevensSuited
                | HandName::ThreeSevensSameColour
                | HandName::ThreeSevens
        )
    }

    /// Whether the hand needs to know the dealer has a natural.
    pub fn needs_dealer_natural(self) -> bool {
        matches!(self, HandName::QueenHeartsPairDealerBlackjack)
    }
}

/// The cards a side bet reads. Which fields matter depends on the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandContext {
    /// The spot's first two cards.
    pub first_two: [Card; 2],
    /// The third card of a 7s bet, if one is dealt (or the up card under B7-5).
    pub third: Option<Card>,
    /// The dealer's up card.
    pub up: Card,
    /// Whether the dealer holds a natural (only read by the Lucky Ladies top line).
    pub dealer_natural: bool,
}

fn best_total(cards: &[Card]) -> u8 {
    let hard: u8 = cards.iter().map(|c| c.value()).sum();
    if cards.iter().any(|c| c.rank == Rank::Ace) && hard + 10 <= 21 {
        hard + 10
    } else {
        hard
    }
}

fn all_same_suit(cards: &[Card]) -> bool {
    cards.windows(2).all(|w| w[0].suit == w[1].suit)
}

fn sorted_values(cards: [Card; 3]) -> [u8; 3] {
    let mut v = cards.map(|c| c.value());
    v.sort_unstable();
    v
}

fn is_straight(cards: [Card; 3]) -> bool {
    // Ranks, ace low (1) and also high (14).
    let mut r = cards.map(|c| c.rank.number());
    r.sort_unstable();
    let run = |a: [u8; 3]| a[1] == a[0] + 1 && a[2] == a[1] + 1;
    if run(r) {
        return true;
    }
    if r[0] == 1 {
        let mut h = [r[1], r[2], 14];
        h.sort_unstable();
        return run(h);
    }
    false
}

fn is_trips(cards: [Card; 3]) -> bool {
    cards[0].rank == cards[1].rank && cards[1].rank == cards[2].rank
}

fn is_seven(c: Card) -> bool {
    c.rank == Rank::Seven
}

/// Whether the cards make `hand` (the hand's own test; pay-table order picks the winner).
pub fn classify(hand: HandName, ctx: &HandContext) -> bool {
    use HandName::*;
    let [a, b] = ctx.first_two;
    let three = [a, b, ctx.up];
    match hand {
        Suited777 => three.iter().all(|c| is_seven(*c)) && all_same_suit(&three),
        Suited678 => sorted_values(three) == [6, 7, 8] && all_same_suit(&three),
        Any777 => three.iter().all(|c| is_seven(*c)),
        Any678 => sorted_values(three) == [6, 7, 8],
        Suited21 => best_total(&three) == 21 && all_same_suit(&three),
        Total21 => best_total(&three) == 21,
        Total20 => best_total(&three) == 20,
        Total19 => best_total(&three) == 19,
        SuitedThreeOfAKind => is_trips(three) && all_same_suit(&three),
        StraightFlush => is_straight(three) && all_same_suit(&three),
        ThreeOfAKind => is_trips(three),
        Straight => is_straight(three),
        Flush => all_same_suit(&three),
        QueenHeartsPairDealerBlackjack => ctx.dealer_natural && classify(QueenHeartsPair, ctx),
        QueenHeartsPair => [a, b]
            .iter()
            .all(|c| c.rank == Rank::Queen && c.suit == Suit::Hearts),
        Matched20 => a == b && best_total(&[a, b]) == 20,
        Suited20 => a.suit == b.suit && best_total(&[a, b]) == 20,
        Any20 => best_total(&[a, b]) == 20,
        FirstCardSeven => is_seven(a),
        OneSeven => is_seven(a) || is_seven(b),
        TwoSevensSuited => is_seven(a) && is_seven(b) && a.suit == b.suit,
        TwoSevens => is_seven(a) && is_seven(b),
        ThreeSevensDiamonds => {
            three_sevens(ctx).is_some_and(|t| t.iter().all(|c| c.suit == Suit::Diamonds))
        }
        ThreeSevensSuited => three_sevens(ctx).is_some_and(|t| all_same_suit(&t)),
        ThreeSevensSameColour => three_sevens(ctx).is_some_and(|t| {
            let red = t[0].suit.is_red();
            t.iter().all(|c| c.suit.is_red() == red)
        }),
        ThreeSevens => three_sevens(ctx).is_some(),
    }
}

fn three_sevens(ctx: &HandContext) -> Option<[Card; 3]> {
    let [a, b] = ctx.first_two;
    let c = ctx.third?;
    [a, b, c].iter().all(|x| is_seven(*x)).then_some([a, b, c])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn ctx(cards: &str, third: Option<&str>, natural: bool) -> HandContext {
        let c = parse_cards(cards).unwrap();
        HandContext {
            first_two: [c[0], c[1]],
            up: c[2],
            third: third.map(|t| t.parse().unwrap()),
            dealer_natural: natural,
        }
    }

    #[test]
    fn ll_2_aces_count_one_or_eleven_in_three_card_totals() {
        assert!(classify(HandName::Total21, &ctx("Ah Ad 9s", None, false)));
        assert!(!classify(HandName::Total21, &ctx("Ah Ad As", None, false)));
        assert!(!classify(HandName::Total19, &ctx("Ah Ad As", None, false)));
        assert!(classify(HandName::Suited21, &ctx("7h 7h 7h", None, false)));
        assert!(classify(HandName::Suited678, &ctx("8c 6c 7c", None, false)));
        assert!(!classify(
            HandName::Suited678,
            &ctx("8c 6c 7d", None, false)
        ));
    }

    #[test]
    fn bb_1_ace_plays_high_or_low_in_straights() {
        assert!(classify(HandName::Straight, &ctx("Ah 2d 3s", None, false)));
        assert!(classify(HandName::Straight, &ctx("Qh Kd As", None, false)));
        assert!(!classify(HandName::Straight, &ctx("Kh Ad 2s", None, false)));
        assert!(classify(
            HandName::StraightFlush,
            &ctx("Qh Kh Ah", None, false)
        ));
        assert!(!classify(
            HandName::ThreeOfAKind,
            &ctx("Th Jh Qh", None, false)
        ));
    }

    #[test]
    fn la_1_lucky_ladies_reads_two_card_twenty() {
        assert!(classify(HandName::Any20, &ctx("Ah 9d 5s", None, false)));
        assert!(classify(HandName::Matched20, &ctx("Kh Kh 5s", None, false)));
        assert!(!classify(
            HandName::Matched20,
            &ctx("Kh Qh 5s", None, false)
        ));
        assert!(classify(
            HandName::QueenHeartsPair,
            &ctx("Qh Qh As", None, false)
        ));
        assert!(!classify(
            HandName::QueenHeartsPairDealerBlackjack,
            &ctx("Qh Qh As", None, false)
        ));
        assert!(classify(
            HandName::QueenHeartsPairDealerBlackjack,
            &ctx("Qh Qh As", None, true)
        ));
    }

    #[test]
    fn sevens_hands_read_first_cards_in_order() {
        let c = ctx("7h 7h Ks", Some("7h"), false);
        assert!(classify(HandName::ThreeSevensSuited, &c));
        let c = ctx("7h 7d Ks", Some("7h"), false);
        assert!(classify(HandName::ThreeSevensSameColour, &c));
        assert!(!classify(HandName::ThreeSevensSuited, &c));
        let c = ctx("7h 7d Ks", None, false);
        assert!(!classify(HandName::ThreeSevens, &c));
        assert!(classify(HandName::TwoSevens, &c));
        let c = ctx("5h 7d Ks", None, false);
        assert!(classify(HandName::OneSeven, &c));
        assert!(!classify(HandName::FirstCardSeven, &c));
    }
}
