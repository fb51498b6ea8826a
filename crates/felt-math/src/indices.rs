//! Index plays computed, not typed in: for every hand and up card where a count
//! changes the best play, the true count at which it changes.
//!
//! # Method
//!
//! 1. **The shoe at a true count.** At a fixed depth of `decks_left` decks (by
//!    default half the shoe, at least one deck), the composition expected at true
//!    count `TC` moves each card value's density in proportion to its tag: a value with `c` cards a deck
//!    (4, or 16 for the tens) and tag `t` has `decks_left x c x (1 - a t)` cards, with
//!    `a = TC / sum(c t^2)`, so that the cards left carry a tag sum of
//!    `-TC x decks_left` (the seen cards' running count divided by the decks left is
//!    `TC`) and the shoe still holds `52 x decks_left` cards. This is the least change
//!    of the full shoe's densities that gives the count (Griffin's linear estimate);
//!    for Hi-Lo it is exactly the composition whose low cards, high cards and neutral
//!    cards are each spread evenly over their values, the neutral cards at their
//!    full-shoe density.
//! 2. **Exact values.** For every true count from `tc_min` to `tc_max` the main game is
//!    analysed exactly from that composition ([`analyse_composition`]: the counts are
//!    fractional, the probabilities are the exact ratios of falling factorials
//!    evaluated at them), giving each strategy cell's average value of every play over
//!    the cell's two-card hands, later decisions played by that count's own best
//!    strategy (see [`crate::main_game::BasicStrategy`]). Insurance is
//!    `3 x P(ten in the hole) - 1`.
//! 3. **The count the player sees.** The analysis deals the hand and the up card from
//!    the shoe of step 1, so the player deciding has seen them too: a crossing at the
//!    shoe's true count `t` is at the player's true count
//!    `(t x decks_left + v) / (decks_left - 3/52)`, `v` the cell's expected tag sum of
//!    the two cards (its hands weighted by their chance) and the up card. Insurance is
//!    valued from the unseen cards at the player's true count directly. (The hand's
//!    cards are taken out of the shoe whole, where the unseen cards of a real shoe
//!    miss them only in part: the small error this leaves is largest for one or two
//!    decks, whose default depth is therefore one deck left, not half a deck.)
//! 4. **Where the play changes.** Per cell, the count's decisions are taken in layers,
//!    as the charts and the simulator read them: surrender against the best other play
//!    (stand, hit or double), split against the best unsplit play, double against the
//!    better of hit and stand, and stand against hit. Between two integer counts where
//!    a layer's difference changes sign, the crossing is interpolated linearly, and the
//!    index is the crossing rounded to the nearest integer: the play is made at that
//!    true count and above (the best integer index for a floored true count, whose
//!    bin `[i, i + 1)` is centred on `i + 1/2`). A play that gets better as the count
//!    falls is written `at-or-below` the index below that (for stand against hit, as
//!    the published tables do: hit at that count and above), and a play best only
//!    between two crossings is a band, `index` to `to`.
//!
//! The Fab 4 and the Illustrious 18 (Don Schlesinger, *Blackjack Attack*) come first,
//! in their published order, then every other index by hand (hard, soft, pairs) and up
//! card; a cell's entries stay together in the order the simulator tries them
//! (surrender, split, double, hit or stand).

use crate::count::CountSystem;
use crate::main_game::{
    analyse_composition, BasicStrategy, HandKind, MainGameError, MainGameRules, Surrender,
};
use crate::mapping::main_game_rules;
use felt_core::rules::Rules;
use rayon::prelude::*;
use serde::Serialize;

/// Labels of the up cards and pair cards by index (0 = ace ..= 9 = ten).
const VALUE: [&str; 10] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"];

/// Why the indices could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IndexError {
    /// The deck count is outside 1..=8.
    #[error("{0} decks: the analysis takes 1 to 8")]
    Decks(u8),
    /// The depth is not a positive number of decks within the shoe.
    #[error(
        "{left} decks left: the depth must be more than 0 and at most the shoe's {decks} decks"
    )]
    DecksLeft {
        /// The decks left asked for.
        left: f64,
        /// The shoe's decks.
        decks: u8,
    },
    /// The true count range is empty or too wide.
    #[error("true counts {min} to {max}: the range needs min < max, within -40 to 40")]
    Range {
        /// Lowest true count.
        min: i32,
        /// Highest true count.
        max: i32,
    },
    /// An unbalanced count has no true count.
    #[error("`{0}` is an unbalanced count: indices are computed for a balanced count's true count (use Hi-Lo, Hi-Opt, Omega II, Zen, Wong Halves or a balanced count file)")]
    Unbalanced(String),
    /// The shoe cannot reach the true count: a value would run out.
    #[error("a true count of {tc} leaves no {value} in {decks_left} decks with `{count}`: narrow the range")]
    OutOfReach {
        /// The true count.
        tc: i32,
        /// The card value that runs out.
        value: &'static str,
        /// The decks left.
        decks_left: f64,
        /// The count's name.
        count: String,
    },
    /// The exact analysis refused a composition.
    #[error("main game at a true count of {tc}: {source}")]
    Main {
        /// The true count.
        tc: i32,
        /// The analyser's error.
        source: MainGameError,
    },
}

/// A play an index changes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Play {
    /// Hit.
    Hit,
    /// Stand.
    Stand,
    /// Double.
    Double,
    /// Split the pair.
    Split,
    /// Surrender.
    Surrender,
    /// Take insurance (and even money).
    Insure,
}

impl Play {
    /// The play's word in an index file.
    pub fn word(self) -> &'static str {
        match self {
            Play::Hit => "hit",
            Play::Stand => "stand",
            Play::Double => "double",
            Play::Split => "split",
            Play::Surrender => "surrender",
            Play::Insure => "insure",
        }
    }
}

/// Which published list an index belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Famous {
    /// The Fab 4 surrenders.
    #[serde(rename = "Fab 4")]
    Fab4,
    /// The Illustrious 18.
    #[serde(rename = "Illustrious 18")]
    I18,
}

/// One computed index play (the fields of an index file, and how it was found).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComputedIndex {
    /// The hand: a hard total `16`, a soft hand `A7`, a pair `TT`, or `insurance`.
    pub hand: String,
    /// The up card (`A`, `2`..`9`, `T`); none for insurance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<String>,
    /// The play made at the index (and above, or below with `when`).
    pub play: Play,
    /// The true count where the play changes.
    pub index: i32,
    /// The top of a band: the play is made from `index` to `to` (both included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<i32>,
    /// `at-or-below` for a play made at the index and below; absent for the usual
    /// `at-or-above`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<&'static str>,
    /// The true count where the two plays' expected values cross (interpolated).
    pub crossing: f64,
    /// For a band, the upper crossing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crossing_to: Option<f64>,
    /// The play it replaces on the other side of the index (none for insurance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instead_of: Option<Play>,
    /// The published list it is part of, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<Famous>,
}

/// The expected shoe and how it was chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexOptions {
    /// Decks left at which the composition is taken.
    pub decks_left: f64,
    /// Lowest true count examined.
    pub tc_min: i32,
    /// Highest true count examined.
    pub tc_max: i32,
}

impl IndexOptions {
    /// Half the shoe left (at least one deck), true counts -10 to +10.
    pub fn for_decks(decks: u8) -> Self {
        IndexOptions {
            decks_left: (f64::from(decks) / 2.0).max(1.0),
            tc_min: -10,
            tc_max: 10,
        }
    }
}

/// Everything `felt indices` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexReport {
    /// A name for the set (count, game, decks).
    pub name: String,
    /// The game's id.
    pub game: String,
    /// The count's name.
    pub count: String,
    /// Decks in the shoe.
    pub decks: u8,
    /// Decks left where the compositions are taken.
    pub decks_left: f64,
    /// True counts examined, lowest and highest.
    pub tc_range: [i32; 2],
    /// The indices: the Fab 4 and the Illustrious 18 first.
    pub indices: Vec<ComputedIndex>,
}

/// The expected composition (A, 2..9, T) of `decks_left` decks at true count `tc`
/// for a balanced count (see the module docs).
pub fn composition_at(
    count: &CountSystem,
    decks_left: f64,
    tc: f64,
) -> Result<[f64; 10], IndexError> {
    if !count.balanced {
        return Err(IndexError::Unbalanced(count.name.clone()));
    }
    let per_deck = |v: usize| if v == 9 { 16.0 } else { 4.0 };
    let q: f64 = (0..10).map(|v| per_deck(v) * count.tags[v].powi(2)).sum();
    // a parsed count has a nonzero tag; a balanced one then has q > 0
    let a = if q > 0.0 { tc / q } else { 0.0 };
    let mut n = [0.0; 10];
    for (v, slot) in n.iter_mut().enumerate() {
        *slot = decks_left * per_deck(v) * (1.0 - a * count.tags[v]);
        if *slot < 1.0 {
            return Err(IndexError::OutOfReach {
                tc: tc.round() as i32,
                value: VALUE[v],
                decks_left,
                count: count.name.clone(),
            });
        }
    }
    Ok(n)
}

/// Insurance's value per unit from composition `n` with an ace up.
/// Insurance's value per unit when the unseen cards are `n` (the hole card is one
/// of them).
fn insurance_value(n: &[f64; 10]) -> f64 {
    let total: f64 = n.iter().sum();
    3.0 * n[9] / total - 1.0
}

/// The expected tag sum of the cards a player sees when deciding a cell's hand (its
/// two cards, weighted by their chance from the full shoe, and the up card).
fn visible_tags(count: &CountSystem, cell: CellId, up: u8) -> f64 {
    let per_deck = |v: usize| if v == 9 { 16.0 } else { 4.0 };
    let hands: Vec<(usize, usize)> = match cell {
        CellId::Hard(t) => {
            let t = usize::from(t);
            let mixed: Vec<(usize, usize)> = (1..10)
                .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
                .filter(|&(a, b)| a + b + 2 == t)
                .collect();
            if mixed.is_empty() && t % 2 == 0 && (4..=20).contains(&t) {
                vec![(t / 2 - 1, t / 2 - 1)]
            } else {
                mixed
            }
        }
        CellId::Soft(t) => vec![(0, usize::from(t) - 12)],
        CellId::Pair(p) => vec![(usize::from(p), usize::from(p))],
        CellId::Insurance => Vec::new(),
    };
    let (mut w, mut sum) = (0.0, 0.0);
    for (a, b) in hands {
        let weight = per_deck(a) * per_deck(b);
        w += weight;
        sum += weight * (count.tags[a] + count.tags[b]);
    }
    let hand = if w > 0.0 { sum / w } else { 0.0 };
    hand + count.tags[usize::from(up)]
}

/// A strategy cell the indices look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellId {
    Hard(u8),
    Soft(u8),
    Pair(u8),
    Insurance,
}

impl CellId {
    fn hand(self) -> String {
        match self {
            CellId::Hard(t) => t.to_string(),
            CellId::Soft(t) => format!("A{}", t - 11),
            CellId::Pair(p) => format!("{0}{0}", VALUE[usize::from(p)]),
            CellId::Insurance => "insurance".into(),
        }
    }

    /// Natural order: insurance, hard, soft, pairs.
    fn order(self) -> u32 {
        match self {
            CellId::Insurance => 0,
            CellId::Hard(t) => 100 + u32::from(t),
            CellId::Soft(t) => 200 + u32::from(t),
            CellId::Pair(p) => 300 + u32::from(p),
        }
    }
}

/// The published Fab 4 and Illustrious 18 (six decks, S17, Hi-Lo), in their order:
/// (hand, up, play, published index, list).
pub const PUBLISHED: [(&str, Option<&str>, Play, i32, Famous); 22] = [
    ("14", Some("T"), Play::Surrender, 3, Famous::Fab4),
    ("15", Some("T"), Play::Surrender, 0, Famous::Fab4),
    ("15", Some("9"), Play::Surrender, 2, Famous::Fab4),
    ("15", Some("A"), Play::Surrender, 1, Famous::Fab4),
    ("insurance", None, Play::Insure, 3, Famous::I18),
    ("16", Some("T"), Play::Stand, 0, Famous::I18),
    ("15", Some("T"), Play::Stand, 4, Famous::I18),
    ("TT", Some("5"), Play::Split, 5, Famous::I18),
    ("TT", Some("6"), Play::Split, 4, Famous::I18),
    ("10", Some("T"), Play::Double, 4, Famous::I18),
    ("12", Some("3"), Play::Stand, 2, Famous::I18),
    ("12", Some("2"), Play::Stand, 3, Famous::I18),
    ("11", Some("A"), Play::Double, 1, Famous::I18),
    ("9", Some("2"), Play::Double, 1, Famous::I18),
    ("10", Some("A"), Play::Double, 4, Famous::I18),
    ("9", Some("7"), Play::Double, 3, Famous::I18),
    ("16", Some("9"), Play::Stand, 5, Famous::I18),
    ("13", Some("2"), Play::Stand, -1, Famous::I18),
    ("12", Some("4"), Play::Stand, 0, Famous::I18),
    ("12", Some("5"), Play::Stand, -2, Famous::I18),
    ("12", Some("6"), Play::Stand, -1, Famous::I18),
    ("13", Some("3"), Play::Stand, -2, Famous::I18),
];

/// The layer order within a cell (the order the simulator tries entries).
fn layer_rank(p: Play) -> u8 {
    match p {
        Play::Insure => 0,
        Play::Surrender => 1,
        Play::Split => 2,
        Play::Double => 3,
        Play::Hit | Play::Stand => 4,
    }
}

/// Per true count, a layer's difference `value(play) - value(alternative)` and the
/// alternative it is compared with.
type Series = Vec<(f64, Play)>;

fn best_of(opts: &[(Play, Option<f64>)]) -> (Play, f64) {
    opts.iter().filter_map(|&(p, v)| v.map(|v| (p, v))).fold(
        (Play::Stand, f64::NEG_INFINITY),
        |b, (p, v)| {
            if v > b.1 {
                (p, v)
            } else {
                b
            }
        },
    )
}

/// The layers of one cell at one true count: (layer's play, difference, alternative).
fn layers(s: &BasicStrategy, cell: CellId, u: u8, surrender: bool) -> Vec<(Play, f64, Play)> {
    let c = match cell {
        CellId::Hard(t) => s.cell(HandKind::Hard, t, u + 1),
        CellId::Soft(t) => s.cell(HandKind::Soft, t, u + 1),
        CellId::Pair(p) => s.cell(HandKind::Pair, p + 1, u + 1),
        CellId::Insurance => return Vec::new(),
    };
    let Ok(c) = c else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let hs = [(Play::Stand, Some(c.stand)), (Play::Hit, Some(c.hit))];
    let unsplit = [hs[0], hs[1], (Play::Double, c.double)];
    if let CellId::Pair(_) = cell {
        if let Some(v) = c.split {
            let (alt, b) = best_of(&unsplit);
            out.push((Play::Split, v - b, alt));
        }
        return out;
    }
    if let (true, Some(v)) = (surrender, c.surrender) {
        let (alt, b) = best_of(&unsplit);
        out.push((Play::Surrender, v - b, alt));
    }
    if let Some(v) = c.double {
        let (alt, b) = best_of(&hs);
        out.push((Play::Double, v - b, alt));
    }
    out.push((Play::Stand, c.stand - c.hit, Play::Hit));
    out
}

/// A stretch of true counts where a layer's play is the better: its lower and upper
/// crossings (with the integer count just below each), open where it runs past the
/// range.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Segment {
    lo: Option<(f64, usize)>,
    hi: Option<(f64, usize)>,
}

/// The stretches where `d > 0` over the true counts `tcs` that end inside the range
/// (one that covers the whole range is the basic play, no index), the crossings
/// interpolated linearly between integer counts.
fn segments(tcs: &[i32], d: &[f64]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut lo: Option<(f64, usize)> = None;
    let mut inside = d.first().is_some_and(|&x| x > 0.0);
    for i in 0..d.len().saturating_sub(1) {
        let (a, b) = (d[i], d[i + 1]);
        if (a > 0.0) == (b > 0.0) {
            continue;
        }
        let frac = if a != b { a / (a - b) } else { 0.5 };
        let c = f64::from(tcs[i]) + frac.clamp(0.0, 1.0);
        if inside {
            out.push(Segment {
                lo,
                hi: Some((c, i)),
            });
            inside = false;
        } else {
            lo = Some((c, i));
            inside = true;
        }
    }
    if inside && lo.is_some() {
        out.push(Segment { lo, hi: None });
    }
    out
}

/// A crossing rounded to the nearest integer (halves up): the play better above it is
/// made at that count and above.
fn round(c: f64) -> i32 {
    (c + 0.5).floor() as i32
}

/// Computes the index plays of `rules` for `count`.
pub fn compute_indices(
    rules: &MainGameRules,
    count: &CountSystem,
    opts: IndexOptions,
) -> Result<Vec<ComputedIndex>, IndexError> {
    let decks = u8::try_from(rules.decks).unwrap_or(u8::MAX);
    if !(1..=8).contains(&decks) {
        return Err(IndexError::Decks(decks));
    }
    if !(opts.decks_left > 0.0 && opts.decks_left <= f64::from(decks)) {
        return Err(IndexError::DecksLeft {
            left: opts.decks_left,
            decks,
        });
    }
    if opts.tc_min >= opts.tc_max || opts.tc_min < -40 || opts.tc_max > 40 {
        return Err(IndexError::Range {
            min: opts.tc_min,
            max: opts.tc_max,
        });
    }
    let tcs: Vec<i32> = (opts.tc_min..=opts.tc_max).collect();
    let shoes: Vec<[f64; 10]> = tcs
        .iter()
        .map(|&t| composition_at(count, opts.decks_left, f64::from(t)))
        .collect::<Result<_, _>>()?;
    let strategies: Vec<BasicStrategy> = tcs
        .par_iter()
        .zip(&shoes)
        .map(|(&tc, n)| {
            analyse_composition(rules, n)
                .map(|a| a.basic_strategy)
                .map_err(|source| IndexError::Main { tc, source })
        })
        .collect::<Result<_, _>>()?;
    let surrender = rules.surrender != Surrender::None;
    let mut cells: Vec<(CellId, Option<u8>)> = vec![(CellId::Insurance, None)];
    for u in 0..10u8 {
        cells.extend((5..=20).map(|t| (CellId::Hard(t), Some(u))));
        cells.extend((13..=20).map(|t| (CellId::Soft(t), Some(u))));
        cells.extend((0..10).map(|p| (CellId::Pair(p), Some(u))));
    }
    let mut found: Vec<ComputedIndex> = Vec::new();
    for (cell, up) in cells {
        // per layer play, the series over the true counts
        let mut series: Vec<(Play, Series)> = Vec::new();
        // a crossing at a true count of the shoe before the round, as the true count
        // the player sees deciding (the hand and the up card counted, three cards
        // fewer left); insurance is valued from the unseen cards directly
        let (mut shift, mut scale) = (0.0, 1.0);
        if cell == CellId::Insurance {
            series.push((
                Play::Insure,
                shoes
                    .iter()
                    .map(|n| (insurance_value(n), Play::Stand))
                    .collect(),
            ));
        } else if let Some(u) = up {
            let left = opts.decks_left;
            scale = left / (left - 3.0 / 52.0);
            shift = visible_tags(count, cell, u) / (left - 3.0 / 52.0);
            for s in &strategies {
                for (k, (play, d, alt)) in layers(s, cell, u, surrender).into_iter().enumerate() {
                    if series.len() <= k {
                        series.push((play, Vec::new()));
                    }
                    series[k].1.push((d, alt));
                }
            }
        }
        for (play, s) in series {
            if s.len() != tcs.len() {
                continue;
            }
            let d: Vec<f64> = s.iter().map(|x| x.0).collect();
            let hand = cell.hand();
            let up = up.map(|u| VALUE[usize::from(u)].to_string());
            for seg in segments(&tcs, &d) {
                // the alternative where the play is not made
                let other = match seg.lo {
                    Some((_, i)) => s[i].1,
                    None => seg.hi.map_or(Play::Hit, |(_, i)| s[i + 1].1),
                };
                let (play, instead_of, seg) = match (play, seg.lo, seg.hi) {
                    // stand below a count is hit above it: name the play made above
                    (Play::Stand, None, Some(hi)) => (
                        Play::Hit,
                        Some(Play::Stand),
                        Segment {
                            lo: Some(hi),
                            hi: None,
                        },
                    ),
                    (Play::Insure, _, _) => (Play::Insure, None, seg),
                    (p, _, _) => (p, Some(other), seg),
                };
                let at = |x: Option<(f64, usize)>| x.map(|(c, i)| (c * scale + shift, i));
                let (index, to, when, crossing, crossing_to) = match (at(seg.lo), at(seg.hi)) {
                    (Some((c, _)), None) => (round(c), None, None, c, None),
                    (None, Some((c, _))) => (round(c) - 1, None, Some("at-or-below"), c, None),
                    (Some((a, _)), Some((b, _))) => {
                        (round(a), Some(round(b) - 1), None, a, Some(b))
                    }
                    (None, None) => continue,
                };
                if to.is_some_and(|t| t < index) {
                    continue; // a band between two integer counts: never played
                }
                let list = PUBLISHED
                    .iter()
                    .find(|f| f.0 == hand && f.1 == up.as_deref() && f.2 == play)
                    .map(|f| f.4);
                found.push(ComputedIndex {
                    hand: hand.clone(),
                    up: up.clone(),
                    play,
                    index,
                    to,
                    when,
                    crossing,
                    crossing_to,
                    instead_of,
                    list,
                });
            }
        }
    }
    Ok(order(found))
}

/// Orders the indices: the cells holding a published index first, in published
/// order, then the other cells by hand and up card; within a cell, the simulator's
/// order (surrender, split, double, hit or stand; higher indices first).
fn order(mut v: Vec<ComputedIndex>) -> Vec<ComputedIndex> {
    let cell_key = |x: &ComputedIndex| (x.hand.clone(), x.up.clone());
    let published_pos = |x: &ComputedIndex| {
        PUBLISHED
            .iter()
            .position(|f| f.0 == x.hand && f.1 == x.up.as_deref() && f.2 == x.play)
    };
    let natural = |x: &ComputedIndex| {
        let id = if x.hand == "insurance" {
            CellId::Insurance
        } else if let Some(rest) = x
            .hand
            .strip_prefix('A')
            .filter(|r| r.len() == 1 && r != &"A")
        {
            CellId::Soft(rest.parse::<u8>().map_or(0, |t| t + 11))
        } else if let Ok(t) = x.hand.parse::<u8>() {
            CellId::Hard(t)
        } else {
            let p = VALUE
                .iter()
                .position(|l| x.hand.starts_with(l))
                .unwrap_or(0);
            CellId::Pair(p as u8)
        };
        let up =
            x.up.as_deref()
                .and_then(|u| VALUE.iter().position(|l| *l == u))
                .map_or(0, |u| (u + 9) % 10);
        id.order() * 10 + up as u32
    };
    v.sort_by(|a, b| {
        let ka = (
            published_pos(a).unwrap_or(usize::MAX),
            natural(a),
            layer_rank(a.play),
            -a.index,
        );
        let kb = (
            published_pos(b).unwrap_or(usize::MAX),
            natural(b),
            layer_rank(b.play),
            -b.index,
        );
        ka.cmp(&kb)
    });
    // a cell's entries together, at its first entry's place
    let mut out: Vec<ComputedIndex> = Vec::with_capacity(v.len());
    let mut done: Vec<(String, Option<String>)> = Vec::new();
    for i in 0..v.len() {
        let k = cell_key(&v[i]);
        if done.contains(&k) {
            continue;
        }
        let mut group: Vec<ComputedIndex> =
            v.iter().filter(|x| cell_key(x) == k).cloned().collect();
        group.sort_by_key(|x| (layer_rank(x.play), -x.index));
        out.extend(group);
        done.push(k);
    }
    out
}

/// The indices of the game `rules` for `count`: `decks` overrides the file's deck
/// count, `decks_left` the depth (default half the shoe), `range` the true counts
/// examined (default -10 to +10).
pub fn indices_for_game(
    rules: &Rules,
    count: &CountSystem,
    decks: Option<u8>,
    decks_left: Option<f64>,
    range: Option<(i32, i32)>,
) -> Result<IndexReport, IndexError> {
    let decks = decks.unwrap_or(rules.shoe().decks);
    if !(1..=8).contains(&decks) {
        return Err(IndexError::Decks(decks));
    }
    let mut opts = IndexOptions::for_decks(decks);
    if let Some(l) = decks_left {
        opts.decks_left = l;
    }
    if let Some((lo, hi)) = range {
        (opts.tc_min, opts.tc_max) = (lo, hi);
    }
    let mapped = main_game_rules(rules, decks);
    let indices = compute_indices(&mapped.main, count, opts)?;
    let game = rules.game().id.clone();
    Ok(IndexReport {
        name: format!(
            "{} indices for {game}, {decks} deck(s) (computed by felt indices)",
            count.name
        ),
        game,
        count: count.name.clone(),
        decks,
        decks_left: opts.decks_left,
        tc_range: [opts.tc_min, opts.tc_max],
        indices,
    })
}

/// The indices as an index file (TOML) the simulator reads (`felt sim --indices`).
pub fn to_toml(report: &IndexReport, comment: &str) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        s.push_str(&format!("# {line}\n"));
    }
    s.push_str(&format!("name = {:?}\n", report.name));
    for x in &report.indices {
        s.push_str("\n[[index]]\n");
        s.push_str(&format!("hand = {:?}\n", x.hand));
        if let Some(u) = &x.up {
            s.push_str(&format!("up = {u:?}\n"));
        }
        s.push_str(&format!("play = {:?}\n", x.play.word()));
        s.push_str(&format!("index = {}\n", x.index));
        if let Some(t) = x.to {
            s.push_str(&format!("to = {t}\n"));
        }
        if let Some(w) = x.when {
            s.push_str(&format!("when = {w:?}\n"));
        }
    }
    s
}
