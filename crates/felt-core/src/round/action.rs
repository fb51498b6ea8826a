//! What players and the dealer may do, what is legal now, and why an action is refused.

use super::Phase;
use crate::meter::MeterId;
use crate::money::{Money, Ratio};
use serde::{Deserialize, Serialize};

/// A player's decision on the hand (or spot) whose turn it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Take a card.
    Hit,
    /// Take no more cards.
    Stand,
    /// Add this amount (the full bet, or less where allowed) and take exactly one card.
    Double(Money),
    /// Split the pair into two hands, adding a bet equal to the hand's.
    Split,
    /// Give up the hand for half the bet (late, or early before the peek).
    Surrender,
    /// Take insurance for this amount (dealer ace, C-6).
    Insure(Money),
    /// Take even money on a natural (dealer ace, C-6).
    EvenMoney,
    /// Decline the offer on the table (insurance, even money or early surrender).
    Decline,
}

impl Decision {
    /// The decision's bit in a [`Decisions`] set.
    pub fn bit(self) -> Decisions {
        match self {
            Decision::Hit => Decisions::HIT,
            Decision::Stand => Decisions::STAND,
            Decision::Double(_) => Decisions::DOUBLE,
            Decision::Split => Decisions::SPLIT,
            Decision::Surrender => Decisions::SURRENDER,
            Decision::Insure(_) => Decisions::INSURE,
            Decision::EvenMoney => Decisions::EVEN_MONEY,
            Decision::Decline => Decisions::DECLINE,
        }
    }
}

/// One spot's bets of a round, placed together by [`super::Round::place_spot`]: the
/// main bet and, for each of the table's side bets in its order, an amount (zero: that
/// side bet is not made). The same bets as an [`Action::Bet`] followed by an
/// [`Action::SideBet`] for each side bet with an amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpotBets {
    /// Seat.
    pub seat: u8,
    /// The seat's spot.
    pub spot: u8,
    /// The main bet.
    pub main: Money,
    /// Each side bet's amount, by its index in [`super::Table::side_bets`]; zero for none.
    pub sides: [Money; super::MAX_SIDE_BETS],
}

impl SpotBets {
    /// The actions that place these bets one by one, in order.
    pub fn actions(&self) -> impl Iterator<Item = Action> {
        let (seat, spot) = (self.seat, self.spot);
        let main = Action::Bet {
            seat,
            spot,
            amount: self.main,
        };
        let sides = (0u8..)
            .zip(self.sides)
            .filter(|&(_, amount)| amount != Money::ZERO)
            .map(move |(bet, amount)| Action::SideBet {
                seat,
                spot,
                bet,
                amount,
            });
        std::iter::once(main).chain(sides)
    }
}

/// An action on the round. Serializes to JSON and back (`{"bet":{"seat":0,...}}`,
/// `"deal"`, `{"play":{"seat":0,"decision":"hit"}}`), so a stored round can be replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// A main bet on a seat's spot (betting phase).
    Bet {
        /// Seat.
        seat: u8,
        /// The seat's spot, 0..max_spots_per_player.
        spot: u8,
        /// Amount.
        amount: Money,
    },
    /// A side bet on a spot that has a main bet (betting phase).
    SideBet {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
        /// The side bet's index in [`super::Table::side_bets`].
        bet: u8,
        /// Amount.
        amount: Money,
    },
    /// Takes back every bet of a spot (betting phase).
    Withdraw {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
    },
    /// No more bets: the dealer starts dealing.
    Deal,
    /// A seat's decision on the hand or offer whose turn it is.
    Play {
        /// The seat deciding.
        seat: u8,
        /// The hand the decision is for. Given, the engine refuses the decision unless
        /// it is that hand's turn ([`ActionError::NotThisHand`]), so a retried or late
        /// decision can never land on the next hand. `None` (decisions stored before
        /// they named their hand): the hand whose turn it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<HandRef>,
        /// The decision.
        decision: Decision,
    },
    /// The seat's decision timer ran out: the hand stands; insurance, even money and
    /// early surrender are declined. Recorded like any action (a `timed-out` event,
    /// then the decision), so a round with timeouts replays byte for byte.
    Timeout {
        /// The seat whose turn it is.
        seat: u8,
        /// The hand the timer ran for (refused if it is not that hand's turn).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<HandRef>,
    },
}

/// A hand of a seat: its spot and the spot's hand (0 unless split).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandRef {
    /// The seat's spot.
    pub spot: u8,
    /// The spot's hand.
    pub hand: u8,
}

impl std::fmt::Display for HandRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "spot {} hand {}", self.spot + 1, self.hand + 1)
    }
}

/// A set of decisions (a bitset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Decisions(pub u8);

impl Decisions {
    /// No decision.
    pub const NONE: Decisions = Decisions(0);
    /// Hit.
    pub const HIT: Decisions = Decisions(1);
    /// Stand.
    pub const STAND: Decisions = Decisions(1 << 1);
    /// Double.
    pub const DOUBLE: Decisions = Decisions(1 << 2);
    /// Split.
    pub const SPLIT: Decisions = Decisions(1 << 3);
    /// Surrender.
    pub const SURRENDER: Decisions = Decisions(1 << 4);
    /// Insure.
    pub const INSURE: Decisions = Decisions(1 << 5);
    /// Even money.
    pub const EVEN_MONEY: Decisions = Decisions(1 << 6);
    /// Decline an offer.
    pub const DECLINE: Decisions = Decisions(1 << 7);

    /// Whether every decision of `other` is in the set.
    #[inline]
    pub fn contains(self, other: Decisions) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether this decision is in the set.
    #[inline]
    pub fn allows(self, d: Decision) -> bool {
        self.contains(d.bit())
    }

    /// Adds decisions.
    #[inline]
    pub fn insert(&mut self, other: Decisions) {
        self.0 |= other.0;
    }

    /// Removes decisions.
    #[inline]
    pub fn remove(&mut self, other: Decisions) {
        self.0 &= !other.0;
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Decisions {
    type Output = Decisions;
    fn bitor(self, o: Decisions) -> Decisions {
        Decisions(self.0 | o.0)
    }
}

/// The amounts allowed for a double or an insurance: multiples of `step` from `min`
/// to `max`, and `full` itself when `full <= max`. The engine's offers set `full` to
/// the full amount (the bet, or exactly half of it), or to what the balance covers of
/// it when that is less: an offer's `full` is always an allowed amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AmountRange {
    /// Smallest amount.
    pub min: Money,
    /// Largest amount.
    pub max: Money,
    /// Amounts are multiples of this...
    pub step: Money,
    /// ...or exactly this.
    pub full: Money,
}

impl AmountRange {
    /// Exactly one amount.
    pub fn exactly(a: Money) -> AmountRange {
        AmountRange {
            min: a,
            max: a,
            step: a,
            full: a,
        }
    }

    /// Whether `a` is an allowed amount.
    #[inline]
    pub fn allows(&self, a: Money) -> bool {
        a >= self.min && a <= self.max && (a == self.full || a.is_multiple_of(self.step))
    }
}

/// Whose turn it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "turn", rename_all = "kebab-case")]
pub enum Turn {
    /// Betting is open: any seat may bet; the dealer may deal.
    Bets,
    /// A seat decides on a hand (or an insurance / surrender offer on its spot).
    Seat {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
        /// Hand of the spot.
        hand: u8,
    },
    /// Chance: a card to deal, the dealer's play or the settlement (nobody decides;
    /// [`super::Round::advance`] performs it, or the round runs it by itself).
    Chance,
    /// No round in progress.
    Done,
}

/// What the actor may do now. Small and `Copy`: no allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Legal {
    /// Whose turn.
    pub turn: Turn,
    /// The decisions offered (empty unless a seat decides).
    pub decisions: Decisions,
    /// The amounts a double may be, when offered.
    pub double: Option<AmountRange>,
    /// The amounts insurance may be, when offered.
    pub insurance: Option<AmountRange>,
}

/// An offer the table makes before the hands are played, which is answered first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Offer {
    /// Insurance (dealer ace, C-6).
    Insurance,
    /// Even money on a natural (dealer ace, C-6).
    EvenMoney,
    /// Early surrender, before the peek.
    EarlySurrender,
}

impl std::fmt::Display for Offer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Offer::Insurance => "insurance",
            Offer::EvenMoney => "even-money",
            Offer::EarlySurrender => "early surrender",
        })
    }
}

/// Why a decision is not offered (C-10): the rule, or the state of the hand, that
/// keeps it off the table. Its text is a sentence a player reads in any front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, thiserror::Error)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum NotOfferedWhy {
    /// An offer is on the table: it is answered before anything else.
    #[error("first answer the {offer} offer (take it, or n for no thanks)")]
    AnswerOfferFirst {
        /// The offer.
        offer: Offer,
    },
    /// Insurance asked for a natural: even money is its offer.
    #[error("insurance is not offered to a blackjack: even money is")]
    InsuranceToNatural,
    /// Even money asked for a hand that is not a natural.
    #[error("even money is only for a blackjack: this hand is offered insurance")]
    EvenMoneyNeedsNatural,
    /// The game has no insurance.
    #[error("no insurance in this game")]
    NoInsurance,
    /// The game offers no even money.
    #[error("no even money in this game")]
    NoEvenMoney,
    /// Insurance or even money outside the offer (the dealer shows no ace, or the
    /// offer was answered).
    #[error("{0} is offered only when the dealer shows an ace, before the hands are played")]
    OfferOver(Offer),
    /// Nothing to decline.
    #[error("no offer is on the table to decline")]
    NothingToDecline,
    /// The game has no split (one hand per spot).
    #[error("no split in this game")]
    NoSplit,
    /// Only a pair splits.
    #[error("only a pair splits: two cards of the same {}", if *by_rank { "rank" } else { "value" })]
    NotAPair {
        /// Pairs are same rank (else same value).
        by_rank: bool,
    },
    /// A spot is split once only.
    #[error("no resplit in this game: a spot is split once")]
    NoResplit,
    /// The spot holds the most hands the game allows.
    #[error("the hand limit of {max} is reached")]
    HandLimit {
        /// The game's hand limit.
        max: u8,
    },
    /// Split aces are not split again.
    #[error("split aces are not split again in this game")]
    NoResplitAces,
    /// A split ace takes one card only.
    #[error("a split ace takes one card only")]
    SplitAceOneCard,
    /// Split aces are not hit.
    #[error("split aces are not hit in this game")]
    NoHitSplitAces,
    /// A hard 21 stands.
    #[error("a hand of 21 takes no more cards")]
    TwentyOne,
    /// A soft 21 stands unless the rules allow hitting it.
    #[error("a soft 21 takes no more cards in this game")]
    SoftTwentyOne,
    /// The game has no double.
    #[error("no double in this game")]
    NoDouble,
    /// A double on the first two cards only.
    #[error("double only on the first two cards")]
    DoubleFirstTwoCards,
    /// Not a total the game doubles on.
    #[error("no double on {total}: this game doubles on {} only", Totals(*totals))]
    DoubleNotOnTotal {
        /// The hand's total.
        total: u8,
        /// The totals the game doubles on (bit `t` for total `t`).
        totals: u32,
    },
    /// No double after a split.
    #[error("no double after a split in this game")]
    NoDoubleAfterSplit,
    /// The game has no surrender.
    #[error("no surrender in this game")]
    NoSurrender,
    /// A surrender on the first two cards only.
    #[error("surrender only on the first two cards")]
    SurrenderFirstTwoCards,
    /// No surrender after a split.
    #[error("no surrender after a split in this game")]
    NoSurrenderAfterSplit,
    /// Anything else: the decision is not asked at this point of the round.
    #[error("not offered at this point of the round")]
    NotNow,
}

/// A set of totals as words: "10 or 11", "9 to 11".
struct Totals(u32);

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t: Vec<u32> = (0..32).filter(|t| self.0 >> t & 1 == 1).collect();
        match t.as_slice() {
            [] => f.write_str("no total"),
            [one] => write!(f, "{one}"),
            [a, b] => write!(f, "{a} or {b}"),
            [a, .., b] if (*b - *a) as usize + 1 == t.len() => write!(f, "{a} to {b}"),
            more => {
                let words: Vec<String> = more.iter().map(u32::to_string).collect();
                f.write_str(&words.join(", "))
            }
        }
    }
}

/// Why an action was refused. A refused action changes nothing (C-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The decision is not among those offered; `why` says why, in the rules' terms.
    #[error("{why}")]
    NotOffered {
        /// The decision refused.
        decision: Decision,
        /// Why it is not offered.
        why: NotOfferedWhy,
    },
    /// No seat decides now.
    #[error("no decision is asked now (phase {phase:?})")]
    NoDecisionNow {
        /// The phase.
        phase: Phase,
    },
    /// Another seat decides now.
    #[error("it is seat {turn}'s turn, not seat {seat}'s")]
    NotYourTurn {
        /// The seat that tried.
        seat: u8,
        /// The seat whose turn it is.
        turn: u8,
    },
    /// Bets are closed (the first card is out).
    #[error("bets are closed: no bet is accepted after the first card")]
    LateBet,
    /// No betting round is open (call `begin`).
    #[error("no round is open for betting")]
    NotBetting,
    /// The previous round is not finished.
    #[error("the round in progress is not finished")]
    RoundInProgress,
    /// Deal with no main bet on the table.
    #[error("no main bet: nothing to deal")]
    NoBets,
    /// Nothing for chance to do now.
    #[error("no card to deal or step to run now")]
    NoChanceStep,
    /// A bet outside its limits.
    #[error("{amount} is outside the limits {min} to {max}")]
    BetOutsideLimits {
        /// Amount.
        amount: Money,
        /// Minimum.
        min: Money,
        /// Maximum.
        max: Money,
    },
    /// A bet not a multiple of the increment.
    #[error("{amount} is not a multiple of {increment}")]
    WrongIncrement {
        /// Amount.
        amount: Money,
        /// Increment.
        increment: Money,
    },
    /// A double or insurance amount not allowed.
    #[error("{amount} is not an allowed amount ({min} to {max})")]
    WrongAmount {
        /// Amount.
        amount: Money,
        /// Minimum.
        min: Money,
        /// Maximum.
        max: Money,
    },
    /// Under `rounding = "exact"`, a payout of this bet would not be a whole cent (C-2).
    #[error("a bet of {amount} would pay {ratio} ({what}) in a fraction of a cent")]
    InexactPayout {
        /// Amount.
        amount: Money,
        /// The payout ratio.
        ratio: Ratio,
        /// Which payout.
        what: &'static str,
    },
    /// A side bet on a spot with no main bet (C-3).
    #[error("seat {seat} spot {spot} has no main bet: a side bet needs one")]
    SideBetWithoutMainBet {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
    },
    /// The spot already holds this bet.
    #[error("seat {seat} spot {spot} already holds this bet (withdraw it first)")]
    AlreadyBet {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
    },
    /// Nothing to withdraw.
    #[error("seat {seat} spot {spot} holds no bet")]
    NoBetOnSpot {
        /// Seat.
        seat: u8,
        /// Spot.
        spot: u8,
    },
    /// Not enough in the seat's bankroll.
    #[error("the balance of {balance} does not cover {needed}")]
    InsufficientBalance {
        /// Amount needed.
        needed: Money,
        /// Balance.
        balance: Money,
    },
    /// The seat's balance is above the most a seat may hold when it bets (its winnings
    /// took it there): it must take money out before it bets again.
    #[error(
        "the balance {balance} is above the table's limit of {limit} for a seat that bets: \
         withdraw to bet again"
    )]
    BalanceOverLimit {
        /// Balance.
        balance: Money,
        /// The limit.
        limit: Money,
    },
    /// A decision named a hand whose turn it is not (a retried or late decision).
    #[error("the decision is for {asked}, but it is {turn}'s turn: nothing was done")]
    NotThisHand {
        /// The hand the decision named.
        asked: HandRef,
        /// The hand whose turn it is.
        turn: HandRef,
    },
    /// No such seat in this round.
    #[error("there is no seat {seat}")]
    UnknownSeat {
        /// Seat.
        seat: u8,
    },
    /// No such spot.
    #[error("there is no spot {spot} (a seat plays spots 0 to {max})")]
    UnknownSpot {
        /// Spot.
        spot: u8,
        /// Highest spot.
        max: u8,
    },
    /// No such side bet.
    #[error("there is no side bet {bet} at this table")]
    UnknownSideBet {
        /// Index.
        bet: u8,
    },
    /// The meter store does not hold a meter the table needs.
    #[error("the meter `{id}` is not in the meter store")]
    MeterMissing {
        /// The meter.
        id: MeterId,
    },
    /// A burn with no card left.
    #[error("the shoe is empty")]
    ShoeEmpty,
}
