//! Table leases in SQLite (schemas 4 and 5), by the system clock.

use super::R;
use crate::error::StoreError;
use crate::lease::{status_of, TableLease};
use rusqlite::{params, Connection, OptionalExtension};

/// Now, in milliseconds since the Unix epoch (the system clock).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Claims or renews the leases of `tables` (sorted, without repeats) for `server`.
pub(crate) fn claim(
    c: &Connection,
    server: &str,
    url: &str,
    tables: &[&str],
    ttl_ms: i64,
) -> R<Vec<TableLease>> {
    let now = now_ms();
    let until = now.saturating_add(ttl_ms);
    let mut st = c.prepare_cached(
        "INSERT INTO table_leases (table_id, server, url, epoch, expires_ms) \
         VALUES (?1, ?2, ?3, 1, ?4) \
         ON CONFLICT (table_id) DO UPDATE SET server = excluded.server, url = excluded.url, \
         epoch = epoch + (CASE WHEN server = excluded.server THEN 0 ELSE 1 END), \
         status = (CASE WHEN server = excluded.server THEN status END), \
         expires_ms = excluded.expires_ms \
         WHERE server = excluded.server OR expires_ms <= ?5",
    )?;
    for t in tables {
        st.execute(params![t, server, url, until, now])?;
    }
    let mut held = Vec::new();
    for t in tables {
        if let Some(l) = one(c, t, now)? {
            if l.server == server {
                held.push(l);
            }
        }
    }
    Ok(held)
}

/// Gives up `server`'s leases of `tables`: they run out now.
pub(crate) fn release(c: &Connection, server: &str, tables: &[&str]) -> R<()> {
    let now = now_ms();
    let mut st = c.prepare_cached(
        "UPDATE table_leases SET expires_ms = ?3 \
         WHERE table_id = ?1 AND server = ?2 AND expires_ms > ?3",
    )?;
    for t in tables {
        st.execute(params![t, server, now])?;
    }
    Ok(())
}

fn one(c: &Connection, table: &str, now: i64) -> R<Option<TableLease>> {
    Ok(c.prepare_cached(
        "SELECT table_id, server, url, epoch, expires_ms, status FROM table_leases \
         WHERE table_id = ?1",
    )?
    .query_row([table], |r| row(r, now))
    .optional()?)
}

fn row(r: &rusqlite::Row<'_>, now: i64) -> rusqlite::Result<TableLease> {
    let expires_ms: i64 = r.get(4)?;
    Ok(TableLease {
        table: r.get(0)?,
        server: r.get(1)?,
        url: r.get(2)?,
        epoch: r.get(3)?,
        expires_ms,
        live: expires_ms > now,
        status: status_of(r.get(5)?),
    })
}

/// Every lease, by table.
pub(crate) fn all(c: &Connection) -> R<Vec<TableLease>> {
    let now = now_ms();
    let mut st = c.prepare(
        "SELECT table_id, server, url, epoch, expires_ms, status FROM table_leases \
         ORDER BY table_id",
    )?;
    let rows = st
        .query_map([], |r| row(r, now))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Keeps each status (table, status text; sorted) with the table's lease if `server`
/// holds it.
pub(crate) fn note_status(c: &Connection, server: &str, rows: &[(String, String)]) -> R<()> {
    let mut st = c.prepare_cached(
        "UPDATE table_leases SET status = ?3 \
         WHERE table_id = ?1 AND server = ?2 AND status IS NOT ?3",
    )?;
    for (table, status) in rows {
        st.execute(params![table, server, status])?;
    }
    Ok(())
}

/// Refuses a write to `table`'s rounds when the connection is fenced to a server that
/// does not hold the table's lease (a table without a lease is not fenced).
pub(crate) fn check_fence(c: &Connection, fence: Option<&str>, table: &str) -> R<()> {
    let Some(server) = fence else {
        return Ok(());
    };
    let holder: Option<String> = c
        .prepare_cached("SELECT server FROM table_leases WHERE table_id = ?1")?
        .query_row([table], |r| r.get(0))
        .optional()?;
    match holder {
        Some(h) if h != server => Err(StoreError::LeaseLost {
            table: table.to_string(),
            holder: h,
        }
        .into()),
        _ => Ok(()),
    }
}
