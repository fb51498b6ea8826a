//! The exact composition-dependent engine: dealer probabilities memoised by
//! removed cards, then every player hand's expected values, unsplit and
//! after a split.
//!
//! All values here are *unconditioned* on the dealer natural: the hole card
//! is one more unseen card and a dealer natural costs each hand its bet.
//! Where the natural only takes the original bet (the dealer peeked, or
//! `NoPeekLoss::OriginalBetsOnly`) doubles get the extra stake back and a
//! split gets back the bets of its extra hands. A peek game's value is then
//! exactly `-P(nat) + (1 - P(nat)) * E[value | no natural]`, the same affine
//! map for every action, so maximising unconditioned values is maximising
//! the conditional ones.

use super::dealer::{self, DealerTable, UpProbs, BUST, NAT};
use super::hands::{hands, key_unit, HandIndex, NONE};
use super::post_split::PostSplit;
use super::rules::Prepared;
use super::split;
use super::strategy::Action;
use rustc_hash::FxHashMap;

/// Expected value of standing on `total` against the outcomes `p`.
#[inline]
pub(crate) fn stand_ev(p: &UpProbs, total: u8) -> f64 {
    if total <= 16 {
        return 2.0 * p[BUST] - 1.0;
    }
    let i = usize::from(total - 17).min(4);
    let mut v = p[BUST] - p[NAT];
    for (j, &q) in p.iter().enumerate().take(5) {
        if j < i {
            v += q;
        } else if j > i {
            v -= q;
        }
    }
    v
}

/// Second moment of the result of standing on `total` (1 - P(push)).
#[inline]
pub(crate) fn stand_m2(p: &UpProbs, total: u8) -> f64 {
    if total <= 16 {
        1.0
    } else {
        1.0 - p[usize::from(total - 17).min(4)]
    }
}

/// Result of standing on `total` when the dealer's outcome is slot `d`.
#[inline]
fn payoff(total: u8, d: usize) -> f64 {
    match d {
        BUST => 1.0,
        NAT => -1.0,
        _ => {
            let dt = 17 + d as u8;
            if total > dt {
                1.0
            } else if total < dt {
                -1.0
            } else {
                0.0
            }
        }
    }
}

#[inline]
fn soft_of(hx: &HandIndex, h: usize) -> bool {
    hx.soft[h]
}

/// Per-hand values of one split group (pair card, extra removals),
/// indexed like the unsplit arrays (`hand * 10 + up`).
pub(crate) struct GroupScratch {
    stand: Vec<f64>,
    stand2: Vec<f64>,
    cd: Vec<f64>,
    cd2: Vec<f64>,
    bs: Vec<f64>,
    /// Joint vectors `E[x 1{dealer outcome = d}]` (level 0, CD play),
    /// `(hand * 10 + up) * 7 + d`.
    jstand: Vec<f64>,
    jcd: Vec<f64>,
    /// Hands a split hand can reach (see [`Engine::mark_needed`]).
    needed: Vec<bool>,
    /// CDP1 / CDP: the option chosen at level 0 (`hand * 10 + up`), which
    /// CDP1 keeps for every level and the joint vectors follow.
    choice: Vec<Action>,
}

impl GroupScratch {
    pub(crate) fn new(len: usize) -> Self {
        GroupScratch {
            stand: vec![0.0; len * 10],
            stand2: vec![0.0; len * 10],
            cd: vec![0.0; len * 10],
            cd2: vec![0.0; len * 10],
            bs: vec![0.0; len * 10],
            jstand: Vec::new(),
            jcd: Vec::new(),
            needed: vec![false; len],
            choice: vec![Action::Stand; len * 10],
        }
    }
}

/// One level `a` of a pair's split values, per up card.
#[derive(Clone, Copy, Default)]
pub(crate) struct Level {
    pub x_cd: [f64; 10],
    pub pv_cd: [f64; 10],
    /// Second moments of the CD hand results.
    pub x2_cd: [f64; 10],
    pub pv2_cd: [f64; 10],
    pub x_bs: [f64; 10],
    pub pv_bs: [f64; 10],
}

/// How basic strategy plays the hands formed after a split.
pub(crate) struct BsPlay<'a> {
    /// `[soft as usize][total]`, per up card: hit (true) or stand on a hand
    /// of three or more cards.
    pub multi_hit: &'a [[[bool; 10]; 22]; 2],
    /// Per second card, per up card: the action on the two-card hand
    /// (pair card, second card) after a split.
    pub post_split: [[Action; 10]; 10],
}

/// The engine state for one shoe and rule set.
pub(crate) struct Engine {
    pub r: Prepared,
    pub shoe: [f64; 10],
    pub ntot: f64,
    /// Cards of each ten-valued rank in the shoe (for `split_by_rank`).
    pub ten_rank: f64,
    pub hx: &'static HandIndex,
    /// How split hands are played in the CD values.
    pub post: PostSplit,
    dt: &'static DealerTable,
    cache_map: FxHashMap<u64, u32>,
    cache: Vec<[UpProbs; 10]>,
    /// The packed removal of each entry of `cache`, in the same order.
    cache_keys: Vec<u64>,
    /// Dealer evaluations computed, forgotten ones included.
    computed: usize,
    /// Unsplit values, `hand * 10 + up`.
    pub stand: Vec<f64>,
    pub hit: Vec<f64>,
    pub dbl: Vec<f64>,
    pub cont: Vec<f64>,
    pub pbj: Vec<f64>,
    /// Second moments of the results (optimal play).
    pub stand2: Vec<f64>,
    pub hit2: Vec<f64>,
    pub dbl2: Vec<f64>,
    pub cont2: Vec<f64>,
}

impl Engine {
    pub(crate) fn new(r: Prepared, shoe: [f64; 10], ten_rank: f64) -> Self {
        let hx = hands();
        let len = hx.len() * 10;
        Engine {
            post: r.post_split,
            dt: dealer::table(r.h17),
            r,
            shoe,
            ntot: shoe.iter().sum(),
            ten_rank,
            hx,
            cache_map: FxHashMap::default(),
            cache: Vec::new(),
            cache_keys: Vec::new(),
            computed: 0,
            stand: vec![0.0; len],
            hit: vec![0.0; len],
            dbl: vec![0.0; len],
            cont: vec![0.0; len],
            pbj: vec![0.0; len],
            stand2: vec![0.0; len],
            hit2: vec![0.0; len],
            dbl2: vec![0.0; len],
            cont2: vec![0.0; len],
        }
    }

    /// Reserves room for the dealer probabilities of an analysis with up to
    /// `hands` split hands, one pair's at a time (see [`Engine::forget_since`]).
    pub(crate) fn reserve(&mut self, hands: u32) {
        let n = self.hx.len() + 1000 * split::levels(hands.max(2));
        self.cache.reserve(n);
        self.cache_keys.reserve(n);
        self.cache_map.reserve(n);
    }

    /// Number of removals whose dealer probabilities were computed (a removal
    /// forgotten and needed again counts twice).
    pub(crate) fn dealer_evaluations(&self) -> usize {
        self.computed
    }

    /// A mark of the dealer probabilities memoised so far.
    pub(crate) fn cache_mark(&self) -> usize {
        self.cache.len()
    }

    /// Forgets the dealer probabilities memoised since `mark`: one pair's
    /// split removals are rarely another's, and reusing their memory keeps
    /// the analysis within a few megabytes (fresh pages cost more than the
    /// few evaluations done again).
    pub(crate) fn forget_since(&mut self, mark: usize) {
        for key in self.cache_keys.drain(mark.min(self.cache_keys.len())..) {
            self.cache_map.remove(&key);
        }
        self.cache.truncate(mark);
    }

    /// Indices of the memoised dealer probabilities (all up cards) for the
    /// packed removals `keys`, computing the missing ones in batches.
    pub(crate) fn ensure(&mut self, keys: &[u64]) -> Vec<u32> {
        let mut idx = Vec::with_capacity(keys.len());
        let mut pending: Vec<[f64; 10]> = Vec::new();
        for &key in keys {
            if let Some(&i) = self.cache_map.get(&key) {
                idx.push(i);
                continue;
            }
            let i = (self.cache.len() + pending.len()) as u32;
            self.cache_map.insert(key, i);
            self.cache_keys.push(key);
            idx.push(i);
            let mut n = self.shoe;
            for (r, c) in n.iter_mut().enumerate() {
                *c -= ((key >> (6 * r)) & 63) as f64;
            }
            pending.push(n);
        }
        self.computed += pending.len();
        let start = self.cache.len();
        self.cache.resize(start + pending.len(), [[0.0; 7]; 10]);
        for (chunk, out) in pending
            .chunks(dealer::LANES)
            .zip(self.cache[start..].chunks_mut(dealer::LANES))
        {
            self.dt.eval_batch(chunk, out);
        }
        idx
    }

    /// Whether the cards `counts` (plus `extra` of `extra_card`) can be drawn: the
    /// k-th card of a value is drawn with weight `n - (k - 1)`, positive while
    /// `k < n + 1` (for a whole count `n`: `k <= n`; a fractional count allows
    /// its last, partial card).
    fn feasible(&self, counts: &[u8; 10], extra_card: usize, extra: f64) -> bool {
        (0..10).all(|i| {
            f64::from(counts[i]) + if i == extra_card { extra } else { 0.0 } < self.shoe[i] + 1.0
        })
    }

    /// Stand, hit, double (two cards) and optimal continuation values of
    /// every player hand, no split involved.
    pub(crate) fn unsplit_pass(&mut self) {
        let hx = self.hx;
        let list: Vec<usize> = hx
            .desc
            .iter()
            .map(|&h| h as usize)
            .filter(|&h| hx.ncards[h] >= 2 && self.feasible(&hx.counts[h], 0, 0.0))
            .collect();
        let keys: Vec<u64> = list.iter().map(|&h| hx.key[h]).collect();
        let dix = self.ensure(&keys);
        for (&h, &di) in list.iter().zip(&dix) {
            let nc = f64::from(hx.ncards[h]);
            let hc = hx.counts[h].map(f64::from);
            let pr = self.cache[di as usize];
            let total = hx.total[h];
            let left = self.ntot - nc - 1.0;
            let st: [f64; 10] = std::array::from_fn(|u| stand_ev(&pr[u], total));
            let st2: [f64; 10] = std::array::from_fn(|u| stand_m2(&pr[u], total));
            let (mut hit, mut hit2, mut ds, mut ds2) = ([0.0; 10], [0.0; 10], [0.0; 10], [0.0; 10]);
            if left > 0.0 {
                let inv = 1.0 / left;
                for x in 0..10 {
                    let base = self.shoe[x] - hc[x];
                    if base <= 0.0 {
                        continue;
                    }
                    let mut p = [base * inv; 10];
                    p[x] = (base - 1.0).max(0.0) * inv;
                    let c = hx.child[h][x];
                    if c == NONE {
                        for u in 0..10 {
                            hit[u] -= p[u];
                            hit2[u] += p[u];
                            ds[u] -= 2.0 * p[u];
                            ds2[u] += 4.0 * p[u];
                        }
                    } else {
                        let j = c as usize * 10;
                        let cont = &self.cont[j..j + 10];
                        let cont2 = &self.cont2[j..j + 10];
                        let sc = &self.stand[j..j + 10];
                        let sc2 = &self.stand2[j..j + 10];
                        for u in 0..10 {
                            hit[u] += p[u] * cont[u];
                            hit2[u] += p[u] * cont2[u];
                            ds[u] += 2.0 * p[u] * sc[u];
                            ds2[u] += 4.0 * p[u] * sc2[u];
                        }
                    }
                }
            } else {
                for u in 0..10 {
                    (hit[u], hit2[u], ds[u], ds2[u]) = (st[u], st2[u], 2.0 * st[u], 4.0 * st2[u]);
                }
            }
            let b = h * 10;
            for u in 0..10 {
                let i = b + u;
                let corr = self.r.corr[u] * pr[u][NAT];
                self.stand[i] = st[u];
                self.stand2[i] = st2[u];
                self.pbj[i] = pr[u][NAT];
                self.hit[i] = hit[u];
                self.hit2[i] = hit2[u];
                if hx.ncards[h] == 2 {
                    self.dbl[i] = ds[u] + corr;
                    self.dbl2[i] = ds2[u] - 3.0 * corr;
                }
                if hit[u] > st[u] {
                    self.cont[i] = hit[u];
                    self.cont2[i] = hit2[u];
                } else {
                    self.cont[i] = st[u];
                    self.cont2[i] = st2[u];
                }
            }
        }
    }

    /// Hit value of hand `h` against up card `u` when the hands after the
    /// hit are worth `cont` (indexed like the unsplit arrays).
    pub(crate) fn hit_with(&self, h: usize, u: usize, cont: &[f64]) -> f64 {
        let hx = self.hx;
        let hc = hx.counts[h].map(f64::from);
        let left = self.ntot - f64::from(hx.ncards[h]) - 1.0;
        if left <= 0.0 {
            return self.stand[h * 10 + u];
        }
        let inv = 1.0 / left;
        let mut v = 0.0;
        for x in 0..10 {
            let cnt = self.shoe[x] - hc[x] - f64::from(x == u);
            if cnt <= 0.0 {
                continue;
            }
            let p = cnt * inv;
            let c = hx.child[h][x];
            v += p * if c == NONE {
                -1.0
            } else {
                cont[c as usize * 10 + u]
            };
        }
        v
    }

    /// Marks in `g` the hands holding pair card `pi` that a split hand can
    /// reach: every two-card hand, and the hands one card beyond a hand
    /// that CDZ- or basic strategy hits or doubles against some up card
    /// (every hand under CDP1 and CDP, whose options are chosen as valued).
    /// Only these are valued by [`Engine::group_pass`].
    pub(crate) fn mark_needed(&self, pi: usize, bs: &BsPlay<'_>, g: &mut GroupScratch) {
        let hx = self.hx;
        g.needed.iter_mut().for_each(|n| *n = false);
        let only_two = pi == 0 && !self.r.play_split_aces;
        let can_s = self.r.sas;
        for &h in hx.with_card[pi].iter().rev() {
            let h = h as usize;
            let nc = hx.ncards[h];
            if nc == 2 {
                g.needed[h] = true;
            }
            if !g.needed[h] || only_two || !self.feasible(&hx.counts[h], pi, 1.0) {
                continue;
            }
            let (total, soft) = (hx.total[h], hx.soft[h]);
            let draws = |a: Action| matches!(a, Action::Hit | Action::Double);
            let expands = if self.post != PostSplit::Cdz {
                // the CDP1 / CDP options are only known once valued
                true
            } else if nc >= 3 {
                let mh = &bs.multi_hit[usize::from(soft)][usize::from(total)];
                (0..10).any(|u| mh[u] || self.hit[h * 10 + u] > self.stand[h * 10 + u])
            } else {
                let can_d = self.r.das && self.r.can_double(total, soft);
                let hcnt = &hx.counts[h];
                let second = if hcnt[pi] >= 2 {
                    pi
                } else {
                    (0..10).find(|&x| x != pi && hcnt[x] > 0).unwrap_or(pi)
                };
                (0..10).any(|u| {
                    draws(self.post_split_cd(h * 10 + u, can_d, can_s))
                        || draws(bs.post_split[second][u])
                })
            };
            if expands {
                for &c in &hx.child[h] {
                    if c != NONE {
                        g.needed[c as usize] = true;
                    }
                }
            }
        }
    }

    /// Values of the split hands of pair card `pi` with `a` extra pair cards
    /// gone (`a + 1` besides the hand's own): `X(a)` and `P(a)` for the CD
    /// strategy (`self.post` after the split) and for basic strategy.
    pub(crate) fn group_pass(
        &mut self,
        pi: usize,
        a: usize,
        bs: &BsPlay<'_>,
        g: &mut GroupScratch,
    ) -> Level {
        let hx = self.hx;
        let e = a as f64 + 1.0;
        let ekey = (a as u64 + 1) * key_unit(pi);
        let only_two = pi == 0 && !self.r.play_split_aces;
        let list: Vec<usize> = hx.with_card[pi]
            .iter()
            .map(|&h| h as usize)
            .filter(|&h| g.needed[h] && (!only_two || hx.ncards[h] == 2))
            .filter(|&h| self.feasible(&hx.counts[h], pi, e))
            .collect();
        let keys: Vec<u64> = list.iter().map(|&h| hx.key[h] + ekey).collect();
        let dix = self.ensure(&keys);
        let can_s = self.r.sas;
        for (&h, &di) in list.iter().zip(&dix) {
            let nc = f64::from(hx.ncards[h]);
            let mut rc = hx.counts[h].map(f64::from);
            rc[pi] += e;
            let pr = &self.cache[di as usize];
            let total = hx.total[h];
            let soft = hx.soft[h];
            let left = self.ntot - nc - e - 1.0;
            let b = h * 10;
            let st: [f64; 10] = std::array::from_fn(|u| stand_ev(&pr[u], total));
            let st2: [f64; 10] = std::array::from_fn(|u| stand_m2(&pr[u], total));
            g.stand[b..b + 10].copy_from_slice(&st);
            g.stand2[b..b + 10].copy_from_slice(&st2);
            if only_two {
                g.cd[b..b + 10].copy_from_slice(&st);
                g.cd2[b..b + 10].copy_from_slice(&st2);
                g.bs[b..b + 10].copy_from_slice(&st);
                continue;
            }
            let (mut hcd, mut hbs, mut ds) = ([0.0; 10], [0.0; 10], [0.0; 10]);
            let (mut hcd2, mut ds2) = ([0.0; 10], [0.0; 10]);
            if left > 0.0 {
                let inv = 1.0 / left;
                for x in 0..10 {
                    let base = self.shoe[x] - rc[x];
                    if base <= 0.0 {
                        continue;
                    }
                    let mut p = [base * inv; 10];
                    p[x] = (base - 1.0).max(0.0) * inv;
                    let c = hx.child[h][x];
                    if c == NONE {
                        for u in 0..10 {
                            hcd[u] -= p[u];
                            hbs[u] -= p[u];
                            ds[u] -= 2.0 * p[u];
                            hcd2[u] += p[u];
                            ds2[u] += 4.0 * p[u];
                        }
                    } else {
                        let j = c as usize * 10;
                        let (cd, bs, sc) =
                            (&g.cd[j..j + 10], &g.bs[j..j + 10], &g.stand[j..j + 10]);
                        let (cd2, sc2) = (&g.cd2[j..j + 10], &g.stand2[j..j + 10]);
                        for u in 0..10 {
                            hcd[u] += p[u] * cd[u];
                            hbs[u] += p[u] * bs[u];
                            ds[u] += 2.0 * p[u] * sc[u];
                            hcd2[u] += p[u] * cd2[u];
                            ds2[u] += 4.0 * p[u] * sc2[u];
                        }
                    }
                }
            } else {
                hcd = st;
                hbs = st;
                hcd2 = st2;
                for u in 0..10 {
                    ds[u] = 2.0 * st[u];
                    ds2[u] = 4.0 * st2[u];
                }
            }
            if hx.ncards[h] >= 3 {
                let mh = &bs.multi_hit[usize::from(soft)][usize::from(total)];
                for u in 0..10 {
                    let i = b + u;
                    let hits = match self.post {
                        PostSplit::Cdz => self.hit[i] > self.stand[i],
                        PostSplit::Cdp1 if a > 0 => g.choice[i] == Action::Hit,
                        PostSplit::Cdp1 | PostSplit::Cdp => {
                            let hits = hcd[u] > st[u];
                            if a == 0 {
                                g.choice[i] = if hits { Action::Hit } else { Action::Stand };
                            }
                            hits
                        }
                    };
                    g.cd[i] = if hits { hcd[u] } else { st[u] };
                    g.cd2[i] = if hits { hcd2[u] } else { st2[u] };
                    g.bs[i] = if mh[u] { hbs[u] } else { st[u] };
                }
                continue;
            }
            // the two-card hand (pair card, second card) after a split
            let can_d = self.r.das && self.r.can_double(total, soft);
            let hcnt = &hx.counts[h];
            let second = if hcnt[pi] >= 2 {
                pi
            } else {
                (0..10).find(|&x| x != pi && hcnt[x] > 0).unwrap_or(pi)
            };
            for u in 0..10 {
                let i = b + u;
                let corr = self.r.corr[u] * pr[u][NAT];
                let dbl = ds[u] + corr;
                let sur = -0.5 - 0.5 * pr[u][NAT];
                let action = match self.post {
                    PostSplit::Cdz => self.post_split_cd(i, can_d, can_s),
                    PostSplit::Cdp1 if a > 0 => g.choice[i],
                    PostSplit::Cdp1 | PostSplit::Cdp => {
                        let options = [
                            (Action::Stand, st[u]),
                            (Action::Hit, hcd[u]),
                            (Action::Double, if can_d { dbl } else { f64::NEG_INFINITY }),
                            (
                                Action::Surrender,
                                if can_s { sur } else { f64::NEG_INFINITY },
                            ),
                        ];
                        let best = best_option(&options);
                        if a == 0 {
                            g.choice[i] = best;
                        }
                        best
                    }
                };
                let (v, v2) = match action {
                    Action::Hit => (hcd[u], hcd2[u]),
                    Action::Double => (dbl, ds2[u] - 3.0 * corr),
                    Action::Surrender => (sur, 0.25 + 0.75 * pr[u][NAT]),
                    Action::Stand | Action::Split => (st[u], st2[u]),
                };
                g.cd[i] = v;
                g.cd2[i] = v2;
                g.bs[i] = match bs.post_split[second][u] {
                    Action::Stand | Action::Split => st[u],
                    Action::Hit => hbs[u],
                    Action::Double if can_d => dbl,
                    Action::Double => st[u],
                    Action::Surrender if can_s => sur,
                    Action::Surrender => st[u],
                };
            }
        }
        // X(a), P(a): the second card drawn to the pair card
        let mut lv = Level::default();
        let Some(single) = hx.find(key_unit(pi)) else {
            return lv;
        };
        let gone = e + 1.0; // the hand's own pair card and the `a + 1` others
        let left = self.ntot - gone - 1.0;
        if left <= 0.0 {
            return lv;
        }
        let inv = 1.0 / left;
        for u in 0..10 {
            if self.shoe[u] - f64::from(u == pi) * gone <= 0.0 {
                continue;
            }
            for x in 0..10 {
                let cnt = self.shoe[x] - f64::from(x == pi) * gone - f64::from(x == u);
                if cnt <= 0.0 {
                    continue;
                }
                let p = cnt * inv;
                let h2 = hx.child[single as usize][x];
                if h2 == NONE {
                    continue;
                }
                let j = h2 as usize * 10 + u;
                lv.x_cd[u] += p * g.cd[j];
                lv.x2_cd[u] += p * g.cd2[j];
                lv.x_bs[u] += p * g.bs[j];
                if x == pi {
                    lv.pv_cd[u] = g.cd[j];
                    lv.pv2_cd[u] = g.cd2[j];
                    lv.pv_bs[u] = g.bs[j];
                }
            }
        }
        lv
    }

    /// The CDZ- option on a two-card hand after a split: the one the
    /// unsplit hand of the same cards (index `i = hand * 10 + up`) takes.
    #[inline]
    fn post_split_cd(&self, i: usize, can_d: bool, can_s: bool) -> Action {
        let mut best = self.stand[i];
        let mut a = Action::Stand;
        if self.hit[i] > best {
            best = self.hit[i];
            a = Action::Hit;
        }
        if can_d && self.dbl[i] > best {
            best = self.dbl[i];
            a = Action::Double;
        }
        if can_s && -0.5 - 0.5 * self.pbj[i] > best {
            a = Action::Surrender;
        }
        a
    }

    /// Joint vectors `J[d] = E[x 1{dealer outcome d}]` (d: 17..=21, bust,
    /// natural) of one split hand of pair card `pi` (level 0, CD play)
    /// per up card, with the dealer's outcome probabilities for the shoe
    /// less the pair and the up card. A bust hand's dealer outcomes are
    /// taken from the hand before the busting card (an approximation used
    /// only for the variance).
    pub(crate) fn split_joint(
        &mut self,
        pi: usize,
        g: &mut GroupScratch,
    ) -> ([[f64; 7]; 10], [[f64; 7]; 10]) {
        let hx = self.hx;
        let len = hx.len() * 70;
        if g.jstand.len() != len {
            g.jstand = vec![0.0; len];
            g.jcd = vec![0.0; len];
        }
        let only_two = pi == 0 && !self.r.play_split_aces;
        let list: Vec<usize> = hx.with_card[pi]
            .iter()
            .map(|&h| h as usize)
            .filter(|&h| g.needed[h] && (!only_two || hx.ncards[h] == 2))
            .filter(|&h| self.feasible(&hx.counts[h], pi, 1.0))
            .collect();
        let keys: Vec<u64> = list.iter().map(|&h| hx.key[h] + key_unit(pi)).collect();
        let dix = self.ensure(&keys);
        let can_s = self.r.sas;
        for (&h, &di) in list.iter().zip(&dix) {
            let nc = f64::from(hx.ncards[h]);
            let mut rc = hx.counts[h].map(f64::from);
            rc[pi] += 1.0;
            let pr = self.cache[di as usize];
            let total = hx.total[h];
            let left = self.ntot - nc - 2.0;
            let can_d = hx.ncards[h] == 2 && self.r.das && self.r.can_double(total, soft_of(hx, h));
            for u in 0..10 {
                let i = h * 10 + u;
                let mut js = [0.0; 7];
                for (d, slot) in js.iter_mut().enumerate() {
                    *slot = pr[u][d] * payoff(total, d);
                }
                g.jstand[i * 7..i * 7 + 7].copy_from_slice(&js);
                if only_two {
                    g.jcd[i * 7..i * 7 + 7].copy_from_slice(&js);
                    continue;
                }
                let action = if self.post != PostSplit::Cdz {
                    g.choice[i]
                } else if hx.ncards[h] >= 3 {
                    if self.hit[i] > self.stand[i] {
                        Action::Hit
                    } else {
                        Action::Stand
                    }
                } else {
                    self.post_split_cd(i, can_d, can_s)
                };
                let mut j = [0.0; 7];
                match action {
                    Action::Stand | Action::Split => j = js,
                    Action::Surrender => {
                        for d in 0..7 {
                            j[d] = if d == NAT { -pr[u][d] } else { -0.5 * pr[u][d] };
                        }
                    }
                    Action::Hit | Action::Double => {
                        let f = if action == Action::Double { 2.0 } else { 1.0 };
                        if left > 0.0 {
                            for x in 0..10 {
                                let cnt = self.shoe[x] - rc[x] - f64::from(x == u);
                                if cnt <= 0.0 {
                                    continue;
                                }
                                let p = cnt / left;
                                let c = hx.child[h][x];
                                for d in 0..7 {
                                    j[d] += f
                                        * p
                                        * if c == NONE {
                                            -pr[u][d]
                                        } else {
                                            let k = (c as usize * 10 + u) * 7 + d;
                                            if action == Action::Double {
                                                g.jstand[k]
                                            } else {
                                                g.jcd[k]
                                            }
                                        };
                                }
                            }
                        }
                        if action == Action::Double {
                            j[NAT] += self.r.corr[u] * pr[u][NAT];
                        }
                    }
                }
                g.jcd[i * 7..i * 7 + 7].copy_from_slice(&j);
            }
        }
        let mut jx = [[0.0; 7]; 10];
        let mut pd = [[0.0; 7]; 10];
        let Some(single) = hx.find(key_unit(pi)) else {
            return (jx, pd);
        };
        if self.shoe[pi] < 2.0 {
            return (jx, pd);
        }
        let base = self.ensure(&[2 * key_unit(pi)])[0] as usize;
        let left = self.ntot - 3.0;
        for u in 0..10 {
            pd[u] = self.cache[base][u];
            if left <= 0.0 || self.shoe[u] - 2.0 * f64::from(u == pi) <= 0.0 {
                continue;
            }
            for x in 0..10 {
                let cnt = self.shoe[x] - 2.0 * f64::from(x == pi) - f64::from(x == u);
                let h2 = hx.child[single as usize][x];
                if cnt <= 0.0 || h2 == NONE {
                    continue;
                }
                let p = cnt / left;
                let k = (h2 as usize * 10 + u) * 7;
                for d in 0..7 {
                    jx[u][d] += p * g.jcd[k + d];
                }
            }
        }
        (jx, pd)
    }

    /// The mixture over the number of pair-class cards left (only split
    /// by rank tens have two terms) with, per term, the dealer natural's
    /// probability (zero when it takes all bets) and the expected number of
    /// split hands given it.
    fn split_terms(&self, pi: usize, u: usize) -> [SplitTerm; 2] {
        let m = self.r.max_hands[pi];
        let n = self.ntot - 3.0;
        let rank_tens = pi == 9 && self.r.split_by_rank;
        let mut mix = [(1.0, self.shoe[pi] - 2.0 - f64::from(u == pi)), (0.0, 0.0)];
        if rank_tens {
            let r = self.ten_rank;
            let nt = self.shoe[9];
            mix = if u == 9 {
                let same = if nt > 2.0 {
                    ((r - 2.0) / (nt - 2.0)).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                [(same, r - 3.0), (1.0 - same, r - 2.0)]
            } else {
                [(1.0, r - 2.0), (0.0, 0.0)]
            };
        }
        mix.map(|(w, p)| {
            let p = p.max(0.0);
            let mut t = SplitTerm {
                w,
                p,
                pbj: 0.0,
                hands_bj: 0.0,
            };
            if w > 0.0 && self.r.corr[u] > 0.0 && (u == 0 || u == 9) {
                let hole = 9 - u;
                let hole_left = self.shoe[hole] - 2.0 * f64::from(hole == pi);
                let pbj = hole_left.max(0.0) / n;
                if pbj > 0.0 {
                    // chance the hole card is itself a pair-class card
                    let hole_pair = if hole != pi {
                        0.0
                    } else if rank_tens {
                        (p / hole_left).clamp(0.0, 1.0)
                    } else {
                        1.0
                    };
                    t.pbj = pbj;
                    t.hands_bj = hole_pair * split::expected_hands(m, n - 1.0, p - 1.0)
                        + (1.0 - hole_pair) * split::expected_hands(m, n - 1.0, p);
                }
            }
            t
        })
    }

    /// Expected value (unconditioned) of splitting pair card `pi` against up
    /// card `u`, given the per-level hand values `x[a]`, `pv[a]`. The hands'
    /// values each count the dealer natural's loss; when the natural only
    /// takes the original bet, the extra hands' bets are given back.
    pub(crate) fn split_ev(&self, pi: usize, u: usize, x: &[f64], pv: &[f64]) -> f64 {
        let m = self.r.max_hands[pi];
        let n = self.ntot - 3.0;
        self.split_terms(pi, u)
            .iter()
            .filter(|t| t.w > 0.0)
            .map(|t| t.w * (split::split_sum(m, n, t.p, x, pv) + (t.hands_bj - 1.0) * t.pbj))
            .sum()
    }

    /// Second moment of a split round's result: the hands' squared results
    /// exactly (from the per-level second moments `x2`, `pv2`), plus the
    /// products of different hands taken as independent given the dealer's
    /// outcome (`jx`: one hand's joint vector, `pd`: the dealer's outcome
    /// probabilities).
    pub(crate) fn split_m2(
        &self,
        pi: usize,
        u: usize,
        x2: &[f64],
        pv2: &[f64],
        jx: &[f64; 7],
        pd: &[f64; 7],
    ) -> f64 {
        let m = self.r.max_hands[pi];
        let n = self.ntot - 3.0;
        let obo = self.r.corr[u] > 0.0;
        let mut cross = 0.0;
        for d in 0..7 {
            if (d == NAT && obo) || pd[d] <= 0.0 {
                continue;
            }
            cross += jx[d] * jx[d] / pd[d];
        }
        self.split_terms(pi, u)
            .iter()
            .filter(|t| t.w > 0.0)
            .map(|t| {
                t.w * (split::split_sum(m, n, t.p, x2, pv2) + split::hands_pairs(m, n, t.p) * cross
                    - (t.hands_bj - 1.0) * t.pbj)
            })
            .sum()
    }
}

/// The first option of highest value (ties keep the earlier one).
fn best_option(options: &[(Action, f64)]) -> Action {
    let mut best = options[0];
    for &o in &options[1..] {
        if o.1 > best.1 {
            best = o;
        }
    }
    best.0
}

/// One term of the split mixture (see [`Engine::split_terms`]).
#[derive(Clone, Copy)]
struct SplitTerm {
    w: f64,
    p: f64,
    pbj: f64,
    hands_bj: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::main_game::rules::MainGameRules;

    fn engine() -> Engine {
        let prep = Prepared::new(&MainGameRules::default()).unwrap();
        let mut shoe = [24.0; 10];
        shoe[9] = 96.0;
        Engine::new(prep, shoe, 24.0)
    }

    #[test]
    fn forgotten_dealer_probabilities_are_computed_again_alike_in_the_same_memory() {
        let mut e = engine();
        let kept = [2 * key_unit(7), key_unit(0) + key_unit(9)];
        let first = e.ensure(&kept);
        let mark = e.cache_mark();
        let dropped = [3 * key_unit(7) + key_unit(2), 4 * key_unit(7)];
        let before: Vec<_> = e
            .ensure(&dropped)
            .iter()
            .map(|&i| e.cache[i as usize])
            .collect();
        let room = e.cache.capacity();
        e.forget_since(mark);
        assert_eq!(e.cache_mark(), mark);
        assert_eq!(e.ensure(&kept), first, "kept entries are still found");
        assert_eq!(e.dealer_evaluations(), 4, "nothing kept was computed again");
        let again: Vec<_> = e
            .ensure(&dropped)
            .iter()
            .map(|&i| e.cache[i as usize])
            .collect();
        assert_eq!(again, before);
        assert_eq!(
            e.dealer_evaluations(),
            6,
            "the forgotten ones were computed again"
        );
        assert_eq!(e.cache.capacity(), room, "in the memory they had");
    }
}
