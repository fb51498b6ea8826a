//! What a connection receives, rendered from the engine's view of one seat
//! ([`felt_core::Round::view`], which never holds the hole card before it is turned nor
//! an undealt card) and the public form of each event ([`felt_core::Event::public`]).
//!
//! The engine numbers the seats of a round 0.. in the order the players sit; the
//! protocol numbers the table's seats, spots and hands from 1. Everything here maps one
//! to the other.

mod event;
mod round;
mod settlement;

pub use event::EventOut;
pub use round::RoundOut;
pub use settlement::SettlementLine;

use felt_core::round::{AmountRange, Decisions, Legal};
use felt_core::{ActionError, Card, Money};
use serde::{Serialize, Serializer};

/// The table seat (1..) of each engine seat of a round.
#[derive(Debug, Clone, Default)]
pub struct SeatMap(pub Vec<u8>);

impl SeatMap {
    /// The table seat (1..) of engine seat `e`.
    pub fn table_seat(&self, e: u8) -> u8 {
        self.0.get(usize::from(e)).copied().unwrap_or(e + 1)
    }

    /// The engine seat of table seat `s` (1..), if it plays this round.
    pub fn engine_seat(&self, s: u8) -> Option<u8> {
        self.0.iter().position(|t| *t == s).map(|p| p as u8)
    }
}

/// An engine's refusal as a sentence in the protocol's numbering: the table's seat
/// numbers and spots from 1 (the engine counts both from 0).
pub fn refusal(e: &ActionError, seats: &SeatMap) -> String {
    let seat = |e: u8| seats.table_seat(e);
    match e {
        ActionError::NotYourTurn { turn, .. } => {
            format!("it is not your turn: seat {} decides now", seat(*turn))
        }
        ActionError::SideBetWithoutMainBet { spot, .. } => {
            format!("spot {} has no main bet: a side bet needs one", spot + 1)
        }
        ActionError::AlreadyBet { spot, .. } => {
            format!("spot {} already holds this bet", spot + 1)
        }
        ActionError::NoBetOnSpot { spot, .. } => format!("spot {} holds no bet", spot + 1),
        ActionError::UnknownSeat { .. } => "you have no seat in this round".to_string(),
        ActionError::UnknownSpot { spot, max } => {
            format!(
                "there is no spot {}: you play spots 1 to {}",
                spot + 1,
                max + 1
            )
        }
        other => other.to_string(),
    }
}

/// A card as the protocol writes it: `7h`, `Ts`, `Qs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardText(pub Card);

impl Serialize for CardText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// Cards as the protocol writes them.
fn cards(cs: &[Card]) -> Vec<CardText> {
    cs.iter().copied().map(CardText).collect()
}

/// A progressive meter as the protocol writes it.
#[derive(Debug, Clone, Serialize)]
pub struct MeterOut {
    /// The meter's id.
    pub id: String,
    /// Its value now.
    pub amount: Money,
    /// Its value after a full award.
    pub reset: Money,
    /// Seeds, contributions and awards only grow: their sum orders two readings of
    /// the meter (a client keeps the newer one, whichever way it arrived).
    pub version: i64,
}

impl From<&felt_store::MeterInfo> for MeterOut {
    fn from(m: &felt_store::MeterInfo) -> MeterOut {
        MeterOut {
            id: m.id.clone(),
            amount: m.amount,
            reset: m.reset,
            version: m.seeded.as_cents() + m.contributions.as_cents() + m.awards.as_cents(),
        }
    }
}

/// Each decision's word in the protocol.
pub const DECISION_WORDS: [(Decisions, &str); 8] = [
    (Decisions::HIT, "hit"),
    (Decisions::STAND, "stand"),
    (Decisions::DOUBLE, "double"),
    (Decisions::SPLIT, "split"),
    (Decisions::SURRENDER, "surrender"),
    (Decisions::INSURE, "insurance"),
    (Decisions::EVEN_MONEY, "even-money"),
    (Decisions::DECLINE, "decline"),
];

/// The amounts a double or insurance may take.
#[derive(Debug, Clone, Serialize)]
pub struct AmountsOut {
    /// The least.
    pub min: Money,
    /// The most.
    pub max: Money,
    /// In steps of.
    pub step: Money,
    /// The full amount (the bet doubled, half the bet insured).
    pub full: Money,
}

impl From<&AmountRange> for AmountsOut {
    fn from(r: &AmountRange) -> AmountsOut {
        AmountsOut {
            min: r.min,
            max: r.max,
            step: r.step,
            full: r.full,
        }
    }
}

/// One decision a player may take, with its amounts where it has them.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    /// Its word (`hit`, `double`, ...).
    pub decision: &'static str,
    /// The amounts of a double or insurance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<AmountsOut>,
}

/// The decisions of `legal` as words, with their amounts.
pub fn choices(legal: &Legal) -> Vec<Choice> {
    DECISION_WORDS
        .iter()
        .filter(|(bit, _)| legal.decisions.contains(*bit))
        .map(|&(_, word)| Choice {
            decision: word,
            amount: match word {
                "double" => legal.double.as_ref().map(AmountsOut::from),
                "insurance" => legal.insurance.as_ref().map(AmountsOut::from),
                _ => None,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_core::round::{Place, Target};
    use felt_core::Event;

    #[test]
    fn a_face_down_card_has_no_card_and_seats_take_the_tables_numbers() {
        let seats = SeatMap(vec![3, 6]);
        let hole = Event::Dealt {
            to: Target::Dealer,
            card: "Ah".parse().unwrap(),
            face_up: false,
            side_bet_only: false,
        };
        let v = serde_json::to_value(EventOut::of(&hole, &seats)).unwrap();
        assert!(!v.to_string().contains("Ah"), "{v}");
        assert!(v.get("card").is_none(), "{v}");
        let up = Event::Dealt {
            to: Target::Player(Place {
                seat: 1,
                spot: 0,
                hand: 0,
            }),
            card: "7h".parse().unwrap(),
            face_up: true,
            side_bet_only: false,
        };
        let v = serde_json::to_value(EventOut::of(&up, &seats)).unwrap();
        assert_eq!(v["card"], "7h");
        assert_eq!(
            (v["to"]["seat"].as_u64(), v["to"]["spot"].as_u64()),
            (Some(6), Some(1))
        );
    }
}
