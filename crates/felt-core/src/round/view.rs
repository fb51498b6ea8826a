//! What one seat may see (C-11): never the hole card before it is turned, never an
//! undealt card.

use super::action::{Legal, Turn};
use super::{Phase, Round, SideState, Status};
use crate::card::Card;
use crate::id::ShortId;
use crate::money::Money;
use rand_core::{CryptoRng, RngCore};
use serde::Serialize;

/// A side bet on a spot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideBetView {
    /// The side bet's id.
    pub id: ShortId,
    /// The stake.
    pub amount: Money,
    /// Whether it is still on the felt (not yet settled).
    pub open: bool,
}

/// A hand on a spot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandView {
    /// The cards (all face up).
    pub cards: Vec<Card>,
    /// Best total.
    pub total: u8,
    /// Whether an ace counts 11.
    pub soft: bool,
    /// Stake, double included.
    pub stake: Money,
    /// `open`, `stood`, `busted`, `surrendered`, `natural`.
    pub status: &'static str,
    /// Whether the hand's stake is settled.
    pub settled: bool,
}

/// A betting spot with a bet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpotView {
    /// Seat.
    pub seat: u8,
    /// Spot.
    pub spot: u8,
    /// The main bet.
    pub main: Money,
    /// Side bets.
    pub side_bets: Vec<SideBetView>,
    /// Insurance on the felt.
    pub insurance: Money,
    /// The hands (after a split, several).
    pub hands: Vec<HandView>,
}

/// The dealer's cards as the table sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DealerView {
    /// The up card, once dealt.
    pub up: Option<Card>,
    /// The hole card, only once turned.
    pub hole: Option<Card>,
    /// Whether a hole card lies face down.
    pub hole_face_down: bool,
    /// Every face-up dealer card in order (the hole card first once turned).
    pub cards: Vec<Card>,
    /// The total of the face-up cards.
    pub total: u8,
}

/// The shoe as the table sees it: counts only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShoeView {
    /// Undealt cards.
    pub remaining: usize,
    /// Cards in the rack.
    pub discards: usize,
    /// Whether the cut card is out.
    pub cut_card_out: bool,
}

/// Everything one seat may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct View {
    /// The seat viewing.
    pub seat: u8,
    /// The round number.
    pub round: u64,
    /// The phase.
    pub phase: Phase,
    /// Whose turn.
    pub turn: Turn,
    /// The seat's balance.
    pub balance: Money,
    /// Every spot with a bet, from the dealer's left.
    pub spots: Vec<SpotView>,
    /// The dealer.
    pub dealer: DealerView,
    /// The shoe's counts.
    pub shoe: ShoeView,
    /// The seat's options, when it is the seat's turn.
    pub legal: Option<Legal>,
}

impl<R: RngCore + CryptoRng> Round<R> {
    /// What `seat` may see now (C-11).
    pub fn view(&self, seat: u8) -> View {
        let cfg = &self.table.cfg;
        let mh = self.mh();
        let mut spots = Vec::new();
        for (i, s) in self.spots.live().iter().enumerate() {
            if s.nhands == 0 {
                continue;
            }
            let p = self.place(i as u8, 0);
            let hands = self.hands.live()[i * mh..i * mh + usize::from(s.nhands)]
                .iter()
                .map(|h| HandView {
                    cards: h.hand.cards().to_vec(),
                    total: h.hand.total(),
                    soft: h.hand.is_soft(),
                    stake: h.total_stake(),
                    status: match h.status {
                        Status::Open => "open",
                        Status::Stood => "stood",
                        Status::Busted => "busted",
                        Status::Surrendered => "surrendered",
                        Status::Natural => "natural",
                    },
                    settled: h.settled,
                })
                .collect();
            let side_bets = cfg
                .sides
                .iter()
                .enumerate()
                .filter(|(k, _)| s.side[*k] > Money::ZERO)
                .map(|(k, b)| SideBetView {
                    id: b.id,
                    amount: s.side[k],
                    open: s.side_state[k] != SideState::Off,
                })
                .collect();
            spots.push(SpotView {
                seat: p.seat,
                spot: p.spot,
                main: self.hands[i * mh].stake,
                side_bets,
                insurance: s.insurance,
                hands,
            });
        }
        let dc = self.dealer.cards();
        let visible: Vec<Card> = if self.hole_turned {
            dc.to_vec()
        } else {
            dc.iter().skip(1).copied().collect()
        };
        let total = crate::hand::Hand::from_cards(&visible).total();
        let legal = self.legal_now();
        let mine = matches!(legal.turn, Turn::Seat { seat: s, .. } if s == seat)
            || legal.turn == Turn::Bets;
        View {
            seat,
            round: self.round_no,
            phase: self.phase(),
            turn: legal.turn,
            balance: self.balance(seat).unwrap_or(Money::ZERO),
            spots,
            dealer: DealerView {
                up: dc.get(1).copied(),
                hole: if self.hole_turned {
                    dc.first().copied()
                } else {
                    None
                },
                hole_face_down: !dc.is_empty() && !self.hole_turned,
                cards: visible,
                total,
            },
            shoe: ShoeView {
                remaining: self.shoe.remaining(),
                discards: self.shoe.discards(),
                cut_card_out: self.shoe.cut_card_out(),
            },
            legal: mine.then_some(legal),
        }
    }
}
