//! The basic-strategy hint at a decision, as `felt play`'s `hint` and the browser
//! table's give it: from the player's cards, the dealer's up card and the choices
//! offered only (never a hidden card), the computed [`BasicStrategy`]'s play and the
//! expected value of each choice per unit bet.

use crate::main_game::{Action, Allowed, BasicStrategy, Cell, HandKind};
use felt_core::round::Decisions;
use felt_core::rules::Peek;
use felt_core::{Card, Hand};

/// The hint at a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Hint {
    /// An insurance or even-money offer: basic strategy declines it.
    DeclineInsurance,
    /// A hand to play (or an early-surrender offer on it).
    Hand(HandHint),
}

/// The hint for a hand.
#[derive(Debug, Clone, PartialEq)]
pub struct HandHint {
    /// The strategy's row: hard, soft or a pair.
    pub kind: HandKind,
    /// The total (hard, soft) or the pair's card (1 = aces .. 10 = tens).
    pub total: u8,
    /// The dealer's up card's value (1 = ace .. 10).
    pub up: u8,
    /// The offer is early surrender (before the peek): surrender now, or play on.
    pub early: bool,
    /// The play among those offered (for an early-surrender offer: `Surrender`, or
    /// any other for "play the hand on").
    pub best: Action,
    /// The values are given the dealer has no blackjack (the dealer has peeked).
    pub given_no_blackjack: bool,
    /// Each choice offered with its expected value per unit bet, best first.
    pub values: Vec<(Action, f64)>,
}

/// Whether the dealer peeks for a natural under an up card of value `up` (1 = ace).
pub fn peeks_under(peek: Peek, up: u8) -> bool {
    match peek {
        Peek::TenAndAce => up == 1 || up == 10,
        Peek::AceOnly => up == 1,
        Peek::None => false,
    }
}

/// A cell's values, each action's on the basis asked: given no dealer blackjack
/// (under a card the dealer peeks under), or before the peek.
pub fn values(cell: &Cell, given: bool, early_surrender: bool) -> Vec<(Action, f64)> {
    let f = |v: f64| if given { cell.given_no_natural(v) } else { v };
    let mut v = vec![(Action::Stand, f(cell.stand)), (Action::Hit, f(cell.hit))];
    if let Some(d) = cell.double {
        v.push((Action::Double, f(d)));
    }
    if let Some(p) = cell.split {
        v.push((Action::Split, f(p)));
    }
    if let Some(r) = cell.surrender {
        // Early surrender is made before the peek: half the bet either way.
        v.push((Action::Surrender, if early_surrender { r } else { f(r) }));
    }
    v
}

/// The hint for a hand of `cards` against the up card `up` with the choices
/// `offered`, under a dealer who peeks as `peek` says; `None` when the strategy has
/// no cell for the hand (no cards, a total out of the chart).
pub fn hint(
    strategy: &BasicStrategy,
    peek: Peek,
    cards: &[Card],
    up: Card,
    offered: Decisions,
) -> Option<Hint> {
    if offered.contains(Decisions::INSURE) || offered.contains(Decisions::EVEN_MONEY) {
        return Some(Hint::DeclineInsurance);
    }
    if cards.is_empty() {
        return None;
    }
    let hand = Hand::from_cards(cards);
    let value = |c: &Card| c.value();
    let (kind, total) = match cards {
        [a, b] if value(a) == value(b) => (HandKind::Pair, value(a)),
        _ if hand.is_soft() => (HandKind::Soft, hand.total()),
        _ => (HandKind::Hard, hand.total()),
    };
    let up = value(&up);
    let cell = strategy.cell(kind, total, up).ok()?;
    let early = offered == Decisions::SURRENDER | Decisions::DECLINE;
    let allowed = Allowed {
        double: offered.contains(Decisions::DOUBLE),
        surrender: offered.contains(Decisions::SURRENDER),
        split: offered.contains(Decisions::SPLIT),
    };
    let given = !early && peeks_under(peek, up);
    let mut vals: Vec<(Action, f64)> = values(cell, given, early)
        .into_iter()
        .filter(|(a, _)| match a {
            Action::Double => allowed.double,
            Action::Surrender => allowed.surrender,
            Action::Split => allowed.split,
            Action::Hit | Action::Stand => true,
        })
        .collect();
    vals.sort_by(|a, b| b.1.total_cmp(&a.1));
    Some(Hint::Hand(HandHint {
        kind,
        total,
        up,
        early,
        best: cell.best(allowed),
        given_no_blackjack: given,
        values: vals,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peek_rule_decides_under_which_cards_values_are_given_no_blackjack() {
        assert!(peeks_under(Peek::TenAndAce, 10) && peeks_under(Peek::TenAndAce, 1));
        assert!(peeks_under(Peek::AceOnly, 1) && !peeks_under(Peek::AceOnly, 10));
        assert!(!peeks_under(Peek::None, 1));
    }
}
