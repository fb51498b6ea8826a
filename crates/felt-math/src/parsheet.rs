//! The par sheet of a game: the main game under basic and composition-dependent
//! play, every side bet's outcome table, and the progressive's meter curve.

use crate::exact::{ExactInput, SIDE_BETS_NOT_FROM_VALUES};
use crate::main_game::{analyse_shoe, BasicStrategy, MainGameError};
use crate::mapping::main_game_rules;
use crate::sidebet::{analyse_all, SideBetAnalysis, SideBetError};
use felt_core::Rules;
use serde::Serialize;

/// Why a par sheet could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ParSheetError {
    /// The deck count is outside 1..=8.
    #[error("{0} decks: the analysis takes 1 to 8")]
    Decks(u8),
    /// The main-game analysis refused the rules.
    #[error("main game")]
    Main(#[from] MainGameError),
    /// A side bet's analysis refused the rules.
    #[error("side bet")]
    SideBet(#[from] SideBetError),
}

/// The main game's exact figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MainFigures {
    /// House edge per initial bet under the computed basic strategy (positive for the house).
    pub house_edge: f64,
    /// House edge under the optimal composition-dependent strategy (`post_split` after
    /// splits).
    pub house_edge_cd: f64,
    /// Player's expected value per initial bet, basic strategy.
    pub ev_basic: f64,
    /// Player's expected value per initial bet, composition-dependent strategy.
    pub ev_cd: f64,
    /// Standard deviation of a round per initial bet (composition-dependent play).
    pub std_dev: Option<f64>,
    /// Rules the figures do not fully model, in words.
    pub not_analysed: Vec<String>,
    /// The post-split model of the composition-dependent figures: `CDZ-`, `CDP1`, `CDP`.
    pub post_split: &'static str,
    /// The post-split model in words.
    pub split_model: &'static str,
    /// Per dealer up card (1 = ace ..= 10): probability, EV basic, EV composition-dependent.
    pub per_up_card: Vec<UpCardFigures>,
}

/// The main game's figures for one dealer up card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpCardFigures {
    /// Up card, 1 = ace ..= 10.
    pub up: u8,
    /// Probability of the up card.
    pub probability: f64,
    /// Player's EV given the up card, basic strategy.
    pub ev_basic: f64,
    /// Player's EV given the up card, composition-dependent.
    pub ev_cd: f64,
    /// Probability the dealer busts (natural counted as an outcome of its own).
    pub dealer_bust: f64,
}

/// A point of a progressive's meter curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeterPoint {
    /// Meter, in units of the wager.
    pub meter: f64,
    /// House edge at that meter.
    pub house_edge: f64,
}

/// Everything `felt edge` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParSheet {
    /// The game's id.
    pub game: String,
    /// The game's name.
    pub name: String,
    /// Decks analysed (the rules' deck count when a `shoe` is given).
    pub decks: u8,
    /// The shoe composition analysed, A, 2, ..., 9, ten-valued, when one was given
    /// instead of full decks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shoe: Option<[u32; 10]>,
    /// Whether the rules deal from a CSM (figures are then those of the N-deck shoe, LL-6).
    pub csm: bool,
    /// The main game.
    pub main: MainFigures,
    /// Every side bet, in settlement order.
    pub side_bets: Vec<SideBetAnalysis>,
    /// Per progressive side bet (by id): the edge at a range of meters.
    pub meter_curves: Vec<(String, Vec<MeterPoint>)>,
    /// The computed basic strategy, as a chart.
    #[serde(skip)]
    pub strategy: BasicStrategy,
}

/// The note of a shoe too small to deal every split hand the rules allow.
fn split_hands_note(hands: u32) -> String {
    if hands < 2 {
        "splits: none analysed, the shoe cannot deal two split hands to the end".into()
    } else {
        format!("splits: to {hands} hands at most, the shoe cannot deal more to the end")
    }
}

/// The par sheet of `rules` for `decks` (default: the file's), the progressive meter at
/// `meter` units of the wager (default: each meter's reset over its wager).
pub fn par_sheet(
    rules: &Rules,
    decks: Option<u8>,
    meter: Option<f64>,
) -> Result<ParSheet, ParSheetError> {
    par_sheet_for(rules, &ExactInput::decks(decks), meter)
}

/// The par sheet of `rules` for `input`'s shoe and post-split model. From a shoe
/// composition the main game is analysed exactly and the side bets are left out (a
/// shoe of card values does not say the suits their pays depend on).
pub fn par_sheet_for(
    rules: &Rules,
    input: &ExactInput,
    meter: Option<f64>,
) -> Result<ParSheet, ParSheetError> {
    let decks = input.decks.unwrap_or(rules.shoe().decks);
    if !(1..=8).contains(&decks) {
        return Err(ParSheetError::Decks(decks));
    }
    let mut mapped = main_game_rules(rules, decks);
    mapped.main.post_split = input.post_split;
    let a = analyse_shoe(&mapped.main, &input.shoe_or_decks(decks)?)?;
    if a.split_hands < mapped.main.max_split_hands {
        mapped.not_analysed.push(split_hands_note(a.split_hands));
    }
    let side_bets = if input.shoe.is_some() {
        mapped
            .not_analysed
            .push(SIDE_BETS_NOT_FROM_VALUES.to_string());
        Vec::new()
    } else {
        analyse_all(rules, decks, meter)?
    };
    let meter_curves = side_bets
        .iter()
        .filter_map(|b| {
            let m = b.meter.as_ref()?;
            let top = m
                .break_even_meter
                .unwrap_or(m.meter_units)
                .max(m.meter_units)
                * 1.25;
            let step = round_step(top / 10.0);
            // Round meters (multiples of a 1, 2, 2.5 or 5 step) from 0 to the first at or
            // past `top`: past the break-even meter and the meter analysed.
            let n = (top / step).ceil().clamp(1.0, 20.0) as u32;
            let points = (0..=n)
                .map(|i| {
                    let meter = step * f64::from(i);
                    MeterPoint {
                        meter,
                        house_edge: m.edge_at_zero_meter - m.edge_per_meter_unit * meter,
                    }
                })
                .collect();
            Some((b.id.clone(), points))
        })
        .collect();
    Ok(ParSheet {
        game: rules.game().id.clone(),
        name: rules.game().name.clone(),
        decks,
        shoe: input.composition(),
        csm: rules.shoe().csm,
        main: MainFigures {
            house_edge: -a.ev_basic,
            house_edge_cd: -a.ev_cd,
            ev_basic: a.ev_basic,
            ev_cd: a.ev_cd,
            std_dev: a.sd_cd,
            not_analysed: mapped.not_analysed,
            post_split: input.post_split.name(),
            split_model: input.post_split.describe(),
            per_up_card: a
                .per_up
                .iter()
                .map(|u| UpCardFigures {
                    up: u.up,
                    probability: u.probability,
                    ev_basic: u.ev_basic,
                    ev_cd: u.ev_cd,
                    dealer_bust: u.dealer.bust,
                })
                .collect(),
        },
        side_bets,
        meter_curves,
        strategy: a.basic_strategy,
    })
}

/// The round step at or above `x`: 1, 2, 2.5 or 5 times a power of ten (at least
/// 0.01), so that a meter curve reads at round meters.
fn round_step(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.01) {
        return 0.01;
    }
    let mut p = 10f64.powf(x.log10().floor());
    loop {
        for f in [1.0, 2.0, 2.5, 5.0] {
            if f * p >= x {
                return f * p;
            }
        }
        p *= 10.0;
    }
}
