//! Exact effects of removal: how each wager's expected value moves when one card
//! leaves the shoe.
//!
//! The effect of removal (EoR) of a card is `EV(shoe less that card) - EV(shoe)`,
//! per unit wagered, in percent (positive: the removal helps the player). A rank's
//! value is the average over its physical cards (the four suits; for `T` the
//! sixteen ten-valued cards per deck), each exactly recomputed, never estimated.
//!
//! - **Main game**: the player keeps the basic strategy computed off the top of the
//!   full shoe ([`analyse_shoe_with_strategy`]): the classic definition (Griffin,
//!   *The Theory of Blackjack*), under which an unseen burn card changes nothing on
//!   average: `sum over ranks of count x EoR = 0` exactly. The same removals under
//!   the optimal composition-dependent play of each depleted shoe (re-optimised,
//!   as the Wizard of Odds' table is) are given as `eor_percent_cd`.
//! - **Insurance**: the 2:1 wager on a dealer's ace with the other cards unseen.
//! - **Side bets**: every card class (rank and suit) is removed in turn and the
//!   bet's deals counted again exactly; where a bet tells suits or faces apart
//!   (Lucky Ladies' queen of hearts, a diamonds-only meter line) the per-card
//!   values are given as well.

use crate::exact::ExactInput;
use crate::main_game::{
    analyse_shoe, analyse_shoe_with_strategy, dealable_hands, MainGameError, MainGameRules, Shoe,
};
use crate::mapping::main_game_rules;
use crate::sidebet::{expected_value, ShoeCounts, SideBetError};
use felt_core::card::Card;
use felt_core::rules::{Rules, SideBetRules};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// The labels of the ten card values, in the order of every [`RankValues`].
pub const RANK_LABELS: [&str; 10] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"];

/// Why the effects of removal could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum EorError {
    /// The deck count is outside 1..=8.
    #[error("{0} decks: the analysis takes 1 to 8")]
    Decks(u8),
    /// The main-game analysis refused the rules or the shoe.
    #[error("main game: {0}")]
    Main(#[from] MainGameError),
    /// A side bet's analysis refused the rules or the shoe.
    #[error("side bet: {0}")]
    SideBet(#[from] SideBetError),
    /// Insurance needs an ace for the up card and a card left to remove.
    #[error("insurance: the shoe needs an ace and at least three cards")]
    Insurance,
}

/// One number per card value A, 2, ..., 9, T; serialised as a JSON object keyed
/// by [`RANK_LABELS`] in that order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankValues(pub [f64; 10]);

impl Serialize for RankValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(10))?;
        for (k, v) in RANK_LABELS.iter().zip(self.0) {
            m.serialize_entry(k, &v)?;
        }
        m.end()
    }
}

/// One number per physical card (rank and suit, indexed by [`Card::index`]);
/// `None` for a card the shoe does not hold. Serialised as an object keyed by the
/// card's short name (`Qh`, `Td`, `7s`).
#[derive(Debug, Clone, PartialEq)]
pub struct CardValues(pub Vec<Option<f64>>);

impl Serialize for CardValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (i, v) in self.0.iter().enumerate() {
            if let (Some(card), Some(v)) = (Card::from_index(i), v) {
                m.serialize_entry(&card.to_string(), v)?;
            }
        }
        m.end()
    }
}

/// The main game's effects of removal.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MainEor {
    /// House edge off the top under the computed basic strategy, as a fraction.
    pub house_edge: f64,
    /// Per card value, percent of the initial bet, the basic strategy held fixed.
    pub eor_percent: RankValues,
    /// Per card value, percent of the initial bet, optimal composition-dependent
    /// play (CDZ-) of each depleted shoe.
    pub eor_percent_cd: RankValues,
}

/// The insurance wager's effects of removal (a dealer ace showing, the other
/// cards unseen).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct InsuranceEor {
    /// House edge of insurance off the top, as a fraction of the insurance wager.
    pub house_edge: f64,
    /// Per card value, percent of the insurance wager.
    pub eor_percent: RankValues,
}

/// A side bet's effects of removal.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SideBetEor {
    /// The bet's id.
    pub id: String,
    /// The bet's name.
    pub name: String,
    /// House edge off the top, as a fraction of the wager.
    pub house_edge: f64,
    /// Per card value (the average over its cards), percent of the wager.
    pub eor_percent: RankValues,
    /// Per card, percent of the wager, when cards of one value differ (suits or
    /// faces matter to the bet); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eor_card_percent: Option<CardValues>,
}

/// Everything `felt eor` prints.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EorReport {
    /// The game's id.
    pub game: String,
    /// Decks analysed (the rules' deck count when a `shoe` is given).
    pub decks: u8,
    /// The shoe composition analysed, A, 2, ..., 9, ten-valued, when one was given
    /// instead of full decks (side bets are then left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shoe: Option<[u32; 10]>,
    /// The post-split model of the composition-dependent figures.
    pub post_split: &'static str,
    /// The main game.
    pub main: MainEor,
    /// Insurance.
    pub insurance: InsuranceEor,
    /// Every side bet, in settlement order.
    pub side_bets: Vec<SideBetEor>,
}

/// The effects of removal of every wager of `rules` for `decks` decks (default:
/// the file's), progressive meters at `meter` units (default: their reset).
pub fn effects_of_removal(
    rules: &Rules,
    decks: Option<u8>,
    meter: Option<f64>,
) -> Result<EorReport, EorError> {
    effects_of_removal_for(rules, &ExactInput::decks(decks), meter)
}

/// The effects of removal of every wager of `rules` from `input`'s shoe, the
/// composition-dependent column under its post-split model. From a shoe composition
/// the side bets are left out (a shoe of card values does not say their suits).
pub fn effects_of_removal_for(
    rules: &Rules,
    input: &ExactInput,
    meter: Option<f64>,
) -> Result<EorReport, EorError> {
    let decks = input.decks.unwrap_or(rules.shoe().decks);
    if !(1..=8).contains(&decks) {
        return Err(EorError::Decks(decks));
    }
    let mut mapped = main_game_rules(rules, decks);
    mapped.main.post_split = input.post_split;
    let shoe = input.shoe_or_decks(decks)?;
    let main = main_eor(&mapped.main, &shoe)?;
    let insurance = insurance_eor(&shoe)?;
    let side_bets = if input.shoe.is_some() {
        Vec::new()
    } else {
        let classes = ShoeCounts::decks(decks)?;
        rules
            .side_bets()
            .iter()
            .map(|bet| side_bet_eor(rules, bet, &classes, meter))
            .collect::<Result<_, _>>()?
    };
    Ok(EorReport {
        game: rules.game().id.clone(),
        decks,
        shoe: input.composition(),
        post_split: input.post_split.name(),
        main,
        insurance,
        side_bets,
    })
}

/// The main game's effects of removal from `shoe`: the basic strategy computed
/// for `shoe` is held fixed for every removal (`eor_percent`), and each depleted
/// shoe's optimal play is also given (`eor_percent_cd`). Every value must be in
/// the shoe. A shoe too small to deal every split hand the rules allow after
/// any one removal is analysed, base and removals alike, with the split hands
/// the smallest of them deals.
pub fn main_eor(rules: &MainGameRules, shoe: &Shoe) -> Result<MainEor, MainGameError> {
    let least = f64::from(shoe.hard_value().saturating_sub(10));
    let rules = &MainGameRules {
        max_split_hands: dealable_hands(least, rules.max_split_hands)?,
        ..rules.clone()
    };
    let base = analyse_shoe(rules, shoe)?;
    let mut bs = [0.0; 10];
    let mut cd = [0.0; 10];
    for r in 0..10u8 {
        let mut less = *shoe;
        less.remove(r + 1)?;
        let a = analyse_shoe_with_strategy(rules, &less, &base.basic_strategy)?;
        bs[usize::from(r)] = (a.ev_basic - base.ev_basic) * 100.0;
        cd[usize::from(r)] = (a.ev_cd - base.ev_cd) * 100.0;
    }
    Ok(MainEor {
        house_edge: -base.ev_basic,
        eor_percent: RankValues(bs),
        eor_percent_cd: RankValues(cd),
    })
}

/// Insurance's expected value per unit from `counts` (the shoe before the
/// dealer's ace is turned up): the ace is dealt, the hole card is one of the
/// other cards, and insurance pays 2:1 on a ten.
fn insurance_ev(counts: &[u32; 10]) -> Option<f64> {
    let n: u32 = counts.iter().sum();
    if counts[0] == 0 || n < 2 {
        return None;
    }
    let t = f64::from(counts[9]) / f64::from(n - 1);
    Some(3.0 * t - 1.0)
}

/// Insurance's effects of removal from `shoe`.
pub fn insurance_eor(shoe: &Shoe) -> Result<InsuranceEor, EorError> {
    let c = shoe.counts();
    let base = insurance_ev(&c).ok_or(EorError::Insurance)?;
    let mut e = [0.0; 10];
    for (r, slot) in e.iter_mut().enumerate() {
        let mut less = c;
        less[r] = less[r].checked_sub(1).ok_or(EorError::Insurance)?;
        *slot = (insurance_ev(&less).ok_or(EorError::Insurance)? - base) * 100.0;
    }
    Ok(InsuranceEor {
        house_edge: -base,
        eor_percent: RankValues(e),
    })
}

/// The card value (0 = ace ..= 9 = ten-valued) of a card class.
fn value_index(class: usize) -> usize {
    (class / 4).min(9)
}

/// A side bet's effects of removal from `shoe` (its meter lines at
/// `meter_units`): each card class removed in turn, every deal counted again.
pub fn side_bet_eor(
    rules: &Rules,
    bet: &SideBetRules,
    shoe: &ShoeCounts,
    meter_units: Option<f64>,
) -> Result<SideBetEor, SideBetError> {
    let base = expected_value(rules, bet, shoe, meter_units)?;
    let counts = shoe.counts();
    let mut per_card: Vec<Option<f64>> = vec![None; 52];
    for (c, slot) in per_card.iter_mut().enumerate() {
        if counts[c] == 0 {
            continue;
        }
        let mut less = *counts;
        less[c] -= 1;
        let ev = expected_value(rules, bet, &ShoeCounts::from_counts(less)?, meter_units)?;
        *slot = Some((ev - base) * 100.0);
    }
    let mut sum = [0.0; 10];
    let mut weight = [0.0; 10];
    for (c, v) in per_card.iter().enumerate() {
        if let Some(v) = v {
            let w = f64::from(counts[c]);
            sum[value_index(c)] += w * v;
            weight[value_index(c)] += w;
        }
    }
    let ranks: [f64; 10] = std::array::from_fn(|r| {
        if weight[r] > 0.0 {
            sum[r] / weight[r]
        } else {
            0.0
        }
    });
    // the same value by every card of a rank group, to rounding
    let differs = per_card.iter().enumerate().any(|(c, v)| {
        v.is_some_and(|v| (v - ranks[value_index(c)]).abs() > 1e-9 * (1.0 + v.abs()))
    });
    Ok(SideBetEor {
        id: bet.id.clone(),
        name: bet.name.clone(),
        house_edge: -base,
        eor_percent: RankValues(ranks),
        eor_card_percent: differs.then_some(CardValues(per_card)),
    })
}
