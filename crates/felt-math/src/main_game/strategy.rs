//! Total-dependent basic strategy, computed from the rules and the full
//! shoe (never typed in from a chart).
//!
//! # Definition
//!
//! A *cell* is (hand kind, total or pair card, up card): hard totals
//! 4..=21, soft totals 12..=21 and pairs A..=T. For each cell the analyser
//! averages the exact expected value of every action over the *two-card*
//! hands of the cell: non-pair, non-natural hands for the hard and soft
//! cells (the pair hands when no other hand exists: hard 4, hard 20, soft
//! 12), the pair itself for pair cells, and the three-card hands for hard
//! and soft 21 which no such two-card hand makes. Each hand is weighted by
//! its probability of being dealt from the full shoe less the up card, and
//! its values are computed with the full shoe less its cards and the up
//! card, unconditioned on the dealer natural (so the weights are those of
//! the round's expected value; for a peek game this is the same as
//! weighting the conditional values by P(hand and no natural)).
//!
//! The cell *ranks* the actions by that average; a hand takes the first
//! action its situation allows (so "double, else hit" and "surrender, else
//! stand" are both encoded). Hands of three or more cards take the better
//! of stand and hit in their cell's ranking. Hitting values use this same
//! strategy for the later decisions: cells are decided in the order hard
//! 21..=11, soft 21..=12, hard 10..=4, so every hand reached by a hit lies
//! in a cell already decided. Pair cells are decided last, with the split
//! value computed exactly for the strategy (resplitting whenever allowed,
//! the split hands played by the cells with the after-split permissions:
//! `double_after_split`, `surrender_after_split`; a pair that can no longer
//! be split is played by its pair cell's best non-split action).
//! [`BasicStrategy::post_split_differences`] lists the cells whose play
//! after a split differs from the chart's (a missing double or surrender
//! replaced by the cell's fallback, a pair at the hand limit, split aces
//! standing).

use std::fmt;

use super::engine::Engine;
use super::error::MainGameError;
use super::hands::NONE;
use super::shoe::rank_index;

/// A player action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Stand.
    Stand,
    /// Take a card.
    Hit,
    /// Double the bet and take exactly one card.
    Double,
    /// Split the pair.
    Split,
    /// Surrender half the bet.
    Surrender,
}

/// The kind of a player hand, selecting the strategy table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HandKind {
    /// No ace counted as 11.
    Hard,
    /// An ace counted as 11.
    Soft,
    /// A two-card pair (indexed by its card, 1 = aces ..= 10 = tens).
    Pair,
}

/// Which options the current hand may take under the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Allowed {
    /// Doubling is allowed (two cards, total and after-split rules).
    pub double: bool,
    /// Surrender is allowed (first two cards, or after a split with
    /// `surrender_after_split`).
    pub surrender: bool,
    /// Splitting is allowed (a pair, hands left under the limit).
    pub split: bool,
}

/// One strategy cell: the averaged expected values and the action ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Average EV of standing (per unit initial bet, unconditioned).
    pub stand: f64,
    /// Average EV of hitting (then playing this strategy).
    pub hit: f64,
    /// Average EV of doubling, if the rules allow doubling these hands.
    pub double: Option<f64>,
    /// EV of splitting (pair cells only, if allowed).
    pub split: Option<f64>,
    /// Average EV of surrendering, if the rules have surrender.
    pub surrender: Option<f64>,
    /// The probability that the dealer has a natural, averaged over the cell's hands
    /// with the same weights as the values: what a peek takes out of them (see
    /// [`Cell::given_no_natural`]).
    pub dealer_natural: f64,
    ranking: [Action; 5],
    len: u8,
}

impl Cell {
    fn new(
        stand: f64,
        hit: f64,
        double: Option<f64>,
        split: Option<f64>,
        surrender: Option<f64>,
    ) -> Self {
        let mut opts: Vec<(Action, f64)> = vec![(Action::Stand, stand), (Action::Hit, hit)];
        if let Some(v) = double {
            opts.push((Action::Double, v));
        }
        if let Some(v) = split {
            opts.push((Action::Split, v));
        }
        if let Some(v) = surrender {
            opts.push((Action::Surrender, v));
        }
        // stable: ties keep the order stand, hit, double, split, surrender
        opts.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        let mut ranking = [Action::Stand; 5];
        for (slot, (a, _)) in ranking.iter_mut().zip(&opts) {
            *slot = *a;
        }
        Cell {
            dealer_natural: 0.0,
            stand,
            hit,
            double,
            split,
            surrender,
            ranking,
            len: opts.len() as u8,
        }
    }

    /// A cell no hand of the shoe can reach: hit below 17, else stand.
    fn default_for(total: u8) -> Self {
        let (s, h) = if total >= 17 {
            (0.0, -1.0)
        } else {
            (-1.0, 0.0)
        };
        Cell::new(s, h, None, None, None)
    }

    /// The cell with its dealer-natural probability.
    fn with_natural(mut self, p: f64) -> Self {
        self.dealer_natural = p;
        self
    }

    /// An action's value `v` (one of this cell's, unconditioned) given that the dealer
    /// has no natural: what a player sees after a peek, as published tables give it.
    /// A peeked natural costs every action the initial bet (the decision is never
    /// made), so `v = (1 - p) * v_given + p * (-1)` with `p` the cell's
    /// [`Cell::dealer_natural`], and `v_given = (v + p) / (1 - p)`. Only meaningful
    /// under an up card the dealer peeks under; early surrender (before the peek) is
    /// -0.5 either way.
    pub fn given_no_natural(&self, v: f64) -> f64 {
        let p = self.dealer_natural;
        if p < 1.0 {
            (v + p) / (1.0 - p)
        } else {
            v
        }
    }

    /// The actions ordered from the best average EV down.
    pub fn ranking(&self) -> &[Action] {
        &self.ranking[..usize::from(self.len)]
    }

    /// The best action among the allowed ones.
    #[inline]
    pub fn best(&self, allowed: Allowed) -> Action {
        for &a in self.ranking() {
            let ok = match a {
                Action::Stand | Action::Hit => true,
                Action::Double => allowed.double,
                Action::Split => allowed.split,
                Action::Surrender => allowed.surrender,
            };
            if ok {
                return a;
            }
        }
        Action::Stand
    }

    /// The cell's chart code: its best action (`S`, `H`, `P`), and for a double or a
    /// surrender what to do where that is not offered (`Dh`, `Ds`, `Rh`, `Rs`, `Rp`).
    pub fn code(&self) -> String {
        let first = self.ranking[0];
        let next = |skip: &[Action]| {
            self.ranking()
                .iter()
                .copied()
                .find(|a| !skip.contains(a))
                .unwrap_or(Action::Stand)
        };
        let lower = |a: Action| match a {
            Action::Stand => "s",
            Action::Hit => "h",
            Action::Double => "d",
            Action::Split => "p",
            Action::Surrender => "r",
        };
        match first {
            Action::Stand => "S".into(),
            Action::Hit => "H".into(),
            Action::Split => "P".into(),
            Action::Double => format!(
                "D{}",
                lower(next(&[Action::Double, Action::Split, Action::Surrender]))
            ),
            Action::Surrender => format!("R{}", lower(next(&[Action::Surrender, Action::Double]))),
        }
    }
}

/// Why a two-card hand formed after a split is played differently from the
/// same cards as a hand's first two cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PostSplitReason {
    /// Doubling is not allowed after a split (`double_after_split` off).
    NoDoubleAfterSplit,
    /// Surrender is not allowed after a split (`surrender_after_split` off).
    NoSurrenderAfterSplit,
    /// Split aces receive one card each and stand.
    SplitAcesStand,
    /// A pair formed after a split cannot be split again: resplitting is
    /// not allowed (`max_hands` 2) or, with resplits, the pair arrives when
    /// the hands already number `max_hands`. Earlier pairs are resplit.
    NoResplit {
        /// The most hands this pair may be split into.
        max_hands: u32,
    },
}

impl PostSplitReason {
    /// The reason in words.
    pub fn describe(&self) -> String {
        match *self {
            PostSplitReason::NoDoubleAfterSplit => "no double after a split".into(),
            PostSplitReason::NoSurrenderAfterSplit => "no surrender after a split".into(),
            PostSplitReason::SplitAcesStand => "split aces take one card each and stand".into(),
            PostSplitReason::NoResplit { max_hands } if max_hands <= 2 => {
                "a pair after a split is not resplit".into()
            }
            PostSplitReason::NoResplit { max_hands } => format!(
                "resplit up to {max_hands} hands; a pair arriving at the {max_hands}-hand limit"
            ),
        }
    }
}

/// A strategy cell whose play after a split differs from the chart's play
/// of the same cards as a hand's first two cards (the chart's fallback for
/// an option the split hand lacks, a pair that may not be split again,
/// split aces standing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PostSplitDifference {
    /// The cell's table: hard, soft or pair.
    pub kind: HandKind,
    /// The total (hard, soft) or the pair's card (1 = aces ..= 10 = tens).
    pub total_or_rank: u8,
    /// The dealer's up card, 1 = ace ..= 10.
    pub up: u8,
    /// The play of the cards as a hand's first two cards.
    pub before: Action,
    /// The play of the cards as a hand formed after a split.
    pub after: Action,
    /// Why the plays differ.
    pub reason: PostSplitReason,
}

/// A computed total-dependent basic strategy, indexed
/// `[kind][total or pair card][up card]`; see the module docs for the
/// exact definition.
#[derive(Debug, Clone, PartialEq)]
pub struct BasicStrategy {
    /// Hard totals 4..=21 (index `total - 4`), per up card index.
    hard: [[Cell; 10]; 18],
    /// Soft totals 12..=21 (index `total - 12`).
    soft: [[Cell; 10]; 10],
    /// Pairs, index = card index (0 = aces, 9 = tens).
    pair: [[Cell; 10]; 10],
    /// The cells played differently after a split, for the pairs this
    /// strategy splits (see [`BasicStrategy::post_split_differences`]).
    pub(crate) post_split: Vec<PostSplitDifference>,
}

impl Action {
    /// The action as a word: `stand`, `hit`, `double`, `split`, `surrender`.
    pub fn word(self) -> &'static str {
        match self {
            Action::Stand => "stand",
            Action::Hit => "hit",
            Action::Double => "double",
            Action::Split => "split",
            Action::Surrender => "surrender",
        }
    }
}

/// Short name of an action for the charts.
fn action_word(a: Action) -> &'static str {
    a.word()
}

/// Up card label for the charts (`A` for the ace, `T` for ten-valued).
fn up_label(up: u8) -> String {
    match up {
        1 => "A".into(),
        10 => "T".into(),
        u => u.to_string(),
    }
}

impl BasicStrategy {
    /// The cell for `kind`, `total_or_rank` (a total for hard / soft, the
    /// pair's card 1..=10 for pairs) and up card 1..=10.
    pub fn cell(&self, kind: HandKind, total_or_rank: u8, up: u8) -> Result<&Cell, MainGameError> {
        let u = rank_index(up)?;
        let bad = || MainGameError::InvalidHand(format!("no {kind:?} cell for {total_or_rank}"));
        match kind {
            HandKind::Hard if (4..=21).contains(&total_or_rank) => {
                Ok(&self.hard[usize::from(total_or_rank - 4)][u])
            }
            HandKind::Soft if (12..=21).contains(&total_or_rank) => {
                Ok(&self.soft[usize::from(total_or_rank - 12)][u])
            }
            HandKind::Pair => Ok(&self.pair[rank_index(total_or_rank).map_err(|_| bad())?][u]),
            _ => Err(bad()),
        }
    }

    /// The basic-strategy action for a hand of `kind` and `total_or_rank`
    /// against `up`, given what the situation allows (after a split pass
    /// the after-split permissions, e.g. no double without DAS).
    pub fn action(
        &self,
        kind: HandKind,
        total_or_rank: u8,
        up: u8,
        allowed: Allowed,
    ) -> Result<Action, MainGameError> {
        Ok(self.cell(kind, total_or_rank, up)?.best(allowed))
    }

    /// The two-card hands formed after a split that this strategy plays
    /// differently from the same cards as a hand's first two cards (the
    /// chart), for every pair it splits against each up card: ordered
    /// hard, soft, pairs, by total or pair card, then up card 2..=10, A.
    /// Hands of three or more cards are played as before a split. Empty
    /// when every post-split hand follows the chart.
    pub fn post_split_differences(&self) -> &[PostSplitDifference] {
        &self.post_split
    }

    /// The post-split differences as text, one line per cell and play,
    /// up cards grouped (or a line saying there are none).
    pub fn post_split_chart(&self) -> String {
        let mut s = String::from("after a split (where the play differs from the chart)\n");
        if self.post_split.is_empty() {
            s.push_str("  no differences: every hand after a split is played as the chart shows\n");
            return s;
        }
        let mut i = 0;
        while i < self.post_split.len() {
            let d = self.post_split[i];
            let mut ups = vec![up_label(d.up)];
            let mut j = i + 1;
            while j < self.post_split.len() {
                let e = self.post_split[j];
                if (e.kind, e.total_or_rank, e.before, e.after, e.reason)
                    != (d.kind, d.total_or_rank, d.before, d.after, d.reason)
                {
                    break;
                }
                ups.push(up_label(e.up));
                j += 1;
            }
            let cell = match d.kind {
                HandKind::Hard => format!("hard {}", d.total_or_rank),
                HandKind::Soft => format!("soft {}", d.total_or_rank),
                HandKind::Pair => {
                    let c = up_label(d.total_or_rank);
                    format!("{c},{c}")
                }
            };
            s.push_str(&format!(
                "  {cell:<8} v {}: {} -> {} ({})\n",
                ups.join(","),
                action_word(d.before),
                action_word(d.after),
                d.reason.describe()
            ));
            i = j;
        }
        s
    }

    pub(crate) fn cell_internal(&self, kind: HandKind, total_or_index: u8, u: usize) -> &Cell {
        match kind {
            HandKind::Hard => &self.hard[usize::from(total_or_index.clamp(4, 21) - 4)][u],
            HandKind::Soft => &self.soft[usize::from(total_or_index.clamp(12, 21) - 12)][u],
            HandKind::Pair => &self.pair[usize::from(total_or_index.min(9))][u],
        }
    }

    /// The chart as text: rows hard 4..=21, soft 12..=21, pairs; columns up
    /// cards 2..=10, A. Codes: S stand, H hit, P split, Dh / Ds double else
    /// hit / stand, Rh / Rs / Rp surrender else hit / stand / split.
    pub fn to_chart(&self) -> String {
        let mut s = String::new();
        let order = [1usize, 2, 3, 4, 5, 6, 7, 8, 9, 0];
        let header = |s: &mut String, title: &str| {
            s.push_str(&format!("{title:<8}"));
            for &u in &order {
                let name = if u == 0 {
                    "A".to_string()
                } else {
                    (u + 1).to_string()
                };
                s.push_str(&format!("{name:>4}"));
            }
            s.push('\n');
        };
        header(&mut s, "hard");
        for (i, row) in self.hard.iter().enumerate() {
            s.push_str(&format!("{:<8}", i + 4));
            for &u in &order {
                s.push_str(&format!("{:>4}", row[u].code()));
            }
            s.push('\n');
        }
        header(&mut s, "soft");
        for (i, row) in self.soft.iter().enumerate() {
            s.push_str(&format!("{:<8}", format!("A,{}", i + 1)));
            for &u in &order {
                s.push_str(&format!("{:>4}", row[u].code()));
            }
            s.push('\n');
        }
        header(&mut s, "pair");
        for (i, row) in self.pair.iter().enumerate() {
            let c = if i == 0 {
                "A".to_string()
            } else if i == 9 {
                "T".to_string()
            } else {
                (i + 1).to_string()
            };
            s.push_str(&format!("{:<8}", format!("{c},{c}")));
            for &u in &order {
                s.push_str(&format!("{:>4}", row[u].code()));
            }
            s.push('\n');
        }
        s
    }
}

impl fmt::Display for BasicStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_chart())
    }
}

/// The basic-strategy values of the unsplit hands.
pub(crate) struct BsPass {
    pub strategy: BasicStrategy,
    /// Hit value (basic strategy afterwards), `hand * 10 + up`.
    pub hit_bs: Vec<f64>,
    /// `[soft][total][up]`: a hand of three or more cards hits.
    pub multi_hit: Box<[[[bool; 10]; 22]; 2]>,
}

/// Probability weight (up to a common factor) of being dealt hand `h`'s
/// cards as the first cards from the shoe less the up card.
fn deal_weight(e: &Engine, h: usize, u: usize) -> f64 {
    let c = &e.hx.counts[h];
    let mut w = 1.0;
    let mut k = 0u32;
    for r in 0..10 {
        let avail = e.shoe[r] - f64::from(r == u);
        for j in 0..c[r] {
            k += 1;
            let f = avail - f64::from(j);
            if f <= 0.0 {
                return 0.0;
            }
            // multinomial coefficient built as k / j-th
            w *= f * f64::from(k) / f64::from(j + 1);
        }
    }
    w
}

/// Decides the hard and soft cells and the non-split part of the pair
/// cells; returns the strategy with pair splits still undecided. With
/// `fixed`, every cell is taken from that strategy instead (its pair cells
/// already ranking the split) and only the values are computed.
pub(crate) fn hard_soft_pass(e: &Engine, fixed: Option<&BasicStrategy>) -> BsPass {
    let hx = e.hx;
    let len = hx.len();
    let mut hit_bs = vec![0.0; len * 10];
    let mut val_bs = vec![0.0; len * 10];
    let mut multi_hit = Box::new([[[false; 10]; 22]; 2]);
    let dummy = Cell::default_for(0);
    let mut strategy = BasicStrategy {
        hard: [[dummy; 10]; 18],
        soft: [[dummy; 10]; 10],
        pair: [[dummy; 10]; 10],
        post_split: Vec::new(),
    };
    // bucket the feasible hands (two or more cards) by class
    let mut classes: Vec<Vec<usize>> = vec![Vec::new(); 44];
    let class_of = |soft: bool, total: u8| usize::from(soft) * 22 + usize::from(total);
    for h in 0..len {
        if hx.ncards[h] < 2 || (0..10).any(|r| f64::from(hx.counts[h][r]) >= e.shoe[r] + 1.0) {
            continue;
        }
        classes[class_of(hx.soft[h], hx.total[h])].push(h);
    }
    let mut order: Vec<(bool, u8)> = (11..=21).rev().map(|t| (false, t)).collect();
    order.extend((12..=21).rev().map(|t| (true, t)));
    order.extend((4..=10).rev().map(|t| (false, t)));
    for (soft, total) in order {
        let members = &classes[class_of(soft, total)];
        // which hands define the cell
        let two: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&h| hx.ncards[h] == 2)
            .collect();
        let non_pair: Vec<usize> = two
            .iter()
            .copied()
            .filter(|&h| {
                hx.counts[h].iter().all(|&c| c < 2)
                    && !(hx.counts[h][0] == 1 && hx.counts[h][9] == 1)
            })
            .collect();
        let pairs: Vec<usize> = two
            .iter()
            .copied()
            .filter(|&h| hx.counts[h].contains(&2))
            .collect();
        let (defining, two_card) = if !non_pair.is_empty() {
            (non_pair, true)
        } else if !pairs.is_empty() {
            (pairs, true)
        } else {
            (
                members
                    .iter()
                    .copied()
                    .filter(|&h| hx.ncards[h] == 3)
                    .collect(),
                false,
            )
        };
        for u in 0..10 {
            if e.shoe[u] <= 0.0 {
                continue;
            }
            for &h in members {
                if e.shoe[u] - f64::from(hx.counts[h][u]) > 0.0 {
                    hit_bs[h * 10 + u] = e.hit_with(h, u, &val_bs);
                }
            }
            let can_d = two_card && e.r.can_double(total, soft);
            let can_s = two_card && e.r.surrender_value(0.0).is_some();
            let (mut wt, mut st, mut hi, mut db, mut su, mut bj) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for &h in &defining {
                if e.shoe[u] - f64::from(hx.counts[h][u]) <= 0.0 {
                    continue;
                }
                let w = deal_weight(e, h, u);
                if w <= 0.0 {
                    continue;
                }
                let i = h * 10 + u;
                wt += w;
                st += w * e.stand[i];
                hi += w * hit_bs[i];
                db += w * e.dbl[i];
                su += w * e.r.surrender_value(e.pbj[i]).unwrap_or(0.0);
                bj += w * e.pbj[i];
            }
            let cell = if let Some(f) = fixed {
                *f.cell_internal(if soft { HandKind::Soft } else { HandKind::Hard }, total, u)
            } else if wt > 0.0 {
                Cell::new(
                    st / wt,
                    hi / wt,
                    can_d.then_some(db / wt),
                    None,
                    can_s.then_some(su / wt),
                )
                .with_natural(bj / wt)
            } else {
                Cell::default_for(total)
            };
            if soft {
                strategy.soft[usize::from(total - 12)][u] = cell;
            } else {
                strategy.hard[usize::from(total - 4)][u] = cell;
            }
            let hits = cell.best(Allowed::default()) == Action::Hit;
            multi_hit[usize::from(soft)][usize::from(total)][u] = hits;
            for &h in members {
                let i = h * 10 + u;
                if hx.ncards[h] >= 3 {
                    val_bs[i] = if hits { hit_bs[i] } else { e.stand[i] };
                }
            }
        }
    }
    // pair cells without the split option
    for p in 0..10 {
        let Some(single) = hx.find(super::hands::key_unit(p)) else {
            continue;
        };
        let h = hx.child[single as usize][p];
        if h == NONE {
            continue;
        }
        let h = h as usize;
        let (total, soft) = (hx.total[h], hx.soft[h]);
        for u in 0..10 {
            let need = 2.0 + f64::from(u == p);
            strategy.pair[p][u] = if let Some(f) = fixed {
                f.pair[p][u]
            } else if e.shoe[u] > 0.0 && e.shoe[p] >= need {
                let i = h * 10 + u;
                Cell::new(
                    e.stand[i],
                    hit_bs[i],
                    e.r.can_double(total, soft).then_some(e.dbl[i]),
                    None,
                    e.r.surrender_value(e.pbj[i]),
                )
                .with_natural(e.pbj[i])
            } else {
                Cell::default_for(total)
            };
        }
    }
    BsPass {
        strategy,
        hit_bs,
        multi_hit,
    }
}

/// Adds the split option (its exact basic-strategy value per up card) to
/// pair cell `p`.
pub(crate) fn set_pair_split(s: &mut BasicStrategy, p: usize, split: &[Option<f64>; 10]) {
    for u in 0..10 {
        let c = s.pair[p][u];
        s.pair[p][u] = Cell::new(c.stand, c.hit, c.double, split[u], c.surrender)
            .with_natural(c.dealer_natural);
    }
}

/// The cells a split hand plays differently from the chart (see
/// [`BasicStrategy::post_split_differences`]); `s` has its split options.
pub(crate) fn post_split_differences(e: &Engine, s: &BasicStrategy) -> Vec<PostSplitDifference> {
    let hx = e.hx;
    let r = &e.r;
    let pre_surrender = r.surrender_value(0.0).is_some();
    let mut out: Vec<PostSplitDifference> = Vec::new();
    for p in 0..10 {
        let m = r.max_hands[p];
        let Some(single) = hx.find(super::hands::key_unit(p)) else {
            continue;
        };
        let ph = hx.child[single as usize][p];
        if m < 2 || ph == NONE {
            continue;
        }
        let ph = ph as usize;
        let (pt, psoft) = (hx.total[ph], hx.soft[ph]);
        let aces_stand = p == 0 && !r.play_split_aces;
        for u in 0..10 {
            if e.shoe[u] <= 0.0 || e.shoe[p] < 2.0 + f64::from(u == p) {
                continue;
            }
            let pair_cell = &s.pair[p][u];
            let pre_pair = Allowed {
                double: r.can_double(pt, psoft),
                surrender: pre_surrender,
                split: true,
            };
            if pair_cell.best(pre_pair) != Action::Split {
                continue;
            }
            for x in 0..10 {
                let avail = e.shoe[x] - 2.0 * f64::from(x == p) - f64::from(x == u);
                let h2 = hx.child[single as usize][x];
                if avail <= 0.0 || h2 == NONE || (p == 0 && x == 9) || (p == 9 && x == 0) {
                    continue; // no such card, or a natural's cards
                }
                let h2 = h2 as usize;
                let (total, soft) = (hx.total[h2], hx.soft[h2]);
                let post = Allowed {
                    double: r.das && r.can_double(total, soft),
                    surrender: r.sas,
                    split: false,
                };
                let (kind, t, before, after, reason) = if x == p {
                    let after = if aces_stand {
                        Action::Stand
                    } else {
                        pair_cell.best(post)
                    };
                    let reason = if aces_stand && m <= 2 {
                        PostSplitReason::SplitAcesStand
                    } else {
                        PostSplitReason::NoResplit { max_hands: m }
                    };
                    (HandKind::Pair, p as u8 + 1, Action::Split, after, reason)
                } else {
                    let kind = if soft { HandKind::Soft } else { HandKind::Hard };
                    let cell = s.cell_internal(kind, total, u);
                    let before = cell.best(Allowed {
                        double: r.can_double(total, soft),
                        surrender: pre_surrender,
                        split: false,
                    });
                    let (after, reason) = if aces_stand {
                        (Action::Stand, PostSplitReason::SplitAcesStand)
                    } else if before == Action::Double && !post.double {
                        (cell.best(post), PostSplitReason::NoDoubleAfterSplit)
                    } else {
                        (cell.best(post), PostSplitReason::NoSurrenderAfterSplit)
                    };
                    (kind, total, before, after, reason)
                };
                if before == after {
                    continue;
                }
                let d = PostSplitDifference {
                    kind,
                    total_or_rank: t,
                    up: u as u8 + 1,
                    before,
                    after,
                    reason,
                };
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    let kind_order = |k: HandKind| match k {
        HandKind::Hard => 0,
        HandKind::Soft => 1,
        HandKind::Pair => 2,
    };
    // up cards 2..=10 then the ace
    out.sort_by_key(|d| {
        (
            kind_order(d.kind),
            d.total_or_rank,
            action_word(d.before),
            action_word(d.after),
            d.reason.describe(),
            (d.up + 8) % 10,
        )
    });
    out
}
