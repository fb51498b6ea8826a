//! What a connection receives, rendered from the engine's view of one seat
//! ([`felt_core::Round::view`], which never holds the hole card before it is turned nor
//! an undealt card) and the public form of each event ([`felt_core::Event::public`]).
//!
//! The engine numbers the seats of a round 0.. in the order the players sit; the
//! protocol numbers the table's seats, spots and hands from 1. Everything here maps one
//! to the other.

use felt_core::round::{AmountRange, Decisions, Legal, SpotView, Turn, View};
use felt_core::{ActionError, Card, Event, Money, Phase, PublicEvent};
use serde_json::{json, Map, Value};

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
pub fn card(c: Card) -> Value {
    Value::String(c.to_string())
}

/// An event as a seat may see it, in the protocol's numbering: cards as text, seats,
/// spots and hands from 1, the table's seat numbers.
pub fn event(e: &Event, seats: &SeatMap) -> Value {
    public_event(&e.public(), seats)
}

/// An event in the form a player may see (see [`Event::public`]), in the protocol's
/// numbering.
pub fn public_event(e: &PublicEvent, seats: &SeatMap) -> Value {
    let v = serde_json::to_value(e).unwrap_or(Value::Null);
    renumber(v, seats)
}

fn renumber(v: Value, seats: &SeatMap) -> Value {
    match v {
        Value::Object(m) => {
            if let Some(c) = as_card(&m) {
                return card(c);
            }
            let mut out = Map::new();
            for (k, v) in m {
                let v = match (k.as_str(), &v) {
                    ("seat", Value::Number(n)) => {
                        let e = n.as_u64().unwrap_or(0).min(255) as u8;
                        json!(seats.table_seat(e))
                    }
                    ("spot" | "hand", Value::Number(n)) => json!(n.as_u64().unwrap_or(0) + 1),
                    _ => renumber(v, seats),
                };
                out.insert(k, v);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(|v| renumber(v, seats)).collect()),
        other => other,
    }
}

/// A card as the engine serializes it (an object of its rank and suit).
fn as_card(m: &Map<String, Value>) -> Option<Card> {
    if m.len() == 2 && m.contains_key("rank") && m.contains_key("suit") {
        serde_json::from_value(Value::Object(m.clone())).ok()
    } else {
        None
    }
}

/// A progressive meter as the protocol writes it.
pub fn meter(m: &felt_store::MeterInfo) -> Value {
    // Seeds, contributions and awards only grow: their sum orders two readings of the
    // meter (a client keeps the newer one, whichever way it arrived).
    let version = m.seeded.as_cents() + m.contributions.as_cents() + m.awards.as_cents();
    json!({"id": m.id, "amount": m.amount, "reset": m.reset, "version": version})
}

/// The phase as the protocol writes it.
pub fn phase(p: Phase) -> &'static str {
    match p {
        Phase::Betting => "betting",
        Phase::Dealing => "dealing",
        Phase::EarlySurrender => "early-surrender",
        Phase::Insurance => "insurance",
        Phase::Peek => "peek",
        Phase::PlayerTurns => "player-turns",
        Phase::Dealer => "dealer",
        Phase::Settlement => "settlement",
        Phase::Done => "done",
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

/// The decisions of `legal` as words, with their amounts.
pub fn choices(legal: &Legal) -> Vec<Value> {
    let d = legal.decisions;
    let amounts =
        |r: &AmountRange| json!({ "min": r.min, "max": r.max, "step": r.step, "full": r.full });
    let mut out = Vec::new();
    for (bit, word) in DECISION_WORDS {
        if !d.contains(bit) {
            continue;
        }
        let mut c = json!({ "decision": word });
        match word {
            "double" => {
                if let Some(r) = &legal.double {
                    c["amount"] = amounts(r);
                }
            }
            "insurance" => {
                if let Some(r) = &legal.insurance {
                    c["amount"] = amounts(r);
                }
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Whose turn, in the protocol's numbering.
pub fn turn(t: Turn, seats: &SeatMap) -> Value {
    match t {
        Turn::Seat { seat, spot, hand } => json!({
            "seat": seats.table_seat(seat),
            "spot": spot + 1,
            "hand": hand + 1,
        }),
        Turn::Bets => json!("bets"),
        Turn::Chance => json!("dealer"),
        Turn::Done => Value::Null,
    }
}

fn spot(s: &SpotView, seats: &SeatMap) -> Value {
    let hands: Vec<Value> = s
        .hands
        .iter()
        .enumerate()
        .map(|(i, h)| {
            json!({
                "hand": i + 1,
                "cards": h.cards.iter().map(|c| card(*c)).collect::<Vec<_>>(),
                "total": h.total,
                "soft": h.soft,
                "stake": h.stake,
                "status": h.status,
                "settled": h.settled,
            })
        })
        .collect();
    json!({
        "seat": seats.table_seat(s.seat),
        "spot": s.spot + 1,
        "main": s.main,
        "side_bets": s.side_bets.iter().map(|b| json!({
            "id": b.id.as_str(), "amount": b.amount, "open": b.open,
        })).collect::<Vec<_>>(),
        "insurance": s.insurance,
        "hands": hands,
    })
}

/// The round as every seat sees it: spots, dealer, shoe counts, phase and turn.
pub fn round(v: &View, seats: &SeatMap) -> Value {
    let hole = if v.dealer.hole.is_some() {
        "turned"
    } else if v.dealer.hole_face_down {
        "face-down"
    } else {
        "none"
    };
    json!({
        "number": v.round,
        "phase": phase(v.phase),
        "turn": turn(v.turn, seats),
        "spots": v.spots.iter().map(|s| spot(s, seats)).collect::<Vec<_>>(),
        "dealer": {
            "cards": v.dealer.cards.iter().map(|c| card(*c)).collect::<Vec<_>>(),
            "hole": hole,
            "total": v.dealer.total,
        },
        "shoe": {
            "remaining": v.shoe.remaining,
            "discards": v.shoe.discards,
            "cut_card_out": v.shoe.cut_card_out,
        },
    })
}

/// A settlement as a line a person reads, with its amount and reason.
pub fn settlement(e: &Event, seats: &SeatMap, side_names: &[(String, String)]) -> Option<Value> {
    let Event::Settled(s) = e else { return None };
    let wager = match s.bet {
        felt_core::round::BetKind::Main
        | felt_core::round::BetKind::Double
        | felt_core::round::BetKind::Split => "main".to_string(),
        felt_core::round::BetKind::Insurance => "insurance".to_string(),
        felt_core::round::BetKind::Side(id) => id.as_str().to_string(),
    };
    let name = side_names.iter().find(|(id, _)| *id == wager).map_or_else(
        || match wager.as_str() {
            "main" => "Main bet".to_string(),
            "insurance" => "Insurance".to_string(),
            other => other.to_string(),
        },
        |(_, n)| n.clone(),
    );
    let net = s.returned - s.stake;
    let outcome = serde_json::to_value(s.outcome).unwrap_or(Value::Null);
    let outcome_text = outcome.as_str().unwrap_or("").replace('-', " ");
    let mut why = outcome_text.clone();
    if let Some(line) = s.line {
        // The pay line as a person reads it: "queen of hearts pair with dealer blackjack".
        why = line.describe().to_string();
    }
    let pays = s
        .pays
        .map(|p| serde_json::to_value(p).unwrap_or(Value::Null));
    let sign = if net > Money::ZERO { "+" } else { "" };
    let text = match (&pays, net > Money::ZERO) {
        (Some(Value::String(p)), true) => format!("{name}: {why}, {p}: {sign}{net}"),
        _ => format!("{name}: {why}: {sign}{net}"),
    };
    Some(json!({
        "seat": seats.table_seat(s.at.seat),
        "spot": s.at.spot + 1,
        "hand": s.at.hand + 1,
        "wager": wager,
        "outcome": outcome,
        "line": s.line.map(|l| serde_json::to_value(l).unwrap_or(Value::Null)),
        "pays": pays,
        "stake": s.stake,
        "returned": s.returned,
        "net": net,
        "text": text,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_core::round::{Place, Target};

    #[test]
    fn a_face_down_card_has_no_card_and_seats_take_the_tables_numbers() {
        let seats = SeatMap(vec![3, 6]);
        let hole = Event::Dealt {
            to: Target::Dealer,
            card: "Ah".parse().unwrap(),
            face_up: false,
            side_bet_only: false,
        };
        let v = event(&hole, &seats);
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
        let v = event(&up, &seats);
        assert_eq!(v["card"], "7h");
        assert_eq!(
            (v["to"]["seat"].as_u64(), v["to"]["spot"].as_u64()),
            (Some(6), Some(1))
        );
    }
}
