//! The best simple count for a wager: small integer tags fitted to its effects of
//! removal.
//!
//! For each level L = 1, 2, 3 the tags are the effects of removal scaled so the
//! largest is L and rounded to integers (the usual way a count is derived from
//! EoRs); the fit kept is the level with the highest betting correlation, a higher
//! level only when it gains at least 0.01 (a simpler count is easier to keep).

use super::{betting_correlation, deck_sum, CountSystem};
use crate::eor::RankValues;
use serde::Serialize;

/// A fitted count and how well it correlates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FittedCount {
    /// The count (tags, balanced or not).
    pub count: CountSystem,
    /// Its level: the largest tag in absolute value.
    pub level: u8,
    /// Its betting correlation with the wager.
    pub bc: Option<f64>,
}

/// Fits the best simple count to a wager's effects of removal (`values` per card
/// value; `per_card` the 52 cards' own, used for the correlation). `name` names it.
pub fn best_simple_count(name: &str, values: &RankValues, per_card: &[Option<f64>]) -> FittedCount {
    let max = values.0.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut best: Option<FittedCount> = None;
    for level in 1..=3u8 {
        let tags: [f64; 10] = if max > 0.0 {
            std::array::from_fn(|v| (values.0[v] / max * f64::from(level)).round())
        } else {
            [0.0; 10]
        };
        let bc = betting_correlation(&tags, per_card);
        let count = CountSystem {
            name: format!("best for {name}"),
            tags,
            balanced: deck_sum(&tags).abs() < 1e-9,
            side_count: None,
        };
        let better = match &best {
            None => true,
            Some(b) => bc.unwrap_or(-1.0) >= b.bc.unwrap_or(-1.0) + 0.01,
        };
        if better {
            best = Some(FittedCount { count, level, bc });
        }
    }
    // the loop runs at least once
    best.unwrap_or_else(|| FittedCount {
        count: CountSystem {
            name: format!("best for {name}"),
            tags: [0.0; 10],
            balanced: true,
            side_count: None,
        },
        level: 0,
        bc: None,
    })
}
