//! Table leases in PostgreSQL (schemas 4 and 5), by the database's clock.

use super::conn::{get, Conn};
use super::error::R;
use crate::error::StoreError;
use crate::lease::{status_of, TableLease};
use ::postgres::Row;

fn row(r: &Row) -> R<TableLease> {
    Ok(TableLease {
        table: get(r, 0)?,
        server: get(r, 1)?,
        url: get(r, 2)?,
        epoch: get(r, 3)?,
        expires_ms: get(r, 4)?,
        live: get(r, 5)?,
        status: status_of(get(r, 6)?),
    })
}

const COLUMNS: &str =
    "table_id, server, url, epoch, expires_ms, expires_ms > felt_now_ms(), status";

/// Claims or renews the leases of `tables` (sorted, without repeats, so two claimers
/// lock rows in one order) for `server`.
pub(crate) fn claim(
    c: &mut Conn,
    server: &str,
    url: &str,
    tables: &[&str],
    ttl_ms: i64,
) -> R<Vec<TableLease>> {
    c.exec(
        "INSERT INTO table_leases (table_id, server, url, epoch, expires_ms) \
         SELECT t, $1, $2, 1, felt_now_ms() + $4 \
         FROM unnest($3::text[]) WITH ORDINALITY AS u (t, i) ORDER BY i \
         ON CONFLICT (table_id) DO UPDATE SET server = excluded.server, url = excluded.url, \
         epoch = table_leases.epoch \
         + (CASE WHEN table_leases.server = excluded.server THEN 0 ELSE 1 END), \
         status = (CASE WHEN table_leases.server = excluded.server \
         THEN table_leases.status END), \
         expires_ms = excluded.expires_ms \
         WHERE table_leases.server = excluded.server \
         OR table_leases.expires_ms <= felt_now_ms()",
        &[&server, &url, &tables, &ttl_ms],
    )?;
    c.query(
        &format!(
            "SELECT {COLUMNS} FROM table_leases WHERE server = $1 AND table_id = ANY($2) \
             ORDER BY table_id COLLATE \"C\""
        ),
        &[&server, &tables],
    )?
    .iter()
    .map(row)
    .collect()
}

/// Gives up `server`'s leases of `tables`: they run out now.
pub(crate) fn release(c: &mut Conn, server: &str, tables: &[&str]) -> R<()> {
    c.exec(
        "UPDATE table_leases SET expires_ms = felt_now_ms() \
         WHERE table_id = ANY($2) AND server = $1 AND expires_ms > felt_now_ms()",
        &[&server, &tables],
    )?;
    Ok(())
}

/// Every lease, by table.
pub(crate) fn all(c: &mut Conn) -> R<Vec<TableLease>> {
    c.query(
        &format!("SELECT {COLUMNS} FROM table_leases ORDER BY table_id COLLATE \"C\""),
        &[],
    )?
    .iter()
    .map(row)
    .collect()
}

/// Keeps each status (table, status text; sorted, so two writers lock rows in one
/// order) with the table's lease if `server` holds it.
pub(crate) fn note_status(c: &mut Conn, server: &str, rows: &[(String, String)]) -> R<()> {
    let (tables, statuses): (Vec<&str>, Vec<&str>) =
        rows.iter().map(|(t, s)| (t.as_str(), s.as_str())).unzip();
    c.exec(
        "UPDATE table_leases SET status = u.s \
         FROM unnest($2::text[], $3::text[]) AS u (t, s) \
         WHERE table_id = u.t AND server = $1 AND status IS DISTINCT FROM u.s",
        &[&server, &tables, &statuses],
    )?;
    Ok(())
}

/// Refuses a write to `table`'s rounds when the connection is fenced to a server that
/// does not hold the table's lease. The lease row is locked (shared) until the end of
/// the transaction: a takeover waits for this write, or this write sees the takeover.
pub(crate) fn check_fence(c: &mut Conn, fence: Option<&str>, table: &str) -> R<()> {
    let Some(server) = fence else {
        return Ok(());
    };
    let holder: Option<String> = match c.opt(
        "SELECT server FROM table_leases WHERE table_id = $1 FOR SHARE",
        &[&table],
    )? {
        Some(r) => Some(get(&r, 0)?),
        None => None,
    };
    match holder {
        Some(h) if h != server => Err(StoreError::LeaseLost {
            table: table.to_string(),
            holder: h,
        }
        .into()),
        _ => Ok(()),
    }
}
