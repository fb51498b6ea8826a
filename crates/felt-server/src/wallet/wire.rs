//! The messages of the wallet contract (`docs/operators.md`): what felt sends, what the
//! operator answers, and the checks that make an answer the contract's or not.

use felt_core::money::Money;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Money on the wire: a string with exactly two decimals, no sign (`"10.00"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireMoney(pub Money);

/// The most digits before the point (a balance below ten trillion units).
const MAX_WHOLE_DIGITS: usize = 13;

impl WireMoney {
    /// Parses the contract's money format, strictly.
    pub fn parse(text: &str) -> Option<WireMoney> {
        let (whole, frac) = text.split_once('.')?;
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || whole.len() > MAX_WHOLE_DIGITS || frac.len() != 2 {
            return None;
        }
        if !digits(whole) || !digits(frac) {
            return None;
        }
        let w: i64 = whole.parse().ok()?;
        let f: i64 = frac.parse().ok()?;
        Some(WireMoney(Money::cents(w.checked_mul(100)?.checked_add(f)?)))
    }
}

impl fmt::Display for WireMoney {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Serialize for WireMoney {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WireMoney {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WireMoney, D::Error> {
        let text = String::deserialize(d)?;
        WireMoney::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{}` is not money as the contract writes it (\"10.00\")",
                text.escape_debug()
            ))
        })
    }
}

/// A call felt makes: its name (the last segment of its URL) and its answer.
pub trait Call: Serialize {
    /// The call's name: `POST URL/NAME`.
    const NAME: &'static str;
    /// What a `200` holds.
    type Answer: DeserializeOwned + Checked + fmt::Debug;
}

/// An answer's checks beyond its fields' types.
pub trait Checked {
    /// What is wrong with the answer, if anything.
    fn problem(&self) -> Option<String>;
}

/// `authenticate`: the player arrived with the operator's launch token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authenticate {
    /// Fresh for each request.
    pub request_id: String,
    /// The launch token.
    pub token: String,
}

/// `balance`: the player's balance now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    /// Fresh for each request.
    pub request_id: String,
    /// The operator's player id.
    pub player: String,
}

/// One wager of a debit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wager {
    /// The spot (seat position) it is on.
    pub spot: u8,
    /// `main`, a side bet's id, `double`, `split` or `insurance`.
    pub bet: String,
    /// Its stake.
    pub amount: WireMoney,
}

/// A progressive contribution: which part of the wagers goes to a meter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterAmount {
    /// The meter's id.
    pub meter: String,
    /// The amount.
    pub amount: WireMoney,
}

/// `debit`: takes a round's wagers from the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Debit {
    /// Fresh for each request.
    pub request_id: String,
    /// felt's id of this money, the same on every retry.
    pub transaction_id: String,
    /// The operator's player id.
    pub player: String,
    /// felt's round id.
    pub round: String,
    /// The sum of the wagers.
    pub amount: WireMoney,
    /// The wagers.
    pub wagers: Vec<Wager>,
    /// The part of the wagers that goes to progressive meters.
    pub jackpot: Vec<MeterAmount>,
}

/// One win of a credit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Win {
    /// The spot.
    pub spot: u8,
    /// The hand of the spot (1, and 2... after splits).
    pub hand: u8,
    /// The bet that won (or pushed).
    pub bet: String,
    /// What it returns, the stake included.
    pub amount: WireMoney,
}

/// `credit`: pays the player; with `round_closed`, the round's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    /// Fresh for each request.
    pub request_id: String,
    /// felt's id of this money, the same on every retry.
    pub transaction_id: String,
    /// The operator's player id.
    pub player: String,
    /// felt's round id.
    pub round: String,
    /// The sum of the wins and the award.
    pub amount: WireMoney,
    /// Whether the round ends with this credit.
    pub round_closed: bool,
    /// The wins.
    pub wins: Vec<Win>,
    /// A progressive's award, paid in this credit.
    pub jackpot_award: Option<MeterAmount>,
}

/// `rollback`: undoes a debit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rollback {
    /// Fresh for each request.
    pub request_id: String,
    /// This rollback's id (its debit's id and `-rollback`).
    pub transaction_id: String,
    /// The operator's player id.
    pub player: String,
    /// felt's round id.
    pub round: String,
    /// The debit it undoes.
    pub rolls_back: String,
}

/// Whether a body holds an `error` field, whatever its value (a 200 with an error
/// body is not an answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct ErrorField(bool);

impl<'de> Deserialize<'de> for ErrorField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ErrorField, D::Error> {
        IgnoredAny::deserialize(d).map(|_| ErrorField(true))
    }
}

/// The answer to `authenticate`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Authenticated {
    /// The operator's player id.
    pub player: String,
    /// The name to show.
    pub name: String,
    /// The currency (ISO 4217, three capital letters).
    pub currency: String,
    /// The balance.
    pub balance: WireMoney,
    /// Present only in an error body sent with a 200: not an answer.
    #[serde(default)]
    error: ErrorField,
}

/// The answer to `balance`, `debit`, `credit` and `rollback`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BalanceAnswer {
    /// The player's balance after the call.
    pub balance: WireMoney,
    /// Present only in an error body sent with a 200: not an answer.
    #[serde(default)]
    error: ErrorField,
}

impl BalanceAnswer {
    /// An answer of this balance.
    pub fn new(balance: Money) -> BalanceAnswer {
        BalanceAnswer {
            balance: WireMoney(balance),
            error: ErrorField(false),
        }
    }
}

impl Serialize for BalanceAnswer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            balance: &'a WireMoney,
        }
        Out {
            balance: &self.balance,
        }
        .serialize(s)
    }
}

impl Authenticated {
    /// An answer for this player.
    pub fn new(player: &str, name: &str, currency: &str, balance: Money) -> Authenticated {
        Authenticated {
            player: player.to_string(),
            name: name.to_string(),
            currency: currency.to_string(),
            balance: WireMoney(balance),
            error: ErrorField(false),
        }
    }
}

impl Serialize for Authenticated {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            player: &'a str,
            name: &'a str,
            currency: &'a str,
            balance: &'a WireMoney,
        }
        Out {
            player: &self.player,
            name: &self.name,
            currency: &self.currency,
            balance: &self.balance,
        }
        .serialize(s)
    }
}

/// The longest player id, name or message taken from an operator.
pub const MAX_TEXT: usize = 200;

/// Whether `s` is 1 to [`MAX_TEXT`] bytes with no control character.
fn fine_text(s: &str) -> bool {
    !s.trim().is_empty() && s.len() <= MAX_TEXT && !s.chars().any(char::is_control)
}

impl Checked for Authenticated {
    fn problem(&self) -> Option<String> {
        if self.error.0 {
            return Some("a 200 with an error body".to_string());
        }
        if !fine_text(&self.player) || !fine_text(&self.name) {
            return Some(format!(
                "the player id and name must be 1 to {MAX_TEXT} bytes without control characters"
            ));
        }
        if self.currency.len() != 3 || !self.currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Some(format!(
                "`{}` is not a currency code (three capital letters)",
                self.currency.escape_debug()
            ));
        }
        None
    }
}

impl Checked for BalanceAnswer {
    fn problem(&self) -> Option<String> {
        self.error.0.then(|| "a 200 with an error body".to_string())
    }
}

impl Call for Authenticate {
    const NAME: &'static str = "authenticate";
    type Answer = Authenticated;
}

impl Call for Balance {
    const NAME: &'static str = "balance";
    type Answer = BalanceAnswer;
}

impl Call for Debit {
    const NAME: &'static str = "debit";
    type Answer = BalanceAnswer;
}

impl Call for Credit {
    const NAME: &'static str = "credit";
    type Answer = BalanceAnswer;
}

impl Call for Rollback {
    const NAME: &'static str = "rollback";
    type Answer = BalanceAnswer;
}

/// Why the operator refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefusalCode {
    /// The balance does not cover the debit.
    InsufficientFunds,
    /// A responsible-gaming or operator limit refuses the debit.
    LimitReached,
    /// The player may not play.
    PlayerBlocked,
    /// The launch token or the player's session is no longer valid.
    SessionExpired,
    /// The transaction id was seen with other content.
    TransactionMismatch,
    /// The signature is missing, wrong or stale.
    BadSignature,
}

impl RefusalCode {
    /// The code as the contract writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::InsufficientFunds => "insufficient-funds",
            RefusalCode::LimitReached => "limit-reached",
            RefusalCode::PlayerBlocked => "player-blocked",
            RefusalCode::SessionExpired => "session-expired",
            RefusalCode::TransactionMismatch => "transaction-mismatch",
            RefusalCode::BadSignature => "bad-signature",
        }
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: a 4xx with this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// Why.
    pub error: RefusalCode,
    /// The operator's words (shown to the player for a refused wager).
    pub message: String,
}

/// A fresh `request_id`: 32 random hex digits.
pub fn request_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wallet::signature::sign;

    /// The examples of `docs/operators.md`: their bodies and signatures.
    const SECRET: &[u8] = b"felt-demo-secret-0123456789";
    const T: i64 = 1_767_225_600;

    fn m(text: &str) -> WireMoney {
        WireMoney::parse(text).unwrap()
    }

    fn doc() -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operators.md");
        std::fs::read_to_string(path).unwrap()
    }

    /// The body and signature header are in the docs, in the section of the call.
    fn documented<C: Call>(call: &C) {
        let body = serde_json::to_string(call).unwrap();
        let header = sign(SECRET, T, body.as_bytes());
        let doc = doc();
        let section = doc
            .split("\n### ")
            .find(|s| s.starts_with(C::NAME))
            .unwrap_or_else(|| panic!("docs/operators.md has no section {}", C::NAME));
        let expected = format!("X-Felt-Signature: {header}\n\n{body}\n");
        assert!(
            section.contains(&expected),
            "docs/operators.md, section {}, should show:\n{expected}",
            C::NAME
        );
    }

    #[test]
    fn the_documented_examples_are_what_felt_sends() {
        documented(&Authenticate {
            request_id: "0f8fad5bd9cb469fa16570867728950e".into(),
            token: "lt-5e2c9a".into(),
        });
        documented(&Balance {
            request_id: "7c9e6679742540de944be07fc1f90ae7".into(),
            player: "p-1001".into(),
        });
        documented(&Debit {
            request_id: "a8098c1af86e11dabd1a00112444be1e".into(),
            transaction_id: "felt-1042-d1".into(),
            player: "p-1001".into(),
            round: "1042".into(),
            amount: m("25.00"),
            wagers: vec![
                Wager {
                    spot: 1,
                    bet: "main".into(),
                    amount: m("20.00"),
                },
                Wager {
                    spot: 1,
                    bet: "blazing-7s".into(),
                    amount: m("5.00"),
                },
            ],
            jackpot: vec![MeterAmount {
                meter: "blazing".into(),
                amount: m("1.00"),
            }],
        });
        documented(&Credit {
            request_id: "6fa459eaee8a3ca4894edb77e160355e".into(),
            transaction_id: "felt-1042-c".into(),
            player: "p-1001".into(),
            round: "1042".into(),
            amount: m("40.00"),
            round_closed: true,
            wins: vec![Win {
                spot: 1,
                hand: 1,
                bet: "main".into(),
                amount: m("40.00"),
            }],
            jackpot_award: None,
        });
        documented(&Rollback {
            request_id: "16fd2706d5f44c6a8d1b2b6c3a2e9f01".into(),
            transaction_id: "felt-1042-d2-rollback".into(),
            player: "p-1001".into(),
            round: "1042".into(),
            rolls_back: "felt-1042-d2".into(),
        });
    }

    #[test]
    fn money_is_read_strictly() {
        assert_eq!(m("10.00").0, Money::cents(1_000));
        assert_eq!(m("0.05").0, Money::cents(5));
        for bad in [
            "10", "10.5", "10.000", "-1.00", "+1.00", "1e3", ".50", "1.5x", " 1.00", "1,00",
        ] {
            assert_eq!(WireMoney::parse(bad), None, "{bad}");
        }
        assert_eq!(WireMoney::parse("99999999999999.00"), None);
        let number: Result<BalanceAnswer, _> = serde_json::from_str(r#"{"balance":10.00}"#);
        assert!(number.is_err());
        assert_eq!(serde_json::to_string(&m("7.50")).unwrap(), r#""7.50""#);
    }

    #[test]
    fn answers_that_are_not_the_contracts_are_told() {
        let missing: Result<BalanceAnswer, _> = serde_json::from_str(r#"{"balanse":"1.00"}"#);
        assert!(missing.is_err());
        let error_body: BalanceAnswer =
            serde_json::from_str(r#"{"balance":"1.00","error":"insufficient-funds"}"#).unwrap();
        assert!(error_body.problem().is_some());
        let fine: BalanceAnswer = serde_json::from_str(r#"{"balance":"1.00","extra":1}"#).unwrap();
        assert_eq!(fine.problem(), None);
        assert_eq!(
            serde_json::to_string(&fine).unwrap(),
            r#"{"balance":"1.00"}"#
        );
        let auth = |currency: &str, player: &str| {
            let text = format!(
                r#"{{"player":"{player}","name":"Alice","currency":"{currency}","balance":"1.00"}}"#
            );
            serde_json::from_str::<Authenticated>(&text)
                .unwrap()
                .problem()
        };
        assert_eq!(auth("EUR", "p-1"), None);
        assert!(auth("eur", "p-1").is_some());
        assert!(auth("EURO", "p-1").is_some());
        assert!(auth("EUR", "").is_some());
        assert!(auth("EUR", "a\\u0007b").is_some());
    }

    #[test]
    fn refusals_have_the_contracts_codes_only() {
        let r: Refusal =
            serde_json::from_str(r#"{"error":"transaction-mismatch","message":"seen"}"#).unwrap();
        assert_eq!(r.error, RefusalCode::TransactionMismatch);
        assert_eq!(r.error.as_str(), "transaction-mismatch");
        assert!(serde_json::from_str::<Refusal>(r#"{"error":"nope","message":""}"#).is_err());
        assert!(serde_json::from_str::<Refusal>(r#"{"error":"limit-reached"}"#).is_err());
        assert_eq!(request_id().len(), 32);
        assert_ne!(request_id(), request_id());
    }
}
