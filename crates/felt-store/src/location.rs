//! Where the books are, by the `--db` value: a file (SQLite) or a `postgres://` URL
//! (PostgreSQL), and opening them with the engine that fits.

use crate::error::Result;
use crate::path::{resolve_with, DB_ENV};
use crate::postgres::PgStore;
use crate::seat::SeatLocks;
use crate::sqlite::SqliteStore;
use crate::{PgSeatLocks, Store};
use std::fmt;
use std::path::PathBuf;

/// Where the books are.
#[derive(Clone, PartialEq, Eq)]
pub enum BooksAt {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its `postgres://` (or `postgresql://`) URL. The URL
    /// may hold a password: [`fmt::Display`] and [`fmt::Debug`] never show it.
    Postgres(String),
}

impl BooksAt {
    /// The books a `--db` value names: a `postgres://` or `postgresql://` URL is a
    /// PostgreSQL database, anything else a file path.
    pub fn parse(value: &str) -> BooksAt {
        let lower = value
            .trim_start()
            .get(..13)
            .unwrap_or("")
            .to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            BooksAt::Postgres(value.trim().to_string())
        } else {
            BooksAt::Sqlite(PathBuf::from(value))
        }
    }

    /// Whether the books are in PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self, BooksAt::Postgres(_))
    }

    /// The `--db` value that names these books (with the password: for a child
    /// process, never for a log).
    pub fn db_value(&self) -> String {
        match self {
            BooksAt::Sqlite(p) => p.display().to_string(),
            BooksAt::Postgres(url) => url.clone(),
        }
    }
}

impl fmt::Display for BooksAt {
    /// The file's path, or the URL with its password replaced by `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BooksAt::Sqlite(p) => write!(f, "{}", p.display()),
            BooksAt::Postgres(url) => f.write_str(&redact_url(url)),
        }
    }
}

impl fmt::Debug for BooksAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BooksAt::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            BooksAt::Postgres(url) => f.debug_tuple("Postgres").field(&redact_url(url)).finish(),
        }
    }
}

/// The books for a caller: `cli` (the `--db` value) if given, else `FELT_DB` if it is
/// set and not empty, else `felt.db` in the user's data directory.
pub fn resolve_books(cli: Option<&str>) -> Result<BooksAt> {
    if let Some(v) = cli {
        return Ok(BooksAt::parse(v));
    }
    match std::env::var(DB_ENV) {
        Ok(v) if !v.is_empty() => Ok(BooksAt::parse(&v)),
        _ => Ok(BooksAt::Sqlite(resolve_with(
            None,
            None,
            crate::path::data_dir().as_deref(),
        )?)),
    }
}

/// Opens (creating and migrating on first use) the books at `at` for writing.
pub fn open_books(at: &BooksAt) -> Result<Box<dyn Store + Send>> {
    Ok(match at {
        BooksAt::Sqlite(p) => Box::new(SqliteStore::open(p)?),
        BooksAt::Postgres(url) => Box::new(PgStore::open(url)?),
    })
}

/// Opens the books at `at` for reading only: every write fails with
/// [`crate::StoreError::ReadOnly`].
pub fn open_books_read_only(at: &BooksAt) -> Result<Box<dyn Store + Send>> {
    Ok(match at {
        BooksAt::Sqlite(p) => Box::new(SqliteStore::open_read_only(p)?),
        BooksAt::Postgres(url) => Box::new(PgStore::open_read_only(url)?),
    })
}

/// The seats a session holds at some books, whatever holds them: lock files beside an
/// SQLite file, or advisory locks of a PostgreSQL session. Dropping it frees them.
#[derive(Debug)]
pub enum HeldSeats {
    /// Beside an SQLite file.
    File(SeatLocks),
    /// In a PostgreSQL database.
    Postgres(Box<PgSeatLocks>),
}

impl HeldSeats {
    /// Takes the seats of `players` at the books at `at` (see [`SeatLocks::acquire`]
    /// and [`PgSeatLocks::acquire`]).
    pub fn acquire(at: &BooksAt, players: &[String]) -> Result<HeldSeats> {
        Ok(match at {
            BooksAt::Sqlite(p) => HeldSeats::File(SeatLocks::acquire(p, players)?),
            BooksAt::Postgres(url) => {
                HeldSeats::Postgres(Box::new(PgSeatLocks::acquire(url, players)?))
            }
        })
    }

    /// How many seats are held.
    pub fn len(&self) -> usize {
        match self {
            HeldSeats::File(s) => s.len(),
            HeldSeats::Postgres(s) => s.len(),
        }
    }

    /// Whether no seat is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A PostgreSQL URL as it may be shown: its password (in the user part, or a
/// `password=` parameter) replaced by `***`.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let (scheme, rest) = url.split_at(scheme_end + 3);
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let authority = match authority.rfind('@') {
        Some(at) => {
            let (user, host) = authority.split_at(at);
            match user.find(':') {
                Some(colon) => format!("{}:***{host}", &user[..colon]),
                None => format!("{user}{host}"),
            }
        }
        None => authority.to_string(),
    };
    let tail = match tail.find('?') {
        Some(q) => {
            let (path, query) = tail.split_at(q + 1);
            let query = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect::<Vec<_>>()
                .join("&");
            format!("{path}{query}")
        }
        None => tail.to_string(),
    };
    format!("{scheme}{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_postgres_anything_else_a_file() {
        assert!(BooksAt::parse("postgres://felt@db/felt").is_postgres());
        assert!(BooksAt::parse("PostgreSQL://felt@db/felt").is_postgres());
        assert_eq!(
            BooksAt::parse("books/felt.db"),
            BooksAt::Sqlite(PathBuf::from("books/felt.db"))
        );
        assert_eq!(
            BooksAt::parse("postgres.db"),
            BooksAt::Sqlite(PathBuf::from("postgres.db"))
        );
    }

    #[test]
    fn a_password_is_never_shown() {
        for (url, shown) in [
            (
                "postgres://felt:s3cret@db.example:5432/felt",
                "postgres://felt:***@db.example:5432/felt",
            ),
            ("postgres://felt@db/felt", "postgres://felt@db/felt"),
            ("postgres://db/felt", "postgres://db/felt"),
            (
                "postgresql://felt:p@ss:w@rd@db/felt?password=x&sslmode=disable",
                "postgresql://felt:***@db/felt?password=***&sslmode=disable",
            ),
        ] {
            let at = BooksAt::parse(url);
            assert_eq!(at.to_string(), shown);
            assert!(!format!("{at:?}").contains("s3cret"));
        }
    }
}
