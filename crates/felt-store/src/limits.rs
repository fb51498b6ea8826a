//! What the books keep of a player's protection: the limits they set (every change a
//! row, so the history is the table), what counts against them (stakes, returns and
//! play-money deposits, at the server's clock), and breaks and exclusions. The rules
//! (what takes effect when, which limit wins) are the server's; the books only keep
//! the rows, append-only.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a limit caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitKind {
    /// Play-money top-ups, in cents.
    Deposit,
    /// Net loss (staked minus returned), in cents.
    Loss,
    /// Total staked, in cents.
    Wager,
    /// Time logged in (any session of the player's), in seconds.
    Session,
}

impl LimitKind {
    /// Every kind, in order.
    pub const ALL: [LimitKind; 4] = [
        LimitKind::Deposit,
        LimitKind::Loss,
        LimitKind::Wager,
        LimitKind::Session,
    ];

    /// The kind as the books write it.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Deposit => "deposit",
            LimitKind::Loss => "loss",
            LimitKind::Wager => "wager",
            LimitKind::Session => "session",
        }
    }

    /// The kind the books wrote.
    pub fn parse(s: &str) -> Option<LimitKind> {
        LimitKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The period a limit counts over, or [`LimitPeriod::Bet`]: each single wager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitPeriod {
    /// 24 hours.
    Day,
    /// 7 days.
    Week,
    /// A month, counted as 30 days.
    Month,
    /// Each single wager (a wager limit only): nothing is summed, no period resets.
    Bet,
}

impl LimitPeriod {
    /// Every period: the summing ones, shortest first, then the single wager.
    pub const ALL: [LimitPeriod; 4] = [
        LimitPeriod::Day,
        LimitPeriod::Week,
        LimitPeriod::Month,
        LimitPeriod::Bet,
    ];

    /// The period as the books write it.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitPeriod::Day => "day",
            LimitPeriod::Week => "week",
            LimitPeriod::Month => "month",
            LimitPeriod::Bet => "bet",
        }
    }

    /// The period the books wrote.
    pub fn parse(s: &str) -> Option<LimitPeriod> {
        LimitPeriod::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Its length in milliseconds; `None` for [`LimitPeriod::Bet`], which sums nothing.
    pub fn ms(self) -> Option<i64> {
        const DAY: i64 = 24 * 3_600_000;
        match self {
            LimitPeriod::Day => Some(DAY),
            LimitPeriod::Week => Some(7 * DAY),
            LimitPeriod::Month => Some(30 * DAY),
            LimitPeriod::Bet => None,
        }
    }

    /// Whether a limit of `kind` may have this period (a single-wager limit caps
    /// wagers only).
    pub fn fits(self, kind: LimitKind) -> bool {
        self != LimitPeriod::Bet || kind == LimitKind::Wager
    }
}

/// One change of a limit, as the books keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitChange {
    /// Its number (0 in a change not yet written).
    pub seq: i64,
    /// The player.
    pub player: String,
    /// What it caps.
    pub kind: LimitKind,
    /// Over which period.
    pub period: LimitPeriod,
    /// The new amount (cents, or seconds for [`LimitKind::Session`]); `None`: removed.
    pub amount: Option<i64>,
    /// When the player asked (Unix ms).
    pub requested_ms: i64,
    /// When it takes effect (Unix ms, at or after `requested_ms`).
    pub effective_ms: i64,
}

/// What counts against a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageKind {
    /// Money staked (a bet, a double, a split, insurance, a side bet).
    Stake,
    /// Money paid back to the player (a win, a push, a refund).
    Return,
    /// A play-money top-up.
    Deposit,
    /// Milliseconds logged in.
    PlayMs,
}

impl UsageKind {
    /// The kind as the books write it.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageKind::Stake => "stake",
            UsageKind::Return => "return",
            UsageKind::Deposit => "deposit",
            UsageKind::PlayMs => "play-ms",
        }
    }
}

/// The sums of a player's usage over a span of time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageTotals {
    /// Cents staked.
    pub staked: i64,
    /// Cents returned.
    pub returned: i64,
    /// Cents deposited (play-money top-ups).
    pub deposited: i64,
    /// Milliseconds logged in.
    pub play_ms: i64,
    /// The latest time logged-in time was counted up to (the newest `play-ms` row's
    /// time), if any row is in the span.
    pub play_counted_to_ms: Option<i64>,
}

/// Why a player may not play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExclusionKind {
    /// A break the player took (a time-out).
    Break,
    /// The player excluded themselves.
    SelfExcluded,
    /// An operator excluded the player.
    Operator,
}

impl ExclusionKind {
    /// The kind as the books write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ExclusionKind::Break => "break",
            ExclusionKind::SelfExcluded => "self-excluded",
            ExclusionKind::Operator => "operator",
        }
    }

    /// The kind the books wrote.
    pub fn parse(s: &str) -> Option<ExclusionKind> {
        [
            ExclusionKind::Break,
            ExclusionKind::SelfExcluded,
            ExclusionKind::Operator,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// A break or an exclusion, as the books keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusion {
    /// Its number (0 in one not yet written).
    pub seq: i64,
    /// The player.
    pub player: String,
    /// Which.
    pub kind: ExclusionKind,
    /// From when (Unix ms).
    pub start_ms: i64,
    /// Until when (Unix ms); `None`: for good.
    pub until_ms: Option<i64>,
    /// Who set it (the player, or an operator's login).
    pub set_by: String,
    /// Why, in a sentence (may be empty).
    pub reason: String,
}

impl Exclusion {
    /// Whether it holds at `now_ms`.
    pub fn holds_at(&self, now_ms: i64) -> bool {
        self.start_ms <= now_ms && self.until_ms.is_none_or(|u| now_ms < u)
    }
}

/// What each player staked and got back in round `rec`, by player: their wagers less
/// refunds, and the payouts and awards paid to them. An operator wallet's mirror (a
/// `deposit` of each debit, a `withdrawal` of the round's credit) moves no stake and
/// is left out. What [`crate::Store::record_usage`] counts for the round, and the
/// session's figures.
pub fn round_usage(rec: &crate::RoundRecord) -> BTreeMap<String, UsageTotals> {
    use crate::{Account, MovementKind};
    let mut out: BTreeMap<String, UsageTotals> = BTreeMap::new();
    for m in rec.movements.iter().map(|r| &r.movement) {
        let cents = m.amount.as_cents();
        match (m.kind, &m.from, &m.to) {
            (MovementKind::Wager, Account::Player(p), _) => {
                let u = out.entry(p.clone()).or_default();
                u.staked = u.staked.saturating_add(cents);
            }
            (MovementKind::Refund, _, Account::Player(p)) => {
                let u = out.entry(p.clone()).or_default();
                u.staked = u.staked.saturating_sub(cents);
            }
            (MovementKind::Payout | MovementKind::Award, _, Account::Player(p)) => {
                let u = out.entry(p.clone()).or_default();
                u.returned = u.returned.saturating_add(cents);
            }
            _ => {}
        }
    }
    out
}

/// The usage rows of one player's share of a round ([`round_usage`]).
pub(crate) fn usage_rows(u: &UsageTotals) -> [(UsageKind, i64); 2] {
    [
        (UsageKind::Stake, u.staked),
        (UsageKind::Return, u.returned),
    ]
}

/// Adds the sum of one usage kind (as the books write it) to `t`.
pub(crate) fn add_total(
    t: &mut UsageTotals,
    kind: &str,
    sum: i64,
    latest_ms: i64,
) -> Result<(), String> {
    let slot = match kind {
        "stake" => &mut t.staked,
        "return" => &mut t.returned,
        "deposit" => &mut t.deposited,
        "play-ms" => {
            t.play_counted_to_ms = t.play_counted_to_ms.max(Some(latest_ms));
            &mut t.play_ms
        }
        other => return Err(format!("limit usage has kind `{other}`")),
    };
    *slot = slot.saturating_add(sum);
    Ok(())
}

/// A limit change with its player's canonical name, checked: a known amount is at
/// least zero, it takes effect no earlier than it was asked for, and its period fits
/// its kind ([`LimitPeriod::fits`]).
pub(crate) fn checked_change(c: &LimitChange) -> crate::Result<LimitChange> {
    let player = crate::name::normalize_cow("player", &c.player)?.into_owned();
    if !c.period.fits(c.kind) {
        return Err(crate::StoreError::InvalidInput(format!(
            "a {} limit has no period `{}`: a limit on each single wager is a wager \
             limit's only",
            c.kind.as_str(),
            c.period.as_str()
        )));
    }
    if c.amount.is_some_and(|a| a < 0) || c.effective_ms < c.requested_ms {
        return Err(crate::StoreError::InvalidInput(format!(
            "a limit change needs an amount of at least zero and an effective time no \
             earlier than its request (amount {:?}, requested {}, effective {})",
            c.amount, c.requested_ms, c.effective_ms
        )));
    }
    Ok(LimitChange {
        player,
        ..c.clone()
    })
}

/// The canonical name of a player whose usage is counted; every amount at least zero.
pub(crate) fn checked_usage(player: &str, usage: &[(UsageKind, i64)]) -> crate::Result<String> {
    if let Some((k, a)) = usage.iter().find(|(_, a)| *a < 0) {
        return Err(crate::StoreError::InvalidInput(format!(
            "usage `{}` of {a} is below zero",
            k.as_str()
        )));
    }
    Ok(crate::name::normalize_cow("player", player)?.into_owned())
}

/// An exclusion with its player's canonical name, checked: it ends after it starts,
/// and someone set it.
pub(crate) fn checked_exclusion(e: &Exclusion) -> crate::Result<Exclusion> {
    let player = crate::name::normalize_cow("player", &e.player)?.into_owned();
    if e.until_ms.is_some_and(|u| u <= e.start_ms)
        || e.set_by.trim().is_empty()
        || e.set_by.len() > crate::audit_log::MAX_AUDIT_FIELD
    {
        return Err(crate::StoreError::InvalidInput(format!(
            "an exclusion must end after it starts and name who set it (start {}, until {:?}, \
             set by `{}`)",
            e.start_ms, e.until_ms, e.set_by
        )));
    }
    Ok(Exclusion {
        player,
        ..e.clone()
    })
}

/// A player's reality-check schedule as the books keep it (one a player, shared by
/// every server): the next check falls due `interval_mins` after `anchor_ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealitySchedule {
    /// The player.
    pub player: String,
    /// When their log-in session began (Unix ms, the server's clock).
    pub login_ms: i64,
    /// The first round of that session: the figures count rounds from it on.
    pub first_round: crate::RoundId,
    /// The interval the player chose (minutes, at least 1).
    pub interval_mins: u32,
    /// The log-in, or the last answer to a check.
    pub anchor_ms: i64,
}

/// A schedule with its player's canonical name, checked: an interval of at least a
/// minute.
pub(crate) fn checked_schedule(s: &RealitySchedule) -> crate::Result<RealitySchedule> {
    let player = crate::name::normalize_cow("player", &s.player)?.into_owned();
    if s.interval_mins == 0 {
        return Err(crate::StoreError::InvalidInput(
            "a reality check's interval is at least a minute".to_string(),
        ));
    }
    Ok(RealitySchedule {
        player,
        ..s.clone()
    })
}
