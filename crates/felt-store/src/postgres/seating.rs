//! Table seats in PostgreSQL (schema 6). Two servers may claim at once: the insert
//! waits for a claim of the same player or seat in flight and does nothing if that one
//! commits, so each player has one row and each seat one player, whoever wins.

use super::conn::{get, Conn};
use super::error::{damaged, R};
use super::leases;
use crate::seating::{claim_answer, seat_number, SeatClaim, STALE_SEAT_MS};

/// How many times a claim looks again when the row it collided with was gone before
/// it could be read (freed meanwhile).
const LOOKS: usize = 3;

/// Claims `seat` at `table` for `player` (checked, canonical).
pub(crate) fn take(
    c: &mut Conn,
    fence: Option<&str>,
    table: &str,
    seat: u8,
    player: &str,
) -> R<SeatClaim> {
    leases::check_fence(c, fence, table)?;
    c.exec(
        "DELETE FROM seats WHERE player = $1 AND table_id <> $2 AND table_id IN \
         (SELECT table_id FROM table_leases WHERE expires_ms <= felt_now_ms() - $3)",
        &[&player, &table, &STALE_SEAT_MS],
    )?;
    let n = i64::from(seat);
    for _ in 0..LOOKS {
        let inserted = c.exec(
            "INSERT INTO seats (player, table_id, seat) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
            &[&player, &table, &n],
        )?;
        if inserted == 1 {
            return Ok(SeatClaim::Taken);
        }
        let mine = match c.opt(
            "SELECT table_id, seat FROM seats WHERE player = $1",
            &[&player],
        )? {
            Some(r) => Some((get(&r, 0)?, seat_number(get(&r, 1)?).map_err(damaged)?)),
            None => None,
        };
        let holder: Option<String> = match c.opt(
            "SELECT player FROM seats WHERE table_id = $1 AND seat = $2",
            &[&table, &n],
        )? {
            Some(r) => Some(get(&r, 0)?),
            None => None,
        };
        if let Some(answer) = claim_answer(table, seat, mine, holder.as_deref()) {
            return Ok(answer);
        }
    }
    Ok(SeatClaim::Occupied)
}

/// Frees `player`'s seat at `table`; whether there was one.
pub(crate) fn leave(c: &mut Conn, fence: Option<&str>, table: &str, player: &str) -> R<bool> {
    leases::check_fence(c, fence, table)?;
    let n = c.exec(
        "DELETE FROM seats WHERE player = $1 AND table_id = $2",
        &[&player, &table],
    )?;
    Ok(n > 0)
}

/// Frees every seat at `table`.
pub(crate) fn clear(c: &mut Conn, fence: Option<&str>, table: &str) -> R<()> {
    leases::check_fence(c, fence, table)?;
    c.exec("DELETE FROM seats WHERE table_id = $1", &[&table])?;
    Ok(())
}

/// The seats taken at `table`, by seat.
pub(crate) fn of_table(c: &mut Conn, table: &str) -> R<Vec<(u8, String)>> {
    c.query(
        "SELECT seat, player FROM seats WHERE table_id = $1 ORDER BY seat",
        &[&table],
    )?
    .iter()
    .map(|r| Ok((seat_number(get(r, 0)?).map_err(damaged)?, get(r, 1)?)))
    .collect()
}
