//! The distributions the battery reads its p-values from, and the family-wise
//! correction that turns many p-values into one verdict.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// The upper tail `P(X >= x)` of a chi-square distribution with `df` degrees of freedom.
pub fn chi_square_upper(x: f64, df: f64) -> f64 {
    match ChiSquared::new(df) {
        Ok(d) => d.sf(x.max(0.0)),
        Err(_) => f64::NAN,
    }
}

/// The two-sided p-value of a standard normal statistic: `P(|Z| >= |z|)`.
pub fn normal_two_sided(z: f64) -> f64 {
    match Normal::new(0.0, 1.0) {
        Ok(d) => 2.0 * d.sf(z.abs()),
        Err(_) => f64::NAN,
    }
}

/// Pearson's statistic `sum (observed - expected)^2 / expected` over cells whose
/// expected counts are given.
pub fn pearson(observed: &[u64], expected: &[f64]) -> f64 {
    observed
        .iter()
        .zip(expected)
        .filter(|(_, &e)| e > 0.0)
        .map(|(&o, &e)| {
            let d = o as f64 - e;
            d * d / e
        })
        .sum()
}

/// Holm's step-down correction of Bonferroni's (Holm, 1979): which of `p_values` are
/// rejected at the family-wise level `alpha`. The smallest p-value is compared with
/// `alpha / m`, the next with `alpha / (m - 1)`, and so on, until one is not below its
/// bound; it and every larger one are kept. A NaN p-value counts as rejected.
pub fn holm(p_values: &[f64], alpha: f64) -> Vec<bool> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| {
        let (pa, pb) = (p_values[a], p_values[b]);
        pa.partial_cmp(&pb)
            .unwrap_or_else(|| pa.is_nan().cmp(&pb.is_nan()).reverse())
    });
    let mut rejected = vec![false; m];
    for (rank, &i) in order.iter().enumerate() {
        let p = p_values[i];
        if p.is_nan() || p < alpha / (m - rank) as f64 {
            rejected[i] = true;
        } else {
            break;
        }
    }
    rejected
}

/// Mean and sample standard deviation of values summed as they come.
#[derive(Debug, Clone, Copy, Default)]
pub struct Moments {
    n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Moments {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// How many values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Their mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        self.sum / self.n as f64
    }

    /// Their sample standard deviation (NaN with fewer than two).
    pub fn sd(&self) -> f64 {
        let n = self.n as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_tail_matches_tables() {
        // Standard tables: the 1% critical value is 6.635 at 1 df and 23.209 at 10 df.
        assert!((chi_square_upper(6.635, 1.0) - 0.01).abs() < 1e-4);
        assert!((chi_square_upper(23.209, 10.0) - 0.01).abs() < 1e-4);
        assert!((chi_square_upper(0.0, 5.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn normal_tail_matches_tables() {
        assert!((normal_two_sided(2.5758) - 0.01).abs() < 1e-4);
        assert!((normal_two_sided(-1.96) - 0.05).abs() < 1e-4);
    }

    #[test]
    fn holm_rejects_step_down() {
        // m = 4, alpha 0.05: bounds 0.0125, 0.0167, 0.025, 0.05.
        let r = holm(&[0.01, 0.04, 0.015, 0.5], 0.05);
        assert_eq!(r, vec![true, false, true, false]);
        // The first p-value not below its bound stops the rejections: 0.04 would be
        // below its own bound (0.05) but 0.03 is not below 0.025.
        assert_eq!(holm(&[0.04, 0.03], 0.05), vec![false, false]);
        assert_eq!(holm(&[0.04, 0.02], 0.05), vec![true, true]);
        assert_eq!(holm(&[f64::NAN, 0.9], 0.01), vec![true, false]);
    }

    #[test]
    fn moments_mean_and_sd() {
        let mut m = Moments::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        assert_eq!(m.count(), 8);
        assert!((m.mean() - 5.0).abs() < 1e-12);
        assert!((m.sd() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }
}
