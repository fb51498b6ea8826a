//! A side bet's winning line for every hand it can read, worked out once per table.
//!
//! A side bet's result depends on a few cards only, and on few of their features:
//! three-card poker and Lucky Lucky read the ranks of the first two cards and the up
//! card and whether the three are suited; Lucky Ladies reads the first two cards and
//! the dealer's natural; a 7s bet reads which of its first three cards are 7s and
//! their suits. [`LineTable`] indexes every such combination and holds the first line
//! of the pay table that [`classify`] matches on it, so settling a bet is one read.

use super::{classify, HandContext, HandName, SideBetKind};
use crate::card::{Card, Rank, Suit};

/// No line matches (the bet loses).
const NONE: u8 = 0x7f;
/// Set on an entry where a line needing the dealer's natural matches (given one).
const NATURAL_LINE: u8 = 0x80;

/// Ranks and suitedness of three cards: 13^3 rank triples, suited or not.
const THREE_CARD_KEYS: usize = 13 * 13 * 13 * 2;
/// Two cards by [`Card::index`], with or without a dealer natural.
const TWO_CARD_KEYS: usize = 52 * 52 * 2;
/// A card of a 7s bet: a 7 of one of four suits, or another card (5 classes); the
/// third position also has "no card" (6).
const SEVENS_KEYS: usize = 5 * 5 * 6;

/// For each hand a side bet can read, the index of the first line it pays (see the
/// module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineTable {
    kind: SideBetKind,
    entries: Box<[u8]>,
}

impl LineTable {
    /// The table of a bet of `kind` whose pay table lists `lines`, best first (at most
    /// 127 lines: a pay table lists each [`HandName`] once, and there are fewer).
    pub fn new(kind: SideBetKind, lines: &[HandName]) -> LineTable {
        let keys = match kind {
            SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => THREE_CARD_KEYS,
            SideBetKind::LuckyLadies => TWO_CARD_KEYS,
            SideBetKind::Sevens => SEVENS_KEYS,
        };
        let entries = (0..keys)
            .map(|key| entry(lines, &representative(kind, key)))
            .collect();
        LineTable { kind, entries }
    }

    /// The index in the pay table of the first line the hand `ctx` makes; `None` if
    /// none does.
    #[inline]
    pub fn line(&self, ctx: &HandContext) -> Option<usize> {
        let e = self.entry(ctx) & !NATURAL_LINE;
        (e != NONE).then_some(usize::from(e))
    }

    /// Whether a line that needs the dealer's natural matches `ctx` (whose
    /// `dealer_natural` is then true).
    #[inline]
    pub fn natural_line(&self, ctx: &HandContext) -> bool {
        self.entry(ctx) & NATURAL_LINE != 0
    }

    #[inline]
    fn entry(&self, ctx: &HandContext) -> u8 {
        self.entries
            .get(key(self.kind, ctx))
            .copied()
            .unwrap_or(NONE)
    }
}

/// The entry for the hand `ctx`: its first matching line, and the natural flag.
fn entry(lines: &[HandName], ctx: &HandContext) -> u8 {
    let first = lines
        .iter()
        .position(|&h| classify(h, ctx))
        .and_then(|i| u8::try_from(i).ok())
        .filter(|&i| i < NONE)
        .unwrap_or(NONE);
    let natural = lines
        .iter()
        .any(|&h| h.needs_dealer_natural() && classify(h, ctx));
    first | if natural { NATURAL_LINE } else { 0 }
}

#[inline]
fn rank_index(c: Card) -> usize {
    usize::from(c.rank as u8 - 1)
}

#[inline]
fn seven_class(c: Card) -> usize {
    if c.rank == Rank::Seven {
        c.suit as usize
    } else {
        4
    }
}

/// The key of the hand `ctx` for a bet of `kind`.
#[inline]
fn key(kind: SideBetKind, ctx: &HandContext) -> usize {
    let [a, b] = ctx.first_two;
    match kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => {
            let up = ctx.up;
            let suited = a.suit == b.suit && b.suit == up.suit;
            ((rank_index(a) * 13 + rank_index(b)) * 13 + rank_index(up)) * 2 + usize::from(suited)
        }
        SideBetKind::LuckyLadies => {
            (a.index() * 52 + b.index()) * 2 + usize::from(ctx.dealer_natural)
        }
        SideBetKind::Sevens => {
            let third = ctx.third.map_or(5, seven_class);
            (seven_class(a) * 5 + seven_class(b)) * 6 + third
        }
    }
}

/// A hand with the key `key` for a bet of `kind` (every hand with that key makes the
/// same lines).
fn representative(kind: SideBetKind, key: usize) -> HandContext {
    let card = |rank: usize, suit: usize| Card::new(Rank::ALL[rank % 13], Suit::ALL[suit % 4]);
    let other = Card::new(Rank::Two, Suit::Clubs);
    match kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => {
            let (ranks, suited) = (key / 2, key % 2 == 1);
            let (r1, r2, r3) = (ranks / 169, ranks / 13 % 13, ranks % 13);
            HandContext {
                first_two: [card(r1, 0), card(r2, usize::from(!suited))],
                third: None,
                up: card(r3, 0),
                dealer_natural: false,
            }
        }
        SideBetKind::LuckyLadies => {
            let (cards, natural) = (key / 2, key % 2 == 1);
            let from = |i: usize| Card::from_index(i).unwrap_or(other);
            HandContext {
                first_two: [from(cards / 52), from(cards % 52)],
                third: None,
                up: other,
                dealer_natural: natural,
            }
        }
        SideBetKind::Sevens => {
            let of = |class: usize| {
                if class < 4 {
                    card(6, class)
                } else {
                    other
                }
            };
            HandContext {
                first_two: [of(key / 30), of(key / 6 % 5)],
                third: (key % 6 < 5).then(|| of(key % 6)),
                up: other,
                dealer_natural: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;
    use HandName::*;

    /// Every hand of each kind, in two orders (the first match depends on the order).
    fn pay_tables() -> Vec<(SideBetKind, Vec<HandName>)> {
        let all = [
            Suited777,
            Suited678,
            Any777,
            Any678,
            Suited21,
            Total21,
            Total20,
            Total19,
            SuitedThreeOfAKind,
            StraightFlush,
            ThreeOfAKind,
            Straight,
            Flush,
            QueenHeartsPairDealerBlackjack,
            QueenHeartsPair,
            Matched20,
            Suited20,
            Any20,
            FirstCardSeven,
            OneSeven,
            TwoSevensSuited,
            TwoSevens,
            ThreeSevensDiamonds,
            ThreeSevensSuited,
            ThreeSevensSameColour,
            ThreeSevens,
        ];
        let kinds = [
            SideBetKind::LuckyLucky,
            SideBetKind::ThreeCardPoker,
            SideBetKind::LuckyLadies,
            SideBetKind::Sevens,
        ];
        let mut v = Vec::new();
        for kind in kinds {
            let lines: Vec<HandName> = all.iter().copied().filter(|h| h.kind() == kind).collect();
            let mut reversed = lines.clone();
            reversed.reverse();
            v.push((kind, lines));
            v.push((kind, reversed));
        }
        v
    }

    #[test]
    fn the_table_pays_the_first_line_classify_matches_on_every_hand() {
        let cards: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
        for (kind, lines) in pay_tables() {
            let t = LineTable::new(kind, &lines);
            let mut hands = 0u32;
            for &a in &cards {
                for &b in &cards {
                    for &x in &cards {
                        for third in [None, Some(x)] {
                            for natural in [false, true] {
                                let ctx = HandContext {
                                    first_two: [a, b],
                                    third,
                                    up: x,
                                    dealer_natural: natural,
                                };
                                let want = lines.iter().position(|&h| classify(h, &ctx));
                                assert_eq!(t.line(&ctx), want, "{kind:?} {lines:?} {ctx:?}");
                                let waits = lines
                                    .iter()
                                    .any(|&h| h.needs_dealer_natural() && classify(h, &ctx));
                                assert_eq!(t.natural_line(&ctx), waits, "{kind:?} {ctx:?}");
                                hands += 1;
                            }
                        }
                    }
                }
            }
            assert_eq!(hands, 52 * 52 * 52 * 4);
        }
    }

    #[test]
    fn an_empty_pay_table_never_pays() {
        let t = LineTable::new(SideBetKind::Sevens, &[]);
        let seven = Card::new(Rank::Seven, Suit::Hearts);
        let ctx = HandContext {
            first_two: [seven, seven],
            third: Some(seven),
            up: seven,
            dealer_natural: true,
        };
        assert_eq!(t.line(&ctx), None);
        assert!(!t.natural_line(&ctx));
    }
}
