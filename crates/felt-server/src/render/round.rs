//! The round as every seat sees it, in the protocol's numbering.

use super::{cards, CardText, SeatMap};
use felt_core::round::{SideBetView, SpotView, Turn};
use felt_core::{Money, Phase, View};
use serde::Serialize;

/// The round's public part: the same from every seat ([`felt_core::Round::view`]
/// never holds the hole card before it is turned).
#[derive(Debug, Clone, Serialize)]
pub struct RoundOut {
    /// The round's number at the table.
    pub number: u64,
    /// Its phase.
    pub phase: Phase,
    /// Whose turn.
    pub turn: TurnOut,
    /// Every spot in play.
    pub spots: Vec<SpotOut>,
    /// The dealer's cards.
    pub dealer: DealerOut,
    /// The shoe's counts.
    pub shoe: ShoeOut,
}

/// Whose turn: a hand, `"bets"`, `"dealer"`, or `null` when the round is done.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum TurnOut {
    /// A player's hand decides.
    Hand {
        /// The table's seat.
        seat: u8,
        /// The spot, from 1.
        spot: u8,
        /// The hand, from 1.
        hand: u8,
    },
    /// The bets, or the dealer.
    Word(&'static str),
    /// Nobody: the round is done.
    Done,
}

/// One betting spot.
#[derive(Debug, Clone, Serialize)]
pub struct SpotOut {
    /// The table's seat.
    pub seat: u8,
    /// The seat's spot, from 1.
    pub spot: u8,
    /// The main bet.
    pub main: Money,
    /// Its side bets.
    pub side_bets: Vec<SideBetOut>,
    /// Its insurance.
    pub insurance: Money,
    /// Its hands (more than one after a split).
    pub hands: Vec<HandOut>,
}

/// A side bet on a spot.
#[derive(Debug, Clone, Serialize)]
pub struct SideBetOut {
    /// The side bet's id.
    pub id: String,
    /// Its stake.
    pub amount: Money,
    /// Not yet settled.
    pub open: bool,
}

/// One hand of a spot.
#[derive(Debug, Clone, Serialize)]
pub struct HandOut {
    /// From 1.
    pub hand: u8,
    /// Its cards.
    pub cards: Vec<CardText>,
    /// Its total.
    pub total: u8,
    /// Soft.
    pub soft: bool,
    /// Its stake.
    pub stake: Money,
    /// Playing, stood, busted, ...
    pub status: &'static str,
    /// Settled.
    pub settled: bool,
}

/// The dealer's side.
#[derive(Debug, Clone, Serialize)]
pub struct DealerOut {
    /// The cards shown.
    pub cards: Vec<CardText>,
    /// `none`, `face-down` or `turned`.
    pub hole: &'static str,
    /// The total of the cards shown.
    pub total: u8,
}

/// The shoe's counts.
#[derive(Debug, Clone, Serialize)]
pub struct ShoeOut {
    /// Cards left to deal.
    pub remaining: usize,
    /// Cards in the discard rack.
    pub discards: usize,
    /// The cut card is out: a shuffle after this round.
    pub cut_card_out: bool,
}

impl TurnOut {
    /// Whose turn, in the protocol's numbering.
    pub fn of(t: Turn, seats: &SeatMap) -> TurnOut {
        match t {
            Turn::Seat { seat, spot, hand } => TurnOut::Hand {
                seat: seats.table_seat(seat),
                spot: spot.saturating_add(1),
                hand: hand.saturating_add(1),
            },
            Turn::Bets => TurnOut::Word("bets"),
            Turn::Chance => TurnOut::Word("dealer"),
            Turn::Done => TurnOut::Done,
        }
    }
}

impl RoundOut {
    /// The round of `v` (any seat's view: its public part is the same from every
    /// seat) in the protocol's numbering.
    pub fn of(v: &View, seats: &SeatMap) -> RoundOut {
        let hole = if v.dealer.hole.is_some() {
            "turned"
        } else if v.dealer.hole_face_down {
            "face-down"
        } else {
            "none"
        };
        RoundOut {
            number: v.round,
            phase: v.phase,
            turn: TurnOut::of(v.turn, seats),
            spots: v.spots.iter().map(|s| spot(s, seats)).collect(),
            dealer: DealerOut {
                cards: cards(&v.dealer.cards),
                hole,
                total: v.dealer.total,
            },
            shoe: ShoeOut {
                remaining: v.shoe.remaining,
                discards: v.shoe.discards,
                cut_card_out: v.shoe.cut_card_out,
            },
        }
    }
}

fn spot(s: &SpotView, seats: &SeatMap) -> SpotOut {
    SpotOut {
        seat: seats.table_seat(s.seat),
        spot: s.spot.saturating_add(1),
        main: s.main,
        side_bets: s.side_bets.iter().map(side_bet).collect(),
        insurance: s.insurance,
        hands: s
            .hands
            .iter()
            .enumerate()
            .map(|(i, h)| HandOut {
                hand: (i + 1) as u8,
                cards: cards(&h.cards),
                total: h.total,
                soft: h.soft,
                stake: h.stake,
                status: h.status,
                settled: h.settled,
            })
            .collect(),
    }
}

fn side_bet(b: &SideBetView) -> SideBetOut {
    SideBetOut {
        id: b.id.as_str().to_string(),
        amount: b.amount,
        open: b.open,
    }
}
