//! Exact integer accumulators for one wager and the statistics derived from them.
//!
//! Every sum is an integer (cents, counts), so merging chunks in any order gives the
//! same totals bit for bit; floats appear only when the report is made.

use serde::{Deserialize, Serialize};

/// Running sums for one wager over many rounds. One sample is one round: the
/// amount initially staked on the wager in that round (all spots) and its net result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetAccumulator {
    /// Rounds in which the wager was made.
    pub rounds: u64,
    /// Sum of initial stakes (cents).
    pub staked: i128,
    /// Sum of every amount wagered, doubles, splits and insurance included (cents).
    pub wagered: i128,
    /// Sum of net results for the player (cents).
    pub net: i128,
    /// Sum of squared net results per round.
    pub net_sq: i128,
    /// Sum of squared initial stakes per round.
    pub staked_sq: i128,
    /// Sum of net x stake per round.
    pub net_staked: i128,
    /// Times each pay line was hit (index = line index in the pay table).
    pub line_hits: Vec<u64>,
}

impl BetAccumulator {
    /// An empty accumulator with `lines` pay-line counters.
    pub fn new(lines: usize) -> Self {
        BetAccumulator {
            line_hits: vec![0; lines],
            ..Default::default()
        }
    }

    /// Records one round: initial stake, everything wagered, and the player's net (cents).
    #[inline]
    pub fn record(&mut self, staked: i64, wagered: i64, net: i64) {
        let (s, n) = (i128::from(staked), i128::from(net));
        self.rounds += 1;
        self.staked += s;
        self.wagered += i128::from(wagered);
        self.net += n;
        self.net_sq += n * n;
        self.staked_sq += s * s;
        self.net_staked += n * s;
    }

    /// Records a hit of pay line `line`.
    #[inline]
    pub fn hit(&mut self, line: usize) {
        if let Some(h) = self.line_hits.get_mut(line) {
            *h += 1;
        }
    }

    /// Adds another accumulator's sums to this one.
    pub fn merge(&mut self, o: &BetAccumulator) {
        self.rounds += o.rounds;
        self.staked += o.staked;
        self.wagered += o.wagered;
        self.net += o.net;
        self.net_sq += o.net_sq;
        self.staked_sq += o.staked_sq;
        self.net_staked += o.net_staked;
        if self.line_hits.len() < o.line_hits.len() {
            self.line_hits.resize(o.line_hits.len(), 0);
        }
        for (a, b) in self.line_hits.iter_mut().zip(&o.line_hits) {
            *a += b;
        }
    }

    /// The statistics of these sums.
    pub fn summary(&self) -> BetSummary {
        let n = self.rounds as f64;
        if self.rounds == 0 || self.staked == 0 {
            return BetSummary::default();
        }
        let staked = self.staked as f64;
        let net = self.net as f64;
        // House edge per unit initially staked: a ratio estimator -sum(net)/sum(stake).
        let edge = -net / staked;
        let mean_stake = staked / n;
        // Variance of the ratio estimator: Var(net_i + edge * stake_i) / (n * mean_stake^2).
        let e = edge;
        let sum_d2 =
            self.net_sq as f64 + 2.0 * e * self.net_staked as f64 + e * e * self.staked_sq as f64;
        let mean_d = (net + e * staked) / n; // zero up to rounding
        let var_d = ((sum_d2 / n) - mean_d * mean_d).max(0.0) * n / (n - 1.0).max(1.0);
        let se = (var_d / n).sqrt() / mean_stake;
        // Standard deviation of a round's result per unit of its stake.
        let mean_net = net / n;
        let var_net = ((self.net_sq as f64 / n) - mean_net * mean_net).max(0.0);
        BetSummary {
            rounds: self.rounds,
            staked: self.staked,
            wagered: self.wagered,
            net: self.net,
            house_edge: edge,
            se,
            ci95: [edge - 1.96 * se, edge + 1.96 * se],
            sd_per_round: var_net.sqrt() / mean_stake,
        }
    }
}

/// What the report says of one wager.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BetSummary {
    /// Rounds in which the wager was made.
    pub rounds: u64,
    /// Initial stakes, cents.
    pub staked: i128,
    /// Everything wagered (doubles, splits, insurance), cents.
    pub wagered: i128,
    /// Player's net result, cents.
    pub net: i128,
    /// House edge per unit initially staked (positive for the house).
    pub house_edge: f64,
    /// Standard error of the house edge.
    pub se: f64,
    /// 95% confidence interval of the house edge.
    pub ci95: [f64; 2],
    /// Standard deviation of a round's result per unit staked.
    pub sd_per_round: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_a_fair_coin_is_near_zero_with_unit_sd() {
        let mut a = BetAccumulator::new(1);
        for i in 0..10_000 {
            a.record(100, 100, if i % 2 == 0 { 100 } else { -100 });
        }
        let s = a.summary();
        assert!(s.house_edge.abs() < 1e-12);
        assert!((s.sd_per_round - 1.0).abs() < 1e-9);
        assert!((s.se - 0.01).abs() < 1e-4, "{}", s.se);
    }

    #[test]
    fn merge_is_order_independent() {
        let mut a = BetAccumulator::new(2);
        let mut b = BetAccumulator::new(2);
        a.record(100, 200, -200);
        a.hit(1);
        b.record(300, 300, 900);
        b.hit(0);
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab, ba);
        assert_eq!(ab.line_hits, vec![1, 1]);
        assert_eq!(ab.summary().house_edge, -700.0 / 400.0);
    }
}
