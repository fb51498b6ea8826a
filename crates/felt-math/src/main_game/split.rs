//! Exact pair splitting for a post-split strategy that depends only on each
//! hand's own cards and the number of pair cards removed (CDZ-, CDP1, CDP
//! and the total-dependent basic strategy).
//!
//! This is the algorithm of Eric Farmer's combinatorial analyser. For one
//! pair and up card let `S0` be the shoe after the pair and the up card,
//! with `n` cards of which `p` are pair cards. `X(a)` is the expected value
//! of one split hand (its pair card plus a second card drawn from `S0` less
//! `a` further pair cards, then played out without resplitting) and `P(a)`
//! the value of that hand when its second card is itself a pair card.
//!
//! * `EV[X; a, b]`: a hand whose second card is unrestricted, with `a` more
//!   pair cards and `b` unknown non-pair cards gone. Removing an unknown
//!   card does not change the value of a fixed strategy, so
//!   `EV[X; a, b-1] = v EV[X; a+1, b-1] + (1 - v) EV[X; a, b]`, `v` the
//!   chance the removed card is a pair card.
//! * `EV[N; a, b]`: the same hand conditioned on a non-pair second card,
//!   `EV[N; a, 0] = (X(a) - w P(a)) / (1 - w)` and the same recursion.
//!
//! The second cards are dealt hand after hand; a pair card starts a new
//! hand while fewer than `M` hands exist. Either the splitting stops with
//! `h < M` hands (all of them conditioned non-pair hands, `h - 2` extra pair
//! cards and the other `h - 1` second cards gone), or it reaches `M` hands
//! after `k` hands were completed: those `k` are non-pair hands and the other
//! `M - k` are unrestricted. The number of card orders of each case is a
//! ballot number; every order of the same cards is equally likely.

/// Falling factorial `x (x - 1) ... (x - k + 1)`, zero once a factor is not
/// positive (fewer cards than draws).
pub(crate) fn ff(x: f64, k: u32) -> f64 {
    let mut p = 1.0;
    for i in 0..k {
        let f = x - f64::from(i);
        if f <= 0.0 {
            return 0.0;
        }
        p *= f;
    }
    p
}

fn binom(n: i64, k: i64) -> f64 {
    if k < 0 || n < 0 || k > n {
        return 0.0;
    }
    let mut r = 1.0;
    for i in 0..k {
        r = r * (n - i) as f64 / (i + 1) as f64;
    }
    r
}

/// Orders of `h - 2` pair and `h` non-pair second cards that stop with
/// exactly `h` hands.
fn stop_orders(h: u32) -> f64 {
    let h = i64::from(h);
    binom(2 * h - 2, h - 2) / (h - 1) as f64
}

/// Orders reaching `m` hands with `k` hands completed first.
fn max_orders(m: u32, k: u32) -> f64 {
    if m == 2 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    let (u, k) = (i64::from(m) - 3, i64::from(k));
    binom(u + k, k) - binom(u + k, k - 2)
}

/// Probability of stopping with exactly `h < m` hands.
fn q(h: u32, n: f64, p: f64) -> f64 {
    let d = ff(n, 2 * h - 2);
    if d <= 0.0 {
        return 0.0;
    }
    stop_orders(h) * ff(p, h - 2) * ff(n - p, h) / d
}

/// Probability of reaching `m` hands after completing `k`.
fn r(m: u32, k: u32, n: f64, p: f64) -> f64 {
    let d = ff(n, m - 2 + k);
    if d <= 0.0 {
        return 0.0;
    }
    max_orders(m, k) * ff(p, m - 2) * ff(n - p, k) / d
}

/// Expected number of hands when a pair is split into at most `m` hands
/// and every further pair card is resplit.
pub(crate) fn expected_hands(m: u32, n: f64, p: f64) -> f64 {
    let mut e = 0.0;
    let mut stop = 0.0;
    for h in 2..m {
        let qh = q(h, n, p);
        e += f64::from(h) * qh;
        stop += qh;
    }
    e + f64::from(m) * (1.0 - stop)
}

/// `E[h (h - 1)]` for the number of hands `h` of a split (see
/// [`expected_hands`]).
pub(crate) fn hands_pairs(m: u32, n: f64, p: f64) -> f64 {
    let mut e = 0.0;
    let mut stop = 0.0;
    for h in 2..m {
        let qh = q(h, n, p);
        e += f64::from(h * (h - 1)) * qh;
        stop += qh;
    }
    e + f64::from(m * (m - 1)) * (1.0 - stop)
}

struct Ctx<'a> {
    n: f64,
    p: f64,
    x: &'a [f64],
    pv: &'a [f64],
}

impl Ctx<'_> {
    fn ev_x(&self, a: usize, b: usize) -> f64 {
        if b == 0 {
            return self.x.get(a).copied().unwrap_or(0.0);
        }
        let (af, bf) = (a as f64, b as f64);
        let left = self.n - af - bf + 1.0;
        let v = if left > 0.0 {
            (self.p - af).max(0.0) / left
        } else {
            0.0
        };
        if 1.0 - v <= 1e-12 {
            return 0.0;
        }
        let mut s = self.ev_x(a, b - 1);
        if v > 0.0 {
            s -= v * self.ev_x(a + 1, b - 1);
        }
        s / (1.0 - v)
    }

    fn ev_n(&self, a: usize, b: usize) -> f64 {
        let (af, bf) = (a as f64, b as f64);
        let left = self.n - af - bf;
        let v = if left > 0.0 {
            (self.p - af).max(0.0) / left
        } else {
            0.0
        };
        if 1.0 - v <= 1e-12 {
            return 0.0;
        }
        if b == 0 {
            let xa = self.x.get(a).copied().unwrap_or(0.0);
            let pa = self.pv.get(a).copied().unwrap_or(0.0);
            let s = if v > 0.0 { xa - v * pa } else { xa };
            return s / (1.0 - v);
        }
        let mut s = self.ev_n(a, b - 1);
        if v > 0.0 {
            s -= v * self.ev_n(a + 1, b - 1);
        }
        s / (1.0 - v)
    }
}

/// Number of `X(a)` / `P(a)` levels needed for at most `m` hands.
pub(crate) fn levels(m: u32) -> usize {
    (2 * m.saturating_sub(2)) as usize + 1
}

/// Sum of the expected values of all split hands (each hand's value as
/// given in `x` / `pv`, so any per-hand dealer-natural loss is counted once
/// per hand). `x[a]`, `pv[a]` for `a < levels(m)`; `m >= 2`.
pub(crate) fn split_sum(m: u32, n: f64, p: f64, x: &[f64], pv: &[f64]) -> f64 {
    let c = Ctx { n, p, x, pv };
    let mut total = 0.0;
    for h in 2..m {
        let w = q(h, n, p);
        if w > 0.0 {
            total += w * f64::from(h) * c.ev_n((h - 2) as usize, (h - 1) as usize);
        }
    }
    for k in 0..=m - 2 {
        let w = r(m, k, n, p);
        if w <= 0.0 {
            continue;
        }
        let mut s = f64::from(m - k) * c.ev_x((m - 2) as usize, k as usize);
        if k > 0 {
            s += f64::from(k) * c.ev_n((m - 2) as usize, (k - 1) as usize);
        }
        total += w * s;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct simulation of the second-card process over two card classes:
    /// the expected value of `f(number of hands)`.
    fn brute_f(m: u32, n: u32, p: u32, hands: u32, open: u32, f: fn(u32) -> f64) -> f64 {
        if open == 0 || hands == m {
            return f(hands);
        }
        let mut e = 0.0;
        if p > 0 {
            e += f64::from(p) / f64::from(n) * brute_f(m, n - 1, p - 1, hands + 1, open + 1, f);
        }
        if n > p {
            e += f64::from(n - p) / f64::from(n) * brute_f(m, n - 1, p, hands, open - 1, f);
        }
        e
    }

    fn brute(m: u32, n: u32, p: u32, hands: u32, open: u32) -> f64 {
        brute_f(m, n, p, hands, open, f64::from)
    }

    #[test]
    fn expected_hands_match_direct_process() {
        for m in 2..=8 {
            for (n, p) in [
                (20u32, 3u32),
                (49, 2),
                (10, 6),
                (300, 22),
                (30, 12),
                (16, 9),
            ] {
                let a = expected_hands(m, f64::from(n), f64::from(p));
                let b = brute(m, n, p, 2, 2);
                assert!((a - b).abs() < 1e-12, "m={m} n={n} p={p}: {a} vs {b}");
                let ones = vec![1.0; levels(m)];
                let s = split_sum(m, f64::from(n), f64::from(p), &ones, &ones);
                assert!((s - b).abs() < 1e-12, "sum m={m}: {s} vs {b}");
                let pairs = hands_pairs(m, f64::from(n), f64::from(p));
                let bp = brute_f(m, n, p, 2, 2, |h| f64::from(h * (h - 1)));
                assert!((pairs - bp).abs() < 1e-10, "pairs m={m}: {pairs} vs {bp}");
            }
        }
    }
}
