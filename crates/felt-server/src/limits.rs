//! The limits a player sets and the breaks and exclusions that stop play (issue 26
//! items 1 and 2): the rules, over what the books keep (`felt_store::LimitChange`,
//! `felt_store::Exclusion`, usage rows), at the server's clock ([`crate::clock`]).
//!
//! - A limit caps deposits (play-money top-ups), losses (staked minus returned),
//!   wagers (staked) or time logged in ([`crate::logged_in`]), per day (24 hours), week
//!   (7 days) or month (30 days). Periods are fixed from when the limit was first set
//!   (a decrease keeps the period running): each period has a clear reset time to tell
//!   the player, and no change of the limit can restart the count.
//! - A single-wager limit ([`LimitPeriod::Bet`], 58 Pa. Code 814a.2(3)) caps each
//!   wager the player places: a main bet, a side bet, a double's or a split's stake,
//!   insurance, each on its own (the wagers of a spot are not added up).
//! - A new limit or a decrease takes effect at once. An increase or a removal is
//!   pending for [`COOLING_OFF_MS`], and until the limit's current period ends
//!   ([`raise_waits_until`]), and then takes effect only when the player confirms it
//!   (UKGC RTS 12D, PA 814a.2): a pending change never applies by itself.
//! - Every limit that applies is checked: the lowest (the one with the least room)
//!   wins and is named in the refusal.
//! - Every six months ([`REVIEW_MS`]) without a change or a review, the player is asked
//!   at log-in to review their limits ([`review_due`]).

use crate::audit::AuditAction;
use crate::logged_in::Life;
use crate::protocol::Code;
use felt_core::Money;
use felt_store::{
    round_usage, Account, Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, RoundId,
    Store, UsageTotals,
};
use serde::Serialize;

/// The cooling-off of an increase or removal: 24 hours.
pub const COOLING_OFF_MS: i64 = 24 * 3_600_000;

/// The shortest and longest break (time-out): 24 hours to 6 weeks.
pub const BREAK_MS: (i64, i64) = (24 * 3_600_000, 42 * 24 * 3_600_000);

/// The shortest and longest self-exclusion with an end: 6 months (183 days) to 5 years
/// (1,826 days); longer is for good.
pub const SELF_EXCLUSION_MS: (i64, i64) = (183 * 24 * 3_600_000, 1_826 * 24 * 3_600_000);

/// How often a player is asked to review their limits: about six months (182 days).
pub const REVIEW_MS: i64 = 182 * 24 * 3_600_000;

/// When `player` (an account made at `created_ms`) last reviewed their limits: the
/// latest of the account's making, their last change of a limit, and their last "keep
/// them as they are" (`review-limits` in the audit log).
pub fn last_review(store: &dyn Store, player: &str, created_ms: i64) -> felt_store::Result<i64> {
    let changed = store
        .limit_changes(player)?
        .iter()
        .map(|c| c.requested_ms)
        .max();
    let query = felt_store::AuditQuery {
        subject: Some(player.to_string()),
        since_ms: None,
        limit: crate::audit::AUDIT_PAGE,
    };
    let kept = store
        .audit_entries(&query)?
        .iter()
        .filter(|e| e.actor == player && e.action == AuditAction::ReviewLimits.as_str())
        .map(|e| e.at_ms)
        .max();
    Ok([Some(created_ms), changed, kept]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(created_ms))
}

/// When `player` last reviewed their limits, if that is [`REVIEW_MS`] or more before
/// `now_ms` (a review is due: the page asks them to look at their limits again).
pub fn review_due(
    store: &dyn Store,
    player: &str,
    created_ms: i64,
    now_ms: i64,
) -> felt_store::Result<Option<i64>> {
    let last = last_review(store, player, created_ms)?;
    Ok((now_ms - last >= REVIEW_MS).then_some(last))
}

/// One limit (a kind over a period) as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// What it caps.
    pub kind: LimitKind,
    /// Over which period.
    pub period: LimitPeriod,
    /// The limit in effect (cents, or seconds for time), `None`: no limit.
    pub amount: Option<i64>,
    /// When the current period started counting (the limit's first setting).
    #[serde(skip)]
    pub anchor_ms: i64,
    /// An increase or removal asked for and not yet in effect.
    pub pending: Option<Pending>,
}

/// An increase or removal waiting out its cooling-off, then the player's confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Pending {
    /// The amount asked for (`None`: the limit removed).
    pub amount: Option<i64>,
    /// From when the player may confirm it (Unix ms).
    pub effective_ms: i64,
}

impl Slot {
    /// The span of the current period at `now_ms`: (start, reset), Unix ms; `None` for
    /// a single-wager limit, which sums nothing.
    pub fn window(&self, now_ms: i64) -> Option<(i64, i64)> {
        let len = self.period.ms()?;
        let start = self.anchor_ms + (now_ms - self.anchor_ms).max(0).div_euclid(len) * len;
        Some((start, start + len))
    }
}

/// The limit `kind` over `period` after `changes` (a player's, oldest first): an
/// immediate change sets it (and drops what was pending), a deferred one is pending.
pub fn slot(changes: &[LimitChange], kind: LimitKind, period: LimitPeriod) -> Slot {
    let mut s = Slot {
        kind,
        period,
        amount: None,
        anchor_ms: 0,
        pending: None,
    };
    for c in changes
        .iter()
        .filter(|c| c.kind == kind && c.period == period)
    {
        if c.effective_ms > c.requested_ms {
            s.pending = Some(Pending {
                amount: c.amount,
                effective_ms: c.effective_ms,
            });
            continue;
        }
        if s.amount.is_none() && c.amount.is_some() {
            s.anchor_ms = c.effective_ms;
        }
        s.amount = c.amount;
        s.pending = None;
    }
    s
}

/// Every limit of a player, by kind then period.
pub fn slots(changes: &[LimitChange]) -> Vec<Slot> {
    LimitKind::ALL
        .into_iter()
        .flat_map(|k| {
            LimitPeriod::ALL
                .into_iter()
                .filter(move |p| p.fits(k))
                .map(move |p| slot(changes, k, p))
        })
        .collect()
}

/// What the player asks of one limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Set it to this amount (cents, or seconds for time).
    Set(i64),
    /// Remove it.
    Remove,
}

/// When a raise or removal of `current` asked at `now_ms` may be confirmed: after the
/// cooling-off (UKGC RTS 12D, GLI-19 A.3.7) and not before the limit's current period
/// ends (58 Pa. Code 814a.2: "after the time period of the previous limit has
/// expired"; New Jersey likewise), whichever is later (a single-wager limit has no
/// period: the cooling-off alone).
pub fn raise_waits_until(current: &Slot, now_ms: i64) -> i64 {
    let cooled = now_ms + COOLING_OFF_MS;
    match current.window(now_ms) {
        Some((_, period_ends)) => cooled.max(period_ends),
        None => cooled,
    }
}

/// The change to write for `ask` at `now_ms`, or `None` when nothing changes (the
/// same limit, no pending change to drop).
pub fn plan(player: &str, current: &Slot, ask: Ask, now_ms: i64) -> Option<LimitChange> {
    let amount = match ask {
        Ask::Set(a) => Some(a),
        Ask::Remove => None,
    };
    let stricter = match (amount, current.amount) {
        (Some(new), Some(old)) => new <= old,
        (Some(_), None) => true,
        (None, None) => true,
        (None, Some(_)) => false,
    };
    let confirms = current
        .pending
        .is_some_and(|p| p.amount == amount && now_ms >= p.effective_ms);
    let unchanged = stricter && amount == current.amount && current.pending.is_none();
    let waiting = !stricter && current.pending.is_some_and(|p| p.amount == amount) && !confirms;
    if unchanged || waiting {
        return None;
    }
    let effective_ms = if stricter || confirms {
        now_ms
    } else {
        raise_waits_until(current, now_ms)
    };
    Some(LimitChange {
        seq: 0,
        player: player.to_string(),
        kind: current.kind,
        period: current.period,
        amount,
        requested_ms: now_ms,
        effective_ms,
    })
}

/// Why a stake or a deposit is refused: the limit it would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    /// The limit's kind.
    pub kind: LimitKind,
    /// Its period.
    pub period: LimitPeriod,
    /// The limit (cents).
    pub amount: i64,
    /// What is left of it this period (cents; a single-wager limit: the limit).
    pub left: i64,
    /// When its period resets (Unix ms); `None` for a single-wager limit.
    pub resets_ms: Option<i64>,
}

impl Reached {
    /// The sentence a player reads.
    pub fn sentence(&self) -> String {
        let what = match self.kind {
            LimitKind::Deposit => "deposit",
            LimitKind::Loss => "loss",
            LimitKind::Wager => "wager",
            LimitKind::Session => "session-time",
        };
        let period = match self.period {
            LimitPeriod::Day => "24-hour",
            LimitPeriod::Week => "7-day",
            LimitPeriod::Month => "30-day",
            LimitPeriod::Bet => {
                return format!(
                    "this wager is more than your single-wager limit of {}: each wager \
                     (a bet, a side bet, a double, a split, insurance) may be at most that",
                    Money::cents(self.amount)
                )
            }
        };
        let resets = self
            .resets_ms
            .map_or_else(String::new, crate::accounts::iso);
        if self.kind == LimitKind::Session {
            return format!(
                "you have reached your {period} {what} limit of {} minutes: play ends at \
                 this round's end; it resets at {resets}",
                self.amount / 60
            );
        }
        format!(
            "this would pass your {period} {what} limit of {} ({} left); it resets at {resets}",
            Money::cents(self.amount),
            Money::cents(self.left.max(0)),
        )
    }
}

/// What `player` used of a limit of `kind` in the period from `start_ms` at `now_ms`,
/// counted with `in_play` (the stakes of the round in play, not in the usage rows
/// yet): cents, or seconds logged in ([`crate::logged_in`]).
pub fn used(
    store: &dyn Store,
    player: &str,
    kind: LimitKind,
    start_ms: i64,
    in_play: UsageTotals,
    life: Life,
    now_ms: i64,
) -> felt_store::Result<i64> {
    let money = |store: &dyn Store| -> felt_store::Result<UsageTotals> {
        let mut used = store.usage_since(player, start_ms)?;
        used.staked = used.staked.saturating_add(in_play.staked);
        used.returned = used.returned.saturating_add(in_play.returned);
        Ok(used)
    };
    Ok(match kind {
        LimitKind::Session => {
            crate::logged_in::since(store, player, start_ms, life, now_ms)? / 1_000
        }
        LimitKind::Deposit => money(store)?.deposited,
        LimitKind::Loss => {
            let used = money(store)?;
            used.staked.saturating_sub(used.returned).max(0)
        }
        LimitKind::Wager => money(store)?.staked,
    })
}

/// What is asked of the limits: `extra` more in all, its largest single wager
/// `single` (cents, or seconds for time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The sum asked for.
    pub extra: i64,
    /// The largest single wager in it (checked against a single-wager limit).
    pub single: i64,
}

impl Asked {
    /// One amount, which is its own largest wager.
    pub fn one(amount: i64) -> Asked {
        Asked {
            extra: amount,
            single: amount,
        }
    }
}

/// Whether `asked` of `kinds` (counted with `in_play`, what is not yet in the usage
/// rows: the stakes of the round in play) passes a limit of `player`'s at `now_ms`,
/// sessions living `life`; the tightest limit passed, if any.
pub fn check(
    store: &dyn Store,
    player: &str,
    kinds: &[LimitKind],
    in_play: UsageTotals,
    asked: Asked,
    life: Life,
    now_ms: i64,
) -> felt_store::Result<Option<Reached>> {
    let changes = store.limit_changes(player)?;
    check_changes(
        store,
        player,
        &changes,
        (kinds, in_play, asked),
        (life, now_ms),
    )
}

/// [`check`] of `kinds`, `in_play` and `asked`, with the player's limit `changes`
/// read, at (`life`, `now_ms`).
fn check_changes(
    store: &dyn Store,
    player: &str,
    changes: &[LimitChange],
    (kinds, in_play, asked): (&[LimitKind], UsageTotals, Asked),
    (life, now_ms): (Life, i64),
) -> felt_store::Result<Option<Reached>> {
    let mut tightest: Option<Reached> = None;
    for s in slots(changes) {
        let Some(amount) = s.amount.filter(|_| kinds.contains(&s.kind)) else {
            continue;
        };
        let (used, extra, resets_ms) = match s.window(now_ms) {
            Some((start, resets)) => {
                let used = used(store, player, s.kind, start, in_play, life, now_ms)?;
                (used, asked.extra, Some(resets))
            }
            None => (0, asked.single, None),
        };
        let left = amount.saturating_sub(used);
        if extra > left && tightest.is_none_or(|t| left < t.left) {
            tightest = Some(Reached {
                kind: s.kind,
                period: s.period,
                amount,
                left,
                resets_ms,
            });
        }
    }
    Ok(tightest)
}

/// The break or exclusion that holds for `player` at `now_ms` (the one ending last).
pub fn exclusion(
    store: &dyn Store,
    player: &str,
    now_ms: i64,
) -> felt_store::Result<Option<Exclusion>> {
    let all = store.exclusions(player)?;
    Ok(all
        .into_iter()
        .filter(|e| e.holds_at(now_ms))
        .max_by_key(|e| e.until_ms.unwrap_or(i64::MAX)))
}

/// The sentence a player reads about an exclusion.
pub fn exclusion_sentence(e: &Exclusion) -> String {
    let what = match e.kind {
        ExclusionKind::Break => "you are taking a break",
        ExclusionKind::SelfExcluded => "you have excluded yourself",
        ExclusionKind::Operator => "the operator has excluded you",
    };
    match e.until_ms {
        Some(u) => format!(
            "{what} until {}: no bets until then",
            crate::accounts::iso(u)
        ),
        None => format!("{what} for good: no bets"),
    }
}

/// Why a stake is refused: the protocol's code and the sentence.
pub type Refusal = (Code, String);

/// Whether `player` may stake `extra` more at `now_ms` (`None`: a split, which stakes
/// what the player's largest single stake of the round was), its largest single wager
/// `single` (`None`: all of `extra` is one wager), `round` being the round in play
/// (its stakes are not in the usage rows yet): not while a break or exclusion holds,
/// nor past a loss, wager or single-wager limit. A books failure refuses too (a limit
/// that cannot be checked is not passed).
pub fn may_stake(
    store: &dyn Store,
    player: &str,
    round: RoundId,
    (extra, single): (Option<Money>, Option<Money>),
    life: Life,
    now_ms: i64,
) -> Result<(), Refusal> {
    let failed = |e: felt_store::StoreError| {
        tracing::error!(%player, error = %e, "the limits could not be read");
        (
            Code::Refused,
            "your limits cannot be checked now: nothing was staked; try again".to_string(),
        )
    };
    if let Some(e) = exclusion(store, player, now_ms).map_err(failed)? {
        return Err((Code::PlayerBlocked, exclusion_sentence(&e)));
    }
    let kinds = [LimitKind::Loss, LimitKind::Wager];
    let changes = store.limit_changes(player).map_err(failed)?;
    if !slots(&changes)
        .iter()
        .any(|s| s.amount.is_some() && kinds.contains(&s.kind))
    {
        // No loss or wager limit: nothing to count (the round's record is not read).
        return Ok(());
    }
    let rec = store.round(round).map_err(failed)?;
    let in_play = rec
        .as_ref()
        .and_then(|r| round_usage(r).remove(player))
        .unwrap_or_default();
    let extra = extra.unwrap_or_else(|| {
        let own = Account::player(player);
        rec.iter()
            .flat_map(|r| r.movements.iter())
            .filter(|m| m.movement.from == own)
            .map(|m| m.movement.amount)
            .max()
            .unwrap_or(Money::ZERO)
    });
    let asked = Asked {
        extra: extra.as_cents(),
        single: single.unwrap_or(extra).as_cents(),
    };
    let asked = (&kinds[..], in_play, asked);
    let reached = check_changes(store, player, &changes, asked, (life, now_ms));
    match reached.map_err(failed)? {
        Some(r) => Err((Code::LimitReached, r.sentence())),
        None => Ok(()),
    }
}

/// The sentence of the session-time limit `player` has reached at `now_ms` (their
/// logged-in time, sessions living `life`), if any (the books failing: none, logged).
pub fn time_is_up(
    books: &crate::books::Books,
    player: &str,
    life: Life,
    now_ms: i64,
) -> Option<String> {
    let none = UsageTotals::default();
    let session = [LimitKind::Session];
    match books.read(|s| check(s, player, &session, none, Asked::one(1), life, now_ms)) {
        Ok(r) => r.map(|r| r.sentence()),
        Err(e) => {
            tracing::error!(%player, error = %e, "the session-time limits could not be read");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(amount: Option<i64>, requested_ms: i64, effective_ms: i64) -> LimitChange {
        LimitChange {
            seq: 0,
            player: "p".into(),
            kind: LimitKind::Loss,
            period: LimitPeriod::Day,
            amount,
            requested_ms,
            effective_ms,
        }
    }

    #[test]
    fn a_decrease_applies_at_once_and_an_increase_waits_then_needs_confirming() {
        let mut rows = vec![change(Some(100), 0, 0)];
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        assert_eq!((s.amount, s.anchor_ms), (Some(100), 0));
        let down = plan("p", &s, Ask::Set(50), 10).unwrap();
        assert_eq!(down.effective_ms, 10);
        let up = plan("p", &s, Ask::Set(200), 10).unwrap();
        assert_eq!(up.effective_ms, 10 + COOLING_OFF_MS);
        rows.push(up);
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        assert_eq!(s.amount, Some(100), "a pending increase is not in effect");
        // Asked again too early: nothing changes (the cooling-off runs on).
        assert!(plan("p", &s, Ask::Set(200), 20).is_none());
        let other = plan("p", &s, Ask::Set(300), 20).unwrap();
        assert_eq!(other.effective_ms, 20 + COOLING_OFF_MS);
        let confirm = plan("p", &s, Ask::Set(200), 10 + COOLING_OFF_MS).unwrap();
        assert_eq!(confirm.effective_ms, confirm.requested_ms);
        rows.push(confirm);
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        assert_eq!((s.amount, s.pending, s.anchor_ms), (Some(200), None, 0));
        assert!(plan("p", &s, Ask::Set(200), 99).is_none());
    }

    #[test]
    fn a_removal_waits_and_a_decrease_drops_a_pending_increase() {
        let mut rows = vec![change(Some(100), 0, 0)];
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        let remove = plan("p", &s, Ask::Remove, 5).unwrap();
        assert_eq!(
            (remove.amount, remove.effective_ms),
            (None, 5 + COOLING_OFF_MS)
        );
        rows.push(remove);
        rows.push(change(Some(80), 6, 6));
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        assert_eq!((s.amount, s.pending), (Some(80), None));
    }

    #[test]
    fn a_raise_of_a_weekly_or_monthly_limit_waits_for_its_period_to_end() {
        let day = LimitPeriod::Day.ms().unwrap();
        for period in [LimitPeriod::Week, LimitPeriod::Month] {
            let rows = vec![LimitChange {
                period,
                ..change(Some(100), 0, 0)
            }];
            let s = slot(&rows, LimitKind::Loss, period);
            // Asked on the second day: due when the period ends, not a day later.
            let up = plan("p", &s, Ask::Set(200), day + 5).unwrap();
            let len = period.ms().unwrap();
            assert_eq!(up.effective_ms, len, "{period:?}");
            let remove = plan("p", &s, Ask::Remove, day + 5).unwrap();
            assert_eq!(remove.effective_ms, len, "{period:?}");
            // Asked within the period's last day: the 24 hours are longer.
            let late = len - 10;
            let up = plan("p", &s, Ask::Set(200), late).unwrap();
            assert_eq!(up.effective_ms, late + COOLING_OFF_MS, "{period:?}");
        }
    }

    #[test]
    fn periods_are_fixed_from_the_first_setting() {
        let rows = vec![
            change(Some(100), 1_000, 1_000),
            change(Some(50), 9_000, 9_000),
        ];
        let s = slot(&rows, LimitKind::Loss, LimitPeriod::Day);
        let day = LimitPeriod::Day.ms().unwrap();
        assert_eq!(
            s.window(1_000 + day + 5),
            Some((1_000 + day, 1_000 + 2 * day))
        );
        assert_eq!(s.window(1_000), Some((1_000, 1_000 + day)));
    }

    #[test]
    fn a_single_wager_limit_has_no_period_and_its_raise_waits_the_cooling_off_alone() {
        let rows = vec![LimitChange {
            kind: LimitKind::Wager,
            period: LimitPeriod::Bet,
            ..change(Some(25_00), 1_000, 1_000)
        }];
        let s = slot(&rows, LimitKind::Wager, LimitPeriod::Bet);
        assert_eq!((s.amount, s.window(5_000)), (Some(25_00), None));
        let up = plan("p", &s, Ask::Set(50_00), 7_000).unwrap();
        assert_eq!(up.effective_ms, 7_000 + COOLING_OFF_MS);
        let down = plan("p", &s, Ask::Set(10_00), 7_000).unwrap();
        assert_eq!(down.effective_ms, 7_000);
        // Only a wager limit has a single-wager form.
        let kinds: Vec<_> = slots(&rows)
            .iter()
            .filter(|s| s.period == LimitPeriod::Bet)
            .map(|s| s.kind)
            .collect();
        assert_eq!(kinds, [LimitKind::Wager]);
        let r = Reached {
            kind: LimitKind::Wager,
            period: LimitPeriod::Bet,
            amount: 25_00,
            left: 25_00,
            resets_ms: None,
        };
        assert!(
            r.sentence().contains("single-wager limit of 25.00"),
            "{}",
            r.sentence()
        );
    }
}
