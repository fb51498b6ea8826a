//! The automated round, straight through: after the deal, the initial cards, the
//! insurance offers, the peek, every hand in turn, the dealer and the settlement
//! follow one another as plain code instead of one [`Stage`] dispatch per step. It
//! calls the same rule functions as the general course ([`Round::run`] and
//! [`Round::decide_with`]), in the same order, so the log is the same byte for byte
//! (`tests/paths.rs`). Early surrender goes back to the general course.

use super::action::ActionError;
use super::event::Event;
use super::flow::PlayState;
use super::Decision;
use super::{Io, Round, Stage, Status, Strategy};
use rand_core::{CryptoRng, RngCore};

impl<R: RngCore + CryptoRng> Round<R> {
    /// Plays the round from `Dealing(0)` to the end, asking `strategy` for every
    /// decision. Returns `false` if it stopped where the general course must take
    /// over (an offer before the peek); the stage then says where.
    pub(crate) fn auto_round<F, I: Io>(
        &mut self,
        strategy: &mut F,
        io: &mut I,
    ) -> Result<bool, ActionError>
    where
        F: Strategy + ?Sized,
    {
        self.deal_initial_rest(0, io);
        if !matches!(self.stage, Stage::SideBets) {
            // Voided: the shoe ran out.
            return Ok(true);
        }
        self.settle_initial_side_bets(io);
        self.stage = self.after_side_bets();
        if matches!(self.stage, Stage::Insurance(_)) {
            self.auto_insurance(strategy, io)?;
        }
        if !matches!(self.stage, Stage::Peek) {
            return Ok(false);
        }
        if self.peek_applies() {
            self.peek(io);
            if matches!(self.stage, Stage::Done) {
                return Ok(true);
            }
        } else {
            if !self.natural_possible() {
                self.natural_known = Some(false);
            }
            self.stage = Stage::Play(0, 0);
        }
        for o in 0..self.order.len() as u8 {
            let mut h = 0;
            while h < self.spots[usize::from(self.order[usize::from(o)])].nhands {
                self.stage = Stage::Play(o, h);
                self.auto_hand(o, h, strategy, io)?;
                if matches!(self.stage, Stage::Done) {
                    return Ok(true);
                }
                h += 1;
            }
        }
        self.stage = Stage::Reveal;
        self.reveal(io);
        if !matches!(self.stage, Stage::DealerDraw) {
            return Ok(true);
        }
        if self.dealer_must_draw() && self.live_hands() && !self.dealer_plays(io) {
            return Ok(true);
        }
        self.stage = Stage::Settle;
        self.settle_all(io);
        Ok(true)
    }

    /// Insurance and even money, offered to each spot in play in turn (as the general
    /// course offers them); then the peek is next.
    fn auto_insurance<F, I: Io>(&mut self, strategy: &mut F, io: &mut I) -> Result<(), ActionError>
    where
        F: Strategy + ?Sized,
    {
        for o in 0..self.order.len() as u8 {
            self.stage = Stage::Insurance(o);
            if let Some(legal) = self.legal_insurance(o) {
                let si = self.order[usize::from(o)];
                let ctx = self.context(si, 0, super::Phase::Insurance, legal);
                let (seat, d) = (ctx.at.seat, strategy.decide(&ctx));
                self.decide_with(seat, d, legal, io)?;
            }
        }
        self.stage = Stage::Peek;
        Ok(())
    }

    /// Hand `h` of the `o`-th spot in play, at `Play(o, h)`, until it is finished.
    #[inline]
    fn auto_hand<F, I: Io>(
        &mut self,
        o: u8,
        h: u8,
        strategy: &mut F,
        io: &mut I,
    ) -> Result<(), ActionError>
    where
        F: Strategy + ?Sized,
    {
        loop {
            match self.play_state(o, h) {
                PlayState::Skip => return Ok(()),
                PlayState::AutoStand => {
                    self.auto_stand(o, h, io);
                    return Ok(());
                }
                PlayState::Chance => self.play_chance(o, h, io),
                PlayState::Decide => {
                    let d = self.auto_decide(o, h, strategy, io)?;
                    // A stand, a double or a surrender finishes the hand (or the shoe
                    // ran out and the round is void): its state need not be asked again.
                    if matches!(
                        d,
                        Decision::Stand | Decision::Double(_) | Decision::Surrender
                    ) {
                        debug_assert!(
                            matches!(self.stage, Stage::Done)
                                || matches!(self.play_state(o, h), PlayState::Skip)
                        );
                        return Ok(());
                    }
                }
            }
            if matches!(self.stage, Stage::Done) {
                return Ok(());
            }
        }
    }

    /// A hand that stands by itself (21, split aces with one card).
    pub(crate) fn auto_stand<I: Io>(&mut self, o: u8, h: u8, io: &mut I) {
        let si = self.order[usize::from(o)];
        let i = usize::from(si) * self.mh() + usize::from(h);
        self.hands[i].status = Status::Stood;
        io.emit(Event::Stood {
            at: self.place(si, h),
            total: self.hands[i].hand.total(),
        });
        self.hand_finished(si, io);
    }

    /// One decision of hand `h` of the `o`-th spot in play (its state is
    /// [`PlayState::Decide`]): the strategy is asked and its decision applied as
    /// [`Round::decide_with`] would. Returns the decision applied.
    #[inline(always)]
    pub(crate) fn auto_decide<F, I: Io>(
        &mut self,
        o: u8,
        h: u8,
        strategy: &mut F,
        io: &mut I,
    ) -> Result<Decision, ActionError>
    where
        F: Strategy + ?Sized,
    {
        let legal = self.legal_play(o, h);
        let si = self.order[usize::from(o)];
        let ctx = self.context(si, h, super::Phase::PlayerTurns, legal);
        let (seat, at) = (ctx.at.seat, ctx.at);
        let d = strategy.decide(&ctx);
        if legal.decisions.allows(d) && self.check_amount(seat, d, &legal).is_ok() {
            // Offered, with an allowed amount: what `decide_with` would apply.
            io.emit(Event::Decided { at, decision: d });
            self.play(si, h, d, io);
        } else {
            self.decide_with(seat, d, legal, io)?;
        }
        Ok(d)
    }
}
