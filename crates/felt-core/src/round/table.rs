//! The immutable table: validated rules compiled into the compact form the round reads.

use crate::id::ShortId;
use crate::meter::MeterId;
use crate::money::{Basis, Money, Payout};
use crate::rules::{
    DoubleOn, InsuranceOffer, LateNatural, Limits, LinePay, Peek, Rounding, Rules, Soft17,
    SplitPairs, Surrender, ThirdCard,
};
use crate::shoe::Shoe;
use crate::sidebet::{HandName, LineTable, SideBetKind};
use rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

use super::event::ShuffleWhy;
use super::Round;

/// The most side bets a table carries.
pub const MAX_SIDE_BETS: usize = 4;
/// The most seats at a table.
pub const MAX_SEATS: usize = 7;

/// Why a table or a round could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// More side bets than [`MAX_SIDE_BETS`] (validation refuses such rules, so a
    /// validated [`Rules`] never gives it).
    #[error("a table carries at most {MAX_SIDE_BETS} side bets, the rules have {0}")]
    TooManySideBets(usize),
    /// An id longer than [`ShortId::MAX_LEN`] bytes (refused by validation too).
    #[error("the id `{0}` is longer than 31 bytes")]
    IdTooLong(String),
    /// The round needs 1 to `table.seats` seats.
    #[error("a round needs 1 to {max} seats, not {given}")]
    Seats {
        /// Seats given.
        given: usize,
        /// Seats at the table.
        max: u8,
    },
    /// The shoe does not hold the rules' number of decks.
    #[error("the shoe holds {shoe} deck(s) but the rules say {rules}")]
    ShoeDecks {
        /// Decks in the shoe.
        shoe: u8,
        /// Decks in the rules.
        rules: u8,
    },
    /// A balance below zero or above [`super::MAX_SEATED_BALANCE`].
    #[error("seat {0}: a balance must be between 0 and 1.01 * 10^18 cents")]
    Balance(u8),
}

/// One pay-table line in force at this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// The hand the line pays.
    pub hand: HandName,
    /// Odds or a meter share.
    pub pay: LinePay,
    /// `to` or `for`.
    pub basis: Basis,
}

/// A progressive meter behind a side bet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progressive {
    /// The meter's id.
    pub meter: MeterId,
    /// The start and reset value.
    pub reset: Money,
    /// Added by every wager.
    pub increment: Money,
}

/// A side bet as the table plays it.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBet {
    /// The id every output uses.
    pub id: ShortId,
    /// Which cards it reads.
    pub kind: SideBetKind,
    /// Its limits.
    pub limits: Limits,
    /// The lines in force, best first (one-7 lines dropped under `one_seven_pays =
    /// false`, lines that cannot occur with this many decks dropped, LL-3).
    pub lines: Vec<Line>,
    /// Where a 7s bet's third card comes from.
    pub third_card: ThirdCard,
    /// A third card is dealt to two 7s on a dealer natural (B7-4) or not (L7-3, BB-3).
    pub third_card_on_dealer_natural: bool,
    /// The progressive meter, if any.
    pub progressive: Option<Progressive>,
    pub(crate) needs_third: bool,
    pub(crate) needs_natural: bool,
    /// The line each hand pays, worked out once.
    pub(crate) line_table: LineTable,
}

/// How a side bet settles at the initial deal (C-5, LL-4, LA-1, L7-5, B7-7), worked out
/// once per table from its kind and lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtDeal {
    /// Settles on the first two cards and the up card.
    Settle,
    /// Settles unless a line on the dealer's natural may still pay: then waits for the
    /// hole card.
    UnlessNaturalLine,
    /// A 7s bet whose third card is the dealer's up card: settles now.
    SevensOnUpCard,
    /// A 7s bet with third-card lines: two 7s wait for the third card, others settle.
    SevensAwaitThird,
}

/// A side bet in settlement order with how it settles at the deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DealSide {
    /// The bet's index in [`Config::sides`].
    pub b: u8,
    /// How it settles.
    pub at: AtDeal,
}

impl DealSide {
    pub(crate) const NONE: DealSide = DealSide {
        b: 0,
        at: AtDeal::Settle,
    };

    /// Side bet `b` of `sides`.
    fn of(sides: &[SideBet], b: u8) -> DealSide {
        let bet = &sides[usize::from(b)];
        let at = match bet.kind {
            SideBetKind::Sevens if bet.third_card == ThirdCard::UpCard => AtDeal::SevensOnUpCard,
            SideBetKind::Sevens if bet.needs_third => AtDeal::SevensAwaitThird,
            SideBetKind::Sevens => AtDeal::Settle,
            _ if bet.needs_natural => AtDeal::UnlessNaturalLine,
            _ => AtDeal::Settle,
        };
        DealSide { b, at }
    }
}

#[derive(Debug)]
pub(crate) struct Config {
    pub rules: Rules,
    pub decks: u8,
    pub csm: bool,
    pub penetration: f64,
    pub burn: u8,
    pub h17: bool,
    pub peek: Peek,
    pub late_natural: LateNatural,
    pub insurance: InsuranceOffer,
    pub even_money: bool,
    pub insurance_pays: Payout,
    pub insurance_min: Money,
    /// Bit `t` set: a two-card hand of total `t` may double (from `double`).
    pub double_totals: u32,
    pub das: bool,
    pub double_for_less: bool,
    pub max_hands: u8,
    pub split_by_rank: bool,
    pub resplit_aces: bool,
    pub one_card_aces: bool,
    pub hit_split_aces: bool,
    pub surrender: Surrender,
    pub surrender_after_split: bool,
    pub hit_soft_21: bool,
    pub seats: u8,
    pub spots: u8,
    pub naturals_in_turn: bool,
    pub exact: bool,
    pub main: Limits,
    pub blackjack: Payout,
    pub sides: Vec<SideBet>,
    /// The side bets in settlement order, optional wagers first, progressives last
    /// (B7-7), with how each settles at the deal; kept by every round inline.
    pub at_deal: [DealSide; MAX_SIDE_BETS],
    /// The side bets with a progressive meter, bit `k` for side bet `k`.
    pub progressives: u8,
}

/// The totals a two-card hand may double on, as a bit set (bit `t` for total `t`).
fn double_totals(on: DoubleOn) -> u32 {
    let range = |lo: u32, hi: u32| (lo..=hi).fold(0u32, |m, t| m | 1 << t);
    match on {
        DoubleOn::None => 0,
        DoubleOn::AnyTwo => range(0, 31),
        DoubleOn::NineToEleven => range(9, 11),
        DoubleOn::TenToEleven => range(10, 11),
    }
}

/// An immutable table built from validated rules; it creates rounds. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Table {
    pub(crate) cfg: Arc<Config>,
}

impl Table {
    /// The table for these rules.
    pub fn new(rules: &Rules) -> Result<Table, TableError> {
        let sb = rules.side_bets();
        if sb.len() > MAX_SIDE_BETS {
            return Err(TableError::TooManySideBets(sb.len()));
        }
        let decks = rules.shoe().decks;
        let mut sides = Vec::with_capacity(sb.len());
        for b in sb {
            let id = ShortId::new(&b.id).ok_or_else(|| TableError::IdTooLong(b.id.clone()))?;
            let lines: Vec<Line> = b
                .active_lines()
                .filter(|(_, l)| l.hand.min_decks() <= decks)
                .map(|(_, l)| Line {
                    hand: l.hand,
                    pay: l.pay(),
                    basis: l.basis,
                })
                .collect();
            let progressive = match &b.progressive {
                Some(p) => Some(Progressive {
                    meter: ShortId::new(&p.meter)
                        .ok_or_else(|| TableError::IdTooLong(p.meter.clone()))?,
                    reset: p.reset,
                    increment: p.increment,
                }),
                None => None,
            };
            sides.push(SideBet {
                id,
                kind: b.kind,
                limits: b.limits(),
                needs_third: lines.iter().any(|l| l.hand.needs_third_card()),
                needs_natural: lines.iter().any(|l| l.hand.needs_dealer_natural()),
                line_table: LineTable::new(
                    b.kind,
                    &lines.iter().map(|l| l.hand).collect::<Vec<_>>(),
                ),
                lines,
                third_card: b.third_card_source(),
                third_card_on_dealer_natural: b.third_card_on_dealer_natural,
                progressive,
            });
        }
        let mut settle_order: Vec<u8> = (0..sides.len() as u8)
            .filter(|&i| sides[usize::from(i)].progressive.is_none())
            .collect();
        settle_order.extend(
            (0..sides.len() as u8).filter(|&i| sides[usize::from(i)].progressive.is_some()),
        );
        let at_deal = std::array::from_fn(|k| {
            settle_order
                .get(k)
                .map_or(DealSide::NONE, |&b| DealSide::of(&sides, b))
        });
        let d = rules.dealer();
        let ins = rules.insurance();
        let p = rules.player();
        let t = rules.table();
        let m = rules.main_bet();
        let cfg = Config {
            rules: rules.clone(),
            decks,
            csm: rules.shoe().csm,
            penetration: rules.shoe().penetration,
            burn: rules.shoe().burn,
            h17: d.soft_17 == Soft17::Hit,
            peek: d.peek,
            late_natural: d.late_natural,
            insurance: ins.offer,
            even_money: ins.even_money,
            insurance_pays: Payout {
                ratio: ins.pays,
                basis: Basis::To,
            },
            insurance_min: ins.min.unwrap_or(m.increment),
            double_totals: double_totals(p.double),
            das: p.double_after_split,
            double_for_less: p.double_for_less,
            max_hands: p.max_split_hands.max(1),
            split_by_rank: p.split_pairs == SplitPairs::Rank,
            resplit_aces: p.resplit_aces,
            one_card_aces: p.one_card_split_aces,
            hit_split_aces: p.hit_split_aces,
            surrender: p.surrender,
            surrender_after_split: p.surrender_after_split,
            hit_soft_21: p.hit_soft_21,
            seats: t.seats.clamp(1, MAX_SEATS as u8),
            spots: t.max_spots_per_player.clamp(1, 7),
            naturals_in_turn: t.naturals_paid_in_turn,
            exact: t.rounding == Rounding::Exact,
            main: m.limits(),
            blackjack: m.blackjack_payout(),
            progressives: sides
                .iter()
                .enumerate()
                .filter(|(_, b)| b.progressive.is_some())
                .fold(0u8, |m, (k, _)| m | 1 << k),
            sides,
            at_deal,
        };
        Ok(Table { cfg: Arc::new(cfg) })
    }

    /// The rules the table plays.
    pub fn rules(&self) -> &Rules {
        &self.cfg.rules
    }

    /// Seats at the table.
    pub fn seats(&self) -> u8 {
        self.cfg.seats
    }

    /// Betting spots one seat may play.
    pub fn spots_per_seat(&self) -> u8 {
        self.cfg.spots
    }

    /// The side bets, in the rules file's order (their index is the `bet` of
    /// [`super::Action::SideBet`]).
    pub fn side_bets(&self) -> &[SideBet] {
        &self.cfg.sides
    }

    /// The index of the side bet with this id.
    pub fn side_bet_index(&self, id: &str) -> Option<u8> {
        self.cfg
            .sides
            .iter()
            .position(|b| b.id == id)
            .map(|i| i as u8)
    }

    /// The progressive meters the table's side bets name, with their reset values.
    pub fn meters(&self) -> impl Iterator<Item = (MeterId, Money)> + '_ {
        self.cfg
            .sides
            .iter()
            .filter_map(|b| b.progressive.map(|p| (p.meter, p.reset)))
    }

    /// A new, unshuffled shoe of the rules' decks with the cut card at the rules'
    /// penetration. The first round shuffles it.
    pub fn new_shoe(&self) -> Shoe {
        let mut s = Shoe::new(self.cfg.decks);
        s.set_penetration(self.cfg.penetration);
        s
    }

    /// Whether the next round at this table shuffles `shoe` before its first card, and
    /// why: a continuous shuffling machine shuffles every shoe that is not fresh, a shoe
    /// is shuffled when it never was or its cut card came out. [`Round::begin`] asks
    /// this; a front end asks it too, to commit to the new shoe's seed first.
    #[inline]
    pub fn shuffle_due(&self, shoe: &Shoe) -> Option<ShuffleWhy> {
        if self.cfg.csm {
            (!shoe.is_fresh()).then_some(ShuffleWhy::Csm)
        } else if shoe.needs_shuffle() {
            Some(if shoe.cut_card_out() {
                ShuffleWhy::CutCard
            } else {
                ShuffleWhy::NewShoe
            })
        } else {
            None
        }
    }

    /// A round state for `balances.len()` seats (1..=seats), seat 0 on the dealer's
    /// left, with this shoe and this generator (used for every shuffle). The round
    /// is idle: call [`Round::begin`] to open betting.
    pub fn round<R: RngCore + CryptoRng>(
        &self,
        shoe: Shoe,
        rng: R,
        balances: &[Money],
    ) -> Result<Round<R>, TableError> {
        Round::new(self, shoe, rng, balances)
    }
}
