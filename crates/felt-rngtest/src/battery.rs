//! The battery: counts gathered shoe by shoe (memory bounded by the shoe's size, not by
//! the number of shoes), then each test's statistic, p-value and verdict.
//!
//! Every expected count is exact for a uniformly random order of the shoe's cards (D
//! full decks, so each of the 52 cards appears D times). Where positions of the same
//! shoe are not independent (a card at one position is not at another), the statistic
//! is scaled so that it has the chi-square distribution it is read against: see
//! [`Battery::finish`].

use crate::report::{Report, TestResult};
use crate::stats::{pearson, Moments};
use felt_core::{Card, Rank, Suit};

/// The confidence level every test is read at: a p-value below 1% fails it.
pub const ALPHA: f64 = 0.01;

/// Lags of the serial correlation test.
const LAGS: [usize; 3] = [1, 2, 3];

/// The cards whose relative order the permutation test reads: the ace to the five of
/// spades (the order of their first copies in the shoe).
const PERMUTED: [Rank; 5] = [Rank::Ace, Rank::Two, Rank::Three, Rank::Four, Rank::Five];

/// Why a shoe cannot be tested.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShoeError {
    /// It does not hold every card of its decks exactly once a deck.
    #[error("a shoe of {decks} deck(s) must hold 52 x {decks} cards, each card {decks} time(s): {found}")]
    NotFullDecks {
        /// The decks the battery was set up for.
        decks: u8,
        /// What is wrong with it.
        found: String,
    },
}

/// Counts from the shoes and seeds seen so far.
pub struct Battery {
    decks: u8,
    positions: usize,
    shoes: u64,
    /// `[card][position]`: how often each of the 52 cards lay at each position.
    at: Vec<u64>,
    /// Rank pairs (13 x 13) at each tested pair of adjacent positions.
    pairs: Vec<(usize, Vec<u64>)>,
    serial: [Moments; LAGS.len()],
    runs_colour: Moments,
    runs_low: Moments,
    /// The first card (52 cards).
    first: Vec<u64>,
    /// The first two cards' blackjack values, unordered (index `value_pair`).
    first_two: Vec<u64>,
    /// Permutations of [`PERMUTED`] (5! = 120), by Lehmer rank.
    permutations: Vec<u64>,
    /// The same, of one-deck shoes shuffled from the same seeds (see
    /// [`Battery::add_one_deck_shoe`]).
    one_deck_permutations: Vec<u64>,
    one_deck_shoes: u64,
    /// The seed stream: bytes, bits and the runs of its bits.
    seed_bytes: Vec<u64>,
    seed_ones: u64,
    seed_bits: u64,
    seed_runs: u64,
    seed_last_bit: Option<bool>,
}

impl Battery {
    /// An empty battery for shoes of `decks` decks (1..=8).
    pub fn new(decks: u8) -> Battery {
        let decks = decks.clamp(1, 8);
        let positions = 52 * usize::from(decks);
        let pairs = [0, positions / 2 - 1, positions - 2]
            .into_iter()
            .map(|p| (p, vec![0; 13 * 13]))
            .collect();
        Battery {
            decks,
            positions,
            shoes: 0,
            at: vec![0; 52 * positions],
            pairs,
            serial: [Moments::default(); LAGS.len()],
            runs_colour: Moments::default(),
            runs_low: Moments::default(),
            first: vec![0; 52],
            first_two: vec![0; 55],
            permutations: vec![0; 120],
            one_deck_permutations: vec![0; 120],
            one_deck_shoes: 0,
            seed_bytes: vec![0; 256],
            seed_ones: 0,
            seed_bits: 0,
            seed_runs: 0,
            seed_last_bit: None,
        }
    }

    /// The decks of the shoes it takes.
    pub fn decks(&self) -> u8 {
        self.decks
    }

    /// Shoes counted so far.
    pub fn shoes(&self) -> u64 {
        self.shoes
    }

    /// Counts one shoe, in dealing order. A shoe that is not exactly its decks' cards
    /// is refused and changes nothing.
    pub fn add_shoe(&mut self, shoe: &[Card]) -> Result<(), ShoeError> {
        self.check_composition(shoe)?;
        self.shoes += 1;
        for (p, c) in shoe.iter().enumerate() {
            self.at[c.index() * self.positions + p] += 1;
        }
        for (p, counts) in &mut self.pairs {
            counts[rank_index(shoe[*p]) * 13 + rank_index(shoe[*p + 1])] += 1;
        }
        let ranks: Vec<f64> = shoe.iter().map(|c| f64::from(c.rank as u8)).collect();
        for (lag, m) in LAGS.iter().zip(&mut self.serial) {
            m.add(serial_correlation(&ranks, *lag));
        }
        self.runs_colour
            .add(runs_z(shoe.iter().map(|c| c.suit.is_red())));
        self.runs_low
            .add(runs_z(shoe.iter().map(|c| (2..=6).contains(&c.value()))));
        self.first[shoe[0].index()] += 1;
        self.first_two[value_pair(shoe[0].value(), shoe[1].value())] += 1;
        self.permutations[permutation_rank(shoe)] += 1;
        Ok(())
    }

    /// Counts, for the permutation test of a one-deck game, the order of the five
    /// cards in a one-deck shoe; a shoe that is not one full deck is ignored.
    pub fn add_one_deck_shoe(&mut self, shoe: &[Card]) {
        let mut seen = [false; 52];
        if shoe.len() != 52
            || !shoe
                .iter()
                .all(|c| !std::mem::replace(&mut seen[c.index()], true))
        {
            return;
        }
        self.one_deck_shoes += 1;
        self.one_deck_permutations[permutation_rank(shoe)] += 1;
    }

    /// Counts one seed of the stream the shoes were shuffled from.
    pub fn add_seed(&mut self, seed: &[u8; 32]) {
        for &byte in seed {
            self.seed_bytes[usize::from(byte)] += 1;
            for bit in (0..8).rev().map(|k| byte >> k & 1 == 1) {
                self.seed_bits += 1;
                self.seed_ones += u64::from(bit);
                if self.seed_last_bit != Some(bit) {
                    self.seed_runs += 1;
                }
                self.seed_last_bit = Some(bit);
            }
        }
    }

    fn check_composition(&self, shoe: &[Card]) -> Result<(), ShoeError> {
        let wrong = |found: String| ShoeError::NotFullDecks {
            decks: self.decks,
            found,
        };
        if shoe.len() != self.positions {
            return Err(wrong(format!("{} cards", shoe.len())));
        }
        let mut seen = [0u8; 52];
        for c in shoe {
            seen[c.index()] += 1;
        }
        match seen.iter().position(|&n| n != self.decks) {
            Some(i) => Err(wrong(format!(
                "{} appears {} time(s)",
                Card::from_index(i).map_or_else(String::new, |c| c.to_string()),
                seen[i]
            ))),
            None => Ok(()),
        }
    }

    /// Every test's statistic, p-value and verdict, and the family's verdict.
    ///
    /// The position test of one card: over N shoes the card's D copies fall on D
    /// distinct positions of P, so its counts have `E = N D / P` and a covariance that
    /// is `(P - D) / (P - 1)` times a multinomial's: Pearson's statistic times
    /// `(P - 1) / (P - D)` is read as chi-square with `P - 1` degrees of freedom. The
    /// whole card-by-position table has both margins fixed in every shoe; its
    /// statistic times `(P - 1) / P` is read as chi-square with `51 (P - 1)` degrees of
    /// freedom. Each other test reads one draw per shoe (a multinomial) or a per-shoe
    /// statistic of known mean, averaged over the shoes.
    pub fn finish(&self) -> Report {
        let mut tests = Vec::new();
        if self.shoes > 0 {
            self.position_tests(&mut tests);
            self.pair_tests(&mut tests);
            self.serial_tests(&mut tests);
            self.runs_tests(&mut tests);
            self.first_card_tests(&mut tests);
            tests.push(permutation_test(
                "permutation/5-cards",
                "the shoe reduced to five cards (the first ace to five of spades)",
                &self.permutations,
            ));
        }
        if self.one_deck_shoes > 0 {
            tests.push(permutation_test(
                "permutation/one-deck-5-cards",
                "a one-deck game reduced to five cards (ace to five of spades)",
                &self.one_deck_permutations,
            ));
        }
        if self.seed_bits > 0 {
            self.seed_tests(&mut tests);
        }
        Report::new(self.decks, self.shoes, self.seed_bits / 256, tests)
    }

    fn position_tests(&self, tests: &mut Vec<TestResult>) {
        let (p, d, n) = (
            self.positions as f64,
            f64::from(self.decks),
            self.shoes as f64,
        );
        let expected = vec![n * d / p; self.positions];
        let mut total = 0.0;
        for card in 0..52 {
            let row = &self.at[card * self.positions..(card + 1) * self.positions];
            let x = pearson(row, &expected);
            total += x;
            let scaled = x * (p - 1.0) / (p - d);
            tests.push(TestResult::chi_square(
                format!("position/{}", card_name(card)),
                format!("each position equally likely for {}", card_name(card)),
                scaled,
                p - 1.0,
            ));
        }
        tests.push(TestResult::chi_square(
            "position/all".into(),
            "the card-by-position table: every card equally likely at every position".into(),
            total * (p - 1.0) / p,
            51.0 * (p - 1.0),
        ));
    }

    fn pair_tests(&self, tests: &mut Vec<TestResult>) {
        let (p, c, n) = (
            self.positions as f64,
            4.0 * f64::from(self.decks),
            self.shoes as f64,
        );
        for (at, counts) in &self.pairs {
            let expected: Vec<f64> = (0..13 * 13)
                .map(|i| {
                    let same = if i / 13 == i % 13 { 1.0 } else { 0.0 };
                    n * c * (c - same) / (p * (p - 1.0))
                })
                .collect();
            tests.push(TestResult::chi_square(
                format!("adjacent-pair/{}-{}", at + 1, at + 2),
                format!(
                    "the ranks at positions {} and {} independent (13 x 13 pairs)",
                    at + 1,
                    at + 2
                ),
                pearson(counts, &expected),
                168.0,
            ));
        }
    }

    fn serial_tests(&self, tests: &mut Vec<TestResult>) {
        let expected = -1.0 / (self.positions as f64 - 1.0);
        for (lag, m) in LAGS.iter().zip(&self.serial) {
            let z = (m.mean() - expected) / (m.sd() / (m.count() as f64).sqrt());
            tests.push(TestResult::normal(
                format!("serial-correlation/lag-{lag}"),
                format!(
                    "the correlation of ranks {lag} position(s) apart equals a random \
                     order's ({expected:.5})"
                ),
                z,
            ));
        }
    }

    fn runs_tests(&self, tests: &mut Vec<TestResult>) {
        for (name, what, m) in [
            (
                "runs/colour",
                "runs of red and black cards",
                &self.runs_colour,
            ),
            (
                "runs/low-high",
                "runs of low cards (2 to 6) and others",
                &self.runs_low,
            ),
        ] {
            // Each shoe's z has mean 0 and variance 1 exactly (Wald and Wolfowitz's
            // moments for a random order of fixed counts): their sum over N shoes
            // divided by the root of N is standard normal.
            let z = m.mean() * (m.count() as f64).sqrt();
            tests.push(TestResult::normal(
                name.into(),
                format!("{what}: as many as a random order gives"),
                z,
            ));
        }
    }

    fn first_card_tests(&self, tests: &mut Vec<TestResult>) {
        let n = self.shoes as f64;
        tests.push(TestResult::chi_square(
            "first-card".into(),
            "the shoe's first card: each of the 52 equally likely".into(),
            pearson(&self.first, &vec![n / 52.0; 52]),
            51.0,
        ));
        let p = self.positions as f64;
        let mut values = vec![0u64; 10];
        for (card, &n) in self.first.iter().enumerate() {
            if let Some(c) = Card::from_index(card) {
                values[usize::from(c.value()) - 1] += n;
            }
        }
        let expected: Vec<f64> = (1..=10)
            .map(|v| n * if v == 10 { 16.0 } else { 4.0 } / 52.0)
            .collect();
        tests.push(TestResult::chi_square(
            "first-card-value".into(),
            "the first card's value (ace, 2 to 9, ten-valued) as the shoe's composition gives"
                .into(),
            pearson(&values, &expected),
            9.0,
        ));
        let count = |v: u8| f64::from(self.decks) * if v == 10 { 16.0 } else { 4.0 };
        let mut expected = vec![0.0; 55];
        for u in 1..=10u8 {
            for w in u..=10u8 {
                let ways = if u == w {
                    count(u) * (count(u) - 1.0)
                } else {
                    2.0 * count(u) * count(w)
                };
                expected[value_pair(u, w)] = n * ways / (p * (p - 1.0));
            }
        }
        tests.push(TestResult::chi_square(
            "first-two-cards".into(),
            "the first two cards' values (55 unordered pairs) as the shoe's composition gives"
                .into(),
            pearson(&self.first_two, &expected),
            54.0,
        ));
    }

    fn seed_tests(&self, tests: &mut Vec<TestResult>) {
        let n = self.seed_bits as f64;
        let ones = self.seed_ones as f64;
        tests.push(TestResult::normal(
            "seed/bits".into(),
            "the seeds' bits: as many ones as zeros (NIST SP 800-22 frequency)".into(),
            (2.0 * ones - n) / n.sqrt(),
        ));
        let bytes = n / 8.0;
        tests.push(TestResult::chi_square(
            "seed/bytes".into(),
            "the seeds' bytes: each of the 256 values equally likely".into(),
            pearson(&self.seed_bytes, &vec![bytes / 256.0; 256]),
            255.0,
        ));
        // NIST SP 800-22 runs test: given the share of ones, the number of runs.
        let pi = ones / n;
        let z = if (pi - 0.5).abs() >= 2.0 / n.sqrt() {
            f64::INFINITY
        } else {
            (self.seed_runs as f64 - 2.0 * n * pi * (1.0 - pi)) / (2.0 * n.sqrt() * pi * (1.0 - pi))
        };
        tests.push(TestResult::normal(
            "seed/runs".into(),
            "the seeds' bits: runs of equal bits as a random stream gives (NIST SP 800-22 runs)"
                .into(),
            z,
        ));
    }
}

/// The permutation test: each of the 120 orders of five cards equally likely.
fn permutation_test(name: &str, what: &str, counts: &[u64]) -> TestResult {
    let n = counts.iter().sum::<u64>() as f64;
    TestResult::chi_square(
        name.into(),
        format!("{what}: each of their 120 orders equally likely"),
        pearson(counts, &vec![n / 120.0; 120]),
        119.0,
    )
}

/// The rank's place 0..13 (ace 0, king 12).
fn rank_index(c: Card) -> usize {
    usize::from(c.rank as u8 - 1)
}

/// The place of the unordered pair of values `u`, `w` (1..=10) among the 55.
fn value_pair(u: u8, w: u8) -> usize {
    let (a, b) = (usize::from(u.min(w)) - 1, usize::from(u.max(w)) - 1);
    // Pairs (a, b) with a <= b, row by row: row a starts after 10 + 9 + ... entries.
    a * 10 - a * (a.saturating_sub(1)) / 2 + (b - a)
}

/// The lag-`lag` serial correlation of one shoe's values: the mean product of
/// deviations `lag` apart over the shoe's variance. Its expected value for a random
/// order is `-1 / (P - 1)` whatever the lag.
fn serial_correlation(x: &[f64], lag: usize) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let cov = x
        .windows(lag + 1)
        .map(|w| (w[0] - mean) * (w[lag] - mean))
        .sum::<f64>()
        / (x.len() - lag) as f64;
    cov / var
}

/// The runs of a two-kind sequence as a z-score of Wald and Wolfowitz's exact mean
/// and variance for a random order of the same counts.
fn runs_z(kinds: impl Iterator<Item = bool>) -> f64 {
    let (mut n1, mut n2, mut runs, mut last) = (0.0f64, 0.0f64, 0.0f64, None);
    for k in kinds {
        if k {
            n1 += 1.0;
        } else {
            n2 += 1.0;
        }
        if last != Some(k) {
            runs += 1.0;
        }
        last = Some(k);
    }
    let n = n1 + n2;
    let mean = 1.0 + 2.0 * n1 * n2 / n;
    let var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0));
    (runs - mean) / var.sqrt()
}

/// The Lehmer rank (0..120) of the order in which the first copies of [`PERMUTED`]
/// (spades) appear in the shoe.
fn permutation_rank(shoe: &[Card]) -> usize {
    let wanted: Vec<Card> = PERMUTED
        .iter()
        .map(|&r| Card::new(r, Suit::Spades))
        .collect();
    let mut order: Vec<usize> = Vec::with_capacity(wanted.len());
    for c in shoe {
        if let Some(i) = wanted.iter().position(|w| w == c) {
            if !order.contains(&i) {
                order.push(i);
            }
        }
    }
    let mut rank = 0;
    for (k, &i) in order.iter().enumerate() {
        let smaller_after = order[k + 1..].iter().filter(|&&j| j < i).count();
        rank = rank * (wanted.len() - k) + smaller_after;
    }
    rank
}

fn card_name(index: usize) -> String {
    Card::from_index(index).map_or_else(|| index.to_string(), |c| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_pairs_are_the_55_places() {
        let mut seen = std::collections::BTreeSet::new();
        for u in 1..=10 {
            for w in u..=10 {
                assert_eq!(value_pair(u, w), value_pair(w, u));
                seen.insert(value_pair(u, w));
            }
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            (0..55).collect::<Vec<_>>()
        );
    }

    #[test]
    fn lehmer_ranks_cover_the_120_orders() {
        let mut seen = std::collections::BTreeSet::new();
        let spade = |r| Card::new(r, Suit::Spades);
        // Every order of the five cards, by Heap's-free brute force over indices.
        for a in 0..5 {
            for b in 0..5 {
                for c in 0..5 {
                    for d in 0..5 {
                        for e in 0..5 {
                            let o = [a, b, c, d, e];
                            if (0..5).all(|k| o.contains(&k)) {
                                let shoe: Vec<Card> =
                                    o.iter().map(|&i| spade(PERMUTED[i])).collect();
                                seen.insert(permutation_rank(&shoe));
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(seen.len(), 120);
        assert_eq!(*seen.iter().max().unwrap(), 119);
    }

    #[test]
    fn runs_z_of_alternating_and_blocked_orders() {
        // Twenty alternating: the most runs possible, far above the mean.
        assert!(runs_z((0..20).map(|i| i % 2 == 0)) > 3.0);
        // Two blocks: the fewest.
        assert!(runs_z((0..20).map(|i| i < 10)) < -3.0);
    }

    #[test]
    fn a_shoe_of_the_wrong_cards_is_refused_and_counts_nothing() {
        let mut b = Battery::new(1);
        let mut shoe: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
        shoe[0] = shoe[1];
        assert!(matches!(
            b.add_shoe(&shoe),
            Err(ShoeError::NotFullDecks { .. })
        ));
        assert!(b.add_shoe(&shoe[..51]).is_err());
        assert_eq!(b.shoes(), 0);
        assert!(b.finish().tests.is_empty());
    }
}
