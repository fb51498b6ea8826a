//! The round: a table's state from the first bet to the last settlement.
//!
//! A [`Round`] owns the shoe, the generator used for shuffles and the seats'
//! balances, and is reused from one round to the next ([`Round::begin`]), so the
//! automated path allocates nothing. Players act through [`Round::apply`]: the
//! action is verified, then applied, or refused with an [`ActionError`] that changes
//! nothing. Steps nobody decides (dealing, the peek, dealer play, settlement) are
//! chance steps: by default the round runs them by itself after each action; with
//! [`Round::set_auto`]`(false)` the caller runs them one at a time with
//! [`Round::advance`]. Every card, decision, chip movement and meter change goes
//! to an [`EventSink`].

mod action;
mod auto;
mod decide;
mod event;
mod flow;
mod settle;
mod slots;
mod table;
mod view;

pub use action::{
    Action, ActionError, AmountRange, Decision, Decisions, HandRef, Legal, NotOfferedWhy, Offer,
    SpotBets, Turn,
};
pub use event::{
    Account, BetKind, Event, EventSink, FnSink, MeterWhy, Move, NoopSink, Outcome, ParsePaysError,
    Pays, Place, PublicEvent, Settlement, ShuffleWhy, Target, Why,
};
pub use table::{Line, Progressive, SideBet, Table, TableError, MAX_SEATS, MAX_SIDE_BETS};
pub use view::{DealerView, HandView, SideBetView, SpotView, View};

use crate::card::Card;
use crate::hand::Hand;
use crate::meter::{MeterChange, MeterId, Meters};
use crate::money::Money;
use crate::shoe::Shoe;
use rand_core::{CryptoRng, RngCore};
use serde::Serialize;

/// The largest balance a seat may hold (10^16 cents): far beyond any table, and far
/// enough from `i64::MAX` that no settlement can overflow.
pub const MAX_BALANCE: Money = Money(10_000_000_000_000_000);

/// The most one seat may receive in one round, over all its spots, hands and wagers
/// (stakes returned included), that a rules file may make possible (10^18 cents):
/// validation refuses a file whose pay tables and limits could pay more. A seat at
/// [`MAX_BALANCE`] that receives it still fits an `i64`, and so does a house account
/// at zero that pays it to every one of [`MAX_SEATS`] seats in one round.
pub const MAX_ROUND_PAYOUT: Money = Money(1_000_000_000_000_000_000);
const _: () = assert!(MAX_BALANCE.0 as i128 + (MAX_ROUND_PAYOUT.0 as i128) <= i64::MAX as i128);

/// The largest balance a seat may sit down with: a seat bets only at or below
/// [`MAX_BALANCE`], so winnings take it at most [`MAX_ROUND_PAYOUT`] above; such a seat
/// is seated (its next session opens) but may not bet until money is taken out.
pub const MAX_SEATED_BALANCE: Money = Money(MAX_BALANCE.0 + MAX_ROUND_PAYOUT.0);
const _: () = assert!(MAX_SEATS as i128 * (MAX_ROUND_PAYOUT.0 as i128) <= i64::MAX as i128);

/// The phase of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Bets are being placed.
    Betting,
    /// The initial cards are dealt and the side bets settled.
    Dealing,
    /// Early surrender is offered before the peek.
    EarlySurrender,
    /// Insurance and even money are offered (dealer ace).
    Insurance,
    /// The dealer checks for a natural.
    Peek,
    /// The players play their hands.
    PlayerTurns,
    /// The dealer turns the hole card and plays.
    Dealer,
    /// The main bets are settled.
    Settlement,
    /// No round in progress.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Done,
    Betting,
    Dealing(u8),
    SideBets,
    EarlySurrender(u8),
    Insurance(u8),
    Peek,
    Play(u8, u8),
    Reveal,
    DealerDraw,
    Settle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SideState {
    Off,
    Open,
    AwaitThird,
    AwaitNatural,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Open,
    Stood,
    Busted,
    Surrendered,
    Natural,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spot {
    pub side: [Money; MAX_SIDE_BETS],
    pub side_state: [SideState; MAX_SIDE_BETS],
    pub nhands: u8,
    pub first_two: [Card; 2],
    pub insurance: Money,
    pub lost: Money,
}

const NO_CARD: Card = Card::new(crate::card::Rank::Ace, crate::card::Suit::Clubs);

impl Spot {
    const EMPTY: Spot = Spot {
        side: [Money::ZERO; MAX_SIDE_BETS],
        side_state: [SideState::Off; MAX_SIDE_BETS],
        nhands: 0,
        first_two: [NO_CARD; 2],
        insurance: Money::ZERO,
        lost: Money::ZERO,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PHand {
    pub hand: Hand,
    pub stake: Money,
    pub extra: Money,
    pub status: Status,
    pub split: bool,
    pub split_aces: bool,
    pub waiting: bool,
    pub settled: bool,
}

impl PHand {
    const fn new(stake: Money) -> PHand {
        PHand {
            hand: Hand::EMPTY,
            stake,
            extra: Money::ZERO,
            status: Status::Open,
            split: false,
            split_aces: false,
            waiting: false,
            settled: false,
        }
    }
    #[inline]
    pub fn total_stake(&self) -> Money {
        self.stake + self.extra
    }
}

/// What a strategy sees when asked for a decision on the automated path.
#[derive(Debug, Clone, Copy)]
pub struct DecisionContext<'a> {
    /// The hand deciding.
    pub at: Place,
    /// The phase (insurance, early surrender or player turns).
    pub phase: Phase,
    /// The hand's cards.
    pub cards: &'a [Card],
    /// Best total.
    pub total: u8,
    /// Whether an ace counts 11.
    pub soft: bool,
    /// The dealer's up card.
    pub up: Card,
    /// The hand's stake (before any double).
    pub stake: Money,
    /// Hands the spot holds (more than 1 after a split).
    pub hands: u8,
    /// Whether the hand came from a split.
    pub split: bool,
    /// The decisions offered, with the allowed amounts.
    pub legal: Legal,
}

/// What decides on the automated path ([`Round::play_auto`]): any
/// `FnMut(&DecisionContext) -> Decision`, or a type of its own, whose `decide` may be
/// marked to be inlined into the engine's round (a closure cannot be).
pub trait Strategy {
    /// The decision for the situation `c` presents.
    fn decide(&mut self, c: &DecisionContext<'_>) -> Decision;
}

impl<F: FnMut(&DecisionContext<'_>) -> Decision> Strategy for F {
    #[inline(always)]
    fn decide(&mut self, c: &DecisionContext<'_>) -> Decision {
        self(c)
    }
}

pub(crate) trait Io {
    fn emit(&mut self, e: Event);
    /// Side bet `bet` (its index in the table's side bets) settled.
    fn emit_side(&mut self, bet: usize, s: Settlement);
    fn meter_value(&self, id: &MeterId) -> Option<Money>;
    fn contribute(&mut self, id: &MeterId, amount: Money) -> Option<MeterChange>;
    fn award(&mut self, id: &MeterId, percent: u8) -> Option<(Money, MeterChange)>;
    fn refill(&mut self, id: &MeterId, to: Money) -> Option<MeterChange>;
}

struct IoImpl<'a, M: ?Sized, S: ?Sized> {
    m: &'a mut M,
    s: &'a mut S,
}

impl<M: Meters + ?Sized, S: EventSink + ?Sized> Io for IoImpl<'_, M, S> {
    #[inline(always)]
    fn emit(&mut self, e: Event) {
        self.s.event(&e)
    }
    #[inline(always)]
    fn emit_side(&mut self, bet: usize, s: Settlement) {
        self.s.side_settled(bet, &s)
    }
    fn meter_value(&self, id: &MeterId) -> Option<Money> {
        self.m.value(id)
    }
    fn contribute(&mut self, id: &MeterId, amount: Money) -> Option<MeterChange> {
        self.m.contribute(id, amount)
    }
    fn award(&mut self, id: &MeterId, percent: u8) -> Option<(Money, MeterChange)> {
        self.m.award(id, percent)
    }
    fn refill(&mut self, id: &MeterId, to: Money) -> Option<MeterChange> {
        self.m.refill(id, to)
    }
}

/// The state of a table's round, reused from round to round.
#[derive(Debug, Clone, PartialEq)]
pub struct Round<R> {
    pub(crate) table: Table,
    pub(crate) shoe: Shoe,
    pub(crate) rng: R,
    pub(crate) balances: [Money; MAX_SEATS],
    pub(crate) nseats: u8,
    pub(crate) round_no: u64,
    pub(crate) stage: Stage,
    pub(crate) auto: bool,
    /// The table's spots by spot index (seat times spots per seat plus spot).
    pub(crate) spots: slots::Slots<Spot, SPOT_SLOTS>,
    /// Each spot's hands: spot index times [`MAX_HANDS`] plus the hand (a fixed stride,
    /// whatever the table's limit, so a hand's slot is worked out without a load).
    pub(crate) hands: slots::Slots<PHand, HAND_SLOTS>,
    pub(crate) order: SpotOrder,
    pub(crate) dealer: Hand,
    /// The dealer's second card, the up card, once dealt ([`NO_CARD`] before): read at
    /// every decision.
    pub(crate) up: Card,
    pub(crate) hole_turned: bool,
    /// `Some(true)`: the dealer's natural is known; `Some(false)`: known not to be there.
    pub(crate) natural_known: Option<bool>,
    /// The side bets placed this round, bit `k` for side bet `k` (a bet withdrawn
    /// keeps its bit): a side bet without its bit is on no spot.
    pub(crate) sides_on: u8,
    /// Whether a side bet waits for the hole card (a line on the dealer's natural).
    pub(crate) natural_waits: bool,
    /// Whether a 7s bet was put to wait for its third card this round (two 7s).
    pub(crate) third_waits: bool,
    /// Whether insurance was placed this round (if not, none is on the felt).
    pub(crate) insured: bool,
    /// The seat and the seat's spot of each spot index.
    pub(crate) seat_spot: [(u8, u8); SPOT_SLOTS],
    /// A main-bet amount known to pass the table's checks (limits, increment, exact
    /// payouts), once one has passed: the same amount is not checked again.
    pub(crate) verified_main: Option<Money>,
    /// The same for each side bet.
    pub(crate) verified_side: [Option<Money>; MAX_SIDE_BETS],
    /// The table's side bets in settlement order with how each settles at the deal,
    /// kept here: read at every deal with side bets.
    pub(crate) at_deal: [table::DealSide; MAX_SIDE_BETS],
    /// How many of `at_deal` are the table's.
    pub(crate) nsides: u8,
}

/// The spots in play this round, in dealing order: a fixed array, so the hot path
/// neither allocates nor checks bounds (an index is masked into the array).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpotOrder {
    ids: [u8; SPOT_SLOTS],
    len: u8,
}

impl SpotOrder {
    const EMPTY: SpotOrder = SpotOrder {
        ids: [0; SPOT_SLOTS],
        len: 0,
    };

    /// Spots in play.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// No spot in play.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds a spot not yet in play, keeping dealing order (at most [`MAX_SPOTS`] are
    /// ever added: one per spot index).
    #[inline]
    pub(crate) fn insert(&mut self, si: u8) {
        let mut at = usize::from(self.len) & (SPOT_SLOTS - 1);
        while at > 0 && self.ids[at - 1] > si {
            self.ids[at] = self.ids[at - 1];
            at -= 1;
        }
        self.ids[at] = si;
        self.len += 1;
    }

    /// Takes a spot out of play (its bet was withdrawn).
    pub(crate) fn remove(&mut self, si: u8) {
        let n = self.len();
        if let Some(at) = self.ids[..n].iter().position(|&x| x == si) {
            self.ids.copy_within(at + 1..n, at);
            self.len -= 1;
        }
    }

    /// The spots in play.
    #[inline]
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, u8> {
        self.ids[..usize::from(self.len) & (SPOT_SLOTS - 1)].iter()
    }
}

/// Equal when the spots in play are (slots past the end are not compared).
impl PartialEq for SpotOrder {
    fn eq(&self, other: &SpotOrder) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for SpotOrder {}

impl std::ops::Index<usize> for SpotOrder {
    type Output = u8;
    #[inline(always)]
    fn index(&self, o: usize) -> &u8 {
        &self.ids[o & (SPOT_SLOTS - 1)]
    }
}

/// The most spots at a table (seats times spots per seat).
pub(crate) const MAX_SPOTS: usize = MAX_SEATS * 7;

/// Slots of [`Round::seat_spot`]: a power of two above [`MAX_SPOTS`], so a spot index
/// is kept in bounds by a mask.
pub(crate) const SPOT_SLOTS: usize = 64;
const _: () = assert!(SPOT_SLOTS.is_power_of_two() && SPOT_SLOTS >= MAX_SPOTS);

/// The most hands a spot can hold (`player.max_split_hands` is 1 to 8).
pub(crate) const MAX_HANDS: usize = 8;

/// Slots of [`Round::hands`]: room for every spot's hands, a power of two.
pub(crate) const HAND_SLOTS: usize = SPOT_SLOTS * MAX_HANDS;
const _: () = assert!(HAND_SLOTS.is_power_of_two());

impl PartialEq for Table {
    fn eq(&self, other: &Table) -> bool {
        std::sync::Arc::ptr_eq(&self.cfg, &other.cfg)
    }
}

impl<R: RngCore + CryptoRng> Round<R> {
    /// A round state for `balances.len()` seats; see [`Table::round`].
    pub fn new(table: &Table, shoe: Shoe, rng: R, balances: &[Money]) -> Result<Self, TableError> {
        let cfg = &table.cfg;
        if balances.is_empty() || balances.len() > usize::from(cfg.seats) {
            return Err(TableError::Seats {
                given: balances.len(),
                max: cfg.seats,
            });
        }
        if shoe.decks() != cfg.decks {
            return Err(TableError::ShoeDecks {
                shoe: shoe.decks(),
                rules: cfg.decks,
            });
        }
        let mut b = [Money::ZERO; MAX_SEATS];
        for (i, &m) in balances.iter().enumerate() {
            if m < Money::ZERO || m > MAX_SEATED_BALANCE {
                return Err(TableError::Balance(i as u8));
            }
            b[i] = m;
        }
        let nspots = balances.len() * usize::from(cfg.spots);
        // The rules allow 1 to 8 hands a spot (`rules::validate`): each fits its stride,
        // so a spot's hands never reach the next spot's slots.
        assert!(usize::from(cfg.max_hands) <= MAX_HANDS);
        let mut seat_spot = [(0, 0); SPOT_SLOTS];
        for (i, p) in seat_spot.iter_mut().enumerate() {
            *p = (
                (i / usize::from(cfg.spots)) as u8,
                (i % usize::from(cfg.spots)) as u8,
            );
        }
        Ok(Round {
            table: table.clone(),
            shoe,
            rng,
            balances: b,
            nseats: balances.len() as u8,
            round_no: 0,
            stage: Stage::Done,
            auto: true,
            spots: slots::Slots::new(Spot::EMPTY, nspots),
            hands: slots::Slots::new(PHand::new(Money::ZERO), nspots * MAX_HANDS),
            order: SpotOrder::EMPTY,
            dealer: Hand::EMPTY,
            up: NO_CARD,
            hole_turned: false,
            natural_known: None,
            sides_on: 0,
            natural_waits: false,
            third_waits: false,
            insured: false,
            seat_spot,
            verified_main: None,
            verified_side: [None; MAX_SIDE_BETS],
            at_deal: cfg.at_deal,
            nsides: cfg.sides.len() as u8,
        })
    }

    /// Whether chance steps run by themselves after each action (default `true`).
    pub fn set_auto(&mut self, auto: bool) {
        self.auto = auto;
    }

    /// Numbers the next round `n` (its `round-started` and `round-ended` events): a front
    /// end that keeps rounds in books numbers them as the books do. Without it rounds
    /// count 1, 2, ... from this state's creation.
    pub fn number_next_round(&mut self, n: u64) {
        self.round_no = n.saturating_sub(1);
    }

    /// Opens betting for the next round: a CSM takes every card back and reshuffles;
    /// a shoe whose cut card came out (or never shuffled) is shuffled; the burn is
    /// dealt after a shuffle (C-12). Refused while a round is in progress.
    pub fn begin<S: EventSink + ?Sized>(&mut self, sink: &mut S) -> Result<(), ActionError> {
        if !matches!(self.stage, Stage::Done) {
            return Err(ActionError::RoundInProgress);
        }
        let mut io = IoImpl {
            m: &mut crate::meter::NoMeters,
            s: sink,
        };
        self.begin_round(&mut io);
        Ok(())
    }

    /// Applies an action: verified, then applied (events to `sink`), or refused with
    /// an error that changes nothing. With automation on, chance steps that follow
    /// run before this returns.
    pub fn apply<M: Meters + ?Sized, S: EventSink + ?Sized>(
        &mut self,
        action: Action,
        meters: &mut M,
        sink: &mut S,
    ) -> Result<(), ActionError> {
        let mut io = IoImpl { m: meters, s: sink };
        self.apply_io(action, &mut io)?;
        if matches!(self.stage, Stage::Betting) {
            // A bet or a withdrawal: nothing runs until the deal.
        } else if self.auto {
            self.run(&mut io);
        } else {
            self.normalize(&mut io);
        }
        Ok(())
    }

    /// Places one spot's main bet and side bets together, all or nothing: the checks
    /// and the events of [`SpotBets::actions`] applied in turn, every check before the
    /// first change. A refusal gives the error those actions would meet first (a bet
    /// the seat's funds do not cover: its amount against what the bets before it
    /// leave) and leaves nothing placed. Unlike an [`Action`] it is not a step a log
    /// keeps or replays: the simulators bet this way; a front end that keeps its
    /// actions applies [`SpotBets::actions`].
    pub fn place_spot<S: EventSink + ?Sized>(
        &mut self,
        bets: &SpotBets,
        sink: &mut S,
    ) -> Result<(), ActionError> {
        let mut io = IoImpl {
            m: &mut crate::meter::NoMeters,
            s: sink,
        };
        self.place_spot_io(bets, &mut io)
    }

    /// [`Round::apply`] collecting the events in a vector.
    pub fn apply_collect<M: Meters + ?Sized>(
        &mut self,
        action: Action,
        meters: &mut M,
    ) -> Result<Vec<Event>, ActionError> {
        let mut v = Vec::new();
        self.apply(action, meters, &mut v)?;
        Ok(v)
    }

    /// Runs one chance step (a card, the peek, a dealer card, the settlement).
    pub fn advance<M: Meters + ?Sized, S: EventSink + ?Sized>(
        &mut self,
        meters: &mut M,
        sink: &mut S,
    ) -> Result<(), ActionError> {
        let mut io = IoImpl { m: meters, s: sink };
        if !self.normalize(&mut io) {
            return Err(ActionError::NoChanceStep);
        }
        self.step(&mut io);
        self.normalize(&mut io);
        Ok(())
    }

    /// Runs chance steps until a seat must decide or the round is done.
    pub fn run_chance<M: Meters + ?Sized, S: EventSink + ?Sized>(
        &mut self,
        meters: &mut M,
        sink: &mut S,
    ) {
        let mut io = IoImpl { m: meters, s: sink };
        self.run(&mut io);
    }

    /// The automated path: deals (if betting is open), runs every chance step and
    /// asks `strategy` for each decision, until the round is done. A decision the
    /// strategy returns that is not legal stops the round there with the error.
    /// Compiled into its caller, which then keeps the round's state at hand (called
    /// out of line, a round took about 100-145 instructions more). The simulator calls
    /// it from `play_round`, a function of one round kept out of its chunk loop
    /// (docs/architecture.md, "The round out of line").
    #[inline(always)]
    pub fn play_auto<F, M, S>(
        &mut self,
        strategy: &mut F,
        meters: &mut M,
        sink: &mut S,
    ) -> Result<(), ActionError>
    where
        F: Strategy + ?Sized,
        M: Meters + ?Sized,
        S: EventSink + ?Sized,
    {
        let mut io = IoImpl { m: meters, s: sink };
        if matches!(self.stage, Stage::Betting) {
            // `apply_io(Action::Deal)`, without the dispatch on the action.
            self.deal(&mut io)?;
            if self.auto_round(strategy, &mut io)? {
                return Ok(());
            }
        }
        // The general course: a round begun by hand, or an offer before the peek.
        loop {
            self.run(&mut io);
            match self.stage {
                Stage::Done => return Ok(()),
                // `run` stops in the players' turns only where a hand decides.
                Stage::Play(o, h) if usize::from(o) < self.order.len() => {
                    self.auto_decide(o, h, strategy, &mut io)?;
                    continue;
                }
                _ => {}
            }
            let Some((seat, d, legal)) = self.ask(strategy) else {
                return Err(ActionError::NoDecisionNow {
                    phase: self.phase(),
                });
            };
            self.decide_with(seat, d, legal, &mut io)?;
        }
    }

    /// Burns the next card to the rack, face up or down, logged (LA-4): for a
    /// dealer-operated table. Refused when the shoe is empty.
    pub fn burn<S: EventSink + ?Sized>(
        &mut self,
        face_up: bool,
        sink: &mut S,
    ) -> Result<Card, ActionError> {
        let was = self.shoe.cut_card_out();
        let c = self.shoe.burn().ok_or(ActionError::ShoeEmpty)?;
        if !was && self.shoe.cut_card_out() {
            sink.event(&Event::CutCardOut {
                position: self.shoe.dealt() as u16,
            });
        }
        sink.event(&Event::Burned { card: c, face_up });
        Ok(c)
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        match self.stage {
            Stage::Done => Phase::Done,
            Stage::Betting => Phase::Betting,
            Stage::Dealing(_) | Stage::SideBets => Phase::Dealing,
            Stage::EarlySurrender(_) => Phase::EarlySurrender,
            Stage::Insurance(_) => Phase::Insurance,
            Stage::Peek => Phase::Peek,
            Stage::Play(..) => Phase::PlayerTurns,
            Stage::Reveal | Stage::DealerDraw => Phase::Dealer,
            Stage::Settle => Phase::Settlement,
        }
    }

    /// Whose turn it is.
    pub fn turn(&self) -> Turn {
        self.legal_actions().turn
    }

    /// What the actor may do now.
    pub fn legal_actions(&self) -> Legal {
        self.legal_now()
    }

    /// The table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The round number (1 for the first round; 0 before it).
    pub fn number(&self) -> u64 {
        self.round_no
    }

    /// A seat's balance.
    pub fn balance(&self, seat: u8) -> Option<Money> {
        (seat < self.nseats).then(|| self.balances[usize::from(seat)])
    }

    /// Every seat's balance.
    pub fn balances(&self) -> &[Money] {
        &self.balances[..usize::from(self.nseats)]
    }

    /// Adds to (or, negative, takes from) a seat's balance between rounds; refused
    /// during a round, or if the balance would go below zero or above [`MAX_BALANCE`].
    pub fn deposit(&mut self, seat: u8, amount: Money) -> Result<Money, ActionError> {
        if !matches!(self.stage, Stage::Done) {
            return Err(ActionError::RoundInProgress);
        }
        let b = self
            .balance(seat)
            .ok_or(ActionError::UnknownSeat { seat })?;
        match b.0.checked_add(amount.0).map(Money) {
            Some(a) if a >= Money::ZERO && a <= MAX_BALANCE => {
                self.balances[usize::from(seat)] = a;
                Ok(a)
            }
            _ => Err(ActionError::InsufficientBalance {
                needed: Money(amount.0.saturating_neg()),
                balance: b,
            }),
        }
    }

    /// The number of seats in the round.
    pub fn seats(&self) -> u8 {
        self.nseats
    }

    /// The shoe (for audits and tests; never show its undealt cards to a player).
    pub fn shoe(&self) -> &Shoe {
        &self.shoe
    }

    /// The chips on the felt: every stake placed and not yet settled.
    pub fn felt(&self) -> Money {
        let mut t = Money::ZERO;
        for (i, s) in self.spots.live().iter().enumerate() {
            for (k, st) in s.side_state.iter().enumerate() {
                if *st != SideState::Off {
                    t += s.side[k];
                }
            }
            t += s.insurance;
            let base = i * self.mh();
            for h in &self.hands.live()[base..base + usize::from(s.nhands)] {
                if !h.settled {
                    t += h.total_stake();
                }
            }
        }
        t
    }

    /// Every card in play this round (players' hands and the dealer's), in no
    /// particular order: for conservation checks.
    pub fn cards_in_play(&self) -> impl Iterator<Item = Card> + '_ {
        let mh = self.mh();
        let players = self
            .spots
            .live()
            .iter()
            .enumerate()
            .flat_map(move |(i, s)| {
                self.hands.live()[i * mh..i * mh + usize::from(s.nhands)]
                    .iter()
                    .flat_map(|h| h.hand.cards().iter().copied())
            });
        let dealer: &[Card] = if matches!(self.stage, Stage::Done) {
            &[]
        } else {
            self.dealer.cards()
        };
        let players_live = !matches!(self.stage, Stage::Done);
        players
            .filter(move |_| players_live)
            .chain(dealer.iter().copied())
    }

    /// Gives back the shoe, the generator and the balances.
    pub fn into_parts(self) -> (Shoe, R, Vec<Money>) {
        let b = self.balances().to_vec();
        (self.shoe, self.rng, b)
    }
}
