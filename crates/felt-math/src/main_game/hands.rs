//! The static index of every player hand (a multiset of card values whose
//! hard total is at most 21), with totals and hit links.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

/// Marks a missing link (the hit busts).
pub(crate) const NONE: u32 = u32::MAX;

/// Bits per card value in a packed composition key.
const KEY_BITS: u32 = 6;

/// The packed-key increment of one card of index `i` (0 = ace).
#[inline]
pub(crate) const fn key_unit(i: usize) -> u64 {
    1u64 << (KEY_BITS as usize * i)
}

/// Packs per-value counts (each below 64) into one key.
#[inline]
pub(crate) fn key_of(counts: &[u8; 10]) -> u64 {
    counts
        .iter()
        .enumerate()
        .fold(0u64, |k, (i, &c)| k + u64::from(c) * key_unit(i))
}

/// Best total and softness of a multiset given its hard total and aces.
#[inline]
pub(crate) fn best_total(hard: u32, has_ace: bool) -> (u32, bool) {
    if has_ace && hard + 10 <= 21 {
        (hard + 10, true)
    } else {
        (hard, false)
    }
}

/// Every non-empty player hand with hard total <= 21.
pub(crate) struct HandIndex {
    pub counts: Vec<[u8; 10]>,
    pub key: Vec<u64>,
    pub total: Vec<u8>,
    pub soft: Vec<bool>,
    pub ncards: Vec<u8>,
    /// `child[h][x]`: the hand `h` plus one card of index `x`, or [`NONE`].
    pub child: Vec<[u32; 10]>,
    /// Hand indices ordered by decreasing number of cards (children first).
    pub desc: Vec<u32>,
    /// Per card index: the hands holding at least one such card, with two
    /// or more cards, ordered by decreasing number of cards.
    pub with_card: [Vec<u32>; 10],
    map: FxHashMap<u64, u32>,
}

impl HandIndex {
    fn build() -> Self {
        let mut all: Vec<[u8; 10]> = Vec::new();
        let mut cur = [0u8; 10];
        enumerate(0, 0, &mut cur, &mut all);
        all.retain(|c| c.iter().any(|&x| x > 0));
        let n = all.len();
        let mut idx = HandIndex {
            counts: Vec::with_capacity(n),
            key: Vec::with_capacity(n),
            total: Vec::with_capacity(n),
            soft: Vec::with_capacity(n),
            ncards: Vec::with_capacity(n),
            child: vec![[NONE; 10]; n],
            desc: Vec::with_capacity(n),
            with_card: Default::default(),
            map: FxHashMap::default(),
        };
        for (i, c) in all.iter().enumerate() {
            let hard: u32 = c
                .iter()
                .enumerate()
                .map(|(r, &k)| u32::from(k) * (r as u32 + 1))
                .sum();
            let (total, soft) = best_total(hard, c[0] > 0);
            idx.counts.push(*c);
            idx.key.push(key_of(c));
            idx.total.push(total as u8);
            idx.soft.push(soft);
            idx.ncards.push(c.iter().sum());
            idx.map.insert(key_of(c), i as u32);
        }
        for i in 0..n {
            for x in 0..10 {
                if let Some(&j) = idx.map.get(&(idx.key[i] + key_unit(x))) {
                    idx.child[i][x] = j;
                }
            }
        }
        let mut desc: Vec<u32> = (0..n as u32).collect();
        desc.sort_by_key(|&h| std::cmp::Reverse(idx.ncards[h as usize]));
        for r in 0..10 {
            idx.with_card[r] = desc
                .iter()
                .copied()
                .filter(|&h| idx.counts[h as usize][r] > 0 && idx.ncards[h as usize] >= 2)
                .collect();
        }
        idx.desc = desc;
        idx
    }

    /// Index of the hand with these counts, if its hard total is <= 21.
    #[inline]
    pub(crate) fn find(&self, key: u64) -> Option<u32> {
        self.map.get(&key).copied()
    }

    /// Number of hands.
    pub(crate) fn len(&self) -> usize {
        self.counts.len()
    }
}

fn enumerate(rank: usize, hard: u32, cur: &mut [u8; 10], out: &mut Vec<[u8; 10]>) {
    if rank == 10 {
        out.push(*cur);
        return;
    }
    let v = rank as u32 + 1;
    let mut k = 0u8;
    while hard + u32::from(k) * v <= 21 {
        cur[rank] = k;
        enumerate(rank + 1, hard + u32::from(k) * v, cur, out);
        k += 1;
    }
    cur[rank] = 0;
}

/// The shared hand index (built once).
pub(crate) fn hands() -> &'static HandIndex {
    static INDEX: OnceLock<HandIndex> = OnceLock::new();
    INDEX.get_or_init(HandIndex::build)
}
