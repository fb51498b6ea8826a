//! The values the books take and give: accounts, movements, steps, rounds, meters.

use crate::error::{Result, StoreError};
use crate::name::{normalize_cow, validate_name};
use crate::wallet::NewWalletCall;
use felt_core::money::Money;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt;

/// An account of the ledger. Accounts are created on first use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "kebab-case")]
pub enum Account {
    /// The outside world: deposits come from it, withdrawals go to it. Its balance is
    /// minus the money inside the books.
    Cashier,
    /// A player's wallet, by player name. Never below zero.
    Player(String),
    /// A house (bank) account, one per table or game, as the caller names it.
    House(String),
    /// Chips in play on a table's layout (stakes placed, not yet settled), by table id.
    /// Never below zero, and zero whenever the table has no open round.
    Felt(String),
    /// A progressive meter, by meter id, shared by every table that names it. Never
    /// below zero; only [`MovementKind::Seed`], [`MovementKind::Contribution`] and
    /// [`MovementKind::Award`] touch it.
    Meter(String),
}

impl Account {
    /// A player's wallet.
    pub fn player(name: impl Into<String>) -> Account {
        Account::Player(name.into())
    }

    /// A house account (per table or game).
    pub fn house(name: impl Into<String>) -> Account {
        Account::House(name.into())
    }

    /// Chips in play on a table's layout.
    pub fn felt(table: impl Into<String>) -> Account {
        Account::Felt(table.into())
    }

    /// A progressive meter.
    pub fn meter(id: impl Into<String>) -> Account {
        Account::Meter(id.into())
    }

    /// The kind as stored (`cashier`, `player`, `house`, `felt`, `meter`).
    pub fn kind_str(&self) -> &'static str {
        match self {
            Account::Cashier => "cashier",
            Account::Player(_) => "player",
            Account::House(_) => "house",
            Account::Felt(_) => "felt",
            Account::Meter(_) => "meter",
        }
    }

    /// The name as stored (empty for the cashier).
    pub fn name(&self) -> &str {
        match self {
            Account::Cashier => "",
            Account::Player(n) | Account::House(n) | Account::Felt(n) | Account::Meter(n) => n,
        }
    }

    /// Whether the books keep this account at or above zero (players, felts, meters).
    pub fn must_stay_non_negative(&self) -> bool {
        matches!(
            self,
            Account::Player(_) | Account::Felt(_) | Account::Meter(_)
        )
    }

    /// The account from its stored kind and name; `None` for an unknown kind.
    pub fn from_parts(kind: &str, name: &str) -> Option<Account> {
        match kind {
            "cashier" => Some(Account::Cashier),
            "player" => Some(Account::Player(name.to_string())),
            "house" => Some(Account::House(name.to_string())),
            "felt" => Some(Account::Felt(name.to_string())),
            "meter" => Some(Account::Meter(name.to_string())),
            _ => None,
        }
    }

    /// The account as the books keep it: a player's name in its canonical form (see
    /// [`crate::normalize_name`]; `alice ` is `alice`'s wallet); any other name must be
    /// canonical already (see [`crate::validate_name`]).
    pub(crate) fn canonical(&self) -> Result<Cow<'_, Account>> {
        match self {
            Account::Cashier => Ok(Cow::Borrowed(self)),
            Account::Player(n) => Ok(match normalize_cow("player", n)? {
                Cow::Borrowed(_) => Cow::Borrowed(self),
                Cow::Owned(c) => Cow::Owned(Account::Player(c)),
            }),
            _ => {
                validate_name(self.kind_str(), self.name())?;
                Ok(Cow::Borrowed(self))
            }
        }
    }
}

impl fmt::Display for Account {
    /// `cashier`, `player alice`, `house lucky-7`, `felt t1`, `meter blazing`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Account::Cashier => f.write_str("cashier"),
            other => write!(f, "{} {}", other.kind_str(), other.name()),
        }
    }
}

/// Why money moved. Kinds that touch a meter are checked against the meter identity
/// `meter = seeds + contributions - awards`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MovementKind {
    /// Money comes in from the cashier (initial bankroll, buy-in).
    Deposit,
    /// Money goes back out to the cashier (cash-out).
    Withdrawal,
    /// A bet taken from a wallet (to the felt, or straight to the house).
    Wager,
    /// A lost stake collected by the house (from the felt).
    Loss,
    /// Money paid back to a wallet (winnings, pushes returned, insurance).
    Payout,
    /// A progressive increment, into a meter (or back out of it, reversing one).
    Contribution,
    /// A progressive prize, out of a meter (or back in, reversing one).
    Award,
    /// Money that funds a meter's reset value (at creation, and after a 100% award).
    Seed,
    /// A bet handed back (taken back before the deal, or a voided round).
    Refund,
    /// A correction made by an operator, with its reason in the memo.
    Adjustment,
}

impl MovementKind {
    /// Every kind, in a stable order.
    pub const ALL: [MovementKind; 10] = [
        MovementKind::Deposit,
        MovementKind::Withdrawal,
        MovementKind::Wager,
        MovementKind::Loss,
        MovementKind::Payout,
        MovementKind::Contribution,
        MovementKind::Award,
        MovementKind::Seed,
        MovementKind::Refund,
        MovementKind::Adjustment,
    ];

    /// The kind as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            MovementKind::Deposit => "deposit",
            MovementKind::Withdrawal => "withdrawal",
            MovementKind::Wager => "wager",
            MovementKind::Loss => "loss",
            MovementKind::Payout => "payout",
            MovementKind::Contribution => "contribution",
            MovementKind::Award => "award",
            MovementKind::Seed => "seed",
            MovementKind::Refund => "refund",
            MovementKind::Adjustment => "adjustment",
        }
    }

    /// The kind from its stored text.
    pub fn parse(s: &str) -> Option<MovementKind> {
        MovementKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether this kind moves money into or out of a progressive meter.
    pub fn is_meter_kind(self) -> bool {
        matches!(
            self,
            MovementKind::Contribution | MovementKind::Award | MovementKind::Seed
        )
    }
}

impl fmt::Display for MovementKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One movement of money: `amount` leaves `from` and arrives in `to`. Stored as one
/// ledger entry with two postings (`-amount` on `from`, `+amount` on `to`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Movement {
    /// The account the money leaves.
    pub from: Account,
    /// The account the money arrives in.
    pub to: Account,
    /// How much; strictly positive.
    pub amount: Money,
    /// Why.
    pub kind: MovementKind,
    /// A free note (`spot 2 main bet`, `rounded down 0.5 cent`); may be empty.
    pub memo: String,
}

impl Movement {
    /// A movement with an empty memo.
    pub fn new(from: Account, to: Account, amount: Money, kind: MovementKind) -> Movement {
        Movement {
            from,
            to,
            amount,
            kind,
            memo: String::new(),
        }
    }

    /// The same movement with a memo.
    pub fn with_memo(mut self, memo: impl Into<String>) -> Movement {
        self.memo = memo.into();
        self
    }

    /// Checks what can be checked without the database: a positive amount, two
    /// different valid accounts, a kind that fits its accounts.
    pub fn validate(&self) -> Result<()> {
        self.canonical().map(|_| ())
    }

    /// The movement as the books keep it (player names in canonical form, see
    /// [`Account::canonical`]), once checked as [`Movement::validate`] says.
    pub(crate) fn canonical(&self) -> Result<Cow<'_, Movement>> {
        let (from, to) = (self.from.canonical()?, self.to.canonical()?);
        let m = match (from, to) {
            (Cow::Borrowed(_), Cow::Borrowed(_)) => Cow::Borrowed(self),
            (from, to) => Cow::Owned(Movement {
                from: from.into_owned(),
                to: to.into_owned(),
                ..self.clone()
            }),
        };
        m.check()?;
        Ok(m)
    }

    fn check(&self) -> Result<()> {
        let refuse = |reason: String| Err(StoreError::InvalidMovement { reason });
        if self.amount.as_cents() <= 0 {
            return refuse(format!(
                "{} of {} from {} to {}: the amount must be above zero",
                self.kind, self.amount, self.from, self.to
            ));
        }
        if self.from == self.to {
            return refuse(format!("{} cannot pay itself", self.from));
        }
        let meters = [&self.from, &self.to]
            .into_iter()
            .filter(|a| matches!(a, Account::Meter(_)))
            .count();
        if self.kind.is_meter_kind() && meters != 1 {
            return refuse(format!(
                "a {} moves money between a meter and another account (got {} to {})",
                self.kind, self.from, self.to
            ));
        }
        if !self.kind.is_meter_kind() && meters != 0 {
            return refuse(format!(
                "a {} cannot touch a progressive meter (got {} to {}); meters move only by \
                 seed, contribution or award",
                self.kind, self.from, self.to
            ));
        }
        if self.memo.len() > 10_000 {
            return refuse("a memo is at most 10,000 bytes".to_string());
        }
        Ok(())
    }

    /// The movement that undoes this one: same amount and kind, accounts swapped.
    pub fn reversed(&self, memo: impl Into<String>) -> Movement {
        Movement {
            from: self.to.clone(),
            to: self.from.clone(),
            amount: self.amount,
            kind: self.kind,
            memo: memo.into(),
        }
    }
}

/// One step of a round, written in one transaction: the action that caused it (if a
/// player decided; `None` for automations such as dealing or settlement), the events it
/// produced, in order, and the money it moved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    /// The action as JSON text, or `None` for a step nobody decided.
    pub action: Option<String>,
    /// The events as JSON texts, in order.
    pub events: Vec<String>,
    /// The money moved, in order.
    pub movements: Vec<Movement>,
    /// The calls to the operator's wallet the step causes (debits, credits), put in
    /// the outbox with it, before they are sent (empty with the embedded play money).
    pub wallet: Vec<NewWalletCall>,
}

impl Step {
    /// Whether the step holds nothing at all.
    pub fn is_empty(&self) -> bool {
        self.action.is_none()
            && self.events.is_empty()
            && self.movements.is_empty()
            && self.wallet.is_empty()
    }

    /// The step as the books keep it (its movements' player names in canonical
    /// form), once its JSON and movements are checked.
    pub(crate) fn canonical(&self) -> Result<Cow<'_, Step>> {
        if let Some(a) = &self.action {
            validate_json("action of the step", a)?;
        }
        for (i, e) in self.events.iter().enumerate() {
            validate_json(&format!("event {} of the step", i + 1), e)?;
        }
        for call in &self.wallet {
            call.validate()?;
        }
        let movements = canonical_movements(&self.movements)?;
        Ok(match movements {
            Cow::Borrowed(_) => Cow::Borrowed(self),
            Cow::Owned(movements) => Cow::Owned(Step {
                action: self.action.clone(),
                events: self.events.clone(),
                movements,
                wallet: self.wallet.clone(),
            }),
        })
    }
}

/// Movements as the books keep them (see [`Movement::canonical`]); borrowed when
/// every one is already.
pub(crate) fn canonical_movements(movements: &[Movement]) -> Result<Cow<'_, [Movement]>> {
    let mut owned: Option<Vec<Movement>> = None;
    for (i, m) in movements.iter().enumerate() {
        match m.canonical()? {
            Cow::Borrowed(_) => {
                if let Some(v) = owned.as_mut() {
                    v.push(m.clone());
                }
            }
            Cow::Owned(c) => owned.get_or_insert_with(|| movements[..i].to_vec()).push(c),
        }
    }
    Ok(match owned {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(movements),
    })
}

pub(crate) fn validate_json(what: &str, text: &str) -> Result<()> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(|_| ())
        .map_err(|e| StoreError::InvalidJson {
            what: what.to_string(),
            detail: e.to_string(),
        })
}

/// What the computation given to
/// [`Store::record_step_with`](crate::Store::record_step_with) asks the books to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepWrite {
    /// Nothing: the transaction is rolled back (e.g. the engine refused the action).
    Nothing,
    /// One more step of the open round.
    Step(Step),
    /// The round's last step, its result (JSON) and the shoe it leaves, as
    /// [`Store::finish_round`](crate::Store::finish_round) writes them.
    Finish {
        /// The last step (skipped if empty).
        last: Step,
        /// The result summary, JSON.
        result_json: String,
        /// The shoe the round leaves, if any.
        shoe_after: Option<Vec<u8>>,
        /// How the round ended: finished, or voided by the game itself (the shoe ran
        /// out) with this reason.
        ended: Ended,
        /// Whether the round's shoe is retired with it (its cut card came out, or a
        /// continuous shuffler takes the cards back): its seed becomes public.
        retire_shoe: bool,
        /// When set, what each player staked and got back in the round
        /// ([`round_usage`](crate::round_usage)) is counted against their limits
        /// at this time (Unix ms, the server's clock), in the same transaction.
        counted_at_ms: Option<i64>,
    },
}

/// How a round that reached its end ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Ended {
    /// Played to its settlement.
    #[default]
    Finished,
    /// The game voided it (every unsettled stake returned in its last step), for this
    /// reason.
    Voided(String),
}

/// The seed of a new shoe, committed to (its SHA-256 written) before its first card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShoe {
    /// The 32-byte seed the shoe is shuffled from.
    pub seed: [u8; 32],
    /// What a test lab chose for it (`--seed N`, a stacked shoe); `None` for a seed
    /// from the operating system's entropy.
    pub lab: Option<String>,
}

/// Which shoe a new round deals from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RoundShoe {
    /// None is recorded (rounds written by a felt before shoe commitments).
    #[default]
    Unrecorded,
    /// The table's current shoe, by its id.
    Current(i64),
    /// A new shoe, committed with the round (the table's previous shoe is retired).
    New(NewShoe),
}

/// A shoe's commitment as the books hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShoeSeed {
    /// Its id (shoe numbers are never reused).
    pub id: i64,
    /// The table it was dealt at.
    pub table_id: String,
    /// SHA-256 of the seed, lowercase hex: published before the shoe's first card.
    pub commitment: String,
    /// The seed. Secret while the shoe is in play: show it only once
    /// [`ShoeSeed::is_retired`] (see [`ShoeSeed::revealed`]).
    #[serde(skip)]
    pub seed: [u8; 32],
    /// What a test lab chose, if it did (`None`: the operating system's entropy).
    pub lab: Option<String>,
    /// When it was committed (UTC).
    pub committed_at: String,
    /// When it was retired (UTC), if it was.
    pub retired_at: Option<String>,
}

impl ShoeSeed {
    /// Whether the shoe is out of play (no card of it will be dealt again).
    pub fn is_retired(&self) -> bool {
        self.retired_at.is_some()
    }

    /// The seed, once the shoe is retired; `None` while it is in play.
    pub fn revealed(&self) -> Option<[u8; 32]> {
        self.is_retired().then_some(self.seed)
    }

    /// Whether the seed matches the commitment.
    pub fn commitment_holds(&self) -> bool {
        seed_hash(&self.seed) == self.commitment
    }
}

/// What a new round starts from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewRound {
    /// The game (rules preset) id, e.g. `lucky-7`.
    pub game_id: String,
    /// The table the round is played at.
    pub table_id: String,
    /// The round's 32-byte ChaCha shuffle seed. Its SHA-256 is written with the round,
    /// before any card is dealt.
    pub seed: [u8; 32],
    /// The shoe as the round finds it (opaque to the books), so the round can be
    /// replayed exactly; `None` for a fresh shoe.
    pub shoe: Option<Vec<u8>>,
    /// The shoe's commitment the round deals from.
    pub shoe_seed: RoundShoe,
    /// The round's place in its shoe (0 for the round that shuffles it).
    pub shoe_round: u32,
    /// The rules it is played under, as canonical text (kept once per distinct text).
    pub rules: Option<String>,
    /// What a test lab chose for this round (`--seed N`, a stacked shoe), if anything:
    /// such a round is marked in the books for ever.
    pub lab: Option<String>,
}

/// A round's id (never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RoundId(pub i64);

impl fmt::Display for RoundId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoundStatus {
    /// Begun and not ended: after a crash, it must be replayed or voided.
    Open,
    /// Ended normally.
    Finished,
    /// Ended by a void (bets refunded as the caller decided).
    Voided,
}

impl RoundStatus {
    /// The status as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RoundStatus::Open => "open",
            RoundStatus::Finished => "finished",
            RoundStatus::Voided => "voided",
        }
    }

    /// The status from its stored text.
    pub fn parse(s: &str) -> Option<RoundStatus> {
        match s {
            "open" => Some(RoundStatus::Open),
            "finished" => Some(RoundStatus::Finished),
            "voided" => Some(RoundStatus::Voided),
            _ => None,
        }
    }
}

impl fmt::Display for RoundStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored step (its events and movements are in the round's lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepRecord {
    /// 1, 2, 3, ... within the round.
    pub seq: u32,
    /// The action as JSON text, `None` for an automation.
    pub action: Option<String>,
    /// When it was written (UTC, RFC 3339).
    pub at: String,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventRecord {
    /// 1, 2, 3, ... within the round, across all its steps.
    pub seq: u32,
    /// The step that produced it.
    pub step_seq: u32,
    /// The event as JSON text, exactly as given.
    pub json: String,
}

/// A stored movement of money (one ledger entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovementRecord {
    /// The ledger entry id.
    pub entry_id: i64,
    /// The round it belongs to, if any.
    pub round: Option<RoundId>,
    /// The step of the round that made it (`None` outside a step, e.g. void refunds).
    pub step_seq: Option<u32>,
    /// The movement itself.
    pub movement: Movement,
    /// When it was written (UTC, RFC 3339).
    pub at: String,
}

/// Everything the books know about one round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundRecord {
    /// Its id.
    pub id: RoundId,
    /// The game id.
    pub game_id: String,
    /// The table.
    pub table_id: String,
    /// The shuffle seed (keep it from players until the round has ended).
    pub seed: [u8; 32],
    /// SHA-256 of the seed, lowercase hex, written before the first card.
    pub seed_sha256: String,
    /// Open, finished or voided.
    pub status: RoundStatus,
    /// When it began (UTC, RFC 3339).
    pub started_at: String,
    /// When it ended, if it has.
    pub ended_at: Option<String>,
    /// The shoe as the round found it.
    pub shoe_before: Option<Vec<u8>>,
    /// The shoe as the round left it (finished rounds).
    pub shoe_after: Option<Vec<u8>>,
    /// The result summary given at the finish, as JSON text.
    pub result: Option<String>,
    /// Why it was voided.
    pub void_reason: Option<String>,
    /// Its steps, in order.
    pub steps: Vec<StepRecord>,
    /// Its events, in order.
    pub events: Vec<EventRecord>,
    /// Its money, in order.
    pub movements: Vec<MovementRecord>,
    /// The shoe it was dealt from (`None` for rounds written before shoe commitments).
    pub shoe: Option<ShoeSeed>,
    /// Its place in that shoe (0: the round that shuffled it).
    pub shoe_round: Option<u32>,
    /// SHA-256 of the canonical rules text it was played under (see
    /// [`Store::rules_text`](crate::Store::rules_text)), if the books keep it.
    pub rules_sha256: Option<String>,
    /// What a test lab chose for it (`--seed N`, a stacked shoe), if anything.
    pub lab: Option<String>,
}

impl RoundRecord {
    /// The actions of the round, in order (automations left out): what a replay feeds
    /// back to the engine.
    pub fn actions(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter_map(|s| s.action.as_deref())
            .collect()
    }

    /// The movements that undo every movement of the round so far, newest first (so no
    /// wallet or meter dips below zero on the way): the usual refunds of
    /// [`Store::void_round`](crate::Store::void_round).
    pub fn reversal(&self) -> Vec<Movement> {
        self.movements
            .iter()
            .rev()
            .map(|m| {
                m.movement.reversed(format!(
                    "void of round {}: reverses entry {}",
                    self.id, m.entry_id
                ))
            })
            .collect()
    }

    /// Net money moved to or from `account` in this round (positive: it gained).
    pub fn net_for(&self, account: &Account) -> Money {
        self.movements
            .iter()
            .map(|m| {
                if &m.movement.to == account {
                    m.movement.amount
                } else if &m.movement.from == account {
                    -m.movement.amount
                } else {
                    Money::ZERO
                }
            })
            .sum()
    }
}

/// An award paid from a meter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AwardRecord {
    /// The ledger entry.
    pub entry_id: i64,
    /// The round that won it, if any.
    pub round: Option<RoundId>,
    /// Who was paid.
    pub to: Account,
    /// How much.
    pub amount: Money,
    /// When (UTC, RFC 3339).
    pub at: String,
}

/// A progressive meter and its accounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MeterInfo {
    /// The meter id.
    pub id: String,
    /// Its current amount.
    pub amount: Money,
    /// Its reset value (what it goes back to after a 100% award).
    pub reset: Money,
    /// All money that funded the meter (initial value and resets), net.
    pub seeded: Money,
    /// All contributions, net.
    pub contributions: Money,
    /// All awards, net.
    pub awards: Money,
    /// The latest awards, newest first (at most [`RECENT_AWARDS`]).
    pub recent_awards: Vec<AwardRecord>,
}

/// How many recent awards [`MeterInfo`] carries.
pub const RECENT_AWARDS: usize = 10;

/// An account and its balance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Balance {
    /// The account.
    pub account: Account,
    /// Its balance.
    pub balance: Money,
}

/// SHA-256 of a seed, lowercase hex: the commitment written before the first card.
pub fn seed_hash(seed: &[u8; 32]) -> String {
    sha256_hex(seed)
}

/// SHA-256 of any bytes, lowercase hex (the key of a stored rules text).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    s
}

const HEX: &[u8; 16] = b"0123456789abcdef";
