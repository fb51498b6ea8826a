//! An event as a seat receives it: the engine's [`PublicEvent`] in the protocol's
//! numbering (the table's seats, spots and hands from 1) with its cards as text.

use super::{CardText, SeatMap};
use felt_core::round::{
    Account, BetKind, Decision, MeterWhy, Move, Place, Settlement, ShuffleWhy, Target,
};
use felt_core::{Event, MeterChange, PublicEvent};
use serde::Serialize;

/// One event of a step, as every seat sees it (a face-down card has no `card`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum EventOut {
    /// Betting opened.
    RoundStarted {
        /// The round's number at the table.
        round: u64,
    },
    /// The shoe was shuffled.
    Shuffled {
        /// Cards shuffled.
        cards: u16,
        /// Why.
        why: ShuffleWhy,
    },
    /// A card burned.
    Burned {
        /// The card, if burned face up.
        #[serde(skip_serializing_if = "Option::is_none")]
        card: Option<CardText>,
        /// Shown to the table.
        face_up: bool,
    },
    /// The cut card came out.
    CutCardOut {
        /// Cards dealt since the shuffle.
        position: u16,
    },
    /// No more bets.
    BetsClosed,
    /// A card dealt.
    Dealt {
        /// To whom.
        to: Target,
        /// The card, if dealt face up.
        #[serde(skip_serializing_if = "Option::is_none")]
        card: Option<CardText>,
        /// Face up.
        face_up: bool,
        /// For a side bet only (the third card of a 7s bet on a dealer natural).
        side_bet_only: bool,
    },
    /// The dealer checked the hole card.
    Peeked {
        /// The dealer has a natural.
        natural: bool,
    },
    /// The hole card turned.
    HoleCardTurned {
        /// The hole card.
        card: CardText,
        /// The dealer's total.
        total: u8,
    },
    /// A player's decision.
    Decided {
        /// The hand.
        at: Place,
        /// The decision.
        decision: Decision,
    },
    /// A decision timer ran out.
    TimedOut {
        /// The hand.
        at: Place,
    },
    /// A hand stood by itself.
    Stood {
        /// The hand.
        at: Place,
        /// Its total.
        total: u8,
    },
    /// The dealer's final total.
    DealerDone {
        /// The total.
        total: u8,
        /// Over 21.
        busted: bool,
    },
    /// Chips moved.
    Moved(Move),
    /// A wager settled.
    Settled(Settlement),
    /// A progressive meter changed.
    Meter {
        /// Before and after.
        change: MeterChange,
        /// Why.
        why: MeterWhy,
    },
    /// A payout rounded down to a cent.
    Rounding {
        /// The hand.
        at: Place,
        /// The wager.
        bet: BetKind,
        /// Numerator of the unpaid fraction of a cent.
        num: i64,
        /// Its denominator.
        den: u32,
    },
    /// The round could not be finished.
    Voided,
    /// The round is over.
    RoundEnded {
        /// The round's number.
        round: u64,
    },
}

impl EventOut {
    /// What a seat may see of `e` ([`Event::public`]), in the protocol's numbering.
    pub fn of(e: &Event, seats: &SeatMap) -> EventOut {
        EventOut::public(&e.public(), seats)
    }

    /// A public event in the protocol's numbering.
    pub fn public(e: &PublicEvent, seats: &SeatMap) -> EventOut {
        let n = Numbering(seats);
        match *e {
            PublicEvent::DealtFaceDown { to, side_bet_only } => EventOut::Dealt {
                to: n.target(to),
                card: None,
                face_up: false,
                side_bet_only,
            },
            PublicEvent::BurnedFaceDown => EventOut::Burned {
                card: None,
                face_up: false,
            },
            PublicEvent::Shown(e) => n.shown(e),
        }
    }
}

/// The engine's numbering (seats of the round from 0, spots and hands from 0) to the
/// protocol's (the table's seats, spots and hands from 1).
struct Numbering<'a>(&'a SeatMap);

impl Numbering<'_> {
    fn place(&self, p: Place) -> Place {
        Place {
            seat: self.0.table_seat(p.seat),
            spot: p.spot.saturating_add(1),
            hand: p.hand.saturating_add(1),
        }
    }

    fn target(&self, t: Target) -> Target {
        match t {
            Target::Player(p) => Target::Player(self.place(p)),
            Target::Dealer => Target::Dealer,
        }
    }

    fn account(&self, a: Account) -> Account {
        match a {
            Account::Seat { seat } => Account::Seat {
                seat: self.0.table_seat(seat),
            },
            other => other,
        }
    }

    fn shown(&self, e: Event) -> EventOut {
        match e {
            Event::RoundStarted { round } => EventOut::RoundStarted { round },
            Event::Shuffled { cards, why } => EventOut::Shuffled { cards, why },
            Event::Burned { card, face_up } => EventOut::Burned {
                card: Some(CardText(card)),
                face_up,
            },
            Event::CutCardOut { position } => EventOut::CutCardOut { position },
            Event::BetsClosed => EventOut::BetsClosed,
            Event::Dealt {
                to,
                card,
                face_up,
                side_bet_only,
            } => EventOut::Dealt {
                to: self.target(to),
                card: Some(CardText(card)),
                face_up,
                side_bet_only,
            },
            Event::Peeked { natural } => EventOut::Peeked { natural },
            Event::HoleCardTurned { card, total } => EventOut::HoleCardTurned {
                card: CardText(card),
                total,
            },
            Event::Decided { at, decision } => EventOut::Decided {
                at: self.place(at),
                decision,
            },
            Event::TimedOut { at } => EventOut::TimedOut { at: self.place(at) },
            Event::Stood { at, total } => EventOut::Stood {
                at: self.place(at),
                total,
            },
            Event::DealerDone { total, busted } => EventOut::DealerDone { total, busted },
            Event::Moved(m) => EventOut::Moved(Move {
                from: self.account(m.from),
                to: self.account(m.to),
                at: self.place(m.at),
                ..m
            }),
            Event::Settled(s) => EventOut::Settled(Settlement {
                at: self.place(s.at),
                ..s
            }),
            Event::Meter { change, why } => EventOut::Meter { change, why },
            Event::Rounding { at, bet, num, den } => EventOut::Rounding {
                at: self.place(at),
                bet,
                num,
                den,
            },
            Event::Voided => EventOut::Voided,
            Event::RoundEnded { round } => EventOut::RoundEnded { round },
        }
    }
}
