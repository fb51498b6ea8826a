//! Risk of ruin by the diffusion (Brownian motion with drift) formulas of
//! *Blackjack Attack* (Schlesinger), and the figures of merit N0, DI and SCORE.
//!
//! With a win of `W` units a hand, a standard deviation of `S` units a hand and a
//! bankroll of `B` units, and `a = 2W / S^2`:
//!
//! - risk of ruin, playing for ever: `exp(-a B)` (1 when `W <= 0`);
//! - within `N` hands (a trip): `Phi((-B - W N) / (S sqrt N)) + exp(-a B) Phi((-B + W N) / (S sqrt N))`;
//! - before winning a goal `G`: `(1 - exp(-a G)) / (exp(a B) - exp(-a G))`, and
//!   `G / (B + G)` when `W = 0`;
//! - the bankroll for a risk `r`: `-ln(r) / a` (none when `W <= 0`);
//! - `N0 = (S / W)^2`, `DI = 1000 W / S`, `SCORE = 10^6 (W / S)^2` (the win per 100
//!   hands of a player betting a $10,000 bankroll at the 13.5% risk, `exp(-2)`).

use serde::Serialize;

/// Why risk figures cannot be given for these inputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RiskError {
    /// An input is not a finite number, or out of its range.
    #[error("{name} = {value}: {what}")]
    Input {
        /// The input's option name, e.g. `--sd`.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        what: &'static str,
    },
}

/// The risk targets `bankroll_for_ror` always reports, in percent.
pub const TARGETS: [f64; 5] = [0.5, 1.0, 2.0, 5.0, 13.5];

/// What `felt risk` reports; a figure the inputs do not ask for is `None`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    /// Risk of ruin playing for ever.
    pub ror: f64,
    /// Risk of ruin within the given number of hands.
    pub ror_trip: Option<f64>,
    /// Risk of ruin before winning the goal.
    pub ror_goal: Option<f64>,
    /// Bankroll (units) for each target risk, keyed `"1%"`; empty without an edge.
    pub bankroll_for_ror: std::collections::BTreeMap<String, Option<f64>>,
    /// Hands to overcome one standard deviation, `(S / W)^2`; `None` without an edge.
    pub n0: Option<f64>,
    /// Desirability index, `1000 W / S`.
    pub di: f64,
    /// SCORE, `10^6 (W / S)^2` for a positive edge; `None` otherwise.
    pub score: Option<f64>,
}

fn check(name: &'static str, v: f64, ok: bool, what: &'static str) -> Result<f64, RiskError> {
    if v.is_finite() && ok {
        Ok(v)
    } else {
        Err(RiskError::Input {
            name,
            value: v,
            what,
        })
    }
}

/// The standard normal distribution function, from the complementary error
/// function below (absolute error under 1e-7).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' `erfcc`, relative error
/// below 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The risk figures for a win `win` and standard deviation `sd` a hand (units),
/// a bankroll `bankroll` (units), optionally within `hands` hands and before a
/// `goal` (units).
pub fn risk(
    win: f64,
    sd: f64,
    bankroll: f64,
    hands: Option<u64>,
    goal: Option<f64>,
    extra_target: Option<f64>,
) -> Result<Risk, RiskError> {
    let w = check("--win", win, win.abs() <= 1e6, "a finite win per hand")?;
    let s = check(
        "--sd",
        sd,
        sd > 0.0 && sd <= 1e6,
        "a positive standard deviation per hand",
    )?;
    let b = check(
        "--bankroll",
        bankroll,
        bankroll > 0.0,
        "a positive bankroll in units",
    )?;
    let g = goal
        .map(|g| check("--goal", g, g > 0.0, "a positive win goal in units"))
        .transpose()?;
    let n = match hands {
        Some(0) => {
            return Err(RiskError::Input {
                name: "--hands",
                value: 0.0,
                what: "at least one hand",
            })
        }
        h => h.map(|h| h as f64),
    };
    let t = extra_target
        .map(|t| {
            check(
                "--target",
                t,
                t > 0.0 && t < 100.0,
                "a risk in percent, above 0 and below 100",
            )
        })
        .transpose()?;
    let a = 2.0 * w / (s * s);
    let ror = if w > 0.0 { (-a * b).exp() } else { 1.0 };
    let ror_trip = n.map(|n| {
        let sn = s * n.sqrt();
        let first = normal_cdf((-b - w * n) / sn);
        // exp(-aB) Phi(...) can be inf x 0 for a large negative edge: the second
        // term is then the mirror of the first and the sum is taken as at most 1
        let second = (-a * b).exp() * normal_cdf((-b + w * n) / sn);
        let v = first + if second.is_finite() { second } else { 0.0 };
        v.clamp(0.0, 1.0)
    });
    let ror_goal = g.map(|g| {
        if a.abs() < 1e-15 {
            g / (b + g)
        } else {
            // (1 - e^{-aG}) / (e^{aB} - e^{-aG}) written to stay finite for either sign
            let num = -(-a * g).exp_m1();
            let den = (a * b).exp() - (-a * g).exp();
            let v = num / den;
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                // overflow: a large edge either way decides the race
                f64::from(u8::from(a < 0.0))
            }
        }
    });
    let mut targets: Vec<f64> = TARGETS.to_vec();
    if let Some(t) = t {
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    let bankroll_for_ror = targets
        .iter()
        .map(|&p| (format!("{p}%"), (w > 0.0).then(|| -(p / 100.0).ln() / a)))
        .collect();
    let ratio = w / s;
    Ok(Risk {
        ror,
        ror_trip,
        ror_goal,
        bankroll_for_ror,
        n0: (w > 0.0).then(|| 1.0 / (ratio * ratio)),
        di: 1000.0 * ratio,
        score: (w > 0.0).then_some(1e6 * ratio * ratio),
    })
}
