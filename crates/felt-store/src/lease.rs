//! Table leases: which server deals which table when several servers share the books.
//!
//! A server claims the tables it deals ([`Store::claim_tables`](crate::Store::claim_tables))
//! for a while (a time to live, by the database's clock) and renews the claim before it
//! runs out; a table whose lease ran out (its server died, or lost the database) may be
//! claimed by another server, which resumes its open round from the books. A server
//! fences its connection ([`Store::fence`](crate::Store::fence)) so that once another
//! server has taken a table, its own writes to that table's rounds are refused
//! ([`StoreError::LeaseLost`](crate::StoreError::LeaseLost)) rather than interleaved
//! with the new host's.

use serde::{Deserialize, Serialize};

/// A server's hold on a table: only the holder deals it, until the lease expires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableLease {
    /// The table.
    pub table: String,
    /// The server that holds (or last held) the lease.
    pub server: String,
    /// Where that server's clients reach it.
    pub url: String,
    /// How many times the table changed hands, plus one (1 for its first holder).
    pub epoch: i64,
    /// When the lease runs out, in milliseconds since the Unix epoch (the database's
    /// clock).
    pub expires_ms: i64,
    /// Whether the lease had not run out when it was read.
    pub live: bool,
    /// What the holder last said of the table, for the lobbies of every server (none
    /// until it says; a table that changes hands loses its old holder's word).
    pub status: Option<TableStatus>,
}

/// What a table's host tells the other servers' lobbies: who sits where and whether
/// the table is closed. Public information only (the lobby shows it to anyone).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableStatus {
    /// The players seated, by seat.
    pub players: Vec<SeatedPlayer>,
    /// Whether the table is closed to new rounds.
    pub closed: bool,
}

/// A player in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatedPlayer {
    /// The seat, from 1.
    pub seat: u8,
    /// The player's name.
    pub player: String,
    /// The player holds the seat without a connection to the table (kept until the
    /// table's absence rule frees it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub away: bool,
}

/// The text a status is kept as in the books.
pub(crate) fn status_text(status: &TableStatus) -> crate::Result<String> {
    serde_json::to_string(status).map_err(|e| {
        crate::StoreError::InvalidInput(format!("a table status cannot be written: {e}"))
    })
}

/// A status as the books keep it, read back; `None` for text that is not a status (a
/// lobby shows the table without its seats rather than failing).
pub(crate) fn status_of(text: Option<String>) -> Option<TableStatus> {
    text.and_then(|t| serde_json::from_str(&t).ok())
}

/// The tables of a claim or release, checked (valid names, a valid server name, a time
/// to live above zero when given), sorted and without repeats: every engine takes rows in
/// this order, so two servers claiming at once never wait for each other in a cycle.
pub(crate) fn checked_tables<'a>(
    server: &str,
    tables: &[&'a str],
    ttl_ms: Option<i64>,
) -> crate::Result<Vec<&'a str>> {
    crate::name::validate_name("server", server)?;
    if let Some(ttl) = ttl_ms {
        if ttl <= 0 {
            return Err(crate::StoreError::InvalidInput(format!(
                "a table lease lasts more than 0 ms (got {ttl} ms)"
            )));
        }
    }
    for t in tables {
        crate::name::validate_name("table", t)?;
    }
    let mut sorted = tables.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    Ok(sorted)
}

/// The statuses of a [`Store::note_table_status`](crate::Store::note_table_status),
/// checked (valid names) and written as the books keep them, sorted by table and
/// without repeats (the last of a table's statuses counts), in the order every engine
/// takes rows.
pub(crate) fn checked_statuses(
    server: &str,
    statuses: &[(&str, &TableStatus)],
) -> crate::Result<Vec<(String, String)>> {
    crate::name::validate_name("server", server)?;
    let mut rows = std::collections::BTreeMap::new();
    for (table, status) in statuses {
        crate::name::validate_name("table", table)?;
        rows.insert(table.to_string(), status_text(status)?);
    }
    Ok(rows.into_iter().collect())
}
