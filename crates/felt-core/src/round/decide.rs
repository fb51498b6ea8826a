//! Verifying and applying actions: bets, the deal, and the seats' decisions.
//! Every check comes before the first change, so a refused action changes nothing.

use super::action::{
    Action, ActionError, AmountRange, Decision, Decisions, HandRef, Legal, NotOfferedWhy, Offer,
    SpotBets, Turn,
};
use super::event::{Account, BetKind, Event, Move, Why};
use super::flow::PlayState;
use super::{
    DecisionContext, Io, PHand, Phase, Round, SideState, Spot, Stage, Status, Strategy,
    MAX_BALANCE, MAX_SIDE_BETS,
};
use crate::card::Rank;
use crate::money::{Money, Payout};
use crate::rules::{InsuranceOffer, LinePay, Surrender};
use rand_core::{CryptoRng, RngCore};

/// Rounds `a` down to a multiple of `step`.
fn floor_to(a: Money, step: Money) -> Money {
    if step.0 <= 0 {
        return a;
    }
    Money(a.0 - a.0.rem_euclid(step.0))
}

impl<R: RngCore + CryptoRng> Round<R> {
    pub(crate) fn apply_io<I: Io>(
        &mut self,
        action: Action,
        io: &mut I,
    ) -> Result<(), ActionError> {
        match action {
            Action::Bet { seat, spot, amount } => self.bet(seat, spot, amount, io),
            Action::SideBet {
                seat,
                spot,
                bet,
                amount,
            } => self.side_bet(seat, spot, bet, amount, io),
            Action::Withdraw { seat, spot } => self.withdraw(seat, spot, io),
            Action::Deal => self.deal(io),
            Action::Play { seat, at, decision } => self.decide(seat, at, decision, io),
            Action::Timeout { seat, at } => self.time_out(seat, at, io),
        }
    }

    fn betting_open(&self) -> Result<(), ActionError> {
        match self.stage {
            Stage::Betting => Ok(()),
            Stage::Done => Err(ActionError::NotBetting),
            _ => Err(ActionError::LateBet),
        }
    }

    fn spot_index(&self, seat: u8, spot: u8) -> Result<u8, ActionError> {
        if seat >= self.nseats {
            return Err(ActionError::UnknownSeat { seat });
        }
        let spots = self.table.cfg.spots;
        if spot >= spots {
            return Err(ActionError::UnknownSpot {
                spot,
                max: spots - 1,
            });
        }
        Ok(seat * spots + spot)
    }

    fn check_funds(&self, seat: u8, needed: Money) -> Result<(), ActionError> {
        let balance = self.balances[usize::from(seat)];
        if needed > balance {
            return Err(ActionError::InsufficientBalance { needed, balance });
        }
        Ok(())
    }

    /// [`Self::check_funds`] for a new wager, which a seat above [`MAX_BALANCE`] may
    /// not place: its winnings could take it past what the books can hold.
    #[inline]
    fn check_wager_funds(&self, seat: u8, needed: Money) -> Result<(), ActionError> {
        let balance = self.balances[usize::from(seat)];
        if balance > MAX_BALANCE {
            return Err(ActionError::BalanceOverLimit {
                balance,
                limit: MAX_BALANCE,
            });
        }
        self.check_funds(seat, needed)
    }

    fn check_exact(
        &self,
        amount: Money,
        payout: Payout,
        what: &'static str,
    ) -> Result<(), ActionError> {
        if self.table.cfg.exact && super::settle::returned(payout, amount).1 != 0 {
            return Err(ActionError::InexactPayout {
                amount,
                ratio: payout.ratio,
                what,
            });
        }
        Ok(())
    }

    /// The checks of a main-bet amount against the table (they depend on nothing else).
    fn check_main_amount(&self, amount: Money) -> Result<(), ActionError> {
        let cfg = &self.table.cfg;
        let l = cfg.main;
        if amount < l.min || amount > l.max {
            return Err(ActionError::BetOutsideLimits {
                amount,
                min: l.min,
                max: l.max,
            });
        }
        if !amount.is_multiple_of(l.increment) {
            return Err(ActionError::WrongIncrement {
                amount,
                increment: l.increment,
            });
        }
        self.check_exact(amount, cfg.blackjack, "blackjack")?;
        let half = Payout::to(1, 2);
        if cfg.insurance == InsuranceOffer::Half {
            self.check_exact(amount, half, "insurance is half the bet")?;
        }
        if cfg.surrender != Surrender::None {
            self.check_exact(amount, half, "surrender returns half the bet")?;
        }
        Ok(())
    }

    /// The checks of an amount on side bet `bet` against the table.
    fn check_side_amount(&self, bet: usize, amount: Money) -> Result<(), ActionError> {
        let b = &self.table.cfg.sides[bet];
        let l = b.limits;
        if amount < l.min || amount > l.max {
            return Err(ActionError::BetOutsideLimits {
                amount,
                min: l.min,
                max: l.max,
            });
        }
        if !amount.is_multiple_of(l.increment) {
            return Err(ActionError::WrongIncrement {
                amount,
                increment: l.increment,
            });
        }
        for line in &b.lines {
            if let LinePay::Odds(ratio) = line.pay {
                let p = Payout {
                    ratio,
                    basis: line.basis,
                };
                self.check_exact(amount, p, "a side-bet line")?;
            }
        }
        Ok(())
    }

    fn bet<I: Io>(
        &mut self,
        seat: u8,
        spot: u8,
        amount: Money,
        io: &mut I,
    ) -> Result<(), ActionError> {
        let si = self.check_bet(seat, spot, amount)?;
        self.check_wager_funds(seat, amount)?;
        self.put_bet(seat, si, amount, io);
        Ok(())
    }

    /// A main bet's checks but the funds; the spot's index.
    #[inline(always)]
    fn check_bet(&self, seat: u8, spot: u8, amount: Money) -> Result<u8, ActionError> {
        self.betting_open()?;
        let si = self.spot_index(seat, spot)?;
        if self.spots[usize::from(si)].nhands != 0 {
            return Err(ActionError::AlreadyBet { seat, spot });
        }
        if Some(amount) != self.verified_main {
            self.check_main_amount(amount)?;
        }
        Ok(si)
    }

    /// Puts a checked main bet on spot `si`.
    #[inline(always)]
    fn put_bet<I: Io>(&mut self, seat: u8, si: u8, amount: Money, io: &mut I) {
        self.verified_main = Some(amount);
        self.balances[usize::from(seat)] -= amount;
        let i = usize::from(si) * self.mh();
        self.hands[i] = PHand::new(amount);
        self.spots[usize::from(si)].nhands = 1;
        self.order.insert(si);
        io.emit(Event::Moved(Move {
            from: Account::Seat { seat },
            to: Account::Felt,
            amount,
            at: self.place(si, 0),
            bet: BetKind::Main,
            why: Why::Wager,
        }));
    }

    fn side_bet<I: Io>(
        &mut self,
        seat: u8,
        spot: u8,
        bet: u8,
        amount: Money,
        io: &mut I,
    ) -> Result<(), ActionError> {
        self.betting_open()?;
        let si = self.spot_index(seat, spot)?;
        self.side_exists(bet)?;
        let s = &self.spots[usize::from(si)];
        if s.nhands == 0 {
            return Err(ActionError::SideBetWithoutMainBet { seat, spot });
        }
        if s.side_state[usize::from(bet)] != SideState::Off {
            return Err(ActionError::AlreadyBet { seat, spot });
        }
        self.check_side_cached(usize::from(bet), amount)?;
        self.check_wager_funds(seat, amount)?;
        self.put_side(seat, si, usize::from(bet), amount, io);
        Ok(())
    }

    /// The table has a side bet `bet`.
    #[inline(always)]
    fn side_exists(&self, bet: u8) -> Result<(), ActionError> {
        if usize::from(bet) < self.table.cfg.sides.len() {
            Ok(())
        } else {
            Err(ActionError::UnknownSideBet { bet })
        }
    }

    /// [`Self::check_side_amount`] unless this amount on side bet `k` passed before.
    #[inline(always)]
    fn check_side_cached(&self, k: usize, amount: Money) -> Result<(), ActionError> {
        if Some(amount) != self.verified_side[k] {
            self.check_side_amount(k, amount)?;
        }
        Ok(())
    }

    /// Puts a checked side bet `k` on spot `si`, which holds a main bet.
    #[inline(always)]
    fn put_side<I: Io>(&mut self, seat: u8, si: u8, k: usize, amount: Money, io: &mut I) {
        debug_assert!(self.spots[usize::from(si)].nhands != 0);
        self.verified_side[k] = Some(amount);
        self.balances[usize::from(seat)] -= amount;
        let s = &mut self.spots[usize::from(si)];
        s.side[k] = amount;
        s.side_state[k] = SideState::Open;
        self.sides_on |= 1 << k;
        io.emit(Event::Moved(Move {
            from: Account::Seat { seat },
            to: Account::Felt,
            amount,
            at: self.place(si, 0),
            bet: BetKind::Side(self.table.cfg.sides[k].id),
            why: Why::Wager,
        }));
    }

    /// [`Round::place_spot`]: every check of [`SpotBets::actions`] in their order, each
    /// bet's funds against what the bets before it leave, then the bets.
    #[inline(always)]
    pub(crate) fn place_spot_io<I: Io>(
        &mut self,
        bets: &SpotBets,
        io: &mut I,
    ) -> Result<(), ActionError> {
        let SpotBets {
            seat,
            spot,
            main,
            sides,
        } = *bets;
        let si = self.check_bet(seat, spot, main)?;
        self.check_wager_funds(seat, main)?;
        if sides == [Money::ZERO; MAX_SIDE_BETS] {
            self.put_bet(seat, si, main, io);
            return Ok(());
        }
        // An empty spot holds no side bet, so each may be placed once the main bet is.
        debug_assert!(self.spots[usize::from(si)].side_state == [SideState::Off; MAX_SIDE_BETS]);
        // The balance the actions would leave before each side bet: within the limit,
        // as the main bet's check found it, and only ever lower.
        let mut left = self.balances[usize::from(seat)] - main;
        for (k, &amount) in sides.iter().enumerate() {
            if amount != Money::ZERO {
                self.side_exists(k as u8)?;
                self.check_side_cached(k, amount)?;
                if amount > left {
                    return Err(ActionError::InsufficientBalance {
                        needed: amount,
                        balance: left,
                    });
                }
                left -= amount;
            }
        }
        self.put_bet(seat, si, main, io);
        for (k, &amount) in sides.iter().enumerate() {
            if amount != Money::ZERO {
                self.put_side(seat, si, k, amount, io);
            }
        }
        Ok(())
    }

    fn withdraw<I: Io>(&mut self, seat: u8, spot: u8, io: &mut I) -> Result<(), ActionError> {
        self.betting_open()?;
        let si = self.spot_index(seat, spot)?;
        let s = self.spots[usize::from(si)];
        if s.nhands == 0 {
            return Err(ActionError::NoBetOnSpot { seat, spot });
        }
        let at = self.place(si, 0);
        for (k, st) in s.side_state.iter().enumerate() {
            if *st != SideState::Off {
                self.balances[usize::from(seat)] += s.side[k];
                io.emit(Event::Moved(Move {
                    from: Account::Felt,
                    to: Account::Seat { seat },
                    amount: s.side[k],
                    at,
                    bet: BetKind::Side(self.table.cfg.sides[k].id),
                    why: Why::Withdrawn,
                }));
            }
        }
        let main = self.hands[usize::from(si) * self.mh()].stake;
        self.balances[usize::from(seat)] += main;
        io.emit(Event::Moved(Move {
            from: Account::Felt,
            to: Account::Seat { seat },
            amount: main,
            at,
            bet: BetKind::Main,
            why: Why::Withdrawn,
        }));
        self.spots[usize::from(si)] = Spot::EMPTY;
        self.order.remove(si);
        Ok(())
    }

    /// The deal: bets close, the meters take their increments, the first card is next.
    #[inline(always)]
    pub(crate) fn deal<I: Io>(&mut self, io: &mut I) -> Result<(), ActionError> {
        self.betting_open()?;
        // The spots with a bet, in dealing order, are those in `order`.
        if self.order.len() == 0 {
            return Err(ActionError::NoBets);
        }
        // Only a side bet on the felt can need a meter.
        let progressive = self.sides_on & self.table.cfg.progressives;
        if progressive != 0 {
            self.check_meters(progressive, io)?;
        }
        // Applied: lock-out, then the meters take their increments (B7-1).
        io.emit(Event::BetsClosed);
        if progressive != 0 {
            self.contribute_increments(progressive, io);
        }
        self.stage = Stage::Dealing(0);
        Ok(())
    }

    /// Each progressive bet of `progressive` (bit `k` for side bet `k`) on a spot adds
    /// its increment to its meter, spot by spot in dealing order (B7-1).
    #[inline(always)]
    fn contribute_increments<I: Io>(&mut self, progressive: u8, io: &mut I) {
        for o in 0..self.order.len() {
            let si = self.order[o];
            for k in side_bets_in(progressive) {
                let b = &self.table.cfg.sides[k];
                let (id, Some(p)) = (&b.id, &b.progressive) else {
                    continue;
                };
                if self.spots[usize::from(si)].side_state[k] == SideState::Off
                    || p.increment == Money::ZERO
                {
                    continue;
                }
                if let Some(change) = io.contribute(&p.meter, p.increment) {
                    io.emit(Event::Meter {
                        change,
                        why: super::event::MeterWhy::Increment,
                    });
                    io.emit(Event::Moved(Move {
                        from: Account::House,
                        to: Account::Meter { id: p.meter },
                        amount: p.increment,
                        at: self.place(si, 0),
                        bet: BetKind::Side(*id),
                        why: Why::MeterIncrement,
                    }));
                }
            }
        }
    }

    /// Every meter a progressive bet on the felt needs is there. `progressive` holds
    /// every progressive bet placed this round (bit `k` for side bet `k`): when all
    /// their meters are there, so is every meter needed, which is the common case and
    /// one look-up a bet.
    #[inline(always)]
    fn check_meters<I: Io>(&self, progressive: u8, io: &I) -> Result<(), ActionError> {
        for k in side_bets_in(progressive) {
            if let Some(p) = &self.table.cfg.sides[k].progressive {
                if io.meter_value(&p.meter).is_none() {
                    return self.first_missing_meter(io);
                }
            }
        }
        Ok(())
    }

    /// The first missing meter a bet on the felt needs, spot by spot in the spots'
    /// order and bet by bet in the rules file's order; `Ok` if none (a bet placed then
    /// withdrawn needs no meter).
    #[cold]
    #[inline(never)]
    fn first_missing_meter<I: Io>(&self, io: &I) -> Result<(), ActionError> {
        let sides = &self.table.cfg.sides;
        for s in self.spots.live() {
            for (k, b) in sides.iter().enumerate() {
                if s.side_state[k] != SideState::Open {
                    continue;
                }
                if let Some(p) = &b.progressive {
                    if io.meter_value(&p.meter).is_none() {
                        return Err(ActionError::MeterMissing { id: p.meter });
                    }
                }
            }
        }
        Ok(())
    }

    /// The insurance or even-money offer to the `o`-th spot in play, if any.
    pub(crate) fn insurance_offer(&self, o: u8) -> Option<(Decisions, Option<AmountRange>)> {
        let cfg = &self.table.cfg;
        let si = usize::from(self.order[usize::from(o)]);
        let h = &self.hands[si * self.mh()];
        if h.settled {
            return None;
        }
        if h.status == Status::Natural {
            return cfg
                .even_money
                .then_some((Decisions::EVEN_MONEY | Decisions::DECLINE, None));
        }
        let seat = self.place(si as u8, 0).seat;
        let balance = self.balances[usize::from(seat)];
        let half = Money(h.stake.0 / 2);
        let range = match cfg.insurance {
            InsuranceOffer::Off => return None,
            InsuranceOffer::Half => {
                if half <= Money::ZERO || half > balance {
                    return None;
                }
                AmountRange::exactly(half)
            }
            InsuranceOffer::UpToHalf => {
                let step = cfg.main.increment;
                let max = if balance >= half {
                    half
                } else {
                    floor_to(balance, step)
                };
                if max < cfg.insurance_min || max <= Money::ZERO {
                    return None;
                }
                // `max` is half the bet, or what the balance covers of it: always
                // allowed, off-step or not.
                AmountRange {
                    min: cfg.insurance_min,
                    max,
                    step,
                    full: max,
                }
            }
        };
        Some((Decisions::INSURE | Decisions::DECLINE, Some(range)))
    }

    /// The decisions the rules allow on a hand (before the balance), and the double range.
    #[inline(always)]
    fn hand_options(&self, si: usize, h: usize) -> (Decisions, Decisions, Option<AmountRange>) {
        let cfg = &self.table.cfg;
        let ph = &self.hands[si * self.mh() + h];
        let hand = &ph.hand;
        let seat = self.place(si as u8, 0).seat;
        let balance = self.balances[usize::from(seat)];
        let mut rules = Decisions::STAND;
        let total = hand.total();
        let two = hand.len() == 2;
        // Split: a pair, room for a hand; aces once unless resplitting aces is allowed.
        if two && hand.is_pair(cfg.split_by_rank) && self.spots[si].nhands < cfg.max_hands {
            let cards = hand.cards();
            let ace_pair = cards[0].rank == Rank::Ace && cards[1].rank == Rank::Ace;
            if !(ace_pair && ph.split_aces && !cfg.resplit_aces) {
                rules.insert(Decisions::SPLIT);
            }
        }
        if !(ph.split_aces && cfg.one_card_aces) {
            let can_hit_aces = !ph.split_aces || cfg.hit_split_aces;
            if can_hit_aces && (total < 21 || (total == 21 && hand.is_soft() && cfg.hit_soft_21)) {
                rules.insert(Decisions::HIT);
            }
            if two {
                let on_total = cfg.double_totals.checked_shr(u32::from(total)).unwrap_or(0) & 1;
                if on_total != 0 && (!ph.split || cfg.das) {
                    rules.insert(Decisions::DOUBLE);
                }
                if cfg.surrender != Surrender::None && (!ph.split || cfg.surrender_after_split) {
                    rules.insert(Decisions::SURRENDER);
                }
            }
        }
        let mut afford = rules;
        if rules.contains(Decisions::SPLIT) && balance < ph.stake {
            afford.remove(Decisions::SPLIT);
        }
        let mut double = None;
        if rules.contains(Decisions::DOUBLE) {
            let full = ph.stake;
            let range = if cfg.double_for_less {
                let step = cfg.main.increment;
                let min = cfg.main.min.min(full);
                let max = if balance >= full {
                    full
                } else {
                    floor_to(balance, step)
                };
                (max >= min && max > Money::ZERO).then_some(AmountRange {
                    min,
                    max,
                    step,
                    full: max,
                })
            } else {
                (balance >= full).then(|| AmountRange::exactly(full))
            };
            match range {
                Some(r) => double = Some(r),
                None => afford.remove(Decisions::DOUBLE),
            }
        }
        (rules, afford, double)
    }

    /// What may be done now.
    pub(crate) fn legal_now(&self) -> Legal {
        let none = |turn| Legal {
            turn,
            decisions: Decisions::NONE,
            double: None,
            insurance: None,
        };
        match self.stage {
            Stage::Done => none(Turn::Done),
            Stage::Betting => none(Turn::Bets),
            Stage::EarlySurrender(o)
                if usize::from(o) < self.order.len() && self.early_surrender_offered(o) =>
            {
                let si = self.order[usize::from(o)];
                let p = self.place(si, 0);
                Legal {
                    turn: Turn::Seat {
                        seat: p.seat,
                        spot: p.spot,
                        hand: 0,
                    },
                    decisions: Decisions::SURRENDER | Decisions::DECLINE,
                    double: None,
                    insurance: None,
                }
            }
            Stage::Insurance(o) if usize::from(o) < self.order.len() => self
                .legal_insurance(o)
                .unwrap_or_else(|| none(Turn::Chance)),
            Stage::Play(o, h) if usize::from(o) < self.order.len() => match self.play_state(o, h) {
                PlayState::Decide => self.legal_play(o, h),
                _ => none(Turn::Chance),
            },
            _ => none(Turn::Chance),
        }
    }

    /// What the `o`-th spot in play may do at the insurance offer, if it is offered one.
    pub(crate) fn legal_insurance(&self, o: u8) -> Option<Legal> {
        let (decisions, insurance) = self.insurance_offer(o)?;
        let p = self.place(self.order[usize::from(o)], 0);
        Some(Legal {
            turn: Turn::Seat {
                seat: p.seat,
                spot: p.spot,
                hand: 0,
            },
            decisions,
            double: None,
            insurance,
        })
    }

    /// What hand `h` of the `o`-th spot in play may do, when it decides
    /// ([`PlayState::Decide`]).
    #[inline(always)]
    pub(crate) fn legal_play(&self, o: u8, h: u8) -> Legal {
        let si = self.order[usize::from(o)];
        let (_, afford, double) = self.hand_options(usize::from(si), usize::from(h));
        let p = self.place(si, h);
        Legal {
            turn: Turn::Seat {
                seat: p.seat,
                spot: p.spot,
                hand: h,
            },
            decisions: afford,
            double,
            insurance: None,
        }
    }

    /// Asks the strategy for the decision now due: `(seat, decision)`.
    pub(crate) fn ask<F>(&self, strategy: &mut F) -> Option<(u8, Decision, Legal)>
    where
        F: Strategy + ?Sized,
    {
        let legal = self.legal_now();
        let Turn::Seat { seat, spot, hand } = legal.turn else {
            return None;
        };
        let si = seat * self.table.cfg.spots + spot;
        let ctx = self.context(si, hand, self.phase(), legal);
        Some((seat, strategy.decide(&ctx), legal))
    }

    /// What the strategy sees of hand `h` of spot `si`.
    #[inline(always)]
    pub(crate) fn context(&self, si: u8, h: u8, phase: Phase, legal: Legal) -> DecisionContext<'_> {
        let s = usize::from(si);
        let ph = &self.hands[s * self.mh() + usize::from(h)];
        DecisionContext {
            at: self.place(si, h),
            phase,
            cards: ph.hand.cards(),
            total: ph.hand.total(),
            soft: ph.hand.is_soft(),
            up: self.up_card(),
            stake: ph.stake,
            hands: self.spots[s].nhands,
            split: ph.split,
            legal,
        }
    }

    /// Verifies and applies a seat's decision.
    pub(crate) fn decide<I: Io>(
        &mut self,
        seat: u8,
        at: Option<HandRef>,
        d: Decision,
        io: &mut I,
    ) -> Result<(), ActionError> {
        let legal = self.legal_now();
        Self::check_hand(seat, at, &legal)?;
        self.decide_with(seat, d, legal, io)
    }

    /// A decision that names its hand is refused unless it is that hand's turn.
    #[inline]
    fn check_hand(seat: u8, at: Option<HandRef>, legal: &Legal) -> Result<(), ActionError> {
        if let (
            Some(asked),
            Turn::Seat {
                seat: ts,
                spot,
                hand,
            },
        ) = (at, legal.turn)
        {
            let turn = HandRef { spot, hand };
            if ts == seat && asked != turn {
                return Err(ActionError::NotThisHand { asked, turn });
            }
        }
        Ok(())
    }

    /// The seat's timer ran out: the hand stands, an offer is declined.
    pub(crate) fn time_out<I: Io>(
        &mut self,
        seat: u8,
        at: Option<HandRef>,
        io: &mut I,
    ) -> Result<(), ActionError> {
        let legal = self.legal_now();
        let (spot, hand) = self.turn_of(seat, &legal)?;
        let turn = HandRef { spot, hand };
        if let Some(asked) = at.filter(|a| *a != turn) {
            return Err(ActionError::NotThisHand { asked, turn });
        }
        let d = if legal.decisions.contains(Decisions::DECLINE) {
            Decision::Decline
        } else {
            Decision::Stand
        };
        if !legal.decisions.allows(d) {
            let si = seat * self.table.cfg.spots + spot;
            return Err(self.refusal(seat, si, hand, d));
        }
        let si = seat * self.table.cfg.spots + spot;
        io.emit(Event::TimedOut {
            at: self.place(si, hand),
        });
        self.decide_with(seat, d, legal, io)
    }

    /// The spot and hand whose turn it is, if it is `seat`'s turn.
    #[inline]
    fn turn_of(&self, seat: u8, legal: &Legal) -> Result<(u8, u8), ActionError> {
        if seat >= self.nseats {
            return Err(ActionError::UnknownSeat { seat });
        }
        let Turn::Seat {
            seat: turn_seat,
            spot,
            hand,
        } = legal.turn
        else {
            return Err(ActionError::NoDecisionNow {
                phase: self.phase(),
            });
        };
        if turn_seat != seat {
            return Err(ActionError::NotYourTurn {
                seat,
                turn: turn_seat,
            });
        }
        Ok((spot, hand))
    }

    /// Whether `seat` may make decision `d` on hand `at` now: the checks of
    /// [`Round::apply`] for the decision, with nothing applied. A front end asks it
    /// to answer a choice with the engine's own reason (C-10) before it sends it.
    pub fn check_decision(
        &self,
        seat: u8,
        at: Option<HandRef>,
        d: Decision,
    ) -> Result<(), ActionError> {
        let legal = self.legal_now();
        Self::check_hand(seat, at, &legal)?;
        self.verify_decision(seat, d, &legal).map(|_| ())
    }

    /// The checks of a decision before it is applied: the seat's turn, the decision
    /// offered, its amount. Returns the spot and hand it is for.
    #[inline(always)]
    fn verify_decision(
        &self,
        seat: u8,
        d: Decision,
        legal: &Legal,
    ) -> Result<(u8, u8), ActionError> {
        let (spot, hand) = self.turn_of(seat, legal)?;
        if !legal.decisions.allows(d) {
            let si = seat * self.table.cfg.spots + spot;
            return Err(self.refusal(seat, si, hand, d));
        }
        self.check_amount(seat, d, legal)?;
        Ok((spot, hand))
    }

    /// Why decision `d` on hand `hand` of spot `si` is not offered.
    #[cold]
    fn refusal(&self, seat: u8, si: u8, hand: u8, d: Decision) -> ActionError {
        if let Stage::Play(..) = self.stage {
            // Allowed by the rules but not affordable: say so.
            let (rules, _, _) = self.hand_options(usize::from(si), usize::from(hand));
            if rules.allows(d) {
                let ph = &self.hands[usize::from(si) * self.mh() + usize::from(hand)];
                let needed = match d {
                    Decision::Double(a) => a,
                    _ => ph.stake,
                };
                return ActionError::InsufficientBalance {
                    needed,
                    balance: self.balances[usize::from(seat)],
                };
            }
        }
        ActionError::NotOffered {
            decision: d,
            why: self.why_not(usize::from(si), usize::from(hand), d),
        }
    }

    /// The rule or state that keeps decision `d` off hand `h` of spot `si` (mirrors
    /// [`Self::hand_options`] and the offers, for the refusals only).
    fn why_not(&self, si: usize, h: usize, d: Decision) -> NotOfferedWhy {
        use NotOfferedWhy as W;
        let cfg = &self.table.cfg;
        match self.stage {
            Stage::EarlySurrender(_) => {
                return W::AnswerOfferFirst {
                    offer: Offer::EarlySurrender,
                }
            }
            Stage::Insurance(_) => {
                let natural = self.hands[si * self.mh()].status == Status::Natural;
                return match (d, natural) {
                    (Decision::Insure(_), true) => W::InsuranceToNatural,
                    (Decision::EvenMoney, false) => W::EvenMoneyNeedsNatural,
                    (_, true) => W::AnswerOfferFirst {
                        offer: Offer::EvenMoney,
                    },
                    (_, false) => W::AnswerOfferFirst {
                        offer: Offer::Insurance,
                    },
                };
            }
            Stage::Play(..) => {}
            _ => return W::NotNow,
        }
        let ph = &self.hands[si * self.mh() + h];
        let hand = &ph.hand;
        let two = hand.len() == 2;
        let total = hand.total();
        let one_card_ace = ph.split_aces && cfg.one_card_aces;
        match d {
            Decision::Insure(_) if cfg.insurance == InsuranceOffer::Off => W::NoInsurance,
            Decision::Insure(_) => W::OfferOver(Offer::Insurance),
            Decision::EvenMoney if !cfg.even_money => W::NoEvenMoney,
            Decision::EvenMoney => W::OfferOver(Offer::EvenMoney),
            Decision::Decline => W::NothingToDecline,
            Decision::Split => {
                if cfg.max_hands <= 1 {
                    W::NoSplit
                } else if !two || !hand.is_pair(cfg.split_by_rank) {
                    W::NotAPair {
                        by_rank: cfg.split_by_rank,
                    }
                } else if self.spots[si].nhands >= cfg.max_hands {
                    if cfg.max_hands == 2 {
                        W::NoResplit
                    } else {
                        W::HandLimit { max: cfg.max_hands }
                    }
                } else if ph.split_aces && !cfg.resplit_aces {
                    W::NoResplitAces
                } else {
                    W::NotNow
                }
            }
            Decision::Hit => {
                if one_card_ace {
                    W::SplitAceOneCard
                } else if ph.split_aces && !cfg.hit_split_aces {
                    W::NoHitSplitAces
                } else if total >= 21 && hand.is_soft() {
                    W::SoftTwentyOne
                } else if total >= 21 {
                    W::TwentyOne
                } else {
                    W::NotNow
                }
            }
            Decision::Double(_) => {
                if cfg.double_totals == 0 {
                    W::NoDouble
                } else if one_card_ace {
                    W::SplitAceOneCard
                } else if !two {
                    W::DoubleFirstTwoCards
                } else if cfg.double_totals.checked_shr(u32::from(total)).unwrap_or(0) & 1 == 0 {
                    W::DoubleNotOnTotal {
                        total,
                        totals: cfg.double_totals,
                    }
                } else if ph.split && !cfg.das {
                    W::NoDoubleAfterSplit
                } else {
                    W::NotNow
                }
            }
            Decision::Surrender => {
                if cfg.surrender == Surrender::None {
                    W::NoSurrender
                } else if one_card_ace {
                    W::SplitAceOneCard
                } else if !two {
                    W::SurrenderFirstTwoCards
                } else if ph.split && !cfg.surrender_after_split {
                    W::NoSurrenderAfterSplit
                } else {
                    W::NotNow
                }
            }
            Decision::Stand => W::NotNow,
        }
    }

    /// [`Round::decide`] with the legal actions already computed for this state.
    pub(crate) fn decide_with<I: Io>(
        &mut self,
        seat: u8,
        d: Decision,
        legal: Legal,
        io: &mut I,
    ) -> Result<(), ActionError> {
        let (spot, hand) = self.verify_decision(seat, d, &legal)?;
        let si = seat * self.table.cfg.spots + spot;
        // Verified: apply.
        let at = self.place(si, hand);
        io.emit(Event::Decided { at, decision: d });
        match self.stage {
            Stage::EarlySurrender(o) => {
                if d == Decision::Surrender {
                    self.surrender(si, 0, io);
                }
                self.stage = Stage::EarlySurrender(o + 1);
            }
            Stage::Insurance(o) => {
                match d {
                    Decision::Insure(a) => self.place_insurance(si, a, io),
                    Decision::EvenMoney => self.even_money(si, io),
                    _ => {}
                }
                self.stage = Stage::Insurance(o + 1);
            }
            Stage::Play(..) => self.play(si, hand, d, io),
            _ => {}
        }
        Ok(())
    }

    /// The amount of a double or an insurance is one the offer allows and the seat
    /// can pay (other decisions carry no amount).
    #[inline(always)]
    pub(crate) fn check_amount(
        &self,
        seat: u8,
        d: Decision,
        legal: &Legal,
    ) -> Result<(), ActionError> {
        let range = match d {
            Decision::Double(_) => legal.double,
            Decision::Insure(_) => legal.insurance,
            _ => None,
        };
        if let (Decision::Double(a) | Decision::Insure(a), Some(r)) = (d, range) {
            if a > Money::ZERO {
                self.check_funds(seat, a)?;
            }
            if !r.allows(a) {
                return Err(ActionError::WrongAmount {
                    amount: a,
                    min: r.min,
                    max: r.max,
                });
            }
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn play<I: Io>(&mut self, si: u8, h: u8, d: Decision, io: &mut I) {
        let i = usize::from(si) * self.mh() + usize::from(h);
        let at = self.place(si, h);
        match d {
            Decision::Hit => {
                let Some(c) = self.draw(io) else {
                    return self.void(io);
                };
                self.hands[i].hand.push(c);
                io.emit(Event::Dealt {
                    to: super::Target::Player(at),
                    card: c,
                    face_up: true,
                    side_bet_only: false,
                });
                self.spot_card(si, c, io);
                if self.hands[i].hand.is_bust() {
                    self.bust(si, h, io);
                }
            }
            Decision::Stand => {
                self.hands[i].status = Status::Stood;
                self.hand_finished(si, io);
            }
            Decision::Double(a) => {
                self.balances[usize::from(at.seat)] -= a;
                self.hands[i].extra = a;
                io.emit(Event::Moved(Move {
                    from: Account::Seat { seat: at.seat },
                    to: Account::Felt,
                    amount: a,
                    at,
                    bet: BetKind::Double,
                    why: Why::Wager,
                }));
                let Some(c) = self.draw(io) else {
                    return self.void(io);
                };
                self.hands[i].hand.push(c);
                io.emit(Event::Dealt {
                    to: super::Target::Player(at),
                    card: c,
                    face_up: true,
                    side_bet_only: false,
                });
                self.spot_card(si, c, io);
                if self.hands[i].hand.is_bust() {
                    self.bust(si, h, io);
                } else {
                    self.hands[i].status = Status::Stood;
                }
            }
            Decision::Split => {
                let stake = self.hands[i].stake;
                self.balances[usize::from(at.seat)] -= stake;
                let second = self.hands[i].hand.pop().unwrap_or(super::NO_CARD);
                let aces = second.rank == Rank::Ace;
                let mut new = PHand::new(stake);
                new.hand.push(second);
                new.split = true;
                new.split_aces = aces;
                new.waiting = true;
                let first = &mut self.hands[i];
                first.split = true;
                first.split_aces = aces;
                first.waiting = true;
                first.status = Status::Open;
                self.insert_hand(si, h, new);
                io.emit(Event::Moved(Move {
                    from: Account::Seat { seat: at.seat },
                    to: Account::Felt,
                    amount: stake,
                    at: self.place(si, h + 1),
                    bet: BetKind::Split,
                    why: Why::Wager,
                }));
            }
            Decision::Surrender => self.surrender(si, h, io),
            Decision::Insure(_) | Decision::EvenMoney | Decision::Decline => {}
        }
    }
}

/// The side bets of the mask `bets` (bit `k` for side bet `k`), lowest first.
#[inline(always)]
fn side_bets_in(bets: u8) -> impl Iterator<Item = usize> {
    let mut left = bets;
    std::iter::from_fn(move || {
        let k = (left != 0).then(|| left.trailing_zeros() as usize)?;
        left &= left - 1;
        Some(k)
    })
}

#[cfg(test)]
mod tests {
    use super::floor_to;
    use crate::money::Money;

    #[test]
    fn floor_to_a_step() {
        assert_eq!(floor_to(Money(737), Money(100)), Money(700));
        assert_eq!(floor_to(Money(700), Money(100)), Money(700));
        assert_eq!(floor_to(Money(7), Money(0)), Money(7));
    }
}
