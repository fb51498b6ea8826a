//! Exact side-bet analysis: every outcome of any rules file's side bet, counted
//! over every ordered deal of a 1- to 8-deck shoe.
//!
//! # What is counted
//!
//! A *deal* is an ordered sequence of distinct physical cards from the full N-deck
//! shoe (52N cards, N of each rank and suit). Each kind counts the cards it reads:
//!
//! - **Lucky Lucky and three-card poker** (LL-1, BB-1) read player card 1, player
//!   card 2 and the dealer's up card. The hole card does not matter, so the deals
//!   are ordered 3-card deals: `52N (52N-1) (52N-2)` of them.
//! - **Lucky Ladies** (LA-1) reads the player's two cards and whether the dealer
//!   holds a natural: ordered (player 1, player 2, dealer hole, dealer up) 4-card
//!   deals, `52N (52N-1) (52N-2) (52N-3)`. The natural counts however late it is
//!   found (LA-3), so the peek rule does not matter.
//! - **7s bets** (L7-2, BB-2, B7-2) read the first card, the first two and a third
//!   card: ordered (player 1, player 2, dealer hole, dealer up, next card) 5-card
//!   deals, `52N ... (52N-4)`, the *next card* being the card the player's hand
//!   receives after the initial deal. The third card is:
//!   - with `third_card = "next-card"` (L7-4, B7-4): the next card. **The analysis
//!     assumes the player always takes a third card on two 7s** (a hit, a double,
//!     or the first split hand's card), except when the dealer has a natural that
//!     is known before the player acts (the dealer peeked: any natural under
//!     `peek = "ten-and-ace"`, an ace-up natural under `"ace-only"`, none under
//!     `"none"`) and `third_card_on_dealer_natural = false`: then no third card
//!     is dealt and the bet is paid as two 7s (L7-3, BB-3). With
//!     `third_card_on_dealer_natural = true` (B7-4) it is dealt anyway. The third
//!     card is drawn from the shoe less the player's two cards *and* the dealer's
//!     two: the 5-card deals count this exactly, with no independence shortcut.
//!     Where no third card is dealt, or where the hand is not two 7s, the fifth
//!     card of the deal is simply not read (every one of its values is counted).
//!   - with `third_card = "up-card"` (B7-5): the dealer's up card; the hole and
//!     next card are not read.
//!
//! Dealing order: the live order is player 1, (other spots), hole, player 2, up
//! (C-4). For one spot's bet this changes nothing: the counts are of ordered
//! distinct cards, and every order of the same positions gives the same
//! composition arithmetic. Other spots' cards are unseen and exchangeable, so
//! they do not change any probability either.
//!
//! The pay table is read as the engine reads it: the FIRST active line (in
//! [`SideBetRules::active_lines`], so without the one-7 lines under
//! `one_seven_pays = false`) whose hand [`classify`](felt_core::sidebet::classify)
//! accepts is paid; a deal that matches none loses. Lines that cannot occur (a
//! suited 7-7-7 in one or two decks, LL-3) are reported with a count of zero.
//!
//! A continuous shuffling machine takes every card back before each round, so
//! each round is dealt from the full N-deck shoe: the N-deck figures are exact for
//! a CSM over N decks (LL-6), and [`SideBetAnalysis::csm`] says the figure is
//! for one.
//!
//! # How it is counted
//!
//! Not card by card: by the 52 rank-and-suit classes (or coarser categories that
//! no hand of the kind tells apart: a 7 of each suit or "not a 7" for the 7s
//! bets; ace, ten-value or other for the dealer's natural), in nested loops whose
//! weights are the remaining counts of each class, so a count is the exact number
//! of ordered sequences of distinct physical cards. Every side bet of every preset,
//! 1 to 8 decks, takes about 13 ms all told in a release build (`benches/sidebet.rs`);
//! the brute-force tests (`tests/sidebet.rs`) check the counts against a naive
//! enumerator over physical cards that calls `classify` on every ordered deal.
//!
//! # Money
//!
//! A line `a:b` pays `a/b` net per unit wagered on the `to` basis and `a/b - 1` on
//! the `for` basis (C-2). A meter line (a progressive, B7-5a) pays
//! `meter * percent / 100` units on its basis: net `meter * percent / 100` (`to`:
//! the stake comes back as well) or that less 1 (`for`). The meter is given in
//! units of the wager; by default the bet's progressive reset over the bet's
//! minimum (2,000 units for the Blazing 7s preset).

mod count;
mod shoe;

pub use count::{count_deals, deal_length, DealCounts, LineCount};
pub use shoe::{ShoeCounts, MAX_CARDS};

use felt_core::money::{Basis, Ratio};
use felt_core::rules::{LinePay, Rules, SideBetRules};
use felt_core::sidebet::{HandName, SideBetKind};
use serde::Serialize;

/// Why a side bet cannot be analysed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SideBetError {
    /// The deck count is outside 1..=8 (C-1).
    #[error("{0} decks: the analysis covers 1 to 8 decks")]
    Decks(u8),
    /// The meter is negative, infinite or not a number.
    #[error("a meter of {0} units: the meter must be a finite amount of at least 0 units")]
    Meter(f64),
    /// A meter line, but no meter given and no progressive reset to default to.
    #[error(
        "side bet `{0}` pays a share of a meter but has no [progressive] reset: give the meter"
    )]
    NoMeter(String),
    /// A pay line names a hand of another kind of bet.
    #[error("side bet `{bet}`, pay line {line}: `{hand}` is not a hand of this kind of bet")]
    HandOfOtherKind {
        /// The bet's id.
        bet: String,
        /// The line's position in the pay table.
        line: usize,
        /// The hand named.
        hand: String,
    },
    /// A pay line's odds have a zero denominator.
    #[error("side bet `{bet}`, pay line {line}: odds with a zero denominator")]
    ZeroDenominator {
        /// The bet's id.
        bet: String,
        /// The line's position in the pay table.
        line: usize,
    },
    /// A meter line's share is outside 1..=100 percent.
    #[error("side bet `{bet}`, pay line {line}: a meter share of {percent}% (1 to 100 allowed)")]
    MeterPercent {
        /// The bet's id.
        bet: String,
        /// The line's position in the pay table.
        line: usize,
        /// The share given.
        percent: u8,
    },
    /// The bet's minimum is not positive, so the meter has no unit.
    #[error("side bet `{0}`: the minimum wager must be positive to express the meter in units")]
    NoUnit(String),
    /// A shoe too small to deal the cards the bet reads.
    #[error("a shoe of {0} cards cannot deal the cards this bet reads")]
    ShoeTooSmall(u64),
    /// A shoe of more than [`MAX_CARDS`] cards.
    #[error("a shoe of {0} cards: at most {MAX_CARDS} are allowed")]
    ShoeTooLarge(u64),
}

/// One outcome of a side bet: a pay line, or "loses".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The line's hand, described ([`HandName::describe`]), or `"loses"`.
    pub name: String,
    /// The line's hand; `None` for "loses".
    pub hand: Option<HandName>,
    /// Ordered deals with this outcome (see the module docs for what a deal is).
    pub count: u128,
    /// `count / total`.
    pub probability: f64,
    /// Net win per unit wagered (-1 for "loses"; a meter line at the analysed meter).
    pub pays: f64,
    /// The line's share of the meter in percent, for a meter line.
    pub meter_percent: Option<u8>,
    /// `probability * pays`: the outcome's part of the player's expected return.
    pub contribution: f64,
}

/// The house edge of a progressive bet as a function of its meter: the edge at a
/// meter of `m` units is `edge_at_zero_meter - edge_per_meter_unit * m`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeterAnalysis {
    /// The meter analysed, in units of the wager.
    pub meter_units: f64,
    /// The house edge with a meter of 0 (meter lines then pay nothing more than
    /// their basis gives: the stake back with `to`, nothing with `for`).
    pub edge_at_zero_meter: f64,
    /// How much each unit on the meter lowers the house edge: the sum over meter
    /// lines of probability times percent / 100.
    pub edge_per_meter_unit: f64,
    /// The meter at which the edge is zero, `edge_at_zero_meter / edge_per_meter_unit`;
    /// `None` when no meter line can be hit. Zero or negative means the bet favours
    /// the player at any meter.
    pub break_even_meter: Option<f64>,
}

impl MeterAnalysis {
    /// The edge as a function of the meter, both terms in percent of the
    /// wager, e.g. `edge = 37.1586% - 0.002314% x meter` (the meter in units
    /// of the wager): the edge at a zero meter, and what each unit on the
    /// meter takes off it.
    pub fn edge_line(&self) -> String {
        format!(
            "edge = {:.4}% - {:.6}% x meter",
            self.edge_at_zero_meter * 100.0,
            self.edge_per_meter_unit * 100.0
        )
    }
}

/// The exact analysis of one side bet for one shoe size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideBetAnalysis {
    /// The bet's id, e.g. `lucky-lucky`.
    pub id: String,
    /// The bet's display name.
    pub name: String,
    /// The bet's kind.
    pub kind: SideBetKind,
    /// Decks in the shoe (1..=8).
    pub decks: u8,
    /// The rules deal from a CSM: the figures are still exact, the CSM being the
    /// N-deck shoe every round (LL-6).
    pub csm: bool,
    /// Cards in an ordered deal (3, 4 or 5; see the module docs).
    pub cards: u8,
    /// Every ordered deal: the sum of the outcomes' counts.
    pub total: u128,
    /// One outcome per active pay line, in pay-table order, then "loses".
    pub outcomes: Vec<Outcome>,
    /// The house edge as a fraction of the wager, positive for the house.
    pub house_edge: f64,
    /// Standard deviation of the net result per unit wagered.
    pub std_dev: f64,
    /// Probability that a pay line is hit (the bet is paid something).
    pub hit_frequency: f64,
    /// The meter's effect, for a bet with meter lines.
    pub meter: Option<MeterAnalysis>,
}

/// Analyses `bet` (one of `rules`' side bets, or any other) for a shoe of `decks`
/// decks. `meter_units` is the progressive meter in units of the wager, used only
/// by meter lines; by default the bet's progressive reset over its minimum.
///
/// `rules` gives the dealer's peek (7s bets) and whether the shoe is a CSM.
pub fn analyse_side_bet(
    rules: &Rules,
    bet: &SideBetRules,
    decks: u8,
    meter_units: Option<f64>,
) -> Result<SideBetAnalysis, SideBetError> {
    let shoe = ShoeCounts::decks(decks)?;
    check_lines(bet)?;
    let meter = resolve_meter(bet, meter_units)?;
    let counts = count_deals(rules, bet, &shoe)?;
    Ok(analyse_counts(rules, bet, decks, &counts, meter))
}

/// The player's exact expected value per unit wagered on `bet` when the round is
/// dealt from `shoe` (any composition: a depleted shoe, a test shoe), with meter
/// lines valued at `meter_units` (default as in [`analyse_side_bet`]). Positive
/// favours the player; it is minus the house edge.
pub fn expected_value(
    rules: &Rules,
    bet: &SideBetRules,
    shoe: &ShoeCounts,
    meter_units: Option<f64>,
) -> Result<f64, SideBetError> {
    check_lines(bet)?;
    let meter = resolve_meter(bet, meter_units)?;
    let counts = count_deals(rules, bet, shoe)?;
    if counts.total == 0 {
        return Err(SideBetError::ShoeTooSmall(shoe.total()));
    }
    Ok(-analyse_counts(rules, bet, 0, &counts, meter).house_edge)
}

/// Analyses every side bet of `rules`, in settlement order, for `decks` decks
/// (see [`analyse_side_bet`]; the meter applies to every bet with meter lines).
pub fn analyse_all(
    rules: &Rules,
    decks: u8,
    meter_units: Option<f64>,
) -> Result<Vec<SideBetAnalysis>, SideBetError> {
    ShoeCounts::decks(decks)?;
    rules
        .side_bets()
        .iter()
        .map(|bet| analyse_side_bet(rules, bet, decks, meter_units))
        .collect()
}

fn check_lines(bet: &SideBetRules) -> Result<(), SideBetError> {
    count::check_kinds(bet)?;
    for (line, l) in bet.active_lines() {
        match l.pay() {
            LinePay::Odds(r) if r.den == 0 => {
                return Err(SideBetError::ZeroDenominator {
                    bet: bet.id.clone(),
                    line,
                })
            }
            LinePay::Meter(p) if !(1..=100).contains(&p) => {
                return Err(SideBetError::MeterPercent {
                    bet: bet.id.clone(),
                    line,
                    percent: p,
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// The meter to analyse: `None` when the bet has no meter line.
fn resolve_meter(bet: &SideBetRules, given: Option<f64>) -> Result<Option<f64>, SideBetError> {
    if let Some(m) = given {
        if !(m.is_finite() && m >= 0.0) {
            return Err(SideBetError::Meter(m));
        }
    }
    let has_meter = bet
        .active_lines()
        .any(|(_, l)| matches!(l.pay(), LinePay::Meter(_)));
    if !has_meter {
        return Ok(None);
    }
    if let Some(m) = given {
        return Ok(Some(m));
    }
    let reset = bet
        .progressive
        .as_ref()
        .ok_or_else(|| SideBetError::NoMeter(bet.id.clone()))?
        .reset;
    if bet.min.as_cents() <= 0 {
        return Err(SideBetError::NoUnit(bet.id.clone()));
    }
    Ok(Some(reset.as_cents() as f64 / bet.min.as_cents() as f64))
}

fn net_odds(r: Ratio, basis: Basis) -> f64 {
    let gross = f64::from(r.num) / f64::from(r.den);
    match basis {
        Basis::To => gross,
        Basis::For => gross - 1.0,
    }
}

fn analyse_counts(
    rules: &Rules,
    bet: &SideBetRules,
    decks: u8,
    counts: &DealCounts,
    meter: Option<f64>,
) -> SideBetAnalysis {
    let total = counts.total as f64;
    let mut outcomes = Vec::with_capacity(counts.lines.len() + 1);
    // Fixed part of the return with a zero meter, and the meter part per unit.
    let mut return_at_zero = 0.0;
    let mut per_meter_unit = 0.0;
    for lc in &counts.lines {
        let line = &bet.pays[lc.pay_index];
        let probability = lc.count as f64 / total;
        let (pays, meter_percent) = match line.pay() {
            LinePay::Odds(r) => (net_odds(r, line.basis), None),
            LinePay::Meter(p) => {
                let share = f64::from(p) / 100.0;
                let base = match line.basis {
                    Basis::To => 0.0,
                    Basis::For => -1.0,
                };
                return_at_zero += probability * base;
                per_meter_unit += probability * share;
                (base + meter.unwrap_or(0.0) * share, Some(p))
            }
        };
        if meter_percent.is_none() {
            return_at_zero += probability * pays;
        }
        outcomes.push(Outcome {
            name: lc.hand.describe().to_string(),
            hand: Some(lc.hand),
            count: lc.count,
            probability,
            pays,
            meter_percent,
            contribution: probability * pays,
        });
    }
    let lose_p = counts.loses as f64 / total;
    return_at_zero -= lose_p;
    outcomes.push(Outcome {
        name: "loses".to_string(),
        hand: None,
        count: counts.loses,
        probability: lose_p,
        pays: -1.0,
        meter_percent: None,
        contribution: -lose_p,
    });
    let mean: f64 = outcomes.iter().map(|o| o.contribution).sum();
    let second: f64 = outcomes
        .iter()
        .map(|o| o.probability * o.pays * o.pays)
        .sum();
    let hit_frequency = counts.lines.iter().map(|l| l.count).sum::<u128>() as f64 / total;
    let meter = meter.map(|m| {
        let a = -return_at_zero;
        MeterAnalysis {
            meter_units: m,
            edge_at_zero_meter: a,
            edge_per_meter_unit: per_meter_unit,
            break_even_meter: (per_meter_unit > 0.0).then(|| a / per_meter_unit),
        }
    });
    SideBetAnalysis {
        id: bet.id.clone(),
        name: bet.name.clone(),
        kind: bet.kind,
        decks,
        csm: rules.shoe().csm,
        cards: counts.cards,
        total: counts.total,
        outcomes,
        house_edge: -mean,
        std_dev: (second - mean * mean).max(0.0).sqrt(),
        hit_frequency,
        meter,
    }
}
