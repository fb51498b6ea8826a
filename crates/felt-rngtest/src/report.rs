//! What the battery found: each test with its statistic, p-value and verdict, the
//! family's verdict under Holm's correction, and how random numbers become card
//! positions.

use crate::battery::ALPHA;
use crate::stats::{chi_square_upper, holm, normal_two_sided};
use serde::Serialize;

/// One test's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct TestResult {
    /// A short name, e.g. `position/Ah`, `runs/colour`.
    pub name: String,
    /// What it checks, in a sentence.
    pub what: String,
    /// The distribution the statistic is read against: `chi-square` or `normal`.
    pub distribution: &'static str,
    /// The statistic.
    pub statistic: f64,
    /// Degrees of freedom (chi-square only).
    pub df: Option<f64>,
    /// The p-value: how likely a statistic this far out is for a random shuffle.
    pub p_value: f64,
    /// Whether it passes alone at the 99% confidence level (`p >= 0.01`).
    pub passes: bool,
    /// Whether Holm's correction rejects it within the whole battery.
    pub rejected_in_family: bool,
}

impl TestResult {
    /// A chi-square test (upper tail).
    pub fn chi_square(name: String, what: String, statistic: f64, df: f64) -> TestResult {
        Self::with(
            name,
            what,
            "chi-square",
            statistic,
            Some(df),
            chi_square_upper(statistic, df),
        )
    }

    /// A standard normal test (two-sided).
    pub fn normal(name: String, what: String, z: f64) -> TestResult {
        Self::with(name, what, "normal", z, None, normal_two_sided(z))
    }

    fn with(
        name: String,
        what: String,
        distribution: &'static str,
        statistic: f64,
        df: Option<f64>,
        p_value: f64,
    ) -> TestResult {
        TestResult {
            name,
            what,
            distribution,
            statistic,
            df,
            p_value,
            passes: p_value >= ALPHA,
            rejected_in_family: false,
        }
    }
}

/// How felt turns random words into card positions, and why no position is favoured.
#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    /// The method.
    pub method: &'static str,
    /// Why it is unbiased.
    pub proof: &'static str,
    /// Where it is in the code and the test that checks it.
    pub code: &'static str,
}

/// The scaling felt's dealing path uses.
pub const SCALING: Scaling = Scaling {
    method: "Fisher-Yates from the last position, each index drawn by multiply-and-reject \
             (Lemire 2019), six indices to a 64-bit word (batched ranged random integers, \
             Brackett-Rozinsky and Lemire 2024)",
    proof: "a word w gives the indices of the mixed-radix digits of floor(w P / 2^64), P the \
            product of the bounds, and is drawn again when (w P mod 2^64) < (2^64 mod P). The \
            kept words form, for each tuple of indices, the multiples of P in an interval of \
            length P floor(2^64 / P): exactly floor(2^64 / P) words per tuple, so every tuple \
            (and every order of the shoe) is exactly equally likely. Bias: none.",
    code: "crates/felt-core/src/shoe.rs (below, fisher_yates_batched, fill_batch); checked by \
           its tests batched_words_are_the_mixed_radix_digits_and_rejection_is_exact and \
           below_rejects_exactly_the_uneven_words",
};

/// The whole battery's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Decks of each shoe.
    pub decks: u8,
    /// Shoes tested.
    pub shoes: u64,
    /// Seeds of the stream tested (32 bytes each).
    pub seeds: u64,
    /// The level each test is read at.
    pub alpha: f64,
    /// The multiple-test correction of the family's verdict.
    pub correction: &'static str,
    /// Every test.
    pub tests: Vec<TestResult>,
    /// Tests failing alone at the 99% level (about 1% of them fail by chance).
    pub failed_alone: usize,
    /// Tests the correction rejects.
    pub rejected: usize,
    /// Whether the battery passes: no test rejected at the family-wise 1% level.
    pub passes: bool,
    /// How felt's dealing path turns random numbers into positions (`None` for a
    /// source that is not felt's own, such as a planted one).
    pub scaling: Option<Scaling>,
    /// What limits the reading, e.g. too few shoes for the expected counts.
    pub warnings: Vec<String>,
}

impl Report {
    /// The report of `tests` on `shoes` shoes of `decks` decks and `seeds` seeds.
    pub fn new(decks: u8, shoes: u64, seeds: u64, mut tests: Vec<TestResult>) -> Report {
        let p: Vec<f64> = tests.iter().map(|t| t.p_value).collect();
        for (t, rejected) in tests.iter_mut().zip(holm(&p, ALPHA)) {
            t.rejected_in_family = rejected;
        }
        let mut warnings = Vec::new();
        // The smallest expected count of a cell is that of a position (N / 52) or of
        // a rank pair; below 5 the chi-square reading is not to be trusted.
        if shoes > 0 && (shoes as f64) / 120.0 < 5.0 {
            warnings.push(format!(
                "{shoes} shoes give fewer than 5 expected counts in some cells (the \
                 permutation test needs 600 shoes, the others fewer): run more shuffles"
            ));
        }
        let failed_alone = tests.iter().filter(|t| !t.passes).count();
        let rejected = tests.iter().filter(|t| t.rejected_in_family).count();
        Report {
            decks,
            shoes,
            seeds,
            alpha: ALPHA,
            correction: "Holm-Bonferroni (step-down) over every test of the battery",
            passes: rejected == 0 && !tests.is_empty(),
            tests,
            failed_alone,
            rejected,
            scaling: Some(SCALING),
            warnings,
        }
    }

    /// The report as text for a terminal: every test but the 52 per-card position
    /// tests, which are summed up in one line (`--json` lists them all).
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} shoe(s) of {} deck(s), {} seed(s) of 32 bytes; each test at the 99% level",
            self.shoes, self.decks, self.seeds
        );
        let _ = writeln!(s);
        let verdict = |t: &TestResult| match (t.passes, t.rejected_in_family) {
            (_, true) => "FAIL",
            (false, false) => "low (chance)",
            (true, false) => "pass",
        };
        let cards: Vec<&TestResult> = self
            .tests
            .iter()
            .filter(|t| t.name.starts_with("position/") && t.name != "position/all")
            .collect();
        if !cards.is_empty() {
            let lowest = cards
                .iter()
                .min_by(|a, b| a.p_value.total_cmp(&b.p_value))
                .map_or(f64::NAN, |t| t.p_value);
            let alone = cards.iter().filter(|t| !t.passes).count();
            let family = cards.iter().filter(|t| t.rejected_in_family).count();
            let _ = writeln!(
                s,
                "  {:<28} {:>3} cards, lowest p {lowest:.4}, {alone} below 0.01 alone, {family} rejected",
                "position/each card",
                cards.len()
            );
        }
        for t in self
            .tests
            .iter()
            .filter(|t| !cards.iter().any(|c| c.name == t.name))
        {
            let stat = match t.df {
                Some(df) => format!("chi2 {:.1} ({df} df)", t.statistic),
                None => format!("z {:+.3}", t.statistic),
            };
            let _ = writeln!(
                s,
                "  {:<28} {:<24} p {:.4}  {}",
                t.name,
                stat,
                t.p_value,
                verdict(t)
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{} test(s): {} below 0.01 alone, {} rejected by {}",
            self.tests.len(),
            self.failed_alone,
            self.rejected,
            self.correction
        );
        let _ = writeln!(
            s,
            "Verdict: {}",
            if self.passes {
                "PASS - no evidence against a uniformly random shuffle at the 1% family-wise level"
            } else {
                "FAIL - the shuffle departs from a uniformly random one"
            }
        );
        if let Some(scaling) = &self.scaling {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "Scaling of random numbers to positions: {}.",
                scaling.method
            );
            let _ = writeln!(s, "Why unbiased: {}", scaling.proof);
            let _ = writeln!(s, "Code: {}", scaling.code);
        }
        for w in &self.warnings {
            let _ = writeln!(s, "Warning: {w}");
        }
        s
    }
}
