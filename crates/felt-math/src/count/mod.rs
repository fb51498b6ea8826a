//! Card counting systems as data (`counts/*.toml`), their betting correlation with
//! a wager's exact effects of removal, and the best simple count for a wager.
//!
//! A count file holds a name, a tag per card value (A, 2..9, T; integers or
//! decimals such as Wong Halves' 0.5), whether it is balanced (checked: a deck's
//! tags, `4 x (A..9) + 16 x T`, must sum to zero when the file says so), and an
//! optional side count (`ranks` and the `betting_tag` those cards take in the
//! betting count when the side count is folded in, e.g. Hi-Opt II's aces).
//!
//! **Betting correlation** (Griffin, *The Theory of Blackjack*): the Pearson
//! correlation, over the cards of a deck, between a card's tag and its effect of
//! removal on the wager. Where a bet tells suits or faces apart, the 52 cards' own
//! effects are used (a count cannot see a suit, so Lucky Ladies' queen of hearts
//! lowers every count's correlation); otherwise the tens are the sixteen cards of
//! value T. Unbalanced counts are correlated like any other (the correlation
//! subtracts the mean tag), as Griffin does for them.

mod fit;
mod parse;

pub use fit::{best_simple_count, FittedCount};
pub use parse::{parse, CountError, CountProblem, LABELS, MAX_COUNT_FILE};

use crate::eor::{CardValues, EorReport, RankValues};
use serde::Serialize;

/// A side count kept beside the main count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideCount {
    /// The card values counted on the side (0 = A ..= 9 = T).
    pub ranks: Vec<usize>,
    /// The tag the side-counted cards take in the betting count when the side
    /// count is folded in.
    pub betting_tag: f64,
}

/// A card counting system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountSystem {
    /// Its name, e.g. `Hi-Lo`.
    pub name: String,
    /// Tags of A, 2, ..., 9, T.
    pub tags: [f64; 10],
    /// A deck's tags sum to zero.
    pub balanced: bool,
    /// An optional side count.
    pub side_count: Option<SideCount>,
}

/// The sum of a deck's tags: four cards of each value A..9, sixteen tens.
pub fn deck_sum(tags: &[f64; 10]) -> f64 {
    tags.iter()
        .enumerate()
        .map(|(v, t)| if v == 9 { 16.0 * t } else { 4.0 * t })
        .sum()
}

/// The preset counts, by file name (without `.toml`), in a fixed order.
pub const PRESETS: [(&str, &str); 8] = [
    ("hi-lo", include_str!("../../../../counts/hi-lo.toml")),
    ("ko", include_str!("../../../../counts/ko.toml")),
    ("hi-opt-1", include_str!("../../../../counts/hi-opt-1.toml")),
    ("hi-opt-2", include_str!("../../../../counts/hi-opt-2.toml")),
    ("omega-2", include_str!("../../../../counts/omega-2.toml")),
    ("zen", include_str!("../../../../counts/zen.toml")),
    (
        "wong-halves",
        include_str!("../../../../counts/wong-halves.toml"),
    ),
    (
        "insurance",
        include_str!("../../../../counts/insurance.toml"),
    ),
];

/// A preset count by file name (`hi-lo`, `ko`, ...), or `None`.
pub fn preset(name: &str) -> Option<Result<CountSystem, CountError>> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| parse(text, &format!("counts/{n}.toml")))
}

impl CountSystem {
    /// The tags the betting count uses: the main tags, with the side-counted
    /// values at their betting tag when `with_side_count`.
    pub fn betting_tags(&self, with_side_count: bool) -> [f64; 10] {
        let mut t = self.tags;
        if let (true, Some(sc)) = (with_side_count, &self.side_count) {
            for &r in &sc.ranks {
                if let Some(slot) = t.get_mut(r) {
                    *slot = sc.betting_tag;
                }
            }
        }
        t
    }

    /// The count as a count file's text.
    pub fn to_toml(&self, comment: &str) -> String {
        let mut s = String::new();
        for line in comment.lines() {
            s.push_str(&format!("# {line}\n"));
        }
        s.push_str(&format!(
            "name = {:?}\nbalanced = {}\n\n[tags]\n",
            self.name, self.balanced
        ));
        for (l, t) in LABELS.iter().zip(self.tags) {
            if t.fract() == 0.0 {
                s.push_str(&format!("{l} = {}\n", t as i64));
            } else {
                s.push_str(&format!("{l} = {t}\n"));
            }
        }
        if let Some(sc) = &self.side_count {
            let ranks: Vec<String> = sc
                .ranks
                .iter()
                .map(|&r| format!("{:?}", LABELS[r]))
                .collect();
            s.push_str(&format!(
                "\n[side_count]\nranks = [{}]\nbetting_tag = {}\n",
                ranks.join(", "),
                sc.betting_tag
            ));
        }
        s
    }
}

/// A wager's effects of removal per card class (52, indexed by `Card::index`),
/// `None` for a class the shoe lacks.
pub fn per_card(values: &RankValues, cards: Option<&CardValues>) -> Vec<Option<f64>> {
    match cards {
        Some(c) => c.0.clone(),
        None => (0..52).map(|c| Some(values.0[(c / 4).min(9)])).collect(),
    }
}

/// The betting correlation of `tags` with per-card effects of removal; `None`
/// when either has no spread (a constant tag or effect correlates with nothing).
pub fn betting_correlation(tags: &[f64; 10], eor: &[Option<f64>]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> = eor
        .iter()
        .enumerate()
        .filter_map(|(c, e)| e.map(|e| (tags[(c / 4).min(9)], e)))
        .collect();
    let n = pairs.len() as f64;
    if n < 2.0 {
        return None;
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in &pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    let d = (sxx * syy).sqrt();
    (d > 0.0 && d.is_finite()).then(|| sxy / d)
}

/// One count's betting correlation with one wager.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Correlation {
    /// The count's name.
    pub count: String,
    /// Betting correlation with the main tags.
    pub bc: Option<f64>,
    /// With the side count folded in, for a count that has one.
    pub bc_with_side_count: Option<f64>,
}

/// A wager's correlations and its best simple count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WagerCounts {
    /// `main`, `insurance` or the side bet's id.
    pub wager: String,
    /// The wager's house edge off the top, as a fraction.
    pub house_edge: f64,
    /// One entry per count, in the order given.
    pub correlations: Vec<Correlation>,
    /// The best simple count fitted to the wager's effects of removal.
    pub best: FittedCount,
}

/// Everything `felt count` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountReport {
    /// The game's id.
    pub game: String,
    /// Decks analysed.
    pub decks: u8,
    /// The counts compared.
    pub counts: Vec<CountSystem>,
    /// Main game (basic strategy), insurance, then each side bet.
    pub wagers: Vec<WagerCounts>,
}

/// Compares `counts` with every wager of an effects-of-removal report.
pub fn count_report(eor: &EorReport, counts: &[CountSystem]) -> CountReport {
    let mut wagers = Vec::new();
    let mut add = |wager: &str, edge: f64, values: &RankValues, cards: Option<&CardValues>| {
        let pc = per_card(values, cards);
        let correlations = counts
            .iter()
            .map(|c| Correlation {
                count: c.name.clone(),
                bc: betting_correlation(&c.tags, &pc),
                bc_with_side_count: c
                    .side_count
                    .as_ref()
                    .and_then(|_| betting_correlation(&c.betting_tags(true), &pc)),
            })
            .collect();
        let best = best_simple_count(
            &format!("{} {wager}, {} decks", eor.game, eor.decks),
            values,
            &pc,
        );
        wagers.push(WagerCounts {
            wager: wager.to_string(),
            house_edge: edge,
            correlations,
            best,
        });
    };
    add("main", eor.main.house_edge, &eor.main.eor_percent, None);
    add(
        "insurance",
        eor.insurance.house_edge,
        &eor.insurance.eor_percent,
        None,
    );
    for b in &eor.side_bets {
        add(
            &b.id,
            b.house_edge,
            &b.eor_percent,
            b.eor_card_percent.as_ref(),
        );
    }
    CountReport {
        game: eor.game.clone(),
        decks: eor.decks,
        counts: counts.to_vec(),
        wagers,
    }
}
