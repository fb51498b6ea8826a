//! Logged-in time, what a session-time limit counts (58 Pa. Code 814a.2(4): "from
//! login to logoff"; New Jersey likewise): the time covered by any of the player's
//! web sessions, each from its log-in to its log-out, or to where it timed out (its
//! last use plus the idle time, or its longest life). Two sessions at once (two
//! devices) count their overlap once.
//!
//! The books count it in `play-ms` usage rows, written when a session closes (log-out,
//! time-out, a session ended by a break or an operator): a row at time `t` counts the
//! logged-in time up to `t`. Time since the newest row, of the sessions still in the
//! books, is added when a limit is checked, so a check is exact to the millisecond
//! whoever asks (any table, any server).

use felt_store::{Store, UsageKind, WebSession};

/// How long a web session lives: unused, and at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Life {
    /// An unused session ends after this (ms).
    pub idle_ms: i64,
    /// Any session ends this long after its log-in (ms).
    pub max_ms: i64,
}

impl Life {
    /// When session `w` ends, or ended, as seen at `now_ms`.
    pub fn end_of(&self, w: &WebSession, now_ms: i64) -> i64 {
        now_ms
            .min(w.last_seen_ms.saturating_add(self.idle_ms))
            .min(w.created_ms.saturating_add(self.max_ms))
    }
}

/// The time covered by `sessions` after `from_ms` up to `now_ms` (overlaps once), and
/// where the last of them ends.
pub fn covered(sessions: &[WebSession], from_ms: i64, life: Life, now_ms: i64) -> (i64, i64) {
    let mut spans: Vec<(i64, i64)> = sessions
        .iter()
        .map(|w| (w.created_ms.max(from_ms), life.end_of(w, now_ms)))
        .filter(|(a, b)| b > a)
        .collect();
    spans.sort_unstable();
    let (mut total, mut reach) = (0i64, from_ms);
    for (a, b) in spans {
        let a = a.max(reach);
        if b > a {
            total = total.saturating_add(b - a);
            reach = b;
        }
    }
    (total, reach)
}

/// `player`'s logged-in time at or after `since_ms` (ms): the usage rows and the time
/// of their sessions not yet counted.
pub fn since(
    st: &dyn Store,
    player: &str,
    since_ms: i64,
    life: Life,
    now_ms: i64,
) -> felt_store::Result<i64> {
    let used = st.usage_since(player, since_ms)?;
    let from = used.play_counted_to_ms.unwrap_or(since_ms).max(since_ms);
    let sessions = st.web_sessions_of(player)?;
    let (uncounted, _) = covered(&sessions, from, life, now_ms);
    Ok(used.play_ms.saturating_add(uncounted))
}

/// Writes `player`'s logged-in time not yet counted to the usage rows (before one of
/// their sessions closes: its time would be lost with it).
pub fn record(st: &mut dyn Store, player: &str, life: Life, now_ms: i64) -> felt_store::Result<()> {
    let sessions = st.web_sessions_of(player)?;
    let Some(first) = sessions.iter().map(|w| w.created_ms).min() else {
        return Ok(());
    };
    let counted_to = st.usage_since(player, first)?.play_counted_to_ms;
    let (ms, end) = covered(&sessions, counted_to.unwrap_or(first), life, now_ms);
    if ms > 0 {
        st.record_usage(player, end, &[(UsageKind::PlayMs, ms)])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_store::Role;

    const LIFE: Life = Life {
        idle_ms: 100,
        max_ms: 1_000,
    };

    fn session(created_ms: i64, last_seen_ms: i64) -> WebSession {
        WebSession {
            name: "ana".into(),
            role: Role::Player,
            created_ms,
            last_seen_ms,
        }
    }

    #[test]
    fn overlapping_sessions_count_once_and_a_timed_out_one_ends_at_its_idle_time() {
        // 0..=250 open and used at 200; 150..=300 open and used now.
        let both = [session(0, 200), session(150, 290)];
        assert_eq!(covered(&both, 0, LIFE, 300), (300, 300));
        // Counted up to 120 already: only what follows.
        assert_eq!(covered(&both, 120, LIFE, 300), (180, 300));
        // Unused since 10: it ended at 110, and 400..=500 is another session.
        let apart = [session(0, 10), session(400, 490)];
        assert_eq!(covered(&apart, 0, LIFE, 500), (210, 500));
        // A session used all along still ends at its longest life.
        assert_eq!(
            covered(&[session(0, 1_990)], 0, LIFE, 2_000),
            (1_000, 1_000)
        );
        assert_eq!(covered(&[], 0, LIFE, 50), (0, 0));
    }
}
