//! Rules as data: the TOML rules file (`games/*.toml`) read into typed structs and
//! validated into [`Rules`], the only form the engine and the analysis accept.
//!
//! Every rule of `docs/rules.md` is a field here; nothing about a game is hard-coded.

mod describe;
mod load;
mod validate;

pub use describe::{rules_card, side_bet_card_text};
pub use load::{line_of_offset, RulesError, RulesErrorKind};

use crate::money::{Basis, Money, Payout, Ratio};
use crate::sidebet::{HandName, SideBetKind};
use serde::{Deserialize, Serialize};

/// The penetrations a rules file may give: the fraction of the shoe dealt before the
/// cut card.
pub const PENETRATION: std::ops::RangeInclusive<f64> = 0.1..=0.95;

/// The most a progressive meter is taken to hold when validation bounds what a meter
/// line can pay (10^16 cents, the engine's balance limit
/// [`crate::round::MAX_BALANCE`]). A rules file gives a meter no cap: it starts at its
/// reset value (which validation holds to this bound) and grows only by the wagers'
/// increments, each at most a side bet's minimum, so it comes near the bound only after
/// some 10^7 wagers of the largest size the limits allow.
pub const METER_BOUND: Money = crate::round::MAX_BALANCE;

/// What validation works out about a game's money ([`Rules::payout_bound`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutBound {
    /// The largest amount one settlement can hand a player, stake included.
    pub largest: Money,
    /// The key of the rule that gives it, e.g. `side_bets[0].pays[0].odds`.
    pub largest_key: String,
    /// The most one betting spot can receive in one round (main hands, insurance and
    /// every side bet at their maxima and best lines).
    pub per_spot: Money,
    /// The most one seat can receive in one round: `per_spot` times the spots a seat
    /// may play. Never above [`crate::round::MAX_ROUND_PAYOUT`].
    pub per_seat: Money,
}

/// A validated game: only [`Rules::from_toml`] (or [`Rules::preset`]) makes one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rules {
    spec: RulesFile,
}

impl Rules {
    /// Parses and validates a rules file; `origin` (a file name) is quoted in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Rules, RulesError> {
        let spec = load::parse(text, origin)?;
        validate::validate(&spec)
            .map_err(|(key, message)| RulesError::invalid(origin, text, &key, message))?;
        Ok(Rules { spec })
    }

    /// The rules after changing the number of decks (1..=8), re-validated.
    pub fn with_decks(&self, decks: u8) -> Result<Rules, RulesError> {
        let mut spec = self.spec.clone();
        spec.shoe.decks = decks;
        validate::validate(&spec).map_err(|(key, message)| RulesError {
            origin: self.spec.game.id.clone(),
            line: None,
            key: Some(key),
            kind: RulesErrorKind::Invalid(message),
        })?;
        Ok(Rules { spec })
    }

    /// The rules after a caller-side change (e.g. a penetration override), re-validated.
    pub fn modified(&self, f: impl FnOnce(&mut RulesFile)) -> Result<Rules, RulesError> {
        let mut spec = self.spec.clone();
        f(&mut spec);
        validate::validate(&spec).map_err(|(key, message)| RulesError {
            origin: self.spec.game.id.clone(),
            line: None,
            key: Some(key),
            kind: RulesErrorKind::Invalid(message),
        })?;
        Ok(Rules { spec })
    }

    /// The game's identity (id, name, summary).
    pub fn game(&self) -> &GameInfo {
        &self.spec.game
    }
    /// Shoe rules.
    pub fn shoe(&self) -> &ShoeRules {
        &self.spec.shoe
    }
    /// Dealer rules.
    pub fn dealer(&self) -> &DealerRules {
        &self.spec.dealer
    }
    /// Insurance and even money.
    pub fn insurance(&self) -> &InsuranceRules {
        &self.spec.insurance
    }
    /// Player options.
    pub fn player(&self) -> &PlayerRules {
        &self.spec.player
    }
    /// Table layout and money handling.
    pub fn table(&self) -> &TableRules {
        &self.spec.table
    }
    /// The main wager: limits and the blackjack payout.
    pub fn main_bet(&self) -> &MainBet {
        &self.spec.main_bet
    }
    /// The side bets, in settlement order.
    pub fn side_bets(&self) -> &[SideBetRules] {
        &self.spec.side_bets
    }
    /// The raw, validated file contents.
    pub fn spec(&self) -> &RulesFile {
        &self.spec
    }

    /// The rules as one canonical TOML text: every field written out (defaults
    /// included), in a fixed order, no comments. [`Rules::from_toml`] reads it back to
    /// these very rules; the books keep it with each round, so a round replays under
    /// the rules it was played under whatever becomes of the file it came from.
    pub fn canonical_toml(&self) -> String {
        // Serialising plain structs of strings, numbers, booleans and arrays cannot
        // fail; an empty text would be refused when read back, never taken as rules.
        toml::to_string(&self.spec).unwrap_or_default()
    }

    /// The largest payouts these rules make possible, as validation bounds them (a
    /// meter line's share is taken of [`METER_BOUND`]).
    pub fn payout_bound(&self) -> PayoutBound {
        let b = validate::bound(&self.spec);
        let money = |v: i128| Money::cents(i64::try_from(v).unwrap_or(i64::MAX));
        PayoutBound {
            largest: money(b.largest),
            largest_key: b.key.clone(),
            per_spot: money(b.per_spot),
            per_seat: money(b.per_seat()),
        }
    }
}

/// The whole rules file as written (before validation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// `[game]`: identity.
    pub game: GameInfo,
    /// `[shoe]`: decks, CSM, penetration, burn.
    pub shoe: ShoeRules,
    /// `[dealer]`: soft 17, peek.
    pub dealer: DealerRules,
    /// `[insurance]`: insurance and even money.
    #[serde(default)]
    pub insurance: InsuranceRules,
    /// `[player]`: double, split, surrender, hitting 21.
    pub player: PlayerRules,
    /// `[table]`: seats, spots, natural payment timing, rounding.
    #[serde(default)]
    pub table: TableRules,
    /// `[main_bet]`: limits and blackjack payout.
    pub main_bet: MainBet,
    /// `[[side_bets]]`: side bets in settlement order.
    #[serde(default)]
    pub side_bets: Vec<SideBetRules>,
}

/// `[game]`: what the game is called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameInfo {
    /// Short id, e.g. `lucky-7`.
    pub id: String,
    /// Display name, e.g. `Lucky 7 Blackjack`.
    pub name: String,
    /// One or two sentences for the rules card.
    #[serde(default)]
    pub summary: String,
}

/// `[shoe]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShoeRules {
    /// Number of 52-card decks, 1..=8 (C-1).
    pub decks: u8,
    /// A continuous shuffling machine: every round's cards go back and the shoe is
    /// reshuffled before every round (C-12).
    #[serde(default)]
    pub csm: bool,
    /// Fraction of the shoe dealt before the cut card comes out (0.1..=0.95). Ignored for a CSM.
    #[serde(default = "default_penetration")]
    pub penetration: f64,
    /// Cards burned face down after each shuffle (C-12).
    #[serde(default)]
    pub burn: u8,
}

fn default_penetration() -> f64 {
    0.75
}

/// Whether the dealer hits soft 17.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Soft17 {
    /// S17: the dealer stands on every 17.
    Stand,
    /// H17: the dealer hits soft 17.
    Hit,
}

/// When the dealer checks the hole card for a natural.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peek {
    /// Peek under a ten-value or an ace up card.
    TenAndAce,
    /// Peek under an ace only.
    AceOnly,
    /// Never peek: a natural is found when the hole card is turned (LA-3).
    None,
}

/// What the player loses to a dealer natural found after the decisions (LA-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LateNatural {
    /// Doubled and split amounts are lost too (no-hole-card "all bets lose").
    AllBetsLose,
    /// Only the original bet is lost; double and split amounts are returned.
    OriginalBetsOnly,
}

/// `[dealer]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealerRules {
    /// S17 or H17 (C-9).
    pub soft_17: Soft17,
    /// When the dealer peeks (C-6).
    pub peek: Peek,
    /// Settlement of a natural found after the decisions (LA-3).
    #[serde(default = "default_late_natural")]
    pub late_natural: LateNatural,
}

fn default_late_natural() -> LateNatural {
    LateNatural::OriginalBetsOnly
}

/// How much insurance a player may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InsuranceOffer {
    /// Not offered.
    Off,
    /// Exactly half the main bet (Lucky 7).
    Half,
    /// Any amount from the insurance minimum up to half the main bet (Lucky Ladies).
    UpToHalf,
}

/// `[insurance]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InsuranceRules {
    /// Insurance offer under an ace (C-6).
    pub offer: InsuranceOffer,
    /// Even money offered to a natural under an ace (C-6).
    pub even_money: bool,
    /// The insurance payout (2:1 to).
    #[serde(default = "default_insurance_pays")]
    pub pays: Ratio,
    /// The smallest insurance stake with `up-to-half` (default: the main bet increment).
    #[serde(default)]
    pub min: Option<Money>,
}

fn default_insurance_pays() -> Ratio {
    Ratio { num: 2, den: 1 }
}

impl Default for InsuranceRules {
    fn default() -> Self {
        InsuranceRules {
            offer: InsuranceOffer::Half,
            even_money: true,
            pays: default_insurance_pays(),
            min: None,
        }
    }
}

/// On which first two cards a double is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DoubleOn {
    /// No doubling.
    None,
    /// Any first two cards.
    AnyTwo,
    /// Hard totals 9, 10 or 11 (a soft hand such as A-8 may not double).
    #[serde(rename = "9-11")]
    NineToEleven,
    /// Hard totals 10 or 11.
    #[serde(rename = "10-11")]
    TenToEleven,
}

/// What makes a pair for splitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitPairs {
    /// Same blackjack value (J-Q is a pair) (C-1).
    Value,
    /// Same rank only.
    Rank,
}

/// Surrender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surrender {
    /// No surrender.
    None,
    /// After the peek, half the bet back.
    Late,
    /// Before the peek, half the bet back.
    Early,
}

/// `[player]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRules {
    /// Which two-card totals may double (C-8).
    pub double: DoubleOn,
    /// Double after split (DAS).
    pub double_after_split: bool,
    /// Double for less than the bet, down to the table minimum.
    #[serde(default)]
    pub double_for_less: bool,
    /// Most hands one spot may be split into (1 = no split, 2 = split once).
    pub max_split_hands: u8,
    /// Value or rank pairs.
    #[serde(default = "default_split_pairs")]
    pub split_pairs: SplitPairs,
    /// Aces may be split again.
    #[serde(default)]
    pub resplit_aces: bool,
    /// Split aces get one card each and stand.
    #[serde(default = "yes")]
    pub one_card_split_aces: bool,
    /// Split aces may be hit (only without one-card split aces).
    #[serde(default)]
    pub hit_split_aces: bool,
    /// Surrender kind.
    #[serde(default = "default_surrender")]
    pub surrender: Surrender,
    /// Surrender also a two-card hand after a split.
    #[serde(default)]
    pub surrender_after_split: bool,
    /// A soft 21 may be hit (a hard 21 always stands, C-8a).
    #[serde(default)]
    pub hit_soft_21: bool,
}

fn yes() -> bool {
    true
}
fn default_split_pairs() -> SplitPairs {
    SplitPairs::Value
}
fn default_surrender() -> Surrender {
    Surrender::None
}

/// How a payout that is not a whole cent is handled (C-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rounding {
    /// Bets that would give a fractional payout are refused.
    Exact,
    /// The payout is rounded down to a cent and the rounding is logged.
    Down,
}

/// `[table]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    /// Seats at the table, 1..=7.
    #[serde(default = "default_seats")]
    pub seats: u8,
    /// Betting spots one player may play, 1..=7 (C-3).
    #[serde(default = "default_spots")]
    pub max_spots_per_player: u8,
    /// Player naturals are paid as the dealer reaches them, before the dealer plays.
    #[serde(default)]
    pub naturals_paid_in_turn: bool,
    /// Fractional payouts (C-2).
    #[serde(default = "default_rounding")]
    pub rounding: Rounding,
    /// What `felt play` does with a round a crash left unfinished: `resume` it where it
    /// stopped (replayed from its stored seed and actions), or `void` it and return the
    /// stakes. Either way the books record it.
    #[serde(default)]
    pub on_crash: OnCrash,
}

/// What happens to a round a crash (or a player who left mid-round) left unfinished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnCrash {
    /// The round is replayed from its stored state and the player finishes it.
    #[default]
    Resume,
    /// The round is voided and every movement of its money reversed.
    Void,
}

fn default_seats() -> u8 {
    7
}
fn default_spots() -> u8 {
    3
}
fn default_rounding() -> Rounding {
    Rounding::Down
}

impl Default for TableRules {
    fn default() -> Self {
        TableRules {
            seats: default_seats(),
            max_spots_per_player: default_spots(),
            naturals_paid_in_turn: false,
            rounding: default_rounding(),
            on_crash: OnCrash::default(),
        }
    }
}

/// Limits of one wager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Smallest bet.
    pub min: Money,
    /// Largest bet.
    pub max: Money,
    /// Bets are whole multiples of this.
    pub increment: Money,
}

impl Limits {
    /// Whether `amount` is a legal bet under these limits.
    pub fn allows(&self, amount: Money) -> bool {
        amount >= self.min && amount <= self.max && amount.is_multiple_of(self.increment)
    }
}

/// `[main_bet]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MainBet {
    /// Smallest main bet.
    pub min: Money,
    /// Largest main bet.
    pub max: Money,
    /// Main bets are multiples of this.
    pub increment: Money,
    /// A natural's payout, `to` (C-7).
    pub blackjack_pays: Ratio,
}

impl MainBet {
    /// The main bet's limits.
    pub fn limits(&self) -> Limits {
        Limits {
            min: self.min,
            max: self.max,
            increment: self.increment,
        }
    }

    /// The natural's payout as a `to` payout.
    pub fn blackjack_payout(&self) -> Payout {
        Payout {
            ratio: self.blackjack_pays,
            basis: Basis::To,
        }
    }
}

/// Where a 7s bet's third card comes from (B7-4, B7-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThirdCard {
    /// The next card the spot's hand receives (a hit, a double, the first split hand's card).
    NextCard,
    /// The dealer's up card (B7-5).
    UpCard,
}

/// What one pay-table line pays: fixed odds or a share of the progressive meter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LinePay {
    /// Fixed odds `a:b` on the line's basis.
    Odds(Ratio),
    /// A share of the meter, in percent (1..=100), on the line's basis (B7-5a).
    Meter(u8),
}

/// One pay-table line: the hand it pays, how much, on which basis.
///
/// In a rules file a line gives exactly one of `odds` (fixed odds, `"200:1"`) and
/// `meter_percent` (a share of the progressive meter); a line with both or neither is
/// refused when the file is read, so a line always pays something definite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "PayLineText")]
pub struct PayLine {
    /// The winning hand (from the bet kind's vocabulary).
    pub hand: HandName,
    /// What the line pays: fixed odds or a share of the meter.
    pub pay: LinePay,
    /// `to` (stake returned as well) or `for` (C-2, B7-3a).
    pub basis: Basis,
}

impl PayLine {
    /// What the line pays.
    pub fn pay(&self) -> LinePay {
        self.pay
    }
}

/// A pay line as a rules file writes it: `odds` or `meter_percent`. (Its serialized
/// form, TOML and JSON, is the one rules have always had: the books hash it.)
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PayLineText {
    hand: HandName,
    #[serde(default)]
    odds: Option<Ratio>,
    #[serde(default)]
    meter_percent: Option<u8>,
    basis: Basis,
}

impl<'de> Deserialize<'de> for PayLine {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PayLine, D::Error> {
        /// Reads the line's table and checks it while the reader is still inside it,
        /// so that a refusal carries the line's own place in the file.
        struct Line;
        impl<'de> serde::de::Visitor<'de> for Line {
            type Value = PayLine;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a pay line, { hand = ..., odds = ..., basis = ... }")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<PayLine, A::Error> {
                let text =
                    PayLineText::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                PayLine::try_from(text).map_err(serde::de::Error::custom)
            }
        }
        d.deserialize_struct("PayLine", &["hand", "odds", "meter_percent", "basis"], Line)
    }
}

impl TryFrom<PayLineText> for PayLine {
    type Error = String;
    fn try_from(t: PayLineText) -> Result<PayLine, String> {
        let pay =
            match (t.odds, t.meter_percent) {
                (Some(r), None) => LinePay::Odds(r),
                (None, Some(p)) => LinePay::Meter(p),
                (Some(_), Some(_)) => return Err(
                    "this pay line gives both `odds` and `meter_percent`: give one, fixed odds \
                     (odds = \"200:1\") or a share of the meter (meter_percent = 10)"
                        .to_string(),
                ),
                (None, None) => {
                    return Err(
                        "this pay line says nothing about what it pays: give fixed odds \
                     (odds = \"200:1\") or a share of the meter (meter_percent = 10)"
                            .to_string(),
                    )
                }
            };
        Ok(PayLine {
            hand: t.hand,
            pay,
            basis: t.basis,
        })
    }
}

impl From<PayLine> for PayLineText {
    fn from(l: PayLine) -> PayLineText {
        let (odds, meter_percent) = match l.pay {
            LinePay::Odds(r) => (Some(r), None),
            LinePay::Meter(p) => (None, Some(p)),
        };
        PayLineText {
            hand: l.hand,
            odds,
            meter_percent,
            basis: l.basis,
        }
    }
}

/// A progressive meter's settings (B7-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgressiveRules {
    /// The meter's id; every table that names it shares it.
    pub meter: String,
    /// Start and reset value.
    pub reset: Money,
    /// Amount added to the meter for each wager, whatever its outcome.
    pub increment: Money,
}

/// `[[side_bets]]`: one side bet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideBetRules {
    /// The id every output uses, e.g. `lucky-lucky`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Which cards the bet reads and its hand vocabulary.
    pub kind: SideBetKind,
    /// Smallest bet.
    pub min: Money,
    /// Largest bet.
    pub max: Money,
    /// Bets are multiples of this.
    pub increment: Money,
    /// The pay table: the first line whose hand matches is paid (only one line pays).
    pub pays: Vec<PayLine>,
    /// 7s bets: where the third card comes from (B7-4, B7-5).
    #[serde(default)]
    pub third_card: Option<ThirdCard>,
    /// 7s bets: a third card is still dealt to two 7s on a dealer natural (B7-4), or not (L7-3).
    #[serde(default)]
    pub third_card_on_dealer_natural: bool,
    /// 7s bets: whether the one-7 line pays (B7-3).
    #[serde(default = "yes")]
    pub one_seven_pays: bool,
    /// A progressive meter behind the bet's meter lines.
    #[serde(default)]
    pub progressive: Option<ProgressiveRules>,
}

impl SideBetRules {
    /// The bet's limits.
    pub fn limits(&self) -> Limits {
        Limits {
            min: self.min,
            max: self.max,
            increment: self.increment,
        }
    }

    /// Where the 7s bet's third card comes from (default: the next card).
    pub fn third_card_source(&self) -> ThirdCard {
        self.third_card.unwrap_or(ThirdCard::NextCard)
    }

    /// The lines in force (the one-7 lines dropped when `one_seven_pays = false`).
    pub fn active_lines(&self) -> impl Iterator<Item = (usize, &PayLine)> {
        self.pays.iter().enumerate().filter(move |(_, l)| {
            self.one_seven_pays || !matches!(l.hand, HandName::OneSeven | HandName::FirstCardSeven)
        })
    }
}
