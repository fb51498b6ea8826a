//! PostgreSQL failures as the store's errors.

use crate::error::StoreError;
use std::path::PathBuf;

/// A failure inside a call, before the database's location is attached.
#[derive(Debug)]
pub(crate) enum Fail {
    /// What the client or the server said.
    Pg(::postgres::Error),
    /// A refusal of the books themselves (an unknown round, an overdraft...).
    Store(StoreError),
    /// A row that makes no sense.
    Damaged(String),
}

impl From<::postgres::Error> for Fail {
    fn from(e: ::postgres::Error) -> Fail {
        Fail::Pg(e)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Fail {
        Fail::Store(e)
    }
}

/// The result of the steps of a call.
pub(crate) type R<T> = std::result::Result<T, Fail>;

/// `Inconsistent` for the current database, from a detail.
pub(crate) fn damaged(detail: impl Into<String>) -> Fail {
    Fail::Damaged(detail.into())
}

/// SQLSTATE of a server error, if it is one.
fn sqlstate(e: &::postgres::Error) -> Option<&str> {
    e.code().map(|c| c.code())
}

impl Fail {
    /// A deadlock or a serialization failure: the whole call may be tried again.
    pub(crate) fn is_retryable(&self) -> bool {
        matches!(self, Fail::Pg(e) if matches!(sqlstate(e), Some("40001" | "40P01")))
    }

    /// The connection is gone (the server restarted or is unreachable): it must be
    /// replaced before the next call.
    pub(crate) fn is_connection_lost(&self) -> bool {
        matches!(self, Fail::Pg(e) if connection_lost(e))
    }
}

/// Whether `e` says the connection is unusable.
pub(crate) fn connection_lost(e: &::postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match sqlstate(e) {
        // connection_exception (08...), admin_shutdown, crash_shutdown,
        // cannot_connect_now, too_many_connections.
        Some(c) => c.starts_with("08") || matches!(c, "57P01" | "57P02" | "57P03" | "53300"),
        None => {
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                if s.is::<std::io::Error>() {
                    return true;
                }
                source = s.source();
            }
            let text = e.to_string();
            [
                "error communicating with the server",
                "error connecting to server",
                "timeout",
            ]
            .iter()
            .any(|p| text.starts_with(p))
        }
    }
}

/// What the server said, in one line.
pub(crate) fn said(e: &::postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(d) => format!("{}: {d}", db.message()),
            None => db.message().to_string(),
        },
        None => {
            let mut text = e.to_string();
            if let Some(s) = std::error::Error::source(e) {
                let s = s.to_string();
                if !text.contains(&s) {
                    text = format!("{text}: {s}");
                }
            }
            text
        }
    }
}

/// Turns a failure into the store's error for the database shown as `location`.
/// `committing`: the failure came at the commit, so a lost connection leaves the call's
/// fate unknown.
pub(crate) fn classify(location: &str, lock_ms: u64, fail: Fail, committing: bool) -> StoreError {
    let e = match fail {
        Fail::Store(e) => return e,
        Fail::Damaged(detail) => {
            return StoreError::Inconsistent {
                location: location.to_string(),
                detail,
            }
        }
        Fail::Pg(e) => e,
    };
    let path = || PathBuf::from(location);
    if connection_lost(&e) {
        let what = said(&e);
        let detail = if committing {
            format!(
                "{what}; the connection was lost while committing, so whether the call was \
                 written is unknown until the books are read again"
            )
        } else {
            format!("{what}; nothing of the call was written")
        };
        return StoreError::Unavailable {
            location: location.to_string(),
            detail,
        };
    }
    match sqlstate(&e) {
        Some("55P03") => StoreError::Locked {
            path: path(),
            waited_ms: lock_ms,
        },
        Some("25006") => StoreError::ReadOnly { path: path() },
        Some("53100") => StoreError::DiskFull { path: path() },
        Some("22021" | "22P05") => StoreError::InvalidInput(format!(
            "a text holds a character the database cannot store ({}), such as a NUL",
            said(&e)
        )),
        Some("28P01" | "28000" | "3D000") => StoreError::CannotOpen {
            path: path(),
            cause: said(&e).into(),
        },
        Some(c) if c.starts_with("23") => StoreError::Inconsistent {
            location: location.to_string(),
            detail: said(&e),
        },
        _ => StoreError::ServerFailed {
            location: location.to_string(),
            cause: said(&e).into(),
        },
    }
}
