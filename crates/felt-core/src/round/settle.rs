//! Settlement: every stake returned, paid or kept, each chip movement an event.

use super::event::{
    Account, BetKind, Event, MeterWhy, Move, Outcome, Pays, Place, Settlement, Target, Why,
};
use super::table::{AtDeal, DealSide};
use super::{Io, Round, SideState, Status, MAX_SIDE_BETS};
use crate::card::{Card, Rank};
use crate::meter::MeterId;
use crate::money::{Money, Payout};
use crate::rules::{InsuranceOffer, LateNatural, LinePay};
use crate::sidebet::{HandContext, HandName};
use rand_core::{CryptoRng, RngCore};

/// How a stake ended: its outcome, the pay-table line that won (side bets) and the
/// payout applied.
type Verdict = (Outcome, Option<HandName>, Option<Pays>);

/// The settlement of `stake` before its chips are moved (nothing returned yet).
#[inline(always)]
fn unpaid(at: Place, bet: BetKind, stake: Money, (outcome, line, pays): Verdict) -> Settlement {
    Settlement {
        at,
        bet,
        outcome,
        line,
        pays,
        stake,
        returned: Money::ZERO,
    }
}

/// `payout.returned(stake)` in 64-bit arithmetic when it cannot overflow.
#[inline]
pub(crate) fn returned(payout: Payout, stake: Money) -> (Money, i64) {
    let (num, den) = (i64::from(payout.ratio.num), i64::from(payout.ratio.den));
    match stake.0.checked_mul(num) {
        Some(p) if stake.0 >= 0 && den > 0 => {
            // Most pay lines are x to 1: no division.
            let (win, rem) = if den == 1 {
                (Money(p), 0)
            } else {
                (Money(p / den), p % den)
            };
            match payout.basis {
                crate::money::Basis::To => (stake + win, rem),
                crate::money::Basis::For => (win, rem),
            }
        }
        _ => payout.returned(stake),
    }
}

/// How a settled stake is paid out.
struct Pay {
    /// Part of the stake handed back (the rest goes to the house).
    stake_back: Money,
    /// Paid by the house on top.
    house: Money,
    /// Paid from a meter.
    meter: Option<(MeterId, Money)>,
}

impl Pay {
    const LOSE: Pay = Pay {
        stake_back: Money::ZERO,
        house: Money::ZERO,
        meter: None,
    };
    fn push(stake: Money) -> Pay {
        Pay {
            stake_back: stake,
            house: Money::ZERO,
            meter: None,
        }
    }
    /// A total `returned` to the player for `stake`: the stake first, then the house.
    fn returned(stake: Money, returned: Money) -> Pay {
        if returned >= stake {
            Pay {
                stake_back: stake,
                house: returned - stake,
                meter: None,
            }
        } else {
            Pay {
                stake_back: returned,
                house: Money::ZERO,
                meter: None,
            }
        }
    }
}

impl<R: RngCore + CryptoRng> Round<R> {
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn mv<I: Io>(
        &mut self,
        io: &mut I,
        from: Account,
        to: Account,
        amount: Money,
        at: Place,
        bet: BetKind,
        why: Why,
    ) {
        if amount == Money::ZERO {
            return;
        }
        if let Account::Seat { seat } = from {
            self.balances[usize::from(seat)] -= amount;
        }
        if let Account::Seat { seat } = to {
            self.balances[usize::from(seat)] += amount;
        }
        io.emit(Event::Moved(Move {
            from,
            to,
            amount,
            at,
            bet,
            why,
        }));
    }

    /// Settles a stake lying on the felt.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn settle_stake<I: Io>(
        &mut self,
        io: &mut I,
        at: Place,
        bet: BetKind,
        stake: Money,
        pay: Pay,
        outcome: Outcome,
        line: Option<HandName>,
        pays: Option<Pays>,
    ) {
        let s = self.pay_stake(io, pay, unpaid(at, bet, stake, (outcome, line, pays)));
        io.emit(Event::Settled(s));
    }

    /// Settles side bet `b`'s stake: as [`Round::settle_stake`] with the outcome, the
    /// line and the payout in `result`, the settlement told with the bet's index.
    #[inline(always)]
    fn settle_side_stake<I: Io>(
        &mut self,
        io: &mut I,
        b: usize,
        at: Place,
        stake: Money,
        pay: Pay,
        result: Verdict,
    ) {
        let bet = BetKind::Side(self.table.cfg.sides[b].id);
        let s = self.pay_stake(io, pay, unpaid(at, bet, stake, result));
        io.emit_side(b, s);
    }

    /// Moves the chips of settlement `s` paying `pay`; `s` with what it returned, for
    /// the caller to emit.
    #[inline(always)]
    fn pay_stake<I: Io>(&mut self, io: &mut I, pay: Pay, s: Settlement) -> Settlement {
        let Settlement {
            at,
            bet,
            outcome,
            stake,
            ..
        } = s;
        let seat = Account::Seat { seat: at.seat };
        let back = pay.stake_back.min(stake);
        let back_why = if outcome == Outcome::Returned {
            Why::Refund
        } else {
            Why::StakeReturned
        };
        self.mv(io, Account::Felt, seat, back, at, bet, back_why);
        self.mv(
            io,
            Account::Felt,
            Account::House,
            stake - back,
            at,
            bet,
            Why::StakeLost,
        );
        self.mv(io, Account::House, seat, pay.house, at, bet, Why::Winnings);
        let mut returned = back + pay.house;
        if let Some((id, m)) = pay.meter {
            self.mv(io, Account::Meter { id }, seat, m, at, bet, Why::MeterShare);
            returned += m;
        }
        Settlement { returned, ..s }
    }

    #[inline(always)]
    fn rounding<I: Io>(&self, io: &mut I, at: Place, bet: BetKind, rem: i64, den: u32) {
        if rem != 0 {
            io.emit(Event::Rounding {
                at,
                bet,
                num: rem,
                den,
            });
        }
    }

    /// A main-bet hand paid at `payout` (`to`).
    #[inline(always)]
    fn pay_hand<I: Io>(&mut self, si: u8, h: u8, payout: Payout, outcome: Outcome, io: &mut I) {
        let i = usize::from(si) * self.mh() + usize::from(h);
        let stake = self.hands[i].total_stake();
        let at = self.place(si, h);
        let (ret, rem) = if payout.ratio.num == payout.ratio.den {
            (stake + stake, 0)
        } else {
            returned(payout, stake)
        };
        self.rounding(io, at, BetKind::Main, rem, payout.ratio.den);
        self.hands[i].settled = true;
        self.settle_stake(
            io,
            at,
            BetKind::Main,
            stake,
            Pay::returned(stake, ret),
            outcome,
            None,
            Some(Pays::Odds(payout)),
        );
    }

    #[inline(always)]
    fn end_hand<I: Io>(&mut self, si: u8, h: u8, pay: Pay, outcome: Outcome, io: &mut I) {
        let i = usize::from(si) * self.mh() + usize::from(h);
        let stake = self.hands[i].total_stake();
        self.hands[i].settled = true;
        let at = self.place(si, h);
        self.settle_stake(io, at, BetKind::Main, stake, pay, outcome, None, None);
    }

    pub(crate) fn pay_natural<I: Io>(&mut self, si: u8, h: u8, io: &mut I) {
        let bj = self.table.cfg.blackjack;
        self.pay_hand(si, h, bj, Outcome::Blackjack, io);
    }

    pub(crate) fn bust<I: Io>(&mut self, si: u8, h: u8, io: &mut I) {
        let i = usize::from(si) * self.mh() + usize::from(h);
        self.hands[i].status = Status::Busted;
        self.spots[usize::from(si)].lost += self.hands[i].total_stake();
        self.end_hand(si, h, Pay::LOSE, Outcome::Bust, io);
    }

    pub(crate) fn surrender<I: Io>(&mut self, si: u8, h: u8, io: &mut I) {
        let i = usize::from(si) * self.mh() + usize::from(h);
        let stake = self.hands[i].total_stake();
        let half = Payout::to(1, 2);
        let (back, rem) = half.ratio.apply(stake);
        let at = self.place(si, h);
        self.rounding(io, at, BetKind::Main, rem, 2);
        self.hands[i].status = Status::Surrendered;
        self.hands[i].settled = true;
        self.spots[usize::from(si)].lost += stake - back;
        self.settle_stake(
            io,
            at,
            BetKind::Main,
            stake,
            Pay::push(back),
            Outcome::Surrender,
            None,
            None,
        );
        self.hand_finished(si, io);
    }

    pub(crate) fn place_insurance<I: Io>(&mut self, si: u8, amount: Money, io: &mut I) {
        let at = self.place(si, 0);
        let stake = self.hands[usize::from(si) * self.mh()].stake;
        if self.table.cfg.insurance == InsuranceOffer::Half && stake.0 % 2 != 0 {
            self.rounding(io, at, BetKind::Insurance, 1, 2);
        }
        self.spots[usize::from(si)].insurance = amount;
        self.insured = true;
        self.mv(
            io,
            Account::Seat { seat: at.seat },
            Account::Felt,
            amount,
            at,
            BetKind::Insurance,
            Why::Wager,
        );
    }

    pub(crate) fn even_money<I: Io>(&mut self, si: u8, io: &mut I) {
        let i = usize::from(si) * self.mh();
        let stake = self.hands[i].stake;
        self.hands[i].settled = true;
        let at = self.place(si, 0);
        self.settle_stake(
            io,
            at,
            BetKind::Main,
            stake,
            Pay::returned(stake, stake + stake),
            Outcome::EvenMoney,
            None,
            Some(Pays::Odds(Payout::to(1, 1))),
        );
    }

    /// Settles every open insurance: won (the dealer has a natural) or lost.
    #[inline]
    pub(crate) fn settle_insurance<I: Io>(&mut self, win: bool, io: &mut I) {
        if self.insured {
            self.settle_insurance_placed(win, io);
        }
    }

    fn settle_insurance_placed<I: Io>(&mut self, win: bool, io: &mut I) {
        let pays = self.table.cfg.insurance_pays;
        for o in 0..self.order.len() {
            let si = self.order[o];
            let stake = self.spots[usize::from(si)].insurance;
            if stake == Money::ZERO {
                continue;
            }
            self.spots[usize::from(si)].insurance = Money::ZERO;
            let at = self.place(si, 0);
            if win {
                let (ret, rem) = returned(pays, stake);
                self.rounding(io, at, BetKind::Insurance, rem, pays.ratio.den);
                self.settle_stake(
                    io,
                    at,
                    BetKind::Insurance,
                    stake,
                    Pay::returned(stake, ret),
                    Outcome::Win,
                    None,
                    Some(Pays::Odds(pays)),
                );
            } else {
                self.settle_stake(
                    io,
                    at,
                    BetKind::Insurance,
                    stake,
                    Pay::LOSE,
                    Outcome::Lose,
                    None,
                    None,
                );
            }
        }
    }

    /// Settles side bet `b` of spot `si` on these cards: the first matching line pays.
    /// Out of line: see [`Round::settle_side_here`].
    #[inline(never)]
    pub(crate) fn settle_side<I: Io>(
        &mut self,
        si: u8,
        b: usize,
        third: Option<Card>,
        natural: bool,
        io: &mut I,
    ) {
        self.settle_side_here(si, b, third, natural, io)
    }

    /// [`Round::settle_side`] compiled into its caller: the initial settlement, which
    /// settles most side bets, from one call site.
    #[inline(always)]
    fn settle_side_here<I: Io>(
        &mut self,
        si: u8,
        b: usize,
        third: Option<Card>,
        natural: bool,
        io: &mut I,
    ) {
        let s = usize::from(si);
        let stake = self.spots[s].side[b];
        self.spots[s].side_state[b] = SideState::Off;
        let ctx = HandContext {
            first_two: self.spots[s].first_two,
            third,
            up: self.up_card(),
            dealer_natural: natural,
        };
        let at = self.place(si, 0);
        let bet = &self.table.cfg.sides[b];
        let kind = BetKind::Side(bet.id);
        let Some(line) = bet
            .line_table
            .line(&ctx)
            .and_then(|i| bet.lines.get(i))
            .copied()
        else {
            return self.settle_side_stake(
                io,
                b,
                at,
                stake,
                Pay::LOSE,
                (Outcome::Lose, None, None),
            );
        };
        match line.pay {
            LinePay::Odds(ratio) => {
                let p = Payout {
                    ratio,
                    basis: line.basis,
                };
                let (ret, rem) = returned(p, stake);
                self.rounding(io, at, kind, rem, ratio.den);
                self.settle_side_stake(
                    io,
                    b,
                    at,
                    stake,
                    Pay::returned(stake, ret),
                    (Outcome::Win, Some(line.hand), Some(Pays::Odds(p))),
                );
            }
            LinePay::Meter(percent) => {
                let Some(prog) = self.table.cfg.sides[b].progressive else {
                    return self.settle_side_stake(
                        io,
                        b,
                        at,
                        stake,
                        Pay::LOSE,
                        (Outcome::Lose, Some(line.hand), None),
                    );
                };
                let mut paid = Money::ZERO;
                let mut after = Money::ZERO;
                if let Some((m, change)) = io.award(&prog.meter, percent) {
                    paid = m;
                    after = change.after;
                    io.emit(Event::Meter {
                        change,
                        why: MeterWhy::Award,
                    });
                }
                let stake_back = match line.basis {
                    crate::money::Basis::To => stake,
                    crate::money::Basis::For => Money::ZERO,
                };
                let pay = Pay {
                    stake_back,
                    house: Money::ZERO,
                    meter: Some((prog.meter, paid)),
                };
                self.settle_side_stake(
                    io,
                    b,
                    at,
                    stake,
                    pay,
                    (
                        Outcome::Win,
                        Some(line.hand),
                        Some(Pays::Meter {
                            percent,
                            basis: line.basis,
                        }),
                    ),
                );
                if percent >= 100 {
                    if let Some(change) = io.refill(&prog.meter, prog.reset) {
                        io.emit(Event::Meter {
                            change,
                            why: MeterWhy::Reset,
                        });
                        let funded = prog.reset - after;
                        self.mv(
                            io,
                            Account::House,
                            Account::Meter { id: prog.meter },
                            funded,
                            at,
                            kind,
                            Why::MeterRefill,
                        );
                    }
                }
            }
        }
    }

    /// Side bets settled right after the initial deal, in the rules file's order with
    /// progressives last (C-5, LL-4, LA-1, L7-5, B7-7); a 7s bet on two 7s waits for
    /// its third card, the Lucky Ladies top line for the hole card.
    #[inline]
    pub(crate) fn settle_initial_side_bets<I: Io>(&mut self, io: &mut I) {
        if self.sides_on != 0 {
            self.settle_initial_side_bets_placed(io);
        }
    }

    /// Compiled into the round: called once a round with side bets, out of line it
    /// spent about 35 instructions of a round on its call (`bench/sim-instructions`).
    #[inline(always)]
    fn settle_initial_side_bets_placed<I: Io>(&mut self, io: &mut I) {
        let possible = self.natural_possible();
        for k in 0..self.sides_in_order() {
            let DealSide { b, at } = self.at_deal[k];
            let b = usize::from(b);
            for o in 0..self.order.len() {
                let si = self.order[o];
                let s = usize::from(si);
                if self.spots[s].side_state[b] != SideState::Open {
                    continue;
                }
                let [c1, c2] = self.spots[s].first_two;
                let third = match at {
                    AtDeal::SevensOnUpCard => Some(self.up_card()),
                    AtDeal::SevensAwaitThird
                        if c1.rank == Rank::Seven && c2.rank == Rank::Seven =>
                    {
                        self.spots[s].side_state[b] = SideState::AwaitThird;
                        self.third_waits = true;
                        continue;
                    }
                    AtDeal::UnlessNaturalLine if possible && self.natural_line(b, [c1, c2]) => {
                        self.spots[s].side_state[b] = SideState::AwaitNatural;
                        self.natural_waits = true;
                        continue;
                    }
                    _ => None,
                };
                self.settle_side_here(si, b, third, false, io);
            }
        }
    }

    /// How many side bets the table has: `at_deal[..n]` lists them in settlement order.
    #[inline(always)]
    pub(crate) fn sides_in_order(&self) -> usize {
        usize::from(self.nsides).min(MAX_SIDE_BETS)
    }

    /// Whether side bet `b` on the first two cards `first_two` makes a line on the
    /// dealer's natural, given one.
    fn natural_line(&self, b: usize, first_two: [Card; 2]) -> bool {
        let ctx = HandContext {
            first_two,
            third: None,
            up: self.up_card(),
            dealer_natural: true,
        };
        self.table.cfg.sides[b].line_table.natural_line(&ctx)
    }

    /// The hole card is known: side bets waiting for it settle (LA-1).
    #[inline]
    pub(crate) fn settle_awaiting_natural<I: Io>(&mut self, natural: bool, io: &mut I) {
        // Only a bet with a line on the dealer's natural ever waits for the hole card,
        // and only on the few hands that make that line.
        if self.natural_waits {
            self.settle_awaiting_natural_placed(natural, io);
        }
    }

    fn settle_awaiting_natural_placed<I: Io>(&mut self, natural: bool, io: &mut I) {
        // Every bet waiting settles here.
        self.natural_waits = false;
        for k in 0..self.sides_in_order() {
            let b = self.at_deal[k].b;
            for o in 0..self.order.len() {
                let si = self.order[o];
                if self.spots[usize::from(si)].side_state[usize::from(b)] == SideState::AwaitNatural
                {
                    self.settle_side(si, usize::from(b), None, natural, io);
                }
            }
        }
    }

    /// The dealer has a natural: the side bets still waiting settle. 7s bets on two
    /// 7s get a third card for the bet only (B7-4), or none (L7-3, BB-3).
    fn dealer_natural_side_bets<I: Io>(&mut self, late: bool, io: &mut I) {
        let nsides = self.table.cfg.sides.len();
        let mut thirds = [None::<Card>; 64];
        if !late {
            for o in 0..self.order.len() {
                let si = self.order[o];
                let s = usize::from(si);
                let wants = (0..nsides).any(|b| {
                    self.table.cfg.sides[b].third_card_on_dealer_natural
                        && self.spots[s].side_state[b] == SideState::AwaitThird
                });
                if wants {
                    if let Some(c) = self.draw(io) {
                        let i = s * self.mh();
                        self.hands[i].hand.push(c);
                        io.emit(Event::Dealt {
                            to: Target::Player(self.place(si, 0)),
                            card: c,
                            face_up: true,
                            side_bet_only: true,
                        });
                        if let Some(slot) = thirds.get_mut(o) {
                            *slot = Some(c);
                        }
                    }
                }
            }
        }
        for k in 0..self.sides_in_order() {
            let b = usize::from(self.at_deal[k].b);
            for o in 0..self.order.len() {
                let si = self.order[o];
                if self.spots[usize::from(si)].side_state[b] == SideState::AwaitThird {
                    let third = if self.table.cfg.sides[b].third_card_on_dealer_natural {
                        thirds.get(o).copied().flatten()
                    } else {
                        None
                    };
                    self.settle_side(si, b, third, true, io);
                }
            }
        }
        self.settle_awaiting_natural(true, io);
    }

    /// The dealer has a natural: at the peek (C-6) or found late (LA-3).
    #[cold]
    pub(crate) fn dealer_natural<I: Io>(&mut self, late: bool, io: &mut I) {
        self.settle_insurance(true, io);
        if self.sides_on != 0 {
            self.dealer_natural_side_bets(late, io);
        }
        let late_natural = self.table.cfg.late_natural;
        let mh = self.mh();
        for o in 0..self.order.len() {
            let si = self.order[o];
            let s = usize::from(si);
            let original = self.hands[s * mh].stake;
            let mut budget = if original > self.spots[s].lost {
                original - self.spots[s].lost
            } else {
                Money::ZERO
            };
            for h in 0..self.spots[s].nhands {
                let ph = self.hands[s * mh + usize::from(h)];
                if ph.settled {
                    continue;
                }
                if ph.status == Status::Natural {
                    self.end_hand(si, h, Pay::push(ph.stake), Outcome::Push, io);
                } else if !late || late_natural == LateNatural::AllBetsLose {
                    self.end_hand(si, h, Pay::LOSE, Outcome::Lose, io);
                } else {
                    let total = ph.total_stake();
                    let lose = budget.min(total);
                    budget -= lose;
                    let outcome = if lose == Money::ZERO {
                        Outcome::Returned
                    } else {
                        Outcome::Lose
                    };
                    self.end_hand(si, h, Pay::push(total - lose), outcome, io);
                }
            }
        }
        self.finish(io);
    }

    /// The dealer is done: every hand still on the felt is settled.
    #[inline(always)]
    pub(crate) fn settle_all<I: Io>(&mut self, io: &mut I) {
        let dealer = self.dealer.total();
        let busted = self.dealer.is_bust();
        io.emit(Event::DealerDone {
            total: dealer,
            busted,
        });
        for o in 0..self.order.len() {
            let si = self.order[o];
            self.hand_finished(si, io);
        }
        self.settle_awaiting_natural(false, io);
        self.settle_insurance(false, io);
        let mh = self.mh();
        for o in 0..self.order.len() {
            let si = self.order[o];
            let s = usize::from(si);
            for h in 0..self.spots[s].nhands {
                let ph = self.hands[s * mh + usize::from(h)];
                if ph.settled {
                    continue;
                }
                if ph.status == Status::Natural {
                    self.pay_natural(si, h, io);
                    continue;
                }
                let p = ph.hand.total();
                let stake = ph.total_stake();
                if busted || p > dealer {
                    self.pay_hand(si, h, Payout::to(1, 1), Outcome::Win, io);
                } else if p == dealer {
                    self.end_hand(si, h, Pay::push(stake), Outcome::Push, io);
                } else {
                    self.end_hand(si, h, Pay::LOSE, Outcome::Lose, io);
                }
            }
        }
        self.finish(io);
    }

    /// The shoe ran out with nothing left to reshuffle: every stake still on the felt
    /// goes back and the round ends.
    pub(crate) fn void<I: Io>(&mut self, io: &mut I) {
        let mh = self.mh();
        for o in 0..self.order.len() {
            let si = self.order[o];
            let s = usize::from(si);
            let at = self.place(si, 0);
            for b in 0..self.table.cfg.sides.len() {
                if self.spots[s].side_state[b] != SideState::Off {
                    self.spots[s].side_state[b] = SideState::Off;
                    let stake = self.spots[s].side[b];
                    let id = self.table.cfg.sides[b].id;
                    self.settle_stake(
                        io,
                        at,
                        BetKind::Side(id),
                        stake,
                        Pay::push(stake),
                        Outcome::Returned,
                        None,
                        None,
                    );
                }
            }
            let ins = self.spots[s].insurance;
            if ins > Money::ZERO {
                self.spots[s].insurance = Money::ZERO;
                self.settle_stake(
                    io,
                    at,
                    BetKind::Insurance,
                    ins,
                    Pay::push(ins),
                    Outcome::Returned,
                    None,
                    None,
                );
            }
            for h in 0..self.spots[s].nhands {
                let ph = self.hands[s * mh + usize::from(h)];
                if !ph.settled {
                    self.end_hand(si, h, Pay::push(ph.total_stake()), Outcome::Returned, io);
                }
            }
        }
        io.emit(Event::Voided);
        self.finish(io);
    }
}
