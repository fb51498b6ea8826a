//! Waiting for the books' notifications: meters that moved, tables that changed hands.

use super::conn::close_off_thread;
use super::error::{classify, Fail};
use super::{connect, location_of};
use crate::error::{Result, StoreError};
use ::postgres::fallible_iterator::FallibleIterator;
use ::postgres::Client;
use std::time::Duration;

/// The channel on which every change of a meter is announced (payload: the meter id).
pub const METERS_CHANNEL: &str = "felt_meters";

/// The channel on which every change of a table's lease holder is announced (payload:
/// the table id).
pub const TABLES_CHANNEL: &str = "felt_tables";

/// What changed in the books (announced when the change committed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Notice {
    /// This meter moved (a contribution, an award, a seed, or it was created): read it
    /// again.
    Meter(String),
    /// This table's lease changed (a new holder, a release, a lease taken again after it
    /// ran out): read the leases again.
    Table(String),
}

/// A connection of its own that listens on [`METERS_CHANNEL`] and [`TABLES_CHANNEL`].
pub struct PgListener {
    client: Option<Client>,
    location: String,
}

impl std::fmt::Debug for PgListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgListener")
            .field("location", &self.location)
            .finish()
    }
}

impl PgListener {
    /// Connects to the database at `url` and listens on both channels.
    pub fn connect(url: &str) -> Result<PgListener> {
        let location = location_of(url);
        let mut client = connect(url, &location, "felt listener")?;
        client
            .batch_execute(&format!("LISTEN {METERS_CHANNEL}; LISTEN {TABLES_CHANNEL}"))
            .map_err(|e| classify(&location, 0, Fail::Pg(e), false))?;
        Ok(PgListener {
            client: Some(client),
            location,
        })
    }

    /// Waits at most `timeout` for notices: returns as soon as one arrives, with every
    /// notice that has arrived by then (a change announced twice in one transaction
    /// comes once), or an empty list when none came in time. A lost connection is an
    /// error ([`StoreError::Unavailable`]): connect a new listener (and read what the
    /// notices would have said, since some may have been missed).
    pub fn wait(&mut self, timeout: Duration) -> Result<Vec<Notice>> {
        let lost = |location: &str, detail: String| StoreError::Unavailable {
            location: location.to_string(),
            detail,
        };
        let Some(client) = self.client.as_mut() else {
            return Err(lost(
                &self.location,
                "this listener's connection was lost earlier".to_string(),
            ));
        };
        let mut raw = Vec::new();
        let first = client.notifications().timeout_iter(timeout).next();
        let first = match first {
            Ok(n) => n,
            Err(e) => return Err(self.fail(Fail::Pg(e))),
        };
        let mut failed = None;
        if let Some(n) = first {
            raw.push(n);
            let mut more = client.notifications();
            let mut pending = more.iter();
            loop {
                match pending.next() {
                    Ok(Some(n)) => raw.push(n),
                    Ok(None) => break,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
        } else if client.is_closed() {
            self.drop_client();
            return Err(lost(
                &self.location,
                "the connection of the listener was closed".to_string(),
            ));
        }
        if let Some(e) = failed {
            return Err(self.fail(Fail::Pg(e)));
        }
        let mut out: Vec<Notice> = Vec::with_capacity(raw.len());
        for n in raw {
            let notice = match n.channel() {
                METERS_CHANNEL => Notice::Meter(n.payload().to_string()),
                TABLES_CHANNEL => Notice::Table(n.payload().to_string()),
                _ => continue,
            };
            if !out.contains(&notice) {
                out.push(notice);
            }
        }
        Ok(out)
    }

    fn fail(&mut self, f: Fail) -> StoreError {
        let e = classify(&self.location, 0, f, false);
        if matches!(e, StoreError::Unavailable { .. }) {
            self.drop_client();
        }
        e
    }

    fn drop_client(&mut self) {
        if let Some(c) = self.client.take() {
            close_off_thread(c, false);
        }
    }
}

impl Drop for PgListener {
    fn drop(&mut self) {
        self.drop_client();
    }
}
