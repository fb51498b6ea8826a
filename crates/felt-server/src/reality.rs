//! Reality checks (issue 26, item 3; docs/server.md, "Session information and reality
//! checks"): at an interval the player chooses within the operator's range, play stops
//! at the next round boundary until the player answers (continue, or log out), and
//! the check shows the time since log-in, the amount staked and the net result.
//!
//! The schedule is kept per player in the books (`reality_checks`), so every server
//! sharing them, and a server after a restart, holds the same one; on the server's
//! [`crate::clock`]: due at the log-in plus the interval, then the last answer plus the
//! interval. A table refuses the player's bet while a check is due
//! ([`crate::protocol::Code::RealityCheck`]); a hand in play is never stopped, since
//! only a bet opens the player's next round. The figures are read from the books: the
//! player's movements in the rounds begun since the log-in.

use felt_core::Money;
use felt_store::{Account, MovementKind, RealitySchedule, RoundId, Store};
use serde::Serialize;

/// A minute in milliseconds.
const MINUTE_MS: i64 = 60_000;

/// The reality check's intervals the operator allows, in minutes
/// (`felt serve --reality-check-mins`, `--reality-check-range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RealityPolicy {
    /// The interval of a player who has not chosen one.
    pub default_mins: u32,
    /// The shortest interval a player may choose.
    pub min_mins: u32,
    /// The longest interval a player may choose.
    pub max_mins: u32,
}

impl Default for RealityPolicy {
    /// Every 60 minutes; the player chooses 15 to 60 (Pennsylvania asks for a check
    /// at least hourly, 58 Pa. Code 814a.1(e)).
    fn default() -> RealityPolicy {
        RealityPolicy {
            default_mins: 60,
            min_mins: 15,
            max_mins: 60,
        }
    }
}

impl RealityPolicy {
    /// A policy whose default lies in its range, both at least a minute.
    pub fn new(default_mins: u32, min_mins: u32, max_mins: u32) -> Result<RealityPolicy, String> {
        if min_mins == 0 || min_mins > max_mins {
            return Err(format!(
                "the reality check's range {min_mins}-{max_mins} minutes is empty: the shortest \
                 must be at least 1 and at most the longest"
            ));
        }
        if !(min_mins..=max_mins).contains(&default_mins) {
            return Err(format!(
                "the reality check's default of {default_mins} minutes is outside its range \
                 {min_mins}-{max_mins}"
            ));
        }
        Ok(RealityPolicy {
            default_mins,
            min_mins,
            max_mins,
        })
    }

    /// The intervals the page offers: common ones within the range, and its ends.
    pub fn choices(&self) -> Vec<u32> {
        let mut c: Vec<u32> = [15, 30, 45, 60, 90, 120, 180]
            .into_iter()
            .chain([self.min_mins, self.default_mins, self.max_mins])
            .filter(|m| (self.min_mins..=self.max_mins).contains(m))
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }
}

/// Why a player's choice of interval was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntervalRefused {
    /// Outside the operator's range.
    OutOfRange(RealityPolicy),
    /// A check is due: it is answered first.
    CheckDue,
}

/// One player's schedule since their log-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// When the player logged in (ms since the epoch, the server's clock).
    pub login_ms: i64,
    /// The first round of the log-in session: rounds with this id or later count.
    pub first_round: RoundId,
    /// The interval (minutes).
    pub interval_mins: u32,
    /// The log-in, or the last answer to a check: the next is due an interval later.
    pub anchor_ms: i64,
}

impl Schedule {
    /// When the next check is due.
    pub fn due_ms(&self) -> i64 {
        self.anchor_ms
            .saturating_add(i64::from(self.interval_mins) * MINUTE_MS)
    }

    /// Whether a check is due at `now_ms`.
    pub fn is_due(&self, now_ms: i64) -> bool {
        now_ms >= self.due_ms()
    }
}

impl Schedule {
    fn kept(s: RealitySchedule) -> Schedule {
        Schedule {
            login_ms: s.login_ms,
            first_round: s.first_round,
            interval_mins: s.interval_mins,
            anchor_ms: s.anchor_ms,
        }
    }

    fn to_keep(self, player: &str) -> RealitySchedule {
        RealitySchedule {
            player: player.to_string(),
            login_ms: self.login_ms,
            first_round: self.first_round,
            interval_mins: self.interval_mins,
            anchor_ms: self.anchor_ms,
        }
    }
}

/// The reality checks under the operator's policy, over the schedules the books keep
/// (one a player, the same for every server sharing the books, and kept across a
/// restart).
#[derive(Debug, Default)]
pub struct Checks {
    policy: RealityPolicy,
}

impl Checks {
    /// Checks under `policy`.
    pub fn new(policy: RealityPolicy) -> Checks {
        Checks { policy }
    }

    /// The operator's range and default.
    pub fn policy(&self) -> RealityPolicy {
        self.policy
    }

    fn allowed(&self, mins: u32) -> bool {
        (self.policy.min_mins..=self.policy.max_mins).contains(&mins)
    }

    /// `player` logged in at `now_ms`, rounds from `first_round` on being theirs: the
    /// clock starts again, with the interval they chose before (if still allowed).
    pub fn logged_in(
        &self,
        st: &mut dyn Store,
        player: &str,
        now_ms: i64,
        first_round: RoundId,
    ) -> felt_store::Result<Schedule> {
        let interval_mins = st
            .reality_schedule(player)?
            .map(|s| s.interval_mins)
            .filter(|m| self.allowed(*m))
            .unwrap_or(self.policy.default_mins);
        let s = Schedule {
            login_ms: now_ms,
            first_round,
            interval_mins,
            anchor_ms: now_ms,
        };
        st.put_reality_schedule(&s.to_keep(player))?;
        Ok(s)
    }

    /// `player`'s schedule; one started at `login_ms` (their session's opening) when
    /// the books have none, counting the rounds from `first_round`.
    pub fn schedule(
        &self,
        st: &mut dyn Store,
        player: &str,
        login_ms: i64,
        first_round: RoundId,
    ) -> felt_store::Result<Schedule> {
        if let Some(s) = st.reality_schedule(player)? {
            return Ok(Schedule::kept(s));
        }
        let s = Schedule {
            login_ms,
            first_round,
            interval_mins: self.policy.default_mins,
            anchor_ms: login_ms,
        };
        st.put_reality_schedule(&s.to_keep(player))?;
        Ok(s)
    }

    /// `player`'s schedule as the books keep it, if any (a read: nothing begun).
    pub fn kept(&self, st: &dyn Store, player: &str) -> felt_store::Result<Option<Schedule>> {
        Ok(st.reality_schedule(player)?.map(Schedule::kept))
    }

    /// Whether `player` has a check to answer at `now_ms` (a table asks before a bet).
    pub fn due(&self, st: &dyn Store, player: &str, now_ms: i64) -> felt_store::Result<bool> {
        Ok(st
            .reality_schedule(player)?
            .is_some_and(|s| Schedule::kept(s).is_due(now_ms)))
    }

    /// `player` answered "continue" at `now_ms`: the next check is an interval later.
    /// `false` when no check was due (nothing changes).
    pub fn answer_continue(
        &self,
        st: &mut dyn Store,
        player: &str,
        now_ms: i64,
    ) -> felt_store::Result<bool> {
        match st.reality_schedule(player)?.map(Schedule::kept) {
            Some(mut s) if s.is_due(now_ms) => {
                s.anchor_ms = now_ms;
                st.put_reality_schedule(&s.to_keep(player))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// `player` chooses checks every `mins` minutes (counted from the log-in or the
    /// last answer).
    pub fn set_interval(
        &self,
        st: &mut dyn Store,
        player: &str,
        mins: u32,
        now_ms: i64,
    ) -> felt_store::Result<Result<Schedule, IntervalRefused>> {
        if !self.allowed(mins) {
            return Ok(Err(IntervalRefused::OutOfRange(self.policy)));
        }
        let Some(mut s) = st.reality_schedule(player)?.map(Schedule::kept) else {
            return Ok(Err(IntervalRefused::CheckDue));
        };
        if s.is_due(now_ms) {
            return Ok(Err(IntervalRefused::CheckDue));
        }
        s.interval_mins = mins;
        st.put_reality_schedule(&s.to_keep(player))?;
        Ok(Ok(s))
    }
}

/// What a player has done since their log-in, from the books.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// Staked (bets, doubles, splits, insurance), less bets handed back.
    pub staked: Money,
    /// Paid back to the wallet (winnings with their stakes, pushes).
    pub returned: Money,
    /// Won minus staked: `returned - staked`.
    pub net: Money,
    /// Rounds played (with a stake).
    pub rounds: u32,
}

/// How many rounds one read of the books pages back at a time.
const PAGE: usize = 200;

/// `player`'s figures over the rounds from `first_round` on, each round counted as the
/// limits count it ([`felt_store::round_usage`]).
pub fn figures(st: &dyn Store, player: &str, first_round: RoundId) -> felt_store::Result<Figures> {
    let me = Account::player(player);
    let (mut staked, mut returned, mut rounds) = (0i64, 0i64, 0u32);
    let mut before = None;
    loop {
        let page = st.player_rounds(player, PAGE, before)?;
        let full = page.len() == PAGE;
        for r in page.iter().filter(|r| r.id >= first_round) {
            if let Some(u) = felt_store::round_usage(r).remove(player) {
                staked = staked.saturating_add(u.staked);
                returned = returned.saturating_add(u.returned);
            }
            let wagered = r.movements.iter().map(|m| &m.movement);
            rounds += u32::from(
                wagered
                    .into_iter()
                    .any(|m| m.kind == MovementKind::Wager && m.from == me),
            );
        }
        match page.last() {
            Some(last) if full && last.id > first_round => before = Some(last.id),
            _ => break,
        }
    }
    Ok(Figures {
        staked: Money(staked),
        returned: Money(returned),
        net: Money(returned.saturating_sub(staked)),
        rounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New books in a directory of their own (kept while the books are used).
    fn books() -> (tempfile::TempDir, felt_store::SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let st = felt_store::SqliteStore::open(dir.path().join("felt.db")).unwrap();
        (dir, st)
    }

    #[test]
    fn a_check_falls_due_an_interval_after_the_log_in_and_again_after_each_answer() {
        let (_dir, mut st) = books();
        let c = Checks::new(RealityPolicy::default());
        let t0 = 1_000_000;
        c.logged_in(&mut st, "ana", t0, RoundId(1)).unwrap();
        assert!(!c.due(&st, "ana", t0 + 59 * MINUTE_MS).unwrap());
        assert!(c.due(&st, "ana", t0 + 60 * MINUTE_MS).unwrap());
        assert!(
            !c.answer_continue(&mut st, "bo", t0).unwrap(),
            "no schedule, nothing answered"
        );
        assert!(c
            .answer_continue(&mut st, "ana", t0 + 61 * MINUTE_MS)
            .unwrap());
        assert!(!c.due(&st, "ana", t0 + 120 * MINUTE_MS).unwrap());
        assert!(c.due(&st, "ana", t0 + 121 * MINUTE_MS).unwrap());
        assert!(
            !c.answer_continue(&mut st, "ana", t0 + 61 * MINUTE_MS)
                .unwrap(),
            "not due then"
        );
    }

    #[test]
    fn the_chosen_interval_stays_in_the_operators_range_and_waits_for_a_due_check() {
        let (_dir, mut st) = books();
        let c = Checks::new(RealityPolicy::new(60, 15, 60).unwrap());
        let t0 = 0;
        c.logged_in(&mut st, "ana", t0, RoundId(1)).unwrap();
        assert_eq!(
            c.set_interval(&mut st, "ana", 90, t0).unwrap(),
            Err(IntervalRefused::OutOfRange(c.policy()))
        );
        let chosen = c.set_interval(&mut st, "ana", 15, t0).unwrap().unwrap();
        assert_eq!(chosen.due_ms(), 15 * MINUTE_MS);
        assert_eq!(
            c.set_interval(&mut st, "ana", 30, t0 + 16 * MINUTE_MS)
                .unwrap(),
            Err(IntervalRefused::CheckDue)
        );
        // The choice is kept at the next log-in, by another server's checks too.
        let other = Checks::new(RealityPolicy::new(60, 15, 60).unwrap());
        let again = other.logged_in(&mut st, "ana", t0, RoundId(9)).unwrap();
        assert_eq!(again.interval_mins, 15);
    }

    #[test]
    fn a_policy_whose_default_is_outside_its_range_is_refused() {
        assert!(RealityPolicy::new(90, 15, 60).is_err());
        assert!(RealityPolicy::new(10, 0, 60).is_err());
        assert!(RealityPolicy::new(30, 60, 15).is_err());
        assert_eq!(
            RealityPolicy::new(20, 10, 20).unwrap().choices(),
            vec![10, 15, 20]
        );
    }
}
