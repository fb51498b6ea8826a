//! The test mode that deals a given shoe (`felt serve --test-shoes`, refused unless the
//! server listens on a loopback address; off by default).
//!
//! `POST /api/test/tables/NAME/shoe` with `{"cards": ["Ah", "Kd", ...]}` makes the
//! table's next round deal those cards first, in order (burns included, as
//! `felt play --shoe FILE` stacks a shoe: the rest of the shoe shuffled behind them).
//! A betting window open with no bet yet is set up again from the stacked shoe. The
//! round is marked in the books as a test lab's stacked shoe, so `felt verify` and
//! `felt history` never take it for a fair shuffle. Without the test mode the
//! endpoint does not exist (`404`); with it, only an operator's session may stack a
//! shoe (`401 no-session`, `403 forbidden`), even on loopback.

use crate::app::Shared;
use crate::table::ToTable;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_core::{Card, Shoe};
use rand::SeedableRng;
use serde::Deserialize;
use serde_json::json;

/// The mark a stacked round carries in the books.
pub const MARK: &str = "test lab: --shoe (felt serve --test-shoes)";

/// The body of a stacking request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackBody {
    /// The cards to deal first, in order (`7h`, `Ts`, ...).
    cards: Vec<String>,
}

fn refuse(status: StatusCode, code: &str, message: String) -> Response {
    (status, Json(json!({"error": code, "message": message}))).into_response()
}

/// Whether a request may use the test mode: the mode is on (else `404`, as if the page
/// did not exist) and the session is an operator's (`401`, `403`).
pub async fn admitted(s: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    if !s.settings().test_shoes {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            "not-found",
            "there is no such page (the test mode is off)".to_string(),
        ));
    }
    crate::app::operator(s, headers)
        .await
        .map(|_| ())
        .map_err(IntoResponse::into_response)
}

/// A shoe of the rules' decks with `cards` first, the rest shuffled from entropy.
pub fn stacked(rules: &felt_core::Rules, cards: &[Card]) -> Result<Shoe, String> {
    let mut rng = rand_chacha::ChaCha20Rng::from_seed(rand::random());
    let mut s = Shoe::stacked(rules.shoe().decks, cards, &mut rng).map_err(|e| e.to_string())?;
    s.set_penetration(rules.shoe().penetration);
    Ok(s)
}

/// `POST /api/test/tables/NAME/shoe`: stacks the table's next shoe.
pub async fn stack(
    State(s): State<Shared>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Result<Json<StackBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if let Err(refused) = admitted(&s, &headers).await {
        return refused;
    }
    let Some((cfg, handle)) = s.table(&name) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "no-table",
            format!("there is no table `{name}`"),
        );
    };
    let Json(body) = match body {
        Ok(b) => b,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "bad-request",
                format!(
                    "the body must be JSON {{\"cards\": [\"Ah\", ...]}}: {}",
                    e.body_text()
                ),
            )
        }
    };
    let holds = usize::from(cfg.rules.shoe().decks) * 52;
    if body.cards.len() > holds {
        return refuse(
            StatusCode::BAD_REQUEST,
            "bad-shoe",
            format!(
                "{} cards: this table's shoe holds {holds}",
                body.cards.len()
            ),
        );
    }
    let mut cards = Vec::with_capacity(body.cards.len());
    for c in &body.cards {
        match c.parse::<Card>() {
            Ok(card) => cards.push(card),
            Err(e) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "bad-card",
                    format!("`{c}` is not a card ({e}): write 7h, Ts, Qs, Ad"),
                )
            }
        }
    }
    let shoe = match stacked(&cfg.rules, &cards) {
        Ok(s) => s,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, "bad-shoe", e),
    };
    let Some(handle) = handle else {
        return refuse(
            StatusCode::CONFLICT,
            "not-here",
            format!("table `{name}` is dealt by another server: stack its shoe there"),
        );
    };
    if handle.tx.send(ToTable::Stack { shoe }).is_err() {
        return refuse(
            StatusCode::CONFLICT,
            "table-closed",
            "the table is closed".to_string(),
        );
    }
    tracing::warn!(table = %name, cards = cards.len(), "test mode: the next round deals a stacked shoe");
    (
        StatusCode::ACCEPTED,
        Json(json!({"table": name, "cards": cards.len()})),
    )
        .into_response()
}
