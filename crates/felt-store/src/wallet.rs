//! The outbox of calls to an operator's wallet (schema 7): what the rules are whatever
//! engine keeps the books.
//!
//! A debit or a credit is written with the round's step that causes it
//! ([`Step::wallet`](crate::Step::wallet)), in the same transaction, before it is sent;
//! each call then goes `pending` → `acknowledged` or `failed` (with the reason), and a
//! debit that was rolled back ends `rolled-back`. The books make the rollbacks
//! themselves, so that none is forgotten: a debit whose answer is lost, and every debit
//! of a voided round, gets a rollback call of id [`rollback_id`] in the same
//! transaction. Nothing is ever deleted, and a call keeps its id, kind, round, player,
//! amount and detail for ever (the sender sends the same content again after a crash).

use crate::error::{Result, StoreError};
use crate::model::{validate_json, RoundId};
use felt_core::money::Money;
use serde::Serialize;
use std::fmt;

/// The longest transaction id felt makes (its rollback's id is [`ROLLBACK_SUFFIX`]
/// longer).
pub const MAX_TRANSACTION_ID: usize = 100;

/// What a debit's id gets for its rollback's id.
pub const ROLLBACK_SUFFIX: &str = "-rollback";

/// The longest player id or failure reason kept.
const MAX_TEXT: usize = 1_000;

/// The id of the rollback of debit `debit`.
pub fn rollback_id(debit: &str) -> String {
    format!("{debit}{ROLLBACK_SUFFIX}")
}

/// The id of debit number `n` (1, 2, ...) of the player at engine seat `seat` (0, 1,
/// ...) in `round`: `felt-ROUND-sSEAT-dN`, the seat numbered from 1.
pub fn debit_id(round: RoundId, seat: u8, n: u32) -> String {
    format!("felt-{}-s{}-d{n}", round.0, u16::from(seat) + 1)
}

/// The memo of the deposit by which a step brings the money of acknowledged debit
/// `debit` into the player's (mirror) account: how the books tell a debit a step
/// used from one the operator took while no step did (felt stopped in between).
pub fn funding_memo(debit: &str) -> String {
    format!("wallet debit {debit}")
}

/// The id of the closing credit of the player at engine seat `seat` in `round`:
/// `felt-ROUND-sSEAT-c`.
pub fn credit_id(round: RoundId, seat: u8) -> String {
    format!("felt-{}-s{}-c", round.0, u16::from(seat) + 1)
}

/// The closing credit's id for the player of debit `debit` (made by [`debit_id`]).
fn credit_id_of_debit(debit: &str) -> Option<String> {
    let (head, n) = debit.rsplit_once("-d")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| format!("{head}-c"))
}

/// The detail of a closing credit that pays nothing (a voided round).
pub const CLOSING_NOTHING: &str = r#"{"round_closed":true,"wins":[],"jackpot_award":null}"#;

/// The closing credits of `0.00` a voided round still owes: one for each player with a
/// debit that was not refused and no credit yet (the round ends at the operator).
pub(crate) fn closing_credits(calls: &[WalletCall]) -> Vec<NewWalletCall> {
    let mut out: Vec<NewWalletCall> = Vec::new();
    for d in calls.iter().filter(|c| {
        c.kind == WalletCallKind::Debit && !(c.state == WalletState::Failed && c.rollback.is_none())
    }) {
        let Some(id) = credit_id_of_debit(&d.transaction_id) else {
            continue;
        };
        let credited = calls
            .iter()
            .any(|c| c.kind == WalletCallKind::Credit && c.player == d.player);
        if credited
            || out
                .iter()
                .any(|c| c.transaction_id == id || c.player == d.player)
        {
            continue;
        }
        out.push(NewWalletCall {
            transaction_id: id,
            kind: WalletCallKind::Credit,
            player: d.player.clone(),
            amount: Money::ZERO,
            detail_json: CLOSING_NOTHING.to_string(),
        });
    }
    out
}

/// What a wallet call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WalletCallKind {
    /// Takes a stake from the player's balance at the operator.
    Debit,
    /// Pays the player (and, with `round_closed`, ends the round at the operator).
    Credit,
    /// Undoes a debit (made by the books, never given in a step).
    Rollback,
}

impl WalletCallKind {
    /// The name kept in the books and used in the wallet's URL.
    pub fn as_str(self) -> &'static str {
        match self {
            WalletCallKind::Debit => "debit",
            WalletCallKind::Credit => "credit",
            WalletCallKind::Rollback => "rollback",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<WalletCallKind> {
        [
            WalletCallKind::Debit,
            WalletCallKind::Credit,
            WalletCallKind::Rollback,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl fmt::Display for WalletCallKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a wallet call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WalletState {
    /// Written, not yet answered definitively: to be sent (again).
    Pending,
    /// The operator took it.
    Acknowledged,
    /// A debit whose rollback the operator took: no money of it moved.
    RolledBack,
    /// The operator refused it, or felt gave up on it (the reason says which).
    Failed,
}

impl WalletState {
    /// The name kept in the books.
    pub fn as_str(self) -> &'static str {
        match self {
            WalletState::Pending => "pending",
            WalletState::Acknowledged => "acknowledged",
            WalletState::RolledBack => "rolled-back",
            WalletState::Failed => "failed",
        }
    }

    /// The state of this name.
    pub fn parse(s: &str) -> Option<WalletState> {
        [
            WalletState::Pending,
            WalletState::Acknowledged,
            WalletState::RolledBack,
            WalletState::Failed,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl fmt::Display for WalletState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A debit or credit to put in the outbox with a round's step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWalletCall {
    /// Its id at the operator: unique in the books, at most [`MAX_TRANSACTION_ID`]
    /// ASCII letters, digits, `-`, `_`, `.` or `:`.
    pub transaction_id: String,
    /// [`WalletCallKind::Debit`] or [`WalletCallKind::Credit`].
    pub kind: WalletCallKind,
    /// The player's id at the operator.
    pub player: String,
    /// The amount (above zero for a debit; zero or more for a credit).
    pub amount: Money,
    /// The rest of the call's body (wagers and jackpot contributions, or wins, the
    /// award and `round_closed`), JSON, kept byte for byte.
    pub detail_json: String,
}

impl NewWalletCall {
    /// Checks the call; a typed error says what is wrong.
    pub(crate) fn validate(&self) -> Result<()> {
        let refuse = |why: String| Err(StoreError::InvalidInput(why));
        check_transaction_id(&self.transaction_id)?;
        if self.kind == WalletCallKind::Rollback {
            return refuse(format!(
                "wallet call {}: rollbacks are made by the books, not given in a step",
                self.transaction_id
            ));
        }
        if self.player.trim().is_empty()
            || self.player.len() > MAX_TEXT
            || self.player.chars().any(char::is_control)
        {
            return refuse(format!(
                "wallet call {}: the player id must be 1 to {MAX_TEXT} bytes without control \
                 characters",
                self.transaction_id
            ));
        }
        let cents = self.amount.as_cents();
        if cents < 0 || (self.kind == WalletCallKind::Debit && cents == 0) {
            return refuse(format!(
                "wallet call {}: a {} of {} (a debit is above zero, a credit not below)",
                self.transaction_id, self.kind, self.amount
            ));
        }
        validate_json(
            &format!("detail of wallet call {}", self.transaction_id),
            &self.detail_json,
        )
    }
}

/// Checks every call given in a step or on their own.
pub(crate) fn validate_all(calls: &[NewWalletCall]) -> Result<()> {
    calls.iter().try_for_each(NewWalletCall::validate)
}

/// Checks a transaction id as felt makes them.
fn check_transaction_id(id: &str) -> Result<()> {
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
    if id.is_empty() || id.len() > MAX_TRANSACTION_ID || !id.chars().all(fine) {
        return Err(StoreError::InvalidInput(format!(
            "the transaction id `{}` is not 1 to {MAX_TRANSACTION_ID} ASCII letters, digits, \
             `-`, `_`, `.` or `:`",
            id.escape_debug()
        )));
    }
    Ok(())
}

/// A wallet call as the books keep it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WalletCall {
    /// The order it was written in (grows with every call).
    pub seq: i64,
    /// Its id at the operator.
    pub transaction_id: String,
    /// What it does.
    pub kind: WalletCallKind,
    /// The round it belongs to.
    pub round: RoundId,
    /// The table of that round.
    pub table: String,
    /// The player's id at the operator.
    pub player: String,
    /// The amount.
    pub amount: Money,
    /// The rest of the body, JSON (`{}` for a rollback).
    pub detail_json: String,
    /// For a rollback, the debit it undoes.
    pub rolls_back: Option<String>,
    /// For a debit, the id of its rollback once one was written.
    pub rollback: Option<String>,
    /// Where it stands.
    pub state: WalletState,
    /// Why it failed (a refusal's code and message, or why felt gave up).
    pub reason: Option<String>,
    /// The player's balance at the operator in its acknowledgement.
    pub balance: Option<Money>,
    /// How many times it was sent.
    pub attempts: u32,
    /// When it may be sent again (Unix ms).
    pub next_attempt_ms: i64,
    /// What went wrong with the last attempt whose answer was lost.
    pub last_error: Option<String>,
    /// When it was written (Unix ms).
    pub created_ms: i64,
    /// When it was answered definitively (Unix ms).
    pub settled_ms: Option<i64>,
}

impl WalletCall {
    /// Whether voiding its round must roll it back: a debit not refused, with no
    /// rollback yet.
    pub(crate) fn needs_rollback_when_voided(&self) -> bool {
        self.kind == WalletCallKind::Debit
            && self.rollback.is_none()
            && matches!(self.state, WalletState::Pending | WalletState::Acknowledged)
    }
}

/// Which wallet calls to list ([`Store::wallet_calls`](crate::Store::wallet_calls)); every
/// filter given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalletQuery {
    /// Of this round only.
    pub round: Option<RoundId>,
    /// Of this table only.
    pub table: Option<String>,
    /// In this state only.
    pub state: Option<WalletState>,
    /// Written at or after this time (Unix ms).
    pub since_ms: Option<i64>,
    /// Due: may be sent again at this time (Unix ms).
    pub due_at_ms: Option<i64>,
    /// At most this many (oldest first); `None`: all.
    pub limit: Option<usize>,
}

/// What came of sending a wallet call ([`Store::wallet_answer`](crate::Store::wallet_answer)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalletAnswer {
    /// The operator took it; the player's balance there now.
    Acknowledged {
        /// The balance in the answer.
        balance: Money,
    },
    /// The operator refused it (a 4xx with a code).
    Refused {
        /// The refusal's code (`insufficient-funds`, ...).
        code: String,
        /// The operator's message.
        message: String,
    },
    /// No definitive answer (a timeout, a 5xx, a dropped connection, an answer that is
    /// not what the contract says, or felt restarted before the answer): the call stays
    /// pending, and a debit is rolled back (its rollback is written).
    Lost {
        /// What happened.
        detail: String,
    },
    /// felt stops trying (the retry setting ran out): the call fails with this reason.
    GaveUp {
        /// Why.
        reason: String,
    },
}

/// What an answer does to a call in the books, the same on every engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Transition {
    /// Nothing: the call was answered definitively before (the first answer stands),
    /// or it is a debit already being rolled back.
    None,
    /// The call becomes `state` (acknowledged or failed).
    Settle {
        state: WalletState,
        reason: Option<String>,
        balance: Option<i64>,
        /// A rollback acknowledged: its debit becomes `rolled-back`.
        debit_rolled_back: Option<String>,
    },
    /// The answer was lost: its error is noted; a debit gets its rollback.
    Lost { detail: String, roll_back: bool },
}

/// What `answer` does to `call`.
pub(crate) fn transition(call: &WalletCall, answer: &WalletAnswer) -> Result<Transition> {
    if call.state != WalletState::Pending || call.rollback.is_some() {
        return Ok(Transition::None);
    }
    let text = |s: &str| s.chars().take(MAX_TEXT).collect::<String>();
    Ok(match answer {
        WalletAnswer::Acknowledged { balance } => {
            if balance.as_cents() < 0 {
                return Err(StoreError::InvalidInput(format!(
                    "wallet call {}: a balance below zero ({balance}) is not an answer",
                    call.transaction_id
                )));
            }
            Transition::Settle {
                state: WalletState::Acknowledged,
                reason: None,
                balance: Some(balance.as_cents()),
                debit_rolled_back: match call.kind {
                    WalletCallKind::Rollback => call.rolls_back.clone(),
                    _ => None,
                },
            }
        }
        WalletAnswer::Refused { code, message } => Transition::Settle {
            state: WalletState::Failed,
            reason: Some(text(&format!("refused: {code}: {message}"))),
            balance: None,
            debit_rolled_back: None,
        },
        WalletAnswer::GaveUp { reason } => Transition::Settle {
            state: WalletState::Failed,
            reason: Some(text(&format!("gave up: {reason}"))),
            balance: None,
            debit_rolled_back: None,
        },
        WalletAnswer::Lost { detail } => Transition::Lost {
            detail: text(detail),
            roll_back: call.kind == WalletCallKind::Debit,
        },
    })
}

/// A wallet call's columns as read (both engines select [`COLUMNS`]).
pub(crate) struct WalletRow {
    pub seq: i64,
    pub transaction_id: String,
    pub kind: String,
    pub round: i64,
    pub table: String,
    pub player: String,
    pub amount_cents: i64,
    pub detail_json: String,
    pub rolls_back: Option<String>,
    pub rollback: Option<String>,
    pub state: String,
    pub reason: Option<String>,
    pub balance_cents: Option<i64>,
    pub attempts: i64,
    pub next_attempt_ms: i64,
    pub last_error: Option<String>,
    pub created_ms: i64,
    pub settled_ms: Option<i64>,
}

/// The columns of a [`WalletRow`], in its order.
pub(crate) const COLUMNS: &str = "seq, transaction_id, kind, round_id, table_id, player, \
    amount_cents, detail_json, rolls_back, rollback, state, reason, balance_cents, attempts, \
    next_attempt_ms, last_error, created_ms, settled_ms";

impl WalletRow {
    /// The call, or what is damaged in the row.
    pub(crate) fn into_call(self) -> std::result::Result<WalletCall, String> {
        let id = &self.transaction_id;
        let kind = WalletCallKind::parse(&self.kind)
            .ok_or_else(|| format!("wallet call {id} has the unknown kind `{}`", self.kind))?;
        let state = WalletState::parse(&self.state)
            .ok_or_else(|| format!("wallet call {id} has the unknown state `{}`", self.state))?;
        let attempts = u32::try_from(self.attempts)
            .map_err(|_| format!("wallet call {id} has {} attempts", self.attempts))?;
        Ok(WalletCall {
            seq: self.seq,
            transaction_id: self.transaction_id,
            kind,
            round: RoundId(self.round),
            table: self.table,
            player: self.player,
            amount: Money::cents(self.amount_cents),
            detail_json: self.detail_json,
            rolls_back: self.rolls_back,
            rollback: self.rollback,
            state,
            reason: self.reason,
            balance: self.balance_cents.map(Money::cents),
            attempts,
            next_attempt_ms: self.next_attempt_ms,
            last_error: self.last_error,
            created_ms: self.created_ms,
            settled_ms: self.settled_ms,
        })
    }
}

/// The limit of a query as SQL takes it (no limit: `i64::MAX`).
pub(crate) fn limit_of(q: &WalletQuery) -> i64 {
    q.limit
        .map_or(i64::MAX, |n| i64::try_from(n).unwrap_or(i64::MAX))
}

/// The error for a transaction id the books do not hold.
pub(crate) fn unknown(id: &str) -> StoreError {
    StoreError::UnknownWalletCall { id: id.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(kind: WalletCallKind) -> WalletCall {
        WalletCall {
            seq: 1,
            transaction_id: "r1-d1".into(),
            kind,
            round: RoundId(1),
            table: "t".into(),
            player: "p".into(),
            amount: Money::cents(500),
            detail_json: "{}".into(),
            rolls_back: (kind == WalletCallKind::Rollback).then(|| "r1-d0".into()),
            rollback: None,
            state: WalletState::Pending,
            reason: None,
            balance: None,
            attempts: 1,
            next_attempt_ms: 0,
            last_error: None,
            created_ms: 0,
            settled_ms: None,
        }
    }

    #[test]
    fn the_first_definitive_answer_stands() {
        let mut call = pending(WalletCallKind::Credit);
        call.state = WalletState::Acknowledged;
        let refused = WalletAnswer::Refused {
            code: "player-blocked".into(),
            message: "no".into(),
        };
        assert_eq!(transition(&call, &refused).unwrap(), Transition::None);
    }

    #[test]
    fn a_lost_debit_is_rolled_back_and_a_lost_credit_stays_pending() {
        let lost = WalletAnswer::Lost {
            detail: "timeout".into(),
        };
        for (kind, roll_back) in [
            (WalletCallKind::Debit, true),
            (WalletCallKind::Credit, false),
            (WalletCallKind::Rollback, false),
        ] {
            assert_eq!(
                transition(&pending(kind), &lost).unwrap(),
                Transition::Lost {
                    detail: "timeout".into(),
                    roll_back
                }
            );
        }
    }

    #[test]
    fn an_acknowledged_rollback_rolls_its_debit_back() {
        let ack = WalletAnswer::Acknowledged {
            balance: Money::cents(100),
        };
        match transition(&pending(WalletCallKind::Rollback), &ack).unwrap() {
            Transition::Settle {
                debit_rolled_back, ..
            } => assert_eq!(debit_rolled_back.as_deref(), Some("r1-d0")),
            other => panic!("{other:?}"),
        }
        let negative = WalletAnswer::Acknowledged {
            balance: Money::cents(-1),
        };
        assert!(transition(&pending(WalletCallKind::Debit), &negative).is_err());
    }

    #[test]
    fn a_voided_round_closes_once_for_each_player_who_was_not_refused() {
        let mut a1 = pending(WalletCallKind::Debit);
        a1.transaction_id = debit_id(RoundId(7), 0, 1);
        let mut a2 = a1.clone();
        a2.transaction_id = debit_id(RoundId(7), 0, 2);
        let mut b = a1.clone();
        b.transaction_id = debit_id(RoundId(7), 1, 1);
        b.player = "q".into();
        b.state = WalletState::Failed;
        let closing = closing_credits(&[a1.clone(), a2, b]);
        assert_eq!(closing.len(), 1);
        assert_eq!(closing[0].transaction_id, "felt-7-s1-c");
        assert_eq!(closing[0].amount, Money::ZERO);
        assert_eq!(closing[0].player, "p");
        let mut credit = pending(WalletCallKind::Credit);
        credit.transaction_id = credit_id(RoundId(7), 0);
        assert!(closing_credits(&[a1, credit]).is_empty());
    }

    #[test]
    fn calls_given_in_a_step_are_checked() {
        let good = NewWalletCall {
            transaction_id: "felt-12-d1".into(),
            kind: WalletCallKind::Debit,
            player: "p-1".into(),
            amount: Money::cents(1),
            detail_json: "{}".into(),
        };
        assert!(good.validate().is_ok());
        let bad = [
            NewWalletCall {
                transaction_id: "a b".into(),
                ..good.clone()
            },
            NewWalletCall {
                transaction_id: "x".repeat(MAX_TRANSACTION_ID + 1),
                ..good.clone()
            },
            NewWalletCall {
                kind: WalletCallKind::Rollback,
                ..good.clone()
            },
            NewWalletCall {
                amount: Money::ZERO,
                ..good.clone()
            },
            NewWalletCall {
                player: "a\nb".into(),
                ..good.clone()
            },
            NewWalletCall {
                detail_json: "{".into(),
                ..good.clone()
            },
        ];
        for b in bad {
            assert!(b.validate().is_err(), "{b:?}");
        }
        let zero_credit = NewWalletCall {
            kind: WalletCallKind::Credit,
            amount: Money::ZERO,
            ..good
        };
        assert!(zero_credit.validate().is_ok());
    }
}
