//! Risk of ruin (issue 15, item 6): the diffusion formulas against exact results
//! for a biased coin walk and against a published example.

use felt_math::risk::{normal_cdf, risk, RiskError};

/// A +1/-1 walk winning with probability p: the exact chance of losing `b` units
/// within `n` steps (dynamic programming over the positions).
fn exact_trip(p: f64, b: i64, n: usize) -> f64 {
    let width = (b as usize) + n + 1;
    let mut at = vec![0.0; width + n + 1]; // index = position + b; 0 = ruined
    at[b as usize] = 1.0;
    let mut ruined = 0.0;
    for _ in 0..n {
        let mut next = vec![0.0; at.len()];
        for (i, &m) in at.iter().enumerate().skip(1) {
            if m == 0.0 {
                continue;
            }
            if i + 1 < next.len() {
                next[i + 1] += m * p;
            }
            if i == 1 {
                ruined += m * (1.0 - p);
            } else {
                next[i - 1] += m * (1.0 - p);
            }
        }
        at = next;
    }
    ruined
}

#[test]
fn the_formulas_match_the_exact_coin_walk() {
    // p = 0.51: W = 0.02, S = sqrt(1 - W^2)
    let p = 0.51;
    let (w, s) = (2.0 * p - 1.0, (1.0 - (2.0 * p - 1.0f64).powi(2)).sqrt());
    let r = risk(w, s, 50.0, Some(3000), Some(50.0), None).unwrap();
    // for ever: (q/p)^B exactly
    let exact = ((1.0 - p) / p).powi(50);
    assert!(
        (r.ror - exact).abs() < 0.01 * exact + 1e-4,
        "{} against {exact}",
        r.ror
    );
    // before the goal: ((q/p)^B - (q/p)^(B+G)) / (1 - (q/p)^(B+G))
    let x = (1.0 - p) / p;
    let exact_goal = (x.powi(50) - x.powi(100)) / (1.0 - x.powi(100));
    let got = r.ror_goal.unwrap();
    assert!(
        (got - exact_goal).abs() < 0.01 * exact_goal,
        "{got} against {exact_goal}"
    );
    // within 3000 steps, against the walk counted step by step
    let exact_trip = exact_trip(p, 50, 3000);
    let got = r.ror_trip.unwrap();
    assert!(
        (got - exact_trip).abs() < 0.03 * exact_trip,
        "{got} against {exact_trip}"
    );
    assert!(got < r.ror);
}

/// Michael Hall, "Risk of Ruin" (Blackjack Review, revised 1/15/92), section I: a
/// win of 0.0151 units a hand, an average squared win of 3.887, a bankroll of 300
/// units played to double it: 9.0% (his biased-coin model; the diffusion formula
/// differs from it by less than 0.2 points).
#[test]
fn michael_halls_example() {
    let sd = (3.887f64 - 0.0151 * 0.0151).sqrt();
    let r = risk(0.0151, sd, 300.0, None, Some(300.0), None).unwrap();
    let got = r.ror_goal.unwrap() * 100.0;
    assert!((got - 9.0).abs() < 0.2, "{got}%");
}

#[test]
fn figures_of_merit_and_the_bankroll_for_a_risk_are_consistent() {
    let r = risk(0.01, 1.15, 500.0, None, None, Some(10.0)).unwrap();
    // N0 hands make the expected win equal to one standard deviation
    let n0 = r.n0.unwrap();
    assert!((0.01 * n0 - 1.15 * n0.sqrt()).abs() < 1e-9);
    assert!((r.score.unwrap() - r.di * r.di).abs() < 1e-9);
    // the bankroll for a risk gives that risk back
    for (k, v) in &r.bankroll_for_ror {
        let target: f64 = k.trim_end_matches('%').parse().unwrap();
        let back = risk(0.01, 1.15, v.unwrap(), None, None, None).unwrap().ror;
        assert!((back * 100.0 - target).abs() < 1e-9, "{k}");
    }
    assert!(r.bankroll_for_ror.contains_key("10%"));
    // SCORE: a $10,000 bankroll at exp(-2) risk bets 10000 / (S^2 / W) a unit
    let unit = 10_000.0 / r.bankroll_for_ror["13.5%"].unwrap() * (-(0.135f64).ln() / 2.0);
    assert!((100.0 * 0.01 * unit - r.score.unwrap()).abs() < 1e-6 * r.score.unwrap());
}

#[test]
fn no_edge_means_certain_ruin_in_the_long_run_and_no_bankroll() {
    let r = risk(-0.005, 1.1, 100.0, Some(100), Some(100.0), None).unwrap();
    assert_eq!(r.ror, 1.0);
    assert!(r.ror_trip.unwrap() < 0.5 && r.ror_goal.unwrap() > 0.5);
    assert!(r.bankroll_for_ror.values().all(Option::is_none));
    assert!(r.n0.is_none() && r.score.is_none() && r.di < 0.0);
    let even = risk(0.0, 1.0, 30.0, None, Some(10.0), None).unwrap();
    assert!((even.ror_goal.unwrap() - 10.0 / 40.0).abs() < 1e-12);
}

#[test]
fn bad_inputs_are_refused_naming_the_option() {
    let e = risk(0.01, 0.0, 100.0, None, None, None).unwrap_err();
    assert!(matches!(e, RiskError::Input { name: "--sd", .. }));
    let e = risk(f64::NAN, 1.0, 100.0, None, None, None).unwrap_err();
    assert!(matches!(e, RiskError::Input { name: "--win", .. }));
    let e = risk(0.01, 1.0, -1.0, None, None, None).unwrap_err();
    assert!(matches!(
        e,
        RiskError::Input {
            name: "--bankroll",
            ..
        }
    ));
    let e = risk(0.01, 1.0, 1.0, Some(0), None, None).unwrap_err();
    assert!(matches!(
        e,
        RiskError::Input {
            name: "--hands",
            ..
        }
    ));
    let e = risk(0.01, 1.0, 1.0, None, Some(0.0), None).unwrap_err();
    assert!(matches!(e, RiskError::Input { name: "--goal", .. }));
    let e = risk(0.01, 1.0, 1.0, None, None, Some(100.0)).unwrap_err();
    assert!(matches!(
        e,
        RiskError::Input {
            name: "--target",
            ..
        }
    ));
    // extreme but finite inputs give numbers in [0, 1], never NaN
    let r = risk(-1e6, 1e-9, 1e300, Some(u64::MAX), Some(1e300), None).unwrap();
    for v in [Some(r.ror), r.ror_trip, r.ror_goal] {
        let v = v.unwrap();
        assert!((0.0..=1.0).contains(&v), "{v}");
    }
}

#[test]
fn the_normal_distribution_function() {
    assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
    assert!((normal_cdf(1.959_963_985) - 0.975).abs() < 1e-7);
    assert!((normal_cdf(-3.0) - 0.001_349_898).abs() < 1e-7);
}
