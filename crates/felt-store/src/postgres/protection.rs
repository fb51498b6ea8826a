//! The audit log, player limits, their usage and exclusions in PostgreSQL (schema 8).

use super::conn::{get, Conn};
use super::error::{damaged, R};
use crate::audit_log::{AuditEntry, AuditQuery, NewAuditEntry};
use crate::limits::{
    Exclusion, ExclusionKind, LimitChange, LimitKind, LimitPeriod, RealitySchedule, UsageKind,
    UsageTotals,
};
use crate::RoundId;
use ::postgres::Row;

/// Appends an entry; returns its number.
pub(crate) fn append_audit(c: &mut Conn, e: &NewAuditEntry<'_>) -> R<i64> {
    let r = c.one(
        "INSERT INTO audit_log (at_ms, actor, action, subject, detail) \
         VALUES ($1, $2, $3, $4, $5) RETURNING seq",
        &[&e.at_ms, &e.actor, &e.action, &e.subject, &e.detail],
    )?;
    get(&r, 0)
}

/// The entries `q` asks for, oldest first.
pub(crate) fn audit(c: &mut Conn, q: &AuditQuery) -> R<Vec<AuditEntry>> {
    let limit = i64::try_from(q.limit).unwrap_or(i64::MAX);
    let rows = c.query(
        "SELECT seq, at_ms, actor, action, subject, detail FROM ( \
         SELECT * FROM audit_log WHERE ($1::text IS NULL OR subject = $1) AND at_ms >= $2 \
         ORDER BY seq DESC LIMIT $3) newest ORDER BY seq",
        &[&q.subject, &q.since_ms.unwrap_or(i64::MIN), &limit],
    )?;
    rows.iter()
        .map(|r| {
            Ok(AuditEntry {
                seq: get(r, 0)?,
                at_ms: get(r, 1)?,
                actor: get(r, 2)?,
                action: get(r, 3)?,
                subject: get(r, 4)?,
                detail: get(r, 5)?,
            })
        })
        .collect()
}

/// Column `idx` of `r`, a text `parse` must know (else the books are damaged).
fn parsed<T>(r: &Row, idx: usize, parse: fn(&str) -> Option<T>) -> R<T> {
    let text: String = get(r, idx)?;
    parse(&text).ok_or_else(|| damaged(format!("`{text}` is not a kind the books know")))
}

/// Appends a limit change; returns its number.
pub(crate) fn append_limit(c: &mut Conn, l: &LimitChange) -> R<i64> {
    let r = c.one(
        "INSERT INTO player_limits (player, kind, period, amount, requested_ms, effective_ms) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
        &[
            &l.player,
            &l.kind.as_str(),
            &l.period.as_str(),
            &l.amount,
            &l.requested_ms,
            &l.effective_ms,
        ],
    )?;
    get(&r, 0)
}

/// A player's limit changes, oldest first.
pub(crate) fn limits(c: &mut Conn, player: &str) -> R<Vec<LimitChange>> {
    let rows = c.query(
        "SELECT seq, player, kind, period, amount, requested_ms, effective_ms \
         FROM player_limits WHERE player = $1 ORDER BY seq",
        &[&player],
    )?;
    rows.iter()
        .map(|r| {
            Ok(LimitChange {
                seq: get(r, 0)?,
                player: get(r, 1)?,
                kind: parsed(r, 2, LimitKind::parse)?,
                period: parsed(r, 3, LimitPeriod::parse)?,
                amount: get(r, 4)?,
                requested_ms: get(r, 5)?,
                effective_ms: get(r, 6)?,
            })
        })
        .collect()
}

/// Adds usage rows.
pub(crate) fn add_usage(
    c: &mut Conn,
    player: &str,
    at_ms: i64,
    usage: &[(UsageKind, i64)],
) -> R<()> {
    for (kind, amount) in usage {
        c.exec(
            "INSERT INTO limit_usage (player, at_ms, kind, amount) VALUES ($1, $2, $3, $4)",
            &[&player, &at_ms, &kind.as_str(), amount],
        )?;
    }
    Ok(())
}

/// Counts what each player staked and got back in `round` against their limits at
/// `at_ms` ([`crate::round_usage`]).
pub(crate) fn count_round(c: &mut Conn, round: RoundId, at_ms: i64) -> R<()> {
    let Some(rec) = super::read::round(c, round)? else {
        return Ok(());
    };
    for (player, u) in crate::limits::round_usage(&rec) {
        add_usage(c, &player, at_ms, &crate::limits::usage_rows(&u))?;
    }
    Ok(())
}

/// A player's usage at or after `since_ms`.
pub(crate) fn usage(c: &mut Conn, player: &str, since_ms: i64) -> R<UsageTotals> {
    let rows = c.query(
        "SELECT kind, SUM(CASE WHEN kind = 'play-ms' THEN LEAST(amount, at_ms - $2) \
         ELSE amount END)::bigint, MAX(at_ms) FROM limit_usage \
         WHERE player = $1 AND at_ms >= $2 \
         GROUP BY kind",
        &[&player, &since_ms],
    )?;
    let mut t = UsageTotals::default();
    for r in &rows {
        let kind: String = get(r, 0)?;
        crate::limits::add_total(&mut t, &kind, get(r, 1)?, get(r, 2)?).map_err(damaged)?;
    }
    Ok(t)
}

/// Appends a break or an exclusion; returns its number.
pub(crate) fn append_exclusion(c: &mut Conn, e: &Exclusion) -> R<i64> {
    let r = c.one(
        "INSERT INTO exclusions (player, kind, start_ms, until_ms, set_by, reason) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
        &[
            &e.player,
            &e.kind.as_str(),
            &e.start_ms,
            &e.until_ms,
            &e.set_by,
            &e.reason,
        ],
    )?;
    get(&r, 0)
}

/// A player's breaks and exclusions, oldest first.
pub(crate) fn exclusions(c: &mut Conn, player: &str) -> R<Vec<Exclusion>> {
    let rows = c.query(
        "SELECT seq, player, kind, start_ms, until_ms, set_by, reason \
         FROM exclusions WHERE player = $1 ORDER BY seq",
        &[&player],
    )?;
    rows.iter()
        .map(|r| {
            Ok(Exclusion {
                seq: get(r, 0)?,
                player: get(r, 1)?,
                kind: parsed(r, 2, ExclusionKind::parse)?,
                start_ms: get(r, 3)?,
                until_ms: get(r, 4)?,
                set_by: get(r, 5)?,
                reason: get(r, 6)?,
            })
        })
        .collect()
}

/// A player's reality-check schedule.
pub(crate) fn reality_schedule(c: &mut Conn, player: &str) -> R<Option<RealitySchedule>> {
    let Some(r) = c.opt(
        "SELECT login_ms, first_round, interval_mins, anchor_ms FROM reality_checks \
         WHERE player = $1",
        &[&player],
    )?
    else {
        return Ok(None);
    };
    let interval: i64 = get(&r, 2)?;
    Ok(Some(RealitySchedule {
        player: player.to_string(),
        login_ms: get(&r, 0)?,
        first_round: RoundId(get(&r, 1)?),
        interval_mins: u32::try_from(interval)
            .map_err(|_| damaged(format!("a reality check every {interval} minutes")))?,
        anchor_ms: get(&r, 3)?,
    }))
}

/// Keeps a player's reality-check schedule, replacing theirs.
pub(crate) fn put_reality_schedule(c: &mut Conn, s: &RealitySchedule) -> R<()> {
    let interval = i64::from(s.interval_mins);
    c.exec(
        "INSERT INTO reality_checks (player, login_ms, first_round, interval_mins, anchor_ms) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player) DO UPDATE SET \
         login_ms = EXCLUDED.login_ms, first_round = EXCLUDED.first_round, \
         interval_mins = EXCLUDED.interval_mins, anchor_ms = EXCLUDED.anchor_ms",
        &[
            &s.player,
            &s.login_ms,
            &s.first_round.0,
            &interval,
            &s.anchor_ms,
        ],
    )?;
    Ok(())
}
