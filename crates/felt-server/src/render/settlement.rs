//! A settlement as a line a person reads, with its amount and reason.

use super::SeatMap;
use felt_core::round::{BetKind, Outcome, Pays};
use felt_core::sidebet::HandName;
use felt_core::{Event, Money};
use serde::Serialize;

/// One wager settled, as the results box shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SettlementLine {
    /// The table's seat.
    pub seat: u8,
    /// The spot, from 1.
    pub spot: u8,
    /// The hand, from 1.
    pub hand: u8,
    /// `main`, `insurance`, or the side bet's id.
    pub wager: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The pay-table line that won (side bets).
    pub line: Option<HandName>,
    /// What it pays, as text.
    pub pays: Option<Pays>,
    /// The stake settled.
    pub stake: Money,
    /// Handed back, stake included.
    pub returned: Money,
    /// Won (positive) or lost.
    pub net: Money,
    /// The line as a person reads it: "Lucky Ladies: queen of hearts pair, 125 to 1: +125.00".
    pub text: String,
}

impl SettlementLine {
    /// The line of a [`Event::Settled`]; `None` for any other event.
    pub fn of(
        e: &Event,
        seats: &SeatMap,
        side_names: &[(String, String)],
    ) -> Option<SettlementLine> {
        let Event::Settled(s) = e else { return None };
        let wager = match s.bet {
            BetKind::Main | BetKind::Double | BetKind::Split => "main".to_string(),
            BetKind::Insurance => "insurance".to_string(),
            BetKind::Side(id) => id.as_str().to_string(),
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
        // The pay line as a person reads it ("queen of hearts pair with dealer
        // blackjack"), else the outcome's word.
        let why = match s.line {
            Some(line) => line.describe().to_string(),
            None => text_of(&s.outcome).replace('-', " "),
        };
        let text = match (s.pays, net > Money::ZERO) {
            (Some(p), true) => format!("{name}: {why}, {}: +{net}", text_of(&p)),
            (_, true) => format!("{name}: {why}: +{net}"),
            _ => format!("{name}: {why}: {net}"),
        };
        Some(SettlementLine {
            seat: seats.table_seat(s.at.seat),
            spot: s.at.spot.saturating_add(1),
            hand: s.at.hand.saturating_add(1),
            wager,
            outcome: s.outcome,
            line: s.line,
            pays: s.pays,
            stake: s.stake,
            returned: s.returned,
            net,
            text,
        })
    }
}

/// The word a value serializes to (an outcome's `"push"`, a payout's `"3 to 2"`).
fn text_of<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}
