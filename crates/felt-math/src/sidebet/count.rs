//! The exact enumeration: counts of ordered deals of distinct physical cards, by
//! card classes with multiplicities (see the module documentation of
//! [`crate::sidebet`] for what is counted).
//!
//! Every enumerator walks card *classes* (or coarser categories of classes that no
//! hand of the kind tells apart) in nested loops; each loop takes one card of the
//! class it visits and lowers that class's remaining count, so the product of the
//! counts met on the way is the number of ordered sequences of distinct physical
//! cards with that class sequence. The hand a class sequence makes is decided by
//! [`classify`] on a representative card of each class, first matching active
//! line first.

use super::shoe::ShoeCounts;
use super::SideBetError;
use felt_core::card::{Card, Rank, Suit};
use felt_core::rules::{Peek, Rules, SideBetRules, ThirdCard};
use felt_core::sidebet::{classify, HandContext, HandName, SideBetKind};

/// The number of deals of one active pay line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCount {
    /// The line's position in [`SideBetRules::pays`].
    pub pay_index: usize,
    /// The hand the line pays.
    pub hand: HandName,
    /// Ordered deals paid by this line (it is the first active line they match).
    pub count: u128,
}

/// Exact counts of ordered deals for one side bet and one shoe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealCounts {
    /// How many cards an ordered deal holds (3, 4 or 5; see the module docs).
    pub cards: u8,
    /// Every ordered deal of `cards` distinct physical cards from the shoe.
    pub total: u128,
    /// One entry per active line, in pay-table order.
    pub lines: Vec<LineCount>,
    /// Deals that match no active line: the bet loses.
    pub loses: u128,
}

/// The ordered deals a side bet's kind counts (see the module docs).
pub fn deal_length(bet: &SideBetRules) -> u8 {
    match bet.kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => 3,
        SideBetKind::LuckyLadies => 4,
        SideBetKind::Sevens => 5,
    }
}

/// Counts, exactly, the ordered deals from `shoe` won by each active line of `bet`
/// (the first matching line in [`SideBetRules::active_lines`]) and those that lose.
///
/// `rules` supplies the dealer's peek (which decides, for a 7s bet, whether a
/// dealer natural is known before the third card). Every hand named by an active
/// line must belong to the bet's kind.
pub fn count_deals(
    rules: &Rules,
    bet: &SideBetRules,
    shoe: &ShoeCounts,
) -> Result<DealCounts, SideBetError> {
    check_kinds(bet)?;
    let active: Vec<(usize, HandName)> = bet.active_lines().map(|(i, l)| (i, l.hand)).collect();
    let hands: Vec<HandName> = active.iter().map(|&(_, h)| h).collect();
    let cards = deal_length(bet);
    let out = match bet.kind {
        SideBetKind::LuckyLucky | SideBetKind::ThreeCardPoker => three_card(&hands, shoe),
        SideBetKind::LuckyLadies => lucky_ladies(&hands, shoe),
        SideBetKind::Sevens => sevens(&hands, shoe, rules.dealer().peek, bet),
    };
    let total = falling(u128::from(shoe.total()), cards);
    let lines = active
        .iter()
        .zip(&out)
        .map(|(&(pay_index, hand), &count)| LineCount {
            pay_index,
            hand,
            count,
        })
        .collect();
    Ok(DealCounts {
        cards,
        total,
        lines,
        loses: out[hands.len()],
    })
}

/// Refuses a pay line naming a hand of another kind (the enumerators rely on it).
pub(super) fn check_kinds(bet: &SideBetRules) -> Result<(), SideBetError> {
    for (i, line) in bet.active_lines() {
        if line.hand.kind() != bet.kind {
            return Err(SideBetError::HandOfOtherKind {
                bet: bet.id.clone(),
                line: i,
                hand: line.hand.describe().to_string(),
            });
        }
    }
    Ok(())
}

/// `n (n-1) ... (n-k+1)`: ordered choices of `k` distinct cards out of `n`.
pub(super) fn falling(n: u128, k: u8) -> u128 {
    (0..u128::from(k)).fold(1, |acc, i| acc * n.saturating_sub(i))
}

/// The position of the first hand the context makes, or `hands.len()` (loses).
fn first_match(hands: &[HandName], ctx: &HandContext) -> usize {
    hands
        .iter()
        .position(|&h| classify(h, ctx))
        .unwrap_or(hands.len())
}

fn card(i: usize) -> Card {
    // Indices are always 0..52 here.
    Card::from_index(i).unwrap_or(Card::new(Rank::Two, Suit::Clubs))
}

fn counts128(shoe: &ShoeCounts) -> [u128; 52] {
    shoe.counts().map(u128::from)
}

/// Lucky Lucky and three-card poker: ordered (player 1, player 2, up card).
///
/// The hands of these kinds read ranks and whether suits are equal, never which
/// suit: the hand of every class triple is looked up in a table of 13^3 rank
/// triples by 5 suit patterns (all equal; 1=2; 1=3; 2=3; all different),
/// classified once on canonical suits.
fn three_card(hands: &[HandName], shoe: &ShoeCounts) -> Vec<u128> {
    const C: Suit = Suit::Clubs;
    const D: Suit = Suit::Diamonds;
    const H: Suit = Suit::Hearts;
    const PATTERN_SUITS: [[Suit; 3]; 5] = [[C, C, C], [C, C, D], [C, D, C], [D, C, C], [C, D, H]];
    let mut table = vec![0u16; 13 * 13 * 13 * 5];
    for (r1, &rank1) in Rank::ALL.iter().enumerate() {
        for (r2, &rank2) in Rank::ALL.iter().enumerate() {
            for (r3, &rank3) in Rank::ALL.iter().enumerate() {
                for (p, s) in PATTERN_SUITS.iter().enumerate() {
                    let ctx = HandContext {
                        first_two: [Card::new(rank1, s[0]), Card::new(rank2, s[1])],
                        third: None,
                        up: Card::new(rank3, s[2]),
                        dealer_natural: false,
                    };
                    table[((r1 * 13 + r2) * 13 + r3) * 5 + p] =
                        u16::try_from(first_match(hands, &ctx)).unwrap_or(u16::MAX);
                }
            }
        }
    }
    // The suit pattern of three suits.
    let mut pattern = [[[0usize; 4]; 4]; 4];
    for (a, pa) in pattern.iter_mut().enumerate() {
        for (b, pb) in pa.iter_mut().enumerate() {
            for (c, pc) in pb.iter_mut().enumerate() {
                *pc = match (a == b, a == c, b == c) {
                    (true, true, _) => 0,
                    (true, false, _) => 1,
                    (false, true, _) => 2,
                    (false, false, true) => 3,
                    (false, false, false) => 4,
                };
            }
        }
    }
    let mut out = vec![0u128; hands.len() + 1];
    let mut n = counts128(shoe);
    for i in 0..52 {
        let wi = n[i];
        if wi == 0 {
            continue;
        }
        n[i] -= 1;
        for j in 0..52 {
            let wj = n[j];
            if wj == 0 {
                continue;
            }
            n[j] -= 1;
            let wij = wi * wj;
            let base = (i / 4 * 13 + j / 4) * 13;
            for (k, &wk) in n.iter().enumerate() {
                if wk == 0 {
                    continue;
                }
                let line = table[(base + k / 4) * 5 + pattern[i % 4][j % 4][k % 4]];
                out[usize::from(line).min(hands.len())] += wij * wk;
            }
            n[j] += 1;
        }
        n[i] += 1;
    }
    out
}

fn is_ace(i: usize) -> bool {
    i < 4
}

fn is_ten(i: usize) -> bool {
    i >= 36
}

/// Lucky Ladies: ordered (player 1, player 2, dealer hole, dealer up).
///
/// The hands read the player's two cards and whether the dealer holds a natural;
/// for each class pair the ordered (hole, up) pairs left in the shoe are split
/// into naturals (`2 * aces * tens`) and the rest.
fn lucky_ladies(hands: &[HandName], shoe: &ShoeCounts) -> Vec<u128> {
    let mut out = vec![0u128; hands.len() + 1];
    let mut n = counts128(shoe);
    let total = u128::from(shoe.total());
    if total < 4 {
        return out;
    }
    let aces: u128 = n[..4].iter().sum();
    let tens: u128 = n[36..].iter().sum();
    let rest = total - 2;
    let pairs = rest * (rest - 1);
    let natural_up = Card::new(Rank::Ace, Suit::Spades);
    let other_up = Card::new(Rank::Two, Suit::Clubs);
    for i in 0..52 {
        let wi = n[i];
        if wi == 0 {
            continue;
        }
        n[i] -= 1;
        for (j, &wj) in n.iter().enumerate() {
            if wj == 0 {
                continue;
            }
            let w = wi * wj;
            let a = aces - u128::from(is_ace(i)) - u128::from(is_ace(j));
            let t = tens - u128::from(is_ten(i)) - u128::from(is_ten(j));
            let naturals = 2 * a * t;
            let first_two = [card(i), card(j)];
            let with = first_match(
                hands,
                &HandContext {
                    first_two,
                    third: None,
                    up: natural_up,
                    dealer_natural: true,
                },
            );
            let without = first_match(
                hands,
                &HandContext {
                    first_two,
                    third: None,
                    up: other_up,
                    dealer_natural: false,
                },
            );
            out[with] += w * naturals;
            out[without] += w * (pairs - naturals);
        }
        n[i] += 1;
    }
    out
}

/// 7s bets: ordered (player 1, player 2, dealer hole, dealer up, next card).
///
/// The hands read which cards are 7s and the suits of the 7s, so a card is one of
/// the four 7s or "not a 7"; the dealer's cards are further split into ace,
/// ten-value and other, which decide a natural.
fn sevens(hands: &[HandName], shoe: &ShoeCounts, peek: Peek, bet: &SideBetRules) -> Vec<u128> {
    const ACE: usize = 4;
    const TEN: usize = 5;
    const OTHER: usize = 6;
    let mut out = vec![0u128; hands.len() + 1];
    let total = u128::from(shoe.total());
    if total < 5 {
        return out;
    }
    let all = counts128(shoe);
    let seven = |s: usize| Card::new(Rank::Seven, Suit::ALL[s]).index();
    // Categories 0..4: the 7 of each suit; 4: not a 7 (for the player's cards
    // and the third card).
    let mut sevens_left: [u128; 4] = [0; 4];
    for (s, n) in sevens_left.iter_mut().enumerate() {
        *n = all[seven(s)];
    }
    let aces: u128 = all[..4].iter().sum();
    let tens: u128 = all[36..].iter().sum();
    let rep = |cat: usize| match cat {
        0..=3 => Card::new(Rank::Seven, Suit::ALL[cat]),
        ACE => Card::new(Rank::Ace, Suit::Spades),
        TEN => Card::new(Rank::King, Suit::Spades),
        _ => Card::new(Rank::Two, Suit::Clubs),
    };
    let third_source = bet.third_card_source();
    let free3 = falling(total - 2, 3);
    let mut n5 = [0u128; 5];
    n5[..4].copy_from_slice(&sevens_left);
    n5[4] = total - sevens_left.iter().sum::<u128>();
    for a in 0..5 {
        let wa = n5[a];
        if wa == 0 {
            continue;
        }
        n5[a] -= 1;
        for b in 0..5 {
            let wb = n5[b];
            if wb == 0 {
                continue;
            }
            let wab = wa * wb;
            let first_two = [rep(a), rep(b)];
            if a == 4 || b == 4 {
                // Not two 7s: no hand of the kind reads a third card.
                let ctx = HandContext {
                    first_two,
                    third: None,
                    up: rep(OTHER),
                    dealer_natural: false,
                };
                out[first_match(hands, &ctx)] += wab * free3;
                continue;
            }
            n5[b] -= 1;
            // Two 7s: the dealer's hole and up card, by category.
            let mut n7 = [0u128; 7];
            n7[..4].copy_from_slice(&n5[..4]);
            n7[ACE] = aces;
            n7[TEN] = tens;
            n7[OTHER] = total - 2 - n5[..4].iter().sum::<u128>() - aces - tens;
            for h in 0..7 {
                let wh = n7[h];
                if wh == 0 {
                    continue;
                }
                n7[h] -= 1;
                for u in 0..7 {
                    let wu = n7[u];
                    if wu == 0 {
                        continue;
                    }
                    let w = wab * wh * wu;
                    let natural = (h == ACE && u == TEN) || (h == TEN && u == ACE);
                    let known = natural
                        && match peek {
                            Peek::TenAndAce => true,
                            Peek::AceOnly => u == ACE,
                            Peek::None => false,
                        };
                    let ctx = |third| HandContext {
                        first_two,
                        third,
                        up: rep(u),
                        dealer_natural: natural,
                    };
                    let left = total - 4;
                    match third_source {
                        ThirdCard::UpCard => {
                            out[first_match(hands, &ctx(Some(rep(u))))] += w * left;
                        }
                        ThirdCard::NextCard if known && !bet.third_card_on_dealer_natural => {
                            out[first_match(hands, &ctx(None))] += w * left;
                        }
                        ThirdCard::NextCard => {
                            n7[u] -= 1;
                            let sevens_now: u128 = n7[..4].iter().sum();
                            for t in 0..5 {
                                let wt = if t < 4 { n7[t] } else { left - sevens_now };
                                if wt == 0 {
                                    continue;
                                }
                                out[first_match(hands, &ctx(Some(rep(t))))] += w * wt;
                            }
                            n7[u] += 1;
                        }
                    }
                }
                n7[h] += 1;
            }
            n5[b] += 1;
        }
        n5[a] += 1;
    }
    out
}
