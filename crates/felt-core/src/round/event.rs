//! Events: every card, decision, chip movement and meter change of a round, in
//! order. They serialize to JSON (one object a line) and go to an [`EventSink`].

use super::action::Decision;
use crate::card::Card;
use crate::id::ShortId;
use crate::meter::MeterChange;
use crate::money::{Basis, Money, Payout};
use crate::sidebet::HandName;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Receives a round's events as they happen.
pub trait EventSink {
    /// One event.
    fn event(&mut self, e: &Event);

    /// A side bet settled: `bet` is its index in the table's side bets (the order of
    /// the rules file), so a sink keeping sums per bet need not find it by id. By
    /// default the same as [`Event::Settled`].
    #[inline(always)]
    fn side_settled(&mut self, bet: usize, s: &Settlement) {
        let _ = bet;
        self.event(&Event::Settled(*s))
    }
}

/// Keeps every event.
impl EventSink for Vec<Event> {
    fn event(&mut self, e: &Event) {
        self.push(*e);
    }
}

/// Drops every event (the simulator's sink: nothing is built or kept).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopSink;

impl EventSink for NoopSink {
    #[inline(always)]
    fn event(&mut self, _: &Event) {}
}

/// Calls a closure for every event.
pub struct FnSink<F: FnMut(&Event)>(pub F);

impl<F: FnMut(&Event)> EventSink for FnSink<F> {
    fn event(&mut self, e: &Event) {
        (self.0)(e)
    }
}

impl<T: EventSink + ?Sized> EventSink for &mut T {
    #[inline(always)]
    fn event(&mut self, e: &Event) {
        (**self).event(e)
    }

    #[inline(always)]
    fn side_settled(&mut self, bet: usize, s: &Settlement) {
        (**self).side_settled(bet, s)
    }
}

/// A hand at the table: seat (0 = the dealer's left), the seat's spot, the spot's
/// hand (0 unless split; a resplit hand sits right after its source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Seat, 0 = first on the dealer's left.
    pub seat: u8,
    /// The seat's betting spot.
    pub spot: u8,
    /// The hand of the spot (split hands 1, 2, ...).
    pub hand: u8,
}

/// Who receives a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "who", rename_all = "kebab-case")]
pub enum Target {
    /// A player's hand.
    Player(Place),
    /// The dealer.
    Dealer,
}

/// An account chips move between. The ledger of a round balances to zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "account", rename_all = "kebab-case")]
pub enum Account {
    /// A seat's bankroll.
    Seat {
        /// The seat.
        seat: u8,
    },
    /// Chips in play on the layout (stakes not yet settled).
    Felt,
    /// The house's bank.
    House,
    /// A progressive meter.
    Meter {
        /// The meter's id.
        id: ShortId,
    },
}

/// Which wager a movement or a settlement concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BetKind {
    /// The main blackjack wager of a hand (its double included at settlement).
    Main,
    /// The extra stake of a double.
    Double,
    /// The stake of a new split hand.
    Split,
    /// Insurance.
    Insurance,
    /// A side bet, by id.
    Side(ShortId),
}

/// Why chips moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    /// A wager placed.
    Wager,
    /// A wager taken back before the deal.
    Withdrawn,
    /// A stake given back (win or push).
    StakeReturned,
    /// Winnings paid by the house.
    Winnings,
    /// A stake lost to the house.
    StakeLost,
    /// A wager's increment added to a progressive meter (B7-1).
    MeterIncrement,
    /// A share of a meter paid to a winner (B7-5a).
    MeterShare,
    /// The house refills a meter to its reset value after a 100% award (B7-6).
    MeterRefill,
    /// A stake returned because the round was void.
    Refund,
}

/// One movement of chips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// Paid from.
    pub from: Account,
    /// Paid to.
    pub to: Account,
    /// The amount (positive).
    pub amount: Money,
    /// The hand concerned (for a meter increment or refill: the wager's spot).
    pub at: Place,
    /// The wager concerned.
    pub bet: BetKind,
    /// Why.
    pub why: Why,
}

/// How a wager ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Won (side bet line, insurance, main hand).
    Win,
    /// A natural paid the blackjack payout.
    Blackjack,
    /// Even money taken on a natural.
    EvenMoney,
    /// Lost.
    Lose,
    /// Busted (lost at once, C-8).
    Bust,
    /// A tie: the stake comes back.
    Push,
    /// Surrendered: half the stake back.
    Surrender,
    /// Returned without a decision: part of a bet beyond the original under
    /// `late_natural = original-bets-only` (LA-3), or a void round.
    Returned,
}

/// What a winning line pays, written as a payout text ("100 to 1", "10% of meter").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pays {
    /// Fixed odds on a basis.
    Odds(Payout),
    /// A share of the meter on a basis.
    Meter {
        /// Percent of the meter.
        percent: u8,
        /// `to` (stake back too) or `for`.
        basis: Basis,
    },
}

impl Serialize for Pays {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Pays::Odds(p) => s.collect_str(p),
            Pays::Meter { percent, basis } => {
                let b = match basis {
                    Basis::To => "stake returned",
                    Basis::For => "stake included",
                };
                s.collect_str(&format_args!("{percent}% of meter, {b}"))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Pays {
    /// Reads the text [`Pays`] serializes to: `3 to 2`, `200 for 1`,
    /// `10% of meter, stake returned` or `100% of meter, stake included`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pays, D::Error> {
        let t = String::deserialize(d)?;
        t.parse().map_err(serde::de::Error::custom)
    }
}

/// Why a payout text of an event was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a payout (write e.g. 3 to 2, 200 for 1, or 10% of meter, stake returned)")]
pub struct ParsePaysError {
    /// The text that was refused.
    pub text: String,
}

impl std::str::FromStr for Pays {
    type Err = ParsePaysError;

    fn from_str(s: &str) -> Result<Pays, ParsePaysError> {
        let err = || ParsePaysError {
            text: s.to_string(),
        };
        let Some((percent, basis)) = s.split_once("% of meter, ") else {
            return s.parse().map(Pays::Odds).map_err(|_| err());
        };
        let basis = match basis {
            "stake returned" => Basis::To,
            "stake included" => Basis::For,
            _ => return Err(err()),
        };
        let percent: u8 = percent
            .parse()
            .ok()
            .filter(|p| percent.bytes().all(|b| b.is_ascii_digit()) && (1..=100).contains(p))
            .ok_or_else(err)?;
        Ok(Pays::Meter { percent, basis })
    }
}

/// A wager settled: the summary line of the chip movements just before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    /// The hand.
    pub at: Place,
    /// The wager.
    pub bet: BetKind,
    /// How it ended.
    pub outcome: Outcome,
    /// The pay-table line that won (side bets).
    pub line: Option<HandName>,
    /// The payout applied, as text.
    pub pays: Option<Pays>,
    /// The stake settled.
    pub stake: Money,
    /// The total handed to the player (stake included; 0 when lost).
    pub returned: Money,
}

/// Why a meter changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MeterWhy {
    /// A wager's increment (B7-1).
    Increment,
    /// A winner's share taken (B7-6).
    Award,
    /// Reset after a 100% award (B7-6).
    Reset,
}

/// Why the shoe was shuffled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShuffleWhy {
    /// A new shoe's first shuffle.
    NewShoe,
    /// The cut card came out in the previous round (C-12).
    CutCard,
    /// A continuous shuffling machine: every round (C-12).
    Csm,
    /// The undealt cards ran out mid-round: the discard rack was shuffled.
    RackReshuffled,
}

/// One thing that happened in a round. `Copy`: building one never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// Betting opened for round `round`.
    RoundStarted {
        /// The round number at this table (1, 2, ...).
        round: u64,
    },
    /// The shoe was shuffled.
    Shuffled {
        /// Cards shuffled.
        cards: u16,
        /// Why.
        why: ShuffleWhy,
    },
    /// A card burned (removed to the rack, LA-4 / C-12).
    Burned {
        /// The card.
        card: Card,
        /// Shown to the table or not.
        face_up: bool,
    },
    /// The cut card came out: the shoe is reshuffled after this round (C-12).
    CutCardOut {
        /// Cards dealt since the shuffle when it came out.
        position: u16,
    },
    /// No more bets (Blazing 7s lock-out, C-3).
    BetsClosed,
    /// A card dealt.
    Dealt {
        /// To whom.
        to: Target,
        /// The card (a face-down card is in the house log, never in a view).
        card: Card,
        /// Face up or down.
        face_up: bool,
        /// The third card of a 7s bet on a dealer natural (B7-4): for the side bet only.
        side_bet_only: bool,
    },
    /// The dealer checked the hole card (C-6).
    Peeked {
        /// Whether the dealer has a natural.
        natural: bool,
    },
    /// The hole card turned face up.
    HoleCardTurned {
        /// The hole card.
        card: Card,
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
    /// The seat's decision timer ran out on this hand or offer; the decision taken for
    /// it (stand, or decline an offer) follows.
    TimedOut {
        /// The hand.
        at: Place,
    },
    /// A hand stood by itself (hard 21, soft 21 without hit-soft-21, one-card split aces).
    Stood {
        /// The hand.
        at: Place,
        /// Its total.
        total: u8,
    },
    /// The dealer's final total.
    DealerDone {
        /// Total.
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
    /// A payout was rounded down to a cent; the fraction `num/den` of a cent is not paid (C-2).
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
    /// The round could not be finished (the shoe ran out with no discards): every
    /// unsettled stake was returned.
    Voided,
    /// The round is over.
    RoundEnded {
        /// The round number.
        round: u64,
    },
}

impl Event {
    /// Whether every player may see this event as it is (a face-down card is not
    /// public: [`Event::public`] gives what a player may see of it).
    pub fn is_public(&self) -> bool {
        !matches!(
            self,
            Event::Dealt { face_up: false, .. } | Event::Burned { face_up: false, .. }
        )
    }

    /// What a player at the table (any seat, or an onlooker) may see of this event
    /// (C-11): the event itself, except that a card dealt or burned face down carries
    /// no card. This is each seat's view of the log: every other event is public by the
    /// rules (players' cards are dealt face up, C-4; the peek announces whether the
    /// dealer has a natural, C-6; the hole card is shown when it is turned; chips,
    /// meters and decisions are on the table), so no seat sees more than another. The
    /// full log (the house's, for the operator and the books) keeps the cards.
    ///
    /// A front end (a terminal's events file, a server's stream to a player) calls this
    /// once per event and writes the result; it serializes like [`Event`], without the
    /// `card` key of a face-down card, and reads back with serde.
    #[inline]
    pub fn public(&self) -> PublicEvent {
        match *self {
            Event::Dealt {
                to,
                face_up: false,
                side_bet_only,
                ..
            } => PublicEvent::DealtFaceDown { to, side_bet_only },
            Event::Burned { face_up: false, .. } => PublicEvent::BurnedFaceDown,
            e => PublicEvent::Shown(e),
        }
    }
}

/// An event as a player may see it ([`Event::public`]): the event, or a face-down
/// card without its value.
///
/// JSON: a shown event is written exactly as [`Event`]; a face-down card as
/// `{"event":"dealt","to":{"who":"dealer"},"face_up":false,"side_bet_only":false}` or
/// `{"event":"burned","face_up":false}` (no `card` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublicEvent {
    /// An event every player sees as the house log holds it.
    Shown(Event),
    /// A card dealt face down (the dealer's hole card): to whom, not which card.
    DealtFaceDown {
        /// Who received it.
        to: Target,
        /// The third card of a 7s bet on a dealer natural (B7-4).
        side_bet_only: bool,
    },
    /// A card burned face down: that it happened, not which card.
    BurnedFaceDown,
}

impl PublicEvent {
    /// The event, when it is shown whole.
    pub fn event(&self) -> Option<&Event> {
        match self {
            PublicEvent::Shown(e) => Some(e),
            _ => None,
        }
    }
}

/// The JSON form of a face-down card in a player's view.
#[derive(Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case", deny_unknown_fields)]
enum FaceDown {
    Dealt {
        to: Target,
        face_up: bool,
        side_bet_only: bool,
    },
    Burned {
        face_up: bool,
    },
}

impl Serialize for PublicEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            PublicEvent::Shown(e) => e.serialize(s),
            PublicEvent::DealtFaceDown { to, side_bet_only } => FaceDown::Dealt {
                to,
                face_up: false,
                side_bet_only,
            }
            .serialize(s),
            PublicEvent::BurnedFaceDown => FaceDown::Burned { face_up: false }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PublicEvent {
    /// Reads what [`PublicEvent`] writes. A face-down card written without its value
    /// must say `"face_up": false`; an event that carries its card is read as shown.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PublicEvent, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Shown(Event),
            FaceDown(FaceDown),
        }
        let raw = Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "not an event of a player's view (a known `event` with its fields; only a \
                 face-down card may leave out `card`)",
            )
        })?;
        match raw {
            Raw::Shown(e) => Ok(PublicEvent::Shown(e)),
            Raw::FaceDown(FaceDown::Dealt {
                to,
                face_up: false,
                side_bet_only,
            }) => Ok(PublicEvent::DealtFaceDown { to, side_bet_only }),
            Raw::FaceDown(FaceDown::Burned { face_up: false }) => Ok(PublicEvent::BurnedFaceDown),
            Raw::FaceDown(_) => Err(serde::de::Error::custom(
                "a card dealt or burned face up carries its `card`",
            )),
        }
    }
}
