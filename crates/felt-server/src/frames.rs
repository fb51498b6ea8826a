//! The frames a table sends, as typed messages of the protocol ([`crate::protocol`]):
//! the welcome with what does not change at the table (its game, limits and hints),
//! and the view, whose table part ([`TableView`]) is serialized once per step and
//! shared by every connection, each prefixed with its own `seq` and `you`.

use crate::render::{Choice, EventOut, MeterOut, RoundOut, SettlementLine};
use felt_core::Money;
use serde::Serialize;

/// The first frame of a connection: the stream's last `seq`, and what does not change
/// at the table while it runs (sent once, not in every view).
#[derive(Debug, Serialize)]
pub struct Welcome<'a> {
    /// Always `welcome`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The player's stream's last sequence number.
    pub seq: u64,
    /// The protocol's version.
    pub version: u32,
    /// The table's name.
    pub table: &'a str,
    /// The player (or spectator).
    pub player: &'a str,
    /// Their seat, if seated.
    pub seat: Option<u8>,
    /// Whether the missed frames follow (else a fresh view).
    pub resumed: bool,
    /// The table's game, limits and hints.
    #[serde(flatten)]
    pub fixed: &'a Fixed,
}

/// What does not change at a table while it runs.
#[derive(Debug, Clone, Serialize)]
pub struct Fixed {
    /// The game's id.
    pub game: String,
    /// The bets' limits.
    pub limits: Limits,
    /// Whether the table offers the hint.
    pub hints: bool,
}

/// The limits of the main bet and each side bet, and the spots a player may play.
#[derive(Debug, Clone, Serialize)]
pub struct Limits {
    /// The main bet's.
    pub main: BetLimits,
    /// Each side bet's, by id.
    pub side_bets: Vec<SideBetLimits>,
    /// The spots a player may play.
    pub spots: u8,
}

/// A wager's limits.
#[derive(Debug, Clone, Serialize)]
pub struct BetLimits {
    /// The least bet.
    pub min: Money,
    /// The most.
    pub max: Money,
    /// In steps of.
    pub increment: Money,
}

/// A side bet's limits.
#[derive(Debug, Clone, Serialize)]
pub struct SideBetLimits {
    /// The side bet's id.
    pub id: String,
    /// Its limits.
    #[serde(flatten)]
    pub limits: BetLimits,
}

/// What every seat sees alike of one step: seats, timer, meters, the round, its
/// settlements and the step's events.
#[derive(Debug, Serialize)]
pub struct TableView<'a> {
    /// Always `view`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The table's name.
    pub table: &'a str,
    /// The round shown (in play, or the last one).
    pub round_id: Option<i64>,
    /// A round is in play.
    pub in_play: bool,
    /// The table is closed (why), or `null`.
    pub closed: Option<&'a str>,
    /// Every seat.
    pub seats: Vec<SeatOut<'a>>,
    /// The running timer.
    pub timer: Option<TimerOut>,
    /// The table's progressive meters.
    pub meters: &'a [MeterOut],
    /// The round's public part.
    pub round: Option<&'a RoundOut>,
    /// Its settlements so far.
    pub settlements: &'a [SettlementLine],
    /// The step's events.
    pub events: Vec<EventOut>,
}

/// One seat of the table.
#[derive(Debug, Serialize)]
pub struct SeatOut<'a> {
    /// From 1.
    pub seat: u8,
    /// Who holds it (`null`: free).
    pub player: Option<&'a str>,
    /// Its player has a connection here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connected: Option<bool>,
    /// Its player plays the round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_round: Option<bool>,
    /// Its player has bet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_bet: Option<bool>,
    /// A debit of its player waits for the operator's wallet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bet_pending: Option<bool>,
    /// Its player leaves at the round's end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaving: Option<bool>,
}

impl SeatOut<'_> {
    /// A free seat.
    pub fn free(seat: u8) -> SeatOut<'static> {
        SeatOut {
            seat,
            player: None,
            connected: None,
            in_round: None,
            has_bet: None,
            bet_pending: None,
            leaving: None,
        }
    }
}

/// The running timer: what it is for and the milliseconds left.
#[derive(Debug, Serialize)]
pub struct TimerOut {
    /// `betting`, `offer`, `decision` or `next-round`.
    #[serde(rename = "for")]
    pub kind: &'static str,
    /// Milliseconds left.
    pub ms: u64,
}

/// The player's own part of a view.
#[derive(Debug, Serialize)]
pub struct You<'a> {
    /// The player (or spectator).
    pub player: &'a str,
    /// Their seat.
    pub seat: Option<u8>,
    /// Their balance.
    pub balance: Option<Money>,
    /// They may bet now.
    pub may_bet: bool,
    /// The decisions asked of them.
    pub decisions: Vec<DecisionOut>,
}

/// A decision asked of the player: their hand's turn, or an offer on a spot.
#[derive(Debug, Serialize)]
pub struct DecisionOut {
    /// The spot, from 1.
    pub spot: u8,
    /// The hand, from 1.
    pub hand: u8,
    /// An offer (insurance, even money, early surrender) rather than a turn.
    pub offer: bool,
    /// An offer already answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered: Option<bool>,
    /// The choices.
    pub choices: Vec<Choice>,
}

/// A meters frame: the table's meters moved (another table or server took a
/// contribution or paid an award).
#[derive(Debug, Serialize)]
pub struct Meters<'a> {
    /// Always `meters`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stream's sequence number.
    pub seq: u64,
    /// The table's meters now.
    pub meters: &'a [MeterOut],
}

/// The connection closes, and why (`closed`, `moved`, `session-ended`, ...).
#[derive(Debug, Serialize)]
pub struct Closing<'a> {
    /// What ends it.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stream's sequence number.
    pub seq: u64,
    /// Why, as a sentence.
    pub reason: &'a str,
}

/// A stake waits for the operator's wallet (its debit is sent): the view follows its
/// answer.
#[derive(Debug, Serialize)]
pub struct Pending<'a> {
    /// Always `pending`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stream's sequence number.
    pub seq: u64,
    /// The client's id of the bet or action.
    pub id: &'a str,
    /// The debit's amount.
    pub amount: Money,
}

/// The answer to a `ping`.
#[derive(Debug, Serialize)]
pub struct Pong {
    /// Always `pong`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stream's sequence number.
    pub seq: u64,
}

/// An action taken (its effect follows in the next view).
#[derive(Debug, Serialize)]
pub struct Accepted<'a> {
    /// Always `accepted`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stream's sequence number.
    pub seq: u64,
    /// The client's id of the action.
    pub id: &'a str,
}

/// A frame's text (the protocol's types always serialize).
pub fn to_text<T: Serialize>(frame: &T) -> String {
    serde_json::to_string(frame).unwrap_or_default()
}

/// A view frame: the connection's `seq` and `you`, the table's fixed part where the
/// stream's version wants it in every view (`fixed`: [`members`] of [`Fixed`]), then
/// the step's shared table part (a JSON object serialized once for every connection).
pub fn view_frame(seq: u64, you: &You, fixed: Option<&str>, shared: &str) -> String {
    let you = to_text(you);
    let rest = members_of(shared);
    let mut out = String::with_capacity(32 + you.len() + shared.len());
    out.push_str("{\"seq\":");
    out.push_str(&seq.to_string());
    out.push_str(",\"you\":");
    out.push_str(&you);
    for part in [fixed.unwrap_or(""), rest] {
        if !part.is_empty() {
            out.push(',');
            out.push_str(part);
        }
    }
    out.push('}');
    out
}

/// The members of a value that serializes as a JSON object, without its braces.
pub fn members<T: Serialize>(v: &T) -> String {
    members_of(&to_text(v)).to_string()
}

fn members_of(object: &str) -> &str {
    object
        .strip_prefix('{')
        .and_then(|o| o.strip_suffix('}'))
        .unwrap_or("")
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_frame_is_one_json_object_with_the_connections_part_and_the_shared_one() {
        let you = You {
            player: "ana",
            seat: Some(2),
            balance: Some(Money::cents(1234)),
            may_bet: true,
            decisions: Vec::new(),
        };
        let shared = r#"{"type":"view","table":"classic","events":[]}"#;
        let v: serde_json::Value =
            serde_json::from_str(&view_frame(7, &you, None, shared)).unwrap();
        assert_eq!(v["seq"], 7);
        assert_eq!(v["type"], "view");
        assert_eq!(v["table"], "classic");
        assert_eq!(v["you"]["player"], "ana");
        assert_eq!(v["you"]["balance"], "12.34");
        assert!(v.get("limits").is_none(), "{v}");
        let fixed = members(&serde_json::json!({"game": "classic", "hints": true}));
        let v1: serde_json::Value =
            serde_json::from_str(&view_frame(7, &you, Some(&fixed), shared)).unwrap();
        assert_eq!(
            (v1["game"].as_str(), v1["hints"].as_bool()),
            (Some("classic"), Some(true))
        );
        assert_eq!(v1["table"], "classic");
        let bare: serde_json::Value =
            serde_json::from_str(&view_frame(1, &you, None, "{}")).unwrap();
        assert_eq!(bare.as_object().map(|o| o.len()), Some(2));
    }
}
