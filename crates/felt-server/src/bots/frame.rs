//! What a bot reads of the frames the server sends: typed, borrowed from the frame's
//! text, and only the fields a bot acts on (the protocol's other fields are skipped
//! unread), so a view costs a bot one pass over its bytes and no tree of values.

use serde::de::IgnoredAny;
use serde::Deserialize;
use std::borrow::Cow;

/// Any frame: its type and the fields of the types a bot reads (welcome, view,
/// error); absent fields are empty.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Frame<'a> {
    /// `welcome`, `view`, `error`, `closed`, ...
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    /// The stream's sequence number.
    pub seq: Option<u64>,
    /// A welcome's seat (`null`: not seated).
    pub seat: Option<u8>,
    /// The table's game (a welcome's; a version 1 view's too).
    #[serde(borrow)]
    pub game: Option<Cow<'a, str>>,
    /// The table's limits (a welcome's; a version 1 view's too).
    pub limits: Option<Limits>,
    /// An error's code.
    #[serde(borrow)]
    pub code: Option<Cow<'a, str>>,
    /// An error's id of the refused message.
    #[serde(borrow)]
    pub id: Option<Cow<'a, str>>,
    /// A view's round id.
    pub round_id: Option<i64>,
    /// A view's round is in play.
    pub in_play: bool,
    /// A view's table is closed (why: not read).
    pub closed: Option<IgnoredAny>,
    /// A view's seats.
    pub seats: Vec<Seat>,
    /// A view's round.
    #[serde(borrow)]
    pub round: Option<Round<'a>>,
    /// A view's part for this player.
    #[serde(borrow)]
    pub you: Option<You<'a>>,
}

/// The limits a bot bets by (kept from the welcome, so owned).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// The main bet's.
    pub main: MainLimits,
    /// Each side bet's.
    pub side_bets: Vec<SideBetLimits>,
}

/// The main bet's least amount.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct MainLimits {
    /// The least bet (money as the protocol writes it).
    pub min: Option<String>,
}

/// A side bet's id and least amount.
#[derive(Debug, Clone, Deserialize)]
pub struct SideBetLimits {
    /// The side bet's id.
    pub id: String,
    /// Its least bet.
    pub min: String,
}

/// A seat of the table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Seat {
    /// From 1.
    pub seat: u8,
    /// Its player has bet.
    pub has_bet: bool,
}

/// The round's public part, as far as a bot reads it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Round<'a> {
    /// Its phase (`betting`, ...).
    #[serde(borrow)]
    pub phase: Cow<'a, str>,
    /// Every spot in play.
    #[serde(borrow)]
    pub spots: Vec<Spot<'a>>,
    /// The dealer's cards.
    #[serde(borrow)]
    pub dealer: Dealer<'a>,
}

/// One betting spot.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Spot<'a> {
    /// The table's seat.
    pub seat: u8,
    /// The seat's spot, from 1.
    pub spot: u64,
    /// Its hands.
    #[serde(borrow)]
    pub hands: Vec<Hand<'a>>,
}

/// One hand of a spot.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Hand<'a> {
    /// From 1.
    pub hand: u64,
    /// Its cards (`7h`, `Qs`, ...: never escaped, so borrowed).
    #[serde(borrow)]
    pub cards: Vec<&'a str>,
}

/// The dealer's cards shown.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Dealer<'a> {
    /// The cards shown.
    #[serde(borrow)]
    pub cards: Vec<&'a str>,
}

/// The player's own part of a view.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct You<'a> {
    /// Their seat (`None`: not seated).
    pub seat: Option<u8>,
    /// They may bet now.
    pub may_bet: bool,
    /// The decisions asked of them.
    #[serde(borrow)]
    pub decisions: Vec<Decision<'a>>,
}

/// A decision asked of the player.
#[derive(Debug, Deserialize)]
pub struct Decision<'a> {
    /// The spot, from 1.
    #[serde(default = "first")]
    pub spot: u64,
    /// The hand, from 1.
    #[serde(default = "first")]
    pub hand: u64,
    /// An offer rather than a turn.
    #[serde(default)]
    pub offer: bool,
    /// An offer already answered.
    #[serde(default)]
    pub answered: Option<bool>,
    /// The choices.
    #[serde(default, borrow)]
    pub choices: Vec<Choice<'a>>,
}

fn first() -> u64 {
    1
}

/// One choice of a decision.
#[derive(Debug, Deserialize)]
pub struct Choice<'a> {
    /// Its word (`hit`, `stand`, ...).
    #[serde(borrow)]
    pub decision: Cow<'a, str>,
}

impl Frame<'_> {
    /// How many cards lie face up on the table.
    pub fn cards_on_table(&self) -> usize {
        self.round.as_ref().map_or(0, |r| {
            let hands: usize = r
                .spots
                .iter()
                .flat_map(|s| &s.hands)
                .map(|h| h.cards.len())
                .sum();
            hands + r.dealer.cards.len()
        })
    }

    /// The cards of the hand `hand` of spot `spot` of the player's seat.
    pub fn hand_cards(&self, spot: u64, hand: u64) -> &[&str] {
        let seat = self.you.as_ref().and_then(|y| y.seat);
        self.round
            .iter()
            .flat_map(|r| &r.spots)
            .find(|s| Some(s.seat) == seat && s.spot == spot)
            .and_then(|s| s.hands.iter().find(|h| h.hand == hand))
            .map_or(&[], |h| &h.cards[..])
    }

    /// Whether the player's seat has bet in the round shown.
    pub fn has_bet(&self) -> bool {
        let seat = self.you.as_ref().and_then(|y| y.seat);
        self.seats.iter().any(|s| Some(s.seat) == seat && s.has_bet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view as the server writes it (protocol version 2), with fields a bot skips.
    const VIEW: &str = r#"{"seq":12,"you":{"player":"b-0-1","seat":2,"balance":"990.00",
        "may_bet":false,"decisions":[{"spot":1,"hand":2,"offer":false,
        "choices":[{"decision":"hit"},{"decision":"double","amount":{"min":"1.00"}}]}]},
        "type":"view","table":"classic-1","round_id":41,"in_play":true,"closed":null,
        "seats":[{"seat":1,"player":"b-0-0","has_bet":true},{"seat":2,"player":"b-0-1",
        "connected":true,"has_bet":true},{"seat":3,"player":null}],"timer":null,
        "meters":[],"round":{"number":3,"phase":"player-turns",
        "turn":{"seat":2,"spot":1,"hand":2},"spots":[{"seat":1,"spot":1,"main":"1.00",
        "side_bets":[],"insurance":"0.00","hands":[{"hand":1,"cards":["Ah","9c"]}]},
        {"seat":2,"spot":1,"hands":[{"hand":1,"cards":["8d","3s"]},
        {"hand":2,"cards":["8h","Kd"]}]}],"dealer":{"cards":["6s"],"hole":"face-down"},
        "shoe":{"remaining":300}},"settlements":[],"events":[{"type":"dealt"}]}"#;

    #[test]
    fn a_view_reads_as_the_fields_a_bot_acts_on() {
        let f: Frame = serde_json::from_str(VIEW).unwrap();
        assert_eq!((f.kind.as_ref(), f.seq), ("view", Some(12)));
        assert_eq!(
            (f.round_id, f.in_play, f.closed.is_some()),
            (Some(41), true, false)
        );
        assert!(f.has_bet());
        assert_eq!(f.cards_on_table(), 7);
        assert_eq!(f.hand_cards(1, 2), ["8h", "Kd"]);
        assert!(f.hand_cards(2, 1).is_empty());
        let you = f.you.as_ref().unwrap();
        assert_eq!((you.seat, you.may_bet), (Some(2), false));
        let d = &you.decisions[0];
        assert_eq!((d.spot, d.hand, d.offer, d.answered), (1, 2, false, None));
        let words: Vec<&str> = d.choices.iter().map(|c| c.decision.as_ref()).collect();
        assert_eq!(words, ["hit", "double"]);
        assert_eq!(
            f.round.as_ref().map(|r| r.phase.as_ref()),
            Some("player-turns")
        );
    }

    #[test]
    fn a_welcome_and_an_error_read_too() {
        let w: Frame = serde_json::from_str(
            r#"{"type":"welcome","seq":3,"version":2,"table":"t","player":"p","seat":null,
            "resumed":false,"game":"lucky-7","hints":true,"limits":{"main":{"min":"1.00",
            "max":"500.00","increment":"1.00"},"side_bets":[{"id":"lucky-7","min":"0.50",
            "max":"25.00","increment":"0.50"}],"spots":1}}"#,
        )
        .unwrap();
        assert_eq!((w.kind.as_ref(), w.seat), ("welcome", None));
        assert_eq!(w.game.as_deref(), Some("lucky-7"));
        let limits = w.limits.unwrap();
        assert_eq!(limits.main.min.as_deref(), Some("1.00"));
        assert_eq!(
            (
                limits.side_bets[0].id.as_str(),
                limits.side_bets[0].min.as_str()
            ),
            ("lucky-7", "0.50")
        );
        let e: Frame = serde_json::from_str(
            r#"{"type":"error","seq":0,"code":"rate-limited","message":"slow \"down\"","id":"b-7"}"#,
        )
        .unwrap();
        assert_eq!(
            (e.kind.as_ref(), e.code.as_deref(), e.id.as_deref()),
            ("error", Some("rate-limited"), Some("b-7"))
        );
        let closed: Frame =
            serde_json::from_str(r#"{"type":"view","closed":"the table is closed"}"#).unwrap();
        assert!(closed.closed.is_some() && closed.you.is_none());
    }
}
