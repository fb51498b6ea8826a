//! The round's course: opening, the initial deal, the peek, moving the turn from hand
//! to hand, dealer play and the end. Chance steps live here.

use super::event::{Event, ShuffleWhy, Target};
use super::{Io, PHand, Place, Round, SideState, Spot, Stage, Status, SPOT_SLOTS};
use crate::card::{Card, Rank};
use crate::rules::{InsuranceOffer, Peek, Surrender};
use rand_core::{CryptoRng, RngCore};

/// What the hand at `Play(o, h)` needs next.
pub(crate) enum PlayState {
    /// Nothing: move on.
    Skip,
    /// A chance step (a split hand's second card, a natural paid in turn).
    Chance,
    /// The hand stands by itself.
    AutoStand,
    /// A seat decides.
    Decide,
}

impl<R: RngCore + CryptoRng> Round<R> {
    /// The stride of a spot's hands in [`Round::hands`] (see [`super::MAX_HANDS`]).
    #[inline(always)]
    pub(crate) fn mh(&self) -> usize {
        super::MAX_HANDS
    }

    #[inline]
    pub(crate) fn place(&self, spot_index: u8, hand: u8) -> Place {
        let (seat, spot) = self.seat_spot[usize::from(spot_index) & (SPOT_SLOTS - 1)];
        Place { seat, spot, hand }
    }

    /// The dealer's up card ([`super::NO_CARD`] before it is dealt).
    #[inline(always)]
    pub(crate) fn up_card(&self) -> Card {
        debug_assert_eq!(
            self.up,
            self.dealer
                .cards()
                .get(1)
                .copied()
                .unwrap_or(super::NO_CARD)
        );
        self.up
    }

    /// Whether the up card lets the dealer hold a natural.
    #[inline]
    pub(crate) fn natural_possible(&self) -> bool {
        let up = self.up_card();
        up.rank == Rank::Ace || up.rank.is_ten_value()
    }

    pub(crate) fn begin_round<I: Io>(&mut self, io: &mut I) {
        self.round_no += 1;
        io.emit(Event::RoundStarted {
            round: self.round_no,
        });
        if let Some(why) = self.table.shuffle_due(&self.shoe) {
            self.shuffle(why, io);
        }
        if self.shoe.burn_due() {
            self.burn_after_shuffle(io);
        }
        // Only the spots of the last round hold anything: every other spot is empty.
        for &si in self.order.iter() {
            self.spots[usize::from(si)] = Spot::EMPTY;
        }
        self.order.clear();
        self.dealer.clear();
        self.up = super::NO_CARD;
        self.hole_turned = false;
        self.natural_known = None;
        self.sides_on = 0;
        self.natural_waits = false;
        self.third_waits = false;
        self.insured = false;
        self.stage = Stage::Betting;
    }

    /// Shuffles the shoe (once a shoe: kept out of the round's hot path).
    #[cold]
    #[inline(never)]
    fn shuffle<I: Io>(&mut self, why: ShuffleWhy, io: &mut I) {
        self.shoe.shuffle(&mut self.rng);
        io.emit(Event::Shuffled {
            cards: self.shoe.len() as u16,
            why,
        });
    }

    /// Burns the cards due after a shuffle (C-12).
    #[cold]
    #[inline(never)]
    fn burn_after_shuffle<I: Io>(&mut self, io: &mut I) {
        for _ in 0..self.table.cfg.burn {
            let was = self.shoe.cut_card_out();
            if let Some(card) = self.shoe.burn() {
                if !was && self.shoe.cut_card_out() {
                    io.emit(Event::CutCardOut {
                        position: self.shoe.dealt() as u16,
                    });
                }
                io.emit(Event::Burned {
                    card,
                    face_up: false,
                });
            }
        }
        self.shoe.burn_done();
    }

    /// Deals one card (the rack is reshuffled if the shoe runs out mid-round).
    #[inline]
    pub(crate) fn draw<I: Io>(&mut self, io: &mut I) -> Option<Card> {
        let Some((c, cut_now)) = self.shoe.deal() else {
            return self.draw_reshuffled(io);
        };
        if cut_now {
            self.cut_card_out(io);
        }
        Some(c)
    }

    #[cold]
    fn cut_card_out<I: Io>(&mut self, io: &mut I) {
        io.emit(Event::CutCardOut {
            position: self.shoe.dealt() as u16 - 1,
        });
    }

    /// [`Round::draw`] when the undealt cards have run out.
    #[cold]
    fn draw_reshuffled<I: Io>(&mut self, io: &mut I) -> Option<Card> {
        let was = self.shoe.cut_card_out();
        self.shoe.mark_empty();
        if !self.shoe.reshuffle_discards(&mut self.rng) {
            return None;
        }
        io.emit(Event::Shuffled {
            cards: self.shoe.remaining() as u16,
            why: ShuffleWhy::RackReshuffled,
        });
        let c = self.shoe.draw()?;
        if !was && self.shoe.cut_card_out() {
            self.cut_card_out(io);
        }
        Some(c)
    }

    /// Runs every chance step until a seat must decide or the round is done.
    #[inline]
    pub(crate) fn run<I: Io>(&mut self, io: &mut I) {
        self.drive(io, true);
    }

    /// Moves past everything that needs neither a decision nor a chance step;
    /// returns whether a chance step is due.
    #[inline]
    pub(crate) fn normalize<I: Io>(&mut self, io: &mut I) -> bool {
        self.drive(io, false)
    }

    /// The round's course from where it stands: moves past everything that needs
    /// neither a decision nor a chance step and, with `chance`, runs the chance steps
    /// too (in the order single [`Round::step`]s would take them), until a seat must
    /// decide or the round is done. Without `chance` it stops before the first
    /// chance step and returns `true`; otherwise it returns `false`.
    fn drive<I: Io>(&mut self, io: &mut I, chance: bool) -> bool {
        loop {
            let n = self.order.len() as u8;
            match self.stage {
                Stage::EarlySurrender(o) => {
                    if o >= n {
                        self.stage = self.after_early_surrender();
                    } else if !self.early_surrender_offered(o) {
                        self.stage = Stage::EarlySurrender(o + 1);
                    } else {
                        return false;
                    }
                }
                Stage::Insurance(o) => {
                    if o >= n {
                        self.stage = Stage::Peek;
                    } else if self.insurance_offer(o).is_none() {
                        self.stage = Stage::Insurance(o + 1);
                    } else {
                        return false;
                    }
                }
                Stage::Peek => {
                    if self.peek_applies() {
                        if !chance {
                            return true;
                        }
                        self.peek(io);
                        continue;
                    }
                    if !self.natural_possible() {
                        self.natural_known = Some(false);
                    }
                    self.stage = Stage::Play(0, 0);
                }
                Stage::Play(o, h) => {
                    if o >= n {
                        self.stage = Stage::Reveal;
                        continue;
                    }
                    match self.play_state(o, h) {
                        PlayState::Skip => {
                            let si = usize::from(self.order[usize::from(o)]);
                            self.stage = if h + 1 < self.spots[si].nhands {
                                Stage::Play(o, h + 1)
                            } else {
                                Stage::Play(o + 1, 0)
                            };
                        }
                        PlayState::AutoStand => self.auto_stand(o, h, io),
                        PlayState::Chance => {
                            if !chance {
                                return true;
                            }
                            self.play_chance(o, h, io);
                        }
                        PlayState::Decide => return false,
                    }
                }
                Stage::DealerDraw => {
                    // Dealer cards change no player hand: `live_hands` holds throughout.
                    if self.dealer_must_draw() && self.live_hands() {
                        if !chance {
                            return true;
                        }
                        if !self.dealer_plays(io) {
                            return false;
                        }
                    }
                    self.stage = Stage::Settle;
                }
                Stage::Done | Stage::Betting => return false,
                Stage::Dealing(_) | Stage::SideBets | Stage::Reveal | Stage::Settle if !chance => {
                    return true
                }
                Stage::Dealing(k) => self.deal_initial_rest(k, io),
                Stage::SideBets => {
                    self.settle_initial_side_bets(io);
                    self.stage = self.after_side_bets();
                }
                Stage::Reveal => self.reveal(io),
                Stage::Settle => self.settle_all(io),
            }
        }
    }

    /// The dealer draws to the end (the hand must draw now); `false` if the shoe ran
    /// out and the round was voided.
    #[inline(always)]
    pub(crate) fn dealer_plays<I: Io>(&mut self, io: &mut I) -> bool {
        // The running totals stay in registers: only the cards go to memory.
        let (mut hard, mut ace) = (self.dealer.hard_total(), self.dealer.has_ace());
        let h17 = self.table.cfg.h17;
        loop {
            let Some(c) = self.draw(io) else {
                self.void(io);
                return false;
            };
            if self.dealer.push(c) {
                hard = hard.saturating_add(c.value());
                ace |= c.rank == Rank::Ace;
            }
            io.emit(Event::Dealt {
                to: Target::Dealer,
                card: c,
                face_up: true,
                side_bet_only: false,
            });
            let t = crate::hand::best_total(hard, ace);
            let soft = t != hard;
            if !(t < 17 || (t == 17 && soft && h17)) {
                return true;
            }
        }
    }

    pub(crate) fn peek_applies(&self) -> bool {
        let up = self.up_card();
        match self.table.cfg.peek {
            Peek::TenAndAce => up.rank == Rank::Ace || up.rank.is_ten_value(),
            Peek::AceOnly => up.rank == Rank::Ace,
            Peek::None => false,
        }
    }

    pub(crate) fn after_side_bets(&self) -> Stage {
        let cfg = &self.table.cfg;
        if cfg.surrender == Surrender::Early && self.natural_possible() {
            Stage::EarlySurrender(0)
        } else {
            self.after_early_surrender()
        }
    }

    fn after_early_surrender(&self) -> Stage {
        let cfg = &self.table.cfg;
        if self.up_card().rank == Rank::Ace
            && (cfg.insurance != InsuranceOffer::Off || cfg.even_money)
        {
            Stage::Insurance(0)
        } else {
            Stage::Peek
        }
    }

    pub(crate) fn early_surrender_offered(&self, o: u8) -> bool {
        let si = usize::from(self.order[usize::from(o)]);
        let h = &self.hands[si * self.mh()];
        !h.settled && h.status == Status::Open
    }

    /// The state of hand `h` of the `o`-th spot in play.
    #[inline(always)]
    pub(crate) fn play_state(&self, o: u8, h: u8) -> PlayState {
        let cfg = &self.table.cfg;
        let si = usize::from(self.order[usize::from(o)]);
        let spot = &self.spots[si];
        if h >= spot.nhands {
            return PlayState::Skip;
        }
        let ph = &self.hands[si * self.mh() + usize::from(h)];
        if ph.waiting {
            return PlayState::Chance;
        }
        if ph.settled {
            return PlayState::Skip;
        }
        match ph.status {
            Status::Natural => {
                if cfg.naturals_in_turn && self.natural_known == Some(false) {
                    PlayState::Chance
                } else {
                    PlayState::Skip
                }
            }
            Status::Stood | Status::Busted | Status::Surrendered => PlayState::Skip,
            Status::Open => {
                let hand = &ph.hand;
                if ph.split_aces && cfg.one_card_aces {
                    let resplit = cfg.resplit_aces
                        && hand.len() == 2
                        && hand.cards()[1].rank == Rank::Ace
                        && spot.nhands < cfg.max_hands;
                    return if resplit {
                        PlayState::Decide
                    } else {
                        PlayState::AutoStand
                    };
                }
                let t = hand.total();
                if t == 21 && !(hand.is_soft() && cfg.hit_soft_21) {
                    PlayState::AutoStand
                } else {
                    PlayState::Decide
                }
            }
        }
    }

    /// One chance step.
    pub(crate) fn step<I: Io>(&mut self, io: &mut I) {
        match self.stage {
            Stage::Dealing(k) => self.deal_initial(k, io),
            Stage::SideBets => {
                self.settle_initial_side_bets(io);
                self.stage = self.after_side_bets();
            }
            Stage::Peek => self.peek(io),
            Stage::Play(o, h) => self.play_chance(o, h, io),
            Stage::Reveal => self.reveal(io),
            Stage::DealerDraw => {
                let Some(c) = self.draw(io) else {
                    return self.void(io);
                };
                self.dealer.push(c);
                io.emit(Event::Dealt {
                    to: Target::Dealer,
                    card: c,
                    face_up: true,
                    side_bet_only: false,
                });
            }
            Stage::Settle => self.settle_all(io),
            Stage::Done | Stage::Betting | Stage::EarlySurrender(_) | Stage::Insurance(_) => {}
        }
    }

    /// One card of the initial deal (`k` counts the cards dealt before it).
    fn deal_initial<I: Io>(&mut self, k: u8, io: &mut I) {
        if !self.deal_initial_card(k, io) {
            return;
        }
        if usize::from(k) > 2 * self.order.len() {
            self.initial_deal_done();
        } else {
            self.stage = Stage::Dealing(k + 1);
        }
    }

    /// The rest of the initial deal from card `k`, in one go.
    #[inline(always)]
    pub(crate) fn deal_initial_rest<I: Io>(&mut self, k: u8, io: &mut I) {
        let n = self.order.len() as u8;
        if k == 0 {
            // The whole deal: the same cards in the same order as card by card.
            for second in [false, true] {
                for o in 0..n {
                    if !self.deal_to_spot(o, second, io) {
                        return;
                    }
                }
                if !self.deal_to_dealer(second, io) {
                    return;
                }
            }
        } else {
            for k in k..=2 * n + 1 {
                if !self.deal_initial_card(k, io) {
                    return;
                }
            }
        }
        self.initial_deal_done();
    }

    /// Deals card `k` of the initial deal: one to each spot in turn, the dealer's hole
    /// card, a second to each spot, the up card. `false` if the round was voided.
    fn deal_initial_card<I: Io>(&mut self, k: u8, io: &mut I) -> bool {
        let n = self.order.len() as u8;
        if k < n {
            self.deal_to_spot(k, false, io)
        } else if k == n {
            self.deal_to_dealer(false, io)
        } else if k <= 2 * n {
            self.deal_to_spot(k - n - 1, true, io)
        } else {
            self.deal_to_dealer(true, io)
        }
    }

    /// An initial card to the `o`-th spot in play (its first or second); `false` if
    /// the round was voided.
    #[inline(always)]
    fn deal_to_spot<I: Io>(&mut self, o: u8, second: bool, io: &mut I) -> bool {
        let Some(c) = self.draw(io) else {
            self.void(io);
            return false;
        };
        let si = self.order[usize::from(o)];
        let i = usize::from(si) * self.mh();
        self.hands[i].hand.push(c);
        self.spots[usize::from(si)].first_two[usize::from(second)] = c;
        io.emit(Event::Dealt {
            to: Target::Player(self.place(si, 0)),
            card: c,
            face_up: true,
            side_bet_only: false,
        });
        true
    }

    /// An initial card to the dealer: the hole card face down, the up card face up;
    /// `false` if the round was voided.
    #[inline(always)]
    fn deal_to_dealer<I: Io>(&mut self, face_up: bool, io: &mut I) -> bool {
        let Some(c) = self.draw(io) else {
            self.void(io);
            return false;
        };
        self.dealer.push(c);
        if self.dealer.len() == 2 {
            self.up = c;
        }
        io.emit(Event::Dealt {
            to: Target::Dealer,
            card: c,
            face_up,
            side_bet_only: false,
        });
        true
    }

    /// The up card is out: naturals are known to the players; the side bets are next.
    #[inline(always)]
    fn initial_deal_done(&mut self) {
        let mh = self.mh();
        for &si in self.order.iter() {
            let h = &mut self.hands[usize::from(si) * mh];
            if h.hand.is_two_card_21() {
                h.status = Status::Natural;
            }
        }
        if !self.natural_possible() {
            self.natural_known = Some(false);
        }
        self.stage = Stage::SideBets;
    }

    #[inline(always)]
    pub(crate) fn peek<I: Io>(&mut self, io: &mut I) {
        let natural = self.dealer.is_two_card_21();
        io.emit(Event::Peeked { natural });
        if natural {
            self.natural_known = Some(true);
            self.turn_hole(io);
            self.dealer_natural(false, io);
        } else {
            self.natural_known = Some(false);
            self.settle_insurance(false, io);
            self.settle_awaiting_natural(false, io);
            self.stage = Stage::Play(0, 0);
        }
    }

    fn turn_hole<I: Io>(&mut self, io: &mut I) {
        self.hole_turned = true;
        io.emit(Event::HoleCardTurned {
            card: self
                .dealer
                .cards()
                .first()
                .copied()
                .unwrap_or(super::NO_CARD),
            total: self.dealer.total(),
        });
    }

    #[inline(always)]
    pub(crate) fn reveal<I: Io>(&mut self, io: &mut I) {
        self.turn_hole(io);
        if self.dealer.is_two_card_21() && self.natural_known != Some(true) {
            // LA-3: found only now, it still counts as a natural.
            self.natural_known = Some(true);
            self.dealer_natural(true, io);
            return;
        }
        self.natural_known = Some(false);
        self.settle_insurance(false, io);
        self.settle_awaiting_natural(false, io);
        self.stage = Stage::DealerDraw;
    }

    pub(crate) fn play_chance<I: Io>(&mut self, o: u8, h: u8, io: &mut I) {
        let si = self.order[usize::from(o)];
        let i = usize::from(si) * self.mh() + usize::from(h);
        if self.hands[i].waiting {
            let Some(c) = self.draw(io) else {
                return self.void(io);
            };
            self.hands[i].hand.push(c);
            self.hands[i].waiting = false;
            io.emit(Event::Dealt {
                to: Target::Player(self.place(si, h)),
                card: c,
                face_up: true,
                side_bet_only: false,
            });
            self.spot_card(si, c, io);
        } else if self.hands[i].status == Status::Natural && !self.hands[i].settled {
            self.pay_natural(si, h, io);
        }
    }

    pub(crate) fn dealer_must_draw(&self) -> bool {
        let t = self.dealer.total();
        t < 17 || (t == 17 && self.dealer.is_soft() && self.table.cfg.h17)
    }

    /// Whether a hand still needs the dealer's total. Compiled into its callers: out
    /// of line, the simulator's main game took about 10 instructions a round more.
    #[inline(always)]
    pub(crate) fn live_hands(&self) -> bool {
        let mh = self.mh();
        for o in 0..self.order.len() {
            let s = usize::from(self.order[o]);
            for h in &self.hands.live()[s * mh..s * mh + usize::from(self.spots[s].nhands)] {
                if !h.settled && h.status == Status::Stood {
                    return true;
                }
            }
        }
        false
    }

    /// Ends the round: the cards go to the rack.
    pub(crate) fn finish<I: Io>(&mut self, io: &mut I) {
        self.shoe.end_round();
        self.stage = Stage::Done;
        io.emit(Event::RoundEnded {
            round: self.round_no,
        });
    }

    /// A new hand slot for a split, right after `h` in spot `si`.
    pub(crate) fn insert_hand(&mut self, si: u8, h: u8, new: PHand) {
        let base = usize::from(si) * self.mh();
        let n = usize::from(self.spots[usize::from(si)].nhands);
        let at = base + usize::from(h) + 1;
        self.hands.live_mut().copy_within(at..base + n, at + 1);
        self.hands[at] = new;
        self.spots[usize::from(si)].nhands += 1;
    }

    /// Any side bet of the spot waiting for the third card is settled by `card` (L7-4, B7-4).
    #[inline(always)]
    pub(crate) fn spot_card<I: Io>(&mut self, si: u8, card: Card, io: &mut I) {
        let s = usize::from(si);
        if !self.third_waits || !self.spots[s].side_state.contains(&SideState::AwaitThird) {
            return;
        }
        for k in 0..self.sides_in_order() {
            let b = usize::from(self.at_deal[k].b);
            if self.spots[s].side_state[b] == SideState::AwaitThird {
                self.settle_side(si, b, Some(card), false, io);
            }
        }
    }

    /// A hand of the spot is finished without a card: a 7s bet still waiting is
    /// paid as two 7s (L7-4).
    #[inline(always)]
    pub(crate) fn hand_finished<I: Io>(&mut self, si: u8, io: &mut I) {
        let s = usize::from(si);
        if !self.third_waits || !self.spots[s].side_state.contains(&SideState::AwaitThird) {
            return;
        }
        for k in 0..self.sides_in_order() {
            let b = usize::from(self.at_deal[k].b);
            if self.spots[s].side_state[b] == SideState::AwaitThird {
                self.settle_side(si, b, None, false, io);
            }
        }
    }
}
