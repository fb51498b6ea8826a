//! One connection to the server, with its prepared statements.

use super::error::{damaged, R};
use ::postgres::types::{FromSql, ToSql};
use ::postgres::{Client, Row, Statement};
use std::collections::HashMap;

/// The parameters of a statement.
pub(crate) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// How many prepared statements a connection keeps (the books use a few dozen).
const CACHED: usize = 256;

/// A connection and the statements prepared on it (each text is prepared once per
/// connection, then only bound and run: one round trip a statement).
pub(crate) struct Conn {
    client: Client,
    cache: HashMap<String, Statement>,
}

impl Conn {
    pub(crate) fn new(client: Client) -> Conn {
        Conn {
            client,
            cache: HashMap::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> R<Statement> {
        if let Some(s) = self.cache.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        if self.cache.len() >= CACHED {
            self.cache.clear();
        }
        self.cache.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    /// Every row of a query.
    pub(crate) fn query(&mut self, sql: &str, p: Params<'_>) -> R<Vec<Row>> {
        let st = self.statement(sql)?;
        Ok(self.client.query(&st, p)?)
    }

    /// The first row of a query, if any.
    pub(crate) fn opt(&mut self, sql: &str, p: Params<'_>) -> R<Option<Row>> {
        Ok(self.query(sql, p)?.into_iter().next())
    }

    /// The first row of a query that always returns one.
    pub(crate) fn one(&mut self, sql: &str, p: Params<'_>) -> R<Row> {
        self.opt(sql, p)?
            .ok_or_else(|| damaged(format!("a query returned no row: {sql}")))
    }

    /// Runs a statement; returns how many rows it changed.
    pub(crate) fn exec(&mut self, sql: &str, p: Params<'_>) -> R<u64> {
        let st = self.statement(sql)?;
        Ok(self.client.execute(&st, p)?)
    }

    /// Runs statements without parameters (transaction control, migrations).
    pub(crate) fn batch(&mut self, sql: &str) -> R<()> {
        Ok(self.client.batch_execute(sql)?)
    }

    /// Ends the session (see [`close_off_thread`]).
    pub(crate) fn close(self) {
        close_off_thread(self.client, false);
    }
}

/// Column `idx` of a row; a value of the wrong type or a NULL where none may be is a
/// damaged row, never a panic.
pub(crate) fn get<'a, T: FromSql<'a>>(row: &'a Row, idx: usize) -> R<T> {
    row.try_get(idx)
        .map_err(|e| damaged(format!("column {idx} of a row cannot be read: {e}")))
}

/// Drops a client on a thread of its own: closing it runs the client's own runtime,
/// which must not happen on a thread that drives async tasks (a store dropped in an
/// async server). The caller waits for it. Closing only asks the server to end the
/// session, which frees its advisory locks a moment later: `unlock` first frees them
/// itself (one round trip, answered before this returns), for a caller whose locks
/// another connection may want at once.
pub(crate) fn close_off_thread(client: Client, unlock: bool) {
    let closer = std::thread::Builder::new()
        .name("felt-pg-close".into())
        .spawn(move || {
            let mut client = client;
            if unlock && !client.is_closed() {
                let _ = client.batch_execute("SELECT pg_advisory_unlock_all()");
            }
            drop(client)
        });
    if let Ok(handle) = closer {
        let _ = handle.join();
    }
}
