//! Table leases in SQLite (schema 4), and the fence that keeps a server that lost a
//! table from writing its rounds.

use super::R;
use crate::{StoreError, TableLease};
use rusqlite::{params, Connection, OptionalExtension};
use std::time::{SystemTime, UNIX_EPOCH};

/// The books' clock (Unix ms): the system's, as the file is on this machine.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Claims or renews `tables` for `server` (see [`crate::Store::claim_tables`]).
pub(crate) fn claim(
    tx: &Connection,
    server: &str,
    url: &str,
    tables: &[&str],
    ttl_ms: i64,
) -> R<Vec<TableLease>> {
    let now = now_ms();
    let until = now.saturating_add(ttl_ms.max(1));
    for t in tables {
        // A new table, an expired lease (the epoch rises) or our own (renewed).
        tx.prepare_cached(
            "INSERT INTO table_leases (table_id, server, url, epoch, expires_ms) \
             VALUES (?1, ?2, ?3, 1, ?4) \
             ON CONFLICT (table_id) DO UPDATE SET \
               epoch = CASE WHEN table_leases.server = excluded.server \
                       THEN table_leases.epoch ELSE table_leases.epoch + 1 END, \
               server = excluded.server, url = excluded.url, expires_ms = excluded.expires_ms \
             WHERE table_leases.server = excluded.server OR table_leases.expires_ms <= ?5",
        )?
        .execute(params![t, server, url, until, now])?;
    }
    let mut held = Vec::new();
    for t in tables {
        if let Some(l) = lease(tx, t, now)? {
            if l.server == server {
                held.push(l);
            }
        }
    }
    Ok(held)
}

/// Gives up `server`'s leases of `tables`: they expire now.
pub(crate) fn release(tx: &Connection, server: &str, tables: &[&str]) -> R<()> {
    let now = now_ms();
    for t in tables {
        tx.prepare_cached(
            "UPDATE table_leases SET expires_ms = ?3 WHERE table_id = ?1 AND server = ?2",
        )?
        .execute(params![t, server, now])?;
    }
    Ok(())
}

fn lease(c: &Connection, table: &str, now: i64) -> R<Option<TableLease>> {
    Ok(c.prepare_cached(
        "SELECT table_id, server, url, epoch, expires_ms FROM table_leases WHERE table_id = ?1",
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
    })
}

/// Every lease, by table.
pub(crate) fn all(c: &Connection) -> R<Vec<TableLease>> {
    let now = now_ms();
    let mut st = c.prepare_cached(
        "SELECT table_id, server, url, epoch, expires_ms FROM table_leases ORDER BY table_id",
    )?;
    let rows = st.query_map([], |r| row(r, now))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Refuses a write on `table` unless `server` holds its lease (a table without a
/// lease is not fenced).
pub(crate) fn check_fence(c: &Connection, server: Option<&str>, table: &str) -> R<()> {
    let Some(server) = server else {
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

/// [`check_fence`] for the table of round `round` (an unknown round is left to the
/// caller's own check).
pub(crate) fn check_round_fence(c: &Connection, server: Option<&str>, round: i64) -> R<()> {
    if server.is_none() {
        return Ok(());
    }
    let table: Option<String> = c
        .prepare_cached("SELECT table_id FROM rounds WHERE id = ?1")?
        .query_row([round], |r| r.get(0))
        .optional()?;
    match table {
        Some(t) => check_fence(c, server, &t),
        None => Ok(()),
    }
}
