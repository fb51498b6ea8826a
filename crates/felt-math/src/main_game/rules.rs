//! The analyser's own plain rules description, and its validation.

use super::error::MainGameError;
use super::post_split::PostSplit;

/// When the dealer checks the hole card for a natural.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peek {
    /// The dealer peeks under an ace and a ten-valued up card (US style).
    TenAndAce,
    /// The dealer peeks only under an ace.
    AceOnly,
    /// No peek (European no-hole-card): a natural is found after decisions.
    None,
}

/// What the player loses when a dealer natural is found only after the
/// player's decisions (up cards the dealer did not peek under).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoPeekLoss {
    /// Every bet on the table is lost, doubles and splits included (ENHC).
    AllBets,
    /// Only the original bet is lost; doubles and splits are returned (OBO).
    OriginalBetsOnly,
}

/// Which two-card hands may be doubled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DoubleOn {
    /// Any first two cards, hard or soft.
    AnyTwo,
    /// Hard 9, 10 and 11 only.
    NineToEleven,
    /// Hard 10 and 11 only.
    TenToEleven,
    /// No doubling.
    None,
}

/// The surrender rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surrender {
    /// No surrender.
    None,
    /// Late surrender: after the dealer's peek; a surrendered hand still
    /// loses its whole bet to a dealer natural found later (no-peek games).
    Late,
    /// Early surrender: before the dealer checks for a natural, half the
    /// bet is lost whatever the hole card.
    Early,
}

/// The table rules the exact main-game analysis is computed for.
///
/// This is the analyser's own plain parameter set; a project rules file is
/// mapped onto it by the caller. Insurance is never taken. Doubling is
/// allowed on the first two cards of a hand only.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MainGameRules {
    /// Number of 52-card decks, 1..=8.
    pub decks: u32,
    /// The dealer hits soft 17 (H17) instead of standing (S17).
    pub dealer_hits_soft_17: bool,
    /// Under which up cards the dealer peeks for a natural.
    pub peek: Peek,
    /// Loss to a dealer natural found after the player's decisions.
    pub no_peek_loss: NoPeekLoss,
    /// Blackjack payout as (numerator, denominator), e.g. (3, 2) or (6, 5).
    pub blackjack_pays: (u32, u32),
    /// Which two-card totals may be doubled.
    pub double: DoubleOn,
    /// Doubling allowed on the two-card hands formed after a split.
    pub double_after_split: bool,
    /// Most hands a pair may be split into: 1 = no split, 2 = split once,
    /// 3 to 8 = resplit up to that many hands (1..=[`MAX_SPLIT_HANDS`]).
    pub max_split_hands: u32,
    /// Aces may be resplit (up to `max_split_hands`).
    pub resplit_aces: bool,
    /// Split aces receive one card each and must stand.
    pub one_card_to_split_aces: bool,
    /// Split aces may be hit (and doubled if `double_after_split`); only
    /// meaningful if `!one_card_to_split_aces`. Without it split aces stand
    /// on their second card as with one card to split aces.
    pub hit_split_aces: bool,
    /// The surrender rule (first two cards only).
    pub surrender: Surrender,
    /// Two-card hands formed after a split may be (late) surrendered.
    pub surrender_after_split: bool,
    /// Only same-rank ten-valued pairs may be split (K-K yes, J-Q no); when
    /// false any two ten-valued cards are a pair.
    pub split_by_rank: bool,
    /// How the composition-dependent figures play the hands formed by a
    /// split (a model of the player, not a table rule; CDZ- by default).
    pub post_split: PostSplit,
}

impl Default for MainGameRules {
    /// Six decks, H17, peek, DAS, resplit to four hands (not aces), one card
    /// to split aces, late surrender, 3:2.
    fn default() -> Self {
        MainGameRules {
            decks: 6,
            dealer_hits_soft_17: true,
            peek: Peek::TenAndAce,
            no_peek_loss: NoPeekLoss::AllBets,
            blackjack_pays: (3, 2),
            double: DoubleOn::AnyTwo,
            double_after_split: true,
            max_split_hands: 4,
            resplit_aces: false,
            one_card_to_split_aces: true,
            hit_split_aces: false,
            surrender: Surrender::Late,
            surrender_after_split: false,
            split_by_rank: false,
            post_split: PostSplit::Cdz,
        }
    }
}

/// Largest supported `max_split_hands`: every hand limit the engine accepts
/// (1..=8) is analysed exactly.
pub const MAX_SPLIT_HANDS: u32 = 8;

impl MainGameRules {
    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), MainGameError> {
        if !(1..=8).contains(&self.decks) {
            return Err(MainGameError::InvalidRules(format!(
                "decks must be 1..=8, got {}",
                self.decks
            )));
        }
        let (num, den) = self.blackjack_pays;
        if den == 0 || num > 100 * den {
            return Err(MainGameError::InvalidRules(format!(
                "blackjack payout {num}:{den} is not usable"
            )));
        }
        if !(1..=MAX_SPLIT_HANDS).contains(&self.max_split_hands) {
            return Err(MainGameError::InvalidRules(format!(
                "max_split_hands must be 1..={MAX_SPLIT_HANDS}, got {}",
                self.max_split_hands
            )));
        }
        Ok(())
    }
}

/// Rules digested into the flags the engine needs (card indices: 0 = ace,
/// 9 = ten-valued).
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub h17: bool,
    pub bj: f64,
    pub double: DoubleOn,
    pub das: bool,
    /// Maximum hands per pair index (0 or 1 = no split).
    pub max_hands: [u32; 10],
    /// Split aces may be played on (hit / double) rather than stand.
    pub play_split_aces: bool,
    pub surrender: Surrender,
    pub sas: bool,
    pub split_by_rank: bool,
    /// How split hands are played in the CD values.
    pub post_split: PostSplit,
    /// Per up-card index: the dealer peeked before the player's decisions.
    pub peeked: [bool; 10],
    /// Per up-card index: 1.0 when a dealer natural takes only the original
    /// bet (peek or OBO), 0.0 when it takes all bets.
    pub corr: [f64; 10],
}

impl Prepared {
    pub(crate) fn new(r: &MainGameRules) -> Result<Self, MainGameError> {
        r.validate()?;
        let mut max_hands = [r.max_split_hands; 10];
        if !r.resplit_aces {
            max_hands[0] = r.max_split_hands.min(2);
        }
        let mut peeked = [false; 10];
        match r.peek {
            Peek::TenAndAce => {
                peeked[0] = true;
                peeked[9] = true;
            }
            Peek::AceOnly => peeked[0] = true,
            Peek::None => {}
        }
        let mut corr = [0.0; 10];
        for u in 0..10 {
            if peeked[u] || r.no_peek_loss == NoPeekLoss::OriginalBetsOnly {
                corr[u] = 1.0;
            }
        }
        Ok(Prepared {
            h17: r.dealer_hits_soft_17,
            bj: f64::from(r.blackjack_pays.0) / f64::from(r.blackjack_pays.1),
            double: r.double,
            das: r.double_after_split,
            max_hands,
            play_split_aces: !r.one_card_to_split_aces && r.hit_split_aces,
            surrender: r.surrender,
            sas: r.surrender_after_split && r.surrender != Surrender::None,
            split_by_rank: r.split_by_rank,
            post_split: r.post_split,
            peeked,
            corr,
        })
    }

    /// Whether a two-card hand of this best total may be doubled.
    #[inline]
    pub(crate) fn can_double(&self, total: u8, soft: bool) -> bool {
        match self.double {
            DoubleOn::AnyTwo => true,
            DoubleOn::NineToEleven => !soft && (9..=11).contains(&total),
            DoubleOn::TenToEleven => !soft && (10..=11).contains(&total),
            DoubleOn::None => false,
        }
    }

    /// Value of surrendering an unsplit two-card hand (unconditioned on the
    /// dealer natural), given the natural probability `pbj`.
    #[inline]
    pub(crate) fn surrender_value(&self, pbj: f64) -> Option<f64> {
        match self.surrender {
            Surrender::None => None,
            Surrender::Late => Some(-0.5 - 0.5 * pbj),
            Surrender::Early => Some(-0.5),
        }
    }
}
