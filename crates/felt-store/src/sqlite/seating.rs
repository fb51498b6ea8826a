//! Table seats in SQLite (schema 6). Writes are serialized by SQLite's write lock, so
//! a claim reads and writes with no other claim between.

use super::{damaged, leases, R};
use crate::seating::{claim_answer, seat_number, SeatClaim, STALE_SEAT_MS};
use rusqlite::{params, Connection, OptionalExtension};

/// Claims `seat` at `table` for `player` (checked, canonical).
pub(crate) fn take(
    c: &Connection,
    fence: Option<&str>,
    table: &str,
    seat: u8,
    player: &str,
) -> R<SeatClaim> {
    leases::check_fence(c, fence, table)?;
    let now = leases::now_ms();
    forget_stale(c, table, player, now)?;
    let mine = c
        .prepare_cached("SELECT table_id, seat FROM seats WHERE player = ?1")?
        .query_row([player], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })
        .optional()?;
    let mine = match mine {
        Some((t, s)) => Some((t, seat_number(s).map_err(damaged)?)),
        None => None,
    };
    let holder: Option<String> = c
        .prepare_cached("SELECT player FROM seats WHERE table_id = ?1 AND seat = ?2")?
        .query_row(params![table, seat], |r| r.get(0))
        .optional()?;
    if let Some(answer) = claim_answer(table, seat, mine, holder.as_deref()) {
        return Ok(answer);
    }
    c.prepare_cached(
        "INSERT INTO seats (player, table_id, seat, since_ms) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![player, table, seat, now])?;
    Ok(SeatClaim::Taken)
}

/// Forgets `player`'s seat at another table than `table` if that table's lease ran
/// out [`STALE_SEAT_MS`] ago or more.
fn forget_stale(c: &Connection, table: &str, player: &str, now: i64) -> R<()> {
    c.prepare_cached(
        "DELETE FROM seats WHERE player = ?1 AND table_id <> ?2 AND table_id IN \
         (SELECT table_id FROM table_leases WHERE expires_ms <= ?3)",
    )?
    .execute(params![player, table, now.saturating_sub(STALE_SEAT_MS)])?;
    Ok(())
}

/// Frees `player`'s seat at `table`; whether there was one.
pub(crate) fn leave(c: &Connection, fence: Option<&str>, table: &str, player: &str) -> R<bool> {
    leases::check_fence(c, fence, table)?;
    let n = c
        .prepare_cached("DELETE FROM seats WHERE player = ?1 AND table_id = ?2")?
        .execute(params![player, table])?;
    Ok(n > 0)
}

/// Frees every seat at `table`.
pub(crate) fn clear(c: &Connection, fence: Option<&str>, table: &str) -> R<()> {
    leases::check_fence(c, fence, table)?;
    c.prepare_cached("DELETE FROM seats WHERE table_id = ?1")?
        .execute([table])?;
    Ok(())
}

/// The seats taken at `table`, by seat.
pub(crate) fn of_table(c: &Connection, table: &str) -> R<Vec<(u8, String)>> {
    let rows = c
        .prepare_cached("SELECT seat, player FROM seats WHERE table_id = ?1 ORDER BY seat")?
        .query_map([table], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(s, p)| Ok((seat_number(s).map_err(damaged)?, p)))
        .collect()
}
