//! Dealer outcome probabilities.
//!
//! Every final dealer hand that stands on 17..=21 (naturals excluded) is
//! enumerated once as a *composition* (a multiset of card values) together
//! with, for each up card, its *multiplier*: the number of card orders that
//! start with that up card and in which the dealer draws at every proper
//! prefix. Under sampling without replacement every order of the same
//! multiset is equally likely, so for a shoe with counts `n` (after the
//! removed cards) the probability of a composition `D` and up card `U` is
//! `m(D, U) * prod_c ff(n_c, d_c) / ff(N, |D|)`, `ff` the falling factorial.
//! Summing over the ~1,700 compositions gives all ten up cards at once; the
//! bust probability is the complement and the natural is `n_T / (N - 1)`
//! (ace up) or `n_A / (N - 1)` (ten up).

use std::sync::OnceLock;

use super::error::MainGameError;
use super::hands::best_total;
use super::shoe::{rank_index, Shoe};
use rustc_hash::FxHashMap;

/// Outcome slots of the internal probability vectors.
pub(crate) const BUST: usize = 5;
/// Slot of the dealer natural.
pub(crate) const NAT: usize = 6;

/// Per up card: P(17), P(18), P(19), P(20), P(21), P(bust), P(natural).
pub(crate) type UpProbs = [f64; 7];

/// Number of shoes evaluated together (the lanes of the inner loops): sixteen
/// keep two or four vector registers of independent products in flight.
pub(crate) const LANES: usize = 16;

/// One node of the product trie over the final compositions (ranks taken
/// from ten down to ace): the prefix product is the parent's times
/// `ff(n_rank, cnt)`.
#[derive(Clone, Copy)]
struct Node {
    depth: u8,
    rank: u8,
    cnt: u8,
    /// Cards in the composition ending here (0: only a prefix).
    k: u8,
    /// Range of this composition's multipliers.
    mstart: u32,
    mend: u32,
}

/// The enumerated final dealer compositions for one soft-17 rule, as a
/// product trie in depth-first order.
pub(crate) struct DealerTable {
    nodes: Vec<Node>,
    /// Multiplier targets: `up * 5 + (total - 17)`.
    mslot: Vec<u8>,
    mval: Vec<f64>,
    max_cnt: [usize; 10],
    max_k: usize,
}

/// A composition as its (rank, count) steps in trie order.
type TriePath = Vec<(u8, u8)>;

/// Trie rank order: tens first shares the most prefixes.
const TRIE_ORDER: [usize; 10] = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

impl DealerTable {
    /// The table of every up card (`only_up` None) or of one up card only.
    fn build(h17: bool, only_up: Option<usize>) -> Self {
        let mut map: FxHashMap<[u8; 10], ([u32; 10], u8)> = FxHashMap::default();
        let mut order: Vec<[u8; 10]> = Vec::new();
        for up in 0..10 {
            let mut c = [0u8; 10];
            c[up] = 1;
            walk(h17, up, &mut c, 1, &mut map, &mut order);
        }
        // each composition as its (rank, count) path in trie order
        let mut paths: Vec<(TriePath, [u8; 10])> = order
            .iter()
            .filter(|c| only_up.is_none_or(|u| map.get(*c).is_some_and(|(m, _)| m[u] > 0)))
            .map(|c| {
                let path = TRIE_ORDER
                    .iter()
                    .filter(|&&r| c[r] > 0)
                    .map(|&r| (r as u8, c[r]))
                    .collect();
                (path, *c)
            })
            .collect();
        // depth-first order: sort paths lexicographically
        paths.sort_by(|a, b| {
            let key = |p: &Vec<(u8, u8)>| -> Vec<(usize, u8)> {
                p.iter()
                    .map(|&(r, c)| {
                        (
                            TRIE_ORDER
                                .iter()
                                .position(|&x| x == usize::from(r))
                                .unwrap_or(0),
                            c,
                        )
                    })
                    .collect()
            };
            key(&a.0).cmp(&key(&b.0))
        });
        let mut t = DealerTable {
            nodes: Vec::new(),
            mslot: Vec::new(),
            mval: Vec::new(),
            max_cnt: [0; 10],
            max_k: 0,
        };
        let mut prev: Vec<(u8, u8)> = Vec::new();
        for (path, comp) in &paths {
            let common = prev.iter().zip(path).take_while(|(a, b)| a == b).count();
            for (d, &(r, c)) in path.iter().enumerate().skip(common) {
                t.max_cnt[usize::from(r)] = t.max_cnt[usize::from(r)].max(usize::from(c));
                t.nodes.push(Node {
                    depth: d as u8 + 1,
                    rank: r,
                    cnt: c,
                    k: 0,
                    mstart: 0,
                    mend: 0,
                });
            }
            if common == path.len() {
                // the composition is a prefix already present: never happens
                // for distinct compositions, kept for safety
                continue;
            }
            let Some((mult, total)) = map.get(comp) else {
                continue;
            };
            let k: u8 = comp.iter().sum();
            t.max_k = t.max_k.max(usize::from(k));
            let mstart = t.mslot.len() as u32;
            for (up, &m) in mult.iter().enumerate() {
                if m > 0 && only_up.is_none_or(|u| u == up) {
                    t.mslot.push((up * 5 + usize::from(total - 17)) as u8);
                    t.mval.push(f64::from(m));
                }
            }
            if let Some(last) = t.nodes.last_mut() {
                last.k = k;
                last.mstart = mstart;
                last.mend = t.mslot.len() as u32;
            }
            prev.clone_from(path);
        }
        t
    }

    /// Dealer outcome probabilities for every up card, for up to [`LANES`]
    /// shoes at once. `ns[l]` are the counts left after the player's cards
    /// (the up card is the first card drawn); up cards absent from a shoe
    /// get all zeros.
    pub(crate) fn eval_batch(&self, ns: &[[f64; 10]], out: &mut [[UpProbs; 10]]) {
        simd().dispatch(Batch {
            table: self,
            ns,
            out,
        });
    }

    /// [`DealerTable::eval_batch`]'s loops, inlined into each instruction set's
    /// copy by [`Batch`].
    #[inline(always)]
    fn eval_lanes(&self, ns: &[[f64; 10]], out: &mut [[UpProbs; 10]]) {
        const L: usize = LANES;
        let lanes = ns.len().min(L).min(out.len());
        if lanes == 0 {
            return;
        }
        let mut n = [[0.0f64; 10]; L];
        for l in 0..L {
            n[l] = ns[l.min(lanes - 1)];
        }
        let totals: [f64; L] = std::array::from_fn(|l| n[l].iter().sum());
        let mut ff = [[[0.0f64; L]; 16]; 10];
        for r in 0..10 {
            for l in 0..L {
                let mut p = 1.0;
                ff[r][0][l] = 1.0;
                for j in 1..=self.max_cnt[r].min(15) {
                    let f = n[l][r] - j as f64 + 1.0;
                    p = if f > 0.0 { p * f } else { 0.0 };
                    ff[r][j][l] = p;
                }
            }
        }
        let mut inv = [[0.0f64; L]; 16];
        for l in 0..L {
            let mut p = 1.0;
            for j in 1..=self.max_k.min(15) {
                let f = totals[l] - j as f64 + 1.0;
                p = if f > 0.0 { p * f } else { 0.0 };
                inv[j][l] = if p > 0.0 { 1.0 / p } else { 0.0 };
            }
        }
        let mut acc = [[0.0f64; L]; 50];
        let mut stack = [[1.0f64; L]; 12];
        for node in &self.nodes {
            let d = usize::from(node.depth).min(11);
            let f = &ff[usize::from(node.rank)][usize::from(node.cnt).min(15)];
            let mut cur = stack[d - 1];
            for l in 0..L {
                cur[l] *= f[l];
            }
            stack[d] = cur;
            if node.k > 0 {
                let iv = &inv[usize::from(node.k).min(15)];
                let mut w = cur;
                for l in 0..L {
                    w[l] *= iv[l];
                }
                for i in node.mstart as usize..node.mend as usize {
                    let m = self.mval[i];
                    let a = &mut acc[usize::from(self.mslot[i])];
                    for l in 0..L {
                        a[l] += m * w[l];
                    }
                }
            }
        }
        for l in 0..lanes {
            let (n, total) = (&n[l], totals[l]);
            for up in 0..10 {
                let o = &mut out[l][up];
                if n[up] <= 0.0 || total <= 0.0 {
                    *o = [0.0; 7];
                    continue;
                }
                *o = outcomes(n, up, std::array::from_fn(|t| acc[up * 5 + t][l]));
            }
        }
    }

    /// Dealer outcome probabilities for the up card `up` alone, on a table
    /// built for it ([`up_table`]): `n` are the counts left after the
    /// player's cards, the up card still among them.
    pub(crate) fn eval_up(&self, n: &[f64; 10], up: usize) -> UpProbs {
        let total: f64 = n.iter().sum();
        if n[up] <= 0.0 || total <= 0.0 {
            return [0.0; 7];
        }
        let mut ff = [[0.0f64; 16]; 10];
        for (r, row) in ff.iter_mut().enumerate() {
            let mut p = 1.0;
            row[0] = 1.0;
            for j in 1..=self.max_cnt[r].min(15) {
                let f = n[r] - j as f64 + 1.0;
                p = if f > 0.0 { p * f } else { 0.0 };
                row[j] = p;
            }
        }
        let mut inv = [0.0f64; 16];
        let mut p = 1.0;
        for (j, slot) in inv
            .iter_mut()
            .enumerate()
            .take(self.max_k.min(15) + 1)
            .skip(1)
        {
            let f = total - j as f64 + 1.0;
            p = if f > 0.0 { p * f } else { 0.0 };
            *slot = if p > 0.0 { 1.0 / p } else { 0.0 };
        }
        let mut acc = [0.0f64; 5];
        let mut stack = [1.0f64; 12];
        for node in &self.nodes {
            let d = usize::from(node.depth).min(11);
            let cur = stack[d - 1] * ff[usize::from(node.rank)][usize::from(node.cnt).min(15)];
            stack[d] = cur;
            if node.k > 0 {
                let w = cur * inv[usize::from(node.k).min(15)];
                for i in node.mstart as usize..node.mend as usize {
                    acc[usize::from(self.mslot[i]) % 5] += self.mval[i] * w;
                }
            }
        }
        outcomes(n, up, acc)
    }

    /// Dealer outcome probabilities for every up card for one shoe.
    pub(crate) fn eval(&self, n: &[f64; 10], out: &mut [UpProbs; 10]) {
        let mut o = [[[0.0; 7]; 10]; 1];
        self.eval_batch(std::slice::from_ref(n), &mut o);
        *out = o[0];
    }
}

/// The widest vector instructions this processor has, detected once.
fn simd() -> pulp::Arch {
    static ARCH: OnceLock<pulp::Arch> = OnceLock::new();
    *ARCH.get_or_init(pulp::Arch::new)
}

/// One [`DealerTable::eval_batch`] call, compiled for each instruction set
/// [`pulp`] dispatches to: the lanes' loops are the same code, the compiler
/// vectorises them four or eight lanes wide where the processor allows (no
/// fused multiply-add is formed, so every figure is the same bit for bit).
struct Batch<'a> {
    table: &'a DealerTable,
    ns: &'a [[f64; 10]],
    out: &'a mut [[UpProbs; 10]],
}

impl pulp::WithSimd for Batch<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        self.table.eval_lanes(self.ns, self.out);
    }
}

/// The outcome probabilities of up card `up` from the shoe `n` (up card
/// included) and the summed weights `acc` of its standing totals 17..=21.
fn outcomes(n: &[f64; 10], up: usize, acc: [f64; 5]) -> UpProbs {
    let total: f64 = n.iter().sum();
    let scale = total / n[up];
    let mut o = [0.0; 7];
    for t in 0..5 {
        o[t] = acc[t] * scale;
    }
    // the hole card comes from the total - 1 cards left after the up card
    let left = total - 1.0;
    o[NAT] = match up {
        0 if left > 0.0 => n[9] / left,
        9 if left > 0.0 => n[0] / left,
        _ => 0.0,
    };
    o[BUST] = (1.0 - o[..5].iter().sum::<f64>() - o[NAT]).max(0.0);
    o
}

fn walk(
    h17: bool,
    up: usize,
    c: &mut [u8; 10],
    ncards: u32,
    map: &mut FxHashMap<[u8; 10], ([u32; 10], u8)>,
    order: &mut Vec<[u8; 10]>,
) {
    let hard: u32 = c
        .iter()
        .enumerate()
        .map(|(r, &k)| u32::from(k) * (r as u32 + 1))
        .sum();
    let (total, soft) = best_total(hard, c[0] > 0);
    if ncards == 2 && total == 21 {
        return; // natural: handled separately
    }
    if total < 17 || (h17 && total == 17 && soft) {
        for x in 0..10 {
            c[x] += 1;
            walk(h17, up, c, ncards + 1, map, order);
            c[x] -= 1;
        }
    } else if total <= 21 {
        let e = map.entry(*c).or_insert_with(|| {
            order.push(*c);
            ([0; 10], total as u8)
        });
        e.0[up] += 1;
    }
}

/// The shared dealer table for the given soft-17 rule.
pub(crate) fn table(h17: bool) -> &'static DealerTable {
    static S17: OnceLock<DealerTable> = OnceLock::new();
    static H17: OnceLock<DealerTable> = OnceLock::new();
    if h17 {
        H17.get_or_init(|| DealerTable::build(true, None))
    } else {
        S17.get_or_init(|| DealerTable::build(false, None))
    }
}

/// The shared dealer table of the up card `up` (index 0..=9) alone, for
/// [`DealerTable::eval_up`]: only the compositions that start with it.
pub(crate) fn up_table(h17: bool, up: usize) -> &'static DealerTable {
    static TABLES: [[OnceLock<DealerTable>; 10]; 2] =
        [const { [const { OnceLock::new() }; 10] }; 2];
    TABLES[usize::from(h17)][up.min(9)].get_or_init(|| DealerTable::build(h17, Some(up.min(9))))
}

/// Probabilities of the dealer's final outcomes for one up card.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DealerProbs {
    /// P(final total 17), P(18), P(19), P(20), P(21) (two-card 21 excluded).
    pub totals: [f64; 5],
    /// P(bust).
    pub bust: f64,
    /// P(natural); zero when conditioned on the dealer's peek.
    pub natural: f64,
    /// Whether the probabilities are conditioned on no dealer natural.
    pub conditioned_on_no_natural: bool,
}

impl DealerProbs {
    pub(crate) fn from_internal(p: &UpProbs, peeked: bool) -> Result<Self, MainGameError> {
        let mut totals = [p[0], p[1], p[2], p[3], p[4]];
        let mut bust = p[BUST];
        let mut natural = p[NAT];
        if peeked {
            let keep = 1.0 - natural;
            if keep <= 0.0 {
                return Err(MainGameError::InvalidShoe(
                    "the dealer has a natural with certainty".into(),
                ));
            }
            for t in &mut totals {
                *t /= keep;
            }
            bust /= keep;
            natural = 0.0;
        }
        Ok(DealerProbs {
            totals,
            bust,
            natural,
            conditioned_on_no_natural: peeked,
        })
    }
}

/// Exact dealer outcome probabilities for up card `up` (1 = ace ..= 10).
///
/// `shoe` is the composition the up card was dealt from (the up card is
/// still counted in it; any other known cards must already be removed).
/// With `peeked` the result is conditioned on the dealer not holding a
/// natural (the dealer checked); otherwise the natural is one outcome.
/// `h17`: the dealer hits soft 17. Errors if the up card is not in the shoe
/// or the other cards could run out before the dealer finishes (their hard
/// value must be at least 16).
pub fn dealer_probabilities(
    shoe: &Shoe,
    up: u8,
    peeked: bool,
    h17: bool,
) -> Result<DealerProbs, MainGameError> {
    let u = rank_index(up)?;
    let n = shoe.signed();
    if n[u] <= 0.0 {
        return Err(MainGameError::CardsNotInShoe(format!("up card {up}")));
    }
    if shoe.hard_value() < 16 + u as u32 + 1 {
        return Err(MainGameError::ShoeTooSmall(
            "the dealer could run out of cards".into(),
        ));
    }
    let mut out = [[0.0; 7]; 10];
    table(h17).eval(&n, &mut out);
    DealerProbs::from_internal(&out[u], peeked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of depleted six-deck shoes: one card of a value gone per shoe.
    fn shoes(n: usize) -> Vec<[f64; 10]> {
        (0..n)
            .map(|i| {
                let mut s = [24.0; 10];
                s[9] = 96.0;
                s[i % 10] -= 1.0 + (i / 10) as f64;
                s
            })
            .collect()
    }

    #[test]
    fn the_dispatched_batch_kernel_agrees_with_the_one_up_card_kernel_in_every_lane() {
        for h17 in [false, true] {
            // a full batch and a partial one (its lanes padded)
            let ns = shoes(LANES + 3);
            let mut out = vec![[[0.0; 7]; 10]; ns.len()];
            for (chunk, o) in ns.chunks(LANES).zip(out.chunks_mut(LANES)) {
                table(h17).eval_batch(chunk, o);
            }
            for (n, got) in ns.iter().zip(&out) {
                for up in 0..10 {
                    let want = up_table(h17, up).eval_up(n, up);
                    for (g, w) in got[up].iter().zip(&want) {
                        assert!((g - w).abs() < 1e-15, "h17 {h17} up {up}: {g} vs {w}");
                    }
                }
            }
        }
    }
}
