//! Table seats: who sits where at the online tables, kept in the books so that every
//! server sharing them keeps one rule: a player sits at one table at a time (one
//! wallet, one round at a time), and a seat is one player's.
//!
//! A seat outlives the server that dealt its table: the next host of the table (a
//! takeover, a restart after a crash) seats the players the books say sit there, at
//! the seats they had. A table that closes for good frees its seats
//! ([`Store::clear_table_seats`](crate::Store::clear_table_seats)). A seat at a table
//! no server has dealt for [`STALE_SEAT_MS`] (its lease ran out that long ago: the
//! table was taken out of service) no longer holds its player.

use crate::error::{Result, StoreError};

/// How long after its table's lease ran out a seat stops holding its player: 10
/// minutes, far longer than any takeover.
pub const STALE_SEAT_MS: i64 = 10 * 60 * 1000;

/// The answer to [`Store::take_seat`](crate::Store::take_seat).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatClaim {
    /// The seat is the player's (now, or it was already).
    Taken,
    /// The player sits at another table, or in another seat of this one: leave it
    /// first. Nothing was changed.
    Elsewhere {
        /// That table's id.
        table: String,
        /// That seat, from 1.
        seat: u8,
    },
    /// Another player sits in that seat. Nothing was changed.
    Occupied,
}

/// A seat's row as written: the table, the seat (1 to 255) and the player's canonical
/// name, checked.
pub(crate) fn checked_seat(table: &str, seat: u8, player: &str) -> Result<String> {
    crate::name::validate_name("table", table)?;
    if seat == 0 {
        return Err(StoreError::InvalidInput(
            "seats are numbered from 1: seat 0 does not exist".to_string(),
        ));
    }
    crate::name::normalize_name("player", player)
}

/// A seat number as the books hold it (an integer column), back as a seat; what is
/// wrong with it otherwise (the books are damaged).
pub(crate) fn seat_number(n: i64) -> std::result::Result<u8, String> {
    u8::try_from(n)
        .ok()
        .filter(|s| *s >= 1)
        .ok_or_else(|| format!("it holds a seat numbered {n}"))
}

/// What a claim of `seat` at `table` meets: the player's own row (table, seat), if
/// any, and the seat's holder, if any. `None`: both free, the seat may be written.
pub(crate) fn claim_answer(
    table: &str,
    seat: u8,
    mine: Option<(String, u8)>,
    holder: Option<&str>,
) -> Option<SeatClaim> {
    match (mine, holder) {
        (Some((t, s)), _) if t == table && s == seat => Some(SeatClaim::Taken),
        (Some((table, seat)), _) => Some(SeatClaim::Elsewhere { table, seat }),
        (None, Some(_)) => Some(SeatClaim::Occupied),
        (None, None) => None,
    }
}
