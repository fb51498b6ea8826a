//! The retry worker: sends the wallet calls of the books' outbox that are due, with
//! backoff, until the operator answers definitively; across restarts, since every call
//! and its attempts are in the books.
//!
//! - Credits and rollbacks are sent again until acknowledged or refused; after the
//!   policy's `retry_for_ms` they fail as given up.
//! - A closing credit (`round_closed`) waits until no rollback or debit of its round is
//!   pending: it is the round's last call at the operator.
//! - A debit is sent by its table, once. One still pending when it is due again (its
//!   table stopped, or never recorded the answer) has an unknown fate: it is marked lost,
//!   and the books write its rollback.

use super::client::{Outcome, WalletClient};
use super::wire::{
    request_id, BalanceAnswer, Credit, Debit, MeterAmount, RefusalCode, Rollback, Wager, Win,
    WireMoney,
};
use felt_store::{
    Store, StoreError, WalletAnswer, WalletCall, WalletCallKind, WalletQuery, WalletState,
};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The rest of a debit's body, as the outbox keeps it (`detail_json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebitDetail {
    /// The wagers.
    pub wagers: Vec<Wager>,
    /// Their part that goes to progressive meters.
    pub jackpot: Vec<MeterAmount>,
}

/// The rest of a credit's body, as the outbox keeps it (`detail_json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreditDetail {
    /// Whether the round ends with this credit.
    pub round_closed: bool,
    /// The wins.
    pub wins: Vec<Win>,
    /// A progressive's award.
    pub jackpot_award: Option<MeterAmount>,
}

/// A call of the outbox as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outbound {
    /// A debit.
    Debit(Debit),
    /// A credit.
    Credit(Credit),
    /// A rollback.
    Rollback(Rollback),
}

/// The request of an outbox call, with a fresh `request_id`; `Err` for a row whose
/// detail is not what felt writes.
pub fn outbound(call: &WalletCall) -> Result<Outbound, String> {
    let round = call.round.0.to_string();
    let bad = |e: serde_json::Error| format!("wallet call {}: {e}", call.transaction_id);
    Ok(match call.kind {
        WalletCallKind::Debit => {
            let d: DebitDetail = serde_json::from_str(&call.detail_json).map_err(bad)?;
            Outbound::Debit(Debit {
                request_id: request_id(),
                transaction_id: call.transaction_id.clone(),
                player: call.player.clone(),
                round,
                amount: WireMoney(call.amount),
                wagers: d.wagers,
                jackpot: d.jackpot,
            })
        }
        WalletCallKind::Credit => {
            let c: CreditDetail = serde_json::from_str(&call.detail_json).map_err(bad)?;
            Outbound::Credit(Credit {
                request_id: request_id(),
                transaction_id: call.transaction_id.clone(),
                player: call.player.clone(),
                round,
                amount: WireMoney(call.amount),
                round_closed: c.round_closed,
                wins: c.wins,
                jackpot_award: c.jackpot_award,
            })
        }
        WalletCallKind::Rollback => Outbound::Rollback(Rollback {
            request_id: request_id(),
            transaction_id: call.transaction_id.clone(),
            player: call.player.clone(),
            round,
            rolls_back: call
                .rolls_back
                .clone()
                .ok_or_else(|| format!("rollback {} names no debit", call.transaction_id))?,
        }),
    })
}

/// How the worker retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first pause after a lost answer (ms).
    pub first_ms: i64,
    /// The longest pause (ms).
    pub max_ms: i64,
    /// How long a call is retried, from when it was written (ms).
    pub retry_for_ms: i64,
    /// How long a debit written and never sent may wait for its table (ms).
    pub debit_grace_ms: i64,
    /// The most calls one pass takes up.
    pub batch: usize,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            first_ms: 1_000,
            max_ms: 300_000,
            retry_for_ms: 72 * 3_600_000,
            debit_grace_ms: 30_000,
            batch: 100,
        }
    }
}

impl RetryPolicy {
    /// The pause after attempt `attempt` (1, 2, ...): doubling from `first_ms`, at most
    /// `max_ms`, then ±20% (`jitter` in [-1, 1]).
    pub fn pause_ms(&self, attempt: u32, jitter: f64) -> i64 {
        let doublings = attempt.saturating_sub(1).min(40);
        let base = self
            .first_ms
            .saturating_mul(1_i64 << doublings)
            .min(self.max_ms);
        let spread = (base as f64 * 0.2 * jitter.clamp(-1.0, 1.0)) as i64;
        (base + spread).max(1)
    }
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pass {
    /// Calls acknowledged.
    pub acknowledged: usize,
    /// Calls refused (failed with the operator's reason).
    pub refused: usize,
    /// Calls whose answer was lost again.
    pub lost: usize,
    /// Closing credits held back by a pending rollback or debit of their round.
    pub held: usize,
    /// Debits found with an unknown fate, marked lost (and so rolled back).
    pub debits_rolled_back: usize,
    /// Calls given up.
    pub gave_up: usize,
}

/// The books, shared with blocking calls.
pub type SharedStore = Arc<Mutex<Box<dyn Store + Send>>>;

/// The retry worker of one server.
pub struct OutboxWorker {
    store: SharedStore,
    client: WalletClient,
    policy: RetryPolicy,
    /// Where the operator's balances in the answers are noted, if anywhere.
    balances: Option<Arc<super::table::Balances>>,
}

async fn blocking<T: Send + 'static>(
    store: &SharedStore,
    f: impl FnOnce(&mut dyn Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || {
        let mut s = store
            .lock()
            .map_err(|_| StoreError::InvalidInput("the books' lock was poisoned".into()))?;
        f(&mut **s)
    })
    .await
    .map_err(|e| StoreError::InvalidInput(format!("a books call failed: {e}")))?
}

impl OutboxWorker {
    /// A worker sending the outbox of `store` to `client`'s wallet.
    pub fn new(store: SharedStore, client: WalletClient, policy: RetryPolicy) -> OutboxWorker {
        OutboxWorker {
            store,
            client,
            policy,
            balances: None,
        }
    }

    /// Notes the balances the operator answers with in `balances` (what the tables
    /// show and set their rounds up with).
    pub fn with_balances(mut self, balances: Arc<super::table::Balances>) -> OutboxWorker {
        self.balances = Some(balances);
        self
    }

    /// Like [`OutboxWorker::run`], and also at once when `wake` is notified (a round
    /// closed: its credits are due); ends once `stopped` is set (and `wake` notified).
    pub async fn run_woken(
        self,
        every: Duration,
        wake: Arc<tokio::sync::Notify>,
        stopped: Arc<std::sync::atomic::AtomicBool>,
    ) {
        while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
            if let Err(e) = self.pass(now_ms()).await {
                tracing::warn!(error = %e, "the wallet outbox pass failed");
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = wake.notified() => {}
            }
        }
    }

    /// Runs passes every `every` until the process ends; a failed pass is logged and
    /// tried again at the next.
    pub async fn run(self, every: Duration) {
        loop {
            if let Err(e) = self.pass(now_ms()).await {
                tracing::warn!(error = %e, "the wallet outbox pass failed");
            }
            tokio::time::sleep(every).await;
        }
    }

    /// Takes up the calls due at `now_ms`, oldest first.
    pub async fn pass(&self, now_ms: i64) -> Result<Pass, StoreError> {
        let query = WalletQuery {
            state: Some(WalletState::Pending),
            due_at_ms: Some(now_ms),
            limit: Some(self.policy.batch),
            ..WalletQuery::default()
        };
        let due = blocking(&self.store, move |s| s.wallet_calls(&query)).await?;
        let mut pass = Pass::default();
        for call in due {
            self.take_up(call, now_ms, &mut pass).await?;
        }
        Ok(pass)
    }

    async fn answer(&self, id: &str, answer: WalletAnswer) -> Result<WalletCall, StoreError> {
        let id = id.to_string();
        blocking(&self.store, move |s| s.wallet_answer(&id, &answer)).await
    }

    async fn take_up(
        &self,
        call: WalletCall,
        now_ms: i64,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        let id = call.transaction_id.clone();
        if call.kind == WalletCallKind::Debit {
            let never_sent = call.attempts == 0;
            if never_sent && call.created_ms.saturating_add(self.policy.debit_grace_ms) > now_ms {
                return Ok(());
            }
            let detail = if never_sent {
                "written but not sent by its table"
            } else {
                "no answer recorded by its table"
            };
            self.answer(
                &id,
                WalletAnswer::Lost {
                    detail: detail.into(),
                },
            )
            .await?;
            pass.debits_rolled_back += 1;
            return Ok(());
        }
        if now_ms.saturating_sub(call.created_ms) > self.policy.retry_for_ms {
            let reason = format!(
                "no definitive answer after {} attempts in {} h",
                call.attempts,
                self.policy.retry_for_ms / 3_600_000
            );
            self.answer(&id, WalletAnswer::GaveUp { reason }).await?;
            pass.gave_up += 1;
            return Ok(());
        }
        if call.kind == WalletCallKind::Credit && self.round_unsettled(&call).await? {
            pass.held += 1;
            return Ok(());
        }
        let request = match outbound(&call) {
            Ok(r) => r,
            Err(e) => {
                self.answer(&id, WalletAnswer::GaveUp { reason: e }).await?;
                pass.gave_up += 1;
                return Ok(());
            }
        };
        let jitter = rand::random::<f64>() * 2.0 - 1.0;
        let retry_at = now_ms.saturating_add(self.policy.pause_ms(call.attempts + 1, jitter));
        let attempt_id = id.clone();
        let now = blocking(&self.store, move |s| {
            s.wallet_attempt(&attempt_id, retry_at)
        })
        .await?;
        if now.state != WalletState::Pending {
            return Ok(());
        }
        let outcome = match &request {
            Outbound::Credit(c) => self.client.send(c).await,
            Outbound::Rollback(r) => self.client.send(r).await,
            Outbound::Debit(d) => self.client.send(d).await,
        };
        let answer = answer_of(call.kind, outcome);
        match &answer {
            WalletAnswer::Acknowledged { balance } => {
                if let Some(b) = &self.balances {
                    b.set(&call.player, *balance);
                }
                pass.acknowledged += 1
            }
            WalletAnswer::Refused { .. } => pass.refused += 1,
            _ => pass.lost += 1,
        }
        self.answer(&id, answer).await?;
        Ok(())
    }

    /// Whether `credit` closes its round while a rollback of the round is pending, or
    /// a debit of it whose fate is unknown (its server died before recording the
    /// answer: it may yet be rolled back, and the closing credit must come after).
    async fn round_unsettled(&self, credit: &WalletCall) -> Result<bool, StoreError> {
        let closes = serde_json::from_str::<CreditDetail>(&credit.detail_json)
            .map(|d| d.round_closed)
            .unwrap_or(false);
        if !closes {
            return Ok(false);
        }
        let query = WalletQuery {
            round: Some(credit.round),
            state: Some(WalletState::Pending),
            ..WalletQuery::default()
        };
        let pending = blocking(&self.store, move |s| s.wallet_calls(&query)).await?;
        Ok(pending.iter().any(|c| c.kind != WalletCallKind::Credit))
    }
}

/// What the books record of an outcome. A `bad-signature` refusal of a credit or a
/// rollback is retried (the staff fix the secret; the money is still owed).
pub fn answer_of(kind: WalletCallKind, outcome: Outcome<BalanceAnswer>) -> WalletAnswer {
    match outcome {
        Outcome::Answered(a) => WalletAnswer::Acknowledged {
            balance: a.balance.0,
        },
        Outcome::Refused(r)
            if r.error == RefusalCode::BadSignature && kind != WalletCallKind::Debit =>
        {
            WalletAnswer::Lost {
                detail: format!("bad-signature: {}", r.message),
            }
        }
        Outcome::Refused(r) => WalletAnswer::Refused {
            code: r.error.as_str().to_string(),
            message: r.message,
        },
        Outcome::Lost(l) => WalletAnswer::Lost {
            detail: l.to_string(),
        },
    }
}

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wallet::wire::Refusal;
    use felt_core::money::Money;

    #[test]
    fn the_pause_doubles_up_to_the_most_and_spreads_by_a_fifth() {
        let p = RetryPolicy::default();
        assert_eq!(p.pause_ms(1, 0.0), 1_000);
        assert_eq!(p.pause_ms(2, 0.0), 2_000);
        assert_eq!(p.pause_ms(4, 0.0), 8_000);
        assert_eq!(p.pause_ms(30, 0.0), 300_000);
        assert_eq!(p.pause_ms(u32::MAX, 0.0), 300_000);
        assert_eq!(p.pause_ms(1, 1.0), 1_200);
        assert_eq!(p.pause_ms(1, -1.0), 800);
        assert_eq!(p.pause_ms(1, 7.0), 1_200);
    }

    #[test]
    fn a_bad_signature_is_retried_for_money_owed_and_refuses_a_debit() {
        let bad = || {
            Outcome::Refused(Refusal {
                error: RefusalCode::BadSignature,
                message: "wrong secret".into(),
            })
        };
        assert!(matches!(
            answer_of(WalletCallKind::Credit, bad()),
            WalletAnswer::Lost { .. }
        ));
        assert!(matches!(
            answer_of(WalletCallKind::Rollback, bad()),
            WalletAnswer::Lost { .. }
        ));
        assert!(matches!(
            answer_of(WalletCallKind::Debit, bad()),
            WalletAnswer::Refused { .. }
        ));
        assert_eq!(
            answer_of(
                WalletCallKind::Credit,
                Outcome::Answered(BalanceAnswer::new(Money::cents(5)))
            ),
            WalletAnswer::Acknowledged {
                balance: Money::cents(5)
            }
        );
    }
}
