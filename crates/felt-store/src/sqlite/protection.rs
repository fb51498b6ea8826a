//! The audit log, player limits, their usage and exclusions in SQLite (schema 8).

use super::{damaged, R};
use crate::audit_log::{AuditEntry, AuditQuery, NewAuditEntry};
use crate::limits::{
    Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, RealitySchedule, UsageKind,
    UsageTotals,
};
use crate::RoundId;
use rusqlite::{params, Connection, OptionalExtension, Row};

/// Appends an entry; returns its number.
pub(crate) fn append_audit(c: &Connection, e: &NewAuditEntry<'_>) -> R<i64> {
    c.prepare_cached(
        "INSERT INTO audit_log (at_ms, actor, action, subject, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![e.at_ms, e.actor, e.action, e.subject, e.detail])?;
    Ok(c.last_insert_rowid())
}

/// The entries `q` asks for, oldest first.
pub(crate) fn audit(c: &Connection, q: &AuditQuery) -> R<Vec<AuditEntry>> {
    let limit = i64::try_from(q.limit).unwrap_or(i64::MAX);
    let mut st = c.prepare_cached(
        "SELECT seq, at_ms, actor, action, subject, detail FROM ( \
         SELECT * FROM audit_log WHERE (?1 IS NULL OR subject = ?1) AND at_ms >= ?2 \
         ORDER BY seq DESC LIMIT ?3) ORDER BY seq",
    )?;
    let rows = st.query_map(
        params![q.subject, q.since_ms.unwrap_or(i64::MIN), limit],
        |r| {
            Ok(AuditEntry {
                seq: r.get(0)?,
                at_ms: r.get(1)?,
                actor: r.get(2)?,
                action: r.get(3)?,
                subject: r.get(4)?,
                detail: r.get(5)?,
            })
        },
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Appends a limit change; returns its number.
pub(crate) fn append_limit(c: &Connection, l: &LimitChange) -> R<i64> {
    c.prepare_cached(
        "INSERT INTO player_limits (player, kind, period, amount, requested_ms, effective_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        l.player,
        l.kind.as_str(),
        l.period.as_str(),
        l.amount,
        l.requested_ms,
        l.effective_ms
    ])?;
    Ok(c.last_insert_rowid())
}

/// Column `idx` of `r`, a text `parse` must know (else the books are damaged).
fn parsed<T>(r: &Row<'_>, idx: usize, parse: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let text: String = r.get(idx)?;
    parse(&text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            idx,
            rusqlite::types::Type::Text,
            format!("`{text}` is not a kind the books know").into(),
        )
    })
}

/// A player's limit changes, oldest first.
pub(crate) fn limits(c: &Connection, player: &str) -> R<Vec<LimitChange>> {
    let mut st = c.prepare_cached(
        "SELECT seq, player, kind, period, amount, requested_ms, effective_ms \
         FROM player_limits WHERE player = ?1 ORDER BY seq",
    )?;
    let rows = st.query_map([player], |r| {
        Ok(LimitChange {
            seq: r.get(0)?,
            player: r.get(1)?,
            kind: parsed(r, 2, LimitKind::parse)?,
            period: parsed(r, 3, LimitPeriod::parse)?,
            amount: r.get(4)?,
            requested_ms: r.get(5)?,
            effective_ms: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Adds usage rows.
pub(crate) fn add_usage(
    c: &Connection,
    player: &str,
    at_ms: i64,
    usage: &[(UsageKind, i64)],
) -> R<()> {
    let mut st = c.prepare_cached(
        "INSERT INTO limit_usage (player, at_ms, kind, amount) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (kind, amount) in usage {
        st.execute(params![player, at_ms, kind.as_str(), amount])?;
    }
    Ok(())
}

/// Counts what each player staked and got back in `round` against their limits at
/// `at_ms` ([`crate::round_usage`]).
pub(crate) fn count_round(c: &Connection, round: RoundId, at_ms: i64) -> R<()> {
    let Some(rec) = super::read::round(c, round)? else {
        return Ok(());
    };
    for (player, u) in crate::limits::round_usage(&rec) {
        add_usage(c, &player, at_ms, &crate::limits::usage_rows(&u))?;
    }
    Ok(())
}

/// A player's usage at or after `since_ms`.
pub(crate) fn usage(c: &Connection, player: &str, since_ms: i64) -> R<UsageTotals> {
    let mut st = c.prepare_cached(
        "SELECT kind, SUM(CASE WHEN kind = 'play-ms' THEN MIN(amount, at_ms - ?2) ELSE amount END), \
         MAX(at_ms) FROM limit_usage WHERE player = ?1 AND at_ms >= ?2 GROUP BY kind",
    )?;
    let rows = st.query_map(params![player, since_ms], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    let mut t = UsageTotals::default();
    for row in rows {
        let (kind, sum, latest) = row?;
        crate::limits::add_total(&mut t, &kind, sum, latest).map_err(damaged)?;
    }
    Ok(t)
}

/// Appends a break or an exclusion; returns its number.
pub(crate) fn append_exclusion(c: &Connection, e: &Exclusion) -> R<i64> {
    c.prepare_cached(
        "INSERT INTO exclusions (player, kind, start_ms, until_ms, set_by, reason) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        e.player,
        e.kind.as_str(),
        e.start_ms,
        e.until_ms,
        e.set_by,
        e.reason
    ])?;
    Ok(c.last_insert_rowid())
}

/// A player's breaks and exclusions, oldest first.
pub(crate) fn exclusions(c: &Connection, player: &str) -> R<Vec<Exclusion>> {
    let mut st = c.prepare_cached(
        "SELECT seq, player, kind, start_ms, until_ms, set_by, reason \
         FROM exclusions WHERE player = ?1 ORDER BY seq",
    )?;
    let rows = st.query_map([player], |r| {
        Ok(Exclusion {
            seq: r.get(0)?,
            player: r.get(1)?,
            kind: parsed(r, 2, ExclusionKind::parse)?,
            start_ms: r.get(3)?,
            until_ms: r.get(4)?,
            set_by: r.get(5)?,
            reason: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A player's reality-check schedule.
pub(crate) fn reality_schedule(c: &Connection, player: &str) -> R<Option<RealitySchedule>> {
    let found = c
        .prepare_cached(
            "SELECT login_ms, first_round, interval_mins, anchor_ms FROM reality_checks \
             WHERE player = ?1",
        )?
        .query_row([player], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })
        .optional()?;
    found
        .map(|(login_ms, first_round, interval, anchor_ms)| {
            Ok(RealitySchedule {
                player: player.to_string(),
                login_ms,
                first_round: RoundId(first_round),
                interval_mins: u32::try_from(interval)
                    .map_err(|_| damaged(format!("a reality check every {interval} minutes")))?,
                anchor_ms,
            })
        })
        .transpose()
}

/// Keeps a player's reality-check schedule, replacing theirs.
pub(crate) fn put_reality_schedule(c: &Connection, s: &RealitySchedule) -> R<()> {
    c.prepare_cached(
        "INSERT INTO reality_checks (player, login_ms, first_round, interval_mins, anchor_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (player) DO UPDATE SET \
         login_ms = excluded.login_ms, first_round = excluded.first_round, \
         interval_mins = excluded.interval_mins, anchor_ms = excluded.anchor_ms",
    )?
    .execute(params![
        s.player,
        s.login_ms,
        s.first_round.0,
        s.interval_mins,
        s.anchor_ms
    ])?;
    Ok(())
}
