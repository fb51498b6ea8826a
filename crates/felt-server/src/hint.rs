//! The basic-strategy hint: `GET /api/tables/NAME/hint?hand=7h,9c&up=Ts&choices=hit,stand`
//! answers the computed basic strategy's play for the table's rules and the expected
//! value of each choice offered (per 1.00 bet), as `felt play`'s `hint` does
//! ([`felt_math::hint`]). It is computed from what the player sees only (their hand,
//! the up card, the choices they are offered), never from a hidden card: the request
//! names them. The strategy is computed once per set of rules and kept
//! ([`Strategies`]). A table may turn hints off (`hints = false` in the tables file).

use crate::app::{who, ApiError, Shared};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_core::round::Decisions;
use felt_core::{Card, Rules};
use felt_math::hint::Hint;
use felt_math::main_game::{Action, BasicStrategy, HandKind};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A strategy computed once (`None`: the analysis failed for its rules).
type Computed = Arc<OnceLock<Option<Arc<BasicStrategy>>>>;

/// The strategies computed so far, by the canonical text of their rules.
#[derive(Default)]
pub struct Strategies {
    by_rules: Mutex<HashMap<String, Computed>>,
}

impl Strategies {
    /// The basic strategy of `rules`, computed on first use (a blocking call: run it
    /// off the async runtime); `None` if the analysis fails for these rules.
    pub fn of(&self, rules: &Rules) -> Option<Arc<BasicStrategy>> {
        let cell = self
            .by_rules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(rules.canonical_toml())
            .or_default()
            .clone();
        cell.get_or_init(|| {
            let mapped = felt_math::mapping::main_game_rules(rules, rules.shoe().decks);
            felt_math::main_game::analyse(&mapped.main)
                .ok()
                .map(|a| Arc::new(a.basic_strategy))
        })
        .clone()
    }
}

/// The query of a hint.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HintQuery {
    /// The hand's cards, comma-separated (`7h,9c`).
    hand: String,
    /// The dealer's up card.
    up: String,
    /// The choices offered, comma-separated protocol words (`hit,stand,double`).
    choices: String,
}

fn bad(m: String) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, "bad-hint", m)
}

/// The choices of a query as a set of decisions.
fn decisions(words: &str) -> Result<Decisions, ApiError> {
    let mut d = Decisions::NONE;
    for w in words.split(',').filter(|w| !w.is_empty()) {
        let Some((bit, _)) = crate::render::DECISION_WORDS
            .iter()
            .find(|(_, word)| *word == w)
        else {
            return Err(bad(format!(
                "`{w}` is not a choice: write hit, stand, double, split, surrender, \
                 insurance, even-money or decline"
            )));
        };
        d.insert(*bit);
    }
    if d == Decisions::NONE {
        return Err(bad(
            "name the choices offered (choices=hit,stand)".to_string()
        ));
    }
    Ok(d)
}

fn cards(text: &str) -> Result<Vec<Card>, ApiError> {
    let cards = felt_core::card::parse_cards(text)
        .map_err(|e| bad(format!("`{}` is not a card (write 7h, Ts, Qs)", e.text)))?;
    if cards.is_empty() || cards.len() > 21 {
        return Err(bad("a hand has 1 to 21 cards".to_string()));
    }
    Ok(cards)
}

fn kind_word(k: HandKind) -> &'static str {
    match k {
        HandKind::Hard => "hard",
        HandKind::Soft => "soft",
        HandKind::Pair => "pair",
    }
}

/// A hint as the protocol writes it.
pub fn hint_json(h: Option<Hint>) -> Value {
    match h {
        None => json!({"advice": null}),
        Some(Hint::DeclineInsurance) => json!({"advice": "decline", "insurance": true}),
        Some(Hint::Hand(h)) => json!({
            "advice": match (h.early, h.best) {
                (true, Action::Surrender) => "surrender",
                (true, _) => "decline",
                (false, a) => a.word(),
            },
            "kind": kind_word(h.kind),
            "total": h.total,
            "up": h.up,
            "given_no_blackjack": h.given_no_blackjack,
            "values": h.values.iter().map(|(a, v)| json!({"decision": a.word(), "ev": v})).collect::<Vec<_>>(),
        }),
    }
}

/// `GET /api/tables/{name}/hint`: a logged-in player's hint.
pub(crate) async fn hint(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(name): Path<String>,
    query: Result<Query<HintQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    who(&s, &headers).await?;
    let Some((cfg, _)) = s.table(&name) else {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "no-table",
            format!("there is no table `{name}`"),
        ));
    };
    if !cfg.hints {
        return Err(ApiError(
            StatusCode::FORBIDDEN,
            "hints-off",
            format!("table `{name}` gives no strategy hints"),
        ));
    }
    let Query(q) = query.map_err(|e| {
        bad(format!(
            "ask with hand=7h,9c&up=Ts&choices=hit,stand: {}",
            e.body_text()
        ))
    })?;
    let hand = cards(&q.hand)?;
    let up = *cards(&q.up)?
        .first()
        .filter(|_| !q.up.contains(','))
        .ok_or_else(|| bad("the up card is one card".to_string()))?;
    let offered = decisions(&q.choices)?;
    let rules = cfg.rules.clone();
    let peek = rules.dealer().peek;
    let server = s.clone();
    let strategy = tokio::task::spawn_blocking(move || server.strategies().of(&rules))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let h = strategy.and_then(|st| felt_math::hint::hint(&st, peek, &hand, up, offered));
    Ok(Json(hint_json(h)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_protocol_words_and_cards_are_checked() {
        assert_eq!(
            decisions("hit,stand,double").ok(),
            Some(Decisions(
                Decisions::HIT.0 | Decisions::STAND.0 | Decisions::DOUBLE.0
            ))
        );
        assert!(decisions("fold").is_err());
        assert!(decisions("").is_err());
        assert!(cards("7h,9c").is_ok_and(|c| c.len() == 2));
        assert!(cards("7x").is_err());
        assert!(cards("").is_err());
    }
}
