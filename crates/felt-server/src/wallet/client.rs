//! Sends the calls of the wallet contract, signed, and judges the answers: a `200`
//! that is the call's answer, a `4xx` refusal with a known code, or a lost answer
//! (everything else), logged and counted in `/metrics`.

use super::settings::WalletSettings;
use super::signature::{sign, unix_now, HEADER};
use super::wire::{Call, Checked, Refusal};
use crate::metrics::Metrics;
use std::sync::Arc;
use std::time::Instant;

/// The largest answer read (bytes); a longer one is not the contract's.
pub const MAX_ANSWER: usize = 64 * 1024;

/// What came of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<A> {
    /// A `200` with the call's answer.
    Answered(A),
    /// A `4xx` with one of the contract's codes: nothing was done.
    Refused(Refusal),
    /// No answer the contract knows: the call's fate is unknown.
    Lost(Lost),
}

/// Why an answer counts as lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LostReason {
    /// No answer within the timeout.
    Timeout,
    /// The connection failed or was closed before the answer.
    Connection,
    /// A `5xx`.
    ServerError,
    /// A status the contract does not use (`3xx`, a `2xx` other than `200`...).
    Status,
    /// A `200` or `4xx` whose body is not what the contract says.
    NotTheContract,
}

impl LostReason {
    /// Its name in logs and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            LostReason::Timeout => "timeout",
            LostReason::Connection => "connection",
            LostReason::ServerError => "server-error",
            LostReason::Status => "status",
            LostReason::NotTheContract => "not-the-contract",
        }
    }
}

/// A lost answer: why, and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    /// The kind of loss.
    pub reason: LostReason,
    /// What was seen (the status, the parse error...).
    pub detail: String,
}

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason.as_str(), self.detail)
    }
}

/// The client of one operator's wallet.
#[derive(Clone)]
pub struct WalletClient {
    http: reqwest::Client,
    settings: Arc<WalletSettings>,
    metrics: Arc<Metrics>,
}

impl WalletClient {
    /// A client of the wallet `settings` name, counting into `metrics`.
    pub fn new(settings: WalletSettings, metrics: Arc<Metrics>) -> Result<WalletClient, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("felt/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("the wallet's HTTP client cannot be made: {e}"))?;
        Ok(WalletClient {
            http,
            settings: Arc::new(settings),
            metrics,
        })
    }

    /// The wallet's settings.
    pub fn settings(&self) -> &WalletSettings {
        &self.settings
    }

    /// Sends `call`, signed, and judges the answer.
    pub async fn send<C: Call>(&self, call: &C) -> Outcome<C::Answer> {
        let started = Instant::now();
        let outcome = self.exchange(call).await;
        self.metrics
            .wallet_seconds
            .observe(started.elapsed().as_secs_f64());
        let label = match &outcome {
            Outcome::Answered(_) => "answered",
            Outcome::Refused(_) => "refused",
            Outcome::Lost(lost) => {
                tracing::warn!(call = C::NAME, reason = lost.reason.as_str(), detail = %lost.detail,
                    "a wallet answer was lost");
                self.metrics.wallet_lost(C::NAME, lost.reason.as_str());
                "lost"
            }
        };
        self.metrics.wallet_call(C::NAME, label);
        outcome
    }

    async fn exchange<C: Call>(&self, call: &C) -> Outcome<C::Answer> {
        let lost = |reason, detail: String| Outcome::Lost(Lost { reason, detail });
        let body = match serde_json::to_vec(call) {
            Ok(b) => b,
            Err(e) => return lost(LostReason::NotTheContract, format!("unsendable call: {e}")),
        };
        let signature = sign(self.settings.secret(), unix_now(), &body);
        let sent = self
            .http
            .post(self.settings.url_of(C::NAME))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(HEADER, signature)
            .body(body)
            .send()
            .await;
        let mut response = match sent {
            Ok(r) => r,
            Err(e) => return lost(transport_reason(&e), e.to_string()),
        };
        let status = response.status();
        let mut bytes = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > MAX_ANSWER {
                        return lost(
                            LostReason::NotTheContract,
                            format!("an answer over {MAX_ANSWER} bytes"),
                        );
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return lost(transport_reason(&e), e.to_string()),
            }
        }
        judge::<C::Answer>(status.as_u16(), &bytes)
    }
}

fn transport_reason(e: &reqwest::Error) -> LostReason {
    if e.is_timeout() {
        LostReason::Timeout
    } else {
        LostReason::Connection
    }
}

/// What an answer of `status` with `body` is, for a call whose answer is `A`.
pub fn judge<A: serde::de::DeserializeOwned + Checked>(status: u16, body: &[u8]) -> Outcome<A> {
    let lost = |reason, detail: String| Outcome::Lost(Lost { reason, detail });
    match status {
        200 => match serde_json::from_slice::<A>(body) {
            Ok(answer) => match answer.problem() {
                None => Outcome::Answered(answer),
                Some(p) => lost(LostReason::NotTheContract, p),
            },
            Err(e) => lost(
                LostReason::NotTheContract,
                format!("a 200 that is no answer: {e}"),
            ),
        },
        400..=499 => match serde_json::from_slice::<Refusal>(body) {
            Ok(r) if r.message.len() <= super::wire::MAX_TEXT * 5 => Outcome::Refused(r),
            Ok(_) => lost(
                LostReason::NotTheContract,
                "a refusal's message too long".into(),
            ),
            Err(e) => lost(
                LostReason::NotTheContract,
                format!("a {status} without a refusal the contract knows: {e}"),
            ),
        },
        500..=599 => lost(LostReason::ServerError, format!("status {status}")),
        other => lost(LostReason::Status, format!("status {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wallet::wire::{BalanceAnswer, RefusalCode};
    use felt_core::money::Money;

    fn reason(o: Outcome<BalanceAnswer>) -> LostReason {
        match o {
            Outcome::Lost(l) => l.reason,
            other => panic!("not lost: {other:?}"),
        }
    }

    #[test]
    fn answers_are_judged_by_status_and_body() {
        assert_eq!(
            judge::<BalanceAnswer>(200, br#"{"balance":"12.30"}"#),
            Outcome::Answered(BalanceAnswer::new(Money::cents(1_230)))
        );
        assert_eq!(
            judge::<BalanceAnswer>(
                402,
                br#"{"error":"insufficient-funds","message":"3.00 left"}"#
            ),
            Outcome::Refused(Refusal {
                error: RefusalCode::InsufficientFunds,
                message: "3.00 left".into()
            })
        );
        for (status, body, why) in [
            (
                200,
                &br#"{"balance":"12.3"}"#[..],
                LostReason::NotTheContract,
            ),
            (200, br#"{"balance":12.30}"#, LostReason::NotTheContract),
            (200, br#"{}"#, LostReason::NotTheContract),
            (
                200,
                br#"{"error":"insufficient-funds","message":"no"}"#,
                LostReason::NotTheContract,
            ),
            (
                200,
                br#"{"balance":"1.00","error":"x"}"#,
                LostReason::NotTheContract,
            ),
            (200, b"<html>ok</html>", LostReason::NotTheContract),
            (404, b"not found", LostReason::NotTheContract),
            (
                409,
                br#"{"error":"try-later","message":""}"#,
                LostReason::NotTheContract,
            ),
            (500, br#"{"balance":"1.00"}"#, LostReason::ServerError),
            (503, b"", LostReason::ServerError),
            (201, br#"{"balance":"1.00"}"#, LostReason::Status),
            (302, b"", LostReason::Status),
        ] {
            assert_eq!(
                reason(judge(status, body)),
                why,
                "{status} {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
