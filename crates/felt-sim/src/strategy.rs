//! The player's strategy as a flat lookup table, compiled once from the exact analysis.
//!
//! Every decision of the automated path is one table read: the row is the hand (hard
//! total, soft total, or pair), the column the dealer's up card, and the last index the
//! set of decisions the engine offers right now ([`DecisionContext::legal`], five bits:
//! hit, stand, double, split, surrender). Each entry is the first action of the cell's
//! ranking (best expected value first) that is legal, so "double, else hit",
//! "surrender, else stand" and "split, else ..." come out of the same table, and a
//! split hand that may not double (no DAS) or split again falls back to the next best
//! legal action. Nothing allocates per decision.
//!
//! Two strategies:
//!
//! - **basic**: felt-math's total-dependent [`BasicStrategy`], computed from the rules
//!   and the full shoe. The table reproduces exactly the play the analysis evaluates
//!   for `ev_basic`: two-card hands by their pair / hard / soft cell with the options
//!   of the situation; hands of three or more cards the better of stand and hit in
//!   their cell; split hands by the same cells with the after-split permissions;
//!   pairs resplit whenever allowed (their cell says split); insurance and even money
//!   never taken.
//! - **composition**: the exact composition-dependent decision for every two-card hand
//!   (by the two cards' values) against every up card, from felt-math's
//!   [`hand_evs`] on the full shoe (the ranking of stand, hit, double, split and
//!   surrender by exact expected value, card removal of the two cards and the up card
//!   included). It is used for the first two cards of a spot and for the two-card
//!   hands after a split (the CDZ- rule: a split hand plays as the same two cards
//!   unsplit, among the options allowed after a split). Hands of three or more cards
//!   still play the basic strategy's total-dependent stand/hit, and the composition is
//!   always the full shoe's (the cards already dealt from the shoe are not counted):
//!   what remains of a full CD strategy is the three-plus-card decisions.

use crate::indices::IndexTable;
use felt_core::card::{Card, Rank, Suit};
use felt_core::round::Decisions;
use felt_core::{Decision, DecisionContext, Money, Phase};
use felt_math::main_game::{
    hand_evs, Action, BasicStrategy, DoubleOn, HandKind, MainGameError, MainGameRules, Shoe,
    Surrender,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Which strategy the simulated players follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StrategyKind {
    /// The computed total-dependent basic strategy.
    #[default]
    Basic,
    /// Composition-dependent two-card decisions (see the module docs).
    Composition,
}

impl std::str::FromStr for StrategyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "basic" => Ok(StrategyKind::Basic),
            "composition" | "cd" => Ok(StrategyKind::Composition),
            _ => Err(format!("unknown strategy `{s}`: basic or composition")),
        }
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StrategyKind::Basic => "basic",
            StrategyKind::Composition => "composition",
        })
    }
}

pub(crate) const STAND: u8 = 0;
pub(crate) const HIT: u8 = 1;
pub(crate) const DOUBLE: u8 = 2;
pub(crate) const SPLIT: u8 = 3;
pub(crate) const SURRENDER: u8 = 4;

/// Masks: the low five bits of [`Decisions`].
pub(crate) const MASKS: usize = 32;
pub(crate) const UPS: usize = 10;
/// Rows: hard 0..=21, soft 12..=21 (22..=31), pairs A..=T (32..=41).
pub(crate) const ROWS: usize = 42;
pub(crate) const SOFT_ROW: usize = 22;
pub(crate) const PAIR_ROW: usize = 32;

#[inline]
fn bit(a: Action) -> u8 {
    match a {
        Action::Hit => Decisions::HIT.0,
        Action::Stand => Decisions::STAND.0,
        Action::Double => Decisions::DOUBLE.0,
        Action::Split => Decisions::SPLIT.0,
        Action::Surrender => Decisions::SURRENDER.0,
    }
}

#[inline]
fn code(a: Action) -> u8 {
    match a {
        Action::Stand => STAND,
        Action::Hit => HIT,
        Action::Double => DOUBLE,
        Action::Split => SPLIT,
        Action::Surrender => SURRENDER,
    }
}

/// For every set of legal decisions, the first legal action of `ranking`; failing
/// that, the first legal of stand, hit, double, split, surrender; failing that, stand.
fn compile(ranking: &[Action]) -> [u8; MASKS] {
    const FALLBACK: [Action; 5] = [
        Action::Stand,
        Action::Hit,
        Action::Double,
        Action::Split,
        Action::Surrender,
    ];
    std::array::from_fn(|mask| {
        let mask = mask as u8;
        ranking
            .iter()
            .chain(FALLBACK.iter())
            .find(|&&a| bit(a) & mask != 0)
            .map_or(STAND, |&a| code(a))
    })
}

/// A (first card, second card, up card) index triple.
type Cell3 = (usize, usize, usize);

/// A compiled strategy: one byte per (hand, up card, legal decisions).
#[derive(Debug, Clone)]
pub struct StrategyTable {
    kind: StrategyKind,
    /// `[row][up][mask]`, flat.
    table: Box<[u8]>,
    /// Composition: `[first value][second value][up][mask]`, flat (values 0 = ace).
    two_card: Option<Box<[u8]>>,
    double_on: DoubleOn,
    can_split: bool,
}

/// Set on the codes of a flagged table whose hand has index plays.
const INDEXED: u8 = 0x80;

fn ranking_of(s: &BasicStrategy, kind: HandKind, t: u8, up: u8) -> Vec<Action> {
    s.cell(kind, t, up)
        .map(|c| c.ranking().to_vec())
        .unwrap_or_else(|_| {
            if t >= 17 {
                vec![Action::Stand, Action::Hit]
            } else {
                vec![Action::Hit, Action::Stand]
            }
        })
}

impl StrategyTable {
    /// The basic-strategy table of `bs` for the rules `rules`.
    pub fn basic(bs: &BasicStrategy, rules: &MainGameRules) -> StrategyTable {
        let mut table = vec![STAND; ROWS * UPS * MASKS].into_boxed_slice();
        for row in 0..ROWS {
            let (kind, t) = if row < SOFT_ROW {
                (HandKind::Hard, (row as u8).max(4))
            } else if row < PAIR_ROW {
                (HandKind::Soft, (row - SOFT_ROW) as u8 + 12)
            } else {
                (HandKind::Pair, (row - PAIR_ROW) as u8 + 1)
            };
            for u in 0..UPS {
                let r = ranking_of(bs, kind, t, u as u8 + 1);
                let at = (row * UPS + u) * MASKS;
                table[at..at + MASKS].copy_from_slice(&compile(&r));
            }
        }
        StrategyTable {
            kind: StrategyKind::Basic,
            table,
            two_card: None,
            double_on: rules.double,
            can_split: rules.max_split_hands >= 2,
        }
    }

    /// The composition table: basic strategy `bs` for hands of three or more cards,
    /// the exact composition-dependent ranking of every two-card hand against every up
    /// card from a full shoe of `rules.decks` decks. Runs `hand_evs` 550 times, in
    /// parallel on the current rayon pool.
    pub fn composition(
        bs: &BasicStrategy,
        rules: &MainGameRules,
    ) -> Result<StrategyTable, MainGameError> {
        let mut t = StrategyTable::basic(bs, rules);
        t.kind = StrategyKind::Composition;
        let shoe = Shoe::decks(rules.decks)?;
        let pairs: Vec<(usize, usize, usize)> = (0..10)
            .flat_map(|a| (a..10).flat_map(move |b| (0..UPS).map(move |u| (a, b, u))))
            .collect();
        let cells: Vec<(Cell3, Option<[u8; MASKS]>)> = pairs
            .par_iter()
            .map(|&(a, b, u)| {
                let natural = a == 0 && b == 9;
                let r = if natural {
                    None
                } else {
                    cd_ranking(rules, &shoe, a as u8 + 1, b as u8 + 1, u as u8 + 1)
                        .map(|r| compile(&r))
                };
                ((a, b, u), r)
            })
            .collect();
        let mut two = vec![STAND; UPS * UPS * UPS * MASKS].into_boxed_slice();
        for ((a, b, u), cell) in cells {
            let entry = match cell {
                Some(e) => e,
                None => {
                    // A natural after a split, or a shoe too small for hand_evs: basic.
                    let row = t.row_of_two(a, b);
                    let at = (row * UPS + u) * MASKS;
                    let mut e = [STAND; MASKS];
                    e.copy_from_slice(&t.table[at..at + MASKS]);
                    e
                }
            };
            for (x, y) in [(a, b), (b, a)] {
                let at = ((x * UPS + y) * UPS + u) * MASKS;
                two[at..at + MASKS].copy_from_slice(&entry);
            }
        }
        t.two_card = Some(two);
        Ok(t)
    }

    /// [`StrategyTable::code`] without the [`INDEXED`] flag: for a table that may be
    /// flagged (the plain table's [`StrategyTable::decide`] reads `code`).
    #[inline]
    fn unflagged_code(&self, cards: &[Card], total: u8, soft: bool, up: usize, mask: usize) -> u8 {
        self.code(cards, total, soft, up, mask) & !INDEXED
    }

    /// Which strategy this is.
    pub fn kind(&self) -> StrategyKind {
        self.kind
    }

    fn row_of_two(&self, a: usize, b: usize) -> usize {
        if a == b {
            return PAIR_ROW + a;
        }
        let hard = a + b + 2;
        if (a == 0 || b == 0) && hard <= 11 {
            SOFT_ROW + hard + 10 - 12
        } else {
            hard
        }
    }

    /// The action code for a hand of these cards, this total, against `up`, under `mask`
    /// (with the [`INDEXED`] flag on a flagged table: see [`StrategyTable::unflagged_code`]).
    #[inline]
    fn code(&self, cards: &[Card], total: u8, soft: bool, up: usize, mask: usize) -> u8 {
        if let [c1, c2] = cards {
            let a = usize::from(c1.value() - 1);
            let b = usize::from(c2.value() - 1);
            if let Some(two) = &self.two_card {
                return two[((a * UPS + b) * UPS + up) * MASKS + mask];
            }
            if a == b {
                return self.table[((PAIR_ROW + a) * UPS + up) * MASKS + mask];
            }
        }
        self.table[(total_row(total, soft) * UPS + up) * MASKS + mask]
    }

    /// The action taken on a hand of `cards` against `up` when the engine offers
    /// `legal` (for tests and tools; the simulator calls [`StrategyTable::decide`]).
    pub fn action(&self, cards: &[Card], up: Card, legal: Decisions) -> Action {
        let h = felt_core::Hand::from_cards(cards);
        let mask = usize::from(legal.0) & (MASKS - 1);
        let up = usize::from(up.value() - 1);
        match self.code(cards, h.total(), h.is_soft(), up, mask) {
            HIT => Action::Hit,
            DOUBLE => Action::Double,
            SPLIT => Action::Split,
            SURRENDER => Action::Surrender,
            _ => Action::Stand,
        }
    }

    /// The decision for the situation the engine presents.
    #[inline]
    pub fn decide(&self, c: &DecisionContext<'_>) -> Decision {
        if c.phase != Phase::PlayerTurns {
            return self.offer(c);
        }
        let mask = usize::from(c.legal.decisions.0) & (MASKS - 1);
        let up = usize::from(c.up.value() - 1);
        decision_of(self.code(c.cards, c.total, c.soft, up, mask), || {
            full_double(c)
        })
    }

    /// A copy of this table whose codes are flagged where `ix` has index plays for the
    /// hand (its hard or soft total's cell, or a pair's own): what
    /// [`StrategyTable::hand_unless_indexed`] reads. The codes are otherwise the same.
    pub(crate) fn flag_indexed(&self, ix: &IndexTable) -> StrategyTable {
        let mut t = self.clone();
        let has = |row: usize, up: usize| ix.has_entries(row, up);
        // The total's row of two cards of values a + 1 and b + 1.
        let total_row = |a: usize, b: usize| {
            let hard = a + b + 2;
            if (a == 0 || b == 0) && hard <= 11 {
                SOFT_ROW + hard + 10 - 12
            } else {
                hard.min(21)
            }
        };
        let flag = |cell: &mut [u8]| cell.iter_mut().for_each(|c| *c |= INDEXED);
        for row in 0..ROWS {
            for up in 0..UPS {
                let hit = if row >= PAIR_ROW {
                    let a = row - PAIR_ROW;
                    has(row, up) || has(total_row(a, a), up)
                } else {
                    has(row, up)
                };
                if hit {
                    let at = (row * UPS + up) * MASKS;
                    flag(&mut t.table[at..at + MASKS]);
                }
            }
        }
        if let Some(two) = t.two_card.as_mut() {
            for a in 0..UPS {
                for b in 0..UPS {
                    for up in 0..UPS {
                        if has(total_row(a, b), up) || (a == b && has(PAIR_ROW + a, up)) {
                            let at = ((a * UPS + b) * UPS + up) * MASKS;
                            flag(&mut two[at..at + MASKS]);
                        }
                    }
                }
            }
        }
        t
    }

    /// The index plays of `ix` worked out ahead for this table flagged by
    /// [`StrategyTable::flag_indexed`]; `None` for a table with two-card codes (a
    /// hand's code then depends on its two cards, not on its row alone) or a set whose
    /// counts span more than [`MAX_SPAN`].
    pub(crate) fn resolve_indices(&self, ix: &IndexTable) -> Option<ResolvedIndices> {
        if self.two_card.is_some() {
            return None;
        }
        let (lo, hi) = ix.count_range()?;
        let tc_lo = lo.checked_sub(1)?;
        let span = usize::try_from(i64::from(hi) - i64::from(lo) + 3)
            .ok()
            .filter(|&s| s <= MAX_SPAN)?;
        let mut cells = vec![NO_CELL; ROWS * UPS];
        let mut codes = Vec::new();
        for row in 0..ROWS {
            // A hand of this row: a pair's two cards, or a total without cards (the
            // code of a hand that is not a pair depends on its total alone).
            let (pair, total, soft) = if row >= PAIR_ROW {
                let v = (row - PAIR_ROW) as u8 + 1;
                (Some(v), if v == 1 { 12 } else { 2 * v }, v == 1)
            } else if row >= SOFT_ROW {
                (None, (row - SOFT_ROW + 12) as u8, true)
            } else {
                (None, row as u8, false)
            };
            let card = pair
                .and_then(Rank::from_number)
                .map(|r| Card::new(r, Suit::Spades));
            let two = card.map(|c| [c, c]);
            let cards: &[Card] = two.as_ref().map_or(&[], |t| &t[..]);
            for up in 0..UPS {
                if self.table[(row * UPS + up) * MASKS] & INDEXED == 0 {
                    continue;
                }
                cells[row * UPS + up] = u32::try_from(codes.len()).ok()?;
                for mask in 0..MASKS {
                    for k in 0..span {
                        let tc = tc_lo + k as i32;
                        let ask = HandAsk {
                            cards,
                            total,
                            soft,
                            up,
                            mask,
                        };
                        codes.push(self.hand_indexed(ask, ix, || tc));
                    }
                }
            }
        }
        Some(ResolvedIndices {
            cells,
            codes,
            tc_lo,
            span,
        })
    }

    /// On a table flagged by [`StrategyTable::flag_indexed`], a hand's action code in
    /// the player turns: the code, as [`StrategyTable::decide`] reads it, or, when
    /// `indexed` and the hand's code is flagged, the [`HandAsk`] that
    /// [`StrategyTable::hand_indexed`] answers. One table read either way, so the
    /// counter's decision is as small as the plain one and is inlined into the engine's
    /// round; the ask is a few values, so the context is not written to memory for it.
    /// Either way the caller makes the decision of the code ([`decision_of`]) at one
    /// place, so that the round's match on the decision follows the code's as in the
    /// plain run (an indirect jump of its own mispredicted 0.6 times a round).
    #[inline(always)]
    pub(crate) fn hand_unless_indexed<'c>(
        &self,
        c: &DecisionContext<'c>,
        indexed: bool,
    ) -> Result<u8, HandAsk<'c>> {
        let mask = usize::from(c.legal.decisions.0) & (MASKS - 1);
        let up = usize::from(c.up.value() - 1);
        let code = self.code(c.cards, c.total, c.soft, up, mask);
        if indexed && code & INDEXED != 0 {
            return Err(HandAsk::of(c));
        }
        Ok(code & !INDEXED)
    }

    /// An offer (insurance, even money, early surrender) with index plays: insurance
    /// and even money are taken when the set's insurance entry holds at the true count
    /// `tc` (asked only then), otherwise as [`StrategyTable::decide`].
    pub(crate) fn offer_indexed(
        &self,
        c: &DecisionContext<'_>,
        ix: &IndexTable,
        tc: impl FnOnce() -> i32,
    ) -> Decision {
        if c.phase == Phase::Insurance {
            if let Some(e) = ix.insurance {
                if e.holds(tc()) {
                    let d = c.legal.decisions;
                    if d.contains(Decisions::EVEN_MONEY) {
                        return Decision::EvenMoney;
                    }
                    if let (true, Some(r)) = (d.contains(Decisions::INSURE), c.legal.insurance) {
                        return Decision::Insure(r.full);
                    }
                }
            }
        }
        self.offer(c)
    }

    /// A hand's action code with index plays: a cell with index entries plays them
    /// first (see [`crate::indices`]), then the table's code among the options left;
    /// `tc` gives the true count now and is asked only when an entry's option is offered.
    pub(crate) fn hand_indexed(
        &self,
        h: HandAsk<'_>,
        ix: &IndexTable,
        mut tc: impl FnMut() -> i32,
    ) -> u8 {
        let HandAsk {
            cards,
            total,
            soft,
            up,
            mut mask,
        } = h;
        let mut cached = None;
        let mut code = None;
        if let [c1, c2] = cards {
            if c1.value() == c2.value() {
                let row = PAIR_ROW + usize::from(c1.value() - 1);
                code = ix.apply(row, up, &mut mask, &mut tc, &mut cached);
                if code.is_none() {
                    let base = self.unflagged_code(cards, total, soft, up, mask);
                    let split = usize::from(Decisions::SPLIT.0);
                    if base == SPLIT || mask & !split == 0 {
                        code = Some(base);
                    } else {
                        mask &= !split;
                    }
                }
            }
        }
        code.unwrap_or_else(|| {
            ix.apply(total_row(total, soft), up, &mut mask, &mut tc, &mut cached)
                .unwrap_or_else(|| self.unflagged_code(cards, total, soft, up, mask))
        })
    }

    /// The decision with index plays: as [`StrategyTable::decide`], but a cell with
    /// index entries plays them first (see [`crate::indices`]); `tc` gives the true
    /// count now and is asked only when a cell has entries (or on insurance).
    pub fn decide_indexed(
        &self,
        c: &DecisionContext<'_>,
        ix: &IndexTable,
        tc: impl FnMut() -> i32,
    ) -> Decision {
        if c.phase != Phase::PlayerTurns {
            return self.offer_indexed(c, ix, tc);
        }
        let code = self.hand_indexed(HandAsk::of(c), ix, tc);
        decision_of(code, || full_double(c))
    }

    /// Insurance and even money: never. Early surrender: when the hand's cell ranks
    /// surrender above every option the hand has.
    #[cold]
    fn offer(&self, c: &DecisionContext<'_>) -> Decision {
        if c.phase == Phase::EarlySurrender && c.legal.decisions.contains(Decisions::SURRENDER) {
            let pair = matches!(c.cards, [a, b] if a.value() == b.value());
            let can_double = match self.double_on {
                DoubleOn::AnyTwo => true,
                DoubleOn::NineToEleven => !c.soft && (9..=11).contains(&c.total),
                DoubleOn::TenToEleven => !c.soft && (10..=11).contains(&c.total),
                DoubleOn::None => false,
            };
            let mut mask = Decisions::HIT.0 | Decisions::STAND.0 | Decisions::SURRENDER.0;
            if can_double {
                mask |= Decisions::DOUBLE.0;
            }
            if pair && self.can_split {
                mask |= Decisions::SPLIT.0;
            }
            let up = usize::from(c.up.value() - 1);
            if self.unflagged_code(c.cards, c.total, c.soft, up, usize::from(mask)) == SURRENDER {
                return Decision::Surrender;
            }
        }
        Decision::Decline
    }
}

/// The table's row of a hand that is not played as a pair: its soft or hard total.
#[inline(always)]
fn total_row(total: u8, soft: bool) -> usize {
    if soft {
        SOFT_ROW + usize::from(total.clamp(12, 21)) - 12
    } else {
        usize::from(total.min(21))
    }
}

/// A counter's index plays worked out ahead ([`StrategyTable::resolve_indices`]): for
/// each flagged cell (a pair's row or a total's, and the up card), each mask of the
/// options offered and each true count in a range past every entry's bounds, the code
/// [`StrategyTable::hand_indexed`] gives. A decision on a flagged cell is then one
/// read, without a branch on whether each index holds.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedIndices {
    /// Per `row * UPS + up`: where the cell's codes start in `codes`, or [`NO_CELL`].
    cells: Vec<u32>,
    /// Per cell, mask and true count from `tc_lo` (`span` of them): the code.
    codes: Vec<u8>,
    tc_lo: i32,
    span: usize,
}

/// A cell without index plays in [`ResolvedIndices::cells`].
const NO_CELL: u32 = u32::MAX;

/// The most true counts [`ResolvedIndices`] keeps a cell's codes for (index plays span
/// a few counts; a set spread wider is answered as before, entry by entry).
const MAX_SPAN: usize = 64;

impl ResolvedIndices {
    /// The code of the flagged hand `h` at true count `tc`; `None` if its cell was not
    /// worked out.
    #[inline(always)]
    pub(crate) fn code(&self, h: &HandAsk<'_>, tc: i32) -> Option<u8> {
        let row = match h.cards {
            [c1, c2] if c1.value() == c2.value() => PAIR_ROW + usize::from(c1.value() - 1),
            _ => total_row(h.total, h.soft),
        };
        let start = *self.cells.get(row * UPS + h.up)?;
        if start == NO_CELL {
            return None;
        }
        let k = (tc.clamp(self.tc_lo, self.tc_lo + self.span as i32 - 1) - self.tc_lo) as usize;
        self.codes
            .get(start as usize + (h.mask & (MASKS - 1)) * self.span + k)
            .copied()
    }
}

/// The amount a double of the hand in `c` puts up: the whole allowed, else its stake.
#[inline(always)]
pub(crate) fn full_double(c: &DecisionContext<'_>) -> Money {
    c.legal.double.map_or(c.stake, |r| r.full)
}

/// The decision of action code `code`; a double is of `double()`.
#[inline(always)]
pub(crate) fn decision_of(code: u8, double: impl FnOnce() -> Money) -> Decision {
    match code {
        HIT => Decision::Hit,
        DOUBLE => Decision::Double(double()),
        SPLIT => Decision::Split,
        SURRENDER => Decision::Surrender,
        _ => Decision::Stand,
    }
}

/// What an index play needs of a hand in the player turns: its cards, total and
/// softness, the up card (0 = ace) and the offered options as a table mask.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HandAsk<'c> {
    cards: &'c [Card],
    total: u8,
    soft: bool,
    up: usize,
    mask: usize,
}

impl<'c> HandAsk<'c> {
    /// The ask of the hand deciding in `c`.
    #[inline(always)]
    fn of(c: &DecisionContext<'c>) -> HandAsk<'c> {
        HandAsk {
            cards: c.cards,
            total: c.total,
            soft: c.soft,
            up: usize::from(c.up.value() - 1),
            mask: usize::from(c.legal.decisions.0) & (MASKS - 1),
        }
    }
}

/// The exact ranking of the options of the two-card hand `a`, `b` against `up`; `None`
/// if the analysis cannot value it.
fn cd_ranking(rules: &MainGameRules, shoe: &Shoe, a: u8, b: u8, up: u8) -> Option<Vec<Action>> {
    let e = hand_evs(rules, shoe, &[a, b], up).ok()?;
    let p = e.dealer_natural;
    // Back to the round's unconditioned values, on which the options are compared.
    let unc = |v: f64| {
        if e.conditioned {
            v * (1.0 - p) - p
        } else {
            v
        }
    };
    let mut opts = vec![(Action::Stand, unc(e.stand))];
    if let Some(h) = e.hit {
        opts.push((Action::Hit, unc(h)));
    }
    if let Some(d) = e.double {
        opts.push((Action::Double, unc(d)));
    }
    if let Some(s) = e.split {
        opts.push((Action::Split, unc(s)));
    }
    if let Some(s) = e.surrender {
        let v = if rules.surrender == Surrender::Early {
            s
        } else {
            unc(s)
        };
        opts.push((Action::Surrender, v));
    }
    opts.sort_by(|x, y| y.1.partial_cmp(&x.1).unwrap_or(std::cmp::Ordering::Equal));
    Some(opts.into_iter().map(|(a, _)| a).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index plays worked out ahead answer every flagged hand as the entries do one
    /// by one: hands of 2 to 5 random cards (pairs by value among them), every up card,
    /// every mask of options and true counts far out on both sides.
    #[test]
    fn resolved_index_plays_are_the_entries_one_by_one() {
        use felt_core::Rank;
        use rand::{Rng, SeedableRng};
        let text = include_str!("../../../indices/illustrious-18-fab-4.toml");
        let ix = IndexTable::compile(&crate::indices::parse(text, "i18").unwrap()).unwrap();
        for game in ["blackjack-bonus", "classic"] {
            let rules = felt_core::presets::load(game).unwrap().unwrap();
            let m = felt_math::mapping::main_game_rules(&rules, rules.shoe().decks).main;
            let bs = felt_math::main_game::analyse(&m).unwrap().basic_strategy;
            let table = StrategyTable::basic(&bs, &m).flag_indexed(&ix);
            let resolved = table
                .resolve_indices(&ix)
                .expect("the set spans a few counts");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
            let (mut flagged, mut pairs) = (0, 0);
            for _ in 0..20_000 {
                let n = rng.gen_range(2..=5);
                let mut cards: Vec<Card> = (0..n)
                    .map(|_| {
                        Card::new(
                            Rank::ALL[rng.gen_range(0..13)],
                            Suit::ALL[rng.gen_range(0..4)],
                        )
                    })
                    .collect();
                if n == 2 && rng.gen_bool(0.3) {
                    cards[1] = Card::new(cards[0].rank, Suit::Hearts);
                }
                let h = felt_core::Hand::from_cards(&cards);
                if h.total() > 21 {
                    continue;
                }
                let (up, mask) = (rng.gen_range(0..UPS), rng.gen_range(0..MASKS));
                if table.code(&cards, h.total(), h.is_soft(), up, mask) & INDEXED == 0 {
                    continue;
                }
                flagged += 1;
                pairs += usize::from(n == 2 && cards[0].value() == cards[1].value());
                let ask = HandAsk {
                    cards: &cards,
                    total: h.total(),
                    soft: h.is_soft(),
                    up,
                    mask,
                };
                for tc in [
                    i32::MIN,
                    -1000,
                    -40,
                    -12,
                    -6,
                    -3,
                    -2,
                    -1,
                    0,
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                    8,
                    12,
                    40,
                    1000,
                    i32::MAX,
                ] {
                    assert_eq!(
                        resolved.code(&ask, tc),
                        Some(table.hand_indexed(ask, &ix, || tc)),
                        "{game}: {cards:?} against up {up}, mask {mask}, true count {tc}"
                    );
                }
            }
            assert!(
                flagged > 1000 && pairs > 50,
                "{game}: {flagged} flagged hands, {pairs} pairs"
            );
        }
    }

    #[test]
    fn compile_takes_the_first_legal_action_of_the_ranking() {
        let r = [Action::Double, Action::Hit, Action::Stand];
        let t = compile(&r);
        let all = usize::from(Decisions::HIT.0 | Decisions::STAND.0 | Decisions::DOUBLE.0);
        assert_eq!(t[all], DOUBLE);
        let no_double = usize::from(Decisions::HIT.0 | Decisions::STAND.0);
        assert_eq!(t[no_double], HIT);
        assert_eq!(t[usize::from(Decisions::STAND.0)], STAND);
        assert_eq!(t[0], STAND);
    }
}
