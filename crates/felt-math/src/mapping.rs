//! Mapping a project rules file onto the main-game analyser's parameters, with every
//! rule the engine offers either analysed or listed as not analysed.

use crate::main_game::{
    DoubleOn, MainGameRules, NoPeekLoss, Peek, PostSplit, Surrender, MAX_SPLIT_HANDS,
};
use felt_core::rules::{self, Rules};

/// The analyser's rules for a game, and what the analysis does not model.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedRules {
    /// The analyser's parameters.
    pub main: MainGameRules,
    /// Rules of the file that the exact figures do not (fully) model, each a sentence.
    pub not_analysed: Vec<String>,
}

/// Maps `rules` (with `decks` overriding the file's deck count) onto the analyser.
pub fn main_game_rules(rules: &Rules, decks: u8) -> MappedRules {
    let d = rules.dealer();
    let p = rules.player();
    let bj = rules.main_bet().blackjack_pays;
    let mut not_analysed = Vec::new();
    let hands = u32::from(p.max_split_hands);
    // the engine accepts 1..=8 hands, all analysed exactly; the line below is
    // only for a rules value beyond the analyser's range
    if hands > MAX_SPLIT_HANDS {
        not_analysed.push(format!(
            "splitting to {hands} hands is analysed as {MAX_SPLIT_HANDS} hands: the figures leave out \
             the value of splitting beyond {MAX_SPLIT_HANDS} hands (slightly understating the player's return)"
        ));
    }
    if p.double_for_less {
        not_analysed.push(
            "doubling for less is never better than doubling for the full bet or not at all \
             (the value is linear in the amount), so the figures double for the full bet"
                .to_string(),
        );
    }
    if p.hit_soft_21 {
        not_analysed.push(
            "hitting a soft 21 is allowed but never better than standing; the figures stand"
                .to_string(),
        );
    }
    if rules.insurance().offer != rules::InsuranceOffer::Off || rules.insurance().even_money {
        not_analysed.push("insurance and even money are never taken".to_string());
    }
    if rules.table().rounding == rules::Rounding::Down {
        not_analysed.push(
            "payouts rounded down to a cent (rounding = \"down\") are analysed as exact ratios; \
             the cents lost to rounding depend on the bet size"
                .to_string(),
        );
    }
    if rules.table().seats > 1 || rules.table().max_spots_per_player > 1 {
        not_analysed.push(
            "figures are per spot; other spots at the table do not change a spot's expected value \
             off the top (their cards are unseen)"
                .to_string(),
        );
    }
    if !rules.shoe().csm {
        not_analysed.push(format!(
            "figures are off the top of a full shoe; the cut card at {:.0}% (the cut-card effect) \
             is measured by `felt sim`",
            rules.shoe().penetration * 100.0
        ));
    } else {
        not_analysed.push(
            "a CSM returns every card before each round: the figures are exactly those of the \
             full N-deck shoe (LL-6)"
                .to_string(),
        );
    }
    let main = MainGameRules {
        decks: u32::from(decks),
        dealer_hits_soft_17: d.soft_17 == rules::Soft17::Hit,
        peek: match d.peek {
            rules::Peek::TenAndAce => Peek::TenAndAce,
            rules::Peek::AceOnly => Peek::AceOnly,
            rules::Peek::None => Peek::None,
        },
        no_peek_loss: match d.late_natural {
            rules::LateNatural::AllBetsLose => NoPeekLoss::AllBets,
            rules::LateNatural::OriginalBetsOnly => NoPeekLoss::OriginalBetsOnly,
        },
        blackjack_pays: (bj.num, bj.den),
        double: match p.double {
            rules::DoubleOn::None => DoubleOn::None,
            rules::DoubleOn::AnyTwo => DoubleOn::AnyTwo,
            rules::DoubleOn::NineToEleven => DoubleOn::NineToEleven,
            rules::DoubleOn::TenToEleven => DoubleOn::TenToEleven,
        },
        double_after_split: p.double_after_split,
        max_split_hands: hands.clamp(1, MAX_SPLIT_HANDS),
        resplit_aces: p.resplit_aces && hands.min(MAX_SPLIT_HANDS) > 2,
        one_card_to_split_aces: p.one_card_split_aces,
        hit_split_aces: p.hit_split_aces,
        surrender: match p.surrender {
            rules::Surrender::None => Surrender::None,
            rules::Surrender::Late => Surrender::Late,
            rules::Surrender::Early => Surrender::Early,
        },
        surrender_after_split: p.surrender_after_split,
        split_by_rank: p.split_pairs == rules::SplitPairs::Rank,
        post_split: PostSplit::Cdz,
    };
    MappedRules { main, not_analysed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_maps_and_lucky_ladies_splits_to_its_fifth_hand_exactly() {
        for name in felt_core::presets::names() {
            let r = felt_core::presets::load(name).unwrap().unwrap();
            let m = main_game_rules(&r, r.shoe().decks);
            assert!(m.main.validate().is_ok(), "{name}");
            assert_eq!(m.main.decks, 6);
            assert_eq!(
                m.main.max_split_hands,
                u32::from(r.player().max_split_hands)
            );
            assert!(
                !m.not_analysed.iter().any(|s| s.contains("split")),
                "{name}: {:?}",
                m.not_analysed
            );
        }
        let ll = felt_core::presets::load("lucky-ladies").unwrap().unwrap();
        let m = main_game_rules(&ll, 6);
        assert_eq!(m.main.max_split_hands, 5);
        assert!(m.main.dealer_hits_soft_17);
        assert_eq!(m.main.surrender, Surrender::Late);
        assert!(m.main.surrender_after_split);
    }

    #[test]
    fn every_hand_limit_the_engine_accepts_is_analysed_exactly() {
        let base = felt_core::presets::load("classic").unwrap().unwrap();
        for hands in 1..=8u8 {
            let Ok(r) = base.modified(|f| {
                f.player.max_split_hands = hands;
                f.player.resplit_aces = hands >= 3;
            }) else {
                continue;
            };
            let m = main_game_rules(&r, 6);
            assert_eq!(m.main.max_split_hands, u32::from(hands));
            assert_eq!(m.main.resplit_aces, hands >= 3);
            assert!(m.main.validate().is_ok());
            assert!(!m.not_analysed.iter().any(|s| s.contains("split")));
        }
    }
}
