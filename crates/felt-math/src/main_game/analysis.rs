//! The whole-round analysis off the top: composition-dependent (CDZ-, CDP1 or
//! CDP after a split, see [`super::PostSplit`]) and
//! basic-strategy expected values, per up card and overall.

use super::dealer::{DealerProbs, NAT};
use super::engine::{BsPlay, Engine, GroupScratch, Level};
use super::error::MainGameError;
use super::hands::{key_unit, NONE};
use super::rules::{MainGameRules, Prepared};
use super::shoe::Shoe;
use super::split::levels;
use super::strategy::{self, Action, Allowed, BasicStrategy, HandKind};

/// Figures for one dealer up card.
#[derive(Debug, Clone, PartialEq)]
pub struct UpCardSummary {
    /// The up card, 1 = ace ..= 10.
    pub up: u8,
    /// Probability of this up card.
    pub probability: f64,
    /// Dealer outcomes from the shoe less the up card (unconditioned: the
    /// natural is one outcome).
    pub dealer: DealerProbs,
    /// Expected round value given this up card, optimal CD play.
    pub ev_cd: f64,
    /// Expected round value given this up card, basic strategy.
    pub ev_basic: f64,
}

/// The exact analysis of the main game from a full shoe.
#[derive(Debug, Clone, PartialEq)]
pub struct MainGameAnalysis {
    /// Expected value of a round per unit initial bet, playing the computed
    /// basic strategy (exactly evaluated, card removal included).
    pub ev_basic: f64,
    /// Expected value of a round per unit initial bet, playing the optimal
    /// composition-dependent strategy (`rules.post_split` after splits).
    pub ev_cd: f64,
    /// Standard deviation of a round's result under the CD strategy (see
    /// [`MainGameAnalysis::variance_cd`]).
    pub sd_cd: Option<f64>,
    /// Variance of a round's result under the CD strategy: exact for every
    /// round without a split; for split rounds the sum of the hands' squared
    /// results is exact and the products of two different split hands are
    /// taken as independent given the dealer's final outcome.
    pub variance_cd: Option<f64>,
    /// The computed total-dependent basic strategy.
    pub basic_strategy: BasicStrategy,
    /// Per up card figures, index 0 = ace ..= 9 = ten.
    pub per_up: Vec<UpCardSummary>,
    /// The expected value of splitting each pair against each up card under
    /// the CD strategy (`rules.post_split` after the split), unconditioned
    /// on the dealer natural; index `[pair - 1][up - 1]`, `None` where the
    /// pair cannot be split.
    pub split_cd: [[Option<f64>; 10]; 10],
    /// Removed-card sets whose dealer probabilities were computed (one pair's
    /// split removals are forgotten before the next pair's, so a set needed by
    /// two pairs counts twice).
    pub dealer_evaluations: usize,
    /// Most hands a pair is split into in this analysis: the rules' limit,
    /// or fewer where the shoe cannot deal that many hands to the end (a
    /// small shoe composition); 1 = no splits.
    pub split_hands: u32,
}

/// Everything the engine computed, kept for queries.
pub(crate) struct Computed {
    pub e: Engine,
    pub strategy: BasicStrategy,
    pub hit_bs: Vec<f64>,
    /// Unconditioned split values per pair card, per up card.
    pub split_cd: [[Option<f64>; 10]; 10],
    pub split_bs: [[Option<f64>; 10]; 10],
    /// Second moment of a CD split round, where CD play splits.
    pub split_m2: [[Option<f64>; 10]; 10],
    /// Most hands a pair was split into (see [`MainGameAnalysis::split_hands`]).
    pub split_hands: u32,
}

/// Minimum hard value of the shoe for an analysis with up to `hands` split
/// hands: every hand and the dealer can always draw to the end.
pub(crate) fn min_value(hands: u32) -> u32 {
    31 * hands.max(1) + 26
}

/// The most split hands (up to `limit`) a shoe of cards worth `hard_value`
/// deals to the end; refuses a shoe that cannot deal one unsplit round.
pub(crate) fn dealable_hands(hard_value: f64, limit: u32) -> Result<u32, MainGameError> {
    if hard_value < f64::from(min_value(1)) {
        return Err(MainGameError::ShoeTooSmall(format!(
            "the shoe's cards are worth {hard_value} (aces 1, tens 10); a round can take cards \
             worth {} (a hand drawn to 31 and a dealer to 26), so it could run out mid-round",
            min_value(1)
        )));
    }
    Ok((1..=limit.max(1))
        .rev()
        .find(|&m| hard_value >= f64::from(min_value(m)))
        .unwrap_or(1))
}

/// Runs the engine: unsplit values, basic strategy, splits.
pub(crate) fn compute(
    rules: &MainGameRules,
    shoe: &Shoe,
    ten_rank: f64,
    fixed: Option<&BasicStrategy>,
) -> Result<Computed, MainGameError> {
    compute_counts(rules, shoe.signed(), ten_rank, fixed)
}

/// [`compute`] for counts that may be fractional (an expected composition).
pub(crate) fn compute_counts(
    rules: &MainGameRules,
    counts: [f64; 10],
    ten_rank: f64,
    fixed: Option<&BasicStrategy>,
) -> Result<Computed, MainGameError> {
    rules.validate()?;
    let hard_value: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| c * (i as f64 + 1.0))
        .sum();
    let split_hands = dealable_hands(hard_value, rules.max_split_hands)?;
    let limited = MainGameRules {
        max_split_hands: split_hands,
        ..rules.clone()
    };
    let rules = &limited;
    let prep = Prepared::new(rules)?;
    let mut e = Engine::new(prep, counts, ten_rank);
    e.reserve(rules.max_split_hands);
    e.unsplit_pass();
    let mut bs = strategy::hard_soft_pass(&e, fixed);
    let hx = e.hx;
    let mut split_cd = [[None; 10]; 10];
    let mut split_bs = [[None; 10]; 10];
    let mut split_m2 = [[None; 10]; 10];
    let mut g = GroupScratch::new(hx.len());
    let unsplit = e.cache_mark();
    for p in 0..10 {
        e.forget_since(unsplit);
        let m = e.r.max_hands[p];
        if m < 2 || e.shoe[p] < 2.0 {
            continue;
        }
        let Some(single) = hx.find(key_unit(p)) else {
            continue;
        };
        let mut post_split = [[Action::Stand; 10]; 10];
        for (x, row) in post_split.iter_mut().enumerate() {
            let h2 = hx.child[single as usize][x];
            if h2 == NONE {
                continue;
            }
            let h2 = h2 as usize;
            let (total, soft) = (hx.total[h2], hx.soft[h2]);
            let allowed = Allowed {
                double: e.r.das && e.r.can_double(total, soft),
                surrender: e.r.sas,
                split: false,
            };
            for (u, slot) in row.iter_mut().enumerate() {
                let kind = if x == p {
                    HandKind::Pair
                } else if soft {
                    HandKind::Soft
                } else {
                    HandKind::Hard
                };
                let t = if x == p { p as u8 } else { total };
                *slot = bs.strategy.cell_internal(kind, t, u).best(allowed);
            }
        }
        let play = BsPlay {
            multi_hit: &bs.multi_hit,
            post_split,
        };
        e.mark_needed(p, &play, &mut g);
        let lv: Vec<Level> = (0..levels(m))
            .map(|a| e.group_pass(p, a, &play, &mut g))
            .collect();
        for u in 0..10 {
            if e.shoe[u] <= 0.0 || e.shoe[p] < 2.0 + f64::from(u == p) {
                continue;
            }
            let col =
                |f: fn(&Level) -> &[f64; 10]| -> Vec<f64> { lv.iter().map(|l| f(l)[u]).collect() };
            let (xc, pc) = (col(|l| &l.x_cd), col(|l| &l.pv_cd));
            let (xb, pb) = (col(|l| &l.x_bs), col(|l| &l.pv_bs));
            split_cd[p][u] = Some(e.split_ev(p, u, &xc, &pc));
            split_bs[p][u] = Some(e.split_ev(p, u, &xb, &pb));
        }
        // second moments where the CD strategy splits
        let pair_hand = hx.child[single as usize][p];
        let splits: [bool; 10] = std::array::from_fn(|u| {
            pair_hand != NONE
                && split_cd[p][u].is_some_and(|s| s > best_no_split(&e, pair_hand as usize, u))
        });
        if splits.iter().any(|&b| b) {
            let (jx, pd) = e.split_joint(p, &mut g);
            for u in (0..10).filter(|&u| splits[u]) {
                let col = |f: fn(&Level) -> &[f64; 10]| -> Vec<f64> {
                    lv.iter().map(|l| f(l)[u]).collect()
                };
                let (x2, p2) = (col(|l| &l.x2_cd), col(|l| &l.pv2_cd));
                split_m2[p][u] = Some(e.split_m2(p, u, &x2, &p2, &jx[u], &pd[u]));
            }
        }
        if fixed.is_none() {
            strategy::set_pair_split(&mut bs.strategy, p, &split_bs[p]);
        }
    }
    bs.strategy.post_split = strategy::post_split_differences(&e, &bs.strategy);
    Ok(Computed {
        e,
        strategy: bs.strategy,
        hit_bs: bs.hit_bs,
        split_cd,
        split_bs,
        split_m2,
        split_hands,
    })
}

/// Best unconditioned value of an unsplit two-card hand `h` (not a natural)
/// against `u`, splitting excluded.
pub(crate) fn best_no_split(e: &Engine, h: usize, u: usize) -> f64 {
    best_no_split_m2(e, h, u).0
}

/// [`best_no_split`] with the second moment of the chosen option's result.
pub(crate) fn best_no_split_m2(e: &Engine, h: usize, u: usize) -> (f64, f64) {
    let i = h * 10 + u;
    let hx = e.hx;
    let mut v = (e.stand[i], e.stand2[i]);
    if e.hit[i] > v.0 {
        v = (e.hit[i], e.hit2[i]);
    }
    if e.r.can_double(hx.total[h], hx.soft[h]) && e.dbl[i] > v.0 {
        v = (e.dbl[i], e.dbl2[i]);
    }
    if let Some(s) = e.r.surrender_value(e.pbj[i]) {
        if s > v.0 {
            let m2 = if e.r.surrender == super::rules::Surrender::Early {
                0.25
            } else {
                0.25 + 0.75 * e.pbj[i]
            };
            v = (s, m2);
        }
    }
    v
}

/// Probability that a ten-valued pair is of one rank (split by rank).
pub(crate) fn same_rank_tens(e: &Engine) -> f64 {
    let nt = e.shoe[9];
    if nt > 1.0 {
        ((e.ten_rank - 1.0) / (nt - 1.0)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

impl Computed {
    /// Basic-strategy value of an initial two-card hand.
    fn bs_value(&self, h: usize, p: Option<usize>, u: usize, split_ok: bool) -> f64 {
        let e = &self.e;
        let hx = e.hx;
        let i = h * 10 + u;
        let (total, soft) = (hx.total[h], hx.soft[h]);
        let allowed = Allowed {
            double: e.r.can_double(total, soft),
            surrender: e.r.surrender_value(0.0).is_some(),
            split: split_ok,
        };
        let cell = match p {
            Some(p) => self.strategy.cell_internal(HandKind::Pair, p as u8, u),
            None if soft => self.strategy.cell_internal(HandKind::Soft, total, u),
            None => self.strategy.cell_internal(HandKind::Hard, total, u),
        };
        match cell.best(allowed) {
            Action::Stand => e.stand[i],
            Action::Hit => self.hit_bs[i],
            Action::Double => e.dbl[i],
            Action::Surrender => e.r.surrender_value(e.pbj[i]).unwrap_or(e.stand[i]),
            Action::Split => p.and_then(|p| self.split_bs[p][u]).unwrap_or(e.stand[i]),
        }
    }

    /// Overall figures.
    fn summarise(self) -> Result<MainGameAnalysis, MainGameError> {
        let e = &self.e;
        let hx = e.hx;
        let ntot = e.ntot;
        let same = same_rank_tens(e);
        let mut per_up = Vec::with_capacity(10);
        let (mut ev_cd, mut ev_bs, mut m2_cd) = (0.0, 0.0, 0.0);
        for u in 0..10 {
            let pu = e.shoe[u].max(0.0) / ntot;
            let (mut vc, mut vb, mut vm) = (0.0, 0.0, 0.0);
            if e.shoe[u] > 0.0 {
                for c1 in 0..10 {
                    let a1 = e.shoe[c1] - f64::from(c1 == u);
                    if a1 <= 0.0 {
                        continue;
                    }
                    for c2 in c1..10 {
                        let a2 = e.shoe[c2] - f64::from(c2 == u) - f64::from(c1 == c2);
                        if a2 <= 0.0 {
                            continue;
                        }
                        let w = a1 * a2 * if c1 == c2 { 1.0 } else { 2.0 }
                            / ((ntot - 1.0) * (ntot - 2.0));
                        let h = hx
                            .find(key_unit(c1) + key_unit(c2))
                            .ok_or_else(|| MainGameError::InvalidHand("two-card hand".into()))?
                            as usize;
                        let i = h * 10 + u;
                        if c1 == 0 && c2 == 9 {
                            let v = e.r.bj * (1.0 - e.pbj[i]);
                            vc += w * v;
                            vb += w * v;
                            vm += w * e.r.bj * e.r.bj * (1.0 - e.pbj[i]);
                            continue;
                        }
                        let (base, base2) = best_no_split_m2(e, h, u);
                        let pair = (c1 == c2).then_some(c1);
                        let frac = if c1 == 9 && e.r.split_by_rank {
                            same
                        } else {
                            1.0
                        };
                        let (cd, cd2, bsv) =
                            match pair.and_then(|p| self.split_cd[p][u].map(|s| (p, s))) {
                                Some((p, s)) => {
                                    let (with, with2) = if s > base {
                                        (s, self.split_m2[p][u].unwrap_or(base2))
                                    } else {
                                        (base, base2)
                                    };
                                    (
                                        frac * with + (1.0 - frac) * base,
                                        frac * with2 + (1.0 - frac) * base2,
                                        frac * self.bs_value(h, Some(p), u, true)
                                            + (1.0 - frac) * self.bs_value(h, Some(p), u, false),
                                    )
                                }
                                None => (base, base2, self.bs_value(h, pair, u, false)),
                            };
                        vc += w * cd;
                        vm += w * cd2;
                        vb += w * bsv;
                    }
                }
            }
            ev_cd += pu * vc;
            ev_bs += pu * vb;
            m2_cd += pu * vm;
            let mut out = [[0.0; 7]; 10];
            if e.shoe[u] > 0.0 {
                super::dealer::table(e.r.h17).eval(&e.shoe, &mut out);
            }
            let mut d = out[u];
            if e.shoe[u] <= 0.0 {
                d[NAT] = 0.0;
            }
            per_up.push(UpCardSummary {
                up: u as u8 + 1,
                probability: pu,
                dealer: DealerProbs::from_internal(&d, false)?,
                ev_cd: vc,
                ev_basic: vb,
            });
        }
        let var = m2_cd - ev_cd * ev_cd;
        let var = (var.is_finite() && var >= 0.0).then_some(var);
        Ok(MainGameAnalysis {
            ev_basic: ev_bs,
            ev_cd,
            sd_cd: var.map(f64::sqrt),
            variance_cd: var,
            dealer_evaluations: e.dealer_evaluations(),
            basic_strategy: self.strategy,
            per_up,
            split_cd: self.split_cd,
            split_hands: self.split_hands,
        })
    }
}

/// Exact analysis of a full shoe of `rules.decks` decks.
pub fn analyse(rules: &MainGameRules) -> Result<MainGameAnalysis, MainGameError> {
    rules.validate()?;
    let shoe = Shoe::decks(rules.decks)?;
    compute(rules, &shoe, f64::from(4 * rules.decks), None)?.summarise()
}

/// Exact analysis from any shoe composition (its cards are the full shoe
/// the round is dealt from). With `split_by_rank` the ten-valued cards are
/// taken as spread evenly over the four ranks.
pub fn analyse_shoe(rules: &MainGameRules, shoe: &Shoe) -> Result<MainGameAnalysis, MainGameError> {
    let ten_rank = f64::from(shoe.counts()[9]) / 4.0;
    compute(rules, shoe, ten_rank, None)?.summarise()
}

/// Exact analysis from any shoe composition with the player's strategy held
/// fixed: `strategy` (typically the basic strategy computed off the top of the
/// full shoe) plays every hand, pairs and post-split hands included, instead of
/// the strategy the composition itself would give. `ev_basic` is then that fixed
/// strategy's exact value for this shoe (what an effect of removal measures);
/// `ev_cd` is still the optimal composition-dependent play for the shoe, and the
/// returned `basic_strategy` is `strategy`.
pub fn analyse_shoe_with_strategy(
    rules: &MainGameRules,
    shoe: &Shoe,
    strategy: &BasicStrategy,
) -> Result<MainGameAnalysis, MainGameError> {
    let ten_rank = f64::from(shoe.counts()[9]) / 4.0;
    compute(rules, shoe, ten_rank, Some(strategy))?.summarise()
}

/// Exact analysis from an *expected* composition: `counts` of A, 2, ..., 9,
/// ten-valued cards that may be fractional (for instance the shoe expected at a
/// true count, see [`crate::indices`]). Every probability of the analysis is a
/// ratio of falling factorials of the counts, evaluated here at the given real
/// counts: at whole counts it is exactly [`analyse_shoe`], and between them it
/// moves smoothly. Each count must be finite, at least zero and at most
/// 100,000, and the cards must be worth enough for a full analysis.
pub fn analyse_composition(
    rules: &MainGameRules,
    counts: &[f64; 10],
) -> Result<MainGameAnalysis, MainGameError> {
    rules.validate()?;
    if let Some(c) = counts
        .iter()
        .find(|c| !c.is_finite() || **c < 0.0 || **c > 100_000.0)
    {
        return Err(MainGameError::InvalidShoe(format!(
            "a count of {c} cards: each value needs 0 to 100,000 cards"
        )));
    }
    compute_counts(rules, *counts, counts[9] / 4.0, None)?.summarise()
}
