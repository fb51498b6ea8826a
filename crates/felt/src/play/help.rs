//! What the table answers besides the game: `?` or `help` (the choices of the question
//! asked), `rules` (the rules card and every pay table), `pays` (the side bets' pay
//! tables and the progressive meters now) and, at a decision, `hint` (the computed
//! basic strategy's play with its expected values, as `felt strategy` computes it).

use crate::cmd::strategy::{action_word, row_name};
use felt_core::round::Legal;
use felt_core::{Card, Money, Rules};
use felt_math::hint::Hint;
use felt_math::main_game::{Action, BasicStrategy};
use std::cell::OnceCell;

/// The words every question takes besides its answers.
pub const EVERYWHERE: &str = "rules: the rules card and pay tables; q: leave the table";

/// The help a session gives; the strategy is computed the first time a hint is asked.
pub struct Help<'a> {
    rules: &'a Rules,
    strategy: OnceCell<Option<BasicStrategy>>,
}

impl<'a> Help<'a> {
    /// Help for a table of these rules.
    pub fn new(rules: &'a Rules) -> Self {
        Help {
            rules,
            strategy: OnceCell::new(),
        }
    }

    /// The answer to `word` at a question whose choices `choices` explains, if `word`
    /// asks for help; `pays` gives the side bets' pay tables with the meters now, and
    /// `hint` (at a decision) the strategy's play.
    pub fn answer(
        &self,
        word: &str,
        choices: &str,
        pays: impl Fn() -> String,
        hint: Option<&dyn Fn() -> String>,
    ) -> Option<String> {
        match word {
            "?" | "help" => {
                let mut t = choices.to_string();
                if !self.rules.side_bets().is_empty() {
                    t.push_str("\n  pays: the side bets' pay tables and meters");
                }
                if hint.is_some() {
                    t.push_str("\n  hint: the basic strategy's play and its expected values");
                }
                t.push_str(&format!("\n  {EVERYWHERE}"));
                Some(t)
            }
            "rules" => Some(
                felt_core::rules::rules_card(self.rules)
                    .trim_end()
                    .to_string(),
            ),
            "pays" if !self.rules.side_bets().is_empty() => Some(pays().trim_end().to_string()),
            "hint" => hint.map(|h| h()),
            _ => None,
        }
    }

    /// The side bets' pay tables, each progressive with its meter now (`meter`).
    pub fn pays(&self, meter: impl Fn(&str) -> Option<Money>) -> String {
        let decks = self.rules.shoe().decks;
        let mut o = String::new();
        for b in self.rules.side_bets() {
            o.push_str(&felt_core::rules::side_bet_card_text(b, decks));
            if let Some(m) = b.progressive.as_ref().and_then(|p| meter(&p.meter)) {
                o.push_str(&format!("  The meter stands at {m} now.\n"));
            }
        }
        o
    }

    fn strategy(&self) -> Option<&BasicStrategy> {
        self.strategy
            .get_or_init(|| {
                let mapped =
                    felt_math::mapping::main_game_rules(self.rules, self.rules.shoe().decks);
                felt_math::main_game::analyse(&mapped.main)
                    .ok()
                    .map(|a| a.basic_strategy)
            })
            .as_ref()
    }

    /// The hint for a hand of `cards` against the up card `up`, with the choices
    /// `legal`: the strategy's play among those offered and each one's expected value
    /// per unit bet (given no dealer blackjack once the dealer has peeked).
    pub fn hint(&self, cards: &[Card], up: Option<Card>, legal: &Legal) -> String {
        let none = || "Hint: no strategy is computed for this hand.".to_string();
        let (Some(up), Some(s)) = (up, self.strategy()) else {
            return none();
        };
        let peek = self.rules.dealer().peek;
        let h = match felt_math::hint::hint(s, peek, cards, up, legal.decisions) {
            None => return none(),
            Some(Hint::DeclineInsurance) => {
                return "Hint: basic strategy says no thanks: without a count of the cards, \
                        insurance and even money cost more than they return in the long run."
                    .to_string()
            }
            Some(Hint::Hand(h)) => h,
        };
        let best = match (h.early, h.best) {
            // Early surrender, or play the hand on.
            (true, Action::Surrender) => "surrender now".to_string(),
            (true, _) => "no thanks (play the hand)".to_string(),
            (false, a) => action_word(a).to_string(),
        };
        let evs: Vec<String> = h
            .values
            .iter()
            .map(|(a, v)| format!("{} {v:+.3}", action_word(*a)))
            .collect();
        format!(
            "Hint: {best} ({} against {}: basic strategy computed for these rules).\n  \
             Expected value per 1.00 bet{}: {}",
            row_name(h.kind, h.total),
            up.pretty(),
            if h.given_no_blackjack {
                ", given the dealer has no blackjack"
            } else {
                ""
            },
            evs.join(", ")
        )
    }
}
