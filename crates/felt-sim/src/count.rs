//! A count as the simulated counter keeps it: integer tags, the running count, the
//! cards left in the shoe, and the true count by a chosen method.
//!
//! The counter sees exactly what a player at the table sees ([`CountSink`]): every
//! card dealt face up as it is dealt, the dealer's hole card when it is turned, a
//! burned card only if it is burned face up (the engine's automated path burns face
//! down, so never there). A shuffle resets the running count to its initial value.
//! The cards left, for the true count, are the undealt cards of the shoe: every card
//! that has left it (face up, face down or burned) is in the discard tray or on the
//! table, where a counter estimates it from.
//!
//! **True count.** For a balanced count, `running count / decks left`, the decks left
//! estimated to the chosen resolution (exactly, or to the nearest quarter, half or
//! whole deck, never less than one step), then rounded to an integer by floor,
//! truncation (toward zero) or rounding (to the nearest, halves away from zero). An
//! unbalanced count (KO) is used as it runs, as its players use it: the "true count"
//! of the ramp, the indices and the tables is the running count, which starts at the
//! initial running count (by default `-(a deck's tag sum) x (decks - 1)`, KO's
//! `4 - 4 x decks`). Everything is integer arithmetic: tags are scaled to integers
//! (Wong Halves by 2), so a run is exact and the same on every machine.

use felt_core::card::Card;
use felt_core::{Event, EventSink};
use felt_math::count::{deck_sum, CountSystem};
use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// How the decks left are estimated for the true count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeckEstimation {
    /// The exact number of cards left.
    Exact,
    /// To the nearest quarter deck (13 cards).
    Quarter,
    /// To the nearest half deck (26 cards).
    #[default]
    Half,
    /// To the nearest whole deck.
    Full,
}

impl DeckEstimation {
    /// The step in cards (0 for exact).
    pub fn step(self) -> i64 {
        match self {
            DeckEstimation::Exact => 0,
            DeckEstimation::Quarter => 13,
            DeckEstimation::Half => 26,
            DeckEstimation::Full => 52,
        }
    }
}

impl std::str::FromStr for DeckEstimation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exact" | "perfect" => Ok(DeckEstimation::Exact),
            "quarter" | "0.25" => Ok(DeckEstimation::Quarter),
            "half" | "0.5" => Ok(DeckEstimation::Half),
            "full" | "1" => Ok(DeckEstimation::Full),
            _ => Err(format!(
                "unknown deck estimation `{s}`: exact, quarter, half or full"
            )),
        }
    }
}

impl std::fmt::Display for DeckEstimation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DeckEstimation::Exact => "exact",
            DeckEstimation::Quarter => "quarter",
            DeckEstimation::Half => "half",
            DeckEstimation::Full => "full",
        })
    }
}

/// How the true count is made an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TcRounding {
    /// Down, toward minus infinity (-0.5 is -1).
    #[default]
    Floor,
    /// Toward zero (-0.5 is 0).
    Truncate,
    /// To the nearest integer, halves away from zero.
    Round,
}

impl std::str::FromStr for TcRounding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "floor" => Ok(TcRounding::Floor),
            "truncate" | "trunc" => Ok(TcRounding::Truncate),
            "round" | "nearest" => Ok(TcRounding::Round),
            _ => Err(format!(
                "unknown true count rounding `{s}`: floor, truncate or round"
            )),
        }
    }
}

impl std::fmt::Display for TcRounding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TcRounding::Floor => "floor",
            TcRounding::Truncate => "truncate",
            TcRounding::Round => "round",
        })
    }
}

/// `num / den` rounded as `r` says (`den > 0`).
#[inline]
pub fn divide(num: i64, den: i64, r: TcRounding) -> i64 {
    match r {
        TcRounding::Floor => num.div_euclid(den),
        TcRounding::Truncate => num / den,
        TcRounding::Round => {
            let q = (2 * num.abs() + den) / (2 * den);
            if num < 0 {
                -q
            } else {
                q
            }
        }
    }
}

/// Why a count cannot be used by the simulator.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CountSetupError {
    /// A tag is not a multiple of 1/1000.
    #[error("count `{name}`: the tag {tag} of {label} is not a multiple of 1/1000")]
    Tag {
        /// The count's name.
        name: String,
        /// The card value.
        label: &'static str,
        /// The tag.
        tag: f64,
    },
}

/// A count ready to run: tags scaled to integers and the true count method.
#[derive(Debug, Clone, PartialEq)]
pub struct TrueCounter {
    /// Tags of A, 2..9, T times `scale`.
    tags: [i32; 10],
    /// The same tags by a card's rank (ace = 1 ..= king = 13): one read per card seen.
    by_rank: [i32; 16],
    /// What the tags were multiplied by.
    pub scale: i32,
    /// Balanced: true count conversion; unbalanced: the running count is used.
    pub balanced: bool,
    /// Initial running count after a shuffle, times `scale`.
    pub irc: i32,
    /// Decks-left estimation.
    pub estimation: DeckEstimation,
    /// Rounding.
    pub rounding: TcRounding,
    /// The true count of every (cards left, running count) a shoe can hold, when the
    /// table is small: a lookup instead of a division on the hot path.
    table: Option<TcTable>,
}

/// Precomputed true counts: `tc[den[left] * width + (rc - rc_min)]`.
#[derive(Debug, Clone, PartialEq)]
struct TcTable {
    rc_min: i32,
    width: usize,
    den: Vec<u32>,
    tc: Vec<i32>,
}

/// The largest true count table built (entries).
const MAX_TABLE: usize = 1 << 18;

impl TrueCounter {
    /// The counter of `count` at a table of `decks` decks. `irc` (whole points) overrides
    /// an unbalanced count's initial running count.
    pub fn new(
        count: &CountSystem,
        decks: u8,
        estimation: DeckEstimation,
        rounding: TcRounding,
        irc: Option<i32>,
    ) -> Result<TrueCounter, CountSetupError> {
        let scale = (1..=1000)
            .find(|&s| {
                count
                    .tags
                    .iter()
                    .all(|t| ((t * f64::from(s)) - (t * f64::from(s)).round()).abs() < 1e-6)
            })
            .ok_or_else(|| {
                let (i, &tag) = count
                    .tags
                    .iter()
                    .enumerate()
                    .find(|(_, t)| ((*t * 1000.0) - (*t * 1000.0).round()).abs() >= 1e-6)
                    .unwrap_or((0, &0.0));
                CountSetupError::Tag {
                    name: count.name.clone(),
                    label: felt_math::count::LABELS[i],
                    tag,
                }
            })?;
        let tags = count.tags.map(|t| (t * f64::from(scale)).round() as i32);
        let irc = if count.balanced {
            0
        } else {
            match irc {
                Some(v) => v.saturating_mul(scale),
                None => {
                    let sum = (deck_sum(&count.tags) * f64::from(scale)).round() as i32;
                    -sum * (i32::from(decks) - 1)
                }
            }
        };
        let mut by_rank = [0; 16];
        for (r, t) in by_rank.iter_mut().enumerate().skip(1).take(13) {
            *t = tags[r.min(10) - 1];
        }
        let mut c = TrueCounter {
            tags,
            by_rank,
            scale,
            balanced: count.balanced,
            irc,
            estimation,
            rounding,
            table: None,
        };
        c.table = c.build_table(decks);
        Ok(c)
    }

    /// The lookup table for a shoe of `decks` decks, if balanced and small enough.
    fn build_table(&self, decks: u8) -> Option<TcTable> {
        if !self.balanced {
            return None;
        }
        let per_deck = |v: usize| if v == 9 { 16 } else { 4 } * i32::from(decks);
        let (mut hi, mut lo) = (0i32, 0i32);
        for (v, &t) in self.tags.iter().enumerate() {
            let all = t.checked_mul(per_deck(v))?;
            if t > 0 {
                hi = hi.checked_add(all)?;
            } else {
                lo = lo.checked_add(all)?;
            }
        }
        let width = usize::try_from(hi - lo + 1).ok()?;
        let max_left = usize::from(decks) * 52;
        // Lefts that give the same estimate of the decks left share a class.
        let mut den = Vec::with_capacity(max_left + 1);
        let mut classes: Vec<i32> = Vec::new();
        for left in 0..=max_left as i32 {
            let est = self.estimate(left);
            let k = match classes.iter().position(|&e| e == est) {
                Some(k) => k,
                None => {
                    classes.push(est);
                    classes.len() - 1
                }
            };
            den.push(u32::try_from(k).ok()?);
        }
        if classes.len().checked_mul(width)? > MAX_TABLE {
            return None;
        }
        let mut tc = Vec::with_capacity(classes.len() * width);
        for &est in &classes {
            for rc in lo..=hi {
                tc.push(self.divide_by(rc, est));
            }
        }
        Some(TcTable {
            rc_min: lo,
            width,
            den,
            tc,
        })
    }

    /// The cards the decks left are estimated at, for `left` cards left.
    #[inline]
    fn estimate(&self, left: i32) -> i32 {
        let left = left.max(1);
        let step = self.estimation.step() as i32;
        if step == 0 {
            left
        } else {
            ((left + step / 2) / step).max(1) * step
        }
    }

    #[inline]
    fn divide_by(&self, rc: i32, cards: i32) -> i32 {
        divide(
            i64::from(rc) * 52,
            i64::from(cards) * i64::from(self.scale),
            self.rounding,
        ) as i32
    }

    /// The true count by arithmetic (what the table holds).
    fn compute(&self, rc: i32, left: i32) -> i32 {
        if !self.balanced {
            return divide(i64::from(rc), i64::from(self.scale), self.rounding) as i32;
        }
        self.divide_by(rc, self.estimate(left))
    }

    /// The tag of a card of value `v` (1 = ace ..= 10), scaled.
    #[inline(always)]
    pub fn tag(&self, v: u8) -> i32 {
        self.tags[usize::from(v.clamp(1, 10) - 1)]
    }

    /// The tag of `card`, scaled.
    #[inline(always)]
    pub fn tag_of(&self, card: Card) -> i32 {
        self.by_rank[usize::from(card.rank as u8 & 15)]
    }

    /// The (integer) true count for a scaled running count `rc` and `left` cards left.
    #[inline(always)]
    pub fn true_count(&self, rc: i32, left: i32) -> i32 {
        if let Some(t) = &self.table {
            let r = rc.wrapping_sub(t.rc_min) as u32 as usize;
            if let (Some(&k), true) = (t.den.get(left.max(0) as usize), r < t.width) {
                if let Some(&v) = t.tc.get(k as usize * t.width + r) {
                    return v;
                }
            }
        }
        self.compute(rc, left)
    }
}

/// The running count and the cards left, shared by the event sink that counts and
/// the strategy that reads the true count mid-round.
#[derive(Debug, Default)]
pub struct CountCells {
    /// Running count, scaled.
    pub rc: Cell<i32>,
    /// Undealt cards in the shoe.
    pub left: Cell<i32>,
    /// Set by a shuffle; cleared by whoever reads it.
    pub shuffled: Cell<bool>,
}

impl CountCells {
    /// The true count now.
    #[inline]
    pub fn true_count(&self, c: &TrueCounter) -> i32 {
        c.true_count(self.rc.get(), self.left.get())
    }

    /// Sees one event as a player at the table would.
    #[inline(always)]
    pub fn see(&self, c: &TrueCounter, e: &Event) {
        match e {
            Event::Dealt { card, face_up, .. } | Event::Burned { card, face_up } => {
                self.dealt(c, *card, *face_up)
            }
            Event::HoleCardTurned { card, .. } => self.turned(c, *card),
            Event::Shuffled { cards, .. } => self.shuffle(c, *cards),
            _ => {}
        }
    }

    /// A card taken from the shoe (dealt or burned), counted if it shows.
    #[inline(always)]
    fn dealt(&self, c: &TrueCounter, card: Card, face_up: bool) {
        self.left.set(self.left.get() - 1);
        let tag = if face_up { c.tag_of(card) } else { 0 };
        self.rc.set(self.rc.get() + tag);
    }

    /// The hole card turned: counted now.
    #[inline(always)]
    fn turned(&self, c: &TrueCounter, card: Card) {
        self.rc.set(self.rc.get() + c.tag_of(card));
    }

    /// A shuffle to a shoe of `cards` cards.
    #[inline(always)]
    fn shuffle(&self, c: &TrueCounter, cards: u16) {
        self.rc.set(c.irc);
        self.left.set(i32::from(cards));
        self.shuffled.set(true);
    }
}

/// An event sink that only counts (for tests and tools).
pub struct CountSink<'a> {
    /// The count.
    pub counter: &'a TrueCounter,
    /// Its state.
    pub cells: &'a CountCells,
}

impl EventSink for CountSink<'_> {
    fn event(&mut self, e: &Event) {
        self.cells.see(self.counter, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hi_lo() -> CountSystem {
        felt_math::count::preset("hi-lo").unwrap().unwrap()
    }

    #[test]
    fn rounding_modes() {
        assert_eq!(divide(-1, 2, TcRounding::Floor), -1);
        assert_eq!(divide(-1, 2, TcRounding::Truncate), 0);
        assert_eq!(divide(-1, 2, TcRounding::Round), -1);
        assert_eq!(divide(1, 2, TcRounding::Round), 1);
        assert_eq!(divide(5, 4, TcRounding::Round), 1);
        assert_eq!(divide(7, 4, TcRounding::Floor), 1);
        assert_eq!(divide(-7, 4, TcRounding::Truncate), -1);
        assert_eq!(divide(-7, 4, TcRounding::Floor), -2);
        assert_eq!(divide(-7, 4, TcRounding::Round), -2);
    }

    #[test]
    fn true_count_by_deck_estimation() {
        let c =
            TrueCounter::new(&hi_lo(), 6, DeckEstimation::Half, TcRounding::Floor, None).unwrap();
        // RC +7 with 3.4 decks left: 3.5 decks estimated, TC 2.
        assert_eq!(c.true_count(7, 177), 2);
        // RC -7, 3.5 decks: -2.
        assert_eq!(c.true_count(-7, 182), -2);
        // A quarter of a deck left still divides by half a deck.
        assert_eq!(c.true_count(3, 10), 6);
        let exact =
            TrueCounter::new(&hi_lo(), 6, DeckEstimation::Exact, TcRounding::Floor, None).unwrap();
        assert_eq!(exact.true_count(7, 177), 2); // 7 / 3.40 = 2.06
        let full =
            TrueCounter::new(&hi_lo(), 6, DeckEstimation::Full, TcRounding::Floor, None).unwrap();
        assert_eq!(full.true_count(7, 177), 2); // 7 / 3
        assert_eq!(full.true_count(-7, 177), -3); // floor(-2.33)
    }

    #[test]
    fn the_table_agrees_with_the_arithmetic_everywhere() {
        for name in ["hi-lo", "wong-halves", "omega-2"] {
            let count = felt_math::count::preset(name).unwrap().unwrap();
            for est in [
                DeckEstimation::Exact,
                DeckEstimation::Quarter,
                DeckEstimation::Half,
                DeckEstimation::Full,
            ] {
                for r in [TcRounding::Floor, TcRounding::Truncate, TcRounding::Round] {
                    let c = TrueCounter::new(&count, 6, est, r, None).unwrap();
                    assert!(c.table.is_some(), "{name} {est}");
                    // Inside and outside the table's range (a rack reshuffle, a stray count).
                    for left in (-3..=320).step_by(7) {
                        for rc in (-400..=400).step_by(3) {
                            assert_eq!(
                                c.true_count(rc, left),
                                c.compute(rc, left),
                                "{name} {est} {r} {rc} {left}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn halves_scale_and_unbalanced_start() {
        let wh = felt_math::count::preset("wong-halves").unwrap().unwrap();
        let c = TrueCounter::new(&wh, 6, DeckEstimation::Exact, TcRounding::Floor, None).unwrap();
        assert_eq!(c.scale, 2);
        assert_eq!(c.tag(5), 3);
        let ko = felt_math::count::preset("ko").unwrap().unwrap();
        let k = TrueCounter::new(&ko, 6, DeckEstimation::Exact, TcRounding::Floor, None).unwrap();
        assert_eq!(k.irc, -20);
        assert_eq!(k.true_count(-20, 100), -20);
        let k2 =
            TrueCounter::new(&ko, 6, DeckEstimation::Exact, TcRounding::Floor, Some(-4)).unwrap();
        assert_eq!(k2.irc, -4);
    }
}
